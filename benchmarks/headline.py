"""The headline call against what a skilled user writes by hand (issue 26).

    python benchmarks/headline.py --scale 0.1                       # a quick run
    python benchmarks/headline.py --workloads trec,log --metrics all --rounds 5
    python benchmarks/headline.py --baseline ../before --json results/headline.json

Per query over a judged long table ``qid, rank, rel`` (``benchmarks/headline_data.py``:
``trec`` 10,000 x 1,000, ``deep`` 1,000 x 10,000, ``log`` 1,000,000 x 10, and the smaller
``trec-small`` and ``log-small``, each ``sorted`` and ``shuffled``), for nDCG@10, AP (map),
P@10, RR (mrr) and recall@100, each alone and all five together (``all``). Contenders:

- ``builders``: ``df.group_by("qid").agg(rf.ndcg("rel", k=10), rf.average_precision("rel"),
  rf.precision("rel", k=10), rf.reciprocal_rank("rel"), rf.recall("rel", k=100))``;
- ``shared``: the same measures as one expression sharing their work,
  ``df.group_by("qid").agg(rf.evaluate_expr(["ndcg@10", "map", "P@10", "mrr",
  "recall@100"]))``, unnested;
- ``builders_unguarded``: the same builders through ``rankframe.faces.polars.expr.unguarded``;
  ``builders_lazy`` (when asked for): the builders in ``df.lazy().group_by(...)``, collected
  on Polars' default engine;
- ``builders_guard`` (when asked for): the builders' rank guard alone
  (``rankframe.faces.polars.expr.valid_ranks``), once per metric of the set, in one group-by;
- ``evaluate_polars``, ``evaluate_duckdb``: ``rf.evaluate(df, measures, engine=...)``;
- ``hand_polars``: hand-written Polars, in four variants (below); the ratios use the
  fastest variant of each workload and metric set, and the table says which it was;
- ``polars_floor``: ``df.group_by("qid").agg(pl.col("rel").sum())`` (an eager group-by runs
  on Polars' in-memory engine), and ``polars_floor_lazy``: the same as a LazyFrame collected
  on Polars' default engine, as the hand-written queries are;
- ``macros``: ``SELECT qid, rf_ndcg(rel, rank, 10), ... FROM t GROUP BY qid`` over a DuckDB
  table (``rankframe.duckdb.register``); ``macros_unguarded``: the ``rf__unchecked_*`` macros;
  ``macros_guard`` (when asked for): the macros' rank guard ``rf__ranks_ok`` alone, once per
  metric of the set;
- ``hand_sql``: hand-written DuckDB SQL, in four variants, chosen as for Polars;
- ``duckdb_floor``: ``SELECT qid, sum(rel) FROM t GROUP BY qid``.

Every SQL contender's result is fetched with ``.pl()``. The hand-written variants:

- ``rows`` (Polars): the rows with rel > 0, sorted once by query then rank (a sort by rank,
  then a stable sort by query: a sort on two keys costs several times more), the running
  count j of AP as each row's position in its query, per-row terms (j / rank, rel /
  log2(rank + 1) up to rank 10, flags for the cutoffs), grouped sums of plain columns; the
  ideal DCG from a second sort of those rows by grade; the list of queries joined back
  (queries without relevant rows score 0). Runs on any query id type.
- ``key`` (Polars): ``rows`` with each of its two orders made by one sort on a single Int64
  key, query id x 2^32 + rank (or - grade): integer query ids only. The fastest where
  queries are many and small (``log``) for nDCG, AP and all five; on few large queries
  (``trec``, ``deep``) ``key``, ``rows`` and ``agg`` come out close, ``agg`` often ahead.
- ``agg`` (Polars): the rows with rel > 0, then one group-by whose expressions sort within
  each query (AP's ranks, the ideal grades), the queries joined back.
- ``full`` (Polars): one group-by over every row, no filter first (what an expression
  inside the user's own group-by can reach): the same shape as ``builders`` and ``shared``,
  against which both are also compared on their own.
- ``window`` (SQL): the rows with rel > 0, ``row_number()`` windows for j and the ideal
  position, grouped sums with ``FILTER``, the queries (``SELECT DISTINCT qid``) joined back.
- ``lists`` (SQL): the rows with rel > 0, one ``GROUP BY`` with ``list(rank ORDER BY rank)``
  and the top-n aggregate ``max(rel, 10)`` for the ideal, the queries joined back.
- ``mixed`` (SQL): the ``row_number()`` window of ``window`` for j, the top-n aggregate of
  ``lists`` for the ideal: the fastest for all five together on every workload so far.
- ``full`` (SQL): one ``GROUP BY`` over every row, each aggregate with ``FILTER (WHERE rel >
  0)``, no join: the fastest for P@10, RR or recall alone on many small queries, where no
  sort is needed and the join back costs more than the filter saves.

Before timing, each contender runs once and its per-query values are checked against
rankframe's builders to 1e-12 on every query (the floors: one row per query); a difference
stops the run with the query and the values. The report says which contenders give the
builders' very doubles and which agree only within 1e-12: the filter-first hand-written
queries divide by a float 10 and add AP's terms in no fixed order, so they are a lower
bound on the work, not an equal. Then ``--rounds`` rounds: each contender once
per round, the order rotated from round to round; a table gives the median and the minimum
of the per-round times, and each ratio is the median over rounds of the ratio within the
round. The load average (1 min) is printed at the start and the end.

rankframe is imported from the checkout holding this script, or from ``--rankframe DIR``.
``--baseline DIR`` times rankframe's contenders a second time in a worker process importing
rankframe from the checkout DIR (same data, same rounds, interleaved with this tree's), shown
as ``<contender>@baseline`` with the ratio this tree / baseline; their values are checked
against this tree's builders too.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import IO, Any

import duckdb
import headline_data as data
import polars as pl

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
METRICS = ("ndcg@10", "map", "P@10", "mrr", "recall@100")
SETS: dict[str, tuple[str, ...]] = {m: (m,) for m in METRICS} | {"all": METRICS}
TOLERANCE = 1e-12
QID, RANK, REL = pl.col("qid"), pl.col("rank"), pl.col("rel")


class Unavailable(Exception):
    """A contender this rankframe cannot run (e.g. an older checkout without it)."""


@dataclass
class Bench:
    """One workload, ready for every contender: the Polars table, a DuckDB connection with
    the same rows as table ``t`` and rankframe's macros, and the rankframe module."""

    table: pl.DataFrame
    con: duckdb.DuckDBPyConnection
    rf: ModuleType
    macros: frozenset[str]  # the names of the rf* functions and macros in ``con``


def import_rankframe(root: Path) -> ModuleType:
    """``rankframe`` imported from the checkout ``root`` (an error if another one loads)."""
    sys.path.insert(0, str(root))
    rf = importlib.import_module("rankframe")
    found = Path(rf.__file__ or "").resolve().parent.parent
    if found != root.resolve():
        raise SystemExit(f"headline: rankframe was imported from {found}, not from {root}")
    return rf


def bench_for(table: pl.DataFrame, rf: ModuleType) -> Bench:
    """The workload ``table`` in Polars and in a new DuckDB connection (macros loaded)."""
    con = duckdb.connect()
    importlib.import_module("rankframe.duckdb").register(con)
    con.register("source", table)
    con.execute("CREATE TABLE t AS SELECT * FROM source")
    con.unregister("source")
    names = con.sql("SELECT DISTINCT function_name FROM duckdb_functions() "
                    "WHERE function_name LIKE 'rf%'").fetchall()
    return Bench(table, con, rf, frozenset(n for (n,) in names))


# ---- rankframe's contenders -----------------------------------------------------------

MEASURE_CALLS: dict[str, tuple[str, dict[str, int]]] = {
    "ndcg@10": ("ndcg", {"k": 10}),
    "map": ("average_precision", {}),
    "P@10": ("precision", {"k": 10}),
    "mrr": ("reciprocal_rank", {}),
    "recall@100": ("recall", {"k": 100}),
}
MACRO_CALLS = {
    "ndcg@10": "ndcg(rel, rank, 10)",
    "map": "average_precision(rel, rank, NULL)",
    "P@10": "precision(rel, rank, 10)",
    "mrr": "reciprocal_rank(rel, rank, NULL)",
    "recall@100": "recall(rel, rank, 100)",
}


def _builders(bench: Bench, metrics: Sequence[str], guarded: bool,
              lazy: bool = False) -> pl.DataFrame:
    exprs = []
    for m in metrics:
        name, kwargs = MEASURE_CALLS[m]
        builder = getattr(bench.rf, name)
        if not guarded:
            expr_module = importlib.import_module("rankframe.faces.polars.expr")
            if not hasattr(expr_module, "unguarded"):
                raise Unavailable("rankframe.faces.polars.expr.unguarded does not exist")
            builder = expr_module.unguarded(builder)
        exprs.append(builder("rel", **kwargs).alias(m))
    if lazy:
        return bench.table.lazy().group_by("qid").agg(exprs).collect()
    return bench.table.group_by("qid").agg(exprs)


def _shared(bench: Bench, metrics: Sequence[str]) -> pl.DataFrame:
    """The measures as one expression sharing their work (``rf.evaluate_expr``)."""
    if not hasattr(bench.rf, "evaluate_expr"):
        raise Unavailable("rankframe.evaluate_expr does not exist")
    expr = bench.rf.evaluate_expr(list(metrics)).alias("measures")
    out: pl.DataFrame = bench.table.group_by("qid").agg(expr).unnest("measures")
    return out


def _evaluate(bench: Bench, metrics: Sequence[str], engine: str) -> pl.DataFrame:
    out: pl.DataFrame = bench.rf.evaluate(bench.table, list(metrics), engine=engine)
    return out.select(pl.col(out.columns[0]).alias("qid"),
                      *(pl.col(c).alias(m) for c, m in zip(out.columns[1:], metrics,
                                                             strict=True)))


def _macros(bench: Bench, metrics: Sequence[str], prefix: str) -> pl.DataFrame:
    if prefix != "rf_":
        missing = [m for m in metrics if prefix + MACRO_CALLS[m].split("(")[0]
                   not in bench.macros]
        if missing:
            raise Unavailable(f"no {prefix}* macro for {', '.join(missing)}")
    calls = ", ".join(f'{prefix}{MACRO_CALLS[m]} AS "{m}"' for m in metrics)
    return _fetch(bench.con, f"SELECT qid, {calls} FROM t GROUP BY qid")


def _fetch(con: duckdb.DuckDBPyConnection, query: str) -> pl.DataFrame:
    """The result of ``query``, fetched as every SQL contender's is: ``.pl()``."""
    out: pl.DataFrame = con.sql(query).pl()
    return out


def _guards(bench: Bench, metrics: Sequence[str]) -> pl.DataFrame:
    """The builders' rank guard alone, once per metric (as the guarded builders pay it)."""
    expr_module = importlib.import_module("rankframe.faces.polars.expr")
    if not hasattr(expr_module, "valid_ranks"):
        raise Unavailable("rankframe.faces.polars.expr.valid_ranks does not exist")
    return bench.table.group_by("qid").agg(
        expr_module.valid_ranks(RANK).alias(f"guard{i}") for i in range(len(metrics)))


def _guard_macros(bench: Bench, metrics: Sequence[str]) -> pl.DataFrame:
    """The macros' rank guard alone, once per metric (as the guarded macros pay it)."""
    if "rf__ranks_ok" not in bench.macros:
        raise Unavailable("no rf__ranks_ok macro")
    calls = ", ".join(f"rf__ranks_ok('rf_{i}', rank) AS guard{i}" for i in range(len(metrics)))
    return _fetch(bench.con, f"SELECT qid, {calls} FROM t GROUP BY qid")


# ---- hand-written Polars ---------------------------------------------------------------


def _log2(x: pl.Expr) -> pl.Expr:
    return x.cast(pl.Float64).log(2)


def _position() -> pl.Expr:
    """1, 2, ... along each run of equal qid: a row's position in its query, for a table
    whose queries' rows are together."""
    start = QID.ne_missing(QID.shift(1)).fill_null(True)
    row = pl.int_range(pl.len(), dtype=pl.Int64)
    return row - pl.when(start).then(row).forward_fill() + 1


Order = Callable[[pl.LazyFrame, str, bool], pl.LazyFrame]


def _by_query_then(frame: pl.LazyFrame, column: str, descending: bool) -> pl.LazyFrame:
    """``frame`` sorted by qid, then ``column`` (NULLs last): a sort by ``column``, then a
    stable sort by qid (a sort on two keys costs several times more)."""
    return (frame.sort(column, descending=descending, nulls_last=True)
            .sort("qid", maintain_order=True))


def _by_query_key(frame: pl.LazyFrame, column: str, descending: bool) -> pl.LazyFrame:
    """``frame`` sorted by qid, then ``column`` (NULLs last), for integer query ids from 0
    to 2^31 and values of ``column`` below 2^31 in magnitude: one sort on a single Int64
    key (query id x 2^32 + value)."""
    value = pl.col(column).cast(pl.Int64)
    value = (-value if descending else value).fill_null((1 << 31) - 1)
    return frame.sort(QID.cast(pl.Int64) * (1 << 32) + value)


#: Each metric from the per-query aggregates of the filtered variants (a query without a
#: relevant row has no row there: it gets 0 after the join).
_FROM_SUMS: dict[str, pl.Expr] = {
    "ndcg@10": pl.col("dcg") / pl.col("idcg"),
    "map": pl.col("ap") / pl.col("R"),
    "P@10": pl.col("h10") / 10.0,
    "mrr": 1.0 / pl.col("first"),
    "recall@100": pl.col("h100") / pl.col("R"),
}


def _every_query(frame: pl.LazyFrame, values: pl.LazyFrame,
                 metrics: Sequence[str]) -> pl.DataFrame:
    """``values`` (queries with a relevant row) joined to every query of ``frame``, 0 for
    the others."""
    queries = frame.select(QID.unique())
    joined = queries.join(values, on="qid", how="left")
    return joined.with_columns(pl.col(list(metrics)).fill_null(0.0)).collect()


def _ideal_dcg(relevant: pl.LazyFrame, order: Order) -> pl.LazyFrame:
    """IDCG@10 per query: the relevant rows sorted by grade within their query, the first
    ten each divided by log2(position + 1), summed."""
    ranked = order(relevant.select("qid", "rel"), "rel", True)
    return (ranked.with_columns(_position().alias("i")).filter(pl.col("i") <= 10)
            .with_columns((REL / _log2(pl.col("i") + 1)).alias("t"))
            .group_by("qid").agg(pl.col("t").sum().alias("idcg")))


def hand_polars_rows(bench: Bench, metrics: Sequence[str],
                     order: Order = _by_query_then) -> pl.DataFrame:
    frame = bench.table.lazy()
    relevant = frame.filter(REL > 0).select("qid", "rank", "rel")
    rows = relevant
    if "map" in metrics:
        rows = order(relevant, "rank", False).with_columns(_position().alias("j"))
    terms: dict[str, dict[str, pl.Expr]] = {
        "ndcg@10": {"dcg": pl.when(RANK <= 10).then(REL / _log2(RANK + 1))},
        "map": {"ap": pl.col("j") / RANK},
        "P@10": {"h10": RANK <= 10},
        "recall@100": {"h100": RANK <= 100},
    }
    columns = {n: e for m in metrics for n, e in terms.get(m, {}).items()}
    sums = [pl.col(n).sum() for n in columns]
    if "mrr" in metrics:
        sums.append(RANK.min().alias("first"))
    if "map" in metrics or "recall@100" in metrics:
        sums.append(pl.len().alias("R"))
    per_query = rows.with_columns(**columns).group_by("qid").agg(sums)
    if "ndcg@10" in metrics:
        per_query = per_query.join(_ideal_dcg(relevant, order), on="qid")
    values = per_query.select("qid", *(_FROM_SUMS[m].alias(m) for m in metrics))
    return _every_query(frame, values, metrics)


def hand_polars_key(bench: Bench, metrics: Sequence[str]) -> pl.DataFrame:
    if not bench.table.schema["qid"].is_integer():
        raise Unavailable("query ids are not integers")
    return hand_polars_rows(bench, metrics, _by_query_key)


def _group_expressions(relevant: pl.Expr | None) -> dict[str, pl.Expr]:
    """Per-group expressions of the five metrics, over the rows ``relevant`` keeps (every
    row of the group when None: the rows are rel > 0 already)."""
    def kept(e: pl.Expr) -> pl.Expr:
        return e if relevant is None else e.filter(relevant)

    ranks = kept(RANK).drop_nulls().sort()
    n_rel = pl.len() if relevant is None else relevant.sum()
    best = kept(REL).sort(descending=True).head(10).cast(pl.Float64)
    idcg = (best / _log2(pl.int_range(2, best.len() + 2))).sum()
    dcg = kept(REL / _log2(RANK + 1)).filter(kept(RANK) <= 10).sum()
    return {
        "ndcg@10": pl.when(idcg > 0).then(dcg / idcg).otherwise(0.0),
        "map": pl.when(n_rel > 0).then((pl.int_range(1, ranks.len() + 1) / ranks).sum()
                                       / n_rel).otherwise(0.0),
        "P@10": (kept(RANK) <= 10).sum() / 10.0,
        "mrr": (1.0 / kept(RANK).min()).fill_null(0.0),
        "recall@100": pl.when(n_rel > 0).then((kept(RANK) <= 100).sum() / n_rel)
                        .otherwise(0.0),
    }


def hand_polars_agg(bench: Bench, metrics: Sequence[str]) -> pl.DataFrame:
    frame = bench.table.lazy()
    exprs = _group_expressions(None)
    values = (frame.filter(REL > 0).group_by("qid")
              .agg(*(exprs[m].alias(m) for m in metrics)))
    return _every_query(frame, values, metrics)


def hand_polars_full(bench: Bench, metrics: Sequence[str]) -> pl.DataFrame:
    exprs = _group_expressions((REL > 0).fill_null(False))
    return (bench.table.lazy().group_by("qid")
            .agg(*(exprs[m].alias(m) for m in metrics)).collect())


# ---- hand-written DuckDB SQL -----------------------------------------------------------

#: Each metric from the per-query aggregates of the filtered SQL variants.
_SQL_VALUES = {
    "ndcg@10": "dcg / idcg",
    "map": "ap / r",
    "P@10": "h10 / 10",
    "mrr": "1 / first",
    "recall@100": "h100 / r",
}


def _every_query_sql(per_query: str, metrics: Sequence[str]) -> str:
    """SQL: the metrics of ``per_query`` (a subquery with a row per query that has a
    relevant row) for every query of t, 0 for the others."""
    values = ", ".join(f'coalesce({_SQL_VALUES[m]}, 0::DOUBLE) AS "{m}"' for m in metrics)
    return (f"SELECT q.qid, {values} FROM (SELECT DISTINCT qid FROM t) q "
            f"LEFT JOIN ({per_query}) a USING (qid)")


def _sql_sums(metrics: Sequence[str], ideal: str) -> list[str]:
    """The aggregates of the filtered variants; ``ideal``: the IDCG@10 aggregate."""
    parts = {
        "ndcg@10": ["sum(rel / log2(rank + 1)) FILTER (WHERE rank <= 10) AS dcg",
                    f"{ideal} AS idcg"],
        "P@10": ["count(*) FILTER (WHERE rank <= 10) AS h10"],
        "mrr": ["min(rank) AS first"],
        "recall@100": ["count(*) FILTER (WHERE rank <= 100) AS h100"],
    }
    out = [p for m in metrics for p in parts.get(m, [])]
    if "map" in metrics or "recall@100" in metrics:
        out.append("count(*) AS r")
    return out


def hand_sql_window_query(metrics: Sequence[str]) -> str:
    columns = ["qid", "rank", "rel"]
    sums = _sql_sums(metrics, "sum(rel / log2(i + 1)) FILTER (WHERE i <= 10)")
    if "map" in metrics:
        columns.append("row_number() OVER (PARTITION BY qid ORDER BY rank NULLS LAST) AS j")
        sums.append("sum(j / rank) AS ap")
    if "ndcg@10" in metrics:
        columns.append("row_number() OVER (PARTITION BY qid ORDER BY rel DESC) AS i")
    per_query = (f"SELECT qid, {', '.join(sums)} FROM (SELECT {', '.join(columns)} FROM t "
                 f"WHERE rel > 0) GROUP BY qid")
    return _every_query_sql(per_query, metrics)


def hand_sql_lists_query(metrics: Sequence[str]) -> str:
    sums = _sql_sums(metrics, "list_sum(list_transform(max(rel, 10), "
                              "lambda g, i: g / log2(i + 1)))")
    if "map" in metrics:
        sums.append("list_sum(list_transform(list(rank ORDER BY rank) FILTER "
                    "(WHERE rank IS NOT NULL), lambda x, j: j / x)) AS ap")
    per_query = f"SELECT qid, {', '.join(sums)} FROM t WHERE rel > 0 GROUP BY qid"
    return _every_query_sql(per_query, metrics)


def hand_sql_mixed_query(metrics: Sequence[str]) -> str:
    columns = ["qid", "rank", "rel"]
    sums = _sql_sums(metrics, "list_sum(list_transform(max(rel, 10), "
                              "lambda g, i: g / log2(i + 1)))")
    if "map" in metrics:
        columns.append("row_number() OVER (PARTITION BY qid ORDER BY rank NULLS LAST) AS j")
        sums.append("sum(j / rank) AS ap")
    per_query = (f"SELECT qid, {', '.join(sums)} FROM (SELECT {', '.join(columns)} FROM t "
                 f"WHERE rel > 0) GROUP BY qid")
    return _every_query_sql(per_query, metrics)


def hand_sql_full_query(metrics: Sequence[str]) -> str:
    relevant = "count(*) FILTER (WHERE rel > 0)"
    parts = {
        "ndcg@10": "sum(rel / log2(rank + 1)) FILTER (WHERE rel > 0 AND rank <= 10) / "
                   "list_sum(list_transform(max(rel, 10) FILTER (WHERE rel > 0), "
                   "lambda g, i: g / log2(i + 1)))",
        "map": "list_sum(list_transform(list(rank ORDER BY rank) FILTER (WHERE rel > 0 AND "
               f"rank IS NOT NULL), lambda x, j: j / x)) / nullif({relevant}, 0)",
        "P@10": "count(*) FILTER (WHERE rel > 0 AND rank <= 10) / 10",
        "mrr": "1 / min(rank) FILTER (WHERE rel > 0)",
        "recall@100": "count(*) FILTER (WHERE rel > 0 AND rank <= 100) / "
                      f"nullif({relevant}, 0)",
    }
    values = ", ".join(f'coalesce({parts[m]}, 0::DOUBLE) AS "{m}"' for m in metrics)
    return f"SELECT qid, {values} FROM t GROUP BY qid"


def _sql(query: Callable[[Sequence[str]], str]) -> Callable[[Bench, Sequence[str]],
                                                            pl.DataFrame]:
    def run(bench: Bench, metrics: Sequence[str]) -> pl.DataFrame:
        return _fetch(bench.con, query(metrics))
    return run


# ---- the contenders --------------------------------------------------------------------

Call = Callable[[Bench, Sequence[str]], pl.DataFrame]


@dataclass(frozen=True)
class Contender:
    """A way to compute the metrics: ``call`` gives one row per query (``qid`` and the
    metrics, named as in :data:`METRICS`); ``checked``: its values must equal the
    builders'; ``rankframe``: it runs rankframe's code (so ``--baseline`` times it too)."""

    name: str
    call: Call
    checked: bool = True
    rankframe: bool = False


CONTENDERS: dict[str, Contender] = {c.name: c for c in [
    Contender("builders", lambda b, m: _builders(b, m, True), rankframe=True),
    Contender("builders_unguarded", lambda b, m: _builders(b, m, False), rankframe=True),
    Contender("builders_lazy", lambda b, m: _builders(b, m, True, lazy=True), rankframe=True),
    Contender("shared", _shared, rankframe=True),
    Contender("evaluate_polars", lambda b, m: _evaluate(b, m, "polars"), rankframe=True),
    Contender("evaluate_duckdb", lambda b, m: _evaluate(b, m, "duckdb"), rankframe=True),
    Contender("hand_polars:rows", hand_polars_rows),
    Contender("hand_polars:key", hand_polars_key),
    Contender("hand_polars:agg", hand_polars_agg),
    Contender("hand_polars:full", hand_polars_full),
    Contender("builders_guard", _guards, checked=False),
    Contender("polars_floor", lambda b, m: b.table.group_by("qid").agg(REL.sum()),
              checked=False),
    Contender("polars_floor_lazy",
              lambda b, m: b.table.lazy().group_by("qid").agg(REL.sum()).collect(),
              checked=False),
    Contender("macros", lambda b, m: _macros(b, m, "rf_"), rankframe=True),
    Contender("macros_unguarded", lambda b, m: _macros(b, m, "rf__unchecked_"),
              rankframe=True),
    Contender("macros_guard", _guard_macros, checked=False),
    Contender("hand_sql:window", _sql(hand_sql_window_query)),
    Contender("hand_sql:lists", _sql(hand_sql_lists_query)),
    Contender("hand_sql:mixed", _sql(hand_sql_mixed_query)),
    Contender("hand_sql:full", _sql(hand_sql_full_query)),
    Contender("duckdb_floor",
              lambda b, m: _fetch(b.con, "SELECT qid, sum(rel) AS rel FROM t GROUP BY qid"),
              checked=False),
]}
DEFAULT_CONTENDERS = [n for n in CONTENDERS
                      if n not in ("builders_lazy", "builders_guard", "macros_guard")]
#: Contenders that stand for the fastest of their variants (``name:variant``).
FAMILIES = ("hand_polars", "hand_sql")
BASELINE = "@baseline"


def expand_contenders(names: Sequence[str]) -> list[str]:
    """Contender names with each family name (``hand_polars``) expanded to its variants;
    a ValueError naming an unknown one."""
    out: list[str] = []
    for name in names:
        found = [c for c in CONTENDERS if c == name or c.startswith(name + ":")]
        if not found:
            raise ValueError(f"unknown contender {name!r}: one of "
                             f"{', '.join([*CONTENDERS, *FAMILIES])}")
        out.extend(c for c in found if c not in out)
    return out


# ---- timing and checking ---------------------------------------------------------------


class Runner:
    """Times and checks contenders: this process's own, or rankframe's contenders in the
    baseline worker (``name@baseline``)."""

    def __init__(self, bench: Bench, worker: Worker | None) -> None:
        self.bench, self.worker = bench, worker

    def seconds(self, name: str, metrics: Sequence[str]) -> float:
        if name.endswith(BASELINE):
            assert self.worker is not None
            return float(self.worker.ask(cmd="time", contender=name.removesuffix(BASELINE),
                                         metrics=list(metrics))["seconds"])
        return timed(self.bench, CONTENDERS[name], metrics)

    def result(self, name: str, metrics: Sequence[str]) -> pl.DataFrame:
        if name.endswith(BASELINE):
            assert self.worker is not None
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "result.parquet"
                self.worker.ask(cmd="result", contender=name.removesuffix(BASELINE),
                                metrics=list(metrics), path=str(path))
                return pl.read_parquet(path)
        return CONTENDERS[name].call(self.bench, metrics)


def timed(bench: Bench, contender: Contender, metrics: Sequence[str]) -> float:
    start = time.perf_counter()
    contender.call(bench, metrics)
    return time.perf_counter() - start


def check(name: str, got: pl.DataFrame, want: pl.DataFrame, metrics: Sequence[str],
          checked: bool, where: str) -> bool | None:
    """Raise SystemExit unless ``got`` has one row per query of ``want`` and, if
    ``checked``, the same values to :data:`TOLERANCE` (NULL only where ``want`` has it).
    Returns whether the values are the very same doubles (None when not ``checked``)."""
    if got.height != want.height or got.get_column("qid").n_unique() != got.height:
        raise SystemExit(f"headline: {name} on {where} gives {got.height} rows for "
                         f"{want.height} queries")
    if not checked:
        return
    joined = want.join(got.select("qid", *metrics), on="qid", how="left", suffix="__got")
    for m in metrics:
        a, b = pl.col(m), pl.col(m + "__got")
        wrong = joined.filter(~((a - b).abs() <= TOLERANCE).fill_null(a.is_null()
                                                                      & b.is_null()))
        if wrong.height:
            row = wrong.row(0, named=True)
            raise SystemExit(
                f"headline: {name} differs from the builders on {where}, {m}: "
                f"{wrong.height} queries, e.g. qid {row['qid']!r}: {row[m + '__got']!r} "
                f"against {row[m]!r} (tolerance {TOLERANCE})")
    return all(joined.select((pl.col(m) == pl.col(m + "__got")).all()).item()
               for m in metrics)


@dataclass
class SetResult:
    """One workload x metric set: per-round seconds of each contender, the reasons of the
    contenders that could not run, and the fastest variant of each family."""

    times: dict[str, list[float]] = field(default_factory=dict)
    unavailable: dict[str, str] = field(default_factory=dict)
    best: dict[str, str] = field(default_factory=dict)
    #: Each checked contender: True if its values are the builders' very doubles.
    identical: dict[str, bool] = field(default_factory=dict)

    def median(self, name: str) -> float | None:
        t = self.times.get(self._resolve(name))
        return statistics.median(t) if t else None

    def minimum(self, name: str) -> float | None:
        t = self.times.get(self._resolve(name))
        return min(t) if t else None

    def ratio(self, a: str, b: str) -> float | None:
        """Median over rounds of a's time / b's time within the round."""
        ta, tb = self.times.get(self._resolve(a)), self.times.get(self._resolve(b))
        if not ta or not tb:
            return None
        return statistics.median(x / y for x, y in zip(ta, tb, strict=True))

    def _resolve(self, name: str) -> str:
        return self.best.get(name, name)


def measure_set(runner: Runner, names: Sequence[str], metrics: Sequence[str], rounds: int,
                where: str) -> SetResult:
    """Check every contender once against the builders, then time them round by round."""
    result = SetResult()
    want = CONTENDERS["builders"].call(runner.bench, metrics)
    ready = []
    for name in names:
        base = CONTENDERS[name.removesuffix(BASELINE)]
        try:
            got = want if name == "builders" else runner.result(name, metrics)
        except Unavailable as e:
            result.unavailable[name] = str(e)
            continue
        same = check(name, got, want, metrics, base.checked, where)
        if same is not None:
            result.identical[name] = same
        ready.append(name)
    del want
    for name in ready:
        result.times[name] = []
    for r in range(rounds if ready else 0):
        turn = r % len(ready)
        for name in ready[turn:] + ready[:turn]:
            result.times[name].append(runner.seconds(name, metrics))
    for family in FAMILIES:
        timed_variants = [n for n in ready if n.startswith(family + ":")]
        if timed_variants:
            result.best[family] = min(timed_variants, key=lambda n: statistics.median(
                result.times[n]))
    return result


# ---- the baseline worker ---------------------------------------------------------------


class Worker:
    """A process importing rankframe from another checkout, which loads the same workloads
    and runs rankframe's contenders on request (JSON lines on its stdin and stdout)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker", "--rankframe",
             str(root)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.about = self.ask(cmd="about")

    def ask(self, **message: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"headline: the baseline worker ({self.root}) stopped")
        reply: dict[str, Any] = json.loads(line)
        if "unavailable" in reply:
            raise Unavailable(reply["unavailable"])
        if "error" in reply:
            raise SystemExit(f"headline: baseline worker ({self.root}): {reply['error']}")
        return reply

    def close(self) -> None:
        with contextlib.suppress(BrokenPipeError, SystemExit):
            self.ask(cmd="quit")
        self.proc.wait()


def worker_main(root: Path) -> None:
    """Serve :class:`Worker` requests: about, load, result, time, quit."""
    replies: IO[str] = sys.stdout
    sys.stdout = sys.stderr  # nothing but replies on the pipe
    rf = import_rankframe(root)
    bench: Bench | None = None
    for line in sys.stdin:
        message = json.loads(line)
        cmd = message["cmd"]
        reply: dict[str, Any] = {}
        try:
            if cmd == "about":
                reply = about_rankframe(rf)
            elif cmd == "load":
                bench = None
                table = data.load(message["workload"], scale=message["scale"],
                                  seed=message["seed"], qid=message["qid"])
                bench = bench_for(table, rf)
            elif cmd in ("time", "result"):
                assert bench is not None
                contender = CONTENDERS[message["contender"]]
                if cmd == "time":
                    reply = {"seconds": timed(bench, contender, message["metrics"])}
                else:
                    contender.call(bench, message["metrics"]).write_parquet(message["path"])
            elif cmd == "quit":
                replies.write("{}\n")
                replies.flush()
                return
        except Unavailable as e:
            reply = {"unavailable": str(e)}
        except Exception as e:  # reported to the driver
            if cmd == "result":  # this checkout cannot run the contender: it is left out
                reply = {"unavailable": f"{type(e).__name__}: {e}".split("\n")[0]}
            else:  # the driver stops
                reply = {"error": f"{type(e).__name__}: {e}"}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


# ---- report ----------------------------------------------------------------------------

#: Issue 33's "Done when" (and issue 26's, for the builders): (label, numerator,
#: denominator, target); a target may depend on the workload's shape (``{"log": 1.5,
#: "": 2.5}``: 1.5 for shapes starting "log", else 2.5).
RATIOS: list[tuple[str, str, str, float | dict[str, float]]] = [
    ("shared / best hand Polars", "shared", "hand_polars", {"log": 1.5, "": 2.5}),
    ("shared / same-shape hand Polars", "shared", "hand_polars:full", 1.0),
    ("builders / best hand Polars", "builders", "hand_polars", 1.5),
    ("builders / same-shape hand Polars", "builders", "hand_polars:full", 1.0),
    ("evaluate(polars) / best hand Polars", "evaluate_polars", "hand_polars", 1.5),
    ("evaluate(duckdb) / best hand SQL", "evaluate_duckdb", "hand_sql", 1.5),
    ("macros / best hand SQL", "macros", "hand_sql", 2.0),
    ("builders / unguarded", "builders", "builders_unguarded", 1.5),
    ("macros / unguarded", "macros", "macros_unguarded", 1.2),
]


def target_of(target: float | dict[str, float], workload: str) -> float:
    """The target of a ratio on ``workload`` (see :data:`RATIOS`)."""
    if isinstance(target, float):
        return target
    return next(t for prefix, t in sorted(target.items(), reverse=True)
                if workload.startswith(prefix))


def _target_text(target: float | dict[str, float]) -> str:
    if isinstance(target, float):
        return f"{target:g}"
    return ", ".join(f"{t:g} {prefix or 'else'}" for prefix, t in target.items())


def about_rankframe(rf: ModuleType) -> dict[str, Any]:
    root = Path(rf.__file__ or "").resolve().parent.parent
    commit = subprocess.run(["git", "-C", str(root), "describe", "--always", "--dirty"],
                            capture_output=True, text=True).stdout.strip()
    return {"path": str(root), "commit": commit or "unknown"}


def _seconds(x: float | None) -> str:
    return "" if x is None else (f"{x:.3f}" if x < 10 else f"{x:.1f}")


def workload_table(name: str, results: dict[str, SetResult], names: Sequence[str],
                   about: str) -> list[str]:
    """Markdown: a table of median (min) seconds, contenders x metric sets, and one of the
    ratios against their targets."""
    sets = list(results)
    lines = [f"### {name}", "", about, "",
             "| contender | " + " | ".join(sets) + " |",
             "|---|" + "---:|" * len(sets)]
    for c in names:
        cells = []
        for s in sets:
            r = results[s]
            if c in r.unavailable:
                cells.append("n/a")
            else:
                cells.append(f"{_seconds(r.median(c))} ({_seconds(r.minimum(c))})"
                             if r.median(c) is not None else "")
        lines.append(f"| {c} | " + " | ".join(cells) + " |")
    lines += ["", "| ratio (target) | " + " | ".join(sets) + " |",
              "|---|" + "---:|" * len(sets)]
    for label, a, b, targets in RATIOS:
        target = target_of(targets, name)
        cells = []
        for s in sets:
            x = results[s].ratio(a, b)
            cells.append("" if x is None else f"{x:.2f} {'ok' if x <= target else 'NO'}")
        if any(cells):
            lines.append(f"| {label} (<= {target:g}) | " + " | ".join(cells) + " |")
    for c in names:
        if c.endswith(BASELINE):
            here = c.removesuffix(BASELINE)
            cells = [_ratio_cell(results[s].ratio(here, c)) for s in sets]
            lines.append(f"| {here} / baseline | " + " | ".join(cells) + " |")
    for family in FAMILIES:
        cells = [results[s].best.get(family, "").partition(":")[2] for s in sets]
        if any(cells):
            lines.append(f"| fastest {family} variant | " + " | ".join(cells) + " |")
    same = {c for r in results.values() for c, v in r.identical.items() if v}
    near = {c for r in results.values() for c, v in r.identical.items() if not v}
    lines += ["", f"- the builders' very doubles: {', '.join(sorted(same - near)) or 'none'}",
              f"- within {TOLERANCE:g} only (a lower bound, not an equal): "
              f"{', '.join(sorted(near)) or 'none'}"]
    reasons = {c: why for r in results.values() for c, why in r.unavailable.items()}
    lines += ["", *(f"- n/a: {c}: {why}" for c, why in reasons.items())] if reasons else []
    return [*lines, ""]


def _ratio_cell(x: float | None) -> str:
    return "" if x is None else f"{x:.2f}"


def summary_table(done: dict[str, dict[str, SetResult]]) -> list[str]:
    """Markdown: per workload, each ratio's worst value over the metric sets."""
    labels = [r for r in RATIOS if any(
        res.ratio(r[1], r[2]) is not None for sets in done.values() for res in sets.values())]
    lines = ["### Summary: each ratio's largest value over the metric sets", "",
             "| workload | " + " | ".join(f"{lb} (<= {_target_text(t)})"
                                          for lb, _, _, t in labels) + " |",
             "|---|" + "---:|" * len(labels)]
    for workload, sets in done.items():
        cells = []
        for _, a, b, targets in labels:
            target = target_of(targets, workload)
            found = [(x, s) for s, r in sets.items() if (x := r.ratio(a, b)) is not None]
            if not found:
                cells.append("")
                continue
            x, s = max(found)
            cells.append(f"{x:.2f} {'ok' if x <= target else 'NO'} ({s})")
        lines.append(f"| {workload} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def describe_table(table: pl.DataFrame) -> dict[str, Any]:
    stats = table.select(
        pl.len().alias("rows"), QID.n_unique().alias("queries"),
        (REL > 0).fill_null(False).mean().alias("positive"),
        RANK.is_null().sum().alias("unretrieved")).row(0, named=True)
    return dict(stats)


# ---- main ------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workloads", default="trec,deep,log",
                   help="shapes (both orders) or shape-order names, comma-separated: "
                        f"{', '.join(data.SHAPES)}; orders {', '.join(data.ORDERS)} "
                        "(default: trec,deep,log)")
    p.add_argument("--metrics", default=",".join(SETS),
                   help=f"metric sets, comma-separated: {', '.join(SETS)} (default: all six)")
    p.add_argument("--contenders", default=",".join(DEFAULT_CONTENDERS),
                   help="comma-separated; a family (hand_polars, hand_sql) means all its "
                        "variants (default: all but builders_lazy, builders_guard and "
                        "macros_guard)")
    p.add_argument("--rounds", type=int, default=3, help="timed rounds (default 3)")
    p.add_argument("--scale", type=float, default=1.0,
                   help="multiply the number of queries (default 1; 0.1 for a quick run)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--qid", choices=("int", "str"), default="int",
                   help="query ids as Int64 (default) or as strings")
    p.add_argument("--json", type=Path, help="write every per-round time here")
    p.add_argument("--rankframe", type=Path, default=REPO,
                   help="import rankframe from this checkout (default: this script's)")
    p.add_argument("--baseline", type=Path,
                   help="also time rankframe's contenders from this checkout, in a worker "
                        "process, interleaved with this tree's")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.rounds < 1 or args.scale <= 0:
        p.error("--rounds must be >= 1 and --scale > 0")
    try:
        args.workloads = _workloads(args.workloads)
        args.contenders = expand_contenders(_items(args.contenders))
        args.metrics = _items(args.metrics)
        for s in args.metrics:
            if s not in SETS:
                raise ValueError(f"unknown metric set {s!r}: one of {', '.join(SETS)}")
    except ValueError as e:
        p.error(str(e))
    return args


def _items(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _workloads(text: str) -> list[str]:
    out: list[str] = []
    for item in _items(text):
        names = data.workload_names([item]) if item in data.SHAPES else [item]
        for n in names:
            data.split_name(n)
            out.append(n)
    return out


def machine() -> str:
    return (f"{platform.machine()}, nproc {os.cpu_count()}; python {platform.python_version()}"
            f", polars {pl.__version__}, duckdb {duckdb.__version__}")


def run(args: argparse.Namespace) -> None:
    rf = import_rankframe(args.rankframe)
    here = about_rankframe(rf)
    worker = Worker(args.baseline) if args.baseline else None
    names = list(args.contenders)
    if worker is not None:
        names += [n + BASELINE for n in args.contenders if CONTENDERS[n].rankframe]
    load_start = os.getloadavg()[0]
    head = [f"`python benchmarks/headline.py {' '.join(sys.argv[1:])}`", "",
            f"{time.strftime('%Y-%m-%d %H:%M %Z')}; {machine()}; rankframe {here['commit']} "
            f"({here['path']})" + (f"; baseline {worker.about['commit']} "
                                   f"({worker.about['path']})" if worker else ""),
            f"scale {args.scale}, seed {args.seed}, qid {args.qid}; medians of {args.rounds} "
            "interleaved rounds, cells: median (min) seconds; ratios: median over rounds of "
            "the ratio within the round", "", f"load average (1 min) at start: {load_start:.2f}",
            ""]
    print("\n".join(head), flush=True)
    done: dict[str, dict[str, SetResult]] = {}
    record: dict[str, Any] = {"argv": sys.argv[1:], "machine": machine(), "rankframe": here,
                              "baseline": worker.about if worker else None,
                              "load_start": load_start, "workloads": {}}
    try:
        for workload in args.workloads:
            table = data.load(workload, scale=args.scale, seed=args.seed, qid=args.qid)
            stats = describe_table(table)
            bench = bench_for(table, rf)
            if worker is not None:
                worker.ask(cmd="load", workload=workload, scale=args.scale, seed=args.seed,
                           qid=args.qid)
            runner = Runner(bench, worker)
            load = os.getloadavg()[0]
            results: dict[str, SetResult] = {}
            for s in args.metrics:
                print(f"... {workload} {s}", file=sys.stderr, flush=True)
                results[s] = measure_set(runner, names, SETS[s], args.rounds,
                                         f"{workload} ({s})")
            done[workload] = results
            about = (f"{stats['queries']:,} queries, {stats['rows']:,} rows "
                     f"({stats['unretrieved']:,} unretrieved), "
                     f"{100 * stats['positive']:.1f}% with rel > 0; load {load:.2f} at start")
            print("\n".join(workload_table(workload, results, names, about)), flush=True)
            record["workloads"][workload] = {
                "table": stats, "load_start": load,
                "sets": {s: {"times": r.times, "unavailable": r.unavailable, "best": r.best,
                             "ratios": {lb: r.ratio(a, b) for lb, a, b, _ in RATIOS}}
                         for s, r in results.items()}}
            bench.con.close()
            del bench, table, runner
    finally:
        if worker is not None:
            worker.close()
    load_end = os.getloadavg()[0]
    record["load_end"] = load_end
    print("\n".join(summary_table(done)))
    print(f"load average (1 min) at end: {load_end:.2f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(record, indent=1))


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.worker:
        worker_main(args.rankframe)
    else:
        run(args)


if __name__ == "__main__":
    main()

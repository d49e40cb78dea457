"""Where rankframe's time goes, on both engines, and timed variants of the metric code.

    python benchmarks/profile.py --rows 7M            # writes benchmarks/results/profile-7M.md

Sections: (1) judge() broken into its steps; (2) evaluate() = check_judged + one grouped
aggregation, per measure; (3) candidate rewrites of the slow expressions / macros, timed
on the same judged table and checked to give the same values; (4) DuckDB EXPLAIN ANALYZE
and Polars LazyFrame.profile() of the five-measure query. Medians of --repeat runs,
in one process (the machine is noisy: compare rows with each other, not with other runs).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import duckdb
import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import tasks  # noqa: E402

import rankframe as rf  # noqa: E402
import rankframe.duckdb as rfdb  # noqa: E402
from rankframe.faces.polars.face import expression  # noqa: E402
from rankframe.measures import parse_all  # noqa: E402
from rankframe.table.checks import check_judged  # noqa: E402

LINES: list[str] = []


def out(line: str = "") -> None:
    print(line, flush=True)
    LINES.append(line)


def timed(name: str, fn, repeat: int):  # type: ignore[no-untyped-def]
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    out(f"| {name} | {statistics.median(times):.3f} |")
    return result


# ---- variant Polars expressions (proposals) -------------------------------------------


def v_ndcg10() -> pl.Expr:
    """nDCG@10 with the ideal from a bounded top_k of the integer grades (no filter, no
    float cast before the top-k, no int_range) and DCG from the rank column directly."""
    disc = [1.0 / __import__("math").log2(i + 2) for i in range(10)]
    rank, rel = pl.col("rank"), pl.col("rel")
    dcg = (
        (rel.clip(lower_bound=0).cast(pl.Float64) / (rank.cast(pl.Float64) + 1.0).log(2))
        .filter(rank <= 10)
        .sum()
    )
    best = rel.fill_null(0).clip(lower_bound=0).top_k(10).sort(descending=True).cast(pl.Float64)
    idcg = (best * pl.lit(pl.Series(disc)).head(best.len())).sum()
    return pl.when(idcg > 0).then(dcg / idcg).otherwise(0.0).alias("ndcg@10")


def v_map() -> pl.Expr:
    """AP without filter+sort of the relevant ranks when rows arrive in rank order:
    cum_sum of the relevance flags in rank order (sort_by rank, nulls last)."""
    rank, rel = pl.col("rank"), pl.col("rel")
    is_rel = (rel >= 1).fill_null(False)
    ret_rel = is_rel & rank.is_not_null()
    hits = ret_rel.sort_by(rank, nulls_last=True).cast(pl.Int64).cum_sum()
    ranks = rank.sort(nulls_last=True)
    s = (hits.cast(pl.Float64) / ranks).filter(ret_rel.sort_by(rank, nulls_last=True)).sum()
    big_r = is_rel.sum()
    return pl.when(big_r > 0).then(s / big_r).otherwise(0.0).alias("map")


def v_mrr() -> pl.Expr:
    """RR: min over a filter, no sort of the relevant ranks."""
    rank, rel = pl.col("rank"), pl.col("rel")
    first = rank.filter((rel >= 1).fill_null(False)).min()
    return (1.0 / first.cast(pl.Float64)).fill_null(0.0).alias("mrr")


def v_counts() -> list[pl.Expr]:
    """P@10 and recall@100 from one boolean each; R computed once (CSE)."""
    rank, rel = pl.col("rank"), pl.col("rel")
    is_rel = (rel >= 1).fill_null(False)
    big_r = is_rel.sum()
    p10 = (is_rel & (rank <= 10).fill_null(False)).sum().cast(pl.Float64) / 10
    h100 = (is_rel & (rank <= 100).fill_null(False)).sum().cast(pl.Float64)
    return [
        p10.alias("P@10"),
        pl.when(big_r > 0).then(h100 / big_r).otherwise(0.0).alias("recall@100"),
    ]


def variant_exprs() -> list[pl.Expr]:
    return [v_ndcg10(), v_map(), v_mrr(), *v_counts()]


# ---- variant SQL (proposals) ----------------------------------------------------------

SQL_VARIANT = """
SELECT qid,
  CASE WHEN idcg > 0 THEN dcg / idcg ELSE 0 END AS "ndcg@10",
  CASE WHEN big_r > 0 THEN ap / big_r ELSE 0 END AS "map",
  coalesce(1.0 / first_rel, 0) AS "mrr",
  hits10 / 10 AS "P@10",
  CASE WHEN big_r > 0 THEN hits100 / big_r ELSE 0 END AS "recall@100"
FROM (
  SELECT qid,
    coalesce(sum(greatest(rel, 0) / log2(rank + 1)) FILTER (WHERE rank <= 10), 0)::DOUBLE AS dcg,
    coalesce(list_sum(list_transform(max(greatest(rel, 0), 10) FILTER (WHERE rel > 0),
                                     lambda g, i: g / log2(i + 1))), 0)::DOUBLE AS idcg,
    count(*) FILTER (WHERE rel >= 1) AS big_r,
    count(*) FILTER (WHERE rel >= 1 AND rank <= 10) AS hits10,
    count(*) FILTER (WHERE rel >= 1 AND rank <= 100) AS hits100,
    min(rank) FILTER (WHERE rel >= 1) AS first_rel,
    coalesce(sum(cum_rel / rank) FILTER (WHERE rel >= 1 AND rank IS NOT NULL), 0) AS ap
  FROM (SELECT *, count(*) FILTER (WHERE rel >= 1) OVER (
                     PARTITION BY qid ORDER BY rank ROWS UNBOUNDED PRECEDING) AS cum_rel
        FROM judged)
  GROUP BY qid)
"""

# The same five measures with the argument checks (rf__k, rf__threshold, rf__choice) and
# the gain switch resolved by hand: the values the macros compute, without per-row CASEs.
SQL_FLAT = """
SELECT qid,
  CASE WHEN idcg > 0 THEN dcg / idcg ELSE 0 END AS "ndcg@10",
  CASE WHEN big_r > 0 THEN coalesce(list_sum(list_transform(list_sort(rel_ranks),
                                    lambda r, j: j / r)), 0) / big_r ELSE 0 END AS "map",
  coalesce(1.0 / first_rel, 0) AS "mrr",
  hits10 / 10 AS "P@10",
  CASE WHEN big_r > 0 THEN hits100 / big_r ELSE 0 END AS "recall@100"
FROM (
  SELECT qid,
    coalesce(sum(CASE WHEN rel > 0 THEN rel::DOUBLE ELSE 0 END / log2(rank + 1))
             FILTER (WHERE rank <= 10), 0)::DOUBLE AS dcg,
    coalesce(list_sum(list_transform(max(rel::DOUBLE, 10) FILTER (WHERE rel > 0),
                                     lambda g, i: g / log2(i + 1))), 0)::DOUBLE AS idcg,
    count(*) FILTER (WHERE rel >= 1) AS big_r,
    list(rank) FILTER (WHERE rel >= 1 AND rank IS NOT NULL) AS rel_ranks,
    count(*) FILTER (WHERE rel >= 1 AND rank <= 10) AS hits10,
    count(*) FILTER (WHERE rel >= 1 AND rank <= 100) AS hits100,
    min(rank) FILTER (WHERE rel >= 1) AS first_rel
  FROM judged GROUP BY qid)
"""

SQL_IDCG_TOPN = """
SELECT qid, coalesce(list_sum(list_transform(max(rel::DOUBLE, 10) FILTER (WHERE rel > 0),
                                             lambda g, i: g / log2(i + 1))), 0)::DOUBLE AS idcg
FROM judged GROUP BY qid
"""
SQL_IDCG_MACRO = "SELECT qid, rf_idcg(rel, rank, 10) AS idcg FROM judged GROUP BY qid"
SQL_AP_MACRO = "SELECT qid, rf_average_precision(rel, rank, NULL) AS ap FROM judged GROUP BY qid"
SQL_AP_LISTORDER = """
SELECT qid, CASE WHEN count(*) FILTER (WHERE rel >= 1) > 0 THEN
  coalesce(list_sum(list_transform(
      list(rank ORDER BY rank) FILTER (WHERE rel >= 1 AND rank IS NOT NULL),
                                   lambda r, j: j / r)), 0) / count(*) FILTER (WHERE rel >= 1)
  ELSE 0 END AS ap
FROM judged GROUP BY qid
"""


def same(a: pl.DataFrame, b: pl.DataFrame, cols: list[str]) -> float:
    j = a.sort("qid").select("qid", *cols).join(b.sort("qid").select("qid", *cols), on="qid")
    return max(float((j[c] - j[f"{c}_right"]).abs().max()) for c in cols)  # type: ignore[arg-type]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rows", default="7M")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    data = HERE / "data" / args.rows
    R = args.repeat
    run, qrels = pl.read_parquet(data / "run.parquet"), pl.read_parquet(data / "qrels.parquet")
    out(
        f"## Profile at {run.height:,} run rows (`python benchmarks/profile.py --rows {args.rows}"
        f" --repeat {R}`, {time.strftime('%Y-%m-%d %H:%M')})"
    )
    out()
    out("### 1. judge() by step (Polars)")
    out()
    out("| step | median s |")
    out("|---|---:|")
    judged = timed(
        "rf.judge(run, qrels) (eager, with data checks)", lambda: rf.judge(run, qrels), R
    )
    timed(
        "  data check of the run (NULL, NaN, struct(qid, docid).is_first_distinct)",
        lambda: run.select(pl.struct("qid", "docid").is_first_distinct().not_().any()),
        R,
    )
    timed(
        "  alternative duplicate check: group_by(qid, docid).len().max()",
        lambda: run.group_by("qid", "docid").len().get_column("len").max(),
        R,
    )
    timed(
        "  alternative duplicate check: height vs n_unique over (qid, docid)",
        lambda: run.select(pl.struct("qid", "docid").n_unique()).item() == run.height,
        R,
    )
    srt = run.sort(["qid", "score", "docid"], descending=[False, True, True])
    timed(
        "  alternative duplicate check on the rank-sorted run: adjacent (qid, docid) equal",
        lambda: srt.select(
            (
                (pl.col("qid") == pl.col("qid").shift())
                & (pl.col("docid") == pl.col("docid").shift())
            ).any()
        ).item(),
        R,
    )
    timed(
        "  rank: sort(qid, score desc, docid desc) + int_range().over(qid)",
        lambda: run.sort(["qid", "score", "docid"], descending=[False, True, True]).with_columns(
            rank=pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("qid")
        ),
        R,
    )
    timed(
        "  rank alternative: sort, then rank = row index - first index of the qid",
        lambda: (
            run.sort(["qid", "score", "docid"], descending=[False, True, True])
            .with_row_index("i")
            .with_columns(rank=(pl.col("i") - pl.col("i").min().over("qid") + 1).cast(pl.Int64))
        ),
        R,
    )
    ranked = run.sort(["qid", "score", "docid"], descending=[False, True, True]).with_columns(
        rank=pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("qid")
    )
    timed(
        "  full outer join with qrels on (qid, docid)",
        lambda: ranked.join(qrels, on=["qid", "docid"], how="full", coalesce=True),
        R,
    )
    joined = ranked.join(qrels, on=["qid", "docid"], how="full", coalesce=True)
    timed(
        "  final sort(qid, rank nulls last, docid)",
        lambda: joined.sort("qid", "rank", "docid", nulls_last=True),
        R,
    )
    timed(
        "plain judge: sort + int_range.over + full join + is_in (no checks, no final sort)",
        lambda: tasks.polars_judge(run, qrels),
        R,
    )

    out()
    out("### 2. evaluate() on the judged table (Polars)")
    out()
    out("| step | median s |")
    out("|---|---:|")
    timed(
        "rf.evaluate(judged, 5 measures, engine='polars')",
        lambda: rf.evaluate(judged, tasks.MEASURES),
        R,
    )
    timed(
        "  check_judged(judged) (rank >= 1, unique rank per query, no NaN)",
        lambda: check_judged(judged),
        R,
    )
    timed(
        "  alternative unique-rank check on the (qid, rank)-sorted table: adjacent equal",
        lambda: judged.select(
            (
                (pl.col("qid") == pl.col("qid").shift())
                & (pl.col("rank") == pl.col("rank").shift())
            ).any()
        ).item(),
        R,
    )
    ms = parse_all(tasks.MEASURES)
    exprs = [
        expression(m.metric, {"rel": "rel", "rank": "rank"}, m.values).alias(m.label) for m in ms
    ]
    base = timed(
        "  group_by(qid).agg(5 registry exprs), streaming",
        lambda: judged.lazy().group_by("qid").agg(exprs).collect(engine="streaming"),
        R,
    )
    timed(
        "  group_by(qid).agg(5 registry exprs), in-memory engine",
        lambda: judged.group_by("qid").agg(exprs),
        R,
    )
    for e in exprs:
        timed(
            f"    {e.meta.output_name()} alone (streaming)",
            lambda e=e: judged.lazy().group_by("qid").agg(e).collect(engine="streaming"),
            R,
        )

    out()
    out("### 3. Variant Polars expressions (same values)")
    out()
    out("| variant | median s |")
    out("|---|---:|")
    var = timed(
        "group_by(qid).agg(5 variant exprs), streaming",
        lambda: judged.lazy().group_by("qid").agg(variant_exprs()).collect(engine="streaming"),
        R,
    )
    for e in variant_exprs():
        timed(
            f"    {e.meta.output_name()} variant alone (streaming)",
            lambda e=e: judged.lazy().group_by("qid").agg(e).collect(engine="streaming"),
            R,
        )
    out(
        "\nmax |variant - registry| over queries and measures: "
        f"{same(base, var, tasks.MEASURES):.1e}"
    )

    out()
    out("### 4. DuckDB")
    out()
    con = rfdb.register(duckdb.connect())
    con.register("judged_pl", judged)
    con.execute("CREATE TEMP TABLE judged AS SELECT * FROM judged_pl")
    out("| query | median s |")
    out("|---|---:|")
    timed(
        "rf.evaluate(judged, 5 measures, engine='duckdb') (Polars frame → DuckDB)",
        lambda: rf.evaluate(judged, tasks.MEASURES, engine="duckdb"),
        R,
    )
    timed("  check_judged(judged) alone (runs first, in Polars)", lambda: check_judged(judged), R)
    macro_sql = f"SELECT qid, {tasks.SQL_MEASURES} FROM judged GROUP BY qid"
    mres = timed("5 rf_* macros over a DuckDB table", lambda: con.sql(macro_sql).pl(), R)
    timed(
        "5 rf_* macros over the registered Polars frame (Arrow scan)",
        lambda: con.sql(macro_sql.replace("FROM judged", "FROM judged_pl")).pl(),
        R,
    )
    for name, expr in [
        ("ndcg@10", "rf_ndcg(rel, rank, 10)"),
        ("map", "rf_average_precision(rel, rank, NULL)"),
        ("mrr", "rf_reciprocal_rank(rel, rank, NULL)"),
        ("P@10", "rf_precision(rel, rank, 10)"),
        ("recall@100", "rf_recall(rel, rank, 100)"),
    ]:
        timed(
            f"    {name} alone: `{expr}`",
            lambda expr=expr: con.sql(f"SELECT qid, {expr} FROM judged GROUP BY qid").pl(),
            R,
        )
    timed(
        "    rf_idcg(rel, rank, 10): list + list_sort + slice",
        lambda: con.sql(SQL_IDCG_MACRO).pl(),
        R,
    )
    timed(
        "    idcg variant: bounded max(rel, 10) top-n aggregate",
        lambda: con.sql(SQL_IDCG_TOPN).pl(),
        R,
    )
    timed(
        "    AP variant: list(rank ORDER BY rank), no list_sort",
        lambda: con.sql(SQL_AP_LISTORDER).pl(),
        R,
    )
    vres = timed(
        "5 measures, variant: window cum count for AP (sorts the table again)",
        lambda: con.sql(SQL_VARIANT).pl(),
        R,
    )
    fres = timed(
        "5 measures, flat variant: checks resolved, shared FILTERs, top-n idcg",
        lambda: con.sql(SQL_FLAT).pl(),
        R,
    )
    out(
        f"\nmax |variant - macros|: {same(mres, vres, tasks.MEASURES):.1e}; "
        f"max |flat - macros|: {same(mres, fres, tasks.MEASURES):.1e}"
    )
    out()
    out("EXPLAIN ANALYZE (JSON profile) operator timings, 5-macro query vs flat variant:")
    out()
    plans = {}
    for label, sql in (("macros", macro_sql), ("flat", SQL_FLAT)):
        con.execute("PRAGMA enable_profiling='json'")
        plans[label] = con.execute("EXPLAIN ANALYZE " + sql).fetchall()[0][1]
        con.execute("PRAGMA disable_profiling")
        ops: list[tuple[str, float, int]] = []

        def walk(node: dict, ops: list[tuple[str, float, int]] = ops) -> None:  # type: ignore[type-arg]
            ops.append(
                (
                    node.get("type", "?"),
                    float(node.get("timing", 0.0)),
                    int(node.get("intermediate_rows", 0)),
                )
            )
            for child in node.get("children", []):
                walk(child, ops)

        for root in json.loads(plans[label]).get("operator", []):
            walk(root)
        out(
            f"- {label}: "
            + ", ".join(
                f"{t} {s_:.3f}s ({n:,} rows)"
                for t, s_, n in ops
                if t not in ("RESULT_COLLECTOR", "EXPLAIN_ANALYZE")
            )
        )
    out()
    out(
        "Per-row predicates the optimizer left in the macro plan (argument checks not folded): "
        f"{plans['macros'].count('list_contains')} list_contains(...) and "
        f"{plans['macros'].count('error(')} error(...) calls in FILTER/CASE expressions."
    )
    plan = plans["macros"]

    out()
    out("### 5. Polars plan")
    out()
    if hasattr(pl.LazyFrame, "profile"):
        _, prof = judged.lazy().group_by("qid").agg(exprs).profile()
        prof = prof.with_columns(ms=((pl.col("end") - pl.col("start")) / 1000).round(1))
        for node, ms_ in prof.select("node", "ms").iter_rows():
            out(f"- {node[:90]}: {ms_} ms")
    else:
        out(
            f"LazyFrame.profile() is gone in polars {pl.__version__} (removed in 2.0); the "
            "per-measure and per-step timings above are the profile. Streaming plan:"
        )
    out("```")
    out(judged.lazy().group_by("qid").agg(exprs).explain(engine="streaming")[:3000])
    out("```")
    res = HERE / "results"
    res.mkdir(exist_ok=True)
    (res / f"profile-{args.rows}.md").write_text("\n".join(LINES) + "\n")
    (res / f"explain-{args.rows}.txt").write_text(plan)


if __name__ == "__main__":
    main()

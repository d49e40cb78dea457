"""The eager path of :func:`rankframe.judge.judge`: the table of the lazy plan, built from
in-memory frames in linear passes wherever the data allow.

- A 64-bit key ``hash(query) * M + hash(doc)`` (wrapping) stands in for the (query, doc)
  pair in the duplicate check and the join. A repeated key sends that side to the exact
  check (which names the rows), and every matched pair is compared on the real ids
  afterwards, so a collision costs time, never a wrong row.
- ``rank`` comes from the run lengths of the query column, and one linear pass proves the
  run in rank order (TREC run files usually are); otherwise each query's rows are sorted
  on their own (grouped by hashing), never the whole run on a text key.
- Duplicates are counted per query, in small hash sets.
- The join matches keys alone (an inner join: typically one run row in ten or fifteen has
  a judgement); the grades are then scattered into the ranked run, whose other columns are
  never copied.
- The output is the ranked run with its grades, then the unretrieved qrels rows (sorted
  by query, doc) appended, in one contiguous chunk per column.
"""

from __future__ import annotations

from typing import NamedTuple

import polars as pl

from rankframe import _expr
from rankframe._judge_input import check_values, raise_duplicate
from rankframe.ties import TIE_FIRST, TIE_SIZE

KEY = "__rankframe_key"
_RUN_ROW = "__rankframe_run_row"
_QRELS_ROW = "__rankframe_qrels_row"


class Names(NamedTuple):
    query: str
    doc: str
    score: str
    rel: str


def pair_key(query: str, doc: str) -> pl.Expr:
    """The 64-bit stand-in for the (query, doc) pair; equal pairs always get equal keys."""
    return _expr.pair_key(query, doc).alias(KEY)


def judge_eager(
    fn: str,
    run: pl.DataFrame,
    qrels: pl.DataFrame,
    n: Names,
    depth: int | None,
    *,
    tied: bool = False,
) -> pl.DataFrame:
    """The judged table (see :func:`rankframe.judge.judge`) from validated, cast frames."""
    query, doc, score, rel = n
    # One chunk per column (a parquet file arrives in one chunk per row group): every later
    # step then runs on contiguous memory.
    run, qrels = run.rechunk(), qrels.rechunk()
    check_values(fn, "run", run, query, doc, score)
    check_values(fn, "qrels", qrels, query, doc, rel)
    run = run.with_columns(pair_key(query, doc))
    qrels = qrels.with_columns(pair_key(query, doc))
    ordered = _in_rank_order(run, n)
    # A repeated key is either a duplicate pair (raised here, naming rows of the input) or
    # a collision (then the join is made on the ids).
    exact = False
    if _has_repeated_keys(ordered, query):
        raise_duplicate(fn, "run", run, query, doc)
        exact = True
    if qrels.get_column(KEY).n_unique() != qrels.height:
        raise_duplicate(fn, "qrels", qrels, query, doc)
        exact = True
    ranked = _of_judged_queries(ordered, qrels, query)
    if depth is not None:
        ranked = ranked.filter(pl.col("rank") <= depth)
    if tied:
        ranked = ranked.with_columns(_tie_groups(query, score))
    matches = _matches(ranked, qrels, n, exact=exact)
    grades = _blank(ranked.height, qrels.schema[rel]).scatter(
        matches.get_column(_RUN_ROW), matches.get_column(rel)
    )
    extra = [TIE_FIRST, TIE_SIZE] if tied else []
    retrieved = ranked.select(query, doc, "rank", grades.alias(rel), score, *extra)
    found = pl.repeat(False, qrels.height, eager=True).scatter(
        matches.get_column(_QRELS_ROW), True
    )
    unretrieved = (
        qrels.filter(found.not_())
        .sort(query, doc)
        .select(
            query,
            doc,
            pl.lit(None, pl.Int64).alias("rank"),
            rel,
            pl.lit(None, pl.Float64).alias(score),
            *(pl.lit(None, pl.Int64).alias(c) for c in extra),
        )
    )
    return pl.concat([retrieved, unretrieved], rechunk=False)


def _blank(height: int, dtype: pl.DataType) -> pl.Series:
    """A fresh all-NULL column (``scatter`` fills it in place)."""
    return pl.repeat(None, height, dtype=dtype, eager=True)


def _in_rank_order(run: pl.DataFrame, n: Names) -> pl.DataFrame:
    """The run sorted by query, then score descending, then doc (as text) descending, with
    ``rank``; sorted only if one linear pass finds it out of that order."""
    query, doc, score, _ = n
    ranked = run.with_columns(_positions(run.get_column(query)))
    if not _proven_in_rank_order(ranked, n):
        # Sorting 7M rows on a text key is slow (seconds); hashing them into queries, then
        # sorting each query's rows and the queries, is about three times faster.
        order = [pl.col(score), _as_text(doc, run.schema[doc])]
        ranked = (
            run.group_by(query)
            .agg(pl.exclude(query).sort_by(order, descending=[True, True]))
            .sort(query)
            .explode([c for c in run.columns if c != query])
        )
        ranked = ranked.with_columns(_positions(ranked.get_column(query)))
    return ranked.with_columns(pl.col(query).set_sorted())


def _has_repeated_keys(ranked: pl.DataFrame, query: str) -> bool:
    """True if a query has a pair key twice. Counted per query (rows grouped by the query):
    small hash sets that stay in cache, three times faster than one over the whole run."""
    per_query = ranked.lazy().group_by(query).agg(pl.col(KEY).n_unique().alias("keys"))
    return bool(per_query.select(pl.col("keys").sum()).collect().item() != ranked.height)


def _of_judged_queries(ranked: pl.DataFrame, qrels: pl.DataFrame, query: str) -> pl.DataFrame:
    """The rows of queries that have qrels."""
    judged = qrels.get_column(query).unique().implode()
    if ranked.filter(pl.col("rank") == 1).get_column(query).is_in(judged).all():
        return ranked
    return ranked.filter(pl.col(query).is_in(judged))


def _positions(queries: pl.Series) -> pl.Series:
    """1, 2, ... along each run of equal consecutive values (a query's rows, once grouped)."""
    lengths = queries.rle().struct.field("len")
    return pl.select(pl.int_ranges(1, lengths + 1, dtype=pl.Int64).explode()).to_series().alias(
        "rank"
    )


def _as_text(name: str, dtype: pl.DataType) -> pl.Expr:
    return pl.col(name) if dtype == pl.String else pl.col(name).cast(pl.String)


def _proven_in_rank_order(frame: pl.DataFrame, n: Names) -> bool:
    """True if rows are sorted by query, then score descending, then doc (as text)
    descending; ``rank`` must hold :func:`_positions` of the query column."""
    if frame.height < 2:
        return True
    # Grouped and ascending: the query of each run of equal queries beats the one before.
    heads = frame.get_column(n.query).filter(frame.get_column("rank") == 1)
    if not bool((heads.slice(1) > heads.slice(0, heads.len() - 1)).all()):
        return False
    s, d = pl.col(n.score), _as_text(n.doc, frame.schema[n.doc])
    after = (pl.col("rank") == 1) | (s < s.shift(1)) | ((s == s.shift(1)) & (d < d.shift(1)))
    return bool(frame.select(after.all()).item())


def _tie_groups(query: str, score: str) -> list[pl.Expr]:
    """``tie_first`` and ``tie_size`` of :func:`rankframe.ties.annotate`, for rows in rank
    order (a tie group is a run of consecutive rows with equal query and score)."""
    q, s, r = pl.col(query), pl.col(score), pl.col("rank")
    starts = ((q != q.shift(1)) | (s != s.shift(1))).fill_null(True)
    ends = ((q != q.shift(-1)) | (s != s.shift(-1))).fill_null(True)
    first = pl.when(starts).then(r).forward_fill()
    last = pl.when(ends).then(r).backward_fill()
    return [first.alias(TIE_FIRST), (last - first + 1).alias(TIE_SIZE)]


def _row_numbers(name: str) -> pl.Expr:
    return pl.int_range(pl.len(), dtype=pl.get_index_type()).alias(name)


def _matches(ranked: pl.DataFrame, qrels: pl.DataFrame, n: Names, *, exact: bool
             ) -> pl.DataFrame:
    """The (run row, grade, qrels row) of every ranked row that has a judgement."""
    query, doc, _, rel = n
    probe = ranked.select(KEY, _row_numbers(_RUN_ROW))
    build = qrels.select(KEY, rel, _row_numbers(_QRELS_ROW))
    if not exact:
        matches = probe.join(build, on=KEY, how="inner")
        run_rows, qrels_rows = matches.get_column(_RUN_ROW), matches.get_column(_QRELS_ROW)
        if all(
            ranked.get_column(c).gather(run_rows).equals(qrels.get_column(c).gather(qrels_rows))
            for c in (query, doc)
        ):
            return matches.drop(KEY)
    # A collision (or a repeated key): join on the ids themselves.
    probe = ranked.select(query, doc, _row_numbers(_RUN_ROW))
    build = qrels.select(query, doc, rel, _row_numbers(_QRELS_ROW))
    return probe.join(build, on=[query, doc], how="inner").select(_RUN_ROW, rel, _QRELS_ROW)

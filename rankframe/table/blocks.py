"""The judge core: the judged table of :func:`rankframe.table.judge.judge` built from
in-memory frames, for ``judge`` (eager and lazy) and ``evaluate_run``.

- **Blocks.** The run is cut into blocks of whole queries (about ``block_rows`` rows, within
  one chunk of the input), each with its slice of the qrels (sorted by query; the slices
  cover the qrels). Blocks are ranked, checked and joined on their own, on a thread pool: a
  block's temporaries are reused by the allocator for the next block, where whole-run
  passes would each allocate (and have the kernel zero) columns of the full length; the id
  and score columns of the output are slices of the input.
- **Ranking** (:func:`in_rank_order`, :func:`rank_order`): score descending, then doc id
  descending compared as text in byte order (trec_eval's rule). A block whose rows are in
  rank order already (TREC run files usually are) is proven so in one linear pass and ranked
  by position; otherwise the block sorts each query's row numbers on (score, doc) and
  gathers its rows once in that order (never the whole run sorted on a text key). A run
  whose queries are not contiguous and ascending is first grouped by query (by hashing).
  ``ties="average"`` adds the tie groups of the ranked rows
  (:func:`rankframe.table.ties.tie_groups`).
- **Pair keys** (:func:`rankframe.table.keys.pair_key`) stand in for (query, doc) in the
  duplicate checks and the join. A repeated key within a query of the run, or within a
  block's qrels, sends that side to the exact check, which names the rows; every match of
  the join is confirmed on the ids, so a collision costs time, never a wrong row.
- **Output**: the blocks' ranked rows, then the qrels rows no block retrieved, sorted by
  (query, doc). With ``positive_only`` a block keeps only :func:`positive_rows` of its
  ranked and its unretrieved rows, and the full table never exists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple, TypeVar

import polars as pl

from rankframe.table.inputs import Names, check_values, raise_duplicate
from rankframe.table.keys import pair_key
from rankframe.table.series import ascending, run_starts
from rankframe.table.ties import tie_groups

BLOCK_ROWS = 1 << 20  # rows per block by default: about a parquet row group's
_KEY = "__rankframe_key"
_RUN_ROW = "__rankframe_run_row"
_QRELS_ROW = "__rankframe_qrels_row"
_HEAD = 4096  # rows that in_rank_order checks first


class _Block(NamedTuple):
    run: pl.DataFrame  # whole queries, queries ascending: (query, doc, score)
    lengths: pl.Series  # rows per query
    all_judged: bool  # every query of the block has qrels
    qrels: pl.DataFrame  # the block's slice of the qrels (sorted by query)


class _Judged(NamedTuple):
    table: pl.DataFrame  # the ranked rows with their grades (positive_only: see judge_frames)
    unretrieved: pl.DataFrame  # the rows of the block's qrels that it did not retrieve
    repeated: bool  # a pair key occurs twice within a query of the block's run
    qrels_repeated: bool  # a pair key occurs twice in the block's qrels


def judge_frames(
    fn: str,
    run: pl.DataFrame,
    qrels: pl.DataFrame,
    n: Names,
    depth: int | None,
    *,
    tied: bool = False,
    positive_only: bool = False,
    judged_only: bool = False,
    block_rows: int | None = None,
    threads: int | None = None,
) -> pl.DataFrame:
    """The judged table of :func:`rankframe.table.judge.judge` from frames of exactly the
    columns (query, doc, score) and (query, doc, rel), cast to common id dtypes; with
    ``tied``, plus its tie-group columns. Raises its errors (NULL, NaN, duplicates).

    With ``positive_only``, only what measures reading the rows with a grade > 0 need (see
    ``Metric.positive_rows``): columns (query, rank, rel), the rows with rel > 0 and the
    first ranked and first unretrieved row of each query, sorted by query.

    With ``judged_only`` (trec_eval ``-J``), after the depth cut each query's ranking keeps
    only its documents with a grade >= 0, ranked 1, 2, ... in the same order; retrieved
    documents with a negative grade become unretrieved rows.

    ``block_rows`` (default ``BLOCK_ROWS``) and ``threads`` (default Polars' thread pool
    size) set the blocks and how many are judged at once; the result does not depend on
    them.
    """
    query, doc = n.query, n.doc
    check_values(fn, "run", run, query, doc, n.score)
    check_values(fn, "qrels", qrels, query, doc, n.rel)
    block_rows = block_rows or BLOCK_ROWS
    threads = threads or pl.thread_pool_size()
    sorted_qrels = _grouped(qrels, query)

    blocks = _blocks(run, sorted_qrels, query, block_rows)
    if blocks is None:  # queries not contiguous and ascending
        blocks = _blocks(_by_query(run, query), sorted_qrels, query, block_rows)
        assert blocks is not None, "a run grouped by query makes blocks"
    judged = _map(lambda b: _judge_block(b, n, depth, tied, positive_only, judged_only),
                  blocks, threads)
    if any(j.qrels_repeated for j in judged):
        raise_duplicate(fn, "qrels", qrels, query, doc)  # returns if keys collided
    if any(j.repeated for j in judged):
        raise_duplicate(fn, "run", run, query, doc)
    tables = [j.table for j in judged]
    if positive_only:
        return pl.concat(tables, rechunk=False)
    # The unretrieved rows get NULL in the columns the qrels do not have.
    unretrieved = pl.concat([j.unretrieved for j in judged]).sort(query, doc)
    schema = tables[0].schema
    unretrieved = unretrieved.select(
        pl.col(c) if c in unretrieved.columns else pl.lit(None, schema[c]).alias(c)
        for c in schema
    )
    return pl.concat([*tables, unretrieved], rechunk=False)


def positive_rows(judged: pl.DataFrame | pl.LazyFrame, keys: list[str], rel: str,
                  new_key: pl.Series | pl.Expr | None) -> pl.DataFrame | pl.LazyFrame:
    """The rows with rel > 0, plus the first row of each run of equal query keys (so that
    every query keeps a row and a value), in the same order: all that measures reading only
    positive rows need. ``new_key`` marks the rows that start a new key, when known, or
    the rows to keep besides the positive ones (e.g. :func:`first_of_query`)."""
    return judged.filter(positive(keys, rel, new_key))


def positive(keys: list[str], rel: str, new_key: pl.Series | pl.Expr | None = None) -> pl.Expr:
    """The filter of :func:`positive_rows` (``new_key`` may also be an expression)."""
    if new_key is None:
        starts = pl.any_horizontal(pl.col(k).ne_missing(pl.col(k).shift(1)) for k in keys)
        new_key = starts.fill_null(True)
    return (pl.col(rel) > 0).fill_null(False) | new_key


def first_of_query(keys: list[str]) -> pl.Expr:
    """True on the first row of each query, its rows in any order: for :func:`positive_rows`
    of a table not grouped by query, which keeps one row per query, not one per run."""
    key = pl.col(keys[0]) if len(keys) == 1 else pl.struct(keys)
    return key.is_first_distinct()


def rank_order(rows: pl.DataFrame, rank: pl.Series, n: Names) -> pl.Series:
    """The permutation that puts ``rows`` (grouped by query; ``rank`` 1, 2, ... within each
    query, one chunk) in rank order: score descending, then doc as text descending.

    Each query's row numbers are sorted by score alone; then only the rows whose score ties
    with a neighbour's (a small share of most runs) are sorted again by (tie group, doc).
    The id columns move once, in the caller's gather; a sort on the doc text of every row
    would cost twice the sort by score."""
    number = "__rankframe_query_number"
    keys = rows.select(n.score).with_columns(
        (rank == 1).cum_sum().alias(number).set_sorted(),
        pl.int_range(pl.len(), dtype=pl.get_index_type()).alias(_RUN_ROW))
    order = (
        keys.lazy()
        .group_by(number)
        .agg(pl.col(_RUN_ROW).sort_by(n.score, descending=True))
        .sort(number)
        .select(pl.col(_RUN_ROW).explode())
        .collect()
        .to_series()
    )
    ranked = keys.select(pl.col(number, n.score).gather(order))
    same = pl.all_horizontal(pl.col(c) == pl.col(c).shift(1) for c in (number, n.score))
    ties = ranked.select(same.fill_null(False).alias("tied")).to_series()
    if not ties.any():
        return order
    # A tie group: a row that does not tie with the one before it, and the rows that do.
    members = ranked.select(
        pl.lit(ties.not_().cum_sum()).alias("group"),
        pl.int_range(pl.len(), dtype=pl.get_index_type()).alias("position"),
    ).filter(ties | ties.shift(-1, fill_value=False))
    positions = members.get_column("position")
    tied_rows = order.gather(positions)
    docs = rows.get_column(n.doc).gather(tied_rows).to_frame().select(
        _text(pl.col(n.doc), rows.schema[n.doc])).to_series()
    by_doc = members.select("group").with_columns(docs.alias("doc")).select(
        pl.arg_sort_by(["group", "doc"], descending=[False, True])).to_series()
    return order.scatter(positions, tied_rows.gather(by_doc))


def in_rank_order(rows: pl.DataFrame, rank: pl.Series, n: Names) -> bool:
    """True if each query's rows (``rank`` 1, 2, ...; one chunk) are in rank order (see
    :func:`rank_order`): every row after a query's first is below the row before it."""
    m = rows.height
    if m < 2:
        return True
    if m > _HEAD and not in_rank_order(rows.slice(0, _HEAD), rank.slice(0, _HEAD), n):
        return False  # an unsorted run fails at once
    s = rows.get_column(n.score)
    d = rows.select(_text(pl.col(n.doc), rows.schema[n.doc])).to_series()
    s1, s0, d1, d0 = s.slice(1), s.slice(0, m - 1), d.slice(1), d.slice(0, m - 1)
    return bool(((rank.slice(1) == 1) | (s1 < s0) | ((s1 == s0) & (d1 < d0))).all())


def _text(doc: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    return doc if dtype == pl.String else doc.cast(pl.String)


_Item = TypeVar("_Item")
_Out = TypeVar("_Out")


def _map(work: Callable[[_Item], _Out], items: Sequence[_Item], threads: int) -> list[_Out]:
    """``work`` over ``items`` on up to ``threads`` threads (Polars releases the GIL)."""
    if min(len(items), threads) < 2:
        return [work(item) for item in items]
    with ThreadPoolExecutor(min(len(items), threads)) as pool:
        return list(pool.map(work, items))


def _grouped(frame: pl.DataFrame, query: str) -> pl.DataFrame:
    """``frame`` with its rows grouped by query, queries ascending (sorted only if not)."""
    queries = frame.get_column(query)
    if ascending(queries.gather(run_starts(queries)).to_frame()):
        return frame.with_columns(pl.col(query).set_sorted())
    return frame.sort(query, maintain_order=True)


def _by_query(run: pl.DataFrame, query: str) -> pl.DataFrame:
    """``run`` with its rows grouped by query, queries ascending, each query's rows in any
    order: grouped by hashing and exploded, far faster than a sort on a text key."""
    others = [c for c in run.columns if c != query]
    return run.group_by(query).agg(others).sort(query).explode(others)


def _blocks(run: pl.DataFrame, qrels: pl.DataFrame, query: str, block_rows: int
            ) -> list[_Block] | None:
    """The run cut into blocks of whole queries, each with its slice of ``qrels`` (grouped
    by query); None if the run's rows are not grouped by query with queries ascending.

    A block ends after about ``block_rows`` rows, and at the chunks of the run's query
    column when they are large: a query that straddles two chunks gets a block of its own,
    so that every other block is a slice of one chunk (gathers and comparisons across
    chunks copy them). An empty run makes one block holding all the qrels."""
    if run.height == 0:
        return [_Block(run, pl.Series([], dtype=pl.Int64), True, qrels)]
    queries = run.get_column(query)
    starts = run_starts(queries)
    heads = queries.gather(starts)
    if not ascending(heads.to_frame()):
        return None
    ends = pl.concat([starts.slice(1), pl.Series([run.height], dtype=pl.Int64)])
    chunk_ends = pl.Series(queries.chunk_lengths(), dtype=pl.Int64).cum_sum()
    if chunk_ends.len() * (block_rows // 4) > run.height:
        # Small chunks (a CSV reader's, say): cut by rows alone and copy each block into one
        # chunk, rather than make a block of every chunk.
        chunk_ends = pl.Series([run.height], dtype=pl.Int64)
    chunk = chunk_ends.search_sorted(starts, side="right")  # the chunk of each query's start
    chunk_start = pl.concat([pl.Series([0], dtype=pl.Int64), chunk_ends]).gather(chunk)
    qrels_queries = qrels.get_column(query)
    spans = (
        pl.DataFrame({
            "start": starts,
            "end": ends,
            "chunk": chunk,
            "part": (starts - chunk_start) // block_rows,
            "straddles": ends > chunk_ends.gather(chunk),
            "judged": heads.is_in(qrels_queries.gather(run_starts(qrels_queries)).implode()),
        })
        .with_row_index("first")
        .group_by("chunk", "part", "straddles", maintain_order=True)
        .agg(pl.col("first", "start").first(), pl.col("end").last(), pl.len().alias("queries"),
             pl.col("judged").all())
    )
    # Each block's qrels run to the end of its last query's, from where the block before
    # stopped (the last block's to the end): every qrels row is in one block.
    last = heads.gather(spans.get_column("first") + spans.get_column("queries") - 1)
    stops = qrels_queries.search_sorted(last, side="right").to_list()
    stops[-1] = qrels.height
    blocks, qrels_start = [], 0
    for (first, start, end, count, judged), stop in zip(
        spans.select("first", "start", "end", "queries", "judged").iter_rows(), stops,
        strict=True,
    ):
        blocks.append(_Block(
            run=run.slice(start, end - start),
            lengths=(ends - starts).slice(first, count),
            all_judged=judged,
            qrels=qrels.slice(qrels_start, stop - qrels_start),
        ))
        qrels_start = stop
    return blocks


def _judge_block(block: _Block, n: Names, depth: int | None, tied: bool,
                 positive_only: bool, judged_only: bool = False) -> _Judged:
    """One block's part of :func:`judge_frames`, its rows put in rank order unless proven
    so (a pair repeated with one score fails the proof and reaches the duplicate check).
    The block's frames are made one chunk first (a copy only for a block that spans
    chunks), so everything derived from them is one chunk too."""
    query, doc, score, rel = n
    run, qrels = _one_chunk(block.run), _one_chunk(block.qrels)
    rank = pl.select(pl.int_ranges(1, block.lengths + 1, dtype=pl.Int64).explode()
                     ).to_series().alias("rank")
    if not in_rank_order(run, rank, n):
        run = run.gather(rank_order(run, rank, n))
    rows = run.with_columns(rank, pair_key(query, doc).alias(_KEY))
    qrels = qrels.with_columns(pair_key(query, doc).alias(_KEY))
    repeated = _repeated_within_queries(rows, query)
    kept = [] if block.all_judged else [pl.col(query).is_in(qrels[query].unique().implode())]
    if depth is not None:
        kept.append(pl.col("rank") <= depth)
    rows = rows.filter(*kept) if kept else rows
    run_rows, qrels_rows = _matches(rows, qrels, [query, doc])
    grades = qrels.get_column(rel).gather(qrels_rows)
    if judged_only:  # negative grades: unretrieved rows
        judged = grades >= 0
        run_rows, qrels_rows, grades = (s.filter(judged) for s in (run_rows, qrels_rows, grades))
    graded = pl.repeat(None, rows.height, dtype=qrels.schema[rel], eager=True).scatter(
        run_rows, grades)
    rows = rows.with_columns(graded.alias(rel))
    if judged_only:  # the judged documents only, ranked again in the same order
        rows = rows.filter(pl.col(rel).is_not_null()).with_columns(
            pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(query).alias("rank"))
    unretrieved = _unretrieved(qrels, qrels_rows)
    if positive_only:
        table = _positive_table(rows.select(query, "rank", rel), unretrieved, n)
    else:
        table = rows.select(query, doc, "rank", rel, score)
        if tied:
            table = table.with_columns(tie_groups("rank", score))
    return _Judged(table, unretrieved, repeated, qrels[_KEY].n_unique() != qrels.height)


def _unretrieved(qrels: pl.DataFrame, qrels_rows: pl.Series) -> pl.DataFrame:
    """The rows of ``qrels`` (with pair keys) not among ``qrels_rows``, without the keys."""
    found = pl.repeat(False, qrels.height, eager=True).scatter(qrels_rows, True)
    return qrels.filter(found.not_()).drop(_KEY)


def _positive_table(ranked: pl.DataFrame, unretrieved: pl.DataFrame, n: Names
                    ) -> pl.DataFrame:
    """:func:`positive_rows` of a block's ranked rows (query, rank, rel; in rank order) and
    of its unretrieved qrels rows, sorted by query."""
    query, rel = n.query, n.rel
    return pl.concat([
        # A query's first ranked row has rank 1 (the depth cut keeps it).
        ranked.filter(positive([query], rel, pl.col("rank") == 1)),
        unretrieved.select(query, pl.lit(None, pl.Int64).alias("rank"), rel).filter(
            positive([query], rel)),
    ]).sort(query, maintain_order=True)


def _one_chunk(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with every column in one chunk (copied only if it is not)."""
    return frame if max(frame.n_chunks("all"), default=1) == 1 else frame.rechunk()


def _repeated_within_queries(rows: pl.DataFrame, query: str) -> bool:
    """True if a query of ``rows`` (grouped by query) has a pair key twice: one small hash
    set per query, which stays in cache."""
    per_query = (
        rows.lazy()
        .select(pl.col(query).set_sorted(), _KEY)
        .group_by(query)
        .agg(pl.col(_KEY).n_unique())
        .select(pl.col(_KEY).sum())
    )
    return bool(per_query.collect().item() != rows.height)


def _matches(rows: pl.DataFrame, qrels: pl.DataFrame, ids: list[str]
             ) -> tuple[pl.Series, pl.Series]:
    """(row of ``rows``, row of ``qrels``) of every pair that the two share: matched on pair
    keys, and confirmed on the ``ids``; if two pair keys collided, joined on the ids."""
    matches = qrels.select(_KEY).with_row_index(_QRELS_ROW).join(
        rows.select(_KEY).with_row_index(_RUN_ROW), on=_KEY)
    run_rows, qrels_rows = matches.get_column(_RUN_ROW), matches.get_column(_QRELS_ROW)
    if not all(rows[c].gather(run_rows).equals(qrels[c].gather(qrels_rows)) for c in ids):
        matches = rows.select(ids).with_row_index(_RUN_ROW).join(
            qrels.select(ids).with_row_index(_QRELS_ROW), on=ids)
    return matches.get_column(_RUN_ROW), matches.get_column(_QRELS_ROW)

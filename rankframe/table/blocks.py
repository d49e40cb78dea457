"""The eager path of :func:`rankframe.table.judge.judge` (and of ``evaluate_run``): the table of
the lazy plan, built from in-memory frames in linear passes wherever the data allow.

- The run is cut into **blocks of whole queries** (about ``BLOCK_ROWS`` rows, within one
  chunk of the input) and the qrels into the matching slices (both sorted by query, so a
  block's qrels are one contiguous range; the slices cover the qrels). Each block is
  ranked, checked and joined on its own, on a thread pool. A block's temporaries are
  reused by the allocator for the next block, where whole-run passes would each allocate
  (and have the kernel zero) columns of the full length; the id and score columns of the
  output are zero-copy slices of the input.
- ``rank`` comes from the run lengths of the query column, and one linear pass per block
  proves the rows in rank order (TREC run files usually are); otherwise each query's rows
  are sorted on their own (grouped by hashing), never the whole run on a text key, and
  the blocks are cut from the sorted run.
- A 64-bit key ``hash(query) * M + hash(doc)`` (wrapping) stands in for the (query, doc)
  pair in the duplicate checks and the join. A repeated key sends that side to the exact
  check (which names the rows), and every matched pair is compared on the real ids
  afterwards, so a collision costs time, never a wrong row. M is odd, so two keys with
  equal docs are equal only if the query hashes are; when the distinct queries of both
  sides have distinct hashes (checked once), comparing the docs is enough.
- Duplicates in the run are counted per query, in small hash sets.
- The join matches keys alone (typically one run row in ten or fifteen has a judgement);
  the grades are then scattered into the block's ranked rows.
- The output is the ranked blocks, then the unretrieved qrels rows (sorted by query, doc).
  With ``positive_only`` each block keeps only the rows a measure reading rows with a
  grade > 0 needs, its unretrieved qrels rows included, and the full table never exists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple, TypeVar

import polars as pl

from rankframe.table import keys
from rankframe.table.inputs import check_values, raise_duplicate
from rankframe.table.series import run_starts
from rankframe.table.ties import TIE_FIRST, TIE_SIZE

KEY = "__rankframe_key"
_RUN_ROW = "__rankframe_run_row"
_QRELS_ROW = "__rankframe_qrels_row"
# Rows per block: about a parquet row group's. Measured at 7M rows: 2^20 and 2^21 about
# equal, 2^19 a little slower (more blocks, each a few dozen Polars calls).
BLOCK_ROWS = 1 << 20


class Names(NamedTuple):
    query: str
    doc: str
    score: str
    rel: str


class _Block(NamedTuple):
    run: pl.DataFrame  # whole queries, queries ascending: (query, doc, score)
    lengths: pl.Series  # rows per query
    all_judged: bool  # every query of the block has qrels
    qrels: pl.DataFrame  # (query, doc, rel) of the block's query range (and the qrels-only
    # queries up to the previous block's range): the blocks' qrels slices cover the qrels
    qrels_offset: int  # row of qrels[0] in the whole (sorted) qrels
    distinct_query_hashes: bool  # no two queries (of either side) share an id_hash


class _Judged(NamedTuple):
    table: pl.DataFrame  # the block's ranked rows with their grades
    found: pl.Series  # rows of the whole sorted qrels that the block retrieved
    repeated: bool  # a pair key occurs twice within a query of the block
    qrels_repeated: bool  # a pair key occurs twice in the block's qrels


def id_hash(name: str) -> pl.Expr:
    """The 64-bit hash of an id column that pair keys are made of."""
    return pl.col(name).hash()


def pair_key(query: str, doc: str) -> pl.Expr:
    """The 64-bit stand-in for the (query, doc) pair; equal pairs always get equal keys."""
    return keys.combine_hashes(id_hash(query), id_hash(doc)).alias(KEY)


def judge_eager(
    fn: str,
    run: pl.DataFrame,
    qrels: pl.DataFrame,
    n: Names,
    depth: int | None,
    *,
    tied: bool = False,
    positive_only: bool = False,
) -> pl.DataFrame:
    """The judged table (see :func:`rankframe.table.judge.judge`) from validated, cast frames.

    With ``positive_only``, only what measures that read the rows with a grade > 0 need
    (see ``Metric.positive_rows``): columns (query, rank, rel), the rows with rel > 0 and
    one more row of each query (its first), sorted by query; the full table is never built.
    """
    query, doc, score, rel = n
    check_values(fn, "run", run, query, doc, score)
    check_values(fn, "qrels", qrels, query, doc, rel)
    given, qrels = qrels, _sorted_by_query(qrels, query)  # errors name the rows as given

    def judge_block(block: _Block) -> _Judged | None:
        return _judge_block(block, n, depth, tied, proven=False, positive_only=positive_only)

    def judge_sorted_block(block: _Block) -> _Judged:
        judged = _judge_block(block, n, depth, tied, proven=True, positive_only=positive_only)
        assert judged is not None
        return judged

    blocks = _blocks(run, qrels, query)
    results = None if blocks is None else _map(judge_block, blocks)
    judged = [r for r in results or [] if r is not None]
    if results is None or len(judged) < len(results):
        # Not in rank order: sorted, then judged without the proof (a pair repeated with
        # one score would fail it, and must reach the duplicate check instead).
        sorted_blocks = _blocks(_sorted_run(run, n), qrels, query)
        assert sorted_blocks is not None, "a sorted run is grouped by query"
        judged = _map(judge_sorted_block, sorted_blocks)
    # The blocks' qrels slices cover the qrels; without blocks, they are checked here.
    if any(r.qrels_repeated for r in judged) or (not judged and _repeated_pairs(qrels, n)):
        # A duplicate pair is raised; a collision was resolved by the join's check.
        raise_duplicate(fn, "qrels", given, query, doc)
    if any(r.repeated for r in judged):
        raise_duplicate(fn, "run", run, query, doc)
    if positive_only:
        if not judged:
            return _positive_unretrieved(qrels, n)
        return pl.concat([r.table for r in judged], rechunk=False)
    found = pl.repeat(False, qrels.height, eager=True)
    if judged:
        found = found.scatter(pl.concat([r.found for r in judged]), True)
    extra = [TIE_FIRST, TIE_SIZE] if tied else []
    rows = qrels.filter(found.not_()).sort(query, doc).select(
        query,
        doc,
        pl.lit(None, pl.Int64).alias("rank"),
        rel,
        pl.lit(None, pl.Float64).alias(score),
        *(pl.lit(None, pl.Int64).alias(c) for c in extra),
    )
    return pl.concat([*(r.table for r in judged), rows], rechunk=False)


def _repeated_pairs(qrels: pl.DataFrame, n: Names) -> bool:
    """True if two rows have the same pair key (a duplicate pair or a collision)."""
    return bool(qrels.select(pair_key(n.query, n.doc).n_unique()).item() != qrels.height)


def _positive_unretrieved(qrels: pl.DataFrame, n: Names) -> pl.DataFrame:
    """judge_eager's ``positive_only`` rows of qrels rows that were not retrieved (sorted by
    query): those with rel > 0, and the first of each query."""
    query, _, _, rel = n
    return qrels.filter((pl.col(rel) > 0) | pl.col(query).is_first_distinct()).select(
        query, pl.lit(None, pl.Int64).alias("rank"), rel
    )


_Item = TypeVar("_Item")
_Out = TypeVar("_Out")


def _map(work: Callable[[_Item], _Out], items: Sequence[_Item]) -> list[_Out]:
    """``work`` over ``items`` on as many threads as Polars has (Polars releases the GIL)."""
    workers = min(len(items), pl.thread_pool_size())
    if workers < 2:
        return [work(item) for item in items]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(work, items))


def _sorted_by_query(frame: pl.DataFrame, query: str) -> pl.DataFrame:
    """``frame`` with its rows grouped by query, queries ascending (sorted only if not)."""
    queries = frame.get_column(query)
    if _ascending(queries.gather(run_starts(queries))):
        return frame.with_columns(pl.col(query).set_sorted())
    return frame.sort(query, maintain_order=True)


def _ascending(values: pl.Series) -> bool:
    """True if each value is greater than the one before it."""
    return values.len() < 2 or bool((values.slice(1) > values.slice(0, values.len() - 1)).all())


def _blocks(run: pl.DataFrame, qrels: pl.DataFrame, query: str) -> list[_Block] | None:
    """The run cut into blocks of whole queries, each with its slice of ``qrels`` (sorted by
    query); None if the run's rows are not grouped by query with queries ascending.

    A block ends after about ``BLOCK_ROWS`` rows, and at the chunks of the run's query
    column when they are large: a query that straddles two chunks gets a block of its own,
    so that every other block is a slice of one chunk (gathers and comparisons across
    chunks copy them). A block of several chunks is copied into one."""
    run_queries = run.get_column(query)
    starts = run_starts(run_queries)
    heads = run_queries.gather(starts)
    if not _ascending(heads):
        return None
    lengths = pl.concat([starts, pl.Series([run.height], dtype=pl.Int64)]).diff().slice(1)
    qrels_queries = qrels.get_column(query)
    qrels_heads = qrels_queries.gather(run_starts(qrels_queries))
    queries = pl.concat([heads, qrels_heads]).unique()
    distinct_hashes = queries.to_frame(query).select(id_hash(query).n_unique()).item() == len(
        queries
    )
    chunk_lengths = pl.Series(run.get_column(query).chunk_lengths(), dtype=pl.Int64)
    if len(chunk_lengths) * (BLOCK_ROWS // 4) > run.height:
        # Small chunks (a CSV reader's, say): cut by rows alone and copy each block into one
        # chunk, rather than make a block of every chunk.
        chunk_lengths = pl.Series([run.height], dtype=pl.Int64)
    chunk_ends = chunk_lengths.cum_sum()
    ends = starts + lengths
    chunk = chunk_ends.search_sorted(starts, side="right")  # the chunk of each query's start
    per_query = pl.DataFrame({
        "start": starts,
        "end": ends,
        "chunk": chunk.cast(pl.Int64),
        "chunk_start": (chunk_ends - chunk_lengths).gather(chunk),
        "straddles": ends > chunk_ends.gather(chunk),
        "judged": heads.is_in(qrels_heads.implode()),
    })
    block_of = (
        pl.col("chunk") * (1 << 42)
        + (pl.col("start") - pl.col("chunk_start")) // BLOCK_ROWS * 2
        + pl.col("straddles").cast(pl.Int64)
    )
    spans = (
        per_query.with_row_index("query")
        .group_by(block_of.alias("block"), maintain_order=True)
        .agg(
            pl.col("query").first(),
            pl.len().alias("queries"),
            pl.col("start").first(),
            pl.col("end").last(),
            pl.col("judged").all().alias("all_judged"),
        )
    )
    last = heads.gather(spans.get_column("query") + spans.get_column("queries") - 1)
    # Each block's qrels run to the end of its last query's, from where the block before
    # stopped (the last block's to the end): every qrels row is in one block.
    qrels_stops = qrels_queries.search_sorted(last, side="right").to_list()
    if qrels_stops:
        qrels_stops[-1] = qrels.height
    qrels_starts = [0, *qrels_stops[:-1]][: len(qrels_stops)]
    blocks = []
    for (index, count, start, end, all_judged), qrels_start, qrels_stop in zip(
        spans.select("query", "queries", "start", "end", "all_judged").iter_rows(),
        qrels_starts, qrels_stops, strict=True,
    ):
        rows = run.slice(start, end - start)
        qrels_rows = qrels.slice(qrels_start, qrels_stop - qrels_start)
        blocks.append(_Block(
            run=rows,
            lengths=lengths.slice(index, count),
            all_judged=bool(all_judged),
            qrels=qrels_rows,
            qrels_offset=qrels_start,
            distinct_query_hashes=distinct_hashes,
        ))
    return blocks


def _judge_block(block: _Block, n: Names, depth: int | None, tied: bool, *, proven: bool,
                 positive_only: bool) -> _Judged | None:
    """The judged rows of one block (with ``positive_only``, those of judge_eager's
    ``positive_only`` table); None if its rows are not in rank order (checked unless
    ``proven``). Works on the block's columns one by one: a frame of columns cut into
    different chunks would be copied into one chunk each, so the block's own frames are made
    one chunk first (a copy only for a block that spans chunks) and everything derived from
    them is one chunk too."""
    query, doc, score, rel = n
    run, qrels = _one_chunk(block.run), _one_chunk(block.qrels)
    rank = _positions(block.lengths)
    if not proven and not _in_rank_order(run, rank, n):
        return None
    queries, docs, scores = (run.get_column(c) for c in (query, doc, score))
    keys = run.select(pair_key(query, doc)).to_series()
    repeated = _repeated_within_queries(queries, keys)
    unretrieved = qrels
    qrels = qrels.with_columns(pair_key(query, doc))
    qrels_repeated = qrels.get_column(KEY).n_unique() != qrels.height
    kept: pl.Series | None = None
    if not block.all_judged:
        kept = queries.is_in(qrels.get_column(query).unique().implode())
    if depth is not None:
        within = rank <= depth
        kept = within if kept is None else kept & within
    if kept is not None:
        queries, docs, rank, scores, keys = (
            c.filter(kept) for c in (queries, docs, rank, scores, keys))
    run_rows, grades, qrels_rows = _matches(
        queries, docs, keys, qrels, n, compare_queries=not block.distinct_query_hashes
    )
    graded = _blank(rank.len(), qrels.schema[rel]).scatter(run_rows, grades).alias(rel)
    if positive_only:
        # A query's first row has rank 1 (the depth cut keeps it).
        kept = (graded > 0).fill_null(False) | (rank == 1)
        found = pl.repeat(False, qrels.height, eager=True).scatter(qrels_rows, True)
        table = pl.concat([
            pl.DataFrame([c.filter(kept) for c in (queries, rank, graded)]),
            _positive_unretrieved(unretrieved.filter(found.not_()), n),
        ]).sort(query, maintain_order=True)
        return _Judged(table, qrels_rows + block.qrels_offset, repeated, qrels_repeated)
    columns = [queries, docs, rank, graded, scores]
    if tied:
        columns += _tie_groups(rank, scores)
    table = pl.DataFrame(columns)
    return _Judged(table, qrels_rows + block.qrels_offset, repeated, qrels_repeated)


def _one_chunk(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with every column in one chunk (copied only if it is not)."""
    return frame if max(frame.n_chunks("all"), default=1) == 1 else frame.rechunk()


def _blank(height: int, dtype: pl.DataType) -> pl.Series:
    """A fresh all-NULL column (``scatter`` fills it in place)."""
    return pl.repeat(None, height, dtype=dtype, eager=True)


def _positions(lengths: pl.Series) -> pl.Series:
    """1, 2, ..., len for each query length: the rank of each row of a grouped block."""
    return pl.select(pl.int_ranges(1, lengths + 1, dtype=pl.Int64).explode()).to_series().alias(
        "rank"
    )


def _as_text(values: pl.Series) -> pl.Series:
    return values if values.dtype == pl.String else values.cast(pl.String)


def _in_rank_order(rows: pl.DataFrame, rank: pl.Series, n: Names) -> bool:
    """True if each query's rows (``rank`` 1, 2, ...) are sorted by score descending, then
    doc (as text) descending: every row after a query's first is below the row before it.
    Compared as slices of the columns, so no shifted copy of a column is made."""
    m = rows.height
    if m < 2:
        return True
    s, d = rows.get_column(n.score), _as_text(rows.get_column(n.doc))
    this, before = slice(1, m), slice(0, m - 1)

    def part(x: pl.Series, span: slice) -> pl.Series:
        return x.slice(span.start, span.stop - span.start)

    first = part(rank, this) == 1
    lower = part(s, this) < part(s, before)
    tied_lower_doc = (part(s, this) == part(s, before)) & (part(d, this) < part(d, before))
    return bool((first | lower | tied_lower_doc).all())


def _repeated_within_queries(queries: pl.Series, keys: pl.Series) -> bool:
    """True if a query has a pair key twice (rows grouped by query: one small hash set per
    query, which stays in cache)."""
    per_query = (
        pl.DataFrame([queries.set_sorted(), keys])
        .lazy()
        .group_by(queries.name)
        .agg(pl.col(keys.name).n_unique())
        .select(pl.col(keys.name).sum())
    )
    return bool(per_query.collect().item() != keys.len())


def _sorted_run(run: pl.DataFrame, n: Names) -> pl.DataFrame:
    """The run sorted by query, then score descending, then doc (as text) descending.
    Sorting 7M rows on a text key is slow (seconds); hashing them into queries, then
    sorting each query's rows and the queries, is about three times faster."""
    query, doc, score, _ = n
    text_doc = pl.col(doc) if run.schema[doc] == pl.String else pl.col(doc).cast(pl.String)
    others = [c for c in run.columns if c != query]
    return (
        run.group_by(query)
        .agg(pl.col(others).sort_by([pl.col(score), text_doc], descending=[True, True]))
        .sort(query)
        .explode(others)
    )


def _tie_groups(rank: pl.Series, scores: pl.Series) -> list[pl.Series]:
    """``tie_first`` and ``tie_size`` of :func:`rankframe.table.ties.annotate`, for rows in rank
    order (a tie group is a run of consecutive rows of one query with equal scores; a query
    starts at rank 1)."""
    r, s = pl.col("rank"), pl.col(scores.name)
    starts = ((r == 1) | (s != s.shift(1))).fill_null(True)
    ends = ((r.shift(-1) == 1) | (s != s.shift(-1))).fill_null(True)
    first = pl.when(starts).then(r).forward_fill()
    last = pl.when(ends).then(r).backward_fill()
    frame = pl.DataFrame([rank, scores])
    return frame.select(first.alias(TIE_FIRST), (last - first + 1).alias(TIE_SIZE)).get_columns()


def _row_numbers(name: str) -> pl.Expr:
    return pl.int_range(pl.len(), dtype=pl.get_index_type()).alias(name)


def _numbers(height: int, name: str) -> pl.Series:
    """0, 1, ..., height - 1: row numbers."""
    return pl.int_range(height, dtype=pl.get_index_type(), eager=True).alias(name)


def _matches(queries: pl.Series, docs: pl.Series, keys: pl.Series, qrels: pl.DataFrame,
             n: Names, *, compare_queries: bool) -> tuple[pl.Series, pl.Series, pl.Series]:
    """(run row, grade, qrels row) of every ranked row (given by its query, doc and pair
    key) that has a judgement. Matched keys are confirmed on the docs, and on the queries
    too unless equal keys with equal docs imply equal queries (see the module docstring)."""
    query, doc, _, rel = n
    probe = pl.DataFrame([keys, _numbers(keys.len(), _RUN_ROW)])
    build = pl.DataFrame([qrels.get_column(KEY), qrels.get_column(rel),
                          _numbers(qrels.height, _QRELS_ROW)])
    matches = build.join(probe, on=KEY, how="inner")
    run_rows, qrels_rows = matches.get_column(_RUN_ROW), matches.get_column(_QRELS_ROW)
    compared = [(queries, query), (docs, doc)] if compare_queries else [(docs, doc)]
    if not all(
        ids.gather(run_rows).equals(qrels.get_column(c).gather(qrels_rows))
        for ids, c in compared
    ):
        # A collision: join on the ids themselves.
        probe = pl.DataFrame([queries, docs, _numbers(keys.len(), _RUN_ROW)])
        build = qrels.select(query, doc, rel, _row_numbers(_QRELS_ROW))
        matches = probe.join(build, on=[query, doc], how="inner")
    return (
        matches.get_column(_RUN_ROW),
        matches.get_column(rel),
        matches.get_column(_QRELS_ROW),
    )

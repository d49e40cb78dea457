"""From a run and qrels to the judged long table (SEMANTICS.md §2).

:func:`judge` ranks every query's results by score (descending, ties broken by docid
descending as text, which is trec_eval's rule), joins the qrels with a full outer join and
returns one row per (query, document): ``rank`` NULL for judged-but-unretrieved rows,
``rel`` NULL for retrieved-but-unjudged rows. :func:`unjudged_run_queries` lists the run
queries that :func:`judge` leaves out because the qrels know nothing about them.

Id dtype policy: query and document ids must be strings (``String``, ``Categorical`` or
``Enum``, compared as strings) or integers on *both* sides. Integer ids of different widths
are widened to ``Int64``. A string id on one side and an integer on the other raises
:class:`~rankframe.errors.InputError` instead of being cast, because a cast decides
silently whether ``"007"`` and ``7`` are the same document.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal, NamedTuple, TypeVar, overload

import polars as pl

from rankframe import _validate
from rankframe.errors import InputError
from rankframe.ties import TIE_FIRST, TIE_SIZE, annotate

__all__ = ["judge", "unjudged_run_queries"]

Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)
_Kind = Literal["id", "numeric"]
Ties = Literal["docid", "average"]
_TEXT = (pl.String, pl.Categorical, pl.Enum)


@overload
def judge(
    run: pl.DataFrame,
    qrels: pl.DataFrame,
    *,
    query: str = ...,
    doc: str = ...,
    score: str = ...,
    rel: str = ...,
    depth: int | None = ...,
    ties: Ties = ...,
) -> pl.DataFrame: ...


@overload
def judge(
    run: pl.LazyFrame,
    qrels: pl.DataFrame | pl.LazyFrame,
    *,
    query: str = ...,
    doc: str = ...,
    score: str = ...,
    rel: str = ...,
    depth: int | None = ...,
    ties: Ties = ...,
) -> pl.LazyFrame: ...


@overload
def judge(
    run: pl.DataFrame,
    qrels: pl.LazyFrame,
    *,
    query: str = ...,
    doc: str = ...,
    score: str = ...,
    rel: str = ...,
    depth: int | None = ...,
    ties: Ties = ...,
) -> pl.LazyFrame: ...


def judge(
    run: pl.DataFrame | pl.LazyFrame,
    qrels: pl.DataFrame | pl.LazyFrame,
    *,
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    rel: str = "rel",
    depth: int | None = None,
    ties: Ties = "docid",
) -> pl.DataFrame | pl.LazyFrame:
    """Join a run and qrels into the judged long table.

    ``rank`` is the 1-based position after sorting each query's run rows by ``score``
    descending, ties broken by ``doc`` descending compared as text in byte order (integer
    ids are compared as their decimal strings, so document 9 ranks above document 10 on a
    tied score), exactly as trec_eval does. Any rank column of the run is ignored.

    Then a full outer join on (query, doc): run-only rows get ``rel`` NULL, qrels-only rows
    get ``rank`` NULL. Queries of the qrels with no run rows are kept (all their ranks are
    NULL, so they score 0 on every measure); queries of the run absent from the qrels are
    dropped (list them with :func:`unjudged_run_queries`).

    Parameters
    ----------
    run
        Columns ``query``, ``doc`` and ``score`` (numeric, no NULL or NaN); other columns
        are ignored.
    qrels
        Columns ``query``, ``doc`` and ``rel`` (numeric, no NULL or NaN; negative grades are
        kept and mean "pooled but unjudged").
    query, doc, score, rel
        Column names.
    depth
        Keep only the top ``depth`` ranks of each query before the join (trec_eval ``-M``);
        ``None`` keeps everything.
    ties
        ``"docid"`` (default): the table as described above. ``"average"``: the same table
        with the tie-group columns of :func:`rankframe.ties.annotate` added, ``tie_first``
        and ``tie_size`` (Int64; NULL for rows without a rank), which the tie-aware metrics
        (``rankframe.ndcg_ties`` & co.) read to report the expected value over every order
        of tied scores instead of the docid tie-break.

    Returns
    -------
    pl.DataFrame or pl.LazyFrame
        Columns ``query``, ``doc``, ``rank`` (Int64), ``rel``, ``score`` (Float64), plus
        ``tie_first``, ``tie_size`` with ``ties="average"``, sorted by query, then rank
        (NULL last), then doc. A ``LazyFrame`` if either input is one (it is not
        collected), else a ``DataFrame``.

    Raises
    ------
    InputError
        A missing column or a column of the wrong dtype (named); ids that are strings on one
        side and integers on the other; NULL ids, scores or grades; NaN scores or grades; a
        (query, doc) pair appearing twice in the run or in the qrels (the first duplicate is
        named). For a ``LazyFrame`` the schema is checked at once and the data checks run
        when the result is collected.

    Examples
    --------
    >>> import polars as pl
    >>> from rankframe.judge import judge
    >>> run = pl.DataFrame({"qid": ["q1"] * 3, "docid": ["d9", "d10", "d2"],
    ...                     "score": [1.0, 1.0, 3.0]})
    >>> qrels = pl.DataFrame({"qid": ["q1", "q1"], "docid": ["d2", "d5"], "rel": [1, 2]})
    >>> for row in judge(run, qrels).rows():
    ...     print(row)
    ('q1', 'd2', 1, 1, 3.0)
    ('q1', 'd9', 2, None, 1.0)
    ('q1', 'd10', 3, None, 1.0)
    ('q1', 'd5', None, 2, None)
    """
    fn = "judge"
    depth = _validate.cutoff(fn, depth, name="depth")
    ties = _validate.choice(fn, "ties", ties, ("docid", "average"))
    names = {"query": query, "doc": doc, "score": score, "rel": rel}
    if len(set(names.values()) | {"rank"}) != len(names) + 1:
        raise ValueError(
            f"{fn}: query, doc, score and rel must be distinct column names other than "
            f"'rank'; got {names}"
        )
    run_schema = _schema(run)
    qrels_schema = _schema(qrels)
    _require(fn, "run", run_schema, {query: "id", doc: "id", score: "numeric"})
    _require(fn, "qrels", qrels_schema, {query: "id", doc: "id", rel: "numeric"})
    query_dtype = _id_dtype(fn, query, run_schema[query], qrels_schema[query])
    doc_dtype = _id_dtype(fn, doc, run_schema[doc], qrels_schema[doc])

    run_lf = run.lazy().select(
        _cast(query, run_schema[query], query_dtype),
        _cast(doc, run_schema[doc], doc_dtype),
        # + 0.0 turns -0.0 into 0.0: the two are equal scores, and tie as such.
        (_cast(score, run_schema[score], pl.Float64()) + 0.0).alias(score),
    )
    qrels_lf = qrels.lazy().select(
        _cast(query, qrels_schema[query], query_dtype),
        _cast(doc, qrels_schema[doc], doc_dtype),
        pl.col(rel),
    )
    if isinstance(run, pl.LazyFrame) or isinstance(qrels, pl.LazyFrame):
        lazy = _judge_lazy(fn, run_lf, qrels_lf, query, doc, score, rel, depth)
        return annotate(lazy, score=score, by=query) if ties == "average" else lazy
    names_ = _Names(query, doc, score, rel)
    return _judge_eager(
        fn, run_lf.collect(), qrels_lf.collect(), names_, depth, tied=ties == "average"
    )


def _cast(name: str, dtype: pl.DataType, target: pl.DataType) -> pl.Expr:
    """``name`` cast to ``target``, or the bare column when it already has that dtype (no
    copy is made for the no-op cast)."""
    return pl.col(name) if dtype == target else pl.col(name).cast(target)


def _judge_lazy(
    fn: str,
    run_lf: pl.LazyFrame,
    qrels_lf: pl.LazyFrame,
    query: str,
    doc: str,
    score: str,
    rel: str,
    depth: int | None,
) -> pl.LazyFrame:
    """The judged table as a lazy plan; the data checks run when it is collected."""
    run_lf = _checked(run_lf, _data_check(fn, "run", query, doc, score))
    qrels_lf = _checked(qrels_lf, _data_check(fn, "qrels", query, doc, rel))
    judged_queries = qrels_lf.select(query).unique()
    ranked = _rank_by_score(run_lf.join(judged_queries, on=query, how="semi"), query, doc, score)
    if depth is not None:
        ranked = ranked.filter(pl.col("rank") <= depth)
    return (
        ranked.join(qrels_lf, on=[query, doc], how="full", coalesce=True)
        .select(query, doc, "rank", rel, score)
        .sort(query, "rank", doc, nulls_last=True)
    )


def unjudged_run_queries(run: Frame, qrels: Frame, *, query: str = "qid") -> Frame:
    """The queries of ``run`` that have no row at all in ``qrels``.

    :func:`judge` excludes them (they cannot be evaluated); report how many were dropped.

    Parameters
    ----------
    run, qrels
        Frames with a ``query`` column of the same id kind (strings or integers).
    query
        The query id column.

    Returns
    -------
    pl.DataFrame or pl.LazyFrame (the kind of ``run``)
        One column ``query``, one row per unjudged query, sorted.

    Examples
    --------
    >>> import polars as pl
    >>> from rankframe.judge import unjudged_run_queries
    >>> run = pl.DataFrame({"qid": ["1", "2", "2", "3"]})
    >>> qrels = pl.DataFrame({"qid": ["2"]})
    >>> unjudged_run_queries(run, qrels)["qid"].to_list()
    ['1', '3']
    """
    fn = "unjudged_run_queries"
    run_schema = _schema(run)
    qrels_schema = _schema(qrels)
    _require(fn, "run", run_schema, {query: "id"})
    _require(fn, "qrels", qrels_schema, {query: "id"})
    dtype = _id_dtype(fn, query, run_schema[query], qrels_schema[query])
    out = (
        run.lazy()
        .select(pl.col(query).cast(dtype))
        .unique()
        .join(qrels.lazy().select(pl.col(query).cast(dtype)), on=query, how="anti")
        .sort(query)
    )
    return out if isinstance(run, pl.LazyFrame) else out.collect()


def _rank_by_score(run: pl.LazyFrame, query: str, doc: str, score: str) -> pl.LazyFrame:
    """Add ``rank``: position by score descending, then doc descending as text (trec_eval).

    This is the one place where ties are resolved; a future ``ties="average"`` option
    (expected value over tied orderings) belongs here.
    """
    return run.sort(
        [pl.col(query), pl.col(score), pl.col(doc).cast(pl.String)],
        descending=[False, True, True],
    ).with_columns(rank=pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(query))


def _schema(frame: pl.DataFrame | pl.LazyFrame) -> pl.Schema:
    if isinstance(frame, pl.LazyFrame):
        return frame.collect_schema()
    if isinstance(frame, pl.DataFrame):
        return frame.schema
    raise TypeError(f"expected a polars DataFrame or LazyFrame, got {type(frame).__name__}")


def _require(fn: str, side: str, schema: pl.Schema, columns: Mapping[str, _Kind]) -> None:
    """Raise if a column is missing or of the wrong kind of dtype."""
    missing = [c for c in columns if c not in schema]
    if missing:
        have = ", ".join(repr(c) for c in schema.names())
        raise InputError(
            f"{fn}: the {side} has no column {', '.join(repr(c) for c in missing)}; "
            f"its columns are: {have}"
        )
    for name, kind in columns.items():
        dtype = schema[name]
        if kind == "id" and not (isinstance(dtype, _TEXT) or dtype.is_integer()):
            raise InputError(
                f"{fn}: column {name!r} of the {side} must hold string or integer ids, "
                f"got {dtype}"
            )
        if kind == "numeric" and not dtype.is_numeric():
            raise InputError(f"{fn}: column {name!r} of the {side} must be numeric, got {dtype}")


def _id_dtype(fn: str, name: str, run_dtype: pl.DataType, qrels_dtype: pl.DataType) -> pl.DataType:
    """The dtype both sides' ids are cast to (see the module's id dtype policy)."""
    run_text, qrels_text = isinstance(run_dtype, _TEXT), isinstance(qrels_dtype, _TEXT)
    if run_text and qrels_text:
        return pl.String()
    if not run_text and not qrels_text:
        return run_dtype if run_dtype == qrels_dtype else pl.Int64()
    raise InputError(
        f"{fn}: column {name!r} is {run_dtype} in the run but {qrels_dtype} in the qrels; "
        f"ids must be strings on both sides or integers on both sides "
        f"(cast one, e.g. pl.col({name!r}).cast(pl.String))"
    )


def _checked(frame: pl.LazyFrame, check: Callable[[pl.DataFrame], None]) -> pl.LazyFrame:
    """``frame`` with ``check`` run on its data when collected (raising stops the query)."""

    def run_check(data: pl.DataFrame) -> pl.DataFrame:
        check(data)
        return data

    return frame.map_batches(run_check, schema=frame.collect_schema())


def _data_check(
    fn: str, side: str, query: str, doc: str, value: str
) -> Callable[[pl.DataFrame], None]:
    """A check of one side's data: no NULL ids or values, no NaN, no duplicate pair."""

    def check(data: pl.DataFrame) -> None:
        _check_values(fn, side, data, query, doc, value)
        _raise_duplicate(fn, side, data, query, doc)

    return check


def _check_values(fn: str, side: str, data: pl.DataFrame, query: str, doc: str, value: str) -> None:
    """Raise for the first NULL id or value, then for the first NaN value."""
    for name in (query, doc, value):
        nulls = data[name].is_null()
        if nulls.any():
            row = int(nulls.arg_max() or 0)
            raise InputError(f"{fn}: column {name!r} of the {side} is NULL at row {row} (0-based)")
    if data[value].dtype.is_float():
        nans = data[value].is_nan()
        if nans.any():
            row = int(nans.arg_max() or 0)
            raise InputError(
                f"{fn}: column {value!r} of the {side} is NaN at row {row} (0-based) "
                f"(query {data[query][row]!r}, {doc} {data[doc][row]!r})"
            )


def _raise_duplicate(fn: str, side: str, data: pl.DataFrame, query: str, doc: str) -> None:
    """Raise for the first (query, doc) pair seen on an earlier row (exact, hashes strings)."""
    repeats = data.select(pl.struct(query, doc).is_first_distinct().not_()).to_series()
    if repeats.any():
        row = int(repeats.arg_max() or 0)
        qid, docid = data[query][row], data[doc][row]
        first = data.with_row_index("row").filter(pl.col(query) == qid, pl.col(doc) == docid)[
            "row"
        ][0]
        raise InputError(
            f"{fn}: duplicate ({query}, {doc}) in the {side}: query {qid!r}, document "
            f"{docid!r} at rows {first} and {row} (0-based); each pair may appear only once"
        )


# --- the eager path ------------------------------------------------------------------------
#
# Same table as _judge_lazy, built in steps that each cost one linear pass where possible:
# a 64-bit hash of (query, doc) stands in for the pair (duplicate check and join key; a
# hash collision is detected and sends that step to the exact string path), the run is
# sorted only when it is not already in rank order (TREC runs usually are), rank is the
# row index minus the index of the query's first row, and the output order comes from a
# merge of the ranked rows (already in (query, rank) order) with the sorted unretrieved
# qrels rows instead of a sort of the whole table.

_KEY = "__rankframe_key"
_ROW = "__rankframe_row"


class _Names(NamedTuple):
    query: str
    doc: str
    score: str
    rel: str


def _pair_hash(query: str, doc: str) -> pl.Expr:
    return pl.struct(query, doc).hash().alias(_KEY)


def _as_text(name: str, dtype: pl.DataType) -> pl.Expr:
    return pl.col(name) if dtype == pl.String else pl.col(name).cast(pl.String)


def _in_rank_order(frame: pl.DataFrame, n: _Names) -> bool:
    """True if rows are sorted by query, score descending, doc (as text) descending."""
    if frame.height < 2:
        return True
    q, s, d = pl.col(n.query), pl.col(n.score), _as_text(n.doc, frame.schema[n.doc])
    before = (q > q.shift(1)) | (
        (q == q.shift(1)) & ((s < s.shift(1)) | ((s == s.shift(1)) & (d < d.shift(1))))
    )
    return bool(frame.select(before.slice(1).all()).item())


def _rank_in_order(query: str) -> pl.Expr:
    """1-based position within the query, for rows already grouped by query."""
    index = pl.int_range(1, pl.len() + 1, dtype=pl.Int64)
    starts = (pl.col(query) != pl.col(query).shift(1)).fill_null(True)
    return (index - pl.when(starts).then(index).forward_fill() + 1).alias("rank")


def _tie_groups(query: str, score: str) -> list[pl.Expr]:
    """``tie_first`` and ``tie_size`` of :func:`rankframe.ties.annotate`, for rows in rank
    order (a tie group is a run of consecutive rows with equal query and score)."""
    q, s, r = pl.col(query), pl.col(score), pl.col("rank")
    starts = ((q != q.shift(1)) | (s != s.shift(1))).fill_null(True)
    ends = ((q != q.shift(-1)) | (s != s.shift(-1))).fill_null(True)
    first = pl.when(starts).then(r).forward_fill()
    last = pl.when(ends).then(r).backward_fill()
    return [first.alias(TIE_FIRST), (last - first + 1).alias(TIE_SIZE)]


def _judge_eager(
    fn: str,
    run: pl.DataFrame,
    qrels: pl.DataFrame,
    n: _Names,
    depth: int | None,
    *,
    tied: bool = False,
) -> pl.DataFrame:
    query, doc, score, rel = n
    _check_values(fn, "run", run, query, doc, score)
    run = run.with_columns(_pair_hash(query, doc))
    exact = run.get_column(_KEY).n_unique() != run.height
    if exact:
        _raise_duplicate(fn, "run", run, query, doc)  # returns on a mere hash collision
    _check_values(fn, "qrels", qrels, query, doc, rel)
    qrels = qrels.with_columns(_pair_hash(query, doc))
    if qrels.get_column(_KEY).n_unique() != qrels.height:
        _raise_duplicate(fn, "qrels", qrels, query, doc)
        exact = True

    judged_queries = qrels.get_column(query).unique()
    ranked = run.filter(pl.col(query).is_in(judged_queries.implode()))
    if not _in_rank_order(ranked, n):
        ranked = ranked.sort(
            [pl.col(query), pl.col(score), _as_text(doc, ranked.schema[doc])],
            descending=[False, True, True],
        )
    ranked = ranked.with_columns(_rank_in_order(query))
    if depth is not None:
        ranked = ranked.filter(pl.col("rank") <= depth)
    extra = [TIE_FIRST, TIE_SIZE] if tied else []
    if tied:
        ranked = ranked.with_columns(_tie_groups(query, score))

    grades = qrels.select(_KEY, rel, pl.int_range(pl.len(), dtype=pl.UInt32).alias(_ROW))
    joined = ranked.join(grades, on=_KEY, how="left", maintain_order="left")
    if not exact:
        found = joined.filter(pl.col(_ROW).is_not_null())
        rows = found.get_column(_ROW)
        exact = not (
            found.get_column(query).equals(qrels.get_column(query).gather(rows))
            and found.get_column(doc).equals(qrels.get_column(doc).gather(rows))
        )
    if exact:  # a hash collision: join on the ids themselves
        grades = qrels.select(query, doc, rel, pl.int_range(pl.len(), dtype=pl.UInt32).alias(_ROW))
        joined = ranked.join(grades, on=[query, doc], how="left", maintain_order="left")

    retrieved = pl.repeat(False, qrels.height, eager=True).scatter(
        joined.get_column(_ROW).drop_nulls(), True
    )
    unretrieved = (
        qrels.filter(retrieved.not_())
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
    retrieved_rows = joined.select(query, doc, "rank", rel, score, *extra)
    return _interleave(retrieved_rows, unretrieved, qrels, query)


def _interleave(
    retrieved: pl.DataFrame, unretrieved: pl.DataFrame, qrels: pl.DataFrame, query: str
) -> pl.DataFrame:
    """Both frames (each sorted by query) as one, every query's retrieved rows first.

    Each row gets the position of its query among the sorted judged queries (the retrieved
    rows are grouped by query, so one binary search per group suffices), and a stable sort
    on that integer code interleaves the two, far cheaper than sorting by the ids again.
    """
    code = "__rankframe_query"
    queries = qrels.get_column(query).unique().sort()
    starts = (pl.col(query) != pl.col(query).shift(1)).fill_null(True)
    groups = retrieved.filter(starts).get_column(query)
    group_codes = queries.search_sorted(groups).cast(pl.UInt32)
    retrieved_codes = group_codes.gather(retrieved.select(pl.col(query).rle_id()).to_series())
    unretrieved_codes = queries.search_sorted(unretrieved.get_column(query)).cast(pl.UInt32)
    both = pl.concat(
        [
            retrieved.with_columns(retrieved_codes.alias(code)),
            unretrieved.with_columns(unretrieved_codes.alias(code)),
        ]
    )
    return both.sort(code, maintain_order=True).drop(code)

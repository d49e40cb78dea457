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
from typing import Literal, TypeVar, overload

import polars as pl

from rankframe import _validate
from rankframe.errors import InputError

__all__ = ["judge", "unjudged_run_queries"]

Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)
_Kind = Literal["id", "numeric"]
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

    Returns
    -------
    pl.DataFrame or pl.LazyFrame
        Columns ``query``, ``doc``, ``rank`` (Int64), ``rel``, ``score`` (Float64), sorted by
        query, then rank (NULL last), then doc. A ``LazyFrame`` if either input is one (it is
        not collected), else a ``DataFrame``.

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
        pl.col(query).cast(query_dtype),
        pl.col(doc).cast(doc_dtype),
        # + 0.0 turns -0.0 into 0.0: the two are equal scores, and tie as such.
        (pl.col(score).cast(pl.Float64) + 0.0).alias(score),
    )
    qrels_lf = qrels.lazy().select(
        pl.col(query).cast(query_dtype), pl.col(doc).cast(doc_dtype), pl.col(rel)
    )
    run_lf = _checked(run_lf, _data_check(fn, "run", query, doc, score))
    qrels_lf = _checked(qrels_lf, _data_check(fn, "qrels", query, doc, rel))

    judged_queries = qrels_lf.select(query).unique()
    ranked = _rank_by_score(run_lf.join(judged_queries, on=query, how="semi"), query, doc, score)
    if depth is not None:
        ranked = ranked.filter(pl.col("rank") <= depth)
    judged = (
        ranked.join(qrels_lf, on=[query, doc], how="full", coalesce=True)
        .select(query, doc, "rank", rel, score)
        .sort(query, "rank", doc, nulls_last=True)
    )
    if isinstance(run, pl.LazyFrame) or isinstance(qrels, pl.LazyFrame):
        return judged
    return judged.collect()


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
        for name in (query, doc, value):
            nulls = data[name].is_null()
            if nulls.any():
                row = int(nulls.arg_max() or 0)
                raise InputError(
                    f"{fn}: column {name!r} of the {side} is NULL at row {row} (0-based)"
                )
        if data[value].dtype.is_float():
            nans = data[value].is_nan()
            if nans.any():
                row = int(nans.arg_max() or 0)
                raise InputError(
                    f"{fn}: column {value!r} of the {side} is NaN at row {row} (0-based) "
                    f"(query {data[query][row]!r}, {doc} {data[doc][row]!r})"
                )
        repeats = data.select(pl.struct(query, doc).is_first_distinct().not_()).to_series()
        if repeats.any():
            row = int(repeats.arg_max() or 0)
            qid, docid = data[query][row], data[doc][row]
            first = data.with_row_index("row").filter(
                pl.col(query) == qid, pl.col(doc) == docid
            )["row"][0]
            raise InputError(
                f"{fn}: duplicate ({query}, {doc}) in the {side}: query {qid!r}, document "
                f"{docid!r} at rows {first} and {row} (0-based); each pair may appear only once"
            )

    return check

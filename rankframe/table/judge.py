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

from typing import Literal, TypeVar, overload

import polars as pl

from rankframe import validation
from rankframe.table.blocks import Names, judge_eager
from rankframe.table.inputs import checked, data_check, id_dtype, require, schema_of
from rankframe.table.ties import annotate

__all__ = ["judge", "unjudged_run_queries"]

Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)
Ties = Literal["docid", "average"]


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
        with the tie-group columns of :func:`rankframe.table.ties.annotate` added, ``tie_first``
        and ``tie_size`` (Int64; NULL for rows without a rank), which the tie-aware metrics
        (``rankframe.ndcg_ties`` & co.) read to report the expected value over every order
        of tied scores instead of the docid tie-break.

    Returns
    -------
    pl.DataFrame or pl.LazyFrame
        Columns ``query``, ``doc``, ``rank`` (Int64), ``rel``, ``score`` (Float64), plus
        ``tie_first``, ``tie_size`` with ``ties="average"``. Row order: the retrieved rows
        by query, then rank; after them the judged-but-unretrieved rows by query, then doc
        (so each query's rows, filtered out, read best rank first, unretrieved last). A
        ``LazyFrame`` if either input is one (it is not collected), else a ``DataFrame``.

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
    >>> from rankframe.table.judge import judge
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
    depth = validation.cutoff(fn, depth, name="depth")
    ties = validation.choice(fn, "ties", ties, ("docid", "average"))
    names = Names(query, doc, score, rel)
    run_columns, qrels_columns = prepared_columns(fn, run, qrels, names)
    if isinstance(run, pl.LazyFrame) or isinstance(qrels, pl.LazyFrame):
        run_lf, qrels_lf = run.lazy().select(run_columns), qrels.lazy().select(qrels_columns)
        lazy = _judge_lazy(fn, run_lf, qrels_lf, query, doc, score, rel, depth)
        return annotate(lazy, score=score, by=query) if ties == "average" else lazy
    # Eager selects keep the input's chunks (a lazy one would cut them into small morsels).
    return judge_eager(
        fn, run.select(run_columns), qrels.select(qrels_columns), names, depth,
        tied=ties == "average",
    )


def prepared_columns(fn: str, run: pl.DataFrame | pl.LazyFrame,
                     qrels: pl.DataFrame | pl.LazyFrame, names: Names
                     ) -> tuple[list[pl.Expr], list[pl.Expr]]:
    """The columns :func:`judge` reads from each side, cast to the common id dtypes (see the
    module's id dtype policy), after checking names, columns and dtypes."""
    query, doc, score, rel = names
    if len(set(names) | {"rank"}) != len(names) + 1:
        raise ValueError(
            f"{fn}: query, doc, score and rel must be distinct column names other than "
            f"'rank'; got {names._asdict()}"
        )
    run_schema = schema_of(run)
    qrels_schema = schema_of(qrels)
    require(fn, "run", run_schema, {query: "id", doc: "id", score: "numeric"})
    require(fn, "qrels", qrels_schema, {query: "id", doc: "id", rel: "numeric"})
    query_dtype = id_dtype(fn, query, run_schema[query], qrels_schema[query])
    doc_dtype = id_dtype(fn, doc, run_schema[doc], qrels_schema[doc])
    run_columns = [
        _cast(query, run_schema[query], query_dtype),
        _cast(doc, run_schema[doc], doc_dtype),
        # + 0.0 turns -0.0 into 0.0: the two are equal scores, and tie as such.
        (_cast(score, run_schema[score], pl.Float64()) + 0.0).alias(score),
    ]
    qrels_columns = [
        _cast(query, qrels_schema[query], query_dtype),
        _cast(doc, qrels_schema[doc], doc_dtype),
        pl.col(rel),
    ]
    return run_columns, qrels_columns


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
    run_lf = checked(run_lf, data_check(fn, "run", query, doc, score))
    qrels_lf = checked(qrels_lf, data_check(fn, "qrels", query, doc, rel))
    judged_queries = qrels_lf.select(query).unique()
    ranked = _rank_by_score(run_lf.join(judged_queries, on=query, how="semi"), query, doc, score)
    if depth is not None:
        ranked = ranked.filter(pl.col("rank") <= depth)
    # The ranked run with its grades, then the qrels rows it did not retrieve: the full
    # outer join in judge's row order, without sorting the joined table.
    retrieved = ranked.join(qrels_lf, on=[query, doc], how="left", maintain_order="left")
    unretrieved = (
        qrels_lf.join(ranked.select(query, doc), on=[query, doc], how="anti")
        .sort(query, doc)
        .with_columns(pl.lit(None, pl.Int64).alias("rank"), pl.lit(None, pl.Float64).alias(score))
    )
    columns = [query, doc, "rank", rel, score]
    return pl.concat([retrieved.select(columns), unretrieved.select(columns)])


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
    >>> from rankframe.table.judge import unjudged_run_queries
    >>> run = pl.DataFrame({"qid": ["1", "2", "2", "3"]})
    >>> qrels = pl.DataFrame({"qid": ["2"]})
    >>> unjudged_run_queries(run, qrels)["qid"].to_list()
    ['1', '3']
    """
    fn = "unjudged_run_queries"
    run_schema = schema_of(run)
    qrels_schema = schema_of(qrels)
    require(fn, "run", run_schema, {query: "id"})
    require(fn, "qrels", qrels_schema, {query: "id"})
    dtype = id_dtype(fn, query, run_schema[query], qrels_schema[query])
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
    Rows come out grouped by query, queries ascending. Each query's rows are sorted on their
    own (the queries found by hashing): much faster than sorting the whole run on a text
    key."""
    others = [c for c in run.collect_schema().names() if c != query]
    order = [pl.col(score), pl.col(doc).cast(pl.String)]
    return (
        run.group_by(query)
        .agg(
            pl.col(others).sort_by(order, descending=[True, True]),
            pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias("rank"),
        )
        .sort(query)
        .explode([*others, "rank"])
    )


def judge_positive_rows(fn: str, run: pl.DataFrame, qrels: pl.DataFrame, *, query: str,
                        doc: str, score: str, rel: str, depth: int | None) -> pl.DataFrame:
    """What measures reading only the rows with a grade > 0 need of ``judge(run, qrels)``:
    columns (query, rank, rel), the rows with rel > 0 and the first row of each query,
    sorted by query (flagged sorted); the same checks and errors as :func:`judge`."""
    depth = validation.cutoff(fn, depth, name="depth")
    names = Names(query, doc, score, rel)
    run_columns, qrels_columns = prepared_columns(fn, run, qrels, names)
    rows = judge_eager(fn, run.select(run_columns), qrels.select(qrels_columns), names, depth,
                       positive_only=True)
    return rows.with_columns(pl.col(query).set_sorted())


def positive_rows(judged: pl.DataFrame | pl.LazyFrame, keys: list[str], rel: str,
                   new_key: pl.Series | None) -> pl.DataFrame | pl.LazyFrame:
    """The rows with rel > 0, plus the first row of each block of equal query keys (so that
    every query keeps a row and a value): all that measures reading only positive rows need.
    In a judged run most rows are unjudged or non-relevant, so this is usually a small
    fraction of the table, in the same order. ``new_key`` marks the block starts when the
    check has found them already."""
    if new_key is None:
        starts = pl.any_horizontal(pl.col(k).ne_missing(pl.col(k).shift(1)) for k in keys)
        block_start = starts.fill_null(True)
    else:
        block_start = pl.lit(new_key)
    return judged.filter((pl.col(rel) > 0).fill_null(False) | block_start)

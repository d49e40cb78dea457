"""From a run and qrels to the judged long table
(docs/semantics.md#from-a-run-and-qrels-to-the-judged-table).

:func:`judge` ranks every query's results by score (descending, ties broken by docid
descending as text, which is trec_eval's rule), joins the qrels with a full outer join and
returns one row per (query, document): ``rank`` NULL for judged-but-unretrieved rows,
``rel`` NULL for retrieved-but-unjudged rows. :func:`unjudged_run_queries` lists the run
queries that :func:`judge` leaves out because the qrels know nothing about them.

Id dtype policy: query and document ids must be strings (``String``, ``Categorical`` or
``Enum``, compared as strings) or integers on *both* sides. Integer ids of different dtypes
are widened to ``Int64`` (``UInt64`` if both are unsigned, ``Int128`` for ``UInt64`` beside a
signed one, so that no id changes). A string id on one side and an integer on the other raises
:class:`~rankframe.errors.InputError` instead of being cast, because a cast decides
silently whether ``"007"`` and ``7`` are the same document.
"""

from __future__ import annotations

from typing import Literal, overload

import polars as pl

from rankframe import validation
from rankframe.frames import Eager, graded_qrels, run_and_qrels
from rankframe.table.blocks import judge_frames, positive_rows
from rankframe.table.inputs import (
    Names,
    id_dtype,
    prepared_columns,
    require,
    schema_of,
)
from rankframe.table.ties import TIE_FIRST, TIE_SIZE

__all__ = ["judge", "judge_positive_rows", "positive_rows", "unjudged_run_queries"]

Ties = Literal["docid", "average"]


@overload
def judge(run: pl.LazyFrame, qrels: Eager | pl.LazyFrame, *, query: str = ..., doc: str = ...,
          score: str = ..., rel: str | None = ..., depth: int | None = ..., ties: Ties = ...,
          judged_only: bool = ...) -> pl.LazyFrame: ...


@overload
def judge(run: Eager, qrels: pl.LazyFrame, *, query: str = ..., doc: str = ...,
          score: str = ..., rel: str | None = ..., depth: int | None = ..., ties: Ties = ...,
          judged_only: bool = ...) -> pl.LazyFrame: ...


@overload
def judge(run: Eager, qrels: Eager, *, query: str = ..., doc: str = ...,
          score: str = ..., rel: str | None = ..., depth: int | None = ..., ties: Ties = ...,
          judged_only: bool = ...) -> pl.DataFrame: ...


def judge(
    run: Eager | pl.LazyFrame,
    qrels: Eager | pl.LazyFrame,
    *,
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    rel: str | None = "rel",
    depth: int | None = None,
    ties: Ties = "docid",
    judged_only: bool = False,
) -> pl.DataFrame | pl.LazyFrame:
    """Join a run and qrels into the judged long table.

    ``rank`` is the 1-based position after sorting each query's run rows by ``score``
    descending (compared exactly in its own type: integers are never cast to floats), ties
    broken by ``doc`` descending compared as text in byte order (integer ids are compared as
    their decimal strings, so document 9 ranks above document 10 on a tied score), exactly
    as trec_eval does. Any rank column of the run is ignored.

    Then a full outer join on (query, doc): run-only rows get ``rel`` NULL, qrels-only rows
    get ``rank`` NULL. Queries of the qrels with no run rows are kept (all their ranks are
    NULL, so they score 0 on every measure); queries of the run absent from the qrels are
    dropped (list them with :func:`unjudged_run_queries`).

    Parameters
    ----------
    run
        Columns ``query``, ``doc`` and ``score`` (numeric, no NULL or NaN); other columns
        are ignored. A Polars DataFrame or LazyFrame, a pandas DataFrame or a pyarrow
        Table (converted to Polars).
    qrels
        Columns ``query``, ``doc`` and ``rel`` (numeric, no NULL or NaN; negative grades are
        kept and mean "pooled but unjudged"); the same kinds of table as ``run``.
    query, doc, score
        Column names.
    rel
        The qrels' grade column; ``None`` for qrels without grades (implicit feedback:
        every listed pair is relevant), which then get a column ``rel`` of 1s.
    depth
        Keep only the top ``depth`` ranks of each query before the join (trec_eval ``-M``);
        ``None`` keeps everything.
    ties
        ``"docid"`` (default): the table as described above. ``"average"``: the same table
        with the tie-group columns of :func:`rankframe.table.ties.annotate` added, ``tie_first``
        and ``tie_size`` (Int64; NULL for rows without a rank), which the tie-aware metrics
        (``rankframe.ndcg_ties`` & co.) read to report the expected value over every order
        of tied scores instead of the docid tie-break.
    judged_only
        trec_eval ``-J``: after the depth cut, each query's ranking keeps only the
        documents judged with a grade >= 0, ranked 1, 2, ... in the same order (a query
        may keep none); retrieved documents without qrels are dropped, and those with a
        negative grade become judged-but-unretrieved rows (rank NULL). Default False.

    Returns
    -------
    pl.DataFrame or pl.LazyFrame
        Columns ``query``, ``doc``, ``rank`` (Int64), ``rel``, ``score`` (Float64 for float
        scores; integer and decimal scores keep their dtype), plus
        ``tie_first``, ``tie_size`` with ``ties="average"``. Row order: the retrieved rows
        by query, then rank; after them the judged-but-unretrieved rows by query, then doc
        (so each query's rows, filtered out, read best rank first, unretrieved last). A
        ``LazyFrame`` if either input is one (it is not collected; when it is, both inputs
        are collected and judged as DataFrames are), else a ``DataFrame``.

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
    run, qrels = run_and_qrels(fn, run, qrels, query=query, doc=doc, score=score, rel=rel)
    qrels, rel = graded_qrels(fn, qrels, rel)
    depth = validation.cutoff(fn, depth, name="depth")
    ties = validation.choice(fn, "ties", ties, ("docid", "average"))
    judged_only = validation.check(fn, "judged_only", "flag", judged_only)
    names = Names(query, doc, score, rel)
    run_columns, qrels_columns = prepared_columns(fn, run, qrels, names)
    tied = ties == "average"
    if isinstance(run, pl.DataFrame) and isinstance(qrels, pl.DataFrame):
        # Eager selects keep the input's chunks (a lazy one would cut them into small morsels).
        return judge_frames(fn, run.select(run_columns), qrels.select(qrels_columns), names,
                            depth, tied=tied, judged_only=judged_only)
    run_lf, qrels_lf = run.lazy().select(run_columns), qrels.lazy().select(qrels_columns)

    def judged() -> pl.DataFrame:
        run_df, qrels_df = pl.collect_all([run_lf, qrels_lf])
        return judge_frames(fn, run_df, qrels_df, names, depth, tied=tied,
                            judged_only=judged_only)

    ids, grades = run_lf.collect_schema(), qrels_lf.collect_schema()
    schema = pl.Schema([(query, ids[query]), (doc, ids[doc]), ("rank", pl.Int64()),
                        (rel, grades[rel]), (score, ids[score])])
    if tied:
        schema.update({TIE_FIRST: pl.Int64(), TIE_SIZE: pl.Int64()})
    return pl.defer(judged, schema=schema)


@overload
def unjudged_run_queries(run: pl.LazyFrame, qrels: Eager | pl.LazyFrame, *,
                         query: str = ...) -> pl.LazyFrame: ...


@overload
def unjudged_run_queries(run: Eager, qrels: Eager | pl.LazyFrame, *,
                         query: str = ...) -> pl.DataFrame: ...


def unjudged_run_queries(run: Eager | pl.LazyFrame, qrels: Eager | pl.LazyFrame, *,
                         query: str = "qid") -> pl.DataFrame | pl.LazyFrame:
    """The queries of ``run`` that have no row at all in ``qrels``.

    :func:`judge` excludes them (they cannot be evaluated); report how many were dropped.

    Parameters
    ----------
    run, qrels
        Frames with a ``query`` column of the same id kind (strings or integers): Polars,
        pandas or pyarrow.
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
    run, qrels = run_and_qrels(fn, run, qrels, query=query)
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


def judge_positive_rows(fn: str, run: pl.DataFrame, qrels: pl.DataFrame, *, query: str,
                        doc: str, score: str, rel: str, depth: int | None,
                        judged_only: bool = False) -> pl.DataFrame:
    """What measures reading only the rows with a grade > 0 need of ``judge(run, qrels)``:
    columns (query, rank, rel), the rows with rel > 0 and the first row of each query,
    sorted by query (flagged sorted); the same checks and errors as :func:`judge`."""
    depth = validation.cutoff(fn, depth, name="depth")
    names = Names(query, doc, score, rel)
    run_columns, qrels_columns = prepared_columns(fn, run, qrels, names)
    rows = judge_frames(fn, run.select(run_columns), qrels.select(qrels_columns), names, depth,
                        positive_only=True, judged_only=judged_only)
    return rows.with_columns(pl.col(query).set_sorted())

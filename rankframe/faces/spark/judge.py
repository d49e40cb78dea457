"""The Spark face's judge: a run and qrels (Spark DataFrames) to the judged long table
(docs/semantics.md#from-a-run-and-qrels-to-the-judged-table), its inputs checked at once."""

from __future__ import annotations

from collections.abc import Mapping

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from rankframe import validation
from rankframe.errors import InputError
from rankframe.faces.base import Ties
from rankframe.frames import IMPLICIT_GRADE
from rankframe.table import input_checks
from rankframe.table.input_checks import NAMED_PROBLEMS, TypeClass, TypeReader
from rankframe.table.ties import TIE_FIRST, TIE_SIZE

_INTEGRAL = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)


def _classify(dtype: T.DataType) -> TypeClass:
    if isinstance(dtype, T.StringType):
        return "text"
    if isinstance(dtype, _INTEGRAL):
        return "integer"
    return "numeric" if isinstance(dtype, T.NumericType) else "other"


#: How the input checks read a Spark column type.
SPARK_TYPES: TypeReader[T.DataType] = TypeReader(
    classify=_classify, show=lambda dtype: dtype.simpleString(),
    cast_hint=lambda name: f"cast one, e.g. F.col({name!r}).cast('string')")


def _schema(frame: DataFrame) -> dict[str, T.DataType]:
    return {f.name: f.dataType for f in frame.schema.fields}


def _id_type(fn: str, name: str, run: DataFrame, qrels: DataFrame) -> T.DataType:
    """The type both sides' ids are cast to: strings, or integers widened to long."""
    run_type, qrels_type = run.schema[name].dataType, qrels.schema[name].dataType
    if input_checks.id_class(fn, name, run_type, qrels_type, SPARK_TYPES) == "text":
        return T.StringType()
    return run_type if run_type == qrels_type else T.LongType()


def _graded(fn: str, qrels: DataFrame, rel: str | None) -> tuple[DataFrame, str]:
    """The qrels and their grade column: ``rel=None`` adds ``rel``, 1 for every pair (the
    Polars judge's rule and messages, :func:`rankframe.frames.graded_qrels`)."""
    if rel is not None:
        return qrels, rel
    if IMPLICIT_GRADE in qrels.columns:
        raise InputError(
            f"{fn}: rel=None gives every qrels pair the grade 1 in a new column "
            f"{IMPLICIT_GRADE!r}, but the qrels already has one; pass rel="
            f"{IMPLICIT_GRADE!r} to use its grades, or drop it")
    return qrels.withColumn(IMPLICIT_GRADE, F.lit(1).cast("long")), IMPLICIT_GRADE


def judge(
    run: DataFrame,
    qrels: DataFrame,
    *,
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    rel: str | None = "rel",
    depth: int | None = None,
    ties: Ties = "docid",
    judged_only: bool = False,
) -> DataFrame:
    """Join a run and qrels (Spark DataFrames) into the judged long table.

    ``rank`` is the 1-based position after sorting each query's run rows by ``score``
    descending, ties broken by ``doc`` descending compared as text in byte order (integer
    ids compare as their decimal strings, so document 9 ranks above document 10 on a tied
    score): trec_eval's rule. Any rank column of the run is ignored. ``-0.0`` and ``0.0``
    are the same score.

    Then a full outer join on (query, doc): run-only rows get ``rel`` NULL, qrels-only rows
    get ``rank`` NULL. Queries of the qrels with no run rows are kept (all their ranks are
    NULL, so they score 0 on every measure); queries of the run absent from the qrels are
    dropped (list them with :func:`unjudged_run_queries`).

    The inputs are validated eagerly, in one Spark job; the judged table itself is
    returned lazily, unsorted (sort it if row order matters, e.g. for display).

    Parameters
    ----------
    run
        Columns ``query``, ``doc`` and ``score`` (numeric, no NULL or NaN); other columns
        are ignored.
    qrels
        Columns ``query``, ``doc`` and ``rel`` (numeric, no NULL or NaN; negative grades
        are kept and mean "pooled but unjudged").
    query, doc, score, rel
        Column names. ``rel=None``: qrels without grades (implicit feedback: held-out
        interactions, clicks), each listed pair relevant with grade 1 in a new column
        ``rel``, as for :func:`rankframe.judge`.
    depth
        Keep only the top ``depth`` ranks of each query before the join (trec_eval
        ``-M``); ``None`` keeps everything.
    ties
        ``"docid"`` (default), or ``"average"`` to add the tie groups the tie-aware metrics
        read (:func:`precision_ties` & co.): ``tie_first``, the smallest rank of the
        retrieved rows of the query with an equal score (after the depth cut), and
        ``tie_size``, their number (LongType; NULL for rows without a rank).
    judged_only
        trec_eval ``-J``: after the depth cut, only the documents graded >= 0 keep a rank,
        1, 2, ... in the same order (as :func:`rankframe.judge`).

    Returns
    -------
    DataFrame
        Columns ``query``, ``doc``, ``rank`` (LongType), ``rel``, ``score`` (DoubleType),
        and ``tie_first``, ``tie_size`` with ``ties="average"``.

    Raises
    ------
    InputError
        A missing column or one of the wrong type (named); ids that are strings on one
        side and integers on the other; NULL ids, scores or grades; NaN scores or grades;
        a (query, doc) pair appearing twice in the run or in the qrels (the first such
        pairs in (query, doc) order are named).

    Examples
    --------
    >>> judged = judge(run_df, qrels_df, depth=1000)  # doctest: +SKIP
    >>> judged.groupBy("qid").agg(ndcg("rel", k=10), average_precision("rel"))  # doctest: +SKIP
    """
    fn = "judge"
    qrels, rel = _graded(fn, qrels, rel)
    depth = validation.cutoff(fn, depth, name="depth")
    ties = validation.choice(fn, "ties", ties, ("docid", "average"))
    judged_only = validation.check(fn, "judged_only", "flag", judged_only)
    input_checks.distinct_names(fn, {"query": query, "doc": doc, "score": score, "rel": rel})
    input_checks.require(fn, "run", _schema(run), {query: "id", doc: "id", score: "numeric"},
                         SPARK_TYPES)
    input_checks.require(fn, "qrels", _schema(qrels), {query: "id", doc: "id", rel: "numeric"},
                         SPARK_TYPES)
    query_type = _id_type(fn, query, run, qrels)
    doc_type = _id_type(fn, doc, run, qrels)

    run_c = run.select(
        F.col(query).cast(query_type).alias(query),
        F.col(doc).cast(doc_type).alias(doc),
        # + 0.0 turns -0.0 into 0.0: the two are equal scores, and tie as such.
        (F.col(score).cast("double") + F.lit(0.0)).alias(score),
    )
    qrels_c = qrels.select(
        F.col(query).cast(query_type).alias(query),
        F.col(doc).cast(doc_type).alias(doc),
        F.col(rel),
    )
    _check_data(fn, {"run": (run_c, score), "qrels": (qrels_c, rel)}, query, doc)

    judged_queries = qrels_c.select(query).distinct()
    candidates = run_c.join(judged_queries, on=query, how="left_semi")
    # Byte order of the id as text: UTF-8 bytes compare unsigned, whatever the collation.
    as_bytes = F.col(doc).cast("string").cast("binary")
    order = Window.partitionBy(query).orderBy(F.col(score).desc(), as_bytes.desc())
    ranked = candidates.withColumn("rank", F.row_number().over(order).cast("long"))
    if depth is not None:
        ranked = ranked.where(F.col("rank") <= F.lit(depth))
    if judged_only:  # -J: the documents graded >= 0 only, ranked again in order
        graded = qrels_c.where(F.col(rel) >= 0).select(query, doc)
        ranked = ranked.join(graded, on=[query, doc], how="left_semi").withColumn(
            "rank", F.row_number().over(Window.partitionBy(query).orderBy("rank")).cast("long"))
    tie_columns: list[str] = []
    if ties == "average":  # the scores are never NULL or NaN here, and -0.0 is 0.0
        group = Window.partitionBy(query, score)
        ranked = ranked.withColumns({
            TIE_FIRST: F.min("rank").over(group),
            TIE_SIZE: F.count(F.lit(1)).over(group).cast("long"),
        })
        tie_columns = [TIE_FIRST, TIE_SIZE]
    joined = ranked.join(qrels_c, on=[query, doc], how="full")
    return joined.select(query, doc, "rank", rel, score, *tie_columns)


def unjudged_run_queries(run: DataFrame, qrels: DataFrame, *, query: str = "qid") -> DataFrame:
    """The queries of ``run`` that have no row at all in ``qrels``, sorted.

    :func:`judge` excludes them (they cannot be evaluated); report how many were dropped,
    e.g. ``unjudged_run_queries(run, qrels).count()``.

    Parameters
    ----------
    run, qrels
        DataFrames with a ``query`` column of the same id kind (strings or integers).
    query
        The query id column.

    Returns
    -------
    DataFrame
        One column ``query``, one row per unjudged query.
    """
    fn = "unjudged_run_queries"
    input_checks.require(fn, "run", _schema(run), {query: "id"}, SPARK_TYPES)
    input_checks.require(fn, "qrels", _schema(qrels), {query: "id"}, SPARK_TYPES)
    id_type = _id_type(fn, query, run, qrels)
    run_queries = run.select(F.col(query).cast(id_type).alias(query)).distinct()
    known = qrels.select(F.col(query).cast(id_type).alias(query)).distinct()
    return run_queries.join(known, on=query, how="left_anti").orderBy(query)


def _check_data(
    fn: str, sides: Mapping[str, tuple[DataFrame, str]], query: str, doc: str
) -> None:
    """Raise InputError for NULL ids, NULL or NaN values, or a repeated (query, doc) pair.

    One Spark job: each side is grouped by (query, doc), the offending groups of both
    sides are unioned, and the first few in a fixed order (run before qrels, NULL ids,
    then bad values, then duplicates; each by query and doc) are fetched.
    """
    problems: DataFrame | None = None
    for side, (frame, value) in sides.items():
        value_c = F.col(value)
        grouped = frame.groupBy(query, doc).agg(
            F.count(F.lit(1)).alias("rows"),
            F.count_if(value_c.isNull()).alias("nulls"),
            F.count_if(F.isnan(value_c.cast("double"))).alias("nans"),
        )
        null_id = F.col(query).isNull() | F.col(doc).isNull()
        bad_value = (F.col("nulls") > 0) | (F.col("nans") > 0)
        kind = (
            F.when(null_id, F.lit(0)).when(bad_value, F.lit(1)).when(F.col("rows") > 1, F.lit(2))
        )
        found = grouped.select(
            F.lit(side).alias("side"),
            F.lit(value).alias("value"),
            kind.alias("kind"),
            F.col(query).cast("string").alias("query"),
            F.col(doc).cast("string").alias("doc"),
            "rows",
            "nulls",
        ).where(F.col("kind").isNotNull())
        problems = found if problems is None else problems.unionByName(found)
    if problems is None:
        return
    rows = (
        problems.orderBy(
            F.col("side").desc(), "kind", F.col("query").asc_nulls_first(),
            F.col("doc").asc_nulls_first(),
        )
        .limit(NAMED_PROBLEMS)
        .collect()
    )
    if rows:
        first = rows[0]
        same_side = [r.asDict() for r in rows if r["side"] == first["side"]]
        raise InputError(input_checks.problem_message(fn, first["side"], first["value"], query,
                                                      doc, same_side))

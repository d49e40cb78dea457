"""The Spark face object (``FACE``), what it does not compute, and ``evaluate`` over measure
strings: every measure one aggregate column of one ``groupBy``."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from rankframe.errors import InputError
from rankframe.faces.base import (
    Face,
    JudgeOptions,
    Role,
    Ties,
    exact_metrics,
    parse_for,
    signed_integers,
)
from rankframe.faces.spark import (
    catalog,
    correlation,
    counts,
    diversity,
    fairness,
    gains,
    popularity_bias,
    ranked,
    tied,
    trec,
    user,
)
from rankframe.faces.spark.judge import judge
from rankframe.faces.spark_gaps import (
    JUDGE_TIES,
    SUPPORTED_METRICS,
    UNSUPPORTED,
    UNSUPPORTED_FAMILIES,
)
from rankframe.measures import Measure
from rankframe.registry import METRICS, Metric
from rankframe.validation import MAX_GRADE

#: The Spark builder of every metric it computes, by name (from its family module).
BUILDERS: dict[str, Callable[..., Column]] = {
    name: getattr(module, name)
    for module in (counts, ranked, gains, tied, trec, user, correlation, catalog,
                   popularity_bias, diversity, fairness)
    for name in METRICS if hasattr(module, name)
}

__all__ = ["BUILDERS", "FACE", "SUPPORTED_METRICS", "UNSUPPORTED", "UNSUPPORTED_FAMILIES",
           "SparkFace", "column", "evaluate"]


def column(metric: Metric, columns: Mapping[str, str], values: Mapping[str, Any]) -> Column:
    """The metric's aggregate column for these column names and parameter values."""
    args, kwargs = metric.arguments(columns, values)
    return BUILDERS[metric.name](*args, **kwargs)


def evaluate(
    judged: DataFrame,
    measures: str | Sequence[str],
    *,
    query: str | Sequence[str] = "qid",
    rel: str = "rel",
    rank: str = "rank",
    threshold: float = 1,
) -> DataFrame:
    """Per-query values of measure strings (``"ndcg@10"``, ``"map"``, ``"P_10"`` ...) over a
    judged Spark DataFrame, in one aggregation: one row per query, one column per measure
    (named as written), sorted by the query columns. Nothing is collected.

    Examples
    --------
    >>> per_query = evaluate(judged_df, ["ndcg@10", "map", "P@10"])  # doctest: +SKIP
    """
    keys = [query] if isinstance(query, str) else list(query)
    parsed = parse_for(FACE, measures, keys, threshold)
    result: DataFrame = FACE.evaluate(judged, parsed, keys, {"rel": rel, "rank": rank})
    return result


_TO_SPARK = {pl.String: "string", pl.Int64: "long", pl.Int32: "int", pl.Int16: "short",
             pl.Int8: "byte", pl.Float64: "double", pl.Float32: "float",
             pl.Boolean: "boolean", pl.Enum: "string",
             pl.Categorical: "string", pl.List: "array<double>"}


_TO_POLARS = {T.StringType: pl.String, T.LongType: pl.Int64, T.IntegerType: pl.Int32,
              T.ShortType: pl.Int16, T.ByteType: pl.Int8, T.DoubleType: pl.Float64,
              T.FloatType: pl.Float32, T.BooleanType: pl.Boolean}


def _grades_fit(measure: Measure, columns: Mapping[str, str], value: Column) -> Column:
    """``value``, NULL for a group with a grade above 960 when the measure's gain is
    exponential (2^rel - 1 would overflow its sums; docs/semantics.md#input-checks)."""
    if measure.values.get("gain") != "exponential":
        return value
    return F.when(F.max(F.col(columns["rel"])) > F.lit(MAX_GRADE), F.lit(None)).otherwise(value)


def _positional_names(fn: str, have: Sequence[str], wanted: Sequence[str]) -> dict[str, str]:
    """Each column of ``wanted`` -> ``c<i>``, its position in ``have`` (the first, for a name
    Spark's table holds twice); an :class:`InputError` for one it lacks."""
    position: dict[str, str] = {}
    for i, name in enumerate(have):
        position.setdefault(name, f"c{i}")
    missing = [c for c in dict.fromkeys(wanted) if c not in position]
    if missing:
        raise InputError(f"{fn}: the table has no column {', '.join(map(repr, missing))} (names "
                         f"are matched exactly); its columns are: {', '.join(map(repr, have))}")
    return {c: position[c] for c in wanted}


class SparkFace:
    name = "spark"
    role: Role = "cluster"
    unsupported: Mapping[str, str] = UNSUPPORTED
    judge_ties: frozenset[Ties] = JUDGE_TIES
    #: Not g (log2 of (2 + C) - S, not always whole, by Spark's ln(x) / ln(2)) nor yaap (the
    #: JVM's Math.log may differ from C's log in the last bit): docs/semantics.md#exactness.
    exact: frozenset[str] = exact_metrics() - {"g", "yaap"}
    inexact_values: Mapping[str, str] = {
        "gain=exponential": "2^rel of a grade that is not whole is the JVM's pow, which may "
                            "differ from C's in the last bit"}

    def unavailable(self) -> str | None:
        if shutil.which("java") or os.environ.get("JAVA_HOME"):
            return None
        return "no Java runtime for Spark (no java on PATH, JAVA_HOME unset)"

    def prepare(self, metrics: set[str], connection: Any = None) -> None:
        return None

    def native(self, frame: pl.DataFrame) -> DataFrame:
        """``frame`` as a Spark DataFrame of the active (or a new local) session."""
        from pyspark.sql import SparkSession

        frame = signed_integers(frame)  # Spark has no unsigned type
        schema = ", ".join(f"`{c}` {_TO_SPARK[type(t)]}" for c, t in frame.schema.items())
        return SparkSession.builder.getOrCreate().createDataFrame(frame.rows(), schema)

    def to_polars(self, table: DataFrame) -> pl.DataFrame:
        schema = {f.name: _TO_POLARS[type(f.dataType)]() for f in table.schema.fields}
        return pl.DataFrame([tuple(r) for r in table.collect()], schema=schema, orient="row")

    def evaluate(self, judged: DataFrame, measures: Sequence[Measure], keys: Sequence[str],
                 columns: Mapping[str, str], *, connection: Any = None) -> DataFrame:
        # Spark resolves names without regard to case (spark.sql.caseSensitive): the columns
        # are renamed by position first, so that "Qid" and "QID", or "Rank" beside "rank",
        # stay apart; the measures get positional aliases ("nDCG@10", "ndcg@10") too.
        read = [columns[c] for m in measures for c in m.metric.columns]
        named = _positional_names("evaluate", judged.columns, [*keys, *read])
        table = judged.toDF(*(f"c{i}" for i in range(len(judged.columns))))
        by_role = {role: named[c] for role, c in columns.items() if c in named}
        aggregates = [_grades_fit(m, by_role, column(m.metric, by_role, m.values))
                      .alias(f"__m{i}") for i, m in enumerate(measures)]
        order = [F.col(named[k]).asc_nulls_first() for k in keys]
        result = table.groupBy(*(named[k] for k in keys)).agg(*aggregates).orderBy(*order)
        return result.toDF(*keys, *(m.label for m in measures))

    def judge(self, run: DataFrame, qrels: DataFrame, options: JudgeOptions) -> DataFrame:
        return judge(run, qrels, query=options.query, doc=options.doc, score=options.score,
                     rel=options.rel, depth=options.depth, ties=options.ties,
                     judged_only=options.judged_only)


FACE: Face = SparkFace()

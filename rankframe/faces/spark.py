"""The Spark face: every rankframe metric as a PySpark aggregate ``Column``, and ``judge``.

Each function has the name, parameters, defaults and argument checks of the Polars
builder in :mod:`rankframe.metrics`, and returns an aggregate column with the same alias,
to be used inside ``groupBy(...).agg(...)``::

    import rankframe.spark as rfs
    judged.groupBy("qid").agg(rfs.ndcg("rel", k=10), rfs.average_precision("rel"))

Only Spark's own aggregates and higher-order functions are used (``count_if``, ``sum``,
``min``, ``collect_list``, ``array_sort``, ``transform``, ``filter``, ``aggregate``,
``slice``, ``sequence``), never a Python UDF, so the work stays in the JVM. Rank-dependent
metrics (average precision, bpref, interpolated precision, CG, DCG and ideal DCG) collect
one small array per query: the ranks of its relevant retrieved rows, its positive gains
(with their ranks), or the relevance flags of its judged retrieved rows; float sums fold
over such an array in rank order, as trec_eval adds (docs/semantics.md#exactness). The
rank correlations collect the group's (x, y) pairs and compare every pair (O(n^2),
values in their own type); RBO folds once over the depths 1..l; the tie-aware metrics
(columns ``rel``, ``tie_first``, ``tie_size``) evaluate the closed forms of
:mod:`rankframe.metrics.tied`. Every score is ``DoubleType``; the ``num_*`` counts are
``LongType``.

Conventions of the judged long table (docs/semantics.md#the-judged-long-table): ``rank``
NULL = judged but not retrieved; ``rel`` NULL = retrieved but unjudged; negative ``rel`` =
pooled but unjudged; a row is relevant iff ``rel >= threshold``.

``evaluate(judged, ["ndcg@10", "map"])`` takes measure strings, as ``rankframe.evaluate``
does; the face object ``FACE`` is what ``rankframe.faces`` registers.

PySpark is the optional extra ``rankframe[spark]``: ``import rankframe`` never needs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypeAlias

try:
    from pyspark.sql import Column, DataFrame, Row, Window
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "rankframe.spark needs PySpark; install the optional extra: "
        "pip install 'rankframe[spark]'"
    ) from exc

import math
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from typing import Any

import polars as pl

from rankframe import validation
from rankframe.errors import InputError
from rankframe.faces.base import Face, JudgeOptions, Role, Ties, exact_metrics, parse_for
from rankframe.measures import Measure
from rankframe.metrics.counts import PrecisionDivisor
from rankframe.metrics.expr import Gain, label
from rankframe.metrics.gains import Ideal
from rankframe.metrics.ranked import APDivisor, RecallRounding
from rankframe.metrics.tied import TiedAPDivisor
from rankframe.persistence import floor_steps
from rankframe.registry import METRICS, Metric, validated
from rankframe.table.ties import TIE_FIRST, TIE_SIZE
from rankframe.validation import MAX_GRADE

#: Registered metrics without a Spark function, each with the reason (as data: the
#: completeness tests check it against the registry and the functions below). None today.
UNSUPPORTED: dict[str, str] = {}
#: Measure families outside the registry that this face lacks, with the reason (as data:
#: tests/trec_eval/test_prefs.py checks that every face computes them or says why not).
UNSUPPORTED_FAMILIES: dict[str, str] = {
    "prefs": "trec_eval's preference measures (-R prefs) need a transitive closure (joins "
             "repeated until nothing changes) and sums in trec_eval's order; not written for "
             "Spark yet: read the preferences on the driver and use the Polars or DuckDB face",
}
SUPPORTED_METRICS: tuple[str, ...] = tuple(
    name for name in sorted(METRICS) if name not in UNSUPPORTED
)

__all__ = [
    *SUPPORTED_METRICS,
    "SUPPORTED_METRICS",
    "UNSUPPORTED",
    "UNSUPPORTED_FAMILIES",
    "evaluate",
    "judge",
    "unjudged_run_queries",
]

IntoColumn: TypeAlias = "str | Column"

# --------------------------------------------------------------------------------------
# Building blocks (each returns a Column; the aggregates are evaluated per group)
# --------------------------------------------------------------------------------------


def _col(x: IntoColumn) -> Column:
    """A column name or a column, as a column."""
    return F.col(x) if isinstance(x, str) else x


def _retrieved(rank: Column, k: int | None = None) -> Column:
    """True for rows with a rank, and with rank <= k when a cutoff is given (never NULL)."""
    if k is None:
        return rank.isNotNull()
    return F.coalesce(rank <= F.lit(k), F.lit(False))


def _relevant(rel: Column, threshold: float) -> Column:
    """True for rows judged relevant, rel >= threshold; NULL grades are not (never NULL)."""
    return F.coalesce(rel >= F.lit(threshold), F.lit(False))


def _is_judged(rel: Column) -> Column:
    """True for rows with a judgement, rel >= 0 (NULL and negative grades are unjudged)."""
    return F.coalesce(rel >= F.lit(0), F.lit(False))


def _running_weight(p: float, weight: Column, steps: Column) -> Column:
    """``weight`` times p, ``steps`` times one after another (trec_eval's running p^(r - 1),
    not ``pow``, which may differ in the last bit), at most ``floor_steps(p)`` times: the
    product then no longer changes (:mod:`rankframe.persistence`)."""
    capped = F.least(steps, F.lit(floor_steps(p)))
    return F.aggregate(F.array_repeat(F.lit(p), capped.cast("int")), weight,
                       lambda x, y: x * y)


def _rbp_sum(p: float, rows: Column) -> Column:
    """sum of g * p^(r - 1) over ``rows``, an array of structs (r, g) sorted by rank, added
    one at a time as trec_eval's loop does, the weight a running product."""
    start = F.struct(F.lit(0.0).alias("s"), F.lit(1.0).alias("c"), F.lit(1).cast("long").alias("r"))

    def step(acc: Column, row: Column) -> Column:
        w = _running_weight(p, acc["c"], row["r"] - acc["r"])
        return F.struct((acc["s"] + row["g"] * w).alias("s"), (w * F.lit(p)).alias("c"),
                        (row["r"] + F.lit(1)).alias("r"))

    return F.aggregate(rows, start, step)["s"]


def _judged_nonrelevant(rel: Column, threshold: float) -> Column:
    """True for rows judged non-relevant, 0 <= rel < threshold (never NULL)."""
    return F.coalesce((rel >= F.lit(0)) & (rel < F.lit(threshold)), F.lit(False))


def _count(mask: Column) -> Column:
    """Rows of the group where ``mask`` holds, as a LongType aggregate (0 for no rows)."""
    return F.count_if(mask)


def _ratio(numerator: Column, denominator: Column) -> Column:
    """numerator / denominator as a double, and 0.0 where the denominator is 0.

    The zero denominator is replaced by NULL before dividing, so the expression is safe
    under ANSI mode (Spark's default since 4.0), where dividing by zero raises.
    """
    quotient = numerator.cast("double") / F.when(denominator > 0, denominator)
    return F.coalesce(quotient, F.lit(0.0))


def _gain(rel: Column, kind: Gain, gains: Any = None) -> Column:
    """Gain of a grade: g = rel (linear) or 2^rel - 1 (exponential); 0.0 for NULL or rel <= 0;
    a grade listed in ``gains`` ((grade, gain) pairs, trec_eval's ndcg.1=3,2=9) gains that."""
    grade = rel.cast("double")
    value = grade if kind == "linear" else F.pow(F.lit(2.0), grade) - F.lit(1.0)
    out = F.when(grade > 0, value).otherwise(F.lit(0.0))
    for level, mapped in dict(gains or ()).items():
        out = F.when(grade == F.lit(float(level)), F.lit(float(mapped))).otherwise(out)
    return out


#: Positions whose discount log2(i + 1) comes from a table of C's ``log2`` (Python's
#: ``math.log2``, as trec_eval and DuckDB round it); Spark's own ``log2`` divides two natural
#: logarithms and differs in the last bit for about a quarter of the integers.
EXACT_LOG2_POSITIONS = 4095
_LOG2_TEXT = ",".join(repr(math.log2(n)) for n in range(1, EXACT_LOG2_POSITIONS + 2))


def _discount(position: Column) -> Column:
    """log2(i + 1) for 1-based positions i: C's log2 (a table parsed once per plan, text to
    double being exact for the shortest repr) up to :data:`EXACT_LOG2_POSITIONS`, Spark's
    log2 beyond (docs/semantics.md#exactness)."""
    n = position.cast("long") + F.lit(1)
    table = F.split(F.lit(_LOG2_TEXT), ",").cast("array<double>")
    return F.when(n <= EXACT_LOG2_POSITIONS + 1, F.element_at(table, n.cast("int"))).otherwise(
        F.log2(n.cast("double")))


def _hits(rel: Column, rank: Column, k: int | None, threshold: float) -> Column:
    """Relevant rows with rank <= k (LongType)."""
    return _count(_relevant(rel, threshold) & _retrieved(rank, k))


def _relevant_ranks(rel: Column, rank: Column, k: int | None, threshold: float) -> Column:
    """Array of the ranks of the relevant retrieved rows within the cutoff, ascending.

    ``collect_list`` skips the NULLs that ``when`` yields for the other rows, so a query
    without such rows gives an empty array.
    """
    chosen = F.when(_relevant(rel, threshold) & _retrieved(rank, k), rank.cast("long"))
    return F.array_sort(F.collect_list(chosen))


def _sum_array(values: Column) -> Column:
    """Sum of an array of doubles, 0.0 for an empty array."""
    return F.aggregate(values, F.lit(0.0), lambda acc, x: acc + x)


def _precisions(ranks: Column) -> Column:
    """For ascending relevant ranks r_1 < r_2 < ..., the precisions j / r_j (doubles)."""
    return F.transform(ranks, lambda r, i: (i + 1).cast("double") / r)


def _precision(
    rel: Column, rank: Column, k: int | None, threshold: float, divisor: PrecisionDivisor
) -> Column:
    n = _count(_retrieved(rank))
    hits = _hits(rel, rank, k, threshold)
    if k is None:
        return _ratio(hits, n)
    if divisor == "k":
        return hits.cast("double") / F.lit(float(k))
    return _ratio(hits, F.least(n, F.lit(k).cast("long")))


def _recall(rel: Column, rank: Column, k: int | None, threshold: float) -> Column:
    return _ratio(_hits(rel, rank, k, threshold), _count(_relevant(rel, threshold)))


def _gains_in_rank_order(rel: Column, rank: Column, k: int | None, kind: Gain,
                         mapped: Any = None) -> Column:
    """Array of {r: rank, g: gain} of the retrieved rows within k of non-zero gain, by rank."""
    gains = _gain(rel, kind, mapped)
    chosen = F.when(_retrieved(rank, k) & (gains != 0),
                    F.struct(rank.cast("long").alias("r"), gains.alias("g")))
    return F.array_sort(F.collect_list(chosen))


def _dcg(rel: Column, rank: Column, k: int | None, kind: Gain, mapped: Any = None) -> Column:
    # g / log2(r + 1) added in rank order, as trec_eval: a fold, not the unordered F.sum
    # (docs/semantics.md#exactness).
    in_order = _gains_in_rank_order(rel, rank, k, kind, mapped)
    return _sum_array(F.transform(in_order, lambda s: s["g"] / _discount(s["r"])))


def _idcg(rel: Column, rank: Column, k: int | None, kind: Gain, ideal: Ideal,
          mapped: Any = None) -> Column:
    gains = _gain(rel, kind, mapped)
    pool = gains > 0
    if ideal == "retrieved":
        pool = pool & rank.isNotNull()
    best = F.sort_array(F.collect_list(F.when(pool, gains)), asc=False)
    if k is not None:
        best = F.slice(best, 1, k)
    return _sum_array(F.transform(best, lambda g, i: g / _discount(i + 1)))


# --------------------------------------------------------------------------------------
# Set-based metrics
# --------------------------------------------------------------------------------------


@validated(METRICS["precision"])
def precision(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
    divisor: PrecisionDivisor = "k",
) -> Column:
    """Precision at k: relevant rows in the top k divided by k.

    Contract: docs/semantics.md#precision.

    ``P@k = hits@k / k``; with ``divisor="min"``, ``hits@k / min(k, n)`` where n is the
    number of retrieved rows. ``k=None`` gives set precision ``hits / n``. A query with
    nothing retrieved scores 0.

    Parameters
    ----------
    rel, rank
        Grade and rank columns (names or columns).
    k
        Cutoff, or None for the whole list.
    threshold
        A row is relevant iff ``rel >= threshold``.
    divisor
        ``"k"`` (trec_eval ``P_k``) or ``"min"`` (an adaptive ``min(k, n)``).

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``P@k`` (``P`` when k is None).

    Examples
    --------
    >>> judged.groupBy("qid").agg(precision("rel", k=10))  # doctest: +SKIP
    """
    return _precision(_col(rel), _col(rank), k, threshold, divisor).alias(label("P", k))


@validated(METRICS["recall"])
def recall(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
) -> Column:
    """Recall at k: relevant rows in the top k divided by all relevant rows R.

    Contract: docs/semantics.md#recall.

    ``recall@k = hits@k / R``, 0 when R = 0. Judged-but-unretrieved rows count in R.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``recall@k``.
    """
    return _recall(_col(rel), _col(rank), k, threshold).alias(label("recall", k))


@validated(METRICS["f1"])
def f1(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
    beta: float = 1.0,
    recall_weight: float | None = None,
) -> Column:
    """F-measure at k: ``(1 + w) P R / (w P + R)`` with P = precision@k, R = recall@k and
    w = beta^2, or w = ``recall_weight`` when given (trec_eval's set_F.x); 0 when the
    denominator is 0 (beta = 1: F1 = 2PR / (P + R)).

    Contract: docs/semantics.md#f1.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``f1@k``.
    """
    w = beta**2 if recall_weight is None else recall_weight
    p = _precision(_col(rel), _col(rank), k, threshold, "k")
    r = _recall(_col(rel), _col(rank), k, threshold)
    return _ratio(F.lit(1.0 + w) * p * r, F.lit(w) * p + r).alias(label("f1", k))


@validated(METRICS["hit_rate"])
def hit_rate(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
) -> Column:
    """Hit rate (trec_eval ``success``) at k: 1.0 if any relevant row has rank <= k, else 0.0.

    Contract: docs/semantics.md#hit_rate.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``success@k``.
    """
    hits = _hits(_col(rel), _col(rank), k, threshold)
    return (hits > 0).cast("double").alias(label("hit_rate", k))


@validated(METRICS["num_ret"])
def num_ret(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    rank: IntoColumn = "rank",
) -> Column:
    """Number of retrieved rows (rank not NULL), limited to rank <= k when k is given.

    Contract: docs/semantics.md#num_ret.

    ``rel`` is accepted for a uniform signature and not read.

    Returns
    -------
    Column
        A LongType aggregate aliased ``num_ret@k``.
    """
    return _count(_retrieved(_col(rank), k)).alias(label("num_ret", k))


@validated(METRICS["num_rel"])
def num_rel(
    rel: IntoColumn = "rel",
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
) -> Column:
    """Number of relevant rows R (``rel >= threshold``), retrieved or not.

    Contract: docs/semantics.md#num_rel.

    ``rank`` is accepted for a uniform signature and not read.

    Returns
    -------
    Column
        A LongType aggregate aliased ``num_rel``.
    """
    return _count(_relevant(_col(rel), threshold)).alias(label("num_rel", None))


@validated(METRICS["num_rel_ret"])
def num_rel_ret(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
) -> Column:
    """Number of relevant retrieved rows, limited to rank <= k when k is given.

    Contract: docs/semantics.md#num_rel_ret.

    Returns
    -------
    Column
        A LongType aggregate aliased ``num_rel_ret@k``.
    """
    return _hits(_col(rel), _col(rank), k, threshold).alias(label("num_rel_ret", k))


# --------------------------------------------------------------------------------------
# Rank-sensitive binary metrics
# --------------------------------------------------------------------------------------


@validated(METRICS["reciprocal_rank"])
def reciprocal_rank(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
) -> Column:
    """Reciprocal rank at k: ``1 / r_1`` for the first relevant rank r_1 <= k, else 0.

    Contract: docs/semantics.md#reciprocal_rank.

    Computed with the native ``min`` aggregate over the relevant ranks within k.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``mrr@k``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    first = F.min(F.when(_relevant(rel_c, threshold) & _retrieved(rank_c, k), rank_c))
    value = F.coalesce(F.lit(1.0) / first.cast("double"), F.lit(0.0))
    return value.alias(label("reciprocal_rank", k))


@validated(METRICS["average_precision"])
def average_precision(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
    divisor: APDivisor = "relevant",
) -> Column:
    """Average precision at k (trec_eval ``map`` / ``map_cut_k``).

    Contract: docs/semantics.md#average_precision.

    ``AP@k = (sum over relevant r_j <= k of j / r_j) / D`` where r_j is the rank of the
    j-th relevant retrieved row, and D = R (``"relevant"``, trec_eval), ``min(R, k)``
    (``"min"``, the recommender MAP@k) or the relevant rows found in the top k
    (``"found"``). D = 0 gives 0.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``map@k``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    ranks = _relevant_ranks(rel_c, rank_c, k, threshold)
    total = _sum_array(_precisions(ranks))
    r_count = _count(_relevant(rel_c, threshold))
    if divisor == "relevant":
        denominator = r_count
    elif divisor == "min":
        denominator = r_count if k is None else F.least(r_count, F.lit(k).cast("long"))
    else:
        denominator = F.size(ranks)
    return _ratio(total, denominator).alias(label("average_precision", k))


@validated(METRICS["r_precision"])
def r_precision(
    rel: IntoColumn = "rel",
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
) -> Column:
    """R-precision (trec_eval ``Rprec``): relevant rows with rank <= R, divided by R; 0 if R = 0.

    Contract: docs/semantics.md#r_precision.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``rprec``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    r_count = _count(_relevant(rel_c, threshold))
    ranks = _relevant_ranks(rel_c, rank_c, None, threshold)
    hits_in_r = F.size(F.filter(ranks, lambda r: r <= r_count))
    return _ratio(hits_in_r, r_count).alias(label("r_precision", None))


@validated(METRICS["bpref"])
def bpref(
    rel: IntoColumn = "rel",
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
) -> Column:
    """Binary preference (Buckley & Voorhees 2004, as in trec_eval ``bpref``).

    Contract: docs/semantics.md#bpref.

    ``bpref = (1/R) * sum over retrieved relevant r of (1 - min(nr, R) / min(N, R))``
    where nr = judged non-relevant rows (0 <= rel < threshold) ranked above r and N =
    judged non-relevant rows of the query; a term is 1 when nr = 0. Unjudged (NULL) and
    negative grades are skipped. R = 0 gives 0.

    The judged retrieved rows are collected as (rank, relevant) pairs and sorted by
    rank; the j-th relevant one at position p of that list has nr = p - j.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``bpref``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    is_relevant = _relevant(rel_c, threshold)
    r_count = _count(is_relevant)
    n_count = _count(_judged_nonrelevant(rel_c, threshold))
    judged_retrieved = F.coalesce(rel_c >= F.lit(0), F.lit(False)) & rank_c.isNotNull()
    pairs = F.collect_list(
        F.when(judged_retrieved, F.struct(rank_c.cast("long").alias("r"), is_relevant.alias("y")))
    )
    in_order = F.array_sort(pairs)
    positions = F.filter(
        F.transform(in_order, lambda s, i: F.when(s["y"], i + 1)), lambda p: p.isNotNull()
    )

    def term(p: Column, i: Column) -> Column:
        above = (p - (i + 1)).cast("double")
        penalty = F.least(above, r_count.cast("double")) / F.least(n_count, r_count)
        return F.when(above == 0, F.lit(1.0)).otherwise(F.lit(1.0) - penalty)

    return _ratio(_sum_array(F.transform(positions, term)), r_count).alias(label("bpref", None))


@validated(METRICS["infap"])
def infap(
    rel: IntoColumn = "rel",
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
) -> Column:
    """Inferred average precision (Yilmaz & Aslam 2006, as in trec_eval ``infAP``).

    Contract: docs/semantics.md#infap.

    For the relevant retrieved row at rank r > 1 with a relevant, b judged non-relevant and
    u pooled-but-unjudged rows above it, j = r - 1, e = 0.00001:
    ``1/r + (j/r) * ((a + b + u)/j) * ((a + e)/(a + b + 2e))``; 1 at rank 1; the sum / R.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``infap``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    pooled = F.array_sort(F.collect_list(F.when(
        rank_c.isNotNull() & rel_c.isNotNull(),
        F.struct(rank_c.cast("long").alias("r"), rel_c.cast("double").alias("g")))))

    def term(x: Column, i: Column) -> Column:
        above = F.slice(pooled, 1, i)
        a = F.size(F.filter(above, lambda y: y["g"] >= threshold)).cast("double")
        b = F.size(F.filter(above, lambda y: (y["g"] >= 0) & (y["g"] < threshold))).cast("double")
        u = F.size(F.filter(above, lambda y: y["g"] < 0)).cast("double")
        j = F.greatest(x["r"].cast("double") - 1.0, F.lit(1.0))  # rank 1 is the first branch
        estimate = (a + 0.00001) / (a + b + 2 * 0.00001)
        value = F.when(x["r"] == 1, F.lit(1.0)).otherwise(
            1.0 / (j + 1.0) + (j / (j + 1.0)) * ((a + b + u) / j) * estimate)
        return F.when(x["g"] >= threshold, value).otherwise(F.lit(0.0))

    total = _sum_array(F.transform(pooled, term))
    return _ratio(total, _count(_relevant(rel_c, threshold))).alias(label("infap", None))


@validated(METRICS["yaap"])
def yaap(
    rel: IntoColumn = "rel",
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
) -> Column:
    """Yet another average precision (Robertson 2012, as in trec_eval ``yaap``).

    Contract: docs/semantics.md#yaap.

    ``ln((1 + S) / (1 + R - S))``, S = sum over the relevant retrieved rows of j / r_j.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``yaap``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    total = _sum_array(_precisions(_relevant_ranks(rel_c, rank_c, None, threshold)))
    big_r = _count(_relevant(rel_c, threshold)).cast("double")
    return F.log((1.0 + total) / ((1.0 + big_r) - total)).alias(label("yaap", None))


@validated(METRICS["relstring"])
def relstring(
    rel: IntoColumn = "rel",
    *,
    rank: IntoColumn = "rank",
    length: int | None = 10,
) -> Column:
    """The grades of ranks 1 .. min(length, last rank) as a string (trec_eval ``relstring``).

    Contract: docs/semantics.md#relstring.

    The digit of a grade 0-9, '>' above 9, '-' outside the pool (NULL grade or a rank gap),
    '.' for a negative grade, '<' for a grade that is not whole; "" when nothing is
    retrieved.

    Returns
    -------
    Column
        A StringType aggregate aliased ``relstring``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    grade = rel_c.cast("double")
    char = (F.when(grade.isNull(), F.lit("-")).when(grade < 0, F.lit("."))
            .when(grade != F.floor(grade), F.lit("<")).when(grade > 9, F.lit(">"))
            .otherwise(grade.cast("long").cast("string")))
    shown = F.map_from_entries(F.collect_list(F.when(
        rank_c.isNotNull(), F.struct(rank_c.cast("long").alias("k"), char.alias("v")))))
    last = F.coalesce(F.max(rank_c).cast("long"), F.lit(0).cast("long"))
    end = last if length is None else F.least(last, F.lit(length).cast("long"))
    positions = F.when(end > 0, F.sequence(F.lit(1).cast("long"), end)).otherwise(
        F.array().cast("array<long>"))
    chars = F.transform(positions, lambda i: F.coalesce(F.try_element_at(shown, i), F.lit("-")))
    return F.array_join(chars, "").alias(label("relstring", None))


@validated(METRICS["iprec_at_recall"])
def iprec_at_recall(
    rel: IntoColumn = "rel",
    recall: float = 0.0,
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
    rounding: RecallRounding = "nearest",
) -> Column:
    """Interpolated precision at a recall level (trec_eval ``iprec_at_recall_x``).

    Contract: docs/semantics.md#iprec_at_recall.

    The highest precision ``j / r_j`` over relevant ranks j >= c (and j >= 1), where c
    relevant rows make up that recall level; 0 when fewer than c relevant rows are
    retrieved (or none). ``rounding="nearest"``: ``c = floor(recall * R + 0.5)`` (trec_eval
    10); ``"trec_eval9"``: ``c = floor(recall * R + 0.9)`` (trec_eval 9.x, pytrec_eval).

    The precisions ``j / r_j`` of the sorted relevant ranks are sliced from position c
    and their ``array_max`` taken.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``iprec@0.5``.
    """
    offset = 0.5 if rounding == "nearest" else 0.9
    rel_c, rank_c = _col(rel), _col(rank)
    precisions = _precisions(_relevant_ranks(rel_c, rank_c, None, threshold))
    needed = F.floor(_count(_relevant(rel_c, threshold)) * F.lit(recall) + F.lit(offset))
    start = F.greatest(needed, F.lit(1).cast("long")).cast("int")
    reachable = F.slice(precisions, start, F.size(precisions))
    best = F.coalesce(F.array_max(reachable), F.lit(0.0))
    return best.alias(label("iprec_at_recall", recall))


@validated(METRICS["r_precision_mult"])
def r_precision_mult(
    rel: IntoColumn = "rel",
    multiple: float = 1.0,
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
) -> Column:
    """Precision at a multiple of R (trec_eval ``Rprec_mult_x``): relevant rows with rank
    <= c divided by c, ``c = floor(multiple * R + 0.9)`` (in double); 0 when c = 0.

    Contract: docs/semantics.md#r_precision_mult.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``rprec_mult@0.2``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    r_count = _count(_relevant(rel_c, threshold))
    cut = F.floor(r_count.cast("double") * F.lit(float(multiple)) + F.lit(0.9))
    ranks = _relevant_ranks(rel_c, rank_c, None, threshold)
    hits = F.size(F.filter(ranks, lambda r: r <= cut))
    return _ratio(hits, cut).alias(label("r_precision_mult", multiple))


# --------------------------------------------------------------------------------------
# Graded metrics
# --------------------------------------------------------------------------------------


@validated(METRICS["cg"])
def cg(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    rank: IntoColumn = "rank",
    gain: Gain = "linear",
) -> Column:
    """Cumulative gain at k: ``CG@k = sum over rank i <= k of g(rel_i)``.

    Contract: docs/semantics.md#cg.

    ``g(rel) = rel`` (``"linear"``) or ``2^rel - 1`` (``"exponential"``); NULL and
    grades <= 0 give 0.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``cg@k``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    in_order = _gains_in_rank_order(rel_c, rank_c, k, gain)  # added in rank order
    return _sum_array(F.transform(in_order, lambda s: s["g"])).alias(label("cg", k))


@validated(METRICS["dcg"])
def dcg(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    rank: IntoColumn = "rank",
    gain: Gain = "linear",
    gains: Mapping[int, float] | None = None,
) -> Column:
    """Discounted cumulative gain at k: ``DCG@k = sum over i <= k of g(rel_i) / log2(i + 1)``;
    ``gains`` gives listed grades their own gain (trec_eval ``-m dcg.1=3,2=9``).

    Contract: docs/semantics.md#dcg.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``dcg@k``.
    """
    return _dcg(_col(rel), _col(rank), k, gain, gains).alias(label("dcg", k))


@validated(METRICS["idcg"])
def idcg(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    rank: IntoColumn = "rank",
    gain: Gain = "linear",
    ideal: Ideal = "all",
    gains: Mapping[int, float] | None = None,
) -> Column:
    """Ideal DCG at k: ``sum over i <= k of g*_i / log2(i + 1)``, g* the positive gains sorted
    descending; ``gains`` gives listed grades their own gain (trec_eval
    ``-m ideal_dcg.1=3,2=9``).

    Contract: docs/semantics.md#idcg.

    The ideal ranking is built from every row of the query, retrieved or not
    (``ideal="all"``, trec_eval) or from the retrieved rows only (``"retrieved"``).

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``idcg@k``.
    """
    return _idcg(_col(rel), _col(rank), k, gain, ideal, gains).alias(label("idcg", k))


@validated(METRICS["ndcg"])
def ndcg(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    rank: IntoColumn = "rank",
    gain: Gain = "linear",
    ideal: Ideal = "all",
    gains: Mapping[int, float] | None = None,
) -> Column:
    """Normalised DCG at k: ``nDCG@k = DCG@k / IDCG@k``, 0 when IDCG@k = 0; ``gains`` gives
    listed grades their own gain (trec_eval ``-m ndcg.1=3,2=9``).

    Contract: docs/semantics.md#ndcg.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``ndcg@k``.

    Examples
    --------
    >>> judged.groupBy("qid").agg(ndcg("rel", k=10)).agg(F.mean("`ndcg@10`"))  # doctest: +SKIP
    """
    rel_c, rank_c = _col(rel), _col(rank)
    value = _ratio(_dcg(rel_c, rank_c, k, gain, gains),
                   _idcg(rel_c, rank_c, k, gain, ideal, gains))
    return value.alias(label("ndcg", k))


def _ideal_gains(rel: Column, gains: Any) -> Column:
    """The positive linear gains of every row, best first: the ideal ranking."""
    g = _gain(rel, "linear", gains)
    return F.sort_array(F.collect_list(F.when(g > 0, g)), asc=False)


def _running_ideal(best: Column) -> Column:
    """IDCG@1 .. IDCG@P of an ideal list, each added first to last."""
    return F.transform(best, lambda g, i: _sum_array(F.transform(
        F.slice(best, 1, i + 1), lambda h, j: h / _discount(j + 1))))


def _gain_points(rel: Column, rank: Column, gains: Any) -> Column:
    """The retrieved rows with a non-zero gain in rank order, as (r, g, d = g/log2(r+1))."""
    g = _gain(rel, "linear", gains)
    return F.array_sort(F.collect_list(F.when(
        rank.isNotNull() & (g != 0),
        F.struct(rank.cast("long").alias("r"), g.alias("g"), (g / _discount(rank)).alias("d")))))


def _dcg_upto(points: Column, i: Column) -> Column:
    """DCG@i: the d of the points with r <= i, added in rank order."""
    return _sum_array(F.transform(F.filter(points, lambda p: p["r"] <= i), lambda p: p["d"]))


@validated(METRICS["ndcg_rel"])
def ndcg_rel(
    rel: IntoColumn = "rel",
    *,
    rank: IntoColumn = "rank",
    gains: Mapping[int, float] | None = None,
) -> Column:
    """nDCG averaged over the relevant rows (trec_eval ``ndcg_rel``, experimental).

    Contract: docs/semantics.md#ndcg_rel.

    ``(1/Rg) * (sum over retrieved rows r with g > 0 of DCG@r / IDCG@min(r, Rg)
    + (Rg - found) * DCG / IDCG)``; 0 when Rg = 0 or the sum is <= 0.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``ndcg_rel``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    best, points = _ideal_gains(rel_c, gains), _gain_points(rel_c, rank_c, gains)

    def value(ideal_at: Column) -> Column:
        big_r = F.size(ideal_at)
        hits = F.filter(points, lambda p: p["g"] > 0)
        terms = F.transform(hits, lambda p: _dcg_upto(points, p["r"])
                            / F.get(ideal_at, F.least(p["r"], big_r) - 1))
        rest = ((big_r - F.size(hits)).cast("double") * _dcg_upto(points, F.lit(2**62))
                / F.get(ideal_at, big_r - 1))
        total = _sum_array(terms) + rest
        return F.when((big_r > 0) & (total > 0), total / big_r).otherwise(F.lit(0.0))

    return _let(_running_ideal(best), value).alias(label("ndcg_rel", None))


@validated(METRICS["rndcg"])
def rndcg(
    rel: IntoColumn = "rel",
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
    gains: Mapping[int, float] | None = None,
) -> Column:
    """nDCG averaged at the R-levels of the ideal ranking (trec_eval ``Rndcg``, experimental).

    Contract: docs/semantics.md#rndcg.

    The mean of DCG@i / IDCG@i over the positions i <= P after which the ideal gain
    changes, and of DCG@n / IDCG@P when the last rank n > P + 1; 0 without a relevant row.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``rndcg``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    best, points = _ideal_gains(rel_c, gains), _gain_points(rel_c, rank_c, gains)
    last = F.coalesce(F.max(rank_c).cast("long"), F.lit(0).cast("long"))
    has_relevant = _count(_relevant(rel_c, threshold)) > 0

    def value(ideal_at: Column) -> Column:
        big_p = F.size(ideal_at)
        changes = F.filter(F.transform(best, lambda g, i: F.when(
            (i + 1 == big_p) | (g != F.get(best, i + 1)), i + 1)), lambda i: i.isNotNull())
        terms = F.transform(changes, lambda i: _dcg_upto(points, i) / F.get(ideal_at, i - 1))
        tail = F.when((big_p > 0) & (last > big_p + 1), F.array(
            _dcg_upto(points, last) / F.get(ideal_at, big_p - 1))).otherwise(
            F.array().cast("array<double>"))
        every = F.concat(terms, tail)
        return F.when(has_relevant & (F.size(every) > 0),
                      _sum_array(every) / F.size(every)).otherwise(F.lit(0.0))

    return _let(_running_ideal(best), value).alias(label("rndcg", None))


@validated(METRICS["ndcg_p"])
def ndcg_p(
    rel: IntoColumn = "rel",
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
    gains: Mapping[int, float] | None = None,
) -> Column:
    """nDCG with rank 1 undiscounted and rank i > 1 divided by log2(i) (trec_eval ``ndcg_p``).

    Contract: docs/semantics.md#ndcg_p.

    0 when no relevant row is retrieved or the ideal DCG is 0.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``ndcg_p``.
    """
    rel_c, rank_c = _col(rel), _col(rank)

    def first_free(position: Column) -> Column:
        """1 at rank 1, C's log2(i) below (_discount of i - 1)."""
        return F.when(position == 1, F.lit(1.0)).otherwise(_discount(position - F.lit(1)))

    top = _sum_array(F.transform(_gain_points(rel_c, rank_c, gains),
                                 lambda p: p["g"] / first_free(p["r"])))
    best = _sum_array(F.transform(_ideal_gains(rel_c, gains),
                                  lambda g, i: g / first_free(i + 1)))
    found = _count(_relevant(rel_c, threshold) & rank_c.isNotNull())
    return F.when(found > 0, _ratio(top, best)).otherwise(F.lit(0.0)).alias(
        label("ndcg_p", None))


# --------------------------------------------------------------------------------------
# User models
# --------------------------------------------------------------------------------------


@validated(METRICS["rbp"])
def rbp(
    rel: IntoColumn = "rel",
    *,
    rank: IntoColumn = "rank",
    p: float = 0.8,
    threshold: float = 1,
    graded: bool = False,
    max_grade: float | None = None,
) -> Column:
    """Rank-biased precision (Moffat & Zobel 2008) over the retrieved rows.

    Contract: docs/semantics.md#rbp.

    ``RBP = (1 - p) * sum over retrieved rows i of g_i * p^(rank_i - 1)``.

    Binary (default): ``g = 1`` if rel >= threshold else 0. Graded: ``g = rel / M``
    clipped to [0, 1], M = ``max_grade`` or, when None, the highest grade of the query
    (all rows); NULL and negative grades gain 0, and M <= 0 gives 0. Added in rank order,
    p^(rank - 1) a running product, as trec_eval (docs/semantics.md#exactness).

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``rbp``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    grade = rel_c.cast("double")
    if not graded:
        gain = F.when(_relevant(rel_c, threshold), F.lit(1.0)).otherwise(F.lit(0.0))
    else:
        gain = F.when(grade > 0, grade).otherwise(F.lit(0.0))
    rows = F.array_sort(F.collect_list(F.when(rank_c.isNotNull(), F.struct(
        rank_c.cast("long").alias("r"), gain.alias("g")))))
    if graded:
        top = F.lit(float(max_grade)) if max_grade is not None else F.max(grade)
        rows = F.transform(rows, lambda e: F.struct(e["r"].alias("r"), F.when(
            (e["g"] > 0) & (top > 0), F.least(e["g"] / top, F.lit(1.0)))
            .otherwise(F.lit(0.0)).alias("g")))
    total = _rbp_sum(p, rows)
    value = F.lit(1.0 - p) * F.coalesce(total, F.lit(0.0))
    return value.alias(label("rbp", None))


@validated(METRICS["rbp_residual"])
def rbp_residual(
    rel: IntoColumn = "rel",
    *,
    rank: IntoColumn = "rank",
    p: float = 0.8,
) -> Column:
    """The RBP residual: how much RBP could still grow if every unknown position were relevant.

    Contract: docs/semantics.md#rbp_residual.

    ``residual = (1 - p) * sum over unknown positions i <= d of p^(i - 1) + p^d`` with d
    the deepest rank; a position is unknown when its row is unjudged (rel NULL or
    negative) or missing (a rank gap). Computed as trec_eval: the running weight added
    over the unknown positions in order, then ``p^d + (1 - p) * sum``; nothing retrieved
    gives 1.0.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``rbp_residual``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    # Positions up to K + 1 one by one; every deeper position weighs the floor, and its
    # unknown ones add it as one last term (docs/semantics.md#rbp_residual).
    limit = F.lit(floor_steps(p) + 1).cast("long")
    is_known = rank_c.isNotNull() & _is_judged(rel_c)
    known = F.array_sort(F.collect_list(F.when(is_known & (rank_c <= limit),
                                               rank_c.cast("long"))))
    deepest = F.coalesce(F.max(rank_c).cast("long"), F.lit(0).cast("long"))
    near = F.least(deepest, limit)
    deeper = F.greatest(deepest - limit, F.lit(0).cast("long")) - _count(is_known
                                                                        & (rank_c > limit))
    # Each judged rank, then the end: the unknown positions before it add the running weight.
    marks = F.concat(known, F.array(near + F.lit(1)))
    start = F.struct(F.lit(0.0).alias("s"), F.lit(1.0).alias("c"), F.lit(1).cast("long").alias("r"))

    def step(acc: Column, mark: Column) -> Column:
        gap = F.aggregate(F.array_repeat(F.lit(0), (mark - acc["r"]).cast("int")),
                          F.struct(acc["s"].alias("s"), acc["c"].alias("c")),
                          lambda x, _: F.struct((x["s"] + x["c"]).alias("s"),
                                                (x["c"] * F.lit(p)).alias("c")))
        weight = F.when(mark <= near, gap["c"] * F.lit(p)).otherwise(gap["c"])
        return F.struct(gap["s"].alias("s"), weight.alias("c"), (mark + F.lit(1)).alias("r"))

    end = F.aggregate(marks, start, step)
    total = F.when(deeper > 0, end["s"] + deeper.cast("double") * end["c"]).otherwise(end["s"])
    value = end["c"] + F.lit(1.0 - p) * total
    return value.alias(label("rbp_residual", None))


@validated(METRICS["err"])
def err(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    rank: IntoColumn = "rank",
    max_grade: float = 4,
) -> Column:
    """Expected reciprocal rank at k (Chapelle, Metzler, Zhang & Grinspan 2009).

    Contract: docs/semantics.md#err.

    ``ERR@k = sum over retrieved i <= k of (1 / i) * R_i * prod over retrieved j < i of
    (1 - R_j)``, ``R = (2^g - 1) / 2^max_grade`` with g clipped to [0, max_grade]; NULL
    and negative grades give R = 0. Positions are the rank values.

    The (rank, R) pairs within the cutoff are sorted by rank and folded with
    ``aggregate``, carrying the running sum and the probability of not having stopped.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``err@k``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    grade = F.least(F.greatest(F.coalesce(rel_c.cast("double"), F.lit(0.0)), F.lit(0.0)),
                    F.lit(max_grade))
    stop = (F.pow(F.lit(2.0), grade) - F.lit(1.0)) / F.lit(2.0**max_grade)
    pairs = F.collect_list(
        F.when(_retrieved(rank_c, k), F.struct(rank_c.cast("long").alias("r"), stop.alias("s")))
    )
    start = F.struct(F.lit(0.0).alias("total"), F.lit(1.0).alias("reach"))

    def step(acc: Column, x: Column) -> Column:
        return F.struct(
            (acc["total"] + acc["reach"] * x["s"] / x["r"].cast("double")).alias("total"),
            (acc["reach"] * (F.lit(1.0) - x["s"])).alias("reach"),
        )

    value = F.aggregate(F.array_sort(pairs), start, step, lambda acc: acc["total"])
    return value.alias(label("err", k))


@validated(METRICS["judged"])
def judged(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    rank: IntoColumn = "rank",
) -> Column:
    """Judged fraction at k: judged rows (rel >= 0) in the top k divided by ``min(k, n)``.

    Contract: docs/semantics.md#judged.

    ``k=None`` divides by n; nothing retrieved gives 0.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``judged@k``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    n = _count(_retrieved(rank_c))
    top = _count(_retrieved(rank_c, k) & _is_judged(rel_c))
    denominator = n if k is None else F.least(n, F.lit(k).cast("long"))
    return _ratio(top, denominator).alias(label("judged", k))


# --------------------------------------------------------------------------------------
# trec_eval's contingency and gain measures (docs/semantics.md#relative_precision ...)
# --------------------------------------------------------------------------------------


@validated(METRICS["relative_precision"])
def relative_precision(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
) -> Column:
    """Relative precision at k: ``hits@k / min(k, R)``; ``k=None`` divides by ``min(n, R)``.

    Contract: docs/semantics.md#relative_precision. trec_eval ``relative_P_k``,
    ``set_relative_P``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    size = _count(_retrieved(rank_c)) if k is None else F.lit(k).cast("long")
    big_r = _count(_relevant(rel_c, threshold))
    return _ratio(_hits(rel_c, rank_c, k, threshold), F.least(size, big_r)).alias(
        label("relative_precision", k))


@validated(METRICS["set_map"])
def set_map(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank", threshold: float = 1
            ) -> Column:
    """Set MAP: ``hits^2 / (n R)``, 0 when n = 0 or R = 0.

    Contract: docs/semantics.md#set_map. trec_eval ``set_map``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    hits = _hits(rel_c, rank_c, None, threshold)
    return _ratio(hits * hits, _count(_retrieved(rank_c)) * _count(_relevant(rel_c, threshold))
                  ).alias(label("set_map", None))


@validated(METRICS["utility"])
def utility(
    rel: IntoColumn = "rel",
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
    a: float = 1.0,
    b: float = -1.0,
    c: float = 0.0,
    d: float = 0.0,
    num_docs: int = 0,
    empty: Literal["counts", "placeholder"] = "counts",
) -> Column:
    """Set utility ``a*hits + b*(n - hits) + c*(R - hits) + d*(num_docs + hits - n - R)``,
    added left to right; ``empty="placeholder"``: n = 1 when nothing is retrieved.

    Contract: docs/semantics.md#utility. trec_eval ``utility`` (``-m utility.a,b,c,d``).
    """
    rel_c, rank_c = _col(rel), _col(rank)
    hits = _hits(rel_c, rank_c, None, threshold)
    n = _count(_retrieved(rank_c))
    if empty == "placeholder":
        n = F.greatest(n, F.lit(1).cast("long"))
    big_r = _count(_relevant(rel_c, threshold))

    def term(weight: float, cells: Column) -> Column:
        return F.lit(float(weight)) * cells.cast("double")

    value = (term(a, hits) + term(b, n - hits) + term(c, big_r - hits)
             + term(d, F.lit(num_docs).cast("long") + hits - n - big_r))
    return value.alias(label("utility", None))


@validated(METRICS["num_nonrel_judged_ret"])
def num_nonrel_judged_ret(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    rank: IntoColumn = "rank",
    threshold: float = 1,
) -> Column:
    """Judged non-relevant rows (0 <= rel < threshold) with rank <= k (LongType).

    Contract: docs/semantics.md#num_nonrel_judged_ret.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    return _count(_judged_nonrelevant(rel_c, threshold) & _retrieved(rank_c, k)).alias(
        label("num_nonrel_judged_ret", k))


@validated(METRICS["unjudged"])
def unjudged(rel: IntoColumn = "rel", k: int | None = None, *, rank: IntoColumn = "rank"
             ) -> Column:
    """Unjudged rows (rel NULL or negative) with rank <= k, divided by k (by n when k is
    None; 0 when n = 0).

    Contract: docs/semantics.md#unjudged. trec_eval ``unj_k``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    top = _count(_retrieved(rank_c, k) & ~_is_judged(rel_c))
    denominator = _count(_retrieved(rank_c)) if k is None else F.lit(k).cast("long")
    return _ratio(top, denominator).alias(label("unjudged", k))


def _in_rank_order(rank: Column, value: Column) -> Column:
    """The values of the retrieved rows as an array in rank order."""
    pairs = F.collect_list(F.when(rank.isNotNull(), F.struct(rank.cast("long").alias("r"),
                                                             value.alias("v"))))
    return F.transform(F.array_sort(pairs), lambda s: s["v"])


@validated(METRICS["bin_g"])
def bin_g(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank", threshold: float = 1
          ) -> Column:
    """Binary G: ``(1/R) * sum over relevant retrieved rows of 1 / log2(2 + m)``, m the
    retrieved non-relevant rows above; terms added in rank order. 0 when R = 0.

    Contract: docs/semantics.md#bin_g. trec_eval ``binG``.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    is_relevant = _relevant(rel_c, threshold)
    positions = F.filter(F.transform(_in_rank_order(rank_c, is_relevant),
                                     lambda y, i: F.when(y, i + 1)), lambda p: p.isNotNull())
    # The (j+1)-th relevant row, at position p, has p - (j + 1) non-relevant rows above.
    terms = F.transform(positions, lambda p, j: F.lit(1.0) / _discount(p - j))
    return _ratio(_sum_array(terms), _count(is_relevant)).alias(label("bin_g", None))


@validated(METRICS["g"])
def g(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank",
      gains: Mapping[int, float] | Sequence[tuple[int, float]] | None = None) -> Column:
    """G, normalised gain: ``(1/I) * sum over positions i with g_i != 0 of
    g_i / log2((2 + C_i) - S_i)``; 0 when I = 0 (docs/semantics.md#g, trec_eval ``G``).

    The gains of the retrieved rows in rank order and the ideal gains in descending order
    are collected; one fold carries C_i, S_i and the sum of the terms.
    """
    rel_c, rank_c = _col(rel), _col(rank)
    grade = rel_c.cast("double")
    value = grade
    for level, given in dict(gains or ()).items():
        value = F.when(grade == F.lit(float(level)), F.lit(float(given))).otherwise(value)
    gain = F.coalesce(F.when(grade >= F.lit(0.0), value), F.lit(0.0))
    found = _in_rank_order(rank_c, gain)
    ideal = F.sort_array(F.collect_list(F.when(_is_judged(rel_c) & (gain > 0), gain)), asc=False)
    cells = F.transform(found, lambda x, i: F.struct(x.alias("g"), F.greatest(
        F.coalesce(F.get(ideal, i), F.lit(0.0)), F.lit(1.0)).alias("cost")))
    start = F.struct(F.lit(0.0).alias("c"), F.lit(0.0).alias("s"), F.lit(0.0).alias("t"))

    def step(acc: Column, x: Column) -> Column:
        c, s = acc["c"] + x["cost"], acc["s"] + x["g"]
        term = x["g"] / F.log2((F.lit(2.0) + c) - s)
        t = F.when(x["g"] != 0, acc["t"] + term).otherwise(acc["t"])
        return F.struct(c.alias("c"), s.alias("s"), t.alias("t"))

    total = F.aggregate(cells, start, step)["t"]
    return _ratio(total, _sum_array(ideal)).alias(label("g", None))


# --------------------------------------------------------------------------------------
# Rank correlation and overlap (docs/semantics.md#rank-correlation-and-overlap)
# --------------------------------------------------------------------------------------


def _let(value: Column, body: Callable[[Column], Column]) -> Column:
    """``body(value)`` with ``value`` computed once (a one-element array, transformed)."""
    return F.element_at(F.transform(F.array(value), body), 1)


def _safe_ratio(numerator: Column, denominator: Column) -> Column:
    """numerator / denominator as a double, NULL where the denominator is not > 0 (no
    division by zero under ANSI mode)."""
    return numerator.cast("double") / F.when(denominator > 0, denominator.cast("double"))


def _compare(a: Column, b: Column) -> Column:
    """sign(a - b) by comparison (an int): exact for longs, 0 for inf against inf."""
    return (a > b).cast("int") - (a < b).cast("int")


def _kept_pairs(x: Column, y: Column) -> Column:
    """The group's (x, y) rows where neither is NULL or NaN, each in its own type.

    ``isnan`` reads a double cast of the value, which is NaN only for a NaN; the values
    themselves are compared uncast (a long beyond 2^53 keeps its identity)."""
    missing = x.isNull() | y.isNull() | F.isnan(x.cast("double")) | F.isnan(y.cast("double"))
    return F.collect_list(F.when(~missing, F.struct(x.alias("x"), y.alias("y"))))


def _pair_counts(x: Column, y: Column) -> Column:
    """Over the unordered pairs of kept rows, as doubles: s = concordant - discordant, the
    pairs tied in x (tx), in y (ty), in both (txy), and n0 = n(n - 1)/2. Every ordered pair
    of the collected rows is visited once (O(n^2)); the n self-pairs tie in both."""
    pairs = _kept_pairs(x, y)
    zero = F.lit(0).cast("long")
    start = F.struct(zero.alias("s"), zero.alias("tx"), zero.alias("ty"), zero.alias("txy"))

    def against(a: Column) -> Callable[[Column, Column], Column]:
        def step(acc: Column, b: Column) -> Column:
            cx, cy = _compare(a["x"], b["x"]), _compare(a["y"], b["y"])
            return F.struct(
                (acc["s"] + cx * cy).alias("s"),
                (acc["tx"] + (cx == 0).cast("long")).alias("tx"),
                (acc["ty"] + (cy == 0).cast("long")).alias("ty"),
                (acc["txy"] + ((cx == 0) & (cy == 0)).cast("long")).alias("txy"),
            )
        return step

    def add(acc: Column, a: Column) -> Column:
        row = F.aggregate(pairs, start, against(a))
        return F.struct(*[(acc[f] + row[f]).alias(f) for f in ("s", "tx", "ty", "txy")])

    def finish(c: Column) -> Column:
        n = F.size(pairs).cast("double")
        return F.struct(
            (c["s"].cast("double") / 2.0).alias("s"),
            *[((c[f].cast("double") - n) / 2.0).alias(f) for f in ("tx", "ty", "txy")],
            (n * (n - 1.0) / 2.0).alias("n0"),
        )

    return F.aggregate(pairs, start, add, finish)


@validated(METRICS["kendall_tau"])
def kendall_tau(x: IntoColumn = "x", *, y: IntoColumn = "y") -> Column:
    """Kendall's tau-b between two columns, with ties (Kendall 1945).

    Contract: docs/semantics.md#kendall_tau.

    ``tau_b = (C - D) / sqrt((n0 - n1) * (n0 - n2))``, C / D the concordant / discordant
    pairs, n0 = n(n - 1)/2, n1 / n2 the pairs tied in x / in y. Rows with a NULL or NaN
    are dropped; values are compared in their own type (``-0.0 = 0.0``, inf = inf, longs
    exactly). Fewer than two rows or a constant column gives 0.0. O(n^2) per group.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``kendall_tau``.
    """
    def tau(c: Column) -> Column:
        spread = (c["n0"] - c["tx"]) * (c["n0"] - c["ty"])
        valid = (c["n0"] - c["tx"] > 0) & (c["n0"] - c["ty"] > 0)
        return F.when(valid, c["s"] / F.sqrt(F.when(valid, spread))).otherwise(F.lit(0.0))

    return _let(_pair_counts(_col(x), _col(y)), tau).alias("kendall_tau")


@validated(METRICS["kendall_distance"])
def kendall_distance(x: IntoColumn = "x", *, y: IntoColumn = "y", penalty: float = 0.0
                     ) -> Column:
    """Normalised Kendall distance ``K = (D + penalty * T) / (n(n - 1)/2)`` (Fagin et al.
    2004, ``K^(p)``): D discordant pairs, T pairs tied in exactly one column.

    Contract: docs/semantics.md#kendall_distance.

    Rows with a NULL or NaN are dropped; fewer than two rows gives 0.0. O(n^2) per group.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``kendall_distance``.
    """
    def distance(c: Column) -> Column:
        discordant = (c["n0"] - c["tx"] - c["ty"] + c["txy"] - c["s"]) / 2.0
        one_sided = c["tx"] + c["ty"] - 2.0 * c["txy"]
        value = _safe_ratio(discordant + F.lit(float(penalty)) * one_sided, c["n0"])
        return F.coalesce(value, F.lit(0.0))

    return _let(_pair_counts(_col(x), _col(y)), distance).alias("kendall_distance")


@validated(METRICS["spearman_rho"])
def spearman_rho(x: IntoColumn = "x", *, y: IntoColumn = "y") -> Column:
    """Spearman's rho: the Pearson correlation of the two columns' average ranks.

    Contract: docs/semantics.md#spearman_rho.

    ``rho = sum a_i b_i / sqrt(sum a_i^2 * sum b_i^2)`` with a, b the average ranks (ties
    share the mean of their positions: below + (equal + 1)/2) minus their mean (n + 1)/2.
    Rows with a NULL or NaN are dropped; fewer than two rows or a constant column gives
    0.0. O(n^2) per group (ranks by counting).

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``spearman_rho``.
    """
    pairs = _kept_pairs(_col(x), _col(y))
    centre = (F.size(pairs).cast("double") + 1.0) / 2.0

    def centred_rank(a: Column, field: str) -> Column:
        below = F.size(F.filter(pairs, lambda b: b[field] < a[field]))
        equal = F.size(F.filter(pairs, lambda b: b[field] == a[field]))
        return below.cast("double") + (equal.cast("double") + 1.0) / 2.0 - centre

    ranks = F.transform(pairs, lambda a: F.struct(centred_rank(a, "x").alias("a"),
                                                  centred_rank(a, "y").alias("b")))

    def rho(r: Column) -> Column:
        def total(term: Callable[[Column], Column]) -> Column:
            return _sum_array(F.transform(r, term))

        spread = total(lambda z: z["a"] * z["a"]) * total(lambda z: z["b"] * z["b"])
        value = total(lambda z: z["a"] * z["b"]) / F.sqrt(F.when(spread > 0, spread))
        return F.coalesce(value, F.lit(0.0))

    return _let(ranks, rho).alias("spearman_rho")


@validated(METRICS["rbo"])
def rbo(
    rank_a: IntoColumn = "rank_a",
    *,
    rank_b: IntoColumn = "rank_b",
    p: float = 0.9,
    depth: int | None = None,
    extrapolated: bool = True,
) -> Column:
    """Rank-biased overlap of two rankings (Webber, Moffat & Zobel 2010).

    Contract: docs/semantics.md#rbo.

    One row per document of either ranking, ``rank_a`` / ``rank_b`` its rank in A / B
    (NULL where absent); ``depth`` keeps ranks <= depth. With ``X_d`` the documents ranked
    <= d in both, s <= l the two lengths (deepest ranks) and ``w_d = p^d / d``:

    - RBO_ext: ``(1-p)/p * (sum_{d<=l} X_d w_d + X_s/s * sum_{s<d<=l} (d - s) w_d)
      + ((X_l - X_s)/l + X_s/s) * p^l``;
    - RBO_min: ``(1-p)/p * (sum_{d<=l} (X_d - X_l) w_d - X_l ln(1 - p))``.

    ``sum X_d w_d`` is one fold over the depths 1..l merged with the documents' depths
    ``max(rank_a, rank_b)`` (sorted, a document before its depth): O((l + n) log(l + n)).
    An empty list on either side gives 0.0.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``rbo``.
    """
    a, b = _col(rank_a).cast("long"), _col(rank_b).cast("long")
    if depth is not None:
        a = F.when(a <= F.lit(depth), a)
        b = F.when(b <= F.lit(depth), b)
    len_a = F.coalesce(F.max(a), F.lit(0).cast("long"))
    len_b = F.coalesce(F.max(b), F.lit(0).cast("long"))
    both = F.collect_list(F.when(a.isNotNull() & b.isNotNull(), F.greatest(a, b)))
    summary = F.struct(F.least(len_a, len_b).alias("s"), F.greatest(len_a, len_b).alias("l"),
                       both.alias("both"))
    pf = F.lit(float(p))

    def value(g: Column) -> Column:
        s, length = g["s"], g["l"]
        documents = F.transform(g["both"], lambda m: F.struct(m.alias("d"), F.lit(0).alias("e")))
        depths = F.transform(F.sequence(F.lit(1).cast("long"), F.greatest(length, F.lit(1))),
                             lambda d: F.struct(d.alias("d"), F.lit(1).alias("e")))
        events = F.array_sort(F.concat(documents, depths))
        start = F.struct(F.lit(0).cast("long").alias("x"), F.lit(0.0).alias("xw"),
                         F.lit(0.0).alias("w"), F.lit(0.0).alias("beyond"))

        def step(acc: Column, ev: Column) -> Column:
            d = ev["d"].cast("double")
            w = F.when(ev["e"] == 1, F.pow(pf, d) / d).otherwise(F.lit(0.0))
            return F.struct(
                (acc["x"] + (F.lit(1) - ev["e"]).cast("long")).alias("x"),
                (acc["xw"] + acc["x"].cast("double") * w).alias("xw"),
                (acc["w"] + w).alias("w"),
                (acc["beyond"] + F.greatest(d - s.cast("double"), F.lit(0.0)) * w)
                .alias("beyond"),
            )

        sums = F.aggregate(events, start, step)
        x_long = F.size(g["both"]).cast("double")
        x_short = F.size(F.filter(g["both"], lambda m: m <= s)).cast("double")
        scale = F.lit((1.0 - p) / p)
        if extrapolated:
            rate = _safe_ratio(x_short, s)
            tail = (_safe_ratio(x_long - x_short, length) + rate) * F.pow(pf, length.cast("double"))
            result = scale * (sums["xw"] + rate * sums["beyond"]) + tail
        else:
            result = scale * (sums["xw"] - x_long * sums["w"] - x_long * F.lit(math.log1p(-p)))
        return F.when(s > 0, result).otherwise(F.lit(0.0))

    return _let(summary, value).alias("rbo")


# --------------------------------------------------------------------------------------
# Tie-aware metrics (docs/semantics.md#tie-aware-metrics): columns rel, tie_first, tie_size
# --------------------------------------------------------------------------------------


def _tie_last(first: Column, size: Column, k: int | None) -> Column:
    """Last position of the group inside the cutoff (below ``first``: none inside)."""
    last = first + size - F.lit(1)
    return last if k is None else F.least(last, F.lit(k).cast("long"))


def _expected_hits(rel: Column, first: Column, size: Column, k: int | None,
                   threshold: float) -> Column:
    """Sum over relevant retrieved rows of c(k)/t, the chance each lands in the top k."""
    inside = F.greatest(_tie_last(first, size, k) - first + F.lit(1), F.lit(0))
    share = inside.cast("double") / size.cast("double")
    return F.coalesce(F.sum(F.when(_relevant(rel, threshold) & first.isNotNull(), share)),
                      F.lit(0.0))


def _positions_sum(first: Column, last: Column, term: Callable[[Column], Column]) -> Column:
    """sum over i = first .. last of term(i) (a double), 0.0 when last < first."""
    terms = F.transform(F.sequence(first, F.greatest(last, first)), term)
    return F.when(last >= first, _sum_array(terms)).otherwise(F.lit(0.0))


def _expected_dcg(rel: Column, first: Column, size: Column, k: int | None, kind: Gain
                  ) -> Column:
    discounts = _positions_sum(first, _tie_last(first, size, k),
                               lambda i: F.lit(1.0) / _discount(i))
    per_row = _gain(rel, kind) / size.cast("double") * discounts
    return F.coalesce(F.sum(F.when(first.isNotNull(), per_row)), F.lit(0.0))


def _relevant_groups(rel: Column, first: Column, size: Column, threshold: float) -> Column:
    """The (f, t) tie group of every relevant retrieved row, as an array."""
    group = F.struct(first.cast("long").alias("f"), size.cast("long").alias("t"))
    return F.collect_list(F.when(_relevant(rel, threshold) & first.isNotNull(), group))


@validated(METRICS["precision_ties"])
def precision_ties(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    tie_first: IntoColumn = "tie_first",
    tie_size: IntoColumn = "tie_size",
    threshold: float = 1,
    divisor: PrecisionDivisor = "k",
) -> Column:
    """Expected precision at k over the orderings of tied rows (McSherry & Najork 2008).

    Contract: docs/semantics.md#precision_ties.

    ``E[P@k] = (sum over groups of r * c(k) / t) / k`` (``divisor="min"``: ``/ min(k, n)``;
    ``k=None``: relevant retrieved / n), c(k) the group's positions inside the top k.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``P_ties@k``.
    """
    rel_c, first, size = _col(rel), _col(tie_first), _col(tie_size)
    hits = _expected_hits(rel_c, first, size, k, threshold)
    n = _count(first.isNotNull())
    if k is None:
        value = _ratio(hits, n)
    elif divisor == "k":
        value = hits / F.lit(float(k))
    else:
        value = _ratio(hits, F.least(n, F.lit(k).cast("long")))
    return value.alias(label("precision_ties", k))


@validated(METRICS["recall_ties"])
def recall_ties(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    tie_first: IntoColumn = "tie_first",
    tie_size: IntoColumn = "tie_size",
    threshold: float = 1,
) -> Column:
    """Expected recall at k: ``(sum over groups of r * c(k) / t) / R``; R = 0 gives 0.

    Contract: docs/semantics.md#recall_ties.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``recall_ties@k``.
    """
    rel_c, first, size = _col(rel), _col(tie_first), _col(tie_size)
    hits = _expected_hits(rel_c, first, size, k, threshold)
    return _ratio(hits, _count(_relevant(rel_c, threshold))).alias(label("recall_ties", k))


@validated(METRICS["dcg_ties"])
def dcg_ties(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    tie_first: IntoColumn = "tie_first",
    tie_size: IntoColumn = "tie_size",
    gain: Gain = "linear",
) -> Column:
    """Expected DCG at k: ``sum over retrieved rows of g(rel) / t * sum over positions
    i = f .. min(f + t - 1, k) of 1 / log2(i + 1)``.

    Contract: docs/semantics.md#dcg_ties.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``dcg_ties@k``.
    """
    value = _expected_dcg(_col(rel), _col(tie_first), _col(tie_size), k, gain)
    return value.alias(label("dcg_ties", k))


@validated(METRICS["ndcg_ties"])
def ndcg_ties(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    tie_first: IntoColumn = "tie_first",
    tie_size: IntoColumn = "tie_size",
    gain: Gain = "linear",
    ideal: Ideal = "all",
) -> Column:
    """Expected nDCG at k: ``E[DCG@k] / IDCG@k`` (ties do not change the ideal; ``ideal=
    "retrieved"`` keeps the rows with a tie group); IDCG = 0 gives 0.

    Contract: docs/semantics.md#ndcg_ties.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``ndcg_ties@k``.
    """
    rel_c, first, size = _col(rel), _col(tie_first), _col(tie_size)
    value = _ratio(_expected_dcg(rel_c, first, size, k, gain),
                   _idcg(rel_c, first, k, gain, ideal))
    return value.alias(label("ndcg_ties", k))


@validated(METRICS["reciprocal_rank_ties"])
def reciprocal_rank_ties(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    tie_first: IntoColumn = "tie_first",
    tie_size: IntoColumn = "tie_size",
    threshold: float = 1,
) -> Column:
    """Expected reciprocal rank at k.

    Contract: docs/semantics.md#reciprocal_rank_ties.

    The first group holding a relevant row (position f, size t, r relevant) decides:
    ``E[RR@k] = sum over j = 1 .. min(t - r + 1, k - f + 1) of P_j / (f + j - 1)`` with
    ``P_1 = r / t`` and ``P_j = P_(j-1) * (t - r - j + 2) / (t - j + 1)``, folded with
    ``aggregate``. No relevant row within k gives 0.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``mrr_ties@k``.
    """
    groups = _relevant_groups(_col(rel), _col(tie_first), _col(tie_size), threshold)
    f = F.array_min(F.transform(groups, lambda g: g["f"]))
    first_group = F.filter(groups, lambda g: g["f"] == f)
    summary = F.struct(f.alias("f"), F.size(first_group).cast("long").alias("r"),
                       F.get(first_group, 0)["t"].alias("t"))

    def value(c: Column) -> Column:
        f_, r, t = c["f"].cast("double"), c["r"].cast("double"), c["t"].cast("double")
        steps = c["t"] - c["r"] + F.lit(1)
        if k is not None:
            steps = F.least(steps, F.lit(k) - c["f"] + F.lit(1))
        start = F.struct(F.lit(0.0).alias("chance"), F.lit(0.0).alias("value"))

        def step(acc: Column, j: Column) -> Column:
            jf = j.cast("double")
            chance = F.when(j == 1, r / t).otherwise(
                acc["chance"] * (t - r - jf + 2.0) / (t - jf + 1.0))
            return F.struct(chance.alias("chance"),
                            (acc["value"] + chance / (f_ + jf - 1.0)).alias("value"))

        total = F.aggregate(F.sequence(F.lit(1).cast("long"), F.greatest(steps, F.lit(1))),
                            start, step, lambda acc: acc["value"])
        return F.when(c["f"].isNotNull() & (steps >= 1), total).otherwise(F.lit(0.0))

    return _let(summary, value).alias(label("reciprocal_rank_ties", k))


@validated(METRICS["average_precision_ties"])
def average_precision_ties(
    rel: IntoColumn = "rel",
    k: int | None = None,
    *,
    tie_first: IntoColumn = "tie_first",
    tie_size: IntoColumn = "tie_size",
    threshold: float = 1,
    divisor: TiedAPDivisor = "relevant",
) -> Column:
    """Expected average precision at k.

    Contract: docs/semantics.md#average_precision_ties.

    For a relevant row in a group (position f, size t, r relevant, h relevant rows in
    earlier groups): ``(1/t) * sum over j = 1 .. min(t, k - f + 1) of
    (h + 1 + (j - 1)(r - 1)/(t - 1)) / (f + j - 1)``; summed over the relevant retrieved
    rows and divided by D = R (``"relevant"``) or ``min(R, k)`` (``"min"``); D = 0 gives 0.
    h and r are counted in the collected (f, t) array: O(n^2) in the relevant rows.

    Returns
    -------
    Column
        A DoubleType aggregate aliased ``map_ties@k``.
    """
    rel_c = _col(rel)
    groups = _relevant_groups(rel_c, _col(tie_first), _col(tie_size), threshold)

    def term(a: Column) -> Column:
        f, t = a["f"], a["t"]
        before = F.size(F.filter(groups, lambda b: b["f"] < f)).cast("double")
        in_group = F.size(F.filter(groups, lambda b: b["f"] == f)).cast("double")
        last = _tie_last(f, t, k)
        harmonic = _positions_sum(f, last, lambda i: F.lit(1.0) / i.cast("double"))
        offsets = _positions_sum(f, last, lambda i: (i - f).cast("double") / i.cast("double"))
        tf = t.cast("double")
        slope = F.when(t > 1, (in_group - 1.0) / (tf - 1.0)).otherwise(F.lit(0.0))
        return ((before + 1.0) * harmonic + slope * offsets) / tf

    total = _sum_array(F.transform(groups, term))
    r_count = _count(_relevant(rel_c, threshold))
    if divisor == "min" and k is not None:
        r_count = F.least(r_count, F.lit(k).cast("long"))
    return _ratio(total, r_count).alias(label("average_precision_ties", k))


# --------------------------------------------------------------------------------------
# From a run and qrels to the judged long table
# (docs/semantics.md#from-a-run-and-qrels-to-the-judged-table)
# --------------------------------------------------------------------------------------

_Kind = Literal["id", "numeric"]
_INTEGRAL = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)
#: How many offending (query, doc) pairs an input error names.
_NAMED_PROBLEMS = 3


def judge(
    run: DataFrame,
    qrels: DataFrame,
    *,
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    rel: str = "rel",
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
        Column names.
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
    depth = validation.cutoff(fn, depth, name="depth")
    ties = validation.choice(fn, "ties", ties, ("docid", "average"))
    judged_only = validation.check(fn, "judged_only", "flag", judged_only)
    names = {"query": query, "doc": doc, "score": score, "rel": rel}
    if len(set(names.values()) | {"rank"}) != len(names) + 1:
        raise ValueError(
            f"{fn}: query, doc, score and rel must be distinct column names other than "
            f"'rank'; got {names}"
        )
    _require(fn, "run", run, {query: "id", doc: "id", score: "numeric"})
    _require(fn, "qrels", qrels, {query: "id", doc: "id", rel: "numeric"})
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
    _require(fn, "run", run, {query: "id"})
    _require(fn, "qrels", qrels, {query: "id"})
    id_type = _id_type(fn, query, run, qrels)
    run_queries = run.select(F.col(query).cast(id_type).alias(query)).distinct()
    known = qrels.select(F.col(query).cast(id_type).alias(query)).distinct()
    return run_queries.join(known, on=query, how="left_anti").orderBy(query)


def _is_text(dtype: T.DataType) -> bool:
    return isinstance(dtype, T.StringType)


def _require(fn: str, side: str, frame: DataFrame, columns: Mapping[str, _Kind]) -> None:
    """Raise if a column is missing or of the wrong kind of type."""
    schema = {f.name: f.dataType for f in frame.schema.fields}
    missing = [c for c in columns if c not in schema]
    if missing:
        have = ", ".join(repr(c) for c in schema)
        raise InputError(
            f"{fn}: the {side} has no column {', '.join(repr(c) for c in missing)}; "
            f"its columns are: {have}"
        )
    for name, kind in columns.items():
        dtype = schema[name]
        if kind == "id" and not (_is_text(dtype) or isinstance(dtype, _INTEGRAL)):
            raise InputError(
                f"{fn}: column {name!r} of the {side} must hold string or integer ids, "
                f"got {dtype.simpleString()}"
            )
        if kind == "numeric" and not isinstance(dtype, T.NumericType):
            raise InputError(
                f"{fn}: column {name!r} of the {side} must be numeric, got {dtype.simpleString()}"
            )


def _id_type(fn: str, name: str, run: DataFrame, qrels: DataFrame) -> T.DataType:
    """The type both sides' ids are cast to: strings, or integers widened to long."""
    run_type, qrels_type = run.schema[name].dataType, qrels.schema[name].dataType
    if _is_text(run_type) and _is_text(qrels_type):
        return T.StringType()
    if not _is_text(run_type) and not _is_text(qrels_type):
        return run_type if run_type == qrels_type else T.LongType()
    raise InputError(
        f"{fn}: column {name!r} is {run_type.simpleString()} in the run but "
        f"{qrels_type.simpleString()} in the qrels; ids must be strings on both sides or "
        f"integers on both sides (cast one, e.g. F.col({name!r}).cast('string'))"
    )


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
        .limit(_NAMED_PROBLEMS)
        .collect()
    )
    if rows:
        raise InputError(_problem_message(fn, query, doc, rows))


def _problem_message(fn: str, query: str, doc: str, rows: list[Row]) -> str:
    """Describe the first offending (query, doc) pairs of one side and kind."""
    first = rows[0]
    same = [r for r in rows if r["side"] == first["side"] and r["kind"] == first["kind"]]
    side = first["side"]
    where = f"query {first['query']!r}, document {first['doc']!r}"
    if first["kind"] == 0:
        column = query if first["query"] is None else doc
        return f"{fn}: column {column!r} of the {side} is NULL ({where})"
    if first["kind"] == 1:
        what = "NULL" if first["nulls"] > 0 else "NaN"
        return f"{fn}: column {first['value']!r} of the {side} is {what} ({where})"
    pairs = "; ".join(
        f"query {r['query']!r}, document {r['doc']!r} ({r['rows']} rows)" for r in same
    )
    return (
        f"{fn}: duplicate ({query}, {doc}) in the {side}: {pairs}; "
        "each pair may appear only once"
    )


# --------------------------------------------------------------------------------------
# Measure strings, and the face protocol
# --------------------------------------------------------------------------------------


def column(metric: Metric, columns: Mapping[str, str], values: Mapping[str, Any]) -> Column:
    """The metric's aggregate column for these column names and parameter values."""
    build: Callable[..., Column] = getattr(sys.modules[__name__], metric.name)
    args, kwargs = metric.arguments(columns, values)
    return build(*args, **kwargs)


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
             pl.Boolean: "boolean", pl.Null: "double", pl.Enum: "string",
             pl.Categorical: "string"}
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
    judge_ties: frozenset[Ties] = frozenset({"docid", "average"})
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

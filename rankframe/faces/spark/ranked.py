"""Rank-sensitive binary metrics as Spark aggregates: reciprocal rank, average precision,
R-precision, bpref, infAP, yaAP, relstring and interpolated precision (the Spark twin of
:mod:`rankframe.faces.polars.ranked`). Most collect the ranks of the relevant retrieved rows as
one sorted array per query and fold over it in rank order."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from rankframe.faces.polars.expr import label
from rankframe.faces.polars.ranked import APDivisor, RecallRounding
from rankframe.faces.spark.columns import (
    IntoColumn,
    builder,
    col,
    count,
    judged_nonrelevant,
    ratio,
    relevant,
    retrieved,
    sum_array,
)
from rankframe.registry import METRICS


def _relevant_ranks(rel: Column, rank: Column, k: int | None, threshold: float) -> Column:
    """Array of the ranks of the relevant retrieved rows within the cutoff, ascending.

    ``collect_list`` skips the NULLs that ``when`` yields for the other rows, so a query
    without such rows gives an empty array.
    """
    chosen = F.when(relevant(rel, threshold) & retrieved(rank, k), rank.cast("long"))
    return F.array_sort(F.collect_list(chosen))


def _precisions(ranks: Column) -> Column:
    """For ascending relevant ranks r_1 < r_2 < ..., the precisions j / r_j (doubles)."""
    return F.transform(ranks, lambda r, i: (i + 1).cast("double") / r)


@builder(METRICS["reciprocal_rank"])
def reciprocal_rank(rel: IntoColumn = "rel", k: int | None = None, *, rank: IntoColumn = "rank",
                    threshold: float = 1) -> Column:
    """Reciprocal rank at k: ``1 / r_1`` for the first relevant rank r_1 <= k, else 0.

    Contract: docs/semantics.md#reciprocal_rank.

    Computed with the native ``min`` aggregate over the relevant ranks within k.
    """
    rel_c, rank_c = col(rel), col(rank)
    first = F.min(F.when(relevant(rel_c, threshold) & retrieved(rank_c, k), rank_c))
    value = F.coalesce(F.lit(1.0) / first.cast("double"), F.lit(0.0))
    return value.alias(label("reciprocal_rank", k))


@builder(METRICS["average_precision"])
def average_precision(rel: IntoColumn = "rel", k: int | None = None, *, rank: IntoColumn = "rank",
                      threshold: float = 1, divisor: APDivisor = "relevant") -> Column:
    """Average precision at k (trec_eval ``map`` / ``map_cut_k``).

    Contract: docs/semantics.md#average_precision.

    ``AP@k = (sum over relevant r_j <= k of j / r_j) / D`` where r_j is the rank of the
    j-th relevant retrieved row, and D = R (``"relevant"``, trec_eval), ``min(R, k)``
    (``"min"``, the recommender MAP@k) or the relevant rows found in the top k
    (``"found"``). D = 0 gives 0.
    """
    rel_c, rank_c = col(rel), col(rank)
    ranks = _relevant_ranks(rel_c, rank_c, k, threshold)
    total = sum_array(_precisions(ranks))
    r_count = count(relevant(rel_c, threshold))
    if divisor == "relevant":
        denominator = r_count
    elif divisor == "min":
        denominator = r_count if k is None else F.least(r_count, F.lit(k).cast("long"))
    else:
        denominator = F.size(ranks)
    return ratio(total, denominator).alias(label("average_precision", k))


@builder(METRICS["r_precision"])
def r_precision(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank",
                threshold: float = 1) -> Column:
    """R-precision (trec_eval ``Rprec``): relevant rows with rank <= R, divided by R; 0 if R = 0.

    Contract: docs/semantics.md#r_precision.
    """
    rel_c, rank_c = col(rel), col(rank)
    r_count = count(relevant(rel_c, threshold))
    ranks = _relevant_ranks(rel_c, rank_c, None, threshold)
    hits_in_r = F.size(F.filter(ranks, lambda r: r <= r_count))
    return ratio(hits_in_r, r_count).alias(label("r_precision", None))


@builder(METRICS["bpref"])
def bpref(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank", threshold: float = 1) -> Column:
    """Binary preference (Buckley & Voorhees 2004, as in trec_eval ``bpref``).

    Contract: docs/semantics.md#bpref.

    ``bpref = (1/R) * sum over retrieved relevant r of (1 - min(nr, R) / min(N, R))``
    where nr = judged non-relevant rows (0 <= rel < threshold) ranked above r and N =
    judged non-relevant rows of the query; a term is 1 when nr = 0. Unjudged (NULL) and
    negative grades are skipped. R = 0 gives 0.

    The judged retrieved rows are collected as (rank, relevant) pairs and sorted by
    rank; the j-th relevant one at position p of that list has nr = p - j.
    """
    rel_c, rank_c = col(rel), col(rank)
    is_relevant = relevant(rel_c, threshold)
    r_count = count(is_relevant)
    n_count = count(judged_nonrelevant(rel_c, threshold))
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

    return ratio(sum_array(F.transform(positions, term)), r_count).alias(label("bpref", None))


@builder(METRICS["infap"])
def infap(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank", threshold: float = 1) -> Column:
    """Inferred average precision (Yilmaz & Aslam 2006, as in trec_eval ``infAP``).

    Contract: docs/semantics.md#infap.

    For the relevant retrieved row at rank r > 1 with a relevant, b judged non-relevant and
    u pooled-but-unjudged rows above it, j = r - 1, e = 0.00001:
    ``1/r + (j/r) * ((a + b + u)/j) * ((a + e)/(a + b + 2e))``; 1 at rank 1; the sum / R.
    """
    rel_c, rank_c = col(rel), col(rank)
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

    total = sum_array(F.transform(pooled, term))
    return ratio(total, count(relevant(rel_c, threshold))).alias(label("infap", None))


@builder(METRICS["yaap"])
def yaap(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank", threshold: float = 1) -> Column:
    """Yet another average precision (Robertson 2012, as in trec_eval ``yaap``).

    Contract: docs/semantics.md#yaap.

    ``ln((1 + S) / (1 + R - S))``, S = sum over the relevant retrieved rows of j / r_j.
    """
    rel_c, rank_c = col(rel), col(rank)
    total = sum_array(_precisions(_relevant_ranks(rel_c, rank_c, None, threshold)))
    big_r = count(relevant(rel_c, threshold)).cast("double")
    return F.log((1.0 + total) / ((1.0 + big_r) - total)).alias(label("yaap", None))


@builder(METRICS["relstring"])
def relstring(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank",
              length: int | None = 10) -> Column:
    """The grades of ranks 1 .. min(length, last rank) as a string (trec_eval ``relstring``).

    Contract: docs/semantics.md#relstring.

    The digit of a grade 0-9, '>' above 9, '-' outside the pool (NULL grade or a rank gap),
    '.' for a negative grade, '<' for a grade that is not whole; "" when nothing is
    retrieved.
    """
    rel_c, rank_c = col(rel), col(rank)
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


@builder(METRICS["iprec_at_recall"])
def iprec_at_recall(rel: IntoColumn = "rel", recall: float = 0.0, *, rank: IntoColumn = "rank",
                    threshold: float = 1, rounding: RecallRounding = "nearest") -> Column:
    """Interpolated precision at a recall level (trec_eval ``iprec_at_recall_x``).

    Contract: docs/semantics.md#iprec_at_recall.

    The highest precision ``j / r_j`` over relevant ranks j >= c (and j >= 1), where c
    relevant rows make up that recall level; 0 when fewer than c relevant rows are
    retrieved (or none). ``rounding="nearest"``: ``c = floor(recall * R + 0.5)`` (trec_eval
    10); ``"trec_eval9"``: ``c = floor(recall * R + 0.9)`` (trec_eval 9.x, pytrec_eval).

    The precisions ``j / r_j`` of the sorted relevant ranks are sliced from position c
    and their ``array_max`` taken.
    """
    offset = 0.5 if rounding == "nearest" else 0.9
    rel_c, rank_c = col(rel), col(rank)
    precisions = _precisions(_relevant_ranks(rel_c, rank_c, None, threshold))
    needed = F.floor(count(relevant(rel_c, threshold)) * F.lit(recall) + F.lit(offset))
    start = F.greatest(needed, F.lit(1).cast("long")).cast("int")
    reachable = F.slice(precisions, start, F.size(precisions))
    best = F.coalesce(F.array_max(reachable), F.lit(0.0))
    return best.alias(label("iprec_at_recall", recall))


@builder(METRICS["r_precision_mult"])
def r_precision_mult(rel: IntoColumn = "rel", multiple: float = 1.0, *, rank: IntoColumn = "rank",
                     threshold: float = 1) -> Column:
    """Precision at a multiple of R (trec_eval ``Rprec_mult_x``): relevant rows with rank
    <= c divided by c, ``c = floor(multiple * R + 0.9)`` (in double); 0 when c = 0.

    Contract: docs/semantics.md#r_precision_mult.
    """
    rel_c, rank_c = col(rel), col(rank)
    r_count = count(relevant(rel_c, threshold))
    cut = F.floor(r_count.cast("double") * F.lit(float(multiple)) + F.lit(0.9))
    ranks = _relevant_ranks(rel_c, rank_c, None, threshold)
    hits = F.size(F.filter(ranks, lambda r: r <= cut))
    return ratio(hits, cut).alias(label("r_precision_mult", multiple))

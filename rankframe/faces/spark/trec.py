"""trec_eval's contingency and gain measures as Spark aggregates: relative precision, set
MAP, utility, the judged non-relevant count, unjudged, binG and G (the Spark twin of
:mod:`rankframe.faces.polars.trec`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pyspark.sql import Column
from pyspark.sql import functions as F

from rankframe.faces.polars.expr import label
from rankframe.faces.spark.columns import (
    IntoColumn,
    builder,
    col,
    count,
    discount,
    is_judged,
    judged_nonrelevant,
    ratio,
    relevant,
    relevant_hits,
    retrieved,
    sum_array,
)
from rankframe.registry import METRICS


@builder(METRICS["relative_precision"])
def relative_precision(rel: IntoColumn = "rel", k: int | None = None, *, rank: IntoColumn = "rank",
                       threshold: float = 1) -> Column:
    """Relative precision at k: ``hits@k / min(k, R)``; ``k=None`` divides by ``min(n, R)``.

    Contract: docs/semantics.md#relative_precision. trec_eval ``relative_P_k``,
    ``set_relative_P``.
    """
    rel_c, rank_c = col(rel), col(rank)
    size = count(retrieved(rank_c)) if k is None else F.lit(k).cast("long")
    big_r = count(relevant(rel_c, threshold))
    return ratio(relevant_hits(rel_c, rank_c, k, threshold), F.least(size, big_r)).alias(
        label("relative_precision", k))


@builder(METRICS["set_map"])
def set_map(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank", threshold: float = 1
            ) -> Column:
    """Set MAP: ``hits^2 / (n R)``, 0 when n = 0 or R = 0.

    Contract: docs/semantics.md#set_map. trec_eval ``set_map``.
    """
    rel_c, rank_c = col(rel), col(rank)
    hits = relevant_hits(rel_c, rank_c, None, threshold)
    return ratio(hits * hits, count(retrieved(rank_c)) * count(relevant(rel_c, threshold))
                  ).alias(label("set_map", None))


@builder(METRICS["utility"])
def utility(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank", threshold: float = 1,
            a: float = 1.0, b: float = -1.0, c: float = 0.0, d: float = 0.0, num_docs: int = 0,
            empty: Literal["counts", "placeholder"] = "counts") -> Column:
    """Set utility ``a*hits + b*(n - hits) + c*(R - hits) + d*(num_docs + hits - n - R)``,
    added left to right; ``empty="placeholder"``: n = 1 when nothing is retrieved.

    Contract: docs/semantics.md#utility. trec_eval ``utility`` (``-m utility.a,b,c,d``).
    """
    rel_c, rank_c = col(rel), col(rank)
    hits = relevant_hits(rel_c, rank_c, None, threshold)
    n = count(retrieved(rank_c))
    if empty == "placeholder":
        n = F.greatest(n, F.lit(1).cast("long"))
    big_r = count(relevant(rel_c, threshold))

    def term(weight: float, cells: Column) -> Column:
        return F.lit(float(weight)) * cells.cast("double")

    value = (term(a, hits) + term(b, n - hits) + term(c, big_r - hits)
             + term(d, F.lit(num_docs).cast("long") + hits - n - big_r))
    return value.alias(label("utility", None))


@builder(METRICS["num_nonrel_judged_ret"])
def num_nonrel_judged_ret(rel: IntoColumn = "rel", k: int | None = None, *,
                          rank: IntoColumn = "rank", threshold: float = 1) -> Column:
    """Judged non-relevant rows (0 <= rel < threshold) with rank <= k (LongType).

    Contract: docs/semantics.md#num_nonrel_judged_ret.
    """
    rel_c, rank_c = col(rel), col(rank)
    return count(judged_nonrelevant(rel_c, threshold) & retrieved(rank_c, k)).alias(
        label("num_nonrel_judged_ret", k))


@builder(METRICS["unjudged"])
def unjudged(rel: IntoColumn = "rel", k: int | None = None, *, rank: IntoColumn = "rank"
             ) -> Column:
    """Unjudged rows (rel NULL or negative) with rank <= k, divided by k (by n when k is
    None; 0 when n = 0).

    Contract: docs/semantics.md#unjudged. trec_eval ``unj_k``.
    """
    rel_c, rank_c = col(rel), col(rank)
    top = count(retrieved(rank_c, k) & ~is_judged(rel_c))
    denominator = count(retrieved(rank_c)) if k is None else F.lit(k).cast("long")
    return ratio(top, denominator).alias(label("unjudged", k))


def _in_rank_order(rank: Column, value: Column) -> Column:
    """The values of the retrieved rows as an array in rank order."""
    pairs = F.collect_list(F.when(rank.isNotNull(), F.struct(rank.cast("long").alias("r"),
                                                             value.alias("v"))))
    return F.transform(F.array_sort(pairs), lambda s: s["v"])


@builder(METRICS["bin_g"])
def bin_g(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank", threshold: float = 1
          ) -> Column:
    """Binary G: ``(1/R) * sum over relevant retrieved rows of 1 / log2(2 + m)``, m the
    retrieved non-relevant rows above; terms added in rank order. 0 when R = 0.

    Contract: docs/semantics.md#bin_g. trec_eval ``binG``.
    """
    rel_c, rank_c = col(rel), col(rank)
    is_relevant = relevant(rel_c, threshold)
    positions = F.filter(F.transform(_in_rank_order(rank_c, is_relevant),
                                     lambda y, i: F.when(y, i + 1)), lambda p: p.isNotNull())
    # The (j+1)-th relevant row, at position p, has p - (j + 1) non-relevant rows above.
    terms = F.transform(positions, lambda p, j: F.lit(1.0) / discount(p - j))
    return ratio(sum_array(terms), count(is_relevant)).alias(label("bin_g", None))


@builder(METRICS["g"])
def g(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank",
      gains: Mapping[int, float] | Sequence[tuple[int, float]] | None = None) -> Column:
    """G, normalised gain: ``(1/I) * sum over positions i with g_i != 0 of
    g_i / log2((2 + C_i) - S_i)``; 0 when I = 0 (docs/semantics.md#g, trec_eval ``G``).

    The gains of the retrieved rows in rank order and the ideal gains in descending order
    are collected; one fold carries C_i, S_i and the sum of the terms.
    """
    rel_c, rank_c = col(rel), col(rank)
    grade = rel_c.cast("double")
    value = grade
    for level, given in dict(gains or ()).items():
        value = F.when(grade == F.lit(float(level)), F.lit(float(given))).otherwise(value)
    gain = F.coalesce(F.when(grade >= F.lit(0.0), value), F.lit(0.0))
    found = _in_rank_order(rank_c, gain)
    ideal = F.sort_array(F.collect_list(F.when(is_judged(rel_c) & (gain > 0), gain)), asc=False)
    cells = F.transform(found, lambda x, i: F.struct(x.alias("g"), F.greatest(
        F.coalesce(F.get(ideal, i), F.lit(0.0)), F.lit(1.0)).alias("cost")))
    start = F.struct(F.lit(0.0).alias("c"), F.lit(0.0).alias("s"), F.lit(0.0).alias("t"))

    def step(acc: Column, x: Column) -> Column:
        c, s = acc["c"] + x["cost"], acc["s"] + x["g"]
        term = x["g"] / F.log2((F.lit(2.0) + c) - s)
        t = F.when(x["g"] != 0, acc["t"] + term).otherwise(acc["t"])
        return F.struct(c.alias("c"), s.alias("s"), t.alias("t"))

    total = F.aggregate(cells, start, step)["t"]
    return ratio(total, sum_array(ideal)).alias(label("g", None))

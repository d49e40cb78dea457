"""Graded metrics as Spark aggregates: CG, DCG, the ideal DCG, nDCG and trec_eval's nDCG
variants (the Spark twin of :mod:`rankframe.faces.polars.gains`). Gains are collected with their
ranks and added in rank order, as trec_eval adds (docs/semantics.md#exactness)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyspark.sql import Column
from pyspark.sql import functions as F

from rankframe.faces.polars.expr import Gain, label
from rankframe.faces.polars.gains import Ideal
from rankframe.faces.spark import columns as cols
from rankframe.faces.spark.columns import IntoColumn
from rankframe.registry import METRICS


def _gains_in_rank_order(rel: Column, rank: Column, k: int | None, kind: Gain,
                         mapped: Any = None) -> Column:
    """Array of {r: rank, g: gain} of the retrieved rows within k of non-zero gain, by rank."""
    gains = cols.gain_of(rel, kind, mapped)
    chosen = F.when(cols.retrieved(rank, k) & (gains != 0),
                    F.struct(rank.cast("long").alias("r"), gains.alias("g")))
    return F.array_sort(F.collect_list(chosen))


def _dcg(rel: Column, rank: Column, k: int | None, kind: Gain, mapped: Any = None) -> Column:
    # g / log2(r + 1) added in rank order, as trec_eval: a fold, not the unordered F.sum
    # (docs/semantics.md#exactness).
    in_order = _gains_in_rank_order(rel, rank, k, kind, mapped)
    return cols.sum_array(F.transform(in_order, lambda s: s["g"] / cols.discount(s["r"])))


def ideal_dcg(rel: Column, rank: Column, k: int | None, kind: Gain, ideal: Ideal,
          mapped: Any = None) -> Column:
    gains = cols.gain_of(rel, kind, mapped)
    pool = gains > 0
    if ideal == "retrieved":
        pool = pool & rank.isNotNull()
    best = F.sort_array(F.collect_list(F.when(pool, gains)), asc=False)
    if k is not None:
        best = F.slice(best, 1, k)
    return cols.sum_array(F.transform(best, lambda g, i: g / cols.discount(i + 1)))


@cols.builder(METRICS["cg"])
def cg(rel: IntoColumn = "rel", k: int | None = None, *, rank: IntoColumn = "rank",
       gain: Gain = "linear") -> Column:
    """Cumulative gain at k: ``CG@k = sum over rank i <= k of g(rel_i)``.

    Contract: docs/semantics.md#cg.

    ``g(rel) = rel`` (``"linear"``) or ``2^rel - 1`` (``"exponential"``); NULL and
    grades <= 0 give 0.
    """
    rel_c, rank_c = cols.col(rel), cols.col(rank)
    in_order = _gains_in_rank_order(rel_c, rank_c, k, gain)  # added in rank order
    return cols.sum_array(F.transform(in_order, lambda s: s["g"])).alias(label("cg", k))


@cols.builder(METRICS["dcg"])
def dcg(rel: IntoColumn = "rel", k: int | None = None, *, rank: IntoColumn = "rank",
        gain: Gain = "linear", gains: Mapping[int, float] | None = None) -> Column:
    """Discounted cumulative gain at k: ``DCG@k = sum over i <= k of g(rel_i) / log2(i + 1)``;
    ``gains`` gives listed grades their own gain (trec_eval ``-m dcg.1=3,2=9``).

    Contract: docs/semantics.md#dcg.
    """
    return _dcg(cols.col(rel), cols.col(rank), k, gain, gains).alias(label("dcg", k))


@cols.builder(METRICS["idcg"])
def idcg(rel: IntoColumn = "rel", k: int | None = None, *, rank: IntoColumn = "rank",
         gain: Gain = "linear", ideal: Ideal = "all",
         gains: Mapping[int, float] | None = None) -> Column:
    """Ideal DCG at k: ``sum over i <= k of g*_i / log2(i + 1)``, g* the positive gains sorted
    descending; ``gains`` gives listed grades their own gain (trec_eval
    ``-m ideal_dcg.1=3,2=9``).

    Contract: docs/semantics.md#idcg.

    The ideal ranking is built from every row of the query, retrieved or not
    (``ideal="all"``, trec_eval) or from the retrieved rows only (``"retrieved"``).
    """
    return ideal_dcg(cols.col(rel), cols.col(rank), k, gain, ideal, gains).alias(label("idcg", k))


@cols.builder(METRICS["ndcg"])
def ndcg(rel: IntoColumn = "rel", k: int | None = None, *, rank: IntoColumn = "rank",
         gain: Gain = "linear", ideal: Ideal = "all",
         gains: Mapping[int, float] | None = None) -> Column:
    """Normalised DCG at k: ``nDCG@k = DCG@k / IDCG@k``, 0 when IDCG@k = 0; ``gains`` gives
    listed grades their own gain (trec_eval ``-m ndcg.1=3,2=9``).

    Contract: docs/semantics.md#ndcg.

    Examples
    --------
    >>> judged.groupBy("qid").agg(ndcg("rel", k=10)).agg(F.mean("`ndcg@10`"))  # doctest: +SKIP
    """
    rel_c, rank_c = cols.col(rel), cols.col(rank)
    value = cols.ratio(_dcg(rel_c, rank_c, k, gain, gains),
                   ideal_dcg(rel_c, rank_c, k, gain, ideal, gains))
    return value.alias(label("ndcg", k))


def _ideal_gains(rel: Column, gains: Any) -> Column:
    """The positive linear gains of every row, best first: the ideal ranking."""
    g = cols.gain_of(rel, "linear", gains)
    return F.sort_array(F.collect_list(F.when(g > 0, g)), asc=False)


def _running_ideal(best: Column) -> Column:
    """IDCG@1 .. IDCG@P of an ideal list, each added first to last."""
    return F.transform(best, lambda g, i: cols.sum_array(F.transform(
        F.slice(best, 1, i + 1), lambda h, j: h / cols.discount(j + 1))))


def _gain_points(rel: Column, rank: Column, gains: Any) -> Column:
    """The retrieved rows with a non-zero gain in rank order, as (r, g, d = g/log2(r+1))."""
    g = cols.gain_of(rel, "linear", gains)
    return F.array_sort(F.collect_list(F.when(
        rank.isNotNull() & (g != 0),
        F.struct(rank.cast("long").alias("r"), g.alias("g"),
                 (g / cols.discount(rank)).alias("d")))))


def _dcg_upto(points: Column, i: Column) -> Column:
    """DCG@i: the d of the points with r <= i, added in rank order."""
    return cols.sum_array(F.transform(F.filter(points, lambda p: p["r"] <= i), lambda p: p["d"]))


@cols.builder(METRICS["ndcg_rel"])
def ndcg_rel(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank",
             gains: Mapping[int, float] | None = None) -> Column:
    """nDCG averaged over the relevant rows (trec_eval ``ndcg_rel``, experimental).

    Contract: docs/semantics.md#ndcg_rel.

    ``(1/Rg) * (sum over retrieved rows r with g > 0 of DCG@r / IDCG@min(r, Rg)
    + (Rg - found) * DCG / IDCG)``; 0 when Rg = 0 or the sum is <= 0.
    """
    rel_c, rank_c = cols.col(rel), cols.col(rank)
    best, points = _ideal_gains(rel_c, gains), _gain_points(rel_c, rank_c, gains)

    def value(ideal_at: Column) -> Column:
        big_r = F.size(ideal_at)
        hits = F.filter(points, lambda p: p["g"] > 0)
        terms = F.transform(hits, lambda p: _dcg_upto(points, p["r"])
                            / F.get(ideal_at, F.least(p["r"], big_r) - 1))
        rest = ((big_r - F.size(hits)).cast("double") * _dcg_upto(points, F.lit(2**62))
                / F.get(ideal_at, big_r - 1))
        total = cols.sum_array(terms) + rest
        return F.when((big_r > 0) & (total > 0), total / big_r).otherwise(F.lit(0.0))

    return cols.let(_running_ideal(best), value).alias(label("ndcg_rel", None))


@cols.builder(METRICS["rndcg"])
def rndcg(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank", threshold: float = 1,
          gains: Mapping[int, float] | None = None) -> Column:
    """nDCG averaged at the R-levels of the ideal ranking (trec_eval ``Rndcg``, experimental).

    Contract: docs/semantics.md#rndcg.

    The mean of DCG@i / IDCG@i over the positions i <= P after which the ideal gain
    changes, and of DCG@n / IDCG@P when the last rank n > P + 1; 0 without a relevant row.
    """
    rel_c, rank_c = cols.col(rel), cols.col(rank)
    best, points = _ideal_gains(rel_c, gains), _gain_points(rel_c, rank_c, gains)
    last = F.coalesce(F.max(rank_c).cast("long"), F.lit(0).cast("long"))
    has_relevant = cols.count(cols.relevant(rel_c, threshold)) > 0

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
                      cols.sum_array(every) / F.size(every)).otherwise(F.lit(0.0))

    return cols.let(_running_ideal(best), value).alias(label("rndcg", None))


@cols.builder(METRICS["ndcg_p"])
def ndcg_p(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank", threshold: float = 1,
           gains: Mapping[int, float] | None = None) -> Column:
    """nDCG with rank 1 undiscounted and rank i > 1 divided by log2(i) (trec_eval ``ndcg_p``).

    Contract: docs/semantics.md#ndcg_p.

    0 when no relevant row is retrieved or the ideal DCG is 0.
    """
    rel_c, rank_c = cols.col(rel), cols.col(rank)

    def first_free(position: Column) -> Column:
        """1 at rank 1, C's log2(i) below (discount of i - 1)."""
        return F.when(position == 1, F.lit(1.0)).otherwise(cols.discount(position - F.lit(1)))

    top = cols.sum_array(F.transform(_gain_points(rel_c, rank_c, gains),
                                 lambda p: p["g"] / first_free(p["r"])))
    best = cols.sum_array(F.transform(_ideal_gains(rel_c, gains),
                                  lambda g, i: g / first_free(i + 1)))
    found = cols.count(cols.relevant(rel_c, threshold) & rank_c.isNotNull())
    return F.when(found > 0, cols.ratio(top, best)).otherwise(F.lit(0.0)).alias(
        label("ndcg_p", None))

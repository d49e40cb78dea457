"""Tie-aware metrics as Spark aggregates over the columns ``rel``, ``tie_first`` and
``tie_size``: the closed forms of :mod:`rankframe.faces.polars.tied` (McSherry & Najork 2008),
docs/semantics.md#tie-aware-metrics."""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F

from rankframe.faces.polars.counts import PrecisionDivisor
from rankframe.faces.polars.expr import Gain, label
from rankframe.faces.polars.gains import Ideal
from rankframe.faces.polars.tied import TiedAPDivisor
from rankframe.faces.spark import columns as cols
from rankframe.faces.spark.columns import IntoColumn
from rankframe.faces.spark.counts import precision_from_hits
from rankframe.faces.spark.gains import ideal_dcg
from rankframe.registry import METRICS


def _tie_last(first: Column, size: Column, k: int | None) -> Column:
    """Last position of the group inside the cutoff (below ``first``: none inside)."""
    last = first + size - F.lit(1)
    return last if k is None else F.least(last, F.lit(k).cast("long"))


def _expected_hits(rel: Column, first: Column, size: Column, k: int | None,
                   threshold: float) -> Column:
    """Sum over relevant retrieved rows of c(k)/t, the chance each lands in the top k."""
    inside = F.greatest(_tie_last(first, size, k) - first + F.lit(1), F.lit(0))
    share = inside.cast("double") / size.cast("double")
    return F.coalesce(F.sum(F.when(cols.relevant(rel, threshold) & first.isNotNull(), share)),
                      F.lit(0.0))


def _positions_sum(first: Column, last: Column, term: Callable[[Column], Column]) -> Column:
    """sum over i = first .. last of term(i) (a double), 0.0 when last < first."""
    terms = F.transform(F.sequence(first, F.greatest(last, first)), term)
    return F.when(last >= first, cols.sum_array(terms)).otherwise(F.lit(0.0))


def _expected_dcg(rel: Column, first: Column, size: Column, k: int | None, kind: Gain
                  ) -> Column:
    discounts = _positions_sum(first, _tie_last(first, size, k),
                               lambda i: F.lit(1.0) / cols.discount(i))
    per_row = cols.gain_of(rel, kind) / size.cast("double") * discounts
    return F.coalesce(F.sum(F.when(first.isNotNull(), per_row)), F.lit(0.0))


def _relevant_groups(rel: Column, first: Column, size: Column, threshold: float) -> Column:
    """The (f, t) tie group of every relevant retrieved row, as an array."""
    group = F.struct(first.cast("long").alias("f"), size.cast("long").alias("t"))
    return F.collect_list(F.when(cols.relevant(rel, threshold) & first.isNotNull(), group))


@cols.builder(METRICS["precision_ties"])
def precision_ties(rel: IntoColumn = "rel", k: int | None = None, *,
                   tie_first: IntoColumn = "tie_first", tie_size: IntoColumn = "tie_size",
                   threshold: float = 1, divisor: PrecisionDivisor = "k") -> Column:
    """Expected precision at k over the orderings of tied rows (McSherry & Najork 2008).

    Contract: docs/semantics.md#precision_ties.

    ``E[P@k] = (sum over groups of r * c(k) / t) / k`` (``divisor="min"``: ``/ min(k, n)``;
    ``k=None``: relevant retrieved / n), c(k) the group's positions inside the top k.
    """
    rel_c, first, size = cols.col(rel), cols.col(tie_first), cols.col(tie_size)
    hits = _expected_hits(rel_c, first, size, k, threshold)
    value = precision_from_hits(hits, cols.count(first.isNotNull()), k, divisor)
    return value.alias(label("precision_ties", k))


@cols.builder(METRICS["recall_ties"])
def recall_ties(rel: IntoColumn = "rel", k: int | None = None, *,
                tie_first: IntoColumn = "tie_first", tie_size: IntoColumn = "tie_size",
                threshold: float = 1) -> Column:
    """Expected recall at k: ``(sum over groups of r * c(k) / t) / R``; R = 0 gives 0.

    Contract: docs/semantics.md#recall_ties.
    """
    rel_c, first, size = cols.col(rel), cols.col(tie_first), cols.col(tie_size)
    hits = _expected_hits(rel_c, first, size, k, threshold)
    recall = cols.ratio(hits, cols.count(cols.relevant(rel_c, threshold)))
    return recall.alias(label("recall_ties", k))


@cols.builder(METRICS["dcg_ties"])
def dcg_ties(rel: IntoColumn = "rel", k: int | None = None, *, tie_first: IntoColumn = "tie_first",
             tie_size: IntoColumn = "tie_size", gain: Gain = "linear") -> Column:
    """Expected DCG at k: ``sum over retrieved rows of g(rel) / t * sum over positions
    i = f .. min(f + t - 1, k) of 1 / log2(i + 1)``.

    Contract: docs/semantics.md#dcg_ties.
    """
    value = _expected_dcg(cols.col(rel), cols.col(tie_first), cols.col(tie_size), k, gain)
    return value.alias(label("dcg_ties", k))


@cols.builder(METRICS["ndcg_ties"])
def ndcg_ties(rel: IntoColumn = "rel", k: int | None = None, *,
              tie_first: IntoColumn = "tie_first", tie_size: IntoColumn = "tie_size",
              gain: Gain = "linear", ideal: Ideal = "all") -> Column:
    """Expected nDCG at k: ``E[DCG@k] / IDCG@k`` (ties do not change the ideal; ``ideal=
    "retrieved"`` keeps the rows with a tie group); IDCG = 0 gives 0.

    Contract: docs/semantics.md#ndcg_ties.
    """
    rel_c, first, size = cols.col(rel), cols.col(tie_first), cols.col(tie_size)
    value = cols.ratio(_expected_dcg(rel_c, first, size, k, gain),
                   ideal_dcg(rel_c, first, k, gain, ideal))
    return value.alias(label("ndcg_ties", k))


@cols.builder(METRICS["reciprocal_rank_ties"])
def reciprocal_rank_ties(rel: IntoColumn = "rel", k: int | None = None, *,
                         tie_first: IntoColumn = "tie_first", tie_size: IntoColumn = "tie_size",
                         threshold: float = 1) -> Column:
    """Expected reciprocal rank at k.

    Contract: docs/semantics.md#reciprocal_rank_ties.

    The first group holding a relevant row (position f, size t, r relevant) decides:
    ``E[RR@k] = sum over j = 1 .. min(t - r + 1, k - f + 1) of P_j / (f + j - 1)`` with
    ``P_1 = r / t`` and ``P_j = P_(j-1) * (t - r - j + 2) / (t - j + 1)``, folded with
    ``aggregate``. No relevant row within k gives 0.
    """
    groups = _relevant_groups(cols.col(rel), cols.col(tie_first), cols.col(tie_size), threshold)
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

    return cols.let(summary, value).alias(label("reciprocal_rank_ties", k))


@cols.builder(METRICS["average_precision_ties"])
def average_precision_ties(rel: IntoColumn = "rel", k: int | None = None, *,
                           tie_first: IntoColumn = "tie_first", tie_size: IntoColumn = "tie_size",
                           threshold: float = 1, divisor: TiedAPDivisor = "relevant") -> Column:
    """Expected average precision at k.

    Contract: docs/semantics.md#average_precision_ties.

    For a relevant row in a group (position f, size t, r relevant, h relevant rows in
    earlier groups): ``(1/t) * sum over j = 1 .. min(t, k - f + 1) of
    (h + 1 + (j - 1)(r - 1)/(t - 1)) / (f + j - 1)``; summed over the relevant retrieved
    rows and divided by D = R (``"relevant"``) or ``min(R, k)`` (``"min"``); D = 0 gives 0.
    h and r are counted in the collected (f, t) array: O(n^2) in the relevant rows.
    """
    rel_c = cols.col(rel)
    groups = _relevant_groups(rel_c, cols.col(tie_first), cols.col(tie_size), threshold)

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

    total = cols.sum_array(F.transform(groups, term))
    r_count = cols.count(cols.relevant(rel_c, threshold))
    if divisor == "min" and k is not None:
        r_count = F.least(r_count, F.lit(k).cast("long"))
    return cols.ratio(total, r_count).alias(label("average_precision_ties", k))

"""Attention-weighted rank fairness as a Spark aggregate (the Spark twin of
:mod:`rankframe.faces.polars.fairness`)."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from rankframe.faces.polars.expr import label
from rankframe.faces.spark.beyond import array_sum, lengths, recommended
from rankframe.faces.spark.columns import IntoColumn, builder, col
from rankframe.registry import METRICS


def _half_divergence(p: Column, m: Column) -> Column:
    """½ sum p_g ln(p_g / m_g) (terms with p_g = 0 add 0)."""
    return array_sum(F.zip_with(p, m, lambda x, y: F.when(x > 0, x * F.log(x / y))
                                .otherwise(F.lit(0.0)))) / 2.0


@builder(METRICS["awrf"])
def awrf(alignment: IntoColumn = "alignment", k: int | None = None, *,
         rank: IntoColumn = "rank", target: IntoColumn = "target") -> Column:
    """Attention-weighted rank fairness: one minus the Jensen-Shannon divergence between the
    groups' rank-weighted exposure and the target.

    Contract: docs/semantics.md#awrf.
    """
    known = recommended(col(rank), k) & col(alignment).isNotNull()
    attention = F.lit(1.0) / F.log2(F.greatest(col(rank), F.lit(2)).cast("double"))
    rows = F.collect_list(F.when(known, F.struct(col(alignment).alias("a"),
                                                 attention.alias("w"))))
    goal = F.transform(F.first(col(target), ignorenulls=True), lambda x: x.cast("double"))
    zeros = F.array_repeat(F.lit(0.0), F.size(goal))
    exposure = F.aggregate(rows, zeros, lambda acc, r: F.zip_with(
        acc, r["a"], lambda e, a: e + a.cast("double") * r["w"]))
    e_total, t_total = array_sum(exposure), array_sum(goal)
    e = F.transform(exposure, lambda x: x / e_total)
    t = F.transform(goal, lambda x: x / t_total)
    m = F.zip_with(e, t, lambda x, y: (x + y) / 2.0)
    value = F.lit(1.0) - _half_divergence(e, m) - _half_divergence(t, m)
    sizes = lengths(F.when(known, col(alignment)))
    fits = (F.size(sizes) == 1) & (F.try_element_at(sizes, F.lit(1)) == F.size(goal))
    ok = F.coalesce(fits, F.lit(False)) & (e_total > 0) & (t_total > 0)
    return F.when(ok, value).alias(label("awrf", k))

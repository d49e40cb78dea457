"""Popularity and novelty of each list as Spark aggregates (the Spark twin of
:mod:`rankframe.faces.polars.popularity_bias`)."""

from __future__ import annotations

from typing import Literal

from pyspark.sql import Column
from pyspark.sql import functions as F

from rankframe.faces.polars.expr import label
from rankframe.faces.spark.beyond import recommended
from rankframe.faces.spark.columns import IntoColumn, builder, col, count
from rankframe.registry import METRICS


@builder(METRICS["novelty"])
def novelty(pop: IntoColumn = "pop", k: int | None = None, *, rank: IntoColumn = "rank",
            total: int | None = None, unseen: Literal["zero", "skip"] = "zero",
            log: Literal["log2", "ln"] = "log2") -> Column:
    """Novelty: the mean self-information -log(pop / total) of the recommended items.

    Contract: docs/semantics.md#novelty.
    """
    if total is None:
        raise ValueError("novelty: total is required in a column (rankframe.evaluate counts "
                         "it from its Catalog)")
    share = col(pop).cast("double") / F.lit(float(total))
    information = -(F.log2(share) if log == "log2" else F.log(share))
    seen = F.coalesce(col(pop) > 0, F.lit(False))
    listed = recommended(col(rank), k)
    if unseen == "zero":
        term = F.when(listed, F.when(seen, information).otherwise(F.lit(0.0)))
    else:
        term = F.when(listed & seen, information)
    return F.avg(term).alias(label("novelty", k))


@builder(METRICS["popularity"])
def popularity(pop: IntoColumn = "pop", k: int | None = None, *,
               rank: IntoColumn = "rank") -> Column:
    """Average recommendation popularity: the mean popularity of the recommended items.

    Contract: docs/semantics.md#popularity.
    """
    value = F.coalesce(col(pop).cast("double"), F.lit(0.0))
    return F.avg(F.when(recommended(col(rank), k), value)).alias(label("popularity", k))


@builder(METRICS["tail_share"])
def tail_share(tail: IntoColumn = "tail", k: int | None = None, *,
               rank: IntoColumn = "rank") -> Column:
    """The share of the recommended items that are in the long tail.

    Contract: docs/semantics.md#tail_share.
    """
    listed = recommended(col(rank), k)
    n = count(listed)
    in_tail = count(listed & F.coalesce(col(tail).cast("boolean"), F.lit(False)))
    return F.when(n > 0, in_tail.cast("double") / n).alias(label("tail_share", k))

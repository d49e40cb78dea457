"""The catalogue metrics as Spark aggregates: coverage, entropy, Gini index (the Spark twin
of :mod:`rankframe.faces.polars.catalog`). Run metrics: aggregate over every list of a
system (``groupBy("system")``, or ``agg`` over the whole table)."""

from __future__ import annotations

from typing import Literal

from pyspark.sql import Column
from pyspark.sql import functions as F

from rankframe.faces.polars.expr import label
from rankframe.faces.spark.beyond import array_sum, recommended, value_counts
from rankframe.faces.spark.columns import IntoColumn, builder, col
from rankframe.registry import METRICS


def _required(name: str, what: str, value: int | None) -> int:
    if value is None:
        raise ValueError(f"{name}: {what} is required in a column (rankframe.evaluate counts "
                         f"it from its Catalog)")
    return value


def _item_counts(item: Column, rank: Column, k: int | None) -> Column:
    return value_counts(F.collect_list(F.when(recommended(rank, k), item)))


@builder(METRICS["coverage"])
def coverage(item: IntoColumn = "item", k: int | None = None, *, rank: IntoColumn = "rank",
             catalog: int | None = None) -> Column:
    """Catalogue coverage: the distinct items recommended divided by the catalogue's size.

    Contract: docs/semantics.md#coverage.

    Examples
    --------
    >>> recs.groupBy("system").agg(coverage("item", 10, catalog=1000))  # doctest: +SKIP
    """
    size = float(_required("coverage", "catalog", catalog))
    distinct = F.count_distinct(F.when(recommended(col(rank), k), col(item)))
    return (distinct.cast("double") / F.lit(size)).alias(label("coverage", k))


@builder(METRICS["entropy"])
def entropy(item: IntoColumn = "item", k: int | None = None, *, rank: IntoColumn = "rank",
            log: Literal["log2", "ln"] = "log2",
            divisor: Literal["none", "items"] = "none") -> Column:
    """Distributional coverage: the Shannon entropy of the items' share of the
    recommendations.

    Contract: docs/semantics.md#entropy.
    """
    counts = _item_counts(col(item), col(rank), k)
    total = array_sum(counts)
    terms = F.transform(counts, lambda c: c / total * (
        F.log2(c / total) if log == "log2" else F.log(c / total)))
    h = -array_sum(terms)
    if divisor == "items":
        h = h / F.size(counts)
    return F.when(total > 0, h).alias(label("entropy", k))


@builder(METRICS["gini"])
def gini(item: IntoColumn = "item", k: int | None = None, *, rank: IntoColumn = "rank",
         over: Literal["catalog", "recommended"] = "catalog",
         catalog: int | None = None) -> Column:
    """The Gini index of the items' recommendation counts, over the catalogue or over the
    items recommended.

    Contract: docs/semantics.md#gini.
    """
    counts = F.array_sort(_item_counts(col(item), col(rank), k))
    m = F.size(counts).cast("double")
    n = F.lit(float(_required("gini", "catalog", catalog))) if over == "catalog" else m
    weighted = F.transform(counts, lambda c, j: (2.0 * (j + 1) + n - 2.0 * m - 1.0) * c)
    total = array_sum(counts)
    value = array_sum(weighted) / (n * total)
    return F.when((total > 0) & (m <= n), value).alias(label("gini", k))

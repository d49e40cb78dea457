"""Diversity within a list and serendipity as Spark aggregates (the Spark twin of
:mod:`rankframe.faces.polars.diversity`): the closed forms, no pairs."""

from __future__ import annotations

from typing import Literal

from pyspark.sql import Column
from pyspark.sql import functions as F

from rankframe.faces.polars.expr import label
from rankframe.faces.spark.beyond import (
    array_sum,
    lengths,
    recommended,
    squared_norm,
    value_counts,
    vector_sum,
)
from rankframe.faces.spark.columns import IntoColumn, builder, col, count, relevant
from rankframe.registry import METRICS


def _one_minus_pair_mean(pair_total: Column, n: Column) -> Column:
    return F.when(n >= 2, F.lit(1.0) - pair_total.cast("double") / (n * (n - 1)))


@builder(METRICS["ild_category"])
def ild_category(category: IntoColumn = "category", k: int | None = None, *,
                 rank: IntoColumn = "rank") -> Column:
    """Intra-list diversity over an item category.

    Contract: docs/semantics.md#ild_category.
    """
    listed = recommended(col(rank), k)
    counts = value_counts(F.collect_list(F.when(listed, col(category))))
    same = array_sum(F.transform(counts, lambda c: c * (c - 1)))
    return _one_minus_pair_mean(same, count(listed)).alias(label("ild_category", k))


@builder(METRICS["ild_features"])
def ild_features(features: IntoColumn = "features", k: int | None = None, *,
                 rank: IntoColumn = "rank") -> Column:
    """Intra-list diversity over item feature vectors: one minus the mean cosine of the
    list's pairs, from the sum of the unit vectors.

    Contract: docs/semantics.md#ild_features.
    """
    listed = recommended(col(rank), k)
    vectors = F.when(listed, col(features))
    norm = F.sqrt(squared_norm(vectors))
    units = F.when(norm > 0, F.transform(vectors, lambda x: x.cast("double") / norm))
    sizes = lengths(vectors)
    s = vector_sum(F.collect_list(units), F.coalesce(F.try_element_at(sizes, F.lit(1)),
                                                     F.lit(0)))
    nonzero = count(listed & F.coalesce(norm > 0, F.lit(False)))
    value = _one_minus_pair_mean(squared_norm(s) - nonzero, count(listed))
    return F.when(F.size(sizes) <= 1, value).alias(label("ild_features", k))


@builder(METRICS["ild_pairs"])
def ild_pairs(pair_similarity: IntoColumn = "pair_similarity", *,
              rank: IntoColumn = "rank") -> Column:
    """Intra-list diversity from each item's sum of similarities to the others.

    Contract: docs/semantics.md#ild_pairs.
    """
    listed = col(rank).isNotNull()
    total = F.sum(F.when(listed, F.coalesce(col(pair_similarity).cast("double"), F.lit(0.0))))
    return _one_minus_pair_mean(F.coalesce(total, F.lit(0.0)), count(listed)).alias(
        label("ild_pairs", None))


@builder(METRICS["serendipity"])
def serendipity(similarity: IntoColumn = "similarity", k: int | None = None, *,
                rank: IntoColumn = "rank", rel: IntoColumn = "rel", threshold: float = 1,
                relevance: Literal["binary", "ignore"] = "binary") -> Column:
    """Serendipity: the mean of relevance times (1 - similarity to the user's history).

    Contract: docs/semantics.md#serendipity.
    """
    sim = col(similarity).cast("double")
    unexpected = F.lit(1.0) - sim
    if relevance == "binary":
        unexpected = F.when(relevant(col(rel), threshold), unexpected).otherwise(F.lit(0.0))
    term = F.when(recommended(col(rank), k) & sim.isNotNull(), unexpected)
    return F.avg(term).alias(label("serendipity", k))

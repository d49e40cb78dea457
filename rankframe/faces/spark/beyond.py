"""Building blocks of the beyond-accuracy builders on Spark (the twin of
:mod:`rankframe.faces.polars.beyond`): value counts of a collected array, sums of arrays of
numbers, and the rows of a list. Only Spark's own higher-order functions, no UDF.
Contract: docs/semantics.md#beyond-accuracy."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from rankframe.faces.spark.columns import retrieved


def recommended(rank: Column, k: int | None) -> Column:
    """True for the rows of the list: a rank, at most k (never NULL)."""
    return retrieved(rank, k)


def value_counts(values: Column) -> Column:
    """The number of times each distinct value occurs in the array ``values`` (NULL left
    out), in no particular order: run lengths of the sorted array (no per-value scan)."""
    ordered = F.array_sort(F.filter(values, lambda v: v.isNotNull()))
    n = F.size(ordered)
    positions = F.sequence(F.lit(1), F.greatest(n, F.lit(1)))
    starts = F.filter(positions, lambda i: (i <= n) & (
        (i == 1) | (F.try_element_at(ordered, i) != F.try_element_at(ordered, i - 1))))
    return F.transform(starts, lambda s, j: F.coalesce(
        F.try_element_at(starts, j + 2), n + 1) - s)


def array_sum(values: Column) -> Column:
    """The sum of an array of numbers, as a double (0.0 for an empty array)."""
    return F.aggregate(values, F.lit(0.0), lambda acc, x: acc + x.cast("double"))


def squared_norm(vector: Column) -> Column:
    """A vector's squared Euclidean norm."""
    return array_sum(F.transform(vector, lambda x: x.cast("double") * x.cast("double")))


def vector_sum(vectors: Column, length: Column) -> Column:
    """The position-wise sum of an array of vectors of one length ``length`` (zeros for no
    vector)."""
    zeros = F.array_repeat(F.lit(0.0), length.cast("int"))
    return F.aggregate(vectors, zeros, lambda acc, v: F.zip_with(
        acc, v, lambda a, b: a + b.cast("double")))


def lengths(vectors: Column) -> Column:
    """The distinct lengths of the non-NULL vectors of the group (an aggregate)."""
    return F.array_distinct(F.collect_list(F.when(vectors.isNotNull(), F.size(vectors))))

"""Set-based counts as Spark aggregates: precision, recall, F, hit rate and the ``num_*``
counts (the Spark twin of :mod:`rankframe.faces.polars.counts`)."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from rankframe.faces.polars.counts import PrecisionDivisor
from rankframe.faces.polars.expr import label
from rankframe.faces.spark.columns import (
    IntoColumn,
    builder,
    col,
    count,
    ratio,
    relevant,
    relevant_hits,
    retrieved,
)
from rankframe.registry import METRICS


def precision_from_hits(hits: Column, n: Column, k: int | None,
                        divisor: PrecisionDivisor) -> Column:
    """Precision from the aggregates ``hits`` (relevant rows within k) and ``n`` (rows
    retrieved): hits / k, hits / min(k, n) (``divisor="min"``), hits / n without a cutoff;
    0 where that divisor is 0. The tie-aware precision shares it (expected hits)."""
    if k is None:
        return ratio(hits, n)
    if divisor == "k":
        return hits.cast("double") / F.lit(float(k))
    return ratio(hits, F.least(n, F.lit(k).cast("long")))


def _precision(rel: Column, rank: Column, k: int | None, threshold: float,
               divisor: PrecisionDivisor) -> Column:
    return precision_from_hits(relevant_hits(rel, rank, k, threshold), count(retrieved(rank)),
                               k, divisor)


def _recall(rel: Column, rank: Column, k: int | None, threshold: float) -> Column:
    return ratio(relevant_hits(rel, rank, k, threshold), count(relevant(rel, threshold)))


@builder(METRICS["precision"])
def precision(rel: IntoColumn = "rel", k: int | None = None, *, rank: IntoColumn = "rank",
              threshold: float = 1, divisor: PrecisionDivisor = "k") -> Column:
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

    Examples
    --------
    >>> judged.groupBy("qid").agg(precision("rel", k=10))  # doctest: +SKIP
    """
    return _precision(col(rel), col(rank), k, threshold, divisor).alias(label("P", k))


@builder(METRICS["recall"])
def recall(rel: IntoColumn = "rel", k: int | None = None, *, rank: IntoColumn = "rank",
           threshold: float = 1) -> Column:
    """Recall at k: relevant rows in the top k divided by all relevant rows R.

    Contract: docs/semantics.md#recall.

    ``recall@k = hits@k / R``, 0 when R = 0. Judged-but-unretrieved rows count in R.
    """
    return _recall(col(rel), col(rank), k, threshold).alias(label("recall", k))


@builder(METRICS["f1"])
def f1(rel: IntoColumn = "rel", k: int | None = None, *, rank: IntoColumn = "rank",
       threshold: float = 1, beta: float = 1.0, recall_weight: float | None = None) -> Column:
    """F-measure at k: ``(1 + w) P R / (w P + R)`` with P = precision@k, R = recall@k and
    w = beta^2, or w = ``recall_weight`` when given (trec_eval's set_F.x); 0 when the
    denominator is 0 (beta = 1: F1 = 2PR / (P + R)).

    Contract: docs/semantics.md#f1.
    """
    w = beta**2 if recall_weight is None else recall_weight
    p = _precision(col(rel), col(rank), k, threshold, "k")
    r = _recall(col(rel), col(rank), k, threshold)
    return ratio(F.lit(1.0 + w) * p * r, F.lit(w) * p + r).alias(label("f1", k))


@builder(METRICS["hit_rate"])
def hit_rate(rel: IntoColumn = "rel", k: int | None = None, *, rank: IntoColumn = "rank",
             threshold: float = 1) -> Column:
    """Hit rate (trec_eval ``success``) at k: 1.0 if any relevant row has rank <= k, else 0.0.

    Contract: docs/semantics.md#hit_rate.
    """
    hits = relevant_hits(col(rel), col(rank), k, threshold)
    return (hits > 0).cast("double").alias(label("hit_rate", k))


@builder(METRICS["num_ret"])
def num_ret(rel: IntoColumn = "rel", k: int | None = None, *, rank: IntoColumn = "rank") -> Column:
    """Number of retrieved rows (rank not NULL), limited to rank <= k when k is given.

    Contract: docs/semantics.md#num_ret.

    ``rel`` is accepted for a uniform signature and not read.
    """
    return count(retrieved(col(rank), k)).alias(label("num_ret", k))


@builder(METRICS["num_rel"])
def num_rel(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank", threshold: float = 1) -> Column:
    """Number of relevant rows R (``rel >= threshold``), retrieved or not.

    Contract: docs/semantics.md#num_rel.

    ``rank`` is accepted for a uniform signature and not read.
    """
    return count(relevant(col(rel), threshold)).alias(label("num_rel", None))


@builder(METRICS["num_rel_ret"])
def num_rel_ret(rel: IntoColumn = "rel", k: int | None = None, *, rank: IntoColumn = "rank",
                threshold: float = 1) -> Column:
    """Number of relevant retrieved rows, limited to rank <= k when k is given.

    Contract: docs/semantics.md#num_rel_ret.
    """
    return relevant_hits(col(rel), col(rank), k, threshold).alias(label("num_rel_ret", k))

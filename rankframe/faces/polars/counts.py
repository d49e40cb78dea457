"""Set-based metrics: counts of relevant rows in the top k.

Per query: ``n`` rows have a rank, ``R`` rows are relevant (rel >= threshold,
retrieved or not), ``hits@k`` relevant rows have rank <= k.
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from rankframe.faces.polars import expr
from rankframe.faces.polars.expr import IntoExpr, col, label, rank_guarded
from rankframe.registry import METRICS, validated

PrecisionDivisor = Literal["k", "min"]


def precision_from_hits(
    hits: pl.Expr, n: pl.Expr, k: int | None, divisor: PrecisionDivisor
) -> pl.Expr:
    """hits / k (``divisor="k"``) or hits / min(k, n) (``"min"``); hits / n when k is None."""
    if k is None:
        return expr.share(hits, n)
    if divisor == "k":
        return expr.per(hits, k)
    return expr.share(hits, pl.min_horizontal(n, pl.lit(k, dtype=pl.Int64)))


def _precision(
    rel: pl.Expr, rank: pl.Expr, k: int | None, threshold: float, divisor: PrecisionDivisor
) -> pl.Expr:
    hits = expr.relevant_hits(rel, rank, k, threshold)
    return precision_from_hits(hits, expr.count(expr.retrieved(rank)), k, divisor)


def _recall(rel: pl.Expr, rank: pl.Expr, k: int | None, threshold: float) -> pl.Expr:
    return expr.share(expr.relevant_hits(rel, rank, k, threshold),
                      expr.count(expr.relevant(rel, threshold)))


@validated(METRICS["precision"])
@rank_guarded
def precision(rel: IntoExpr = "rel", k: int | None = None, *, rank: IntoExpr = "rank",
              threshold: float = 1, divisor: PrecisionDivisor = "k") -> pl.Expr:
    """Precision at k: relevant rows in the top k divided by k.

    Contract: docs/semantics.md#precision.

    ``P@k = hits@k / k``; with ``divisor="min"``, ``hits@k / min(k, n)``.
    ``k=None`` gives set precision ``hits / n``. A query with nothing retrieved scores 0.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "rel": [1, 0, 1, 0, 1]})
    >>> df.select(rf.precision("rel", k=2)).item()
    0.5
    """
    return _precision(col(rel), col(rank), k, threshold, divisor).alias(label("P", k))




@validated(METRICS["recall"])
@rank_guarded
def recall(rel: IntoExpr = "rel", k: int | None = None, *, rank: IntoExpr = "rank",
           threshold: float = 1) -> pl.Expr:
    """Recall at k: relevant rows in the top k divided by all relevant rows R.

    Contract: docs/semantics.md#recall.

    ``recall@k = hits@k / R``; 0 when R = 0. Judged-but-unretrieved rows count in R.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, None], "rel": [1, 0, 1]})
    >>> df.select(rf.recall("rel", k=2)).item()
    0.5
    """
    return _recall(col(rel), col(rank), k, threshold).alias(label("recall", k))




@validated(METRICS["f1"])
@rank_guarded
def f1(rel: IntoExpr = "rel", k: int | None = None, *, rank: IntoExpr = "rank",
       threshold: float = 1, beta: float = 1.0, recall_weight: float | None = None) -> pl.Expr:
    """F-measure at k of precision@k (P) and recall@k (R); 0 when the denominator is 0.

    Contract: docs/semantics.md#f1.

    ``F = (1 + w) P R / (w P + R)`` with recall weighted ``w = beta^2`` times; the default
    beta = 1 is F1 = 2PR/(P+R), trec_eval's ``set_F`` (with k None). ``recall_weight`` gives
    w itself (trec_eval's ``set_F.x`` is w = x), exactly, where ``beta`` would be its square
    root; it overrides ``beta``.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "rel": [1, 0, 1, 0, 1]})
    >>> round(df.select(rf.f1("rel", k=4)).item(), 4)
    0.5714
    """
    w = beta**2 if recall_weight is None else recall_weight
    p = _precision(col(rel), col(rank), k, threshold, "k")
    r = _recall(col(rel), col(rank), k, threshold)
    return expr.ratio((1.0 + w) * p * r, w * p + r).alias(label("f1", k))


@validated(METRICS["hit_rate"])
@rank_guarded
def hit_rate(rel: IntoExpr = "rel", k: int | None = None, *, rank: IntoExpr = "rank",
             threshold: float = 1) -> pl.Expr:
    """Hit rate (trec_eval ``success``) at k: 1.0 if any relevant row is in the top k, else 0.0.

    Contract: docs/semantics.md#hit_rate.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3], "rel": [0, 0, 2]})
    >>> df.select(rf.hit_rate("rel", k=2), rf.hit_rate("rel", k=3)).row(0)
    (0.0, 1.0)
    """
    hits = expr.relevant_hits(col(rel), col(rank), k, threshold)
    return (hits > 0).cast(pl.Float64).alias(label("hit_rate", k))


@validated(METRICS["num_ret"])
@rank_guarded
def num_ret(rel: IntoExpr = "rel", k: int | None = None, *, rank: IntoExpr = "rank") -> pl.Expr:
    """Number of retrieved rows (rank not NULL), limited to the top k when k is given.

    Contract: docs/semantics.md#num_ret.

    ``rel`` is accepted for a uniform signature and not read.

    Parameters
    ----------
    rel
        Grade column; not read (a uniform signature).
    """
    return expr.count(expr.retrieved(col(rank), k)).alias(label("num_ret", k))


@validated(METRICS["num_rel"])
@rank_guarded
def num_rel(rel: IntoExpr = "rel", *, rank: IntoExpr = "rank", threshold: float = 1) -> pl.Expr:
    """Number of relevant rows R (rel >= threshold), retrieved or not.

    Contract: docs/semantics.md#num_rel.

    ``rank`` is accepted for a uniform signature and not read.

    Parameters
    ----------
    rank
        Rank column; not read (R counts retrieved and unretrieved rows alike).
    """
    return expr.count(expr.relevant(col(rel), threshold)).alias(label("num_rel", None))


@validated(METRICS["num_rel_ret"])
@rank_guarded
def num_rel_ret(rel: IntoExpr = "rel", k: int | None = None, *, rank: IntoExpr = "rank",
                threshold: float = 1) -> pl.Expr:
    """Number of relevant retrieved rows, limited to the top k when k is given.

    Contract: docs/semantics.md#num_rel_ret.
    """
    return expr.relevant_hits(col(rel), col(rank), k, threshold).alias(label("num_rel_ret", k))

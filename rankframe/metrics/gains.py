"""Graded metrics: cumulative gain, discounted cumulative gain and its normalisation.

Gain g(rel) is ``rel`` (``"linear"``, Järvelin & Kekäläinen; trec_eval ``ndcg``) or
``2^rel - 1`` (``"exponential"``, Burges et al.); NULL and grades <= 0 give 0. The
relevance threshold does not apply to gains (as in trec_eval).
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from rankframe.metrics.expr import (
    Gain,
    IntoExpr,
    col,
    gain,
    label,
    log2_discount,
    ordinals,
    rank_guarded,
    ratio,
    retrieved,
    sequential_sum,
)
from rankframe.metrics.registry import METRICS, validated

Ideal = Literal["all", "retrieved"]


def _cg(rel: pl.Expr, rank: pl.Expr, k: int | None, kind: Gain) -> pl.Expr:
    gains = gain(rel, kind)
    # Added in rank order (docs/semantics.md#exactness); a zero gain adds nothing.
    counted = retrieved(rank, k) & (gains > 0)
    return sequential_sum(gains.filter(counted), rank.filter(counted))


def _dcg(rel: pl.Expr, rank: pl.Expr, k: int | None, kind: Gain) -> pl.Expr:
    gains = gain(rel, kind)
    # g / log2(r + 1) added in rank order, as trec_eval (docs/semantics.md#exactness); the
    # rows of gain 0 add nothing and are left out of the sort.
    counted = retrieved(rank, k) & (gains > 0)
    kept = rank.filter(counted)
    return sequential_sum(gains.filter(counted) / log2_discount(kept), kept)


def ideal_dcg(rel: pl.Expr, rank: pl.Expr, k: int | None, kind: Gain, ideal: Ideal) -> pl.Expr:
    """DCG@k of the ideal order: the positive gains of every row (``ideal="all"``) or of the
    retrieved rows, sorted descending (docs/semantics.md#idcg)."""
    gains = gain(rel, kind)
    pool = gains > 0
    if ideal == "retrieved":
        pool = pool & retrieved(rank)
    # A per-group sort then head(k) measured faster than top_k(k) then a sort of those k.
    best = gains.filter(pool).sort(descending=True)
    if k is not None:
        best = best.head(k)
    return sequential_sum(best / log2_discount(ordinals(best)))


@validated(METRICS["cg"])
@rank_guarded
def cg(
    rel: IntoExpr = "rel",
    k: int | None = None,
    *,
    rank: IntoExpr = "rank",
    gain: Gain = "linear",
) -> pl.Expr:
    """Cumulative gain at k: ``CG@k = sum over rank i <= k of g(rel_i)``.

    Contract: docs/semantics.md#cg.

    Parameters
    ----------
    rel
        Grade column (a name or a Polars expression), turned into gains by ``gain``. NULL
        (unjudged) and grades <= 0 (non-relevant, or negative: pooled but unjudged) give
        gain 0, in the list and in the ideal ranking.
    k
        Cutoff: only rows with ``rank <= k`` count. ``None`` (the default): the whole list.
    rank
        Rank column (a name or a Polars expression): 1 is the top, unique within a query;
        NULL: judged but not retrieved. Ranks start at 1: shift 0-based positions by one
        (``pl.col("position") + 1``).
        :func:`rankframe.evaluate` checks the whole table first.
    gain
        ``"linear"`` (default): g = rel, as trec_eval and Järvelin & Kekäläinen;
        ``"exponential"``: g = 2^rel - 1, as Burges et al. ``threshold`` does not apply to
        gains.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "rel": [3, 2, 3, 0, 1]})
    >>> df.select(rf.cg("rel", k=3)).item()
    8.0
    """
    return _cg(col(rel), col(rank), k, gain).alias(label("cg", k))


@validated(METRICS["dcg"])
@rank_guarded
def dcg(
    rel: IntoExpr = "rel",
    k: int | None = None,
    *,
    rank: IntoExpr = "rank",
    gain: Gain = "linear",
) -> pl.Expr:
    """Discounted cumulative gain at k: ``DCG@k = sum over i <= k of g(rel_i) / log2(i + 1)``.

    Contract: docs/semantics.md#dcg.

    Parameters
    ----------
    rel
        Grade column (a name or a Polars expression), turned into gains by ``gain``. NULL
        (unjudged) and grades <= 0 (non-relevant, or negative: pooled but unjudged) give
        gain 0, in the list and in the ideal ranking.
    k
        Cutoff: only rows with ``rank <= k`` count. ``None`` (the default): the whole list.
    rank
        Rank column (a name or a Polars expression): 1 is the top, unique within a query;
        NULL: judged but not retrieved. Ranks start at 1: shift 0-based positions by one
        (``pl.col("position") + 1``).
        :func:`rankframe.evaluate` checks the whole table first.
    gain
        ``"linear"`` (default): g = rel, as trec_eval and Järvelin & Kekäläinen;
        ``"exponential"``: g = 2^rel - 1, as Burges et al. ``threshold`` does not apply to
        gains.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "rel": [3, 2, 3, 0, 1]})
    >>> round(df.select(rf.dcg("rel", k=5)).item(), 4)
    6.1487
    """
    return _dcg(col(rel), col(rank), k, gain).alias(label("dcg", k))


@validated(METRICS["idcg"])
@rank_guarded
def idcg(
    rel: IntoExpr = "rel",
    k: int | None = None,
    *,
    rank: IntoExpr = "rank",
    gain: Gain = "linear",
    ideal: Ideal = "all",
) -> pl.Expr:
    """Ideal DCG at k: the DCG@k of the query's positive gains sorted descending.

    Contract: docs/semantics.md#idcg.

    The ideal ranking is built from every row of the query, retrieved or not
    (``ideal="all"``, trec_eval) or from the retrieved rows only (``"retrieved"``).

    Parameters
    ----------
    rel
        Grade column (a name or a Polars expression), turned into gains by ``gain``. NULL
        (unjudged) and grades <= 0 (non-relevant, or negative: pooled but unjudged) give
        gain 0, in the list and in the ideal ranking.
    k
        Cutoff: only rows with ``rank <= k`` count. ``None`` (the default): the whole list.
    rank
        Rank column (a name or a Polars expression): 1 is the top, unique within a query;
        NULL: judged but not retrieved. Ranks start at 1: shift 0-based positions by one
        (``pl.col("position") + 1``). Read only with ``ideal="retrieved"``.
    gain
        ``"linear"`` (default): g = rel, as trec_eval and Järvelin & Kekäläinen;
        ``"exponential"``: g = 2^rel - 1, as Burges et al. ``threshold`` does not apply to
        gains.
    ideal
        ``"all"`` (default): the ideal ranking sorts the positive gains of every row of the
        query, retrieved or not (trec_eval); ``"retrieved"``: of the retrieved rows only.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "rel": [3, 2, 3, 0, 1]})
    >>> round(df.select(rf.idcg("rel", k=5)).item(), 4)
    6.3235
    """
    return ideal_dcg(col(rel), col(rank), k, gain, ideal).alias(label("idcg", k))


@validated(METRICS["ndcg"])
@rank_guarded
def ndcg(
    rel: IntoExpr = "rel",
    k: int | None = None,
    *,
    rank: IntoExpr = "rank",
    gain: Gain = "linear",
    ideal: Ideal = "all",
) -> pl.Expr:
    """Normalised DCG at k: ``nDCG@k = DCG@k / IDCG@k``, 0 when IDCG@k = 0.

    Contract: docs/semantics.md#ndcg.

    Parameters
    ----------
    rel
        Grade column (a name or a Polars expression), turned into gains by ``gain``. NULL
        (unjudged) and grades <= 0 (non-relevant, or negative: pooled but unjudged) give
        gain 0, in the list and in the ideal ranking.
    k
        Cutoff: only rows with ``rank <= k`` count. ``None`` (the default): the whole list.
        The ideal ranking is cut at k too.
    rank
        Rank column (a name or a Polars expression): 1 is the top, unique within a query;
        NULL: judged but not retrieved. Ranks start at 1: shift 0-based positions by one
        (``pl.col("position") + 1``).
        :func:`rankframe.evaluate` checks the whole table first.
    gain
        ``"linear"`` (default): g = rel, as trec_eval and Järvelin & Kekäläinen;
        ``"exponential"``: g = 2^rel - 1, as Burges et al. ``threshold`` does not apply to
        gains.
    ideal
        ``"all"`` (default): the ideal ranking sorts the positive gains of every row of the
        query, retrieved or not (trec_eval); ``"retrieved"``: of the retrieved rows only.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "rel": [3, 2, 3, 0, 1]})
    >>> round(df.select(rf.ndcg("rel", k=5)).item(), 4)
    0.9724
    """
    rel_e, rank_e = col(rel), col(rank)
    return ratio(_dcg(rel_e, rank_e, k, gain), ideal_dcg(rel_e, rank_e, k, gain, ideal)).alias(
        label("ndcg", k)
    )

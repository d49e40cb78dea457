"""Rank-sensitive binary metrics: reciprocal rank, average precision, R-precision,
bpref and interpolated precision at a recall level.

Per query: ``R`` = relevant rows (rel >= threshold) retrieved or not; ``r_j`` = rank of
the j-th relevant retrieved row, ascending.
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from rankframe.metrics.expr import (
    IntoExpr,
    col,
    count,
    divide,
    judged_nonrelevant,
    label,
    ordinals,
    rank_guarded,
    ratio,
    relevant,
    relevant_ranks,
    retrieved,
    sequential_sum,
)
from rankframe.metrics.registry import METRICS, validated

APDivisor = Literal["relevant", "min", "found"]
RecallRounding = Literal["nearest", "trec_eval9"]


@validated(METRICS["reciprocal_rank"])
@rank_guarded
def reciprocal_rank(
    rel: IntoExpr = "rel",
    k: int | None = None,
    *,
    rank: IntoExpr = "rank",
    threshold: float = 1,
) -> pl.Expr:
    """Reciprocal rank at k: ``1 / r_1`` for the first relevant rank r_1 <= k, else 0.

    Contract: docs/semantics.md#reciprocal_rank.

    Parameters
    ----------
    rel
        Grade column (a name or a Polars expression). NULL: retrieved but unjudged, so not
        relevant; a negative grade: pooled but unjudged, not relevant and left out of R. A
        row is relevant iff ``rel >= threshold``.
    k
        Cutoff: only rows with ``rank <= k`` count. ``None`` (the default): the whole list.
    rank
        Rank column (a name or a Polars expression): 1 is the top, unique within a query;
        NULL: judged but not retrieved. Ranks start at 1: shift 0-based positions by one
        (``pl.col("position") + 1``).
        :func:`rankframe.evaluate` checks the whole table first.
    threshold
        Relevance level: rel >= threshold is relevant (trec_eval ``-l``); default 1.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3], "rel": [0, 0, 1]})
    >>> round(df.select(rf.reciprocal_rank("rel")).item(), 4)
    0.3333
    """
    rank_e = col(rank)
    # The smallest relevant rank needs no sort (and no filter: min skips the NULLs).
    first = pl.when(relevant(col(rel), threshold) & retrieved(rank_e, k)).then(rank_e).min()
    return (1.0 / first.cast(pl.Float64)).fill_null(0.0).alias(label("reciprocal_rank", k))


@validated(METRICS["average_precision"])
@rank_guarded
def average_precision(
    rel: IntoExpr = "rel",
    k: int | None = None,
    *,
    rank: IntoExpr = "rank",
    threshold: float = 1,
    divisor: APDivisor = "relevant",
) -> pl.Expr:
    """Average precision at k (trec_eval ``map`` / ``map_cut_k``).

    Contract: docs/semantics.md#average_precision.

    ``AP@k = (sum over relevant r_j <= k of j / r_j) / D`` with D = R (``"relevant"``,
    trec_eval, ranx), ``min(R, k)`` (``"min"``, the recommender MAP@k) or the number of
    relevant rows found in the top k (``"found"``). D = 0 gives 0.

    Parameters
    ----------
    rel
        Grade column (a name or a Polars expression). NULL: retrieved but unjudged, so not
        relevant; a negative grade: pooled but unjudged, not relevant and left out of R. A
        row is relevant iff ``rel >= threshold``.
    k
        Cutoff: only rows with ``rank <= k`` count. ``None`` (the default): the whole list.
    rank
        Rank column (a name or a Polars expression): 1 is the top, unique within a query;
        NULL: judged but not retrieved. Ranks start at 1: shift 0-based positions by one
        (``pl.col("position") + 1``).
        :func:`rankframe.evaluate` checks the whole table first.
    threshold
        Relevance level: rel >= threshold is relevant (trec_eval ``-l``); default 1.
    divisor
        ``"relevant"`` (default): divide by R, every relevant row of the query (trec_eval,
        ranx); ``"min"``: by min(R, k), the recommender MAP@k (Spark); ``"found"``: by the
        relevant rows found in the top k.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "rel": [1, 0, 1, 0, 1]})
    >>> round(df.select(rf.average_precision("rel")).item(), 4)
    0.7556
    """
    rel_e, rank_e = col(rel), col(rank)
    ranks = relevant_ranks(rank_e, rel_e, threshold, k)
    # j / r_j added in rank order, as trec_eval's loop (docs/semantics.md#exactness).
    total = sequential_sum(ordinals(ranks) / ranks)
    r_count = count(relevant(rel_e, threshold))
    if divisor == "relevant":
        denominator = r_count
    elif divisor == "min":
        denominator = r_count if k is None else pl.min_horizontal(r_count, pl.lit(k, pl.Int64))
    else:
        denominator = ranks.len()
    return ratio(total, denominator).alias(label("average_precision", k))


@validated(METRICS["r_precision"])
@rank_guarded
def r_precision(
    rel: IntoExpr = "rel",
    *,
    rank: IntoExpr = "rank",
    threshold: float = 1,
) -> pl.Expr:
    """R-precision (trec_eval ``Rprec``): relevant rows in the top R divided by R; 0 if R = 0.

    Contract: docs/semantics.md#r_precision.

    Parameters
    ----------
    rel
        Grade column (a name or a Polars expression). NULL: retrieved but unjudged, so not
        relevant; a negative grade: pooled but unjudged, not relevant and left out of R. A
        row is relevant iff ``rel >= threshold``.
    rank
        Rank column (a name or a Polars expression): 1 is the top, unique within a query;
        NULL: judged but not retrieved. Ranks start at 1: shift 0-based positions by one
        (``pl.col("position") + 1``).
        :func:`rankframe.evaluate` checks the whole table first.
    threshold
        Relevance level: rel >= threshold is relevant (trec_eval ``-l``); default 1.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, None], "rel": [1, 0, 1, 1]})
    >>> round(df.select(rf.r_precision("rel")).item(), 4)
    0.6667
    """
    rel_e, rank_e = col(rel), col(rank)
    is_relevant = relevant(rel_e, threshold)
    r_count = count(is_relevant)
    hits_in_r = count(is_relevant & (rank_e <= r_count).fill_null(False))
    return ratio(hits_in_r, r_count).alias(label("r_precision", None))


@validated(METRICS["bpref"])
@rank_guarded
def bpref(
    rel: IntoExpr = "rel",
    *,
    rank: IntoExpr = "rank",
    threshold: float = 1,
) -> pl.Expr:
    """Binary preference (Buckley & Voorhees 2004, as in trec_eval ``bpref``).

    Contract: docs/semantics.md#bpref.

    ``bpref = (1/R) * sum over retrieved relevant r of (1 - min(nr, R) / min(N, R))``
    where nr = judged non-relevant rows (0 <= rel < threshold) ranked above r and N =
    judged non-relevant rows of the query; a term is 1 when nr = 0. Unjudged (NULL) and
    negative grades are skipped. R = 0 gives 0.

    Parameters
    ----------
    rel
        Grade column: relevant iff rel >= threshold; judged non-relevant iff 0 <= rel <
        threshold; NULL (unjudged) and negative grades (pooled but unjudged) are skipped.
    rank
        Rank column (a name or a Polars expression): 1 is the top, unique within a query;
        NULL: judged but not retrieved. Ranks start at 1: shift 0-based positions by one
        (``pl.col("position") + 1``).
        :func:`rankframe.evaluate` checks the whole table first.
    threshold
        Relevance level: rel >= threshold is relevant (trec_eval ``-l``); default 1.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, None], "rel": [0, 1, None, 1]})
    >>> df.select(rf.bpref("rel")).item()
    0.0
    """
    rel_e, rank_e = col(rel), col(rank)
    is_relevant = relevant(rel_e, threshold)
    is_nonrelevant = judged_nonrelevant(rel_e, threshold)
    r_count = count(is_relevant)
    n_count = count(is_nonrelevant)
    nonrel_above = (is_nonrelevant & retrieved(rank_e)).sort_by(rank_e, nulls_last=True).cum_sum()
    is_rel_ret = (is_relevant & retrieved(rank_e)).sort_by(rank_e, nulls_last=True)
    # One term per relevant retrieved row, added in rank order as trec_eval's loop
    # (docs/semantics.md#exactness).
    above = nonrel_above.filter(is_rel_ret)
    penalty = divide(pl.min_horizontal(above, r_count), pl.min_horizontal(n_count, r_count),
                     like=rank_e.filter(is_relevant & retrieved(rank_e)))
    term = pl.when(above == 0).then(1.0).otherwise(1.0 - penalty)
    return ratio(sequential_sum(term), r_count).alias(label("bpref", None))


@validated(METRICS["iprec_at_recall"])
@rank_guarded
def iprec_at_recall(
    rel: IntoExpr = "rel",
    recall: float = 0.0,
    *,
    rank: IntoExpr = "rank",
    threshold: float = 1,
    rounding: RecallRounding = "nearest",
) -> pl.Expr:
    """Interpolated precision at a recall level (trec_eval ``iprec_at_recall_x``).

    Contract: docs/semantics.md#iprec_at_recall.

    The highest precision ``j / r_j`` at any relevant rank j >= c, where c relevant rows
    make up that recall level; 0 when fewer than c relevant rows are retrieved (or none).
    ``rounding="nearest"``: ``c = round(recall * R)``, halves up (trec_eval 10's lround);
    ``"trec_eval9"``: ``c = floor(recall * R + 0.9)``, the rule of trec_eval 9.x and so of
    pytrec_eval (e.g. recall 0.6 of R = 2 needs 1 relevant row by the first, 2 by the second).

    Parameters
    ----------
    rel
        Grade column (a name or a Polars expression). NULL: retrieved but unjudged, so not
        relevant; a negative grade: pooled but unjudged, not relevant and left out of R. A
        row is relevant iff ``rel >= threshold``.
    recall
        The recall level x, in [0, 1].
    rank
        Rank column (a name or a Polars expression): 1 is the top, unique within a query;
        NULL: judged but not retrieved. Ranks start at 1: shift 0-based positions by one
        (``pl.col("position") + 1``).
        :func:`rankframe.evaluate` checks the whole table first.
    threshold
        Relevance level: rel >= threshold is relevant (trec_eval ``-l``); default 1.
    rounding
        ``"nearest"`` (default): c = round(x * R) relevant rows, trec_eval 10;
        ``"trec_eval9"``: c = floor(x * R + 0.9), trec_eval 9.x and pytrec_eval.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4], "rel": [0, 1, 0, 1]})
    >>> df.select(rf.iprec_at_recall("rel", 1.0)).item()
    0.5
    """
    offset = 0.5 if rounding == "nearest" else 0.9
    rel_e, rank_e = col(rel), col(rank)
    ranks = relevant_ranks(rank_e, rel_e, threshold, None)
    needed = (count(relevant(rel_e, threshold)) * recall + offset).floor()
    position = ordinals(ranks)
    precision_at = position / ranks
    best = precision_at.filter(position >= pl.max_horizontal(needed, pl.lit(1.0))).max()
    return best.cast(pl.Float64).fill_null(0.0).alias(label("iprec_at_recall", recall))

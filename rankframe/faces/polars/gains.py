"""Graded metrics: cumulative gain, discounted cumulative gain and its normalisation.

Gain g(rel) is ``rel`` (``"linear"``, Järvelin & Kekäläinen; trec_eval ``ndcg``) or
``2^rel - 1`` (``"exponential"``, Burges et al.); NULL and grades <= 0 give 0. The
relevance threshold does not apply to gains (as in trec_eval).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import polars as pl

from rankframe.faces.polars.expr import (
    FIRST_DISCOUNTS_BOUND,
    Gain,
    GainPairs,
    IntoExpr,
    col,
    count,
    divide,
    exact_log2,
    first_discounts,
    gain,
    label,
    log2_discount,
    ordinals,
    rank_guarded,
    relevant,
    retrieved,
    running_total,
    sequential_sum,
)
from rankframe.faces.polars.ordered import (
    GainSum,
    RowForm,
    RowValue,
    gain_sum_kernel,
    gain_sums_of_rows,
)
from rankframe.registry import METRICS, validated

Ideal = Literal["all", "retrieved"]


def _gain_sum(what: GainSum, rel: pl.Expr, rank: pl.Expr, k: int | None, kind: Gain,
              ideal: Ideal = "all", mapped: GainPairs = None) -> pl.Expr:
    """CG, DCG, the ideal DCG or nDCG at k, by :func:`gain_sum_kernel`: the rank and grade of
    each row that may have a gain (a grade > 0, or one the gain map lists), one list each
    per query, handed for every query at once to the kernel, which adds each query's terms
    in their order."""
    grades = rel.cast(pl.Float64)
    keep = _may_gain(grades, mapped)
    lists = pl.struct(rank.filter(keep).implode().alias("rank"),
                      grades.filter(keep).implode().alias("rel"))
    kernel = gain_sum_kernel(what, k, ideal, kind, mapped)
    return lists.map_batches(kernel, return_dtype=pl.Float64, is_elementwise=True)


def _may_gain(grades: pl.Expr, mapped: GainPairs) -> pl.Expr:
    """True for the rows that may have a gain: a grade > 0, or one the gain map lists."""
    keep = grades > 0
    levels = [float(level) for level in dict(mapped or ())]
    if levels:
        keep = keep | grades.is_in(levels)
    return keep.fill_null(False)


def gain_sum_of_rows(what: GainSum) -> RowForm:
    """CG, DCG, the ideal DCG or nDCG at k (:func:`_gain_sum`) as a row form of
    ``rf.evaluate_expr``: the same rows, handed to the kernel's own body
    (:func:`~rankframe.faces.polars.ordered.gain_sums_of_rows`) without a list per query."""

    def form(rows: pl.DataFrame, groups: int, values: Mapping[str, Any]) -> RowValue:
        grades = pl.col("rel").cast(pl.Float64)
        flat = rows.filter(_may_gain(grades, values.get("gains"))).select(
            "q", pl.col("rank"), grades.alias("rel"))
        return RowValue(gain_sums_of_rows(flat, groups, what, values.get("k"),
                                          values.get("ideal", "all"), values["gain"],
                                          values.get("gains")))

    return form


def ideal_dcg(rel: pl.Expr, rank: pl.Expr, k: int | None, kind: Gain, ideal: Ideal,
              mapped: GainPairs = None) -> pl.Expr:
    """DCG@k of the ideal order: the positive gains of every row (``ideal="all"``) or of the
    retrieved rows, sorted descending (docs/semantics.md#idcg); ``mapped``: a gain per grade."""
    gains = gain(rel, kind, mapped)
    pool = gains > 0
    if ideal == "retrieved":
        pool = pool & retrieved(rank)
    # The positive gains sorted, then the first k: one sort per group (``top_k`` would
    # select the k and sort them again); benchmarks/headline.py times the builders.
    best = gains.filter(pool).sort(descending=True)
    if k is not None and k <= FIRST_DISCOUNTS_BOUND:
        best = best.head(k)
        return sequential_sum(best / first_discounts(best, k))
    if k is not None:
        best = best.head(k)
    return sequential_sum(best / log2_discount(ordinals(best)))


@validated(METRICS["cg"])
@rank_guarded
def cg(rel: IntoExpr = "rel", k: int | None = None, *, rank: IntoExpr = "rank",
       gain: Gain = "linear") -> pl.Expr:
    """Cumulative gain at k: ``CG@k = sum over rank i <= k of g(rel_i)``.

    Contract: docs/semantics.md#cg.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "rel": [3, 2, 3, 0, 1]})
    >>> df.select(rf.cg("rel", k=3)).item()
    8.0
    """
    return _gain_sum("cg", col(rel), col(rank), k, gain).alias(label("cg", k))


@validated(METRICS["dcg"])
@rank_guarded
def dcg(rel: IntoExpr = "rel", k: int | None = None, *, rank: IntoExpr = "rank",
        gain: Gain = "linear", gains: Mapping[int, float] | None = None) -> pl.Expr:
    """Discounted cumulative gain at k: ``DCG@k = sum over i <= k of g(rel_i) / log2(i + 1)``.

    Contract: docs/semantics.md#dcg.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "rel": [3, 2, 3, 0, 1]})
    >>> round(df.select(rf.dcg("rel", k=5)).item(), 4)
    6.1487

    With ``gains={1: 3, 2: 9}`` the grades 3, 2, 3, 0, 1 gain 3, 9, 3, 0, 3:
    3/1 + 9/log2(3) + 3/log2(4) + 3/log2(6) = 3 + 5.6785 + 1.5 + 1.1606.

    >>> round(df.select(rf.dcg("rel", k=5, gains={1: 3, 2: 9})).item(), 4)
    11.3389
    """
    return _gain_sum("dcg", col(rel), col(rank), k, gain, mapped=gains).alias(label("dcg", k))


@validated(METRICS["idcg"])
@rank_guarded
def idcg(rel: IntoExpr = "rel", k: int | None = None, *, rank: IntoExpr = "rank",
         gain: Gain = "linear", ideal: Ideal = "all",
         gains: Mapping[int, float] | None = None) -> pl.Expr:
    """Ideal DCG at k: the DCG@k of the query's positive gains sorted descending.

    Contract: docs/semantics.md#idcg.

    The ideal ranking is built from every row of the query, retrieved or not
    (``ideal="all"``, trec_eval) or from the retrieved rows only (``"retrieved"``).

    Parameters
    ----------
    rank
        Rank column (a name or a Polars expression): 1 is the top, unique within a query;
        NULL: judged but not retrieved. Ranks start at 1: shift 0-based positions by one
        (``pl.col("position") + 1``). Read only with ``ideal="retrieved"``.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "rel": [3, 2, 3, 0, 1]})
    >>> round(df.select(rf.idcg("rel", k=5)).item(), 4)
    6.3235

    With ``gains={1: 3, 2: 9}`` the positive gains sorted are 9, 3, 3, 3:
    9/1 + 3/log2(3) + 3/log2(4) + 3/log2(5) = 9 + 1.8928 + 1.5 + 1.2920.

    >>> round(df.select(rf.idcg("rel", k=5, gains={1: 3, 2: 9})).item(), 4)
    13.6848
    """
    return _gain_sum("idcg", col(rel), col(rank), k, gain, ideal, gains).alias(label("idcg", k))


@validated(METRICS["ndcg"])
@rank_guarded
def ndcg(rel: IntoExpr = "rel", k: int | None = None, *, rank: IntoExpr = "rank",
         gain: Gain = "linear", ideal: Ideal = "all",
         gains: Mapping[int, float] | None = None) -> pl.Expr:
    """Normalised DCG at k: ``nDCG@k = DCG@k / IDCG@k``, 0 when IDCG@k = 0.

    Contract: docs/semantics.md#ndcg.

    The ideal ranking is cut at k too.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "rel": [3, 2, 3, 0, 1]})
    >>> round(df.select(rf.ndcg("rel", k=5)).item(), 4)
    0.9724
    >>> round(df.select(rf.ndcg("rel", k=5, gains={1: 3, 2: 9})).item(), 4)
    0.8286
    """
    return _gain_sum("ndcg", col(rel), col(rank), k, gain, ideal, gains).alias(label("ndcg", k))


# --------------------------------------------------------------------------- trec_eval's
# experimental nDCG variants: linear gains (``gains`` mapped), the ideal ranking built from
# every row. Sums run in rank (or ideal) order, as trec_eval adds them.


def _ideal(rel: pl.Expr, gains: GainPairs) -> pl.Expr:
    """The positive linear gains of every row, best first: the ideal ranking."""
    g = gain(rel, "linear", gains)
    return g.filter(g > 0).sort(descending=True)


def _ideal_running(rel: pl.Expr, gains: GainPairs) -> pl.Expr:
    """IDCG@1, IDCG@2, ..., IDCG@P over the P positive gains of the ideal ranking."""
    best = _ideal(rel, gains)
    return (best / log2_discount(ordinals(best))).cum_sum()


_LAST = 2**62  # sorts unretrieved rows after every rank


def _dcg_at(rel: pl.Expr, rank: pl.Expr, gains: GainPairs, positions: pl.Expr) -> pl.Expr:
    """DCG@i for each i of ``positions`` (ascending): the running DCG of the retrieved rows
    in rank order, read at the last rank <= i (0 before the first). The running sums are
    read after a leading 0.0, so that no index falls outside them (a group without rows)."""
    key = rank.fill_null(_LAST)
    running = (gain(rel, "linear", gains) / log2_discount(rank)).fill_null(0.0).sort_by(key)
    running = pl.lit(0.0, dtype=pl.Float64).append(running.cum_sum())
    upto = key.sort().search_sorted(positions, side="right").cast(pl.Int64)
    return running.gather(upto)


@validated(METRICS["ndcg_rel"])
@rank_guarded
def ndcg_rel(rel: IntoExpr = "rel", *, rank: IntoExpr = "rank",
             gains: Mapping[int, float] | None = None) -> pl.Expr:
    """nDCG averaged over the relevant rows (trec_eval ``ndcg_rel``, experimental).

    Contract: docs/semantics.md#ndcg_rel.

    ``ndcg_rel = (1/Rg) * (sum over retrieved rows r with g > 0 of DCG@r / IDCG@min(r, Rg)
    + (Rg - found) * DCG / IDCG)``: Rg rows of the query have a positive gain, ``found`` of
    them are retrieved, DCG and IDCG are the whole list's. 0 when Rg = 0 or the sum is <= 0.

    Parameters
    ----------
    rel
        Grade column: the linear gain g = rel (0 for NULL and grades <= 0), or the gain
        ``gains`` gives the grade.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, None], "rel": [0, 2, 1, 1]})
    >>> round(df.select(rf.ndcg_rel("rel")).item(), 4)
    0.535
    """
    rel_e, rank_e = col(rel), col(rank)
    g = gain(rel_e, "linear", gains)
    ideal_at = _ideal_running(rel_e, gains)
    big_r = ideal_at.len().cast(pl.Int64)
    order = rank_e.filter(retrieved(rank_e))
    g_ret = g.filter(retrieved(rank_e)).sort_by(order)
    running = (g_ret / log2_discount(order.sort())).cum_sum()
    hit = g_ret > 0
    # Raised to 1: a rank below 1 (a group its guard makes NULL) must not index out of range.
    at = order.sort().filter(hit).clip(lower_bound=1, upper_bound=big_r) - 1
    terms = running.filter(hit) / ideal_at.gather(at.cast(pl.Int64))
    whole = running.last().fill_null(0.0)
    total = running_total(terms) + (big_r - count(hit)).cast(pl.Float64) * whole / ideal_at.last()
    return (pl.when((big_r > 0) & (total > 0)).then(total / big_r.cast(pl.Float64))
            .otherwise(pl.lit(0.0)).alias(label("ndcg_rel", None)))


@validated(METRICS["rndcg"])
@rank_guarded
def rndcg(rel: IntoExpr = "rel", *, rank: IntoExpr = "rank", threshold: float = 1,
          gains: Mapping[int, float] | None = None) -> pl.Expr:
    """nDCG averaged at the R-levels of the ideal ranking (trec_eval ``Rndcg``, experimental).

    Contract: docs/semantics.md#rndcg.

    The mean of DCG@i / IDCG@i over the positions i where the ideal gain changes after i
    (the last positive one included, i <= P, P = rows with a positive gain), and of
    DCG@n / IDCG@P when the list runs past P + 1 (n = the last rank). 0 when no row is
    relevant (rel >= threshold) or no such point exists.

    Parameters
    ----------
    rel
        Grade column: linear gain g = rel (0 for NULL and grades <= 0), or the gain
        ``gains`` gives the grade; relevant iff rel >= threshold.
    threshold
        Relevance level (trec_eval ``-l``): no relevant row gives 0; default 1.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, None], "rel": [1, 2, 0, 0, 2]})
    >>> round(df.select(rf.rndcg("rel")).item(), 4)
    0.6473
    """
    rel_e, rank_e = col(rel), col(rank)
    best = _ideal(rel_e, gains)
    ideal_at = _ideal_running(rel_e, gains)
    big_p = best.len().cast(pl.Int64)
    last = rank_e.max().cast(pl.Int64).fill_null(0)
    changes = (best != best.shift(-1)).fill_null(True)
    points = ordinals(best).filter(changes)
    terms = _dcg_at(rel_e, rank_e, gains, points) / ideal_at.filter(changes)
    runs_on = (big_p > 0) & (last > big_p + 1)
    tail = _dcg_at(rel_e, rank_e, gains, last).first() / ideal_at.last()
    total = running_total(terms) + pl.when(runs_on).then(tail).otherwise(0.0)
    n_terms = count(changes) + runs_on.cast(pl.Int64)
    has_relevant = relevant(rel_e, threshold).any()
    return (pl.when(has_relevant & (n_terms > 0)).then(total / n_terms.cast(pl.Float64))
            .otherwise(pl.lit(0.0)).alias(label("rndcg", None)))


@validated(METRICS["ndcg_p"])
@rank_guarded
def ndcg_p(rel: IntoExpr = "rel", *, rank: IntoExpr = "rank", threshold: float = 1,
           gains: Mapping[int, float] | None = None) -> pl.Expr:
    """nDCG with Järvelin & Kekäläinen's first discount (trec_eval ``ndcg_p``).

    Contract: docs/semantics.md#ndcg_p.

    Rank 1 is not discounted and rank i > 1 is divided by log2(i):
    ``DCG = g_1 + sum over i > 1 of g_i / log2(i)``, the same for the ideal ranking of every
    row's positive gains; ndcg_p = DCG / IDCG, 0 when no relevant row (rel >= threshold) is
    retrieved or IDCG = 0.

    Parameters
    ----------
    rel
        Grade column: linear gain g = rel (0 for NULL and grades <= 0), or the gain
        ``gains`` gives the grade; relevant iff rel >= threshold.
    threshold
        Relevance level (trec_eval ``-l``): no relevant row retrieved gives 0; default 1.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, None], "rel": [0, 2, 1, 1]})
    >>> round(df.select(rf.ndcg_p("rel")).item(), 4)
    0.7246
    """
    rel_e, rank_e = col(rel), col(rank)
    g = gain(rel_e, "linear", gains)
    # trec_eval adds g at rank 1 and g / log2(i) below it, C's log2, in rank order.
    first_free = pl.when(rank_e == 1).then(pl.lit(1.0)).otherwise(exact_log2(rank_e))
    top = running_total((g / first_free).filter(retrieved(rank_e)).sort_by(rank_e.filter(
        retrieved(rank_e))))
    best = _ideal(rel_e, gains)
    at = ordinals(best)
    ideal = running_total(best / pl.when(at == 1).then(pl.lit(1.0)).otherwise(exact_log2(at)))
    found = count(relevant(rel_e, threshold) & retrieved(rank_e))
    return (pl.when((found > 0) & (ideal > 0)).then(divide(top, ideal)).otherwise(pl.lit(0.0))
            .alias(label("ndcg_p", None)))

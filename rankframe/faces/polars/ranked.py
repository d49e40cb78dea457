"""Rank-sensitive binary metrics: reciprocal rank, average precision, R-precision,
bpref and interpolated precision at a recall level.

Per query: ``R`` = relevant rows (rel >= threshold) retrieved or not; ``r_j`` = rank of
the j-th relevant retrieved row, ascending.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import polars as pl

from rankframe.faces.polars.expr import (
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
    running_total,
    sequential_sum,
    share,
)
from rankframe.faces.polars.ordered import RowValue, precision_sums, precision_sums_of_rows
from rankframe.registry import METRICS, validated

APDivisor = Literal["relevant", "min", "found"]
RecallRounding = Literal["nearest", "trec_eval9"]


@validated(METRICS["reciprocal_rank"])
@rank_guarded
def reciprocal_rank(rel: IntoExpr = "rel", k: int | None = None, *, rank: IntoExpr = "rank",
                    threshold: float = 1) -> pl.Expr:
    """Reciprocal rank at k: ``1 / r_1`` for the first relevant rank r_1 <= k, else 0.

    Contract: docs/semantics.md#reciprocal_rank.

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
def average_precision(rel: IntoExpr = "rel", k: int | None = None, *, rank: IntoExpr = "rank",
                      threshold: float = 1, divisor: APDivisor = "relevant") -> pl.Expr:
    """Average precision at k (trec_eval ``map`` / ``map_cut_k``).

    Contract: docs/semantics.md#average_precision.

    ``AP@k = (sum over relevant r_j <= k of j / r_j) / D`` with D = R (``"relevant"``,
    trec_eval, ranx), ``min(R, k)`` (``"min"``, the recommender MAP@k) or the number of
    relevant rows found in the top k (``"found"``). D = 0 gives 0.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "rel": [1, 0, 1, 0, 1]})
    >>> round(df.select(rf.average_precision("rel")).item(), 4)
    0.7556
    """
    rel_e, rank_e = col(rel), col(rank)
    hit = relevant(rel_e, threshold) & retrieved(rank_e, k)
    # j / r_j added in rank order, as trec_eval's loop (docs/semantics.md#exactness): the
    # relevant ranks of every query sorted and summed at once (rankframe.faces.polars.ordered).
    ranks = rank_e.filter(hit).implode()
    total = ranks.map_batches(precision_sums, return_dtype=pl.Float64, is_elementwise=True)
    found = count(hit) if divisor == "found" else None
    return _ap_value(total, rel_e, k, threshold, divisor, found)


def average_precision_of_rows(rows: pl.DataFrame, groups: int, values: Mapping[str, Any]
                              ) -> RowValue:
    """:func:`average_precision` as a row form of ``rf.evaluate_expr``: the sum of j / r_j
    by :func:`precision_sums_of_rows` over the same hit rows, without a list per query,
    finished by the builder's own :func:`_ap_value`."""
    k, threshold, divisor = values.get("k"), values["threshold"], values["divisor"]
    rel, rank = pl.col("rel"), pl.col("rank")
    hit = relevant(rel, threshold) & retrieved(rank, k)
    hits = rows.filter(hit).select("q", "rank").drop_nulls("rank")
    found = count(hit) if divisor == "found" else None
    return RowValue(precision_sums_of_rows(hits, groups),
                    lambda total: _ap_value(total, rel, k, threshold, divisor, found))


def _ap_value(total: pl.Expr, rel: pl.Expr, k: int | None, threshold: float,
              divisor: APDivisor, found: pl.Expr | None) -> pl.Expr:
    """AP@k from the sum of the precisions at the relevant ranks: ``total / D``."""
    r_count = count(relevant(rel, threshold))
    if divisor == "relevant":
        denominator = r_count
    elif divisor == "min":
        denominator = r_count if k is None else pl.min_horizontal(r_count, pl.lit(k, pl.Int64))
    else:
        assert found is not None
        denominator = found
    return share(total, denominator).alias(label("average_precision", k))




@validated(METRICS["r_precision"])
@rank_guarded
def r_precision(rel: IntoExpr = "rel", *, rank: IntoExpr = "rank", threshold: float = 1) -> pl.Expr:
    """R-precision (trec_eval ``Rprec``): relevant rows in the top R divided by R; 0 if R = 0.

    Contract: docs/semantics.md#r_precision.

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
def bpref(rel: IntoExpr = "rel", *, rank: IntoExpr = "rank", threshold: float = 1) -> pl.Expr:
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


#: trec_eval's INFAP_EPSILON: keeps infAP's estimate of precision above defined at 0 / 0.
INFAP_EPSILON = 0.00001


@validated(METRICS["infap"])
@rank_guarded
def infap(rel: IntoExpr = "rel", *, rank: IntoExpr = "rank", threshold: float = 1) -> pl.Expr:
    """Inferred average precision (Yilmaz & Aslam 2006, as in trec_eval ``infAP``).

    Contract: docs/semantics.md#infap.

    For the relevant retrieved row at rank r > 1, with a relevant, b judged non-relevant and
    u pooled-but-unjudged (negative grade) rows above it, j = r - 1 and e = 0.00001:
    ``1/r + (j/r) * ((a + b + u)/j) * ((a + e)/(a + b + 2e))``; at rank 1 the term is 1.
    Rows outside the pool (NULL grade) count only as positions. infAP = sum of terms / R,
    0 when R = 0.

    Parameters
    ----------
    rel
        Grade column: relevant iff rel >= threshold; judged non-relevant iff 0 <= rel <
        threshold; negative: in the pool but not judged (trec_eval reads every negative
        qrels grade so); NULL: not in the pool.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5, None], "rel": [1, None, 0, -1, 1, 1]})
    >>> round(df.select(rf.infap("rel")).item(), 4)
    0.5
    """
    rel_e, rank_e = col(rel), col(rank)
    ret = retrieved(rank_e)
    ranks = rank_e.filter(ret).sort()
    grades = rel_e.filter(ret).sort_by(rank_e.filter(ret))
    is_rel = relevant(grades, threshold)
    rel_above = is_rel.cast(pl.Int64).cum_sum() - is_rel.cast(pl.Int64)
    nonrel_above = judged_nonrelevant(grades, threshold).cast(pl.Int64).cum_sum()
    unjudged_above = (grades < 0).fill_null(False).cast(pl.Int64).cum_sum()
    j = (ranks - 1).cast(pl.Float64)
    above = (rel_above + nonrel_above + unjudged_above).cast(pl.Float64)
    estimate = ((rel_above.cast(pl.Float64) + INFAP_EPSILON)
                / ((rel_above + nonrel_above).cast(pl.Float64) + 2 * INFAP_EPSILON))
    term = (pl.when(ranks == 1).then(pl.lit(1.0))
            .otherwise(1.0 / (j + 1.0) + (j / (j + 1.0)) * (above / j) * estimate))
    return ratio(running_total(term.filter(is_rel)), count(relevant(rel_e, threshold))).alias(
        label("infap", None))


def relchar(rel: pl.Expr) -> pl.Expr:
    """relstring's character of a grade: the digit of 0-9, '>' above 9, '-' for NULL (not in
    the pool), '.' for a negative grade (pooled, unjudged), '<' for a grade not whole."""
    grade = rel.cast(pl.Float64)
    digit = grade.clip(0, 9).cast(pl.Int64, strict=False).cast(pl.String)  # NaN: its group is NULL
    return (pl.when(grade.is_null()).then(pl.lit("-")).when(grade < 0).then(pl.lit("."))
            .when(grade != grade.floor()).then(pl.lit("<")).when(grade > 9).then(pl.lit(">"))
            .otherwise(digit))


_LAST = 2**62  # sorts unretrieved rows after every rank


@validated(METRICS["relstring"])
@rank_guarded
def relstring(rel: IntoExpr = "rel", *, rank: IntoExpr = "rank",
              length: int | None = 10) -> pl.Expr:
    """The grades of the top ``length`` ranks as a string (trec_eval ``relstring``).

    Contract: docs/semantics.md#relstring.

    One character per position 1 .. min(length, last rank): the grade's digit for 0-9,
    ``>`` above 9, ``-`` for a document outside the pool (NULL grade, or a rank gap),
    ``.`` for a negative grade (pooled but unjudged), ``<`` for a grade that is not whole.
    A String per query ("" when nothing is retrieved); it has no summary over queries.

    Parameters
    ----------
    rel
        Grade column (a name or a Polars expression).

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 4, 5, None], "rel": [2, None, -1, 12, 1]})
    >>> df.select(rf.relstring("rel")).item()
    '2--.>'
    """
    rel_e, rank_e = col(rel), col(rank)
    last = rank_e.max().cast(pl.Int64).fill_null(0)
    end = last if length is None else pl.min_horizontal(last, pl.lit(length, dtype=pl.Int64))
    positions = pl.int_range(1, end + 1, dtype=pl.Int64)
    key = rank_e.fill_null(_LAST).cast(pl.Int64)
    at = key.sort().search_sorted(positions).cast(pl.Int64).clip(upper_bound=pl.len() - 1)
    shown = relchar(rel_e).sort_by(key).gather(at)
    chars = pl.when(key.sort().gather(at) == positions).then(shown).otherwise(pl.lit("-"))
    return chars.str.join("").alias(label("relstring", None))


@validated(METRICS["yaap"])
@rank_guarded
def yaap(rel: IntoExpr = "rel", *, rank: IntoExpr = "rank", threshold: float = 1) -> pl.Expr:
    """Yet another average precision (Robertson 2012, as in trec_eval ``yaap``).

    Contract: docs/semantics.md#yaap.

    ``yaap = ln((1 + S) / (1 + R - S))`` with S = sum over the relevant retrieved rows of
    j / r_j (the precisions average precision sums). Negative below S = R/2; 0 for a query
    with R = 0 and nothing relevant retrieved.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, None], "rel": [1, 0, 1, 1]})
    >>> round(df.select(rf.yaap("rel")).item(), 4)
    0.1335
    """
    rel_e, rank_e = col(rel), col(rank)
    ranks = relevant_ranks(rank_e, rel_e, threshold, None)
    total = running_total(ordinals(ranks).cast(pl.Float64) / ranks.cast(pl.Float64))
    big_r = count(relevant(rel_e, threshold)).cast(pl.Float64)
    return ((1.0 + total) / ((1.0 + big_r) - total)).log().alias(label("yaap", None))


@validated(METRICS["iprec_at_recall"])
@rank_guarded
def iprec_at_recall(rel: IntoExpr = "rel", recall: float = 0.0, *, rank: IntoExpr = "rank",
                    threshold: float = 1, rounding: RecallRounding = "nearest") -> pl.Expr:
    """Interpolated precision at a recall level (trec_eval ``iprec_at_recall_x``).

    Contract: docs/semantics.md#iprec_at_recall.

    The highest precision ``j / r_j`` at any relevant rank j >= c, where c relevant rows
    make up that recall level; 0 when fewer than c relevant rows are retrieved (or none).
    ``rounding="nearest"``: ``c = round(recall * R)``, halves up (trec_eval 10's lround);
    ``"trec_eval9"``: ``c = floor(recall * R + 0.9)``, the rule of trec_eval 9.x and so of
    pytrec_eval (e.g. recall 0.6 of R = 2 needs 1 relevant row by the first, 2 by the second).

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


@validated(METRICS["r_precision_mult"])
@rank_guarded
def r_precision_mult(rel: IntoExpr = "rel", multiple: float = 1.0, *, rank: IntoExpr = "rank",
                     threshold: float = 1) -> pl.Expr:
    """Precision at a multiple of R (trec_eval ``Rprec_mult_x``): relevant rows in the top
    c divided by c, where ``c = floor(multiple * R + 0.9)``; 0 when c = 0.

    Contract: docs/semantics.md#r_precision_mult.

    c is computed in float64, as trec_eval does; a cutoff beyond the rows retrieved counts
    the missing ranks as non-relevant (``num_rel_ret / c``). ``multiple = 1`` is R-precision.

    Examples
    --------
    Relevant at ranks 1, 3, 5 and one unretrieved, so R = 4; at x = 0.6,
    c = floor(0.6 * 4 + 0.9) = 3 and the top 3 hold 2 relevant rows: 2 / 3.

    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5, None], "rel": [1, 0, 1, 0, 1, 1]})
    >>> round(df.select(rf.r_precision_mult("rel", 0.6)).item(), 4)
    0.6667
    """
    rel_e, rank_e = col(rel), col(rank)
    is_relevant = relevant(rel_e, threshold)
    cut = (count(is_relevant).cast(pl.Float64) * multiple + 0.9).floor()
    hits = count(is_relevant & (rank_e <= cut).fill_null(False))
    return ratio(hits, cut).alias(label("r_precision_mult", multiple))

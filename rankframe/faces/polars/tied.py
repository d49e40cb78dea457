"""Tie-aware metrics: the expected value over every ordering of tied documents.

McSherry & Najork (ECIR 2008): when a run gives several documents the same score, any
order among them is as defensible as the docid tie-break, so report the mean of the
metric over all orderings of each tie group. Every metric here has a closed form in the
per-group counts, so no ordering is ever enumerated.

Input columns (see :func:`rankframe.table.ties.annotate`): ``tie_first``, the first position
of the row's tie group, and ``tie_size``, the group's size; the group occupies positions
``f .. f + t - 1``. Both NULL = judged but not retrieved. ``rel`` follows the judged-table
conventions. Per group: t = size, r = relevant rows (rel >= threshold), c(k) =
``clip(k - f + 1, 0, t)`` positions of the group inside the top k; with no ties (every
t = 1) each metric equals its plain counterpart.
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from rankframe.faces.polars.counts import PrecisionDivisor, precision_from_hits
from rankframe.faces.polars.expr import (
    Gain,
    IntoExpr,
    col,
    count,
    gain,
    grade_guarded,
    label,
    ratio,
    relevant,
    retrieved,
)
from rankframe.faces.polars.gains import Ideal, ideal_dcg
from rankframe.registry import METRICS, validated

TiedAPDivisor = Literal["relevant", "min"]


def _last_position(first: pl.Expr, size: pl.Expr, k: int | None) -> pl.Expr:
    """Last position of the group inside the cutoff (may be < first: none inside)."""
    last = first + size - 1
    return last if k is None else pl.min_horizontal(last, pl.lit(k, dtype=pl.Int64))


def _share_in_top(first: pl.Expr, size: pl.Expr, k: int | None) -> pl.Expr:
    """c(k) / t: the chance that a given row of the group lands in the top k."""
    inside = (_last_position(first, size, k) - first + 1).clip(lower_bound=0)
    return inside.cast(pl.Float64) / size.cast(pl.Float64)


def _expected_hits(
    rel: pl.Expr, first: pl.Expr, size: pl.Expr, k: int | None, threshold: float
) -> pl.Expr:
    share = _share_in_top(first, size, k)
    return share.filter(relevant(rel, threshold) & retrieved(first)).sum()


@validated(METRICS["precision_ties"])
def precision_ties(rel: IntoExpr = "rel", k: int | None = None, *,
                   tie_first: IntoExpr = "tie_first", tie_size: IntoExpr = "tie_size",
                   threshold: float = 1, divisor: PrecisionDivisor = "k") -> pl.Expr:
    """Expected precision at k over the orderings of tied rows.

    Contract: docs/semantics.md#precision_ties.

    ``E[P@k] = (sum over groups of r * c(k) / t) / k`` (``divisor="min"``: ``/ min(k, n)``;
    ``k=None``: relevant retrieved / n). Nothing retrieved gives 0.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rel": [1, 0, 1], "tie_first": [1, 2, 2], "tie_size": [1, 2, 2]})
    >>> df.select(rf.precision_ties("rel", k=2)).item()
    0.75
    """
    rel_e, first, size = col(rel), col(tie_first), col(tie_size)
    hits = _expected_hits(rel_e, first, size, k, threshold)
    n = count(retrieved(first))
    return precision_from_hits(hits, n, k, divisor).alias(label("precision_ties", k))


@validated(METRICS["recall_ties"])
def recall_ties(rel: IntoExpr = "rel", k: int | None = None, *, tie_first: IntoExpr = "tie_first",
                tie_size: IntoExpr = "tie_size", threshold: float = 1) -> pl.Expr:
    """Expected recall at k: ``(sum over groups of r * c(k) / t) / R``; R = 0 gives 0.

    Contract: docs/semantics.md#recall_ties.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rel": [1, 0, 1], "tie_first": [1, 2, 2], "tie_size": [1, 2, 2]})
    >>> df.select(rf.recall_ties("rel", k=2)).item()
    0.75
    """
    rel_e, first, size = col(rel), col(tie_first), col(tie_size)
    hits = _expected_hits(rel_e, first, size, k, threshold)
    return ratio(hits, count(relevant(rel_e, threshold))).alias(label("recall_ties", k))


def _expected_dcg(
    rel: pl.Expr, first: pl.Expr, size: pl.Expr, k: int | None, kind: Gain
) -> pl.Expr:
    positions = pl.int_ranges(first, _last_position(first, size, k) + 1)
    discount = positions.list.eval(1.0 / (pl.element().cast(pl.Float64) + 1.0).log(2))
    value = gain(rel, kind) / size.cast(pl.Float64) * discount.list.sum()
    return value.filter(retrieved(first)).sum()


@validated(METRICS["dcg_ties"])
@grade_guarded
def dcg_ties(rel: IntoExpr = "rel", k: int | None = None, *, tie_first: IntoExpr = "tie_first",
             tie_size: IntoExpr = "tie_size", gain: Gain = "linear") -> pl.Expr:
    """Expected DCG at k: each row spreads its gain evenly over its group's positions.

    Contract: docs/semantics.md#dcg_ties.

    ``E[DCG@k] = sum over retrieved rows of g(rel) / t * sum over positions
    i = f .. min(f + t - 1, k) of 1 / log2(i + 1)``.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rel": [2, 0], "tie_first": [1, 1], "tie_size": [2, 2]})
    >>> round(df.select(rf.dcg_ties("rel")).item(), 4)
    1.6309
    """
    value = _expected_dcg(col(rel), col(tie_first), col(tie_size), k, gain)
    return value.alias(label("dcg_ties", k))


@validated(METRICS["ndcg_ties"])
@grade_guarded
def ndcg_ties(rel: IntoExpr = "rel", k: int | None = None, *, tie_first: IntoExpr = "tie_first",
              tie_size: IntoExpr = "tie_size", gain: Gain = "linear",
              ideal: Ideal = "all") -> pl.Expr:
    """Expected nDCG at k: ``E[DCG@k] / IDCG@k``; the ideal does not depend on ties.

    Contract: docs/semantics.md#ndcg_ties.

    ``ideal`` is as in :func:`rankframe.ndcg` (``"retrieved"`` keeps the rows with a
    tie group). IDCG = 0 gives 0.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rel": [2, 0], "tie_first": [1, 1], "tie_size": [2, 2]})
    >>> round(df.select(rf.ndcg_ties("rel")).item(), 4)
    0.8155
    """
    rel_e, first, size = col(rel), col(tie_first), col(tie_size)
    value = ratio(_expected_dcg(rel_e, first, size, k, gain),
                  ideal_dcg(rel_e, first, k, gain, ideal))
    return value.alias(label("ndcg_ties", k))


@validated(METRICS["reciprocal_rank_ties"])
def reciprocal_rank_ties(rel: IntoExpr = "rel", k: int | None = None, *,
                         tie_first: IntoExpr = "tie_first", tie_size: IntoExpr = "tie_size",
                         threshold: float = 1) -> pl.Expr:
    """Expected reciprocal rank at k.

    Contract: docs/semantics.md#reciprocal_rank_ties.

    Only the first group holding a relevant row matters (position f, size t, r relevant).
    The first relevant row lands at offset j with probability
    ``P_j = C(t - j, r - 1) / C(t, r)``, so ``E[RR@k] = sum over j = 1 .. min(t - r + 1,
    k - f + 1) of P_j / (f + j - 1)``. Computed with ``P_1 = r / t`` and
    ``P_j = P_(j-1) * (t - r - j + 2) / (t - j + 1)``. No relevant row within k gives 0.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rel": [1, 0], "tie_first": [1, 1], "tie_size": [2, 2]})
    >>> df.select(rf.reciprocal_rank_ties("rel")).item()
    0.75
    """
    rel_e, first, size = col(rel), col(tie_first), col(tie_size)
    mask = relevant(rel_e, threshold) & retrieved(first)
    f = first.filter(mask).min()
    r = (first.filter(mask) == f).sum().cast(pl.Float64)
    t = size.filter(mask & (first == f)).first().cast(pl.Float64)
    steps = (t - r + 1.0).cast(pl.Int64)
    if k is not None:
        steps = pl.min_horizontal(steps, k - f + 1)
    j = pl.int_range(1, steps.fill_null(0).clip(lower_bound=0) + 1, dtype=pl.Int64)
    jf = j.cast(pl.Float64)
    factor = pl.when(j == 1).then(r / t).otherwise((t - r - jf + 2.0) / (t - jf + 1.0))
    value = (factor.cum_prod() / (f.cast(pl.Float64) + jf - 1.0)).sum()
    return value.fill_null(0.0).alias(label("reciprocal_rank_ties", k))


@validated(METRICS["average_precision_ties"])
def average_precision_ties(rel: IntoExpr = "rel", k: int | None = None, *,
                           tie_first: IntoExpr = "tie_first", tie_size: IntoExpr = "tie_size",
                           threshold: float = 1, divisor: TiedAPDivisor = "relevant") -> pl.Expr:
    """Expected average precision at k.

    Contract: docs/semantics.md#average_precision_ties.

    A relevant row in a group (position f, size t, r relevant, h relevant rows in earlier
    groups) sits at each offset j = 1..t with chance 1/t; there, the expected number of
    relevant rows in the top ``f + j - 1`` is ``h + 1 + (j - 1)(r - 1)/(t - 1)``. So
    ``E[AP@k] = (1/D) * sum over relevant retrieved rows of (1/t) * sum over
    j = 1 .. min(t, k - f + 1) of (h + 1 + (j - 1)(r - 1)/(t - 1)) / (f + j - 1)``
    with D = R (``"relevant"``, trec_eval) or ``min(R, k)`` (``"min"``); D = 0 gives 0.
    (The ``"found"`` divisor of :func:`rankframe.average_precision` is random under ties
    and has no such closed form, so it is not offered.)

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rel": [1, 0], "tie_first": [1, 1], "tie_size": [2, 2]})
    >>> df.select(rf.average_precision_ties("rel")).item()
    0.75
    """
    rel_e, first, size = col(rel), col(tie_first), col(tie_size)
    mask = relevant(rel_e, threshold) & retrieved(first)
    f, t = first.filter(mask), size.filter(mask)
    ordered = f.sort()
    before = ordered.search_sorted(f, side="left").cast(pl.Float64)
    in_group = ordered.search_sorted(f, side="right").cast(pl.Float64) - before
    last = _last_position(f, t, k)
    steps = (last - f + 1).clip(lower_bound=0).cast(pl.Float64)
    harmonic = pl.int_ranges(f, last + 1).list.eval(1.0 / pl.element().cast(pl.Float64))
    h1 = harmonic.list.sum()
    h2 = steps - f.cast(pl.Float64) * h1  # sum of (j - 1)/(f + j - 1)
    tf = t.cast(pl.Float64)
    slope = pl.when(tf > 1).then((in_group - 1.0) / (tf - 1.0)).otherwise(pl.lit(0.0))
    total = (((before + 1.0) * h1 + slope * h2) / tf).sum()
    r_count = count(relevant(rel_e, threshold))
    denominator = (
        r_count
        if divisor == "relevant" or k is None
        else pl.min_horizontal(r_count, pl.lit(k, dtype=pl.Int64))
    )
    return ratio(total, denominator).alias(label("average_precision_ties", k))

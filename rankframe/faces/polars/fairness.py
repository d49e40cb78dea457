"""Exposure fairness across item groups: attention-weighted rank fairness (AWRF), the
exposure the list gives each group, weighted by rank, against a target distribution.

Contract: docs/semantics.md#beyond-accuracy.
"""

from __future__ import annotations

import polars as pl

from rankframe.faces.polars.beyond import one_length, padded, position_sums, recommended
from rankframe.faces.polars.expr import IntoExpr, col, label, rank_guarded
from rankframe.registry import METRICS, validated


def _half_divergence(p: pl.Expr, m: pl.Expr) -> pl.Expr:
    """½ sum p_g ln(p_g / m_g) of two distributions held as a group's values, terms with
    p_g = 0 adding 0."""
    return pl.when(p > 0).then(p * (p / m).log()).otherwise(0.0).sum() / 2.0


@validated(METRICS["awrf"])
@rank_guarded
def awrf(alignment: IntoExpr = "alignment", k: int | None = None, *, rank: IntoExpr = "rank",
         target: IntoExpr = "target") -> pl.Expr:
    """Attention-weighted rank fairness: one minus the Jensen-Shannon divergence between the
    groups' exposure in the list and the target distribution.

    Contract: docs/semantics.md#awrf.

    Each recommended row of known group gets the attention ``1 / log2(max(rank, 2))``; the
    exposure ``E = sum w_i a_i / sum w_i`` and the target (normalised) are compared by the
    Jensen-Shannon divergence in nats: ``awrf@k = 1 - JSD(E, T)``, 1 when the exposure
    meets the target; NULL for a list with no row of known group.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> recs = pl.DataFrame({"rank": [1, 2], "alignment": [[1.0, 0.0], [0.0, 1.0]],
    ...                      "target": [[0.5, 0.5], [0.5, 0.5]]})
    >>> recs.select(rf.awrf("alignment")).item()
    1.0
    """
    r = col(rank)
    known = recommended(r, k) & col(alignment).is_not_null()
    vectors = col(alignment).cast(pl.List(pl.Float64)).filter(known)
    attention = 1.0 / pl.max_horizontal(r, pl.lit(2)).cast(pl.Float64).log(2.0)
    weights = attention.filter(known)
    goal = col(target).cast(pl.List(pl.Float64)).drop_nulls().first().explode()
    exposure = padded(position_sums(vectors * weights), goal)
    e = exposure / exposure.sum()
    t = goal / goal.sum()
    m = (e + t) / 2.0
    value = 1.0 - (_half_divergence(e, m) + _half_divergence(t, m))
    fits = (one_length(vectors) & (vectors.list.len().first() == goal.len())).fill_null(False)
    ok = fits & (weights.len() > 0) & (exposure.sum() > 0) & (goal.sum() > 0)
    return pl.when(ok).then(value).alias(label("awrf", k))

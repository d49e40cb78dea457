"""Diversity within a list and serendipity: intra-list diversity from an item category, from
item feature vectors (closed forms, no pairs) or from the per-row sums of any pairwise
similarity; serendipity from each item's similarity to the user's history. List metrics,
one value per user's list.

Contract: docs/semantics.md#beyond-accuracy.
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from rankframe.faces.polars import expr
from rankframe.faces.polars.beyond import (
    one_length,
    position_sums,
    recommended,
    squared_norm,
    unit_vectors,
)
from rankframe.faces.polars.expr import IntoExpr, col, label, rank_guarded
from rankframe.registry import METRICS, validated


def _one_minus_pair_mean(pair_total: pl.Expr, n: pl.Expr) -> pl.Expr:
    """1 - pair_total / (n (n - 1)) of the aggregates (pair_total sums each unordered pair's
    similarity twice), NULL for fewer than two rows."""
    pairs = (n * (n - 1)).cast(pl.Float64)
    return pl.when(n >= 2).then(1.0 - pair_total.cast(pl.Float64) / pairs)


@validated(METRICS["ild_category"])
@rank_guarded
def ild_category(category: IntoExpr = "category", k: int | None = None, *,
                 rank: IntoExpr = "rank") -> pl.Expr:
    """Intra-list diversity over an item category: the share of the list's pairs of items
    in different categories.

    Contract: docs/semantics.md#ild_category.

    ``ild_category@k = 1 - sum_c n_c (n_c - 1) / (n (n - 1))`` from the per-category counts
    n_c of the rows with rank <= k (no pairs formed); NULL for fewer than two.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> recs = pl.DataFrame({"rank": [1, 2, 3], "category": ["x", "x", "y"]})
    >>> round(recs.select(rf.ild_category("category")).item(), 4)
    0.6667
    """
    listed = col(category).filter(recommended(col(rank), k))
    # sum_c n_c (n_c - 1) = sum_c n_c^2 - sum_c n_c: the counts are taken once.
    categorized = listed.drop_nulls()
    same = categorized.unique_counts().cast(pl.Int64).pow(2).sum() - categorized.len()
    return _one_minus_pair_mean(same, listed.len()).alias(label("ild_category", k))


@validated(METRICS["ild_features"])
@rank_guarded
def ild_features(features: IntoExpr = "features", k: int | None = None, *,
                 rank: IntoExpr = "rank") -> pl.Expr:
    """Intra-list diversity over item feature vectors: one minus the mean cosine similarity
    of the list's pairs.

    Contract: docs/semantics.md#ild_features.

    ``ild_features@k = 1 - (|S|^2 - m) / (n (n - 1))``, S the sum of the unit vectors of the
    rows with rank <= k and m the rows with a non-zero vector (no pairs formed); NULL for
    fewer than two rows or vectors of several lengths.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> recs = pl.DataFrame({"rank": [1, 2], "features": [[1.0, 1.0], [1.0, 0.0]]})
    >>> round(recs.select(rf.ild_features("features")).item(), 4)
    0.2929
    """
    vectors = col(features).filter(recommended(col(rank), k))
    n = vectors.len()
    units = unit_vectors(vectors.drop_nulls())
    sums = position_sums(units)
    nonzero = expr.count((squared_norm(vectors.drop_nulls()) > 0).fill_null(False))
    pair_total = sums.pow(2).sum() - nonzero.cast(pl.Float64)
    value = _one_minus_pair_mean(pair_total, n)
    return pl.when(one_length(vectors.drop_nulls())).then(value).alias(
        label("ild_features", None if k is None else k))


@validated(METRICS["ild_pairs"])
@rank_guarded
def ild_pairs(pair_similarity: IntoExpr = "pair_similarity", *,
              rank: IntoExpr = "rank") -> pl.Expr:
    """Intra-list diversity from any item similarity: one minus the mean similarity of the
    list's pairs, from each item's sum of similarities to the others.

    Contract: docs/semantics.md#ild_pairs.

    ``ild_pairs = 1 - sum_i s_i / (n (n - 1))`` over the rows with a rank (NULL s_i counts
    0); NULL for fewer than two.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> recs = pl.DataFrame({"rank": [1, 2], "pair_similarity": [0.5, 0.5]})
    >>> recs.select(rf.ild_pairs("pair_similarity")).item()
    0.5
    """
    sums = col(pair_similarity).cast(pl.Float64).fill_null(0.0).filter(col(rank).is_not_null())
    return _one_minus_pair_mean(sums.sum(), sums.len()).alias(label("ild_pairs", None))


@validated(METRICS["serendipity"])
@rank_guarded
def serendipity(similarity: IntoExpr = "similarity", k: int | None = None, *,
                rank: IntoExpr = "rank", rel: IntoExpr = "rel", threshold: float = 1,
                relevance: Literal["binary", "ignore"] = "binary") -> pl.Expr:
    """Serendipity: the mean over the recommended items of relevance times unexpectedness,
    1 minus the item's mean similarity to the user's training items.

    Contract: docs/semantics.md#serendipity.

    ``serendipity@k = (1/n) sum rel_i (1 - sim_i)`` over the rows with rank <= k and a
    non-NULL similarity; NULL for a list with none.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> recs = pl.DataFrame({"rank": [1, 2], "similarity": [0.25, 0.5], "rel": [1, 0]})
    >>> recs.select(rf.serendipity("similarity")).item()
    0.375
    """
    sim = col(similarity).cast(pl.Float64)
    unexpected = 1.0 - sim
    if relevance == "binary":
        unexpected = pl.when(expr.relevant(col(rel), threshold)).then(unexpected).otherwise(0.0)
    terms = unexpected.filter(recommended(col(rank), k) & sim.is_not_null())
    return terms.mean().alias(label("serendipity", k))

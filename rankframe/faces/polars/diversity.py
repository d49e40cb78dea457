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
from rankframe.table.series import changes


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



def ild_category_sorted(table: pl.DataFrame, query: str, category: str, rank: str,
                        k: int | None) -> pl.Series | None:
    """:func:`ild_category` of each query of a table sorted by its one query column, in the
    query's order, from the sorted (query, category) cells rather than the builder's value
    counts list by list (``rankframe.evaluate``'s path on the Polars face;
    docs/architecture.md). None when the shape does not fit: a query column not flagged
    sorted, with NULLs or categories, or a category that is not an integer.

    The i-th query and category c (an integer from lo to hi) make the cell ``i * span + c -
    lo``, a NULL category the cell ``i * span + span - 1`` (span = hi - lo + 2); a run of
    equal cells among the rows of rank <= k is ``n_ic``, its query i = cell // span. Then
    ``n_i`` is the sum of the query's runs, ``same_i = sum_c n_ic (n_ic - 1)`` over its
    non-NULL cells, and the value ``1 - same_i / (n_i (n_i - 1))`` as the builder's."""
    key, categories = table.get_column(query), table.get_column(category)
    if (not key.flags["SORTED_ASC"] or key.null_count() or not categories.dtype.is_integer()
            or isinstance(key.dtype, (pl.Enum, pl.Categorical))):
        return None
    lo, hi = categories.min(), categories.max()
    low = 0 if lo is None else int(lo)  # type: ignore[arg-type]
    span = 2 if hi is None else int(hi) - low + 2  # type: ignore[arg-type]
    queries = int(changes(key).sum())
    if queries * span >= 2**62:  # a cell would not fit an Int64
        return None
    in_query = (pl.col(category).cast(pl.Int64) - low).fill_null(span - 1)
    cell = (pl.col(query).rle_id().cast(pl.Int64) * span + in_query).alias("cell")
    runs = table.lazy().select(cell, recommended(pl.col(rank), k).alias("listed")).filter(
        "listed").select(pl.col("cell").sort().rle()).unnest("cell")
    # Each query's sums from the running sums over its runs (sorted by query): their steps
    # at its last run, cheaper than a group-by of the runs.
    i = pl.col("value") // span
    alike = pl.col("len").cast(pl.Int64)
    same = alike * (alike - 1) * (pl.col("value") % span != span - 1)
    ends = runs.select(i.alias("i"), alike.cum_sum().alias("n"), same.cum_sum().alias("same"),
                       (i != i.shift(-1)).fill_null(True).alias("last")).filter("last")
    per_query = ends.select("i", *(pl.col(c) - pl.col(c).shift(1, fill_value=0)
                                   for c in ("n", "same"))).collect()
    counts = pl.DataFrame({name: pl.zeros(queries, pl.Int64, eager=True).scatter(
        per_query.get_column("i"), per_query.get_column(name)) for name in ("same", "n")})
    value = _one_minus_pair_mean(pl.col("same"), pl.col("n"))
    return counts.select(value.alias(category)).get_column(category)

"""Rank correlation and overlap between two orderings, one value per group.

``kendall_tau``, ``kendall_distance`` and ``spearman_rho`` compare two numeric columns
of the same rows (system score vs relevance, system A rank vs system B rank ...): ``x``,
and ``y`` by keyword (the registry's convention: the first data column is positional, the
others are keywords, e.g. ``rf.kendall_tau("score", y="rel")``). Rows
where either value is NULL or NaN are dropped first. Values are compared in the column's
own type, never through a cast: integers beyond 2^53 stay distinct, ``-0.0`` equals
``0.0``, and ``±inf`` are ordinary values (equal to themselves, beyond every finite one).
A group with fewer than two remaining rows, or where either column is constant, scores
0.0 (no evidence of association; scipy returns NaN there) in every face, so that means
over groups stay defined.

``rbo`` compares two rankings of possibly different documents held in the long form:
one row per document of either ranking, with its rank in each (NULL where it is absent).

Complexity per group of n rows: Spearman O(n log n) in Polars; Kendall O(n^2) time and
memory in Polars (every ordered pair is materialised, fine up to a few thousand rows per
group) and O(n^2) time in SQL; RBO O(d log n) in Polars and O(d * n) in SQL for lists
d deep.
"""

from __future__ import annotations

import math

import polars as pl

from rankframe.faces.polars.expr import IntoExpr, col, geometric_weight
from rankframe.registry import METRICS, validated


def _missing(values: pl.Expr) -> pl.Expr:
    """NULL or NaN (the cast only tests for NaN; the values themselves are never cast)."""
    return values.is_null() | values.cast(pl.Float64).is_nan()


def _paired(x: pl.Expr, y: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """The rows where neither value is missing, each column in its own type."""
    keep = ~(_missing(x) | _missing(y))
    return x.filter(keep), y.filter(keep)


def _sign_of_difference(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    """sign(a - b) by comparison: exact for any integers, and 0 for inf vs inf."""
    return (a > b).cast(pl.Int8) - (a < b).cast(pl.Int8)


def _tied_pairs(values: pl.Expr) -> pl.Expr:
    """Unordered pairs of equal values, sum over value groups of t(t - 1)/2, in O(n log n):
    each element has ``rank_max - rank_min`` equal others."""
    others = values.rank("max").cast(pl.Float64) - values.rank("min").cast(pl.Float64)
    return others.sum() / 2.0


def _pair_counts(x: pl.Expr, y: pl.Expr) -> dict[str, pl.Expr]:
    """Over the unordered pairs of kept rows: S = concordant - discordant (every ordered
    pair materialised, O(n^2)), pairs tied in x, in y and in both (from ranks), and the
    number of pairs n0 = n(n - 1)/2, all Float64."""
    xs, ys = _paired(x, y)
    n = xs.len().cast(pl.Int64)
    cell = pl.int_range(0, n * n, dtype=pl.Int64)
    first, second = cell // n, cell % n
    dx = _sign_of_difference(xs.gather(first), xs.gather(second)).cast(pl.Float64)
    dy = _sign_of_difference(ys.gather(first), ys.gather(second)).cast(pl.Float64)
    nf = n.cast(pl.Float64)
    both = xs.rank("dense").cast(pl.Float64) * (nf + 1.0) + ys.rank("dense").cast(pl.Float64)
    return {
        "s": (dx * dy).sum() / 2.0,
        "tx": _tied_pairs(xs),
        "ty": _tied_pairs(ys),
        "txy": _tied_pairs(both),
        "n0": nf * (nf - 1.0) / 2.0,
    }


@validated(METRICS["kendall_tau"])
def kendall_tau(x: IntoExpr = "x", *, y: IntoExpr = "y") -> pl.Expr:
    """Kendall's tau-b between two columns, with ties (Kendall 1945).

    Contract: docs/semantics.md#kendall_tau.

    ``tau_b = (C - D) / sqrt((n0 - n1) * (n0 - n2))`` where C and D are the concordant and
    discordant pairs, n0 = n(n - 1)/2 and n1, n2 the pairs tied in x and in y. Pairs tied
    in either column are neither concordant nor discordant. Without ties this is tau-a.
    NULL/NaN rows are dropped; fewer than two rows or a constant column gives 0.0.
    Matches ``scipy.stats.kendalltau`` (variant ``"b"``) wherever scipy is finite.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"a": [1, 2, 3, 4], "b": [1, 3, 2, 4]})
    >>> round(df.select(rf.kendall_tau("a", y="b")).item(), 4)
    0.6667
    """
    c = _pair_counts(col(x), col(y))
    untied_x, untied_y = c["n0"] - c["tx"], c["n0"] - c["ty"]
    valid = (untied_x > 0) & (untied_y > 0)
    tau = c["s"] / (untied_x * untied_y).sqrt()
    return pl.when(valid).then(tau).otherwise(pl.lit(0.0)).alias("kendall_tau")


@validated(METRICS["kendall_distance"])
def kendall_distance(x: IntoExpr = "x", *, y: IntoExpr = "y", penalty: float = 0.0) -> pl.Expr:
    """Normalised Kendall distance: the share of row pairs the two columns order oppositely.

    Contract: docs/semantics.md#kendall_distance.

    ``K = (D + penalty * T) / (n(n - 1)/2)`` where D counts discordant pairs and T the pairs
    tied in exactly one of the columns (Fagin, Kumar, Mahdian, Sivakumar & Vee 2004,
    ``K^(p)``). The default ``penalty=0`` counts only strict inversions, so K lies in
    [0, 1], equals ``(1 - tau) / 2`` without ties, 0 for identical orders and 1 for
    reversed ones; ``penalty=0.5`` is Fagin's neutral choice. Pairs tied in both columns
    never count. NULL/NaN rows are dropped; fewer than two rows gives 0.0.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"a": [1, 2, 3, 4], "b": [1, 3, 2, 4]})
    >>> round(df.select(rf.kendall_distance("a", y="b")).item(), 4)
    0.1667
    """
    c = _pair_counts(col(x), col(y))
    untied = c["n0"] - c["tx"] - c["ty"] + c["txy"]
    discordant = (untied - c["s"]) / 2.0
    one_sided = c["tx"] + c["ty"] - 2.0 * c["txy"]
    value = (discordant + penalty * one_sided) / c["n0"]
    return pl.when(c["n0"] > 0).then(value).otherwise(pl.lit(0.0)).alias("kendall_distance")


@validated(METRICS["spearman_rho"])
def spearman_rho(x: IntoExpr = "x", *, y: IntoExpr = "y") -> pl.Expr:
    """Spearman's rho: the Pearson correlation of the two columns' average ranks.

    Contract: docs/semantics.md#spearman_rho.

    ``rho = sum (a_i - m)(b_i - m) / sqrt(sum (a_i - m)^2 * sum (b_i - m)^2)`` where a, b
    are the average ranks (ties share the mean of their positions) and m = (n + 1)/2.
    NULL/NaN rows are dropped; fewer than two rows or a constant column gives 0.0.
    Matches ``scipy.stats.spearmanr`` wherever scipy is finite.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"a": [1, 2, 3, 4], "b": [1, 3, 2, 4]})
    >>> round(df.select(rf.spearman_rho("a", y="b")).item(), 4)
    0.8
    """
    xs, ys = _paired(col(x), col(y))
    centre = (xs.len().cast(pl.Float64) + 1.0) / 2.0
    da = xs.rank("average").cast(pl.Float64) - centre
    db = ys.rank("average").cast(pl.Float64) - centre
    spread = (da * da).sum() * (db * db).sum()
    rho = (da * db).sum() / spread.sqrt()
    return pl.when(spread > 0).then(rho).otherwise(pl.lit(0.0)).alias("spearman_rho")


@validated(METRICS["rbo"])
def rbo(rank_a: IntoExpr = "rank_a", *, rank_b: IntoExpr = "rank_b", p: float = 0.9,
        depth: int | None = None, extrapolated: bool = True) -> pl.Expr:
    """Rank-biased overlap of two rankings (Webber, Moffat & Zobel 2010).

    Contract: docs/semantics.md#rbo.

    One row per document of either ranking: ``rank_a`` is its rank in ranking A (NULL if
    absent), ``rank_b`` in B. ``depth`` keeps only ranks <= depth of both. A list's length
    is its deepest rank; a rank gap is a position holding a document that is in neither
    table row, so it never overlaps. With ``X_d`` = documents ranked <= d in both lists,
    s <= l the two lengths:

    - ``extrapolated=True``, RBO_ext (the paper's eq. 32; eq. 30 when s = l)::

        (1-p)/p * (sum_{d<=l} X_d p^d / d + X_s/s * sum_{s<d<=l} (d - s) p^d / d)
            + ((X_l - X_s)/l + X_s/s) * p^l

      i.e. the shorter list's unseen items keep agreeing at its observed rate X_s/s, and
      agreement beyond l stays at its value at depth l.
    - ``extrapolated=False``, RBO_min (eq. 11, extended the same way to s < l): the lower
      bound that assumes nothing unseen ever overlaps,
      ``(1-p)/p * (sum_{d<=l} (X_d - X_l) p^d / d - X_l ln(1 - p))``.

    An empty list on either side gives 0.0; identical lists give RBO_ext = 1.0.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank_a": [1, 2, 3, None], "rank_b": [2, 1, None, 3]})
    >>> round(df.select(rf.rbo("rank_a", rank_b="rank_b", p=0.9)).item(), 4)
    0.63
    """
    a, b = col(rank_a).cast(pl.Int64), col(rank_b).cast(pl.Int64)
    if depth is not None:
        a = pl.when(a <= depth).then(a)
        b = pl.when(b <= depth).then(b)
    len_a, len_b = a.max().fill_null(0), b.max().fill_null(0)
    short = pl.min_horizontal(len_a, len_b)
    long = pl.max_horizontal(len_a, len_b)
    both = pl.max_horizontal(a, b).filter(a.is_not_null() & b.is_not_null()).sort()
    d = pl.int_range(1, long + 1, dtype=pl.Int64)
    overlap = both.search_sorted(d, side="right").cast(pl.Float64)
    weight = geometric_weight(p, d) * p / d.cast(pl.Float64)
    at_long = both.len().cast(pl.Float64)
    at_short = (both <= short).sum().cast(pl.Float64)
    scale = (1.0 - p) / p
    if extrapolated:
        rate = at_short / short.cast(pl.Float64)
        beyond = (d - short).cast(pl.Float64).clip(lower_bound=0.0)
        body = (overlap * weight).sum() + rate * (beyond * weight).sum()
        value = scale * body + ((at_long - at_short) / long + rate) * pl.lit(p).pow(long)
    else:
        value = scale * (((overlap - at_long) * weight).sum() - at_long * math.log1p(-p))
    return pl.when(short > 0).then(value).otherwise(pl.lit(0.0)).alias("rbo")

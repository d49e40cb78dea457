"""trec_eval's contingency and gain measures: relative precision, set MAP, utility, the
judged non-relevant count, the unjudged share of the top k, binary G and G.

Per query: ``n`` rows have a rank, ``R`` rows are relevant (rel >= threshold, retrieved or
not), ``hits@k`` relevant rows have rank <= k. Counts are integers; each value is one
division (or one weighted sum) of them at the end, in the order trec_eval 10 computes it.
The G family sums its terms in rank order, as trec_eval does (docs/semantics.md#g).
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from rankframe.faces.polars import expr
from rankframe.faces.polars.expr import GainPairs, IntoExpr, col, label, rank_guarded
from rankframe.registry import METRICS, validated


@validated(METRICS["relative_precision"])
@rank_guarded
def relative_precision(rel: IntoExpr = "rel", k: int | None = None, *, rank: IntoExpr = "rank",
                       threshold: float = 1) -> pl.Expr:
    """Relative precision at k (trec_eval ``relative_P_k``): ``hits@k / min(k, R)``.

    Contract: docs/semantics.md#relative_precision.

    Precision up to rank R, recall after it. ``k=None`` divides by ``min(n, R)``
    (trec_eval ``set_relative_P``). 0 when R = 0 or nothing is retrieved.

    Examples
    --------
    Ranks 1-6 graded 1, 0, NULL, 2, 0, -1, and unretrieved rows graded 2, 1, 0 (R = 4):
    hits@2 = 1, so 1 / min(2, 4) = 0.5; whole list 2 / min(6, 4) = 0.5.

    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5, 6, None, None, None],
    ...                    "rel": [1, 0, None, 2, 0, -1, 2, 1, 0]})
    >>> df.select(rf.relative_precision("rel", 1), rf.relative_precision("rel", 2),
    ...           rf.relative_precision("rel")).row(0)
    (1.0, 0.5, 0.5)
    """
    r, c = col(rel), col(rank)
    big_r = expr.count(expr.relevant(r, threshold))
    size = expr.count(expr.retrieved(c)) if k is None else pl.lit(k, dtype=pl.Int64)
    return expr.ratio(expr.relevant_hits(r, c, k, threshold), pl.min_horizontal(size, big_r)).alias(
        label("relative_precision", k))


@validated(METRICS["set_map"])
@rank_guarded
def set_map(rel: IntoExpr = "rel", *, rank: IntoExpr = "rank", threshold: float = 1) -> pl.Expr:
    """Set MAP (trec_eval ``set_map``): set precision times set recall,
    ``hits^2 / (n R)``; 0 when n = 0 or R = 0.

    Contract: docs/semantics.md#set_map.

    Examples
    --------
    2 of the 6 retrieved rows are relevant, R = 4: 2 * 2 / (6 * 4) = 1/6.

    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5, 6, None, None, None],
    ...                    "rel": [1, 0, None, 2, 0, -1, 2, 1, 0]})
    >>> round(df.select(rf.set_map("rel")).item(), 4)
    0.1667
    """
    r, c = col(rel), col(rank)
    hits = expr.relevant_hits(r, c, None, threshold)
    pairs = expr.count(expr.retrieved(c)) * expr.count(expr.relevant(r, threshold))
    return expr.ratio(hits * hits, pairs).alias(label("set_map", None))


@validated(METRICS["utility"])
@rank_guarded
def utility(rel: IntoExpr = "rel", *, rank: IntoExpr = "rank", threshold: float = 1, a: float = 1.0,
            b: float = -1.0, c: float = 0.0, d: float = 0.0, num_docs: int = 0,
            empty: Literal["counts", "placeholder"] = "counts") -> pl.Expr:
    """Set utility (trec_eval ``utility``): ``a*hits + b*(n - hits) + c*(R - hits) +
    d*(num_docs + hits - n - R)``, added left to right.

    Contract: docs/semantics.md#utility.

    The four cells of the contingency table (relevant or not, retrieved or not) weighted by
    ``a, b, c, d``: trec_eval's ``-m utility.a,b,c,d``, default 1, -1, 0, 0. Unjudged
    retrieved rows count as retrieved non-relevant.

    Examples
    --------
    hits = 2, n = 6, R = 4: 2 - 4 = -2; with a = 2, c = -0.5: 4 - 4 - 1 = -1.

    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5, 6, None, None, None],
    ...                    "rel": [1, 0, None, 2, 0, -1, 2, 1, 0]})
    >>> df.select(rf.utility("rel"), rf.utility("rel", a=2, c=-0.5).alias("u2")).row(0)
    (-2.0, -1.0)
    """
    r, k = col(rel), col(rank)
    hits = expr.relevant_hits(r, k, None, threshold)
    n = expr.count(expr.retrieved(k))
    if empty == "placeholder":
        n = pl.max_horizontal(n, pl.lit(1, dtype=pl.Int64))
    big_r = expr.count(expr.relevant(r, threshold))

    def term(weight: float, cells: pl.Expr) -> pl.Expr:
        return pl.lit(float(weight)) * cells.cast(pl.Float64)

    value = (term(a, hits) + term(b, n - hits) + term(c, big_r - hits)
             + term(d, pl.lit(num_docs, dtype=pl.Int64) + hits - n - big_r))
    return value.alias(label("utility", None))


@validated(METRICS["num_nonrel_judged_ret"])
@rank_guarded
def num_nonrel_judged_ret(rel: IntoExpr = "rel", k: int | None = None, *, rank: IntoExpr = "rank",
                          threshold: float = 1) -> pl.Expr:
    """Judged non-relevant rows retrieved (0 <= rel < threshold, with a rank <= k).

    Contract: docs/semantics.md#num_nonrel_judged_ret. trec_eval ``num_nonrel_judged_ret``.

    Parameters
    ----------
    rel
        Grade column; judged non-relevant iff ``0 <= rel < threshold``.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5, 6, None, None, None],
    ...                    "rel": [1, 0, None, 2, 0, -1, 2, 1, 0]})
    >>> df.select(rf.num_nonrel_judged_ret("rel"), rf.num_nonrel_judged_ret("rel", 3)).row(0)
    (2, 1)
    """
    counted = expr.judged_nonrelevant(col(rel), threshold) & expr.retrieved(col(rank), k)
    return expr.count(counted).alias(label("num_nonrel_judged_ret", k))


@validated(METRICS["unjudged"])
@rank_guarded
def unjudged(rel: IntoExpr = "rel", k: int | None = None, *, rank: IntoExpr = "rank") -> pl.Expr:
    """Unjudged share of the top k (trec_eval ``unj_k``): unjudged rows (rel NULL or
    negative) with rank <= k, divided by k; ``k=None`` divides by n (0 when n = 0).

    Contract: docs/semantics.md#unjudged.

    Past the end of a short list the missing positions count as judged: 1 unjudged row in a
    list of 3 gives unj@10 = 0.1.

    Parameters
    ----------
    rel
        Grade column; a row is unjudged iff rel is NULL or negative.

    Examples
    --------
    Unjudged rows at ranks 3 and 6: unj@5 = 1/5, unj@10 = 2/10.

    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5, 6, None, None, None],
    ...                    "rel": [1, 0, None, 2, 0, -1, 2, 1, 0]})
    >>> df.select(rf.unjudged("rel", 5), rf.unjudged("rel", 10).alias("u10")).row(0)
    (0.2, 0.2)
    """
    r, c = col(rel), col(rank)
    top = expr.count(expr.retrieved(c, k) & ~expr.is_judged(r))
    if k is None:
        return expr.ratio(top, expr.count(expr.retrieved(c))).alias(label("unjudged", k))
    return expr.per(top, k).alias(label("unjudged", k))


@validated(METRICS["bin_g"])
@rank_guarded
def bin_g(rel: IntoExpr = "rel", *, rank: IntoExpr = "rank", threshold: float = 1) -> pl.Expr:
    """Binary G (trec_eval ``binG``): ``(1/R) * sum over relevant retrieved rows of
    1 / log2(2 + m)``, m the retrieved non-relevant rows ranked above; 0 when R = 0.

    Contract: docs/semantics.md#bin_g.

    Terms are added in rank order. Unjudged rows count as non-relevant.

    Examples
    --------
    Relevant at rank 1 (m = 0) and rank 4 (m = 2), R = 4: (1 + 1/2) / 4 = 0.375.

    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5, 6, None, None, None],
    ...                    "rel": [1, 0, None, 2, 0, -1, 2, 1, 0]})
    >>> df.select(rf.bin_g("rel")).item()
    0.375
    """
    r, c = col(rel), col(rank)
    shown = expr.retrieved(c)
    flags = expr.relevant(r, threshold).filter(shown).sort_by(c.filter(shown))
    above = expr.ordinals(flags) - flags.cast(pl.Int64).cum_sum()  # non-relevant up to here
    terms = (1.0 / expr.exact_log2(above.cast(pl.Float64) + 2.0)).filter(flags)
    return expr.ratio(expr.sequential_sum(terms), expr.count(expr.relevant(r, threshold))).alias(
        label("bin_g", None))


def row_gains(rel: pl.Expr, gains: GainPairs) -> pl.Expr:
    """The gain of each row for G: ``pairs[rel]`` for a grade listed there, else the grade
    itself; 0.0 for NULL and negative grades."""
    grade = rel.cast(pl.Float64)
    value = grade
    for level, given in dict(gains or ()).items():
        value = pl.when(grade == float(level)).then(pl.lit(float(given))).otherwise(value)
    return pl.when(grade >= 0).then(value).otherwise(pl.lit(0.0)).fill_null(0.0)


@validated(METRICS["g"])
@rank_guarded
def g(rel: IntoExpr = "rel", *, rank: IntoExpr = "rank", gains: GainPairs = None) -> pl.Expr:
    """G, normalised gain (trec_eval ``G``): ``(1/I) * sum over retrieved positions i with
    g_i != 0 of g_i / log2(2 + C_i - S_i)``; 0 when I = 0.

    Contract: docs/semantics.md#g.

    g_i is the gain of the row at position i, S_i the sum of g_1..g_i; the ideal gains
    I_1 >= I_2 >= ... are the positive gains of every judged row (rel >= 0, retrieved or
    not), padded with zeros, C_i the sum of max(I_j, 1) for j <= i, and I the sum of all
    ideal gains. Sums run in rank order, as trec_eval adds them. The relevance threshold
    does not apply.

    Parameters
    ----------
    rel
        Grade column; NULL and negative grades (unjudged) gain 0 and are not in the ideal.

    Examples
    --------
    Retrieved gains 1, 0, 0, 2, 0, 0; ideal 2, 2, 1, 1 (I = 6), so C = 2, 4, 5, 6, ...:
    (1 / log2(2 + 2 - 1) + 2 / log2(2 + 6 - 3)) / 6 = 0.2487.

    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4, 5, 6, None, None, None],
    ...                    "rel": [1, 0, None, 2, 0, -1, 2, 1, 0]})
    >>> round(df.select(rf.g("rel")).item(), 4)
    0.2487
    """
    r, c = col(rel), col(rank)
    gain = row_gains(r, gains)
    shown = expr.retrieved(c)
    found = gain.filter(shown).sort_by(c.filter(shown))
    ideal = gain.filter(expr.is_judged(r) & (gain > 0)).sort(descending=True)
    costs = ideal.append(found * 0.0).head(found.len()).clip(lower_bound=1.0)
    spent = (2.0 + costs.cum_sum()) - found.cum_sum()
    gaining = found != 0.0
    terms = found.filter(gaining) / expr.exact_log2(spent.filter(gaining))
    return expr.ratio(expr.sequential_sum(terms),
                      expr.sequential_sum(ideal)).alias(label("g", None))

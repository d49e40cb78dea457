"""User-model metrics: rank-biased precision and its residual, expected reciprocal rank,
and the judged fraction of the top k.

A user model says how far down a ranked list a reader goes. RBP's reader moves from one
position to the next with persistence ``p`` (Moffat & Zobel 2008); ERR's reader stops at
the first satisfying document with a probability that grows with its grade (Chapelle et
al. 2009). Rank gaps are taken literally: a missing position holds a document outside the
table, which gains nothing and, for the RBP residual, is unknown.
"""

from __future__ import annotations

import itertools
import operator

import polars as pl

from rankframe.faces.polars.expr import (
    IntoExpr,
    col,
    count,
    divide,
    is_judged,
    label,
    rank_guarded,
    ratio,
    relevant,
    retrieved,
    sequential_sum,
)
from rankframe.persistence import floor_steps, floor_weight
from rankframe.registry import METRICS, validated


def _running_powers(p: float, positions: pl.Series) -> pl.Series:
    """p^(i - 1) for 1-based positions i as trec_eval computes it: a running product, 1.0
    times p once per position (``pow`` may differ in the last bit), tabled up to the floor
    it reaches within K steps (:mod:`rankframe.persistence`), which every deeper position
    weighs too. NULL stays NULL."""
    top = positions.max()
    last = min(int(top), floor_steps(p) + 1) if isinstance(top, int) and top > 0 else 0
    table = pl.Series([1.0, *itertools.accumulate(itertools.repeat(p, max(last - 1, 0)),
                                                  operator.mul, initial=1.0)], dtype=pl.Float64)
    index = positions.cast(pl.Int64).fill_null(0).clip(0, last)
    out = table.gather(index)
    return pl.select(pl.when(positions.is_not_null()).then(out)).to_series().alias(positions.name)


def running_weight(p: float, position: pl.Expr) -> pl.Expr:
    """p^(position - 1) by trec_eval's running product (:func:`_running_powers`)."""
    return position.cast(pl.Int64).map_batches(lambda s: _running_powers(p, s),
                                               return_dtype=pl.Float64, is_elementwise=True)


def _rbp_gain(rel: pl.Expr, threshold: float, graded: bool, max_grade: float | None,
              clip: bool) -> pl.Expr:
    if not graded:
        return relevant(rel, threshold).cast(pl.Float64)
    grade = rel.cast(pl.Float64)
    top = grade.max() if max_grade is None else pl.lit(max_grade, dtype=pl.Float64)
    scaled = divide(grade, top)
    if clip:
        scaled = pl.min_horizontal(scaled, pl.lit(1.0))
    return pl.when((grade > 0) & (top > 0)).then(scaled).otherwise(pl.lit(0.0))


@validated(METRICS["rbp"])
@rank_guarded
def rbp(rel: IntoExpr = "rel", *, rank: IntoExpr = "rank", p: float = 0.8, threshold: float = 1,
        graded: bool = False, max_grade: float | None = None, clip: bool = True) -> pl.Expr:
    """Rank-biased precision (Moffat & Zobel 2008) over the retrieved rows.

    Contract: docs/semantics.md#rbp.

    ``RBP = (1 - p) * sum over retrieved rows i of g_i * p^(rank_i - 1)``, added in rank
    order with p^(rank - 1) a running product, as trec_eval (docs/semantics.md#exactness).

    Binary (default): ``g = 1`` if rel >= threshold else 0. Graded: ``g = rel / M``
    clipped to [0, 1] (not clipped with ``clip=False``), where M is ``max_grade`` or, when
    it is None, the highest grade of the query (all rows, retrieved or not); ``threshold``
    is then not used; ``max_grade=1, clip=False`` is ranx's graded RBP, g = rel. NULL and
    negative grades gain 0; a query whose grades are all <= 0 scores 0, as does a query
    with nothing retrieved. RBP has no cutoff: the weights already vanish with depth.

    Binary mode is Moffat & Zobel's definition. trec_eval's ``rbp`` rescales graded gains
    from uninitialised values, so for graded judgements rankframe keeps the rule above
    instead (pytrec_eval does not expose ``rbp`` to compare against).

    Parameters
    ----------
    rel
        Grade column. Binary: relevant iff rel >= threshold; graded: gain rel / max_grade
        clipped to [0, 1]. NULL and negative grades gain 0.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3], "rel": [1, 0, 2]})
    >>> round(df.select(rf.rbp("rel", p=0.5)).item(), 4)
    0.625
    >>> round(df.select(rf.rbp("rel", p=0.5, graded=True)).item(), 4)
    0.375
    """
    rel_e, rank_e = col(rel), col(rank)
    weighted = (_rbp_gain(rel_e, threshold, graded, max_grade, clip)
                * running_weight(p, rank_e))
    shown = retrieved(rank_e)
    total = sequential_sum(weighted.filter(shown), rank_e.filter(shown))
    return ((1.0 - p) * total).alias(label("rbp", None))


@validated(METRICS["rbp_residual"])
@rank_guarded
def rbp_residual(rel: IntoExpr = "rel", *, rank: IntoExpr = "rank", p: float = 0.8) -> pl.Expr:
    """The RBP residual: how much RBP could still grow if every unknown position were relevant.

    Contract: docs/semantics.md#rbp_residual.

    ``residual = (1 - p) * sum over unknown positions i <= d of p^(i - 1) + p^d``, where d
    is the deepest rank of the query and a position i <= d is unknown when it holds an
    unjudged row (rel NULL or negative) or no row at all (a rank gap); ``p^d`` is the
    weight of everything below the list. Equivalently ``1 - (1 - p) * sum over judged
    retrieved rows of p^(rank - 1)``. ``rbp + residual`` bounds RBP from above for any
    binary judging of the unknown documents. Nothing retrieved gives 1.0 (everything is
    unknown); a fully judged list 1..n gives ``p^n``.

    Parameters
    ----------
    rel
        Grade column: NULL and negative grades are unjudged, which the residual counts as
        unknown.
    rank
        Rank column (a name or a Polars expression): 1 is the top, unique within a query;
        NULL: judged but not retrieved. Ranks start at 1: shift 0-based positions by one
        (``pl.col("position") + 1``).
        :func:`rankframe.evaluate` checks the whole table first. A rank gap is an unknown position.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3], "rel": [1, None, 0]})
    >>> round(df.select(rf.rbp_residual("rel", p=0.5)).item(), 4)
    0.375
    """
    rel_e, rank_e = col(rel), col(rank)
    deepest = rank_e.filter(retrieved(rank_e)).max().cast(pl.Int64).fill_null(0)
    known = rank_e.filter(retrieved(rank_e) & is_judged(rel_e)).cast(pl.Int64)
    # Positions 1..min(d, K + 1) one by one, with the known ranks among them once more: a
    # position seen once is unknown. Every deeper position weighs the floor: those that are
    # unknown add it as one last term, n * floor (docs/semantics.md#rbp_residual).
    limit = floor_steps(p) + 1  # known <= d: known <= min(d, K + 1) iff known <= K + 1
    near = pl.min_horizontal(deepest, pl.lit(limit, dtype=pl.Int64))
    both = pl.int_range(1, near + 1, dtype=pl.Int64).append(known.filter(known <= limit)).sort()
    unknown = both.filter((both != both.shift(1)).fill_null(True)
                          & (both != both.shift(-1)).fill_null(True))
    deeper = deepest - near - known.filter(known > limit).len().cast(pl.Int64)
    lump = (deeper.cast(pl.Float64) * floor_weight(p)).filter(deeper > 0)
    total = sequential_sum(running_weight(p, unknown).append(lump))
    # p^d from the running product: it reaches its floor by position K + 1 (near + 1 then),
    # and d + 1 itself would overflow at the largest Int64.
    below = running_weight(p, near + 1)
    return (below + (1.0 - p) * total).alias(label("rbp_residual", None))


@validated(METRICS["err"])
@rank_guarded
def err(rel: IntoExpr = "rel", k: int | None = None, *, rank: IntoExpr = "rank",
        max_grade: float = 4) -> pl.Expr:
    """Expected reciprocal rank at k (Chapelle, Metzler, Zhang & Grinspan 2009).

    Contract: docs/semantics.md#err.

    ``ERR@k = sum over retrieved i <= k of (1 / i) * R_i * prod over retrieved j < i of
    (1 - R_j)`` with the stopping probability ``R = (2^g - 1) / 2^max_grade`` and the
    grade g clipped to [0, max_grade]; NULL and negative grades give R = 0. ``max_grade``
    defaults to 4, the TREC Web track convention. Positions are the rank values, so a
    rank gap is a position where the reader does not stop. Nothing retrieved gives 0.

    Parameters
    ----------
    rel
        Grade column, clipped to [0, max_grade]; NULL and negative grades never stop the
        reader.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2], "rel": [1, 4]})
    >>> round(df.select(rf.err("rel", max_grade=4)).item(), 6)
    0.501953
    """
    rel_e, rank_e = col(rel), col(rank)
    grade = rel_e.cast(pl.Float64).clip(0.0, max_grade).fill_null(0.0)
    stop = (pl.lit(2.0).pow(grade) - 1.0) / pl.lit(2.0**max_grade)
    in_top = retrieved(rank_e, k)
    stops = stop.filter(in_top).sort_by(rank_e.filter(in_top))
    positions = rank_e.filter(in_top).sort().cast(pl.Float64)
    reached = (pl.lit(1.0) - stops).cum_prod().shift(1, fill_value=1.0)
    return (stops * reached / positions).sum().alias(label("err", k))


def _judged_fraction(rel: pl.Expr, rank: pl.Expr, k: int | None) -> pl.Expr:
    n = count(retrieved(rank))
    judged_top = count(retrieved(rank, k) & is_judged(rel))
    denominator = n if k is None else pl.min_horizontal(n, pl.lit(k, dtype=pl.Int64))
    return ratio(judged_top, denominator)


@validated(METRICS["judged"])
@rank_guarded
def judged(rel: IntoExpr = "rel", k: int | None = None, *, rank: IntoExpr = "rank") -> pl.Expr:
    """Judged fraction at k: judged rows in the top k divided by ``min(k, n)``.

    Contract: docs/semantics.md#judged.

    A row is judged when rel >= 0: NULL (unjudged) and negative grades (pooled but
    unjudged, the trec_eval convention) are not. ``k=None`` divides by n. Nothing
    retrieved gives 0. Useful next to any metric to show how much of it rests on
    judgements (e.g. judged@10 beside nDCG@10).

    Parameters
    ----------
    rel
        Grade column: a row is judged iff rel >= 0; NULL (unjudged) and negative grades
        (pooled but unjudged) are not.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4], "rel": [1, None, 0, -1]})
    >>> df.select(rf.judged("rel", k=2)).item()
    0.5
    """
    return _judged_fraction(col(rel), col(rank), k).alias(label("judged", k))

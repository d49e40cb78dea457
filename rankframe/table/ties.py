"""Tie-aware evaluation (McSherry & Najork, "Computing information retrieval performance
measures efficiently in the presence of tied scores", ECIR 2008).

A run that gives several documents the same score says nothing about their order; the
docid tie-break of trec_eval is arbitrary, and a metric can move a lot with it
(docs/semantics.md#tie-aware-metrics). Tie-aware evaluation reports the *expected* metric
over every ordering of each tie group, in closed form.

Design
------
Two steps, each usable on its own:

1. :func:`annotate` adds two columns to a judged table that still carries its score:
   ``tie_first`` (the first rank position of the row's tie group) and ``tie_size`` (the
   group's size); ``judge(..., ties="average")`` adds the same as it ranks
   (:func:`tie_groups`). Retrieved rows only; rows without a rank get NULL in both. The group
   of a row with ``tie_first = f`` and ``tie_size = t`` occupies positions f .. f+t-1.
2. Separate metric builders read ``(rel, tie_first, tie_size)`` instead of
   ``(rel, rank)``: :func:`rankframe.precision_ties`, ``recall_ties``, ``dcg_ties``,
   ``ndcg_ties``, ``reciprocal_rank_ties`` and ``average_precision_ties``, with DuckDB
   twins ``rf_<name>(rel, tie_first, tie_size, k, ...)``.

Why separate metrics rather than a ``ties=`` parameter on ``precision`` & co.: the tie
forms read different columns, and a SQL macro has a fixed argument list, so a parameter
would add two column arguments to every existing macro (breaking their calls) or be
inexpressible in SQL; the registry already models "which columns a metric reads", so a
separate entry is the natural unit; and the plain metrics keep their simple, fast
formulas. With no ties (every ``tie_size`` = 1) each ``*_ties`` metric equals its plain
counterpart, which the tests check.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import polars as pl

from rankframe.errors import InputError

Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)

TIE_FIRST = "tie_first"
TIE_SIZE = "tie_size"


def annotate(
    judged: Frame,
    *,
    score: str = "score",
    by: str | Sequence[str] = "qid",
    rank: str = "rank",
) -> Frame:
    """Add ``tie_first`` and ``tie_size`` (Int64) to a judged table with a score column.

    A tie group is the set of retrieved rows (rank not NULL) of one query (``by``) with
    equal ``score``. ``tie_first`` is the smallest rank in the group and ``tie_size`` its
    number of rows; rows without a rank, or with a NULL score, get NULL (a NULL score
    with a rank is its own group of size 1). The ranks of a group are expected to be
    consecutive, as they are when rank comes from sorting by score; for a DataFrame this
    is checked and an :class:`~rankframe.errors.InputError` names the first offending
    query and score (a LazyFrame is not collected to check it).

    Examples
    --------
    >>> import polars as pl
    >>> from rankframe.table.ties import annotate
    >>> df = pl.DataFrame({"qid": ["q"] * 4, "score": [3.0, 2.0, 2.0, None],
    ...                    "rank": [1, 2, 3, None]})
    >>> annotate(df).select("tie_first", "tie_size").rows()
    [(1, 1), (2, 2), (2, 2), (None, None)]
    """
    keys: list[str] = [by] if isinstance(by, str) else list(by)
    ranked = pl.col(rank).is_not_null()
    group = pl.when(pl.col(score).is_not_null()).then(pl.col(score))
    window = [*keys, group, pl.col(rank).is_null(), pl.when(group.is_null()).then(pl.col(rank))]
    first = pl.col(rank).min().over(window).cast(pl.Int64)
    size = pl.col(rank).count().over(window).cast(pl.Int64)
    out = judged.with_columns(
        pl.when(ranked).then(first).alias(TIE_FIRST),
        pl.when(ranked).then(size).alias(TIE_SIZE),
    )
    if isinstance(out, pl.DataFrame):
        last = pl.col(rank).max().over(window)
        bad = out.filter(ranked & (last - pl.col(TIE_FIRST) + 1 != pl.col(TIE_SIZE)))
        if bad.height:
            row = bad.row(0, named=True)
            where = ", ".join(f"{key}={row[key]!r}" for key in keys)
            raise InputError(
                f"annotate: the ranks of tied rows must be consecutive; at {where}, "
                f"{score}={row[score]!r} spans ranks {row[TIE_FIRST]}.. with "
                f"{row[TIE_SIZE]} rows. Rank by {score} descending (see rankframe.table.judge)."
            )
    return out


def tie_groups(rank: str = "rank", score: str = "score") -> list[pl.Expr]:
    """``tie_first`` and ``tie_size`` of :func:`annotate`, for ranked rows in rank order with
    each query's first at rank 1 (a tie group is then a run of consecutive rows of one
    query with equal scores): one linear pass, no hashing."""
    r, s = pl.col(rank), pl.col(score)
    starts = ((r == 1) | (s != s.shift(1))).fill_null(True)
    ends = ((r.shift(-1) == 1) | (s != s.shift(-1))).fill_null(True)
    first = pl.when(starts).then(r).forward_fill()
    last = pl.when(ends).then(r).backward_fill()
    return [first.alias(TIE_FIRST), (last - first + 1).alias(TIE_SIZE)]

"""Popularity and novelty of each list: the mean self-information of its items (novelty),
their mean popularity, and the share from the long tail. List metrics: one value per user's
list, each reading a per-row item attribute (``pop``, ``tail``) joined from the training
interactions (``rankframe.Catalog``).

Contract: docs/semantics.md#beyond-accuracy.
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from rankframe.faces.polars import expr
from rankframe.faces.polars.beyond import recommended
from rankframe.faces.polars.expr import IntoExpr, col, label, rank_guarded
from rankframe.registry import METRICS, validated


@validated(METRICS["novelty"])
@rank_guarded
def novelty(pop: IntoExpr = "pop", k: int | None = None, *, rank: IntoExpr = "rank",
            total: int | None = None, unseen: Literal["zero", "skip"] = "zero",
            log: Literal["log2", "ln"] = "log2") -> pl.Expr:
    """Novelty: the mean self-information -log(pop / total) of the recommended items.

    Contract: docs/semantics.md#novelty.

    ``novelty@k = (1/n) sum -log(pop_i / total)`` over the rows with rank <= k; NULL for a
    list with none.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> recs = pl.DataFrame({"rank": [1, 2], "pop": [1, 4]})
    >>> recs.select(rf.novelty("pop", total=8)).item()
    2.0
    """
    if total is None:
        raise ValueError("novelty: total is required in an expression (rankframe.evaluate "
                         "counts it from its Catalog)")
    popularity = col(pop).cast(pl.Float64)
    share = popularity / float(total)
    information = -(share.log(2.0) if log == "log2" else share.log())
    seen = (popularity > 0).fill_null(False)
    listed = recommended(col(rank), k)
    if unseen == "zero":
        terms = pl.when(seen).then(information).otherwise(0.0).filter(listed)
    else:
        terms = information.filter(listed & seen)
    return terms.mean().alias(label("novelty", k))


@validated(METRICS["popularity"])
@rank_guarded
def popularity(pop: IntoExpr = "pop", k: int | None = None, *,
               rank: IntoExpr = "rank") -> pl.Expr:
    """Average recommendation popularity: the mean popularity of the recommended items.

    Contract: docs/semantics.md#popularity.

    ``popularity@k = (1/n) sum pop_i`` over the rows with rank <= k (NULL counts 0); NULL
    for a list with none.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> recs = pl.DataFrame({"rank": [1, 2, 3], "pop": [4, None, 2]})
    >>> recs.select(rf.popularity("pop")).item()
    2.0
    """
    values = col(pop).cast(pl.Float64).fill_null(0.0).filter(recommended(col(rank), k))
    return values.mean().alias(label("popularity", k))


@validated(METRICS["tail_share"])
@rank_guarded
def tail_share(tail: IntoExpr = "tail", k: int | None = None, *,
               rank: IntoExpr = "rank") -> pl.Expr:
    """The share of the recommended items that are in the long tail.

    Contract: docs/semantics.md#tail_share.

    ``tail_share@k = |{rows with rank <= k and tail true}| / n``; NULL for a list with none.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> recs = pl.DataFrame({"rank": [1, 2, 3, 4], "tail": [True, False, None, True]})
    >>> recs.select(rf.tail_share("tail", 2)).item()
    0.5
    """
    listed = recommended(col(rank), k)
    n = expr.count(listed)
    in_tail = expr.count(listed & col(tail).cast(pl.Boolean).fill_null(False))
    return pl.when(n > 0).then(expr.share(in_tail, n)).alias(label("tail_share", k))

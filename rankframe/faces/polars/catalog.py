"""The catalogue metrics: how a run's recommendations spread over the items (coverage,
entropy, Gini index). Run metrics: aggregates over every list of a system, grouped by the
system (or over the whole table); each reads the item of the recommended rows.

Contract: docs/semantics.md#beyond-accuracy.
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from rankframe.faces.polars import expr
from rankframe.faces.polars.beyond import recommended, run_guarded
from rankframe.faces.polars.expr import IntoExpr, col, label
from rankframe.registry import METRICS, validated

Log = Literal["log2", "ln"]


def _required(name: str, what: str, value: int | None) -> int:
    if value is None:
        raise ValueError(f"{name}: {what} is required in an expression (rankframe.evaluate "
                         f"counts it from its Catalog)")
    return value


def item_counts(item: pl.Expr, rank: pl.Expr, k: int | None) -> pl.Expr:
    """The number of recommended rows of each distinct item of the group (NULL items left
    out), in the items' order: the lengths of the runs of the group's items sorted. The
    group of a run metric is a whole run, where one sort measured cheaper than hashing
    every row (benchmarks/README.md, "Beyond accuracy at scale")."""
    return item.filter(recommended(rank, k)).drop_nulls().sort().rle().struct.field("len")


@validated(METRICS["coverage"])
@run_guarded
def coverage(item: IntoExpr = "item", k: int | None = None, *, rank: IntoExpr = "rank",
             catalog: int | None = None) -> pl.Expr:
    """Catalogue coverage: the distinct items recommended divided by the catalogue's size.

    Contract: docs/semantics.md#coverage.

    ``coverage@k = |{items with rank <= k}| / catalog``: group by the system, or aggregate
    over the whole table.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> recs = pl.DataFrame({"user": [1, 1, 2, 2], "item": ["a", "b", "a", "c"],
    ...                      "rank": [1, 2, 1, 2]})
    >>> recs.select(rf.coverage("item", catalog=5)).item()
    0.6
    """
    size = _required("coverage", "catalog", catalog)
    distinct = col(item).filter(recommended(col(rank), k)).drop_nulls().n_unique()
    return expr.per(distinct, size).alias(label("coverage", k))


@validated(METRICS["entropy"])
@run_guarded
def entropy(item: IntoExpr = "item", k: int | None = None, *, rank: IntoExpr = "rank",
            log: Log = "log2", divisor: Literal["none", "items"] = "none") -> pl.Expr:
    """Distributional coverage: the Shannon entropy of the items' share of the
    recommendations.

    Contract: docs/semantics.md#entropy.

    ``entropy@k = -sum_i p_i log(p_i)``, p_i = c_i / N, c_i the recommended rows of item i.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> recs = pl.DataFrame({"item": ["a", "b", "a", "c"], "rank": [1, 2, 1, 2]})
    >>> recs.select(rf.entropy("item")).item()
    1.5
    """
    counts = item_counts(col(item), col(rank), k).cast(pl.Float64)
    total = counts.sum()
    shares = counts / total
    logs = shares.log(2.0) if log == "log2" else shares.log()
    h = -(shares * logs).sum()
    if divisor == "items":
        h = h / counts.len().cast(pl.Float64)
    return pl.when(total > 0).then(h).alias(label("entropy", k))


@validated(METRICS["gini"])
@run_guarded
def gini(item: IntoExpr = "item", k: int | None = None, *, rank: IntoExpr = "rank",
         over: Literal["catalog", "recommended"] = "catalog",
         catalog: int | None = None) -> pl.Expr:
    """The Gini index of the items' recommendation counts, over the catalogue or over the
    items recommended.

    Contract: docs/semantics.md#gini.

    ``gini@k = sum_j (2j - N - 1) c_(j) / (N sum_j c_(j))``, the N counts sorted ascending
    (the catalogue's items never recommended counting 0 with ``over="catalog"``).

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> recs = pl.DataFrame({"item": ["a", "b", "a", "a"], "rank": [1, 2, 1, 2]})
    >>> recs.select(rf.gini("item", catalog=4)).item()
    0.625
    """
    listed = col(item).filter(recommended(col(rank), k)).drop_nulls()
    # One pass over the counts (no common subexpression is shared in a group-by): with S_j
    # the running sums of the ascending counts, sum_j (2j - N - 1) c_(j) = (N + 1) T - 2
    # sum_j S_j (the never recommended items' zeros adding nothing to S), all integers.
    running = item_counts(col(item), col(rank), k).sort().cum_sum().sum().cast(pl.Float64)
    total = listed.len().cast(pl.Float64)
    m = listed.n_unique().cast(pl.Float64)
    n = pl.lit(float(_required("gini", "catalog", catalog))) if over == "catalog" else m
    value = ((n + 1.0) * total - 2.0 * running) / (n * total)
    return pl.when((total > 0) & (m <= n)).then(value).alias(label("gini", k))

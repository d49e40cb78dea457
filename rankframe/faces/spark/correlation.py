"""Rank correlation and overlap as Spark aggregates: Kendall's tau and distance, Spearman's
rho (over the (x, y) pairs of a query, every pair compared: O(n^2)) and RBO (one fold over
the depths 1..l); the Spark twin of :mod:`rankframe.faces.polars.correlation`."""

from __future__ import annotations

import math
from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F

from rankframe.faces.spark.columns import (
    IntoColumn,
    builder,
    col,
    let,
    sum_array,
)
from rankframe.registry import METRICS


def _safe_ratio(numerator: Column, denominator: Column) -> Column:
    """numerator / denominator as a double, NULL where the denominator is not > 0 (no
    division by zero under ANSI mode)."""
    return numerator.cast("double") / F.when(denominator > 0, denominator.cast("double"))


def _compare(a: Column, b: Column) -> Column:
    """sign(a - b) by comparison (an int): exact for longs, 0 for inf against inf."""
    return (a > b).cast("int") - (a < b).cast("int")


def _kept_pairs(x: Column, y: Column) -> Column:
    """The group's (x, y) rows where neither is NULL or NaN, each in its own type.

    ``isnan`` reads a double cast of the value, which is NaN only for a NaN; the values
    themselves are compared uncast (a long beyond 2^53 keeps its identity)."""
    missing = x.isNull() | y.isNull() | F.isnan(x.cast("double")) | F.isnan(y.cast("double"))
    return F.collect_list(F.when(~missing, F.struct(x.alias("x"), y.alias("y"))))


def _pair_counts(x: Column, y: Column) -> Column:
    """Over the unordered pairs of kept rows, as doubles: s = concordant - discordant, the
    pairs tied in x (tx), in y (ty), in both (txy), and n0 = n(n - 1)/2. Every ordered pair
    of the collected rows is visited once (O(n^2)); the n self-pairs tie in both."""
    pairs = _kept_pairs(x, y)
    zero = F.lit(0).cast("long")
    start = F.struct(zero.alias("s"), zero.alias("tx"), zero.alias("ty"), zero.alias("txy"))

    def against(a: Column) -> Callable[[Column, Column], Column]:
        def step(acc: Column, b: Column) -> Column:
            cx, cy = _compare(a["x"], b["x"]), _compare(a["y"], b["y"])
            return F.struct(
                (acc["s"] + cx * cy).alias("s"),
                (acc["tx"] + (cx == 0).cast("long")).alias("tx"),
                (acc["ty"] + (cy == 0).cast("long")).alias("ty"),
                (acc["txy"] + ((cx == 0) & (cy == 0)).cast("long")).alias("txy"),
            )
        return step

    def add(acc: Column, a: Column) -> Column:
        row = F.aggregate(pairs, start, against(a))
        return F.struct(*[(acc[f] + row[f]).alias(f) for f in ("s", "tx", "ty", "txy")])

    def finish(c: Column) -> Column:
        n = F.size(pairs).cast("double")
        return F.struct(
            (c["s"].cast("double") / 2.0).alias("s"),
            *[((c[f].cast("double") - n) / 2.0).alias(f) for f in ("tx", "ty", "txy")],
            (n * (n - 1.0) / 2.0).alias("n0"),
        )

    return F.aggregate(pairs, start, add, finish)


@builder(METRICS["kendall_tau"])
def kendall_tau(x: IntoColumn = "x", *, y: IntoColumn = "y") -> Column:
    """Kendall's tau-b between two columns, with ties (Kendall 1945).

    Contract: docs/semantics.md#kendall_tau.

    ``tau_b = (C - D) / sqrt((n0 - n1) * (n0 - n2))``, C / D the concordant / discordant
    pairs, n0 = n(n - 1)/2, n1 / n2 the pairs tied in x / in y. Rows with a NULL or NaN
    are dropped; values are compared in their own type (``-0.0 = 0.0``, inf = inf, longs
    exactly). Fewer than two rows or a constant column gives 0.0. O(n^2) per group.
    """
    def tau(c: Column) -> Column:
        spread = (c["n0"] - c["tx"]) * (c["n0"] - c["ty"])
        valid = (c["n0"] - c["tx"] > 0) & (c["n0"] - c["ty"] > 0)
        return F.when(valid, c["s"] / F.sqrt(F.when(valid, spread))).otherwise(F.lit(0.0))

    return let(_pair_counts(col(x), col(y)), tau).alias("kendall_tau")


@builder(METRICS["kendall_distance"])
def kendall_distance(x: IntoColumn = "x", *, y: IntoColumn = "y", penalty: float = 0.0
                     ) -> Column:
    """Normalised Kendall distance ``K = (D + penalty * T) / (n(n - 1)/2)`` (Fagin et al.
    2004, ``K^(p)``): D discordant pairs, T pairs tied in exactly one column.

    Contract: docs/semantics.md#kendall_distance.

    Rows with a NULL or NaN are dropped; fewer than two rows gives 0.0. O(n^2) per group.
    """
    def distance(c: Column) -> Column:
        discordant = (c["n0"] - c["tx"] - c["ty"] + c["txy"] - c["s"]) / 2.0
        one_sided = c["tx"] + c["ty"] - 2.0 * c["txy"]
        value = _safe_ratio(discordant + F.lit(float(penalty)) * one_sided, c["n0"])
        return F.coalesce(value, F.lit(0.0))

    return let(_pair_counts(col(x), col(y)), distance).alias("kendall_distance")


@builder(METRICS["spearman_rho"])
def spearman_rho(x: IntoColumn = "x", *, y: IntoColumn = "y") -> Column:
    """Spearman's rho: the Pearson correlation of the two columns' average ranks.

    Contract: docs/semantics.md#spearman_rho.

    ``rho = sum a_i b_i / sqrt(sum a_i^2 * sum b_i^2)`` with a, b the average ranks (ties
    share the mean of their positions: below + (equal + 1)/2) minus their mean (n + 1)/2.
    Rows with a NULL or NaN are dropped; fewer than two rows or a constant column gives
    0.0. O(n^2) per group (ranks by counting).
    """
    pairs = _kept_pairs(col(x), col(y))
    centre = (F.size(pairs).cast("double") + 1.0) / 2.0

    def centred_rank(a: Column, field: str) -> Column:
        below = F.size(F.filter(pairs, lambda b: b[field] < a[field]))
        equal = F.size(F.filter(pairs, lambda b: b[field] == a[field]))
        return below.cast("double") + (equal.cast("double") + 1.0) / 2.0 - centre

    ranks = F.transform(pairs, lambda a: F.struct(centred_rank(a, "x").alias("a"),
                                                  centred_rank(a, "y").alias("b")))

    def rho(r: Column) -> Column:
        def total(term: Callable[[Column], Column]) -> Column:
            return sum_array(F.transform(r, term))

        spread = total(lambda z: z["a"] * z["a"]) * total(lambda z: z["b"] * z["b"])
        value = total(lambda z: z["a"] * z["b"]) / F.sqrt(F.when(spread > 0, spread))
        return F.coalesce(value, F.lit(0.0))

    return let(ranks, rho).alias("spearman_rho")


@builder(METRICS["rbo"])
def rbo(rank_a: IntoColumn = "rank_a", *, rank_b: IntoColumn = "rank_b", p: float = 0.9,
        depth: int | None = None, extrapolated: bool = True) -> Column:
    """Rank-biased overlap of two rankings (Webber, Moffat & Zobel 2010).

    Contract: docs/semantics.md#rbo.

    One row per document of either ranking, ``rank_a`` / ``rank_b`` its rank in A / B
    (NULL where absent); ``depth`` keeps ranks <= depth. With ``X_d`` the documents ranked
    <= d in both, s <= l the two lengths (deepest ranks) and ``w_d = p^d / d``:

    - RBO_ext: ``(1-p)/p * (sum_{d<=l} X_d w_d + X_s/s * sum_{s<d<=l} (d - s) w_d)
      + ((X_l - X_s)/l + X_s/s) * p^l``;
    - RBO_min: ``(1-p)/p * (sum_{d<=l} (X_d - X_l) w_d - X_l ln(1 - p))``.

    ``sum X_d w_d`` is one fold over the depths 1..l merged with the documents' depths
    ``max(rank_a, rank_b)`` (sorted, a document before its depth): O((l + n) log(l + n)).
    An empty list on either side gives 0.0.
    """
    a, b = col(rank_a).cast("long"), col(rank_b).cast("long")
    if depth is not None:
        a = F.when(a <= F.lit(depth), a)
        b = F.when(b <= F.lit(depth), b)
    len_a = F.coalesce(F.max(a), F.lit(0).cast("long"))
    len_b = F.coalesce(F.max(b), F.lit(0).cast("long"))
    both = F.collect_list(F.when(a.isNotNull() & b.isNotNull(), F.greatest(a, b)))
    summary = F.struct(F.least(len_a, len_b).alias("s"), F.greatest(len_a, len_b).alias("l"),
                       both.alias("both"))
    pf = F.lit(float(p))

    def value(g: Column) -> Column:
        s, length = g["s"], g["l"]
        documents = F.transform(g["both"], lambda m: F.struct(m.alias("d"), F.lit(0).alias("e")))
        depths = F.transform(F.sequence(F.lit(1).cast("long"), F.greatest(length, F.lit(1))),
                             lambda d: F.struct(d.alias("d"), F.lit(1).alias("e")))
        events = F.array_sort(F.concat(documents, depths))
        start = F.struct(F.lit(0).cast("long").alias("x"), F.lit(0.0).alias("xw"),
                         F.lit(0.0).alias("w"), F.lit(0.0).alias("beyond"))

        def step(acc: Column, ev: Column) -> Column:
            d = ev["d"].cast("double")
            w = F.when(ev["e"] == 1, F.pow(pf, d) / d).otherwise(F.lit(0.0))
            return F.struct(
                (acc["x"] + (F.lit(1) - ev["e"]).cast("long")).alias("x"),
                (acc["xw"] + acc["x"].cast("double") * w).alias("xw"),
                (acc["w"] + w).alias("w"),
                (acc["beyond"] + F.greatest(d - s.cast("double"), F.lit(0.0)) * w)
                .alias("beyond"),
            )

        sums = F.aggregate(events, start, step)
        x_long = F.size(g["both"]).cast("double")
        x_short = F.size(F.filter(g["both"], lambda m: m <= s)).cast("double")
        scale = F.lit((1.0 - p) / p)
        if extrapolated:
            rate = _safe_ratio(x_short, s)
            tail = (_safe_ratio(x_long - x_short, length) + rate) * F.pow(pf, length.cast("double"))
            result = scale * (sums["xw"] + rate * sums["beyond"]) + tail
        else:
            result = scale * (sums["xw"] - x_long * sums["w"] - x_long * F.lit(math.log1p(-p)))
        return F.when(s > 0, result).otherwise(F.lit(0.0))

    return let(summary, value).alias("rbo")

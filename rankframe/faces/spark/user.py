"""User models as Spark aggregates: RBP and its residual, ERR and the judged share (the
Spark twin of :mod:`rankframe.faces.polars.user`). RBP's weight is a running product, as
trec_eval computes it."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from rankframe.faces.polars.expr import label
from rankframe.faces.spark.columns import (
    IntoColumn,
    builder,
    col,
    count,
    is_judged,
    ratio,
    relevant,
    retrieved,
)
from rankframe.persistence import floor_steps
from rankframe.registry import METRICS


def _running_weight(p: float, weight: Column, steps: Column) -> Column:
    """``weight`` times p, ``steps`` times one after another (trec_eval's running p^(r - 1),
    not ``pow``, which may differ in the last bit), at most ``floor_steps(p)`` times: the
    product then no longer changes (:mod:`rankframe.persistence`)."""
    capped = F.least(steps, F.lit(floor_steps(p)))
    return F.aggregate(F.array_repeat(F.lit(p), capped.cast("int")), weight,
                       lambda x, y: x * y)


def _rbp_sum(p: float, rows: Column) -> Column:
    """sum of g * p^(r - 1) over ``rows``, an array of structs (r, g) sorted by rank, added
    one at a time as trec_eval's loop does, the weight a running product: ``c`` is p^r of
    the last rank r added (0 before the first), so that no rank is added to (2^63 - 1 is a
    valid rank)."""
    start = F.struct(F.lit(0.0).alias("s"), F.lit(1.0).alias("c"), F.lit(0).cast("long").alias("r"))

    def step(acc: Column, row: Column) -> Column:
        w = _running_weight(p, acc["c"], row["r"] - acc["r"] - F.lit(1))
        return F.struct((acc["s"] + row["g"] * w).alias("s"), (w * F.lit(p)).alias("c"),
                        row["r"].alias("r"))

    return F.aggregate(rows, start, step)["s"]


@builder(METRICS["rbp"])
def rbp(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank", p: float = 0.8,
        threshold: float = 1, graded: bool = False, max_grade: float | None = None,
        clip: bool = True) -> Column:
    """Rank-biased precision (Moffat & Zobel 2008) over the retrieved rows.

    Contract: docs/semantics.md#rbp.

    ``RBP = (1 - p) * sum over retrieved rows i of g_i * p^(rank_i - 1)``.

    Binary (default): ``g = 1`` if rel >= threshold else 0. Graded: ``g = rel / M``
    clipped to [0, 1] (``clip=False``: not clipped), M = ``max_grade`` or, when None, the
    highest grade of the query
    (all rows); NULL and negative grades gain 0, and M <= 0 gives 0. Added in rank order,
    p^(rank - 1) a running product, as trec_eval (docs/semantics.md#exactness).
    """
    rel_c, rank_c = col(rel), col(rank)
    grade = rel_c.cast("double")
    if not graded:
        gain = F.when(relevant(rel_c, threshold), F.lit(1.0)).otherwise(F.lit(0.0))
    else:
        gain = F.when(grade > 0, grade).otherwise(F.lit(0.0))
    rows = F.array_sort(F.collect_list(F.when(rank_c.isNotNull(), F.struct(
        rank_c.cast("long").alias("r"), gain.alias("g")))))
    if graded:
        top = F.lit(float(max_grade)) if max_grade is not None else F.max(grade)
        rows = F.transform(rows, lambda e: F.struct(e["r"].alias("r"), F.when(
            (e["g"] > 0) & (top > 0),
            F.least(e["g"] / top, F.lit(1.0)) if clip else e["g"] / top)
            .otherwise(F.lit(0.0)).alias("g")))
    total = _rbp_sum(p, rows)
    value = F.lit(1.0 - p) * F.coalesce(total, F.lit(0.0))
    return value.alias(label("rbp", None))


@builder(METRICS["rbp_residual"])
def rbp_residual(rel: IntoColumn = "rel", *, rank: IntoColumn = "rank", p: float = 0.8) -> Column:
    """The RBP residual: how much RBP could still grow if every unknown position were relevant.

    Contract: docs/semantics.md#rbp_residual.

    ``residual = (1 - p) * sum over unknown positions i <= d of p^(i - 1) + p^d`` with d
    the deepest rank; a position is unknown when its row is unjudged (rel NULL or
    negative) or missing (a rank gap). Computed as trec_eval: the running weight added
    over the unknown positions in order, then ``p^d + (1 - p) * sum``; nothing retrieved
    gives 1.0.
    """
    rel_c, rank_c = col(rel), col(rank)
    # Positions up to K + 1 one by one; every deeper position weighs the floor, and its
    # unknown ones add it as one last term (docs/semantics.md#rbp_residual).
    limit = F.lit(floor_steps(p) + 1).cast("long")
    is_known = rank_c.isNotNull() & is_judged(rel_c)
    known = F.array_sort(F.collect_list(F.when(is_known & (rank_c <= limit),
                                               rank_c.cast("long"))))
    deepest = F.coalesce(F.max(rank_c).cast("long"), F.lit(0).cast("long"))
    near = F.least(deepest, limit)
    deeper = F.greatest(deepest - limit, F.lit(0).cast("long")) - count(is_known
                                                                        & (rank_c > limit))
    # Each judged rank, then the end: the unknown positions before it add the running weight.
    marks = F.concat(known, F.array(near + F.lit(1)))
    start = F.struct(F.lit(0.0).alias("s"), F.lit(1.0).alias("c"), F.lit(1).cast("long").alias("r"))

    def step(acc: Column, mark: Column) -> Column:
        gap = F.aggregate(F.array_repeat(F.lit(0), (mark - acc["r"]).cast("int")),
                          F.struct(acc["s"].alias("s"), acc["c"].alias("c")),
                          lambda x, _: F.struct((x["s"] + x["c"]).alias("s"),
                                                (x["c"] * F.lit(p)).alias("c")))
        weight = F.when(mark <= near, gap["c"] * F.lit(p)).otherwise(gap["c"])
        return F.struct(gap["s"].alias("s"), weight.alias("c"), (mark + F.lit(1)).alias("r"))

    end = F.aggregate(marks, start, step)
    total = F.when(deeper > 0, end["s"] + deeper.cast("double") * end["c"]).otherwise(end["s"])
    value = end["c"] + F.lit(1.0 - p) * total
    return value.alias(label("rbp_residual", None))


@builder(METRICS["err"])
def err(rel: IntoColumn = "rel", k: int | None = None, *, rank: IntoColumn = "rank",
        max_grade: float = 4) -> Column:
    """Expected reciprocal rank at k (Chapelle, Metzler, Zhang & Grinspan 2009).

    Contract: docs/semantics.md#err.

    ``ERR@k = sum over retrieved i <= k of (1 / i) * R_i * prod over retrieved j < i of
    (1 - R_j)``, ``R = (2^g - 1) / 2^max_grade`` with g clipped to [0, max_grade]; NULL
    and negative grades give R = 0. Positions are the rank values.

    The (rank, R) pairs within the cutoff are sorted by rank and folded with
    ``aggregate``, carrying the running sum and the probability of not having stopped.
    """
    rel_c, rank_c = col(rel), col(rank)
    grade = F.least(F.greatest(F.coalesce(rel_c.cast("double"), F.lit(0.0)), F.lit(0.0)),
                    F.lit(max_grade))
    stop = (F.pow(F.lit(2.0), grade) - F.lit(1.0)) / F.lit(2.0**max_grade)
    pairs = F.collect_list(
        F.when(retrieved(rank_c, k), F.struct(rank_c.cast("long").alias("r"), stop.alias("s")))
    )
    start = F.struct(F.lit(0.0).alias("total"), F.lit(1.0).alias("reach"))

    def step(acc: Column, x: Column) -> Column:
        return F.struct(
            (acc["total"] + acc["reach"] * x["s"] / x["r"].cast("double")).alias("total"),
            (acc["reach"] * (F.lit(1.0) - x["s"])).alias("reach"),
        )

    value = F.aggregate(F.array_sort(pairs), start, step, lambda acc: acc["total"])
    return value.alias(label("err", k))


@builder(METRICS["judged"])
def judged(rel: IntoColumn = "rel", k: int | None = None, *, rank: IntoColumn = "rank") -> Column:
    """Judged fraction at k: judged rows (rel >= 0) in the top k divided by ``min(k, n)``.

    Contract: docs/semantics.md#judged.

    ``k=None`` divides by n; nothing retrieved gives 0.
    """
    rel_c, rank_c = col(rel), col(rank)
    n = count(retrieved(rank_c))
    top = count(retrieved(rank_c, k) & is_judged(rel_c))
    denominator = n if k is None else F.least(n, F.lit(k).cast("long"))
    return ratio(top, denominator).alias(label("judged", k))

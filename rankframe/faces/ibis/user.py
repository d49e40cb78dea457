"""User models as Ibis expressions: RBP and its residual, ERR and the judged share (the
Ibis twin of :mod:`rankframe.faces.polars.user`). ERR's running product is a running sum of
logarithms."""

from __future__ import annotations

import math

import ibis

from rankframe.faces.ibis import columns as cols
from rankframe.faces.ibis.columns import Final, Table, Value
from rankframe.faces.ibis.plan import Plan


def _geometric(p: float, rank: Value) -> Value:
    """p^(rank - 1) by pow, 0 once it would leave the normal numbers (PostgreSQL's pow
    refuses to underflow; below 2^-1022 a weight changes no sum by 1e-9)."""
    exponent = cols.as_float(rank) - 1.0
    return ibis.ifelse(exponent < 1022 / -math.log2(p),
                       ibis.literal(float(p), type=cols.F64).pow(exponent), 0.0)


def rbp(plan: Plan, p: float = 0.8, threshold: float = 1, graded: bool = False,
        max_grade: float | None = None, clip: bool = True) -> Final:
    scale = 1.0 - float(p)
    if not graded:
        total = plan.agg(lambda t: cols.sum_where(
            _geometric(p, plan.rank(t)),
            plan.rank(t).notnull() & cols.relevant(plan.rel(t), threshold)))
        return lambda a: scale * cols.as_float(a[total])

    def positive(t: Table) -> Value:
        return plan.rank(t).notnull() & (plan.rel(t) > 0).fill_null(False)

    if max_grade is None:
        total = plan.agg(
            lambda t: cols.sum_where(plan.rel(t) * _geometric(p, plan.rank(t)), positive(t)))
        top = plan.agg(lambda t: plan.rel(t).max())
        return lambda a: scale * cols.ratio(a[total], a[top])
    m = float(max_grade)
    def gain(t: Table) -> Value:  # rel / max_grade, clipped to 1 unless clip=False
        return ibis.least(plan.rel(t) / m, 1.0) if clip else plan.rel(t) / m

    total = plan.agg(lambda t: cols.sum_where(gain(t) * _geometric(p, plan.rank(t)),
                                              positive(t)))
    return lambda a: scale * cols.as_float(a[total])


def rbp_residual(plan: Plan, p: float = 0.8) -> Final:
    total = plan.agg(lambda t: cols.sum_where(_geometric(p, plan.rank(t)),
                                    plan.rank(t).notnull() & cols.is_judged(plan.rel(t))))
    return lambda a: 1.0 - (1.0 - float(p)) * cols.as_float(a[total])


def err(plan: Plan, k: int | None, max_grade: float = 4) -> Final:
    m = float(max_grade)

    def stop(t: Table) -> Value:  # (2^g - 1) / 2^max_grade, g = rel clipped to [0, max_grade]
        grade = ibis.least(ibis.greatest(plan.rel(t).fill_null(0.0), 0.0), m)
        return (ibis.literal(2.0).pow(grade) - 1.0) / 2.0 ** m

    # ln(1 - s) > -inf: s <= 1 - 2^-max_grade < 1. The product over the rows above a row
    # is exp(running sum of the logarithms, the row itself taken out).
    log_stay = plan.row(lambda t: ibis.ifelse(cols.retrieved(plan.rank(t), k),
                                              (1.0 - stop(t)).ln(), 0.0))
    above = plan.running(lambda t: t[log_stay], lambda t: plan.rank(t), needs=[log_stay])
    total = plan.agg(lambda t: cols.sum_where(
        stop(t) * (t[above] - t[log_stay]).exp() / cols.as_float(plan.rank(t)),
        cols.retrieved(plan.rank(t), k)))
    return lambda a: cols.as_float(a[total])


def judged(plan: Plan, k: int | None) -> Final:
    top = plan.count_where(lambda t: cols.retrieved(plan.rank(t), k) & cols.is_judged(plan.rel(t)))
    n = plan.num_retrieved()
    if k is None:
        return lambda a: cols.ratio(a[top], a[n])
    return lambda a: cols.ratio(a[top], ibis.least(a[n], k))

"""Rank-sensitive binary metrics as Ibis expressions: reciprocal rank, average precision,
R-precision, bpref, infAP, yaAP and interpolated precision (the Ibis twin of
:mod:`rankframe.faces.polars.ranked`), from running counts in rank order."""

from __future__ import annotations

from collections.abc import Callable

import ibis

from rankframe.faces.ibis import columns as cols
from rankframe.faces.ibis.columns import Final, Table, Value
from rankframe.faces.ibis.plan import Plan


def reciprocal_rank(plan: Plan, k: int | None, threshold: float = 1) -> Final:
    first = plan.agg(lambda t: ibis.ifelse(
        cols.relevant(plan.rel(t), threshold) & cols.retrieved(plan.rank(t), k), plan.rank(t),
        ibis.null(cols.I64)).min())
    return lambda a: (1.0 / cols.as_float(a[first])).fill_null(0.0)


def average_precision(plan: Plan, k: int | None, threshold: float = 1,
                      divisor: str = "relevant") -> Final:
    j = plan.relevant_running(threshold)
    total = plan.agg(lambda t: cols.sum_where(
        cols.as_float(t[j]) / cols.as_float(plan.rank(t)),
        cols.relevant(plan.rel(t), threshold) & cols.retrieved(plan.rank(t), k)))
    if divisor == "found":
        d = plan.hits(k, threshold)
        return lambda a: cols.ratio(a[total], a[d])
    r = plan.num_relevant(threshold)
    if divisor == "min" and k is not None:
        return lambda a: cols.ratio(a[total], ibis.least(a[r], k))
    return lambda a: cols.ratio(a[total], a[r])


def r_precision(plan: Plan, threshold: float = 1) -> Final:
    r_row = plan.total(lambda t: cols.flag(cols.relevant(plan.rel(t), threshold)))
    top = plan.count_where(lambda t: cols.relevant(plan.rel(t), threshold)
                           & (plan.rank(t) <= t[r_row]).fill_null(False))
    r = plan.num_relevant(threshold)
    return lambda a: cols.ratio(a[top], a[r])


def r_precision_mult(plan: Plan, multiple: float, threshold: float = 1) -> Final:
    def cut(big_r: Value) -> Value:  # c = floor(x * R + 0.9), in float64 as trec_eval does
        return (cols.as_float(big_r) * float(multiple) + 0.9).floor()

    r_row = plan.total(lambda t: cols.flag(cols.relevant(plan.rel(t), threshold)))
    top = plan.count_where(lambda t: cols.relevant(plan.rel(t), threshold)
                           & (plan.rank(t) <= cut(t[r_row])).fill_null(False))
    r = plan.num_relevant(threshold)
    return lambda a: cols.ratio(a[top], cut(a[r]))


def bpref(plan: Plan, threshold: float = 1) -> Final:
    def nonrelevant(t: Table) -> Value:
        rel = plan.rel(t)
        return ((rel >= 0) & (rel < threshold)).fill_null(False)

    r_row = plan.total(lambda t: cols.flag(cols.relevant(plan.rel(t), threshold)))
    n_row = plan.total(lambda t: cols.flag(nonrelevant(t)))
    above = plan.running(lambda t: cols.flag(nonrelevant(t) & plan.rank(t).notnull()),
                         lambda t: plan.rank(t))

    def term(t: Table) -> Value:
        nr, big_r, big_n = t[above], t[r_row], t[n_row]
        # nr > 0 implies N >= nr > 0, and a relevant row makes R >= 1.
        return ibis.ifelse(nr == 0, 1.0, 1.0 - cols.ratio(ibis.least(nr, big_r),
                                                      ibis.least(big_n, big_r)))

    total = plan.agg(lambda t: cols.sum_where(term(t), cols.relevant(plan.rel(t), threshold)
                                    & plan.rank(t).notnull()))
    r = plan.num_relevant(threshold)
    return lambda a: cols.ratio(a[total], a[r])


def infap(plan: Plan, threshold: float = 1) -> Final:
    def ranked(condition: Callable[[Table], Value]) -> str:  # a running count in rank order
        return plan.running(lambda t: cols.flag(condition(t) & plan.rank(t).notnull()),
                            lambda t: plan.rank(t))

    found = plan.relevant_running(threshold)  # a + 1 at a relevant row
    nonrel = ranked(lambda t: ((plan.rel(t) >= 0) & (plan.rel(t) < threshold)).fill_null(False))
    unjudged = ranked(lambda t: (plan.rel(t) < 0).fill_null(False))

    def term(t: Table) -> Value:
        a, b, u = t[found] - 1, t[nonrel], t[unjudged]
        j = ibis.greatest(cols.as_float(plan.rank(t)) - 1.0, 1.0)  # rank 1 takes the first branch
        estimate = (cols.as_float(a) + 0.00001) / (cols.as_float(a + b) + 2 * 0.00001)
        return ibis.ifelse(plan.rank(t) == 1, 1.0,
                           1.0 / (j + 1.0)
                           + (j / (j + 1.0)) * (cols.as_float(a + b + u) / j) * estimate)

    total = plan.agg(lambda t: cols.sum_where(term(t), cols.relevant(plan.rel(t), threshold)
                                    & plan.rank(t).notnull()))
    r = plan.num_relevant(threshold)
    return lambda a: cols.ratio(a[total], a[r])


def yaap(plan: Plan, threshold: float = 1) -> Final:
    j = plan.relevant_running(threshold)
    total = plan.agg(lambda t: cols.sum_where(cols.as_float(t[j]) / cols.as_float(plan.rank(t)),
                                              cols.relevant(plan.rel(t), threshold)
                                              & plan.rank(t).notnull()))
    r = plan.num_relevant(threshold)
    return lambda a: ((1.0 + cols.as_float(a[total]))
                      / ((1.0 + cols.as_float(a[r])) - cols.as_float(a[total]))).ln()


def iprec_at_recall(plan: Plan, recall: float, threshold: float = 1,
                    rounding: str = "nearest") -> Final:
    offset = 0.5 if rounding == "nearest" else 0.9
    r_row = plan.total(lambda t: cols.flag(cols.relevant(plan.rel(t), threshold)))
    j = plan.relevant_running(threshold)

    def needed(t: Table) -> Value:  # c, computed in float64 as trec_eval does
        return ibis.greatest((cols.as_float(t[r_row]) * float(recall) + offset).floor(), 1)

    best = plan.agg(lambda t: ibis.ifelse(
        cols.relevant(plan.rel(t), threshold) & plan.rank(t).notnull() & (t[j] >= needed(t)),
        cols.as_float(t[j]) / cols.as_float(plan.rank(t)), ibis.null(cols.F64)).max())
    return lambda a: a[best].fill_null(0.0)

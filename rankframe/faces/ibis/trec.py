"""trec_eval's contingency and gain measures as Ibis expressions: relative precision, set
MAP, utility, the judged non-relevant count, unjudged and binG (the Ibis twin of
:mod:`rankframe.metrics.trec`)."""

from __future__ import annotations

import ibis

from rankframe.faces.ibis.columns import (
    Final,
    Table,
    Value,
    as_float,
    discount,
    flag,
    is_judged,
    ratio,
    relevant,
    retrieved,
    sum_where,
)
from rankframe.faces.ibis.plan import Plan


def relative_precision(plan: Plan, k: int | None, threshold: float = 1) -> Final:
    hits, r, n = plan.hits(k, threshold), plan.num_relevant(threshold), plan.num_retrieved()
    if k is None:
        return lambda a: ratio(a[hits], ibis.least(a[n], a[r]))
    return lambda a: ratio(a[hits], ibis.least(a[r], k))


def set_map(plan: Plan, threshold: float = 1) -> Final:
    hits, r, n = plan.hits(None, threshold), plan.num_relevant(threshold), plan.num_retrieved()
    return lambda a: ratio(a[hits] * a[hits], a[n] * a[r])


def utility(plan: Plan, threshold: float = 1, a: float = 1.0, b: float = -1.0,
            c: float = 0.0, d: float = 0.0, num_docs: int = 0, empty: str = "counts") -> Final:
    hits, r, n = plan.hits(None, threshold), plan.num_relevant(threshold), plan.num_retrieved()

    def value(t: Table) -> Value:
        h, big_r, size = t[hits], t[r], t[n]
        if empty == "placeholder":
            size = ibis.greatest(size, 1)
        total = (float(a) * as_float(h) + float(b) * as_float(size - h)
                 + float(c) * as_float(big_r - h)
                 + float(d) * as_float(int(num_docs) + h - size - big_r))
        return total

    return value


def num_nonrel_judged_ret(plan: Plan, k: int | None, threshold: float = 1) -> Final:
    count = plan.count_where(lambda t: retrieved(plan.rank(t), k) & (
        (plan.rel(t) >= 0) & (plan.rel(t) < threshold)).fill_null(False))
    return lambda a: a[count]


def unjudged(plan: Plan, k: int | None) -> Final:
    top = plan.count_where(lambda t: retrieved(plan.rank(t), k) & ~is_judged(plan.rel(t)))
    if k is None:
        n = plan.num_retrieved()
        return lambda a: ratio(a[top], a[n])
    return lambda a: as_float(a[top]) / float(k)


def bin_g(plan: Plan, threshold: float = 1) -> Final:
    above = plan.running(lambda t: flag(plan.rank(t).notnull()
                                         & ~relevant(plan.rel(t), threshold)),
                         lambda t: plan.rank(t))
    total = plan.agg(lambda t: sum_where(1.0 / discount(as_float(t[above]) + 1.0, plan.backend),
                                    relevant(plan.rel(t), threshold) & plan.rank(t).notnull()))
    r = plan.num_relevant(threshold)
    return lambda a: ratio(a[total], a[r])

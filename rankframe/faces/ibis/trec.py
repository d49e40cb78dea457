"""trec_eval's contingency and gain measures as Ibis expressions: relative precision, set
MAP, utility, the judged non-relevant count, unjudged and binG (the Ibis twin of
:mod:`rankframe.faces.polars.trec`)."""

from __future__ import annotations

import ibis

from rankframe.faces.ibis import columns as cols
from rankframe.faces.ibis.columns import Final, Table, Value
from rankframe.faces.ibis.plan import Plan


def relative_precision(plan: Plan, k: int | None, threshold: float = 1) -> Final:
    hits, r, n = plan.hits(k, threshold), plan.num_relevant(threshold), plan.num_retrieved()
    if k is None:
        return lambda a: cols.ratio(a[hits], ibis.least(a[n], a[r]))
    return lambda a: cols.ratio(a[hits], ibis.least(a[r], k))


def set_map(plan: Plan, threshold: float = 1) -> Final:
    hits, r, n = plan.hits(None, threshold), plan.num_relevant(threshold), plan.num_retrieved()
    return lambda a: cols.ratio(a[hits] * a[hits], a[n] * a[r])


def utility(plan: Plan, threshold: float = 1, a: float = 1.0, b: float = -1.0,
            c: float = 0.0, d: float = 0.0, num_docs: int = 0, empty: str = "counts") -> Final:
    hits, r, n = plan.hits(None, threshold), plan.num_relevant(threshold), plan.num_retrieved()

    def value(t: Table) -> Value:
        h, big_r, size = t[hits], t[r], t[n]
        if empty == "placeholder":
            size = ibis.greatest(size, 1)
        total = (float(a) * cols.as_float(h) + float(b) * cols.as_float(size - h)
                 + float(c) * cols.as_float(big_r - h)
                 + float(d) * cols.as_float(int(num_docs) + h - size - big_r))
        return total

    return value


def num_nonrel_judged_ret(plan: Plan, k: int | None, threshold: float = 1) -> Final:
    count = plan.count_where(lambda t: cols.retrieved(plan.rank(t), k) & (
        (plan.rel(t) >= 0) & (plan.rel(t) < threshold)).fill_null(False))
    return lambda a: a[count]


def unjudged(plan: Plan, k: int | None) -> Final:
    top = plan.count_where(lambda t: cols.retrieved(plan.rank(t), k) & ~cols.is_judged(plan.rel(t)))
    if k is None:
        n = plan.num_retrieved()
        return lambda a: cols.ratio(a[top], a[n])
    return lambda a: cols.as_float(a[top]) / float(k)


def bin_g(plan: Plan, threshold: float = 1) -> Final:
    above = plan.running(lambda t: cols.flag(plan.rank(t).notnull()
                                         & ~cols.relevant(plan.rel(t), threshold)),
                         lambda t: plan.rank(t))
    total = plan.agg(lambda t: cols.sum_where(
        1.0 / cols.discount(cols.as_float(t[above]) + 1.0, plan.backend),
        cols.relevant(plan.rel(t), threshold) & plan.rank(t).notnull()))
    r = plan.num_relevant(threshold)
    return lambda a: cols.ratio(a[total], a[r])

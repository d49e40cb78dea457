"""Popularity and novelty of each list as Ibis expressions (the Ibis twin of
:mod:`rankframe.faces.polars.popularity_bias`): means over the recommended rows."""

from __future__ import annotations

import ibis

from rankframe.faces.ibis import columns as cols
from rankframe.faces.ibis.columns import Final, Table, Value
from rankframe.faces.ibis.plan import Plan


def mean_where(plan: Plan, value: Final, where: Final) -> Final:
    """The mean of ``value`` over the rows where ``where`` holds; NULL for none."""
    total = plan.agg(lambda t: cols.sum_where(value(t), where(t)))
    n = plan.count_where(where)
    return lambda a: ibis.ifelse(a[n] > 0, cols.as_float(a[total]) / cols.as_float(a[n]),
                                 ibis.null(cols.F64))


def novelty(plan: Plan, k: int | None, total: int | None = None, unseen: str = "zero",
            log: str = "log2") -> Final:
    if total is None:
        raise ValueError("novelty: total is required (rankframe.evaluate counts it from its "
                         "Catalog)")

    def seen(t: Table) -> Value:
        return (plan.col(t, "pop") > 0).fill_null(False)

    def information(t: Table) -> Value:
        share = cols.as_float(plan.col(t, "pop")) / float(total)
        value = -(share.log2() if log == "log2" else share.ln())
        return ibis.ifelse(seen(t), value, 0.0)

    def where(t: Table) -> Value:
        listed = cols.retrieved(plan.rank(t), k)
        return listed if unseen == "zero" else listed & seen(t)

    return mean_where(plan, information, where)


def popularity(plan: Plan, k: int | None) -> Final:
    return mean_where(plan, lambda t: cols.as_float(plan.col(t, "pop")).fill_null(0.0),
                 lambda t: cols.retrieved(plan.rank(t), k))


def tail_share(plan: Plan, k: int | None) -> Final:
    n = plan.num_retrieved(k)
    tail = plan.count_where(lambda t: cols.retrieved(plan.rank(t), k)
                            & plan.col(t, "tail").cast("boolean").fill_null(False))
    return lambda a: ibis.ifelse(a[n] > 0, cols.as_float(a[tail]) / cols.as_float(a[n]),
                                 ibis.null(cols.F64))

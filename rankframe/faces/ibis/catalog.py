"""The catalogue metrics as Ibis expressions (the Ibis twin of
:mod:`rankframe.faces.polars.catalog`), in sums over rows: each recommended row carries the
count of its item in the group (a window), so that the entropy is a sum of ``log(c / N)``
over the rows and the Gini index a sum over each item's first row, ordered by count."""

from __future__ import annotations

import ibis

from rankframe.faces.ibis import columns as cols
from rankframe.faces.ibis.columns import Final, Table, Value
from rankframe.faces.ibis.plan import Plan


def _listed(plan: Plan, t: Table, k: int | None) -> Value:
    """A recommended row (rank <= k) of a non-NULL item."""
    return cols.retrieved(plan.rank(t), k) & plan.col(t, "item").notnull()


def item_count(plan: Plan, k: int | None) -> str:
    """Per row: the recommended rows of its item in the group (a window)."""
    return plan.row(lambda t: cols.flag(_listed(plan, t, k)).sum().over(ibis.window(
        group_by=plan.partition(t, plan.col(t, "item")))))


def _total(plan: Plan, k: int | None) -> str:
    return plan.count_where(lambda t: _listed(plan, t, k))


def _distinct(plan: Plan, k: int | None) -> str:
    return plan.agg(lambda t: plan.col(t, "item").nunique(where=_listed(plan, t, k)))


def coverage(plan: Plan, k: int | None, catalog: int | None = None) -> Final:
    if catalog is None:
        raise ValueError("coverage: catalog is required (rankframe.evaluate counts it from "
                         "its Catalog)")
    distinct = _distinct(plan, k)
    return lambda a: cols.as_float(a[distinct]) / float(catalog)


def entropy(plan: Plan, k: int | None, log: str = "log2", divisor: str = "none") -> Final:
    count, total = item_count(plan, k), _total(plan, k)
    n = plan.row(lambda t: cols.flag(_listed(plan, t, k)).sum().over(
        ibis.window(group_by=plan.partition(t))))

    def term(t: Table) -> Value:
        share = cols.as_float(t[count]) / cols.as_float(t[n])
        return (share.log2() if log == "log2" else share.ln()) / cols.as_float(t[n])

    terms = plan.agg(lambda t: cols.sum_where(term(t), _listed(plan, t, k)))
    distinct = _distinct(plan, k)

    def final(a: Table) -> Value:
        h = -a[terms]
        h = h / cols.as_float(a[distinct]) if divisor == "items" else h
        return ibis.ifelse(a[total] > 0, h, ibis.null(cols.F64))

    return final


def gini(plan: Plan, k: int | None, over: str = "catalog", catalog: int | None = None) -> Final:
    if over == "catalog" and catalog is None:
        raise ValueError("gini: catalog is required (rankframe.evaluate counts it from its "
                         "Catalog)")
    count, total, distinct = item_count(plan, k), _total(plan, k), _distinct(plan, k)
    # Each recommended item's first row, and its position (0-based) among them by count.
    first = plan.row(lambda t: ibis.row_number().over(ibis.window(
        group_by=plan.partition(t, plan.col(t, "item"), _listed(plan, t, k)),
        order_by=plan.rank(t))) == 0)
    position = plan.row(lambda t: ibis.row_number().over(ibis.window(
        group_by=plan.partition(t),
        order_by=[ibis.desc(cols.flag(_listed(plan, t, k) & t[first])), t[count]])),
        needs=[first, count])
    weighted = plan.agg(lambda t: cols.sum_where(
        cols.as_float(t[position]) * cols.as_float(t[count]), _listed(plan, t, k) & t[first]))

    def final(a: Table) -> Value:
        m = cols.as_float(a[distinct])
        n = ibis.literal(float(catalog)) if over == "catalog" and catalog is not None else m
        big_n = cols.as_float(a[total])
        # sum_j (2j - n - 1) c_(j), j = n - m + 1 + position: 2 sum(pos c) + (1 + n - 2m) N.
        value = (2.0 * a[weighted] + (1.0 + n - 2.0 * m) * big_n) / (n * big_n)
        return ibis.ifelse((a[total] > 0) & (m <= n), value, ibis.null(cols.F64))

    return final

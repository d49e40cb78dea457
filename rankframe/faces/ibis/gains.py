"""Graded metrics as Ibis expressions: CG, DCG, the ideal DCG, nDCG and nDCG_p (the Ibis
twin of :mod:`rankframe.faces.polars.gains`); the ideal positions are row numbers of the rows
sorted by gain."""

from __future__ import annotations

from typing import Any

import ibis

from rankframe.faces.ibis import columns as cols
from rankframe.faces.ibis.columns import Final, Table, Value
from rankframe.faces.ibis.plan import Plan


def ndcg_p(plan: Plan, threshold: float = 1, gains: Any = None) -> Final:
    def first_free(position: Value) -> Value:  # 1 at position 1, else log2(position)
        return ibis.ifelse(position == 1, 1.0, cols.discount(position - 1, plan.backend))

    def g(t: Table) -> Value:
        return cols.gain_of(plan.rel(t), "linear", gains)

    top = plan.agg(lambda t: cols.sum_where(g(t) / first_free(plan.rank(t)),
                                            plan.rank(t).notnull()))
    position = plan.row(lambda t: ibis.row_number().over(ibis.window(
        group_by=plan.partition(t),
        order_by=[ibis.desc(cols.flag(g(t) > 0)), ibis.desc(g(t))])) + 1)
    best = plan.agg(lambda t: cols.sum_where(g(t) / first_free(t[position]), g(t) > 0))
    found = plan.count_where(lambda t: cols.relevant(plan.rel(t), threshold)
                             & plan.rank(t).notnull())
    return lambda a: ibis.ifelse(a[found] > 0, cols.ratio(a[top], a[best]), 0.0)


def cg(plan: Plan, k: int | None, gain: str = "linear") -> Final:
    total = plan.agg(lambda t: cols.sum_where(cols.gain_of(plan.rel(t), gain),
                                              cols.retrieved(plan.rank(t), k)))
    return lambda a: cols.as_float(a[total])


def dcg(plan: Plan, k: int | None, gain: str = "linear", gains: Any = None) -> Final:
    total = plan.dcg(k, gain, gains=gains)
    return lambda a: cols.as_float(a[total])


def idcg(plan: Plan, k: int | None, gain: str = "linear", ideal: str = "all",
         gains: Any = None) -> Final:
    total = plan.idcg(k, gain, ideal, gains=gains)
    return lambda a: cols.as_float(a[total])


def ndcg(plan: Plan, k: int | None, gain: str = "linear", ideal: str = "all",
         gains: Any = None) -> Final:
    top, best = plan.dcg(k, gain, gains=gains), plan.idcg(k, gain, ideal, gains=gains)
    return lambda a: cols.ratio(a[top], a[best])

"""Diversity within a list and serendipity as Ibis expressions (the Ibis twin of
:mod:`rankframe.faces.polars.diversity`, but for the feature vectors: arrays are not
portable across its SQL engines). The category diversity is a sum over rows: each
recommended row adds the other rows of its category (a window)."""

from __future__ import annotations

import ibis

from rankframe.faces.ibis import columns as cols
from rankframe.faces.ibis.columns import Final, Table, Value
from rankframe.faces.ibis.plan import Plan
from rankframe.faces.ibis.popularity_bias import mean_where


def _one_minus_pair_mean(pair_total: Value, n: Value) -> Value:
    pairs = cols.as_float(n) * (cols.as_float(n) - 1.0)
    return ibis.ifelse(n >= 2, 1.0 - cols.as_float(pair_total) / pairs, ibis.null(cols.F64))


def ild_category(plan: Plan, k: int | None) -> Final:
    def same(t: Table) -> Value:
        return cols.retrieved(plan.rank(t), k) & plan.col(t, "category").notnull()

    alike = plan.row(lambda t: cols.flag(same(t)).sum().over(ibis.window(
        group_by=plan.partition(t, plan.col(t, "category")))))
    pairs = plan.agg(lambda t: cols.sum_where(t[alike] - 1, same(t)))
    n = plan.num_retrieved(k)
    return lambda a: _one_minus_pair_mean(a[pairs], a[n])


def ild_pairs(plan: Plan) -> Final:
    total = plan.agg(lambda t: cols.sum_where(
        cols.as_float(plan.col(t, "pair_similarity")).fill_null(0.0), plan.rank(t).notnull()))
    n = plan.num_retrieved()
    return lambda a: _one_minus_pair_mean(a[total], a[n])


def serendipity(plan: Plan, k: int | None, threshold: float = 1,
                relevance: str = "binary") -> Final:
    def term(t: Table) -> Value:
        unexpected = 1.0 - cols.as_float(plan.col(t, "similarity"))
        if relevance == "ignore":
            return unexpected
        return ibis.ifelse(cols.relevant(plan.rel(t), threshold), unexpected, 0.0)

    return mean_where(plan, term, lambda t: cols.retrieved(plan.rank(t), k)
                 & plan.col(t, "similarity").notnull())

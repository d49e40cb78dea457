"""Tie-aware metrics as Ibis expressions over the columns ``rel``, ``tie_first`` and
``tie_size`` (the Ibis twin of :mod:`rankframe.faces.polars.tied`): each row gets a distinct
offset j in its tie group, so the group's positions are f + j - 1. The running product of
the reciprocal rank's chances is a running sum of logarithms (every factor is > 0)."""

from __future__ import annotations

import ibis

from rankframe.faces.ibis import columns as cols
from rankframe.faces.ibis.columns import Final, Table, Value
from rankframe.faces.ibis.counts import precision_from_hits
from rankframe.faces.ibis.plan import Plan


def _tie_positions(plan: Plan, t: Table, k: int | None) -> Value:
    """c(k): the positions of the row's group inside the top k (tie_size when k is None)."""
    first, size = plan.col(t, "tie_first"), plan.col(t, "tie_size")
    if k is None:
        return size
    return ibis.least(ibis.greatest(k - first + 1, 0), size)


def _tie_hits(plan: Plan, k: int | None, threshold: float) -> str:
    return plan.agg(lambda t: cols.sum_where(
        cols.as_float(_tie_positions(plan, t, k)) / cols.as_float(plan.col(t, "tie_size")),
        plan.col(t, "tie_first").notnull() & cols.relevant(plan.rel(t), threshold)))


def precision_ties(plan: Plan, k: int | None, threshold: float = 1,
                   divisor: str = "k") -> Final:
    hits, n = _tie_hits(plan, k, threshold), plan.num_retrieved(rank="tie_first")
    return precision_from_hits(hits, n, k, divisor)


def recall_ties(plan: Plan, k: int | None, threshold: float = 1) -> Final:
    hits, r = _tie_hits(plan, k, threshold), plan.num_relevant(threshold)
    return lambda a: cols.ratio(a[hits], a[r])


def _offset(plan: Plan) -> str:
    """j = 1, 2, ...: a distinct offset within its tie group for each row of the group."""
    return plan.row(lambda t: ibis.row_number().over(ibis.window(
        group_by=plan.partition(t, plan.col(t, "tie_first")),
        order_by=[plan.rel(t)])) + 1)


def _tie_dcg(plan: Plan, k: int | None, gain: str) -> str:
    # The group's positions f .. f + t - 1 are its rows' f + j - 1; each row's gain is
    # spread over the group's discounts inside k.
    j = _offset(plan)

    def inside(t: Table) -> Value:
        position = plan.col(t, "tie_first") + t[j] - 1
        return ibis.ifelse(cols.retrieved(position, k),
                           1.0 / cols.discount(position, plan.backend), 0.0)

    group = plan.total(inside, plan.columns["tie_first"], needs=[j])
    return plan.agg(lambda t: cols.sum_where(
        cols.gain_of(plan.rel(t), gain) / cols.as_float(plan.col(t, "tie_size")) * t[group],
        plan.col(t, "tie_first").notnull()))


def dcg_ties(plan: Plan, k: int | None, gain: str = "linear") -> Final:
    total = _tie_dcg(plan, k, gain)
    return lambda a: cols.as_float(a[total])


def ndcg_ties(plan: Plan, k: int | None, gain: str = "linear", ideal: str = "all") -> Final:
    top, best = _tie_dcg(plan, k, gain), plan.idcg(k, gain, ideal, rank="tie_first")
    return lambda a: cols.ratio(a[top], a[best])


def reciprocal_rank_ties(plan: Plan, k: int | None, threshold: float = 1) -> Final:
    def hit(t: Table) -> Value:
        return cols.relevant(plan.rel(t), threshold) & cols.retrieved(plan.col(t, "tie_first"), k)

    # f: the first group holding a relevant row within k; r its relevant rows, t its size.
    first = plan.row(lambda t: ibis.ifelse(hit(t), plan.col(t, "tie_first"),
                                           ibis.null(cols.I64)).min().over(
        ibis.window(group_by=plan.partition(t))))
    r_group = plan.total(lambda t: cols.flag(cols.relevant(plan.rel(t), threshold)),
                         plan.columns["tie_first"])
    j = _offset(plan)

    def in_first(t: Table) -> Value:
        return (plan.col(t, "tie_first") == t[first]).fill_null(False)

    # P_j = (r / t) * prod over i < j of (t - i - r + 1) / (t - i), for j <= t - r + 1:
    # the factor of step j (j <= t - r) is > 0; others are never used (logarithm 0).
    def log_factor(t: Table) -> Value:
        size = cols.as_float(plan.col(t, "tie_size"))
        r, jj = cols.as_float(t[r_group]), cols.as_float(t[j])
        usable = in_first(t) & (jj <= size - r)
        factor = ibis.greatest(size - jj - r + 1.0, 1.0) / ibis.greatest(size - jj, 1.0)
        return ibis.ifelse(usable, factor.ln(), 0.0)

    logs = plan.row(log_factor, needs=[first, r_group, j])
    before = plan.running(lambda t: t[logs], lambda t: t[j], plan.columns["tie_first"],
                          needs=[logs, j])

    def term(t: Table) -> Value:
        size = cols.as_float(plan.col(t, "tie_size"))
        r, jj = cols.as_float(t[r_group]), cols.as_float(t[j])
        chance = r / size * (t[before] - t[logs]).exp()
        return chance / (cols.as_float(plan.col(t, "tie_first")) + jj - 1.0)

    def counted(t: Table) -> Value:
        size = cols.as_float(plan.col(t, "tie_size"))
        r, jj = cols.as_float(t[r_group]), cols.as_float(t[j])
        within = jj <= size - r + 1.0
        if k is not None:
            within = within & (plan.col(t, "tie_first") + t[j] - 1 <= k)
        return in_first(t) & within

    total = plan.agg(lambda t: cols.sum_where(term(t), counted(t)))
    return lambda a: cols.as_float(a[total])


def average_precision_ties(plan: Plan, k: int | None, threshold: float = 1,
                           divisor: str = "relevant") -> Final:
    def relevant_retrieved(t: Table) -> Value:
        return cols.relevant(plan.rel(t), threshold) & plan.col(t, "tie_first").notnull()

    r_group = plan.total(lambda t: cols.flag(relevant_retrieved(t)), plan.columns["tie_first"])
    j = _offset(plan)
    # h: relevant rows in earlier groups = running count in (tie_first, j) order minus the
    # running count within the group in j order.
    upto = plan.running(lambda t: cols.flag(relevant_retrieved(t)),
                        lambda t: [plan.col(t, "tie_first"), t[j]], needs=[j])
    in_group = plan.running(lambda t: cols.flag(relevant_retrieved(t)), lambda t: t[j],
                            plan.columns["tie_first"], needs=[j])

    def term(t: Table) -> Value:
        first = cols.as_float(plan.col(t, "tie_first"))
        size = cols.as_float(plan.col(t, "tie_size"))
        r, jj = cols.as_float(t[r_group]), cols.as_float(t[j])
        h = cols.as_float(t[upto] - t[in_group])
        spread = ibis.ifelse(size > 1.0, (jj - 1.0) * (r - 1.0) / ibis.greatest(size - 1.0, 1.0),
                             0.0)
        return r / size * (h + 1.0 + spread) / (first + jj - 1.0)

    def counted(t: Table) -> Value:
        kept = plan.col(t, "tie_first").notnull() & (t[r_group] > 0)
        if k is not None:
            kept = kept & (plan.col(t, "tie_first") + t[j] - 1 <= k)
        return kept

    total = plan.agg(lambda t: cols.sum_where(term(t), counted(t)))
    r = plan.num_relevant(threshold)
    if divisor == "min" and k is not None:
        return lambda a: cols.ratio(a[total], ibis.least(a[r], k))
    return lambda a: cols.ratio(a[total], a[r])

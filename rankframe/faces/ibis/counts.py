"""Set-based counts as Ibis expressions: precision, recall, F, hit rate and the ``num_*``
counts (the Ibis twin of :mod:`rankframe.faces.polars.counts`). Each builder adds its
aggregates to the plan and returns the final expression over them."""

from __future__ import annotations

import ibis

from rankframe.faces.ibis import columns as cols
from rankframe.faces.ibis.columns import Final
from rankframe.faces.ibis.plan import Plan


def precision_from_hits(hits: str, n: str, k: int | None, divisor: str) -> Final:
    """Precision from the aggregates ``hits`` (relevant rows within k) and ``n`` (rows
    retrieved): hits / k, hits / min(k, n) (``divisor="min"``), hits / n without a cutoff;
    0 where that divisor is 0. The tie-aware precision shares it (expected hits)."""
    if k is None:
        return lambda a: cols.ratio(a[hits], a[n])
    if divisor == "k":
        return lambda a: cols.as_float(a[hits]) / float(k)
    return lambda a: cols.ratio(a[hits], ibis.least(a[n], k))


def _precision(plan: Plan, k: int | None, threshold: float, divisor: str) -> Final:
    return precision_from_hits(plan.hits(k, threshold), plan.num_retrieved(), k, divisor)


def precision(plan: Plan, k: int | None, threshold: float = 1, divisor: str = "k") -> Final:
    return _precision(plan, k, threshold, divisor)


def recall(plan: Plan, k: int | None, threshold: float = 1) -> Final:
    hits, r = plan.hits(k, threshold), plan.num_relevant(threshold)
    return lambda a: cols.ratio(a[hits], a[r])


def f1(plan: Plan, k: int | None, threshold: float = 1, beta: float = 1.0,
       recall_weight: float | None = None) -> Final:
    w = float(recall_weight) if recall_weight is not None else float(beta) ** 2
    p, r = _precision(plan, k, threshold, "k"), recall(plan, k, threshold)
    return lambda a: cols.ratio((1.0 + w) * p(a) * r(a), w * p(a) + r(a))


def hit_rate(plan: Plan, k: int | None, threshold: float = 1) -> Final:
    hits = plan.hits(k, threshold)
    return lambda a: cols.as_float(cols.flag(a[hits] > 0))


def num_ret(plan: Plan, k: int | None) -> Final:
    n = plan.num_retrieved(k)
    return lambda a: a[n]


def num_rel(plan: Plan, threshold: float = 1) -> Final:
    r = plan.num_relevant(threshold)
    return lambda a: a[r]


def num_rel_ret(plan: Plan, k: int | None, threshold: float = 1) -> Final:
    hits = plan.hits(k, threshold)
    return lambda a: a[hits]

"""Reference oracles: slow, obvious, pure-Python versions of every metric.

Written line by line from SEMANTICS.md, over one query's rows given as
``(rel, rank)`` pairs (rank NULL = judged but not retrieved, rel NULL = unjudged,
negative rel = pooled but unjudged). They exist so the tests can hold the Polars and
DuckDB faces to an independent statement of each formula; do not use them for speed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Row = tuple[float | None, int | None]
Rows = Sequence[Row]


def _in_top(rank: int | None, k: int | None) -> bool:
    return rank is not None and (k is None or rank <= k)


def _is_relevant(rel: float | None, threshold: float) -> bool:
    return rel is not None and rel >= threshold


def _retrieved(rows: Rows) -> list[Row]:
    """Retrieved rows in rank order."""
    return sorted((r for r in rows if r[1] is not None), key=lambda r: r[1] or 0)


def _count_relevant(rows: Rows, threshold: float) -> int:
    return sum(1 for rel, _ in rows if _is_relevant(rel, threshold))


def _hits(rows: Rows, k: int | None, threshold: float) -> int:
    return sum(1 for rel, rank in rows if _in_top(rank, k) and _is_relevant(rel, threshold))


def _gain(rel: float | None, gain: str) -> float:
    if rel is None or rel <= 0:
        return 0.0
    return float(rel) if gain == "linear" else 2.0 ** float(rel) - 1.0


def num_ret(rows: Rows, k: int | None = None) -> int:
    return sum(1 for _, rank in rows if _in_top(rank, k))


def num_rel(rows: Rows, threshold: float = 1) -> int:
    return _count_relevant(rows, threshold)


def num_rel_ret(rows: Rows, k: int | None = None, threshold: float = 1) -> int:
    return _hits(rows, k, threshold)


def precision(rows: Rows, k: int | None = None, threshold: float = 1, divisor: str = "k") -> float:
    n = num_ret(rows)
    if n == 0:
        return 0.0
    hits = _hits(rows, k, threshold)
    if k is None:
        return hits / n
    return hits / (k if divisor == "k" else min(k, n))


def recall(rows: Rows, k: int | None = None, threshold: float = 1) -> float:
    big_r = _count_relevant(rows, threshold)
    return _hits(rows, k, threshold) / big_r if big_r else 0.0


def f1(rows: Rows, k: int | None = None, threshold: float = 1) -> float:
    p = precision(rows, k, threshold)
    r = recall(rows, k, threshold)
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def hit_rate(rows: Rows, k: int | None = None, threshold: float = 1) -> float:
    return 1.0 if _hits(rows, k, threshold) > 0 else 0.0


def reciprocal_rank(rows: Rows, k: int | None = None, threshold: float = 1) -> float:
    for rel, rank in _retrieved(rows):
        if _in_top(rank, k) and _is_relevant(rel, threshold):
            assert rank is not None
            return 1.0 / rank
    return 0.0


def average_precision(
    rows: Rows, k: int | None = None, threshold: float = 1, divisor: str = "relevant"
) -> float:
    total = 0.0
    found = 0
    for rel, rank in _retrieved(rows):
        assert rank is not None
        if not _in_top(rank, k):
            break
        if _is_relevant(rel, threshold):
            found += 1
            relevant_in_top = sum(
                1 for g2, r2 in rows if r2 is not None and r2 <= rank and _is_relevant(g2, threshold)
            )
            total += relevant_in_top / rank
    big_r = _count_relevant(rows, threshold)
    if divisor == "relevant":
        denominator = big_r
    elif divisor == "min":
        denominator = big_r if k is None else min(big_r, k)
    else:
        denominator = found
    return total / denominator if denominator else 0.0


def r_precision(rows: Rows, threshold: float = 1) -> float:
    big_r = _count_relevant(rows, threshold)
    return _hits(rows, big_r, threshold) / big_r if big_r else 0.0


def bpref(rows: Rows, threshold: float = 1) -> float:
    big_r = _count_relevant(rows, threshold)
    if big_r == 0:
        return 0.0
    big_n = sum(1 for rel, _ in rows if rel is not None and 0 <= rel < threshold)
    total = 0.0
    nonrel_above = 0
    for rel, _ in _retrieved(rows):
        if rel is None or rel < 0:
            continue
        if rel < threshold:
            nonrel_above += 1
        elif nonrel_above == 0:
            total += 1.0
        else:
            total += 1.0 - min(nonrel_above, big_r) / min(big_n, big_r)
    return total / big_r


def iprec_at_recall(rows: Rows, recall: float = 0.0, threshold: float = 1) -> float:
    big_r = _count_relevant(rows, threshold)
    needed = math.floor(recall * big_r + 0.5)
    precisions: list[float] = []
    found = 0
    for rel, rank in _retrieved(rows):
        assert rank is not None
        if _is_relevant(rel, threshold):
            found += 1
            if found >= needed:
                precisions.append(found / rank)
    return max(precisions, default=0.0)


def cg(rows: Rows, k: int | None = None, gain: str = "linear") -> float:
    return sum(_gain(rel, gain) for rel, rank in rows if _in_top(rank, k))


def dcg(rows: Rows, k: int | None = None, gain: str = "linear") -> float:
    return sum(
        _gain(rel, gain) / math.log2(rank + 1)
        for rel, rank in rows
        if rank is not None and _in_top(rank, k)
    )


def idcg(rows: Rows, k: int | None = None, gain: str = "linear", ideal: str = "all") -> float:
    pool = rows if ideal == "all" else [r for r in rows if r[1] is not None]
    gains = sorted((_gain(rel, gain) for rel, _ in pool), reverse=True)
    gains = [g for g in gains if g > 0]
    if k is not None:
        gains = gains[:k]
    return sum(g / math.log2(i + 1) for i, g in enumerate(gains, start=1))


def ndcg(rows: Rows, k: int | None = None, gain: str = "linear", ideal: str = "all") -> float:
    ideal_value = idcg(rows, k, gain, ideal)
    return dcg(rows, k, gain) / ideal_value if ideal_value > 0 else 0.0

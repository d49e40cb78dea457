"""The reference: slow, obvious, pure-Python versions of every metric and of ``judge``.

Written line by line from the contract (docs/semantics.md), each metric over one query's
rows given as tuples ordered like ``Metric.columns``, usually ``(rel, rank)`` pairs (rank
NULL = judged but not retrieved, rel NULL = unjudged, negative rel = pooled but unjudged).
They exist so the tests can hold every other face to an independent statement of each
formula. They import no Polars: the oracle face (:mod:`rankframe.faces.oracle`) runs
them over Polars tables, and ``rankframe eval`` over small plain files
(:mod:`rankframe.cli.eval_small`), where they finish before Polars would have loaded.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from rankframe.beyond.reference import (  # noqa: F401  (the oracle face's, by name)
    awrf,
    coverage,
    entropy,
    gini,
    ild_category,
    ild_features,
    ild_pairs,
    novelty,
    popularity,
    serendipity,
    tail_share,
)
from rankframe.errors import InputError
from rankframe.persistence import floor_steps, floor_weight

if TYPE_CHECKING:
    from rankframe.registry import Metric

Row = tuple[float | None, int | None]
Rows = Sequence[Row]
GainPairs = Mapping[int, float] | Sequence[tuple[int, float]] | None


def _in_top(rank: int | None, k: int | None) -> bool:
    return rank is not None and (k is None or rank <= k)


def _is_relevant(rel: float | None, threshold: float) -> bool:
    return rel is not None and rel >= threshold


def _retrieved(rows: Rows) -> list[Row]:
    """Retrieved rows in rank order."""
    return sorted((r for r in rows if r[1] is not None), key=lambda r: r[1] or 0)


def _retrieved_in_top(rows: Rows, k: int | None) -> Iterator[tuple[float | None, int]]:
    """The retrieved rows of rank <= k (every one for k None), in rank order."""
    for rel, rank in _retrieved(rows):
        assert rank is not None
        if not _in_top(rank, k):
            return
        yield rel, rank


def _count_relevant(rows: Rows, threshold: float) -> int:
    return sum(1 for rel, _ in rows if _is_relevant(rel, threshold))


def _hits(rows: Rows, k: int | None, threshold: float) -> int:
    return sum(1 for rel, rank in rows if _in_top(rank, k) and _is_relevant(rel, threshold))


def _gain(rel: float | None, gain: str, gains: GainPairs = None) -> float:
    if gains:  # trec_eval's ndcg.1=3,2=9
        mapped = {float(k): v for k, v in dict(gains).items()}
        if rel is not None and rel in mapped:
            return float(mapped[rel])
    if rel is None or rel <= 0:
        return 0.0
    return float(rel) if gain == "linear" else 2.0 ** float(rel) - 1.0


def _ideal_gains(rows: Rows, gains: GainPairs) -> list[float]:
    """The positive linear gains of every row, best first: the ideal ranking."""
    return sorted((g for g in (_gain(rel, "linear", gains) for rel, _ in rows) if g > 0),
                  reverse=True)


def _running(values: Sequence[float], discount: Callable[[int], float]) -> list[float]:
    """Prefix sums of value_i / discount(i) over positions i = 1, 2, ...: entry i is the
    discounted sum of the first i values, accumulated in position order."""
    out, total = [0.0], 0.0
    for i, v in enumerate(values, start=1):
        total += v / discount(i)
        out.append(total)
    return out


def num_ret(rows: Rows, k: int | None = None) -> int:
    """Contract: docs/semantics.md#num_ret."""
    return sum(1 for _, rank in rows if _in_top(rank, k))


def num_rel(rows: Rows, threshold: float = 1) -> int:
    """Contract: docs/semantics.md#num_rel."""
    return _count_relevant(rows, threshold)


def num_rel_ret(rows: Rows, k: int | None = None, threshold: float = 1) -> int:
    """Contract: docs/semantics.md#num_rel_ret."""
    return _hits(rows, k, threshold)


def precision(rows: Rows, k: int | None = None, threshold: float = 1, divisor: str = "k") -> float:
    """Contract: docs/semantics.md#precision."""
    n = num_ret(rows)
    if n == 0:
        return 0.0
    hits = _hits(rows, k, threshold)
    if k is None:
        return hits / n
    return hits / (k if divisor == "k" else min(k, n))


def recall(rows: Rows, k: int | None = None, threshold: float = 1) -> float:
    """Contract: docs/semantics.md#recall."""
    big_r = _count_relevant(rows, threshold)
    return _hits(rows, k, threshold) / big_r if big_r else 0.0


def f1(rows: Rows, k: int | None = None, threshold: float = 1, beta: float = 1.0,
       recall_weight: float | None = None) -> float:
    """Contract: docs/semantics.md#f1."""
    w = beta * beta if recall_weight is None else recall_weight
    p = precision(rows, k, threshold)
    r = recall(rows, k, threshold)
    denominator = w * p + r
    return (1 + w) * p * r / denominator if denominator > 0 else 0.0


def hit_rate(rows: Rows, k: int | None = None, threshold: float = 1) -> float:
    """Contract: docs/semantics.md#hit_rate."""
    return 1.0 if _hits(rows, k, threshold) > 0 else 0.0


def reciprocal_rank(rows: Rows, k: int | None = None, threshold: float = 1) -> float:
    """Contract: docs/semantics.md#reciprocal_rank."""
    for rel, rank in _retrieved(rows):
        if _in_top(rank, k) and _is_relevant(rel, threshold):
            assert rank is not None
            return 1.0 / rank
    return 0.0


def average_precision(
    rows: Rows, k: int | None = None, threshold: float = 1, divisor: str = "relevant"
) -> float:
    """Contract: docs/semantics.md#average_precision."""
    total = 0.0
    found = 0
    for rel, rank in _retrieved_in_top(rows, k):
        if _is_relevant(rel, threshold):
            found += 1  # the relevant documents at ranks <= rank (ranks are distinct)
            total += found / rank
    big_r = _count_relevant(rows, threshold)
    if divisor == "relevant":
        denominator = big_r
    elif divisor == "min":
        denominator = big_r if k is None else min(big_r, k)
    else:
        denominator = found
    return total / denominator if denominator else 0.0


def r_precision(rows: Rows, threshold: float = 1) -> float:
    """Contract: docs/semantics.md#r_precision."""
    big_r = _count_relevant(rows, threshold)
    return _hits(rows, big_r, threshold) / big_r if big_r else 0.0


def bpref(rows: Rows, threshold: float = 1) -> float:
    """Contract: docs/semantics.md#bpref."""
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


INFAP_EPSILON = 0.00001


def infap(rows: Rows, threshold: float = 1) -> float:
    """Contract: docs/semantics.md#infap."""
    big_r = _count_relevant(rows, threshold)
    total = 0.0
    rel_above = nonrel_above = unjudged_above = 0
    for rel, rank in _retrieved(rows):
        assert rank is not None
        if rel is None:  # not in the pool
            continue
        if rel < 0:  # pooled but unjudged
            unjudged_above += 1
        elif rel < threshold:
            nonrel_above += 1
        elif rank == 1:
            total += 1.0
            rel_above += 1
        else:
            j = float(rank - 1)
            total += (1.0 / (j + 1.0) + (j / (j + 1.0))
                      * ((rel_above + nonrel_above + unjudged_above) / j)
                      * ((rel_above + INFAP_EPSILON)
                         / (rel_above + nonrel_above + 2 * INFAP_EPSILON)))
            rel_above += 1
    return total / big_r if big_r else total


def relchar(rel: float | None) -> str:
    """The character of a grade in relstring: the digit of 0-9, '>' above 9, '-' for NULL
    (not in the pool), '.' for a negative grade (pooled, unjudged), '<' for a grade that
    is not whole."""
    if rel is None:
        return "-"
    if rel < 0:
        return "."
    if rel != math.floor(rel):
        return "<"
    return ">" if rel > 9 else str(int(rel))


def relstring(rows: Rows, length: int | None = 10) -> str:
    """Contract: docs/semantics.md#relstring."""
    by_rank = {rank: rel for rel, rank in rows if rank is not None}
    last = max(by_rank, default=0)
    end = last if length is None else min(length, last)
    return "".join(relchar(by_rank[i]) if i in by_rank else "-" for i in range(1, end + 1))


def yaap(rows: Rows, threshold: float = 1) -> float:
    """Contract: docs/semantics.md#yaap."""
    big_r = _count_relevant(rows, threshold)
    total, found = 0.0, 0
    for rel, rank in _retrieved(rows):
        assert rank is not None
        if _is_relevant(rel, threshold):
            found += 1
            total += found / rank
    return math.log((1.0 + total) / (1.0 + big_r - total))


def iprec_at_recall(
    rows: Rows, recall: float = 0.0, threshold: float = 1, rounding: str = "nearest"
) -> float:
    """Contract: docs/semantics.md#iprec_at_recall."""
    big_r = _count_relevant(rows, threshold)
    needed = math.floor(recall * big_r + (0.5 if rounding == "nearest" else 0.9))
    precisions: list[float] = []
    found = 0
    for rel, rank in _retrieved(rows):
        assert rank is not None
        if _is_relevant(rel, threshold):
            found += 1
            if found >= needed:
                precisions.append(found / rank)
    return max(precisions, default=0.0)


def r_precision_mult(rows: Rows, multiple: float = 1.0, threshold: float = 1) -> float:
    """Contract: docs/semantics.md#r_precision_mult."""
    cut = math.floor(multiple * _count_relevant(rows, threshold) + 0.9)
    hits = sum(1 for rel, rank in rows
               if rank is not None and rank <= cut and _is_relevant(rel, threshold))
    return hits / cut if cut > 0 else 0.0


def _added(terms: Iterable[float]) -> float:
    """The terms added one at a time from 0.0, in the order given: trec_eval's loops
    (docs/semantics.md#exactness). Not ``sum``, whose float order is Python's business
    (3.12 compensates rounding errors)."""
    total = 0.0
    for term in terms:
        total += term
    return total


def cg(rows: Rows, k: int | None = None, gain: str = "linear") -> float:
    """Contract: docs/semantics.md#cg."""
    return _added(_gain(rel, gain) for rel, rank in _retrieved(rows) if _in_top(rank, k))


def dcg(rows: Rows, k: int | None = None, gain: str = "linear",
        gains: GainPairs = None) -> float:
    """Contract: docs/semantics.md#dcg. Added in rank order (trec_eval's)."""
    pairs = tuple(dict(gains or ()).items())
    return _added(
        _gain(rel, gain, pairs) / math.log2(rank + 1)
        for rel, rank in _retrieved(rows)
        if rank is not None and _in_top(rank, k)
    )


def idcg(rows: Rows, k: int | None = None, gain: str = "linear", ideal: str = "all",
         gains: GainPairs = None) -> float:
    """Contract: docs/semantics.md#idcg. Added best first (trec_eval's order)."""
    pairs = tuple(dict(gains or ()).items())
    pool = rows if ideal == "all" else [r for r in rows if r[1] is not None]
    best = [g for g in sorted((_gain(rel, gain, pairs) for rel, _ in pool), reverse=True) if g > 0]
    if k is not None:
        best = best[:k]
    return _added(g / math.log2(i + 1) for i, g in enumerate(best, start=1))


def ndcg(rows: Rows, k: int | None = None, gain: str = "linear", ideal: str = "all",
         gains: GainPairs = None) -> float:
    """Contract: docs/semantics.md#ndcg."""
    pairs = tuple(dict(gains or ()).items())
    top = _added(_gain(rel, gain, pairs) / math.log2(rank + 1)
                 for rel, rank in _retrieved(rows) if rank is not None and _in_top(rank, k))
    pool = rows if ideal == "all" else [r for r in rows if r[1] is not None]
    best = [g for g in sorted((_gain(rel, gain, pairs) for rel, _ in pool), reverse=True) if g > 0]
    if k is not None:
        best = best[:k]
    ideal_value = _added(g / math.log2(i + 1) for i, g in enumerate(best, start=1))
    return top / ideal_value if ideal_value > 0 else 0.0


class _DcgByPosition:
    """DCG@i of one query for any position i >= 0: the DCG of the ranks <= i, linear gains
    (``gains`` mapped), accumulated in rank order (trec_eval's order of additions). Held as
    the prefix sums at the ranks with a non-zero gain, so that a rank of 2^63 - 1 costs no
    more than rank 10; ``dcg_at[i]`` is the sum at the last such rank <= i."""

    def __init__(self, rows: Rows, gains: GainPairs) -> None:
        points = sorted((rank, _gain(rel, "linear", gains)) for rel, rank in rows
                        if rank is not None)
        self._ranks: list[int] = []
        self._sums, total = [0.0], 0.0
        for rank, g in points:
            if g != 0:
                total += g / math.log2(rank + 1)
                self._ranks.append(rank)
                self._sums.append(total)

    def __getitem__(self, i: int) -> float:
        return self._sums[bisect.bisect_right(self._ranks, i)]


def ndcg_rel(rows: Rows, gains: GainPairs = None) -> float:
    """Contract: docs/semantics.md#ndcg_rel."""
    ideal = _ideal_gains(rows, gains)
    big_r = len(ideal)
    if big_r == 0:
        return 0.0
    ideal_at = _running(ideal, lambda i: math.log2(i + 1))
    last = max((rank for _, rank in rows if rank is not None), default=0)
    dcg_at = _DcgByPosition(rows, gains)
    total, found = 0.0, 0
    for rel, rank in _retrieved(rows):
        assert rank is not None
        if _gain(rel, "linear", gains) > 0:
            total += dcg_at[rank] / ideal_at[min(rank, big_r)]
            found += 1
    total += (big_r - found) * dcg_at[last] / ideal_at[big_r]
    return total / big_r if total > 0 else 0.0


def rndcg(rows: Rows, threshold: float = 1, gains: GainPairs = None) -> float:
    """Contract: docs/semantics.md#rndcg."""
    if _count_relevant(rows, threshold) == 0:
        return 0.0
    ideal = _ideal_gains(rows, gains)
    big_p = len(ideal)
    ideal_at = _running(ideal, lambda i: math.log2(i + 1))
    n = max((rank for _, rank in rows if rank is not None), default=0)
    dcg_at = _DcgByPosition(rows, gains)
    # nDCG at each position i where the ideal gain changes after i (the last positive one
    # included), then at n if the list runs on past position P + 1.
    points = [i for i in range(1, big_p + 1) if i == big_p or ideal[i] != ideal[i - 1]]
    terms = [dcg_at[i] / ideal_at[i] for i in points]
    if big_p > 0 and n > big_p + 1:
        terms.append(dcg_at[n] / ideal_at[big_p])
    total = 0.0
    for term in terms:
        total += term
    return total / len(terms) if terms else 0.0


def ndcg_p(rows: Rows, threshold: float = 1, gains: GainPairs = None) -> float:
    """Contract: docs/semantics.md#ndcg_p."""
    if _hits(rows, None, threshold) == 0:
        return 0.0
    top = 0.0
    for rel, rank in _retrieved(rows):
        assert rank is not None
        g = _gain(rel, "linear", gains)
        if g != 0:
            top += g if rank == 1 else g / math.log2(rank)
    best = 0.0
    for i, g in enumerate(_ideal_gains(rows, gains), start=1):
        best += g if i == 1 else g / math.log2(i)
    return top / best if best > 0 else 0.0


# --- user models -------------------------------------------------------------------------


def rbp(
    rows: Rows,
    p: float = 0.8,
    threshold: float = 1,
    graded: bool = False,
    max_grade: float | None = None,
    clip: bool = True,
) -> float:
    """Contract: docs/semantics.md#rbp."""
    if graded:
        top = max_grade
        if top is None:
            top = max((rel for rel, _ in rows if rel is not None), default=0.0)
    total = 0.0
    weight = 1.0  # p^(position - 1) as trec_eval's running product, position by position
    position = 1
    for rel, rank in _retrieved(rows):
        assert rank is not None
        # Past floor_steps(p) multiplications the product no longer changes.
        for _ in range(min(rank - position, floor_steps(p))):
            weight *= p
        position = rank
        if not graded:
            g = 1.0 if _is_relevant(rel, threshold) else 0.0
        elif rel is None or rel <= 0 or top is None or top <= 0:
            g = 0.0
        else:
            g = min(rel / top, 1.0) if clip else rel / top
        if g != 0:
            total += g * weight
    return (1 - p) * total


def rbp_residual(rows: Rows, p: float = 0.8) -> float:
    """Contract: docs/semantics.md#rbp_residual."""
    judged_ranks = {rank for rel, rank in rows if rank is not None and rel is not None and rel >= 0}
    deepest = max((rank for _, rank in rows if rank is not None), default=0)
    unknown = 0.0
    weight = 1.0  # p^(i - 1) as trec_eval's running product
    near = min(deepest, floor_steps(p) + 1)
    for i in range(1, near + 1):
        if i not in judged_ranks:
            unknown += weight
        weight *= p
    # Deeper positions weigh the floor: the unknown ones add it as one last term.
    deeper = deepest - near - sum(1 for rank in judged_ranks if rank > near)
    if deeper > 0:
        unknown += deeper * floor_weight(p)
    return weight + (1 - p) * unknown


def err(rows: Rows, k: int | None = None, max_grade: float = 4) -> float:
    """Contract: docs/semantics.md#err."""
    total = 0.0
    not_stopped = 1.0
    for rel, rank in _retrieved_in_top(rows, k):
        grade = 0.0 if rel is None else min(max(rel, 0.0), max_grade)
        stop = (2.0**grade - 1.0) / 2.0**max_grade
        total += not_stopped * stop / rank
        not_stopped *= 1.0 - stop
    return total


def judged(rows: Rows, k: int | None = None) -> float:
    """Contract: docs/semantics.md#judged."""
    n = num_ret(rows)
    top = sum(1 for rel, rank in rows if _in_top(rank, k) and rel is not None and rel >= 0)
    denominator = n if k is None else min(k, n)
    return top / denominator if denominator else 0.0


# --- trec_eval's contingency and gain measures ------------------------------------------


def relative_precision(rows: Rows, k: int | None = None, threshold: float = 1) -> float:
    """Contract: docs/semantics.md#relative_precision."""
    big_r = _count_relevant(rows, threshold)
    size = num_ret(rows) if k is None else k
    denominator = min(size, big_r)
    return _hits(rows, k, threshold) / denominator if denominator else 0.0


def set_map(rows: Rows, threshold: float = 1) -> float:
    """Contract: docs/semantics.md#set_map."""
    hits, n, big_r = _hits(rows, None, threshold), num_ret(rows), _count_relevant(rows, threshold)
    return hits * hits / (n * big_r) if n and big_r else 0.0


def utility(rows: Rows, threshold: float = 1, a: float = 1.0, b: float = -1.0, c: float = 0.0,
            d: float = 0.0, num_docs: int = 0, empty: str = "counts") -> float:
    """Contract: docs/semantics.md#utility."""
    hits, n, big_r = _hits(rows, None, threshold), num_ret(rows), _count_relevant(rows, threshold)
    if n == 0 and empty == "placeholder":  # one unjudged document, as trec_eval 10's -c
        n = 1
    return (a * float(hits) + b * float(n - hits) + c * float(big_r - hits)
            + d * float(num_docs + hits - n - big_r))


def num_nonrel_judged_ret(rows: Rows, k: int | None = None, threshold: float = 1) -> int:
    """Contract: docs/semantics.md#num_nonrel_judged_ret."""
    return sum(1 for rel, rank in rows
               if _in_top(rank, k) and rel is not None and 0 <= rel < threshold)


def unjudged(rows: Rows, k: int | None = None) -> float:
    """Contract: docs/semantics.md#unjudged."""
    top = sum(1 for rel, rank in rows if _in_top(rank, k) and (rel is None or rel < 0))
    denominator = num_ret(rows) if k is None else k
    return top / denominator if denominator else 0.0


def bin_g(rows: Rows, threshold: float = 1) -> float:
    """Contract: docs/semantics.md#bin_g."""
    big_r = _count_relevant(rows, threshold)
    total = 0.0
    nonrelevant_above = 0
    for rel, _ in _retrieved(rows):
        if _is_relevant(rel, threshold):
            total += 1.0 / math.log2(2 + nonrelevant_above)
        else:
            nonrelevant_above += 1
    return total / big_r if big_r else 0.0


def _g_gain(rel: float | None, pairs: Mapping[int, float]) -> float:
    if rel is None or rel < 0:
        return 0.0
    return float(pairs[int(rel)]) if rel == int(rel) and int(rel) in pairs else float(rel)


def g(rows: Rows, gains: Mapping[int, float] | Sequence[tuple[int, float]] | None = None
      ) -> float:
    """Contract: docs/semantics.md#g."""
    pairs = dict(gains or ())
    ideal = sorted((_g_gain(rel, pairs) for rel, _ in rows
                    if rel is not None and rel >= 0 and _g_gain(rel, pairs) > 0), reverse=True)
    spent = found = total = 0.0
    for i, (rel, _) in enumerate(_retrieved(rows)):
        gain = _g_gain(rel, pairs)
        spent += max(ideal[i] if i < len(ideal) else 0.0, 1.0)
        found += gain
        if gain != 0:
            total += gain / math.log2(2 + spent - found)
    best = 0.0
    for gain in ideal:
        best += gain
    return total / best if best > 0 else 0.0


# --- correlation and overlap (rows are (x, y) or (rank_a, rank_b)) -------------------------

Pair = tuple[float | None, float | None]


def _kept(rows: Sequence[Pair]) -> list[tuple[float, float]]:
    """The pairs without NULL or NaN, as given: Python compares an int beyond 2^53 exactly
    (with ints and with floats), and -0.0 == 0.0, inf == inf."""
    return [
        (x, y)
        for x, y in rows
        if x is not None and y is not None and not math.isnan(x) and not math.isnan(y)
    ]


def _sign(a: float, b: float) -> int:
    """sign(a - b), by comparison (inf - inf would be NaN)."""
    return (a > b) - (a < b)


def _pair_kinds(rows: Sequence[Pair]) -> tuple[int, int, int, int, int, int]:
    """Over unordered pairs: concordant, discordant, tied in x only, in y only, in both, all."""
    kept = _kept(rows)
    conc = disc = tie_x = tie_y = tie_xy = 0
    for i in range(len(kept)):
        for j in range(i + 1, len(kept)):
            sx = _sign(kept[i][0], kept[j][0])
            sy = _sign(kept[i][1], kept[j][1])
            if sx == 0 and sy == 0:
                tie_xy += 1
            elif sx == 0:
                tie_x += 1
            elif sy == 0:
                tie_y += 1
            elif sx == sy:
                conc += 1
            else:
                disc += 1
    n = len(kept)
    return conc, disc, tie_x, tie_y, tie_xy, n * (n - 1) // 2


def kendall_tau(rows: Sequence[Pair]) -> float:
    """Contract: docs/semantics.md#kendall_tau."""
    conc, disc, tie_x, tie_y, tie_xy, n0 = _pair_kinds(rows)
    n1, n2 = tie_x + tie_xy, tie_y + tie_xy
    if n0 - n1 <= 0 or n0 - n2 <= 0:
        return 0.0
    return (conc - disc) / math.sqrt((n0 - n1) * (n0 - n2))


def kendall_distance(rows: Sequence[Pair], penalty: float = 0.0) -> float:
    """Contract: docs/semantics.md#kendall_distance."""
    _, disc, tie_x, tie_y, _, n0 = _pair_kinds(rows)
    return (disc + penalty * (tie_x + tie_y)) / n0 if n0 else 0.0


def _average_ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman_rho(rows: Sequence[Pair]) -> float:
    """Contract: docs/semantics.md#spearman_rho."""
    kept = _kept(rows)
    a = _average_ranks([x for x, _ in kept])
    b = _average_ranks([y for _, y in kept])
    if len(kept) < 2:
        return 0.0
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    sab = sum((u - ma) * (v - mb) for u, v in zip(a, b, strict=True))
    saa = sum((u - ma) ** 2 for u in a)
    sbb = sum((v - mb) ** 2 for v in b)
    return sab / math.sqrt(saa * sbb) if saa * sbb > 0 else 0.0


def rbo(
    rows: Sequence[Pair], p: float = 0.9, depth: int | None = None, extrapolated: bool = True
) -> float:
    """Sum over depths d of (1 - p) p^(d-1) A_d, with the agreement A_d continued past the
    observed lists as the paper's min / ext forms prescribe, until the weights vanish.

    Contract: docs/semantics.md#rbo.
    """
    cut = depth if depth is not None else math.inf
    a_ranks = {doc: int(r) for doc, (r, _) in enumerate(rows) if r is not None and r <= cut}
    b_ranks = {doc: int(r) for doc, (_, r) in enumerate(rows) if r is not None and r <= cut}
    len_a, len_b = max(a_ranks.values(), default=0), max(b_ranks.values(), default=0)
    short, long = min(len_a, len_b), max(len_a, len_b)
    if short == 0:
        return 0.0

    def overlap(d: int) -> int:
        seen_a = {doc for doc, r in a_ranks.items() if r <= d}
        return sum(1 for doc, r in b_ranks.items() if r <= d and doc in seen_a)

    seen = [overlap(d) for d in range(long + 1)]  # seen[d] = X_d for d <= l
    total = 0.0
    d = 1
    while d <= long or p ** (d - 1) > 1e-18:
        x_d: float = seen[min(d, long)]
        if extrapolated:
            if d > short:  # the shorter list's unseen items agree at its observed rate
                x_d += seen[short] * (min(d, long) - short) / short
            agreement = x_d / min(d, long)  # past l, agreement stays at its value at l
        else:
            agreement = x_d / d  # past l, nothing new overlaps
        total += (1 - p) * p ** (d - 1) * agreement
        d += 1
    return total


# --- tie-aware (rows are (rel, tie_first, tie_size)) ----------------------------------------

TiedRow = tuple[float | None, int | None, int | None]
MAX_ORDERINGS = 20_000


def _orderings(rows: Sequence[TiedRow]) -> list[list[Row]]:
    """Every ordering of every tie group, as (rel, rank) rows; the unretrieved rows ride along.

    Distinct arrangements of a group's grades are equally likely under a uniformly random
    permutation, so each is listed once."""
    groups: dict[int, list[float | None]] = {}
    fixed: list[Row] = []
    for rel, first, _ in rows:
        if first is None:
            fixed.append((rel, None))
        else:
            groups.setdefault(first, []).append(rel)
    for first, grades in groups.items():
        size = next(s for _, f, s in rows if f == first)
        assert size == len(grades), f"tie group at {first} has {len(grades)} rows, not {size}"
    per_group = [
        sorted(set(itertools.permutations(grades)), key=repr) for grades in groups.values()
    ]
    assert math.prod(len(options) for options in per_group) <= MAX_ORDERINGS
    firsts = list(groups)
    out: list[list[Row]] = []
    for choice in itertools.product(*per_group):
        ordered = [
            (rel, first + offset)
            for first, arrangement in zip(firsts, choice, strict=True)
            for offset, rel in enumerate(arrangement)
        ]
        out.append(ordered + fixed)
    return out


def _expected(metric: Callable[[Rows], float], rows: Sequence[TiedRow]) -> float:
    values = [metric(ordering) for ordering in _orderings(rows)]
    return sum(values) / len(values)


def precision_ties(
    rows: Sequence[TiedRow], k: int | None = None, threshold: float = 1, divisor: str = "k"
) -> float:
    """Contract: docs/semantics.md#precision_ties."""
    return _expected(lambda r: precision(r, k, threshold, divisor), rows)


def recall_ties(rows: Sequence[TiedRow], k: int | None = None, threshold: float = 1) -> float:
    """Contract: docs/semantics.md#recall_ties."""
    return _expected(lambda r: recall(r, k, threshold), rows)


def dcg_ties(rows: Sequence[TiedRow], k: int | None = None, gain: str = "linear") -> float:
    """Contract: docs/semantics.md#dcg_ties."""
    return _expected(lambda r: dcg(r, k, gain), rows)


def ndcg_ties(
    rows: Sequence[TiedRow], k: int | None = None, gain: str = "linear", ideal: str = "all"
) -> float:
    """Contract: docs/semantics.md#ndcg_ties."""
    return _expected(lambda r: ndcg(r, k, gain, ideal), rows)


def reciprocal_rank_ties(
    rows: Sequence[TiedRow], k: int | None = None, threshold: float = 1
) -> float:
    """Contract: docs/semantics.md#reciprocal_rank_ties."""
    return _expected(lambda r: reciprocal_rank(r, k, threshold), rows)


def average_precision_ties(
    rows: Sequence[TiedRow], k: int | None = None, threshold: float = 1,
    divisor: str = "relevant",
) -> float:
    """Contract: docs/semantics.md#average_precision_ties."""
    return _expected(lambda r: average_precision(r, k, threshold, divisor), rows)


# --- preferences (rows are (jg, jsg, docid, level); ranking: retrieved docids in order) ----

PrefRow = tuple[str, str, str, float]


def _positions(rows: Sequence[PrefRow], ranking: Sequence[str]) -> tuple[dict[str, int], int]:
    """Each judged document's position: the retrieved ones first in rank order, then the
    others by id (bytes); and how many were retrieved."""
    judged = {doc for _, _, doc, _ in rows}
    retrieved = [doc for doc in ranking if doc in judged]
    rest = sorted(judged - set(retrieved), key=_text_order)
    return {doc: i for i, doc in enumerate(retrieved + rest)}, len(retrieved)


def _closure(pairs: set[tuple[str, str]], qid: str, jg: str) -> set[tuple[str, str]]:
    """``pairs`` closed under transitivity (a > b and b > c give a > c); a document
    preferred to itself is an error."""
    below: dict[str, set[str]] = {}
    for a, b in pairs:
        below.setdefault(a, set()).add(b)
    closed = set()
    for a in below:
        seen: set[str] = set()
        todo = list(below[a])
        while todo:
            b = todo.pop()
            if b not in seen:
                seen.add(b)
                todo.extend(below.get(b, ()))
        if a in seen:
            raise InputError(f"prefs: query {qid!r}, judgment group {jg!r}: document {a!r} "
                             "is preferred to itself through other documents")
        closed |= {(a, b) for b in seen}
    return closed


def _group_counts(docs: dict[str, float], prefs: set[tuple[str, str]], ec: bool,
                  pos: dict[str, int], njr: int) -> dict[str, Any]:
    """One judgment group's counts (docs: document -> level; prefs: (better, worse))."""
    ret = {d for d in docs if pos[d] < njr}
    both = [(a, b) for a, b in prefs if a in ret and b in ret]
    one = [(a, b) for a, b in prefs if (a in ret) != (b in ret)]
    c: dict[str, Any] = {"ful_ret": sum(pos[a] < pos[b] for a, b in both), "poss_ret": len(both),
        "ful_imp": sum(a in ret for a, _ in one), "poss_imp": len(one),
        "notoccur": len(prefs) - len(both) - len(one),
        "rel": sum(v > 0 for v in docs.values()), "nonrel": sum(v <= 0 for v in docs.values()),
        "rel_ret": sum(docs[d] > 0 for d in ret), "nonrel_ret": sum(docs[d] <= 0 for d in ret)}
    c["rnonrel"] = _rnonrel(docs, prefs, ec, pos, njr, c, retrieved_only=False)
    c["rnonrel_ret"] = _rnonrel(docs, prefs, ec, pos, njr, c, retrieved_only=True)
    return c


def _rnonrel(docs: dict[str, float], prefs: set[tuple[str, str]], ec: bool,
             pos: dict[str, int], njr: int, c: dict[str, Any], *,
             retrieved_only: bool) -> tuple[int, int]:
    """(fulfilled, possible) of prefs_avgjg_Rnonrel[_ret] for one judgment group, as
    trec_eval counts them (docs/semantics.md#preferences)."""
    if retrieved_only:
        big_r, big_n = c["rel_ret"], c["nonrel_ret"]
        ful, poss = c["ful_ret"], c["poss_ret"]
    else:
        big_r, big_n = c["rel"], c["nonrel"]
        ful = c["ful_ret"] + c["ful_imp"]
        poss = c["poss_ret"] + c["poss_imp"] + c["notoccur"]
    if big_r >= big_n:
        return ful + c["rel_ret"] * (big_r - big_n), poss + c["rel"] * (big_r - big_n)
    kept = sorted((d for d in docs if not retrieved_only or pos[d] < njr), key=pos.__getitem__)
    counted: list[tuple[str, str]]
    if ec:
        lowest = min(docs.values())
        last = [d for d in kept if docs[d] == lowest][:big_r]
        counted = [(a, b) for a in kept for b in kept if docs[a] > docs[b] > lowest]
        counted += [(a, b) for a in kept for b in last]
    else:
        nonrel = [d for d in kept if docs[d] == 0]
        dropped = set(nonrel[c["rel"]:])
        counted = [(a, b) for a, b in prefs if a in kept and b in kept
                   and a not in dropped and b not in dropped]
    fulfilled = sum(pos[a] < pos[b] and pos[a] < njr for a, b in counted)
    return fulfilled, len(counted)


def prefs_counts(qid: str, rows: Sequence[PrefRow], ranking: Sequence[str]
                 ) -> tuple[dict[str, dict[str, Any]], dict[tuple[str, str], int],
                            dict[str, int], int]:
    """One query's judgment-group counts (by group id), the number of groups preferring a
    to b for every (a, b), the positions and the number of judged documents retrieved."""
    pos, njr = _positions(rows, ranking)
    groups: dict[str, list[PrefRow]] = {}
    for row in rows:
        groups.setdefault(row[0], []).append(row)
    counts: dict[str, dict[str, Any]] = {}
    together: dict[tuple[str, str], int] = {}
    for jg, members in groups.items():
        stated = {(a, b) for _, s, a, x in members for _, t, b, y in members if s == t and x > y}
        prefs = _closure(stated, qid, jg)
        docs = {doc: level for _, _, doc, level in members}
        ec = len({jsg for _, jsg, _, _ in members}) == 1
        counts[jg] = _group_counts(docs, prefs, ec, pos, njr)
        for pair in prefs:
            together[pair] = together.get(pair, 0) + 1
    return counts, together, pos, njr


def _ratio(ful: int, poss: int) -> float:
    return ful / poss if poss else math.nan


def prefs_measures(qid: str, rows: Sequence[PrefRow], ranking: Sequence[str]
                   ) -> dict[str, float | int]:
    """Every preference measure of one query: ``rows`` its (jg, jsg, docid, level)
    preference lines, ``ranking`` its retrieved documents in rank order (trec_eval's
    ranking for preferences: score descending, ties by docid ascending, cut at -M)."""
    counts, together, pos, njr = prefs_counts(qid, rows, ranking)
    jgs = [counts[jg] for jg in sorted(counts, key=_text_order)]
    total = {k: sum(c[k] for c in jgs) for k in ("ful_ret", "poss_ret", "ful_imp", "poss_imp",
                                                   "notoccur")}
    ful_all = total["ful_ret"] + total["ful_imp"]
    poss_imp = total["poss_ret"] + total["poss_imp"]
    poss_all = poss_imp + total["notoccur"]

    def simp(ful: int, poss: int) -> float:
        return ful / poss if poss else 0.0

    def avg(ratios: list[float]) -> float:
        s = 0.0
        for r in ratios:  # in judgment-group order, as trec_eval adds them
            s += r
        return s / len(jgs) if s > 0.0 else 0.0  # NaN > 0 is False: a 0/0 group gives 0

    def pair(blocks: tuple[int, ...]) -> float:
        by_pos = sorted(pos, key=pos.__getitem__)
        s, n = 0.0, 0
        for block in blocks:
            for i, a in enumerate(by_pos):
                for b in by_pos[i + 1:]:
                    kind = (pos[a] < njr) + (pos[b] < njr)
                    up, down = together.get((a, b), 0), together.get((b, a), 0)
                    if kind != block or not up + down:
                        continue
                    n += 1
                    if block:
                        s += up / (up + down)
        return s / n if n else 0.0

    def keep(r: float) -> float:
        return 0.0 if math.isnan(r) else r

    return {
        "prefs_num_prefs_poss": poss_all,
        "prefs_num_prefs_ful": ful_all,
        "prefs_num_prefs_ful_ret": total["ful_ret"],
        "prefs_simp": simp(ful_all, poss_all),
        "prefs_pair": pair((2, 1, 0)),
        "prefs_avgjg": avg([keep(_ratio(c["ful_ret"] + c["ful_imp"], c["poss_ret"]
                                        + c["poss_imp"] + c["notoccur"])) for c in jgs]),
        "prefs_avgjg_Rnonrel": avg([_ratio(*c["rnonrel"]) for c in jgs]),
        "prefs_simp_ret": simp(total["ful_ret"], total["poss_ret"]),
        "prefs_pair_ret": pair((2,)),
        "prefs_avgjg_ret": avg([keep(_ratio(c["ful_ret"], c["poss_ret"])) for c in jgs]),
        "prefs_avgjg_Rnonrel_ret": avg([_ratio(*c["rnonrel_ret"]) for c in jgs]),
        "prefs_simp_imp": simp(ful_all, poss_imp),
        "prefs_pair_imp": pair((2, 1)),
        "prefs_avgjg_imp": avg([keep(_ratio(c["ful_ret"] + c["ful_imp"], c["poss_ret"]
                                            + c["poss_imp"])) for c in jgs]),
    }


def prefs_ranking(run: Sequence[tuple[str, float]], depth: int | None = None) -> list[str]:
    """A query's (docid, score) results ranked as trec_eval ranks them for preferences:
    score descending, ties by docid ascending (bytes), the first ``depth`` kept."""
    ranked = sorted(run, key=lambda item: _text_order(item[0]))
    ranked.sort(key=lambda item: item[1] + 0.0, reverse=True)  # stable: ties keep id order
    return [doc for doc, _ in ranked[:depth]]


# --------------------------------------------------------------------------------------
# One metric's value, and judge by sorting in Python
# --------------------------------------------------------------------------------------


def value(metric: Metric, rows: Sequence[tuple[Any, ...]], values: Mapping[str, Any]) -> Any:
    """The oracle's value of ``metric`` over one query's rows."""
    function: Callable[..., Any] = globals()[metric.name]
    args = [values[p.name] for p in metric.required]
    kwargs = {p.name: values[p.name] for p in metric.optional if p.name in values}
    return function(rows, *args, **kwargs)


def _text_order(doc: object) -> bytes:
    """trec_eval's tie-break key: the id as text, compared bytewise."""
    return str(doc).encode("utf-8")


class JudgeSettings(Protocol):
    """What :func:`judged_rows` reads of a ``judge`` call's options (the faces'
    ``JudgeOptions`` has these and more; the oracle imports no face)."""

    @property
    def query(self) -> str: ...
    @property
    def doc(self) -> str: ...
    @property
    def depth(self) -> int | None: ...
    @property
    def ties(self) -> str: ...
    @property
    def judged_only(self) -> bool: ...


def judged_rows(run: list[tuple[Any, Any, float]], qrels: list[tuple[Any, Any, Any]],
                 options: JudgeSettings) -> list[tuple[Any, ...]]:
    """The judged table's rows in its documented order, with the tie columns when asked."""
    for side, pairs in (("run", [(q, d) for q, d, _ in run]),
                        ("qrels", [(q, d) for q, d, _ in qrels])):
        if len(set(pairs)) != len(pairs):
            raise InputError(f"judge: duplicate ({options.query}, {options.doc}) in the {side}")
    grades = {(q, d): g for q, d, g in qrels}
    ranked_rows: list[tuple[Any, ...]] = []
    for qid in sorted({q for q, _, _ in run} & {q for q, _, _ in qrels}):
        # Scores compare exactly in their own type; + 0.0 makes a float -0.0 equal 0.0.
        mine = sorted(((d, s + 0.0 if isinstance(s, float) else s)
                       for q, d, s in run if q == qid),
                      key=lambda item: (item[1], _text_order(item[0])), reverse=True)
        if options.depth is not None:
            mine = mine[: options.depth]
        if options.judged_only:  # -J: only documents graded >= 0 keep a place
            mine = [(d, s) for d, s in mine
                    if grades.get((qid, d)) is not None and grades[(qid, d)] >= 0]
        for position, (doc, score) in enumerate(mine, start=1):
            row: tuple[Any, ...] = (qid, doc, position, grades.get((qid, doc)), score)
            if options.ties == "average":
                tied = [i for i, (_, s) in enumerate(mine, start=1) if s == score]
                row += (tied[0], len(tied))
            ranked_rows.append(row)
    retrieved = {(r[0], r[1]) for r in ranked_rows}
    blank = (None, None) if options.ties == "average" else ()
    unretrieved = sorted((q, d, None, g, None, *blank) for q, d, g in qrels
                         if (q, d) not in retrieved)
    return ranked_rows + unretrieved


def judgment_groups(run: Sequence[tuple[Any, Any, float]],
                    qrels_jg: Sequence[tuple[Any, Any, Any, Any]], depth: int | None = None
                    ) -> dict[Any, dict[Any, list[Row]]]:
    """Contract: docs/semantics.md#judgment-groups. Query -> judgment group -> that group's
    judged rows ``(rel, rank)``: the query's run rows ranked (score descending, docid
    descending as bytes, the top ``depth`` kept), each with the group's grade or None, then
    the group's judged documents the run missed, rank None. Queries without judgments are
    left out; ``run`` holds ``(qid, docid, score)``, ``qrels_jg`` ``(qid, jg, docid, rel)``."""
    out: dict[Any, dict[Any, list[Row]]] = {}
    for qid in sorted({q for q, _, _, _ in qrels_jg}):
        mine = sorted(((d, s + 0.0) for q, d, s in run if q == qid),
                      key=lambda item: (item[1], _text_order(item[0])), reverse=True)
        ranked = [d for d, _ in mine][:depth] if depth is not None else [d for d, _ in mine]
        for jg in sorted({g for q, g, _, _ in qrels_jg if q == qid}, key=_text_order):
            grades = {d: r for q, g, d, r in qrels_jg if q == qid and g == jg}
            rows: list[Row] = [(grades.get(d), i) for i, d in enumerate(ranked, start=1)]
            rows += [(r, None) for d, r in sorted(grades.items()) if d not in ranked]
            out.setdefault(qid, {})[jg] = rows
    return out


def average_over_groups(values: Mapping[Any, float]) -> float:
    """Contract: docs/semantics.md#judgment-groups. The mean of one query's per-group
    values, summed left to right in the byte order of the group ids."""
    total = 0.0
    for jg in sorted(values, key=_text_order):
        total += values[jg]
    return total / len(values)

"""The oracle of the beyond-accuracy metrics: slow, obvious, pure Python, from the contract.

Each function takes one group's rows as tuples ordered like its metric's ``columns``
(``(item, rank)`` for the catalogue metrics, ``(pop, rank)`` ...), as the functions of
:mod:`rankframe.reference` do, which re-exports them for the oracle face. The second half
states in the same plain way how :class:`rankframe.Catalog` derives the item inputs
(popularity, the long tail, similarities, alignments): the tests hold the Catalog's Polars
joins to these. No Polars is imported.

Contract: docs/semantics.md#beyond-accuracy.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

__all__ = ["awrf", "cooccurrence_similarity", "cosine", "coverage", "entropy",
           "feature_similarity", "gini", "history_similarity", "ild_category",
           "ild_features", "ild_pairs", "item_popularity", "long_tail_items", "novelty",
           "pair_similarity", "popularity", "serendipity", "tail_share"]


def _recommended(rank: Any, k: int | None) -> bool:
    return rank is not None and (k is None or rank <= k)


def _log(x: float, log: str) -> float:
    return math.log2(x) if log == "log2" else math.log(x)



def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _required(fn: str, name: str, value: Any) -> Any:
    if value is None:
        raise ValueError(f"{fn}: {name} is required here (rankframe.evaluate fills it from "
                         f"its Catalog)")
    return value


# --- the catalogue: run metrics over (item, rank) rows ------------------------------------


def _item_counts(rows: Iterable[tuple[Any, Any]], k: int | None) -> Counter[Any]:
    return Counter(item for item, rank in rows if item is not None and _recommended(rank, k))


def coverage(rows: Sequence[tuple[Any, Any]], k: int | None = None,
             catalog: int | None = None) -> float:
    """Contract: docs/semantics.md#coverage."""
    size: int = _required("coverage", "catalog", catalog)
    return len(_item_counts(rows, k)) / size


def entropy(rows: Sequence[tuple[Any, Any]], k: int | None = None, log: str = "log2",
            divisor: str = "none") -> float | None:
    """Contract: docs/semantics.md#entropy."""
    counts = _item_counts(rows, k)
    total = sum(counts.values())
    if total == 0:
        return None
    h = -sum(c / total * _log(c / total, log) for c in counts.values())
    return h / len(counts) if divisor == "items" else h


def gini(rows: Sequence[tuple[Any, Any]], k: int | None = None, over: str = "catalog",
         catalog: int | None = None) -> float | None:
    """Contract: docs/semantics.md#gini."""
    counts = sorted(_item_counts(rows, k).values())
    n = _required("gini", "catalog", catalog) if over == "catalog" else len(counts)
    if not counts or n < len(counts):
        return None
    padded = [0] * (n - len(counts)) + counts
    weighted = sum((2 * j - n - 1) * c for j, c in enumerate(padded, start=1))
    return weighted / (n * sum(counts))


# --- popularity: list metrics over (pop, rank) and (tail, rank) rows -------------------------


def novelty(rows: Sequence[tuple[Any, Any]], k: int | None = None, total: int | None = None,
            unseen: str = "zero", log: str = "log2") -> float | None:
    """Contract: docs/semantics.md#novelty."""
    size = _required("novelty", "total", total)
    terms = []
    for pop, rank in rows:
        if not _recommended(rank, k):
            continue
        if pop is None or pop == 0:
            if unseen == "zero":
                terms.append(0.0)
            continue
        terms.append(-_log(pop / size, log))
    return _mean(terms)


def popularity(rows: Sequence[tuple[Any, Any]], k: int | None = None) -> float | None:
    """Contract: docs/semantics.md#popularity."""
    return _mean([float(pop or 0) for pop, rank in rows if _recommended(rank, k)])


def tail_share(rows: Sequence[tuple[Any, Any]], k: int | None = None) -> float | None:
    """Contract: docs/semantics.md#tail_share."""
    flags = [tail is True for tail, rank in rows if _recommended(rank, k)]
    return sum(flags) / len(flags) if flags else None


# --- diversity and serendipity -----------------------------------------------------------


def ild_category(rows: Sequence[tuple[Any, Any]], k: int | None = None) -> float | None:
    """Contract: docs/semantics.md#ild_category."""
    listed = [category for category, rank in rows if _recommended(rank, k)]
    n = len(listed)
    if n < 2:
        return None
    same = sum(1 for i in range(n) for j in range(n)
               if i != j and listed[i] is not None and listed[i] == listed[j])
    return 1 - same / (n * (n - 1))


def cosine(a: Sequence[float] | None, b: Sequence[float] | None) -> float:
    """The cosine of two vectors; 0 where either is missing or all zeros."""
    if a is None or b is None:
        return 0.0
    norm_a = math.sqrt(sum(x * x for x in a))
    norm_b = math.sqrt(sum(x * x for x in b))
    if norm_a == 0 or norm_b == 0:
        return 0.0
    return sum(x * y for x, y in zip(a, b, strict=True)) / (norm_a * norm_b)


def ild_features(rows: Sequence[tuple[Any, Any]], k: int | None = None) -> float | None:
    """Contract: docs/semantics.md#ild_features (here from the pairs, as its definition
    reads: one minus the mean cosine of the list's pairs)."""
    vectors = [features for features, rank in rows if _recommended(rank, k)]
    lengths = {len(v) for v in vectors if v is not None}
    n = len(vectors)
    if n < 2 or len(lengths) > 1:
        return None
    pairs = [cosine(vectors[i], vectors[j]) for i in range(n) for j in range(i + 1, n)]
    return 1 - sum(pairs) / len(pairs)


def ild_pairs(rows: Sequence[tuple[Any, Any]]) -> float | None:
    """Contract: docs/semantics.md#ild_pairs."""
    sums = [float(s or 0.0) for s, rank in rows if rank is not None]
    n = len(sums)
    return 1 - sum(sums) / (n * (n - 1)) if n >= 2 else None


def serendipity(rows: Sequence[tuple[Any, Any, Any]], k: int | None = None,
                threshold: float = 1, relevance: str = "binary") -> float | None:
    """Contract: docs/semantics.md#serendipity."""
    terms = []
    for similarity, rank, rel in rows:
        if not _recommended(rank, k) or similarity is None:
            continue
        relevant = relevance == "ignore" or (rel is not None and rel >= threshold)
        terms.append((1 - similarity) if relevant else 0.0)
    return _mean(terms)


# --- fairness ------------------------------------------------------------------------------


def _normalised(weights: Sequence[float]) -> list[float] | None:
    total = sum(weights)
    return [w / total for w in weights] if total > 0 else None


def awrf(rows: Sequence[tuple[Any, Any, Any]], k: int | None = None) -> float | None:
    """Contract: docs/semantics.md#awrf."""
    known = [(alignment, rank, target) for alignment, rank, target in rows
             if _recommended(rank, k) and alignment is not None]
    targets = [target for _, _, target in rows if target is not None]
    if not known or not targets:
        return None
    size = len(targets[0])
    if any(len(a) != size for a, _, _ in known) or any(len(t) != size for t in targets):
        return None
    attention = [1 / math.log2(max(rank, 2)) for _, rank, _ in known]
    exposure = [sum(w * a[g] for w, (a, _, _) in zip(attention, known, strict=True))
                / sum(attention) for g in range(size)]
    e, t = _normalised(exposure), _normalised(targets[0])
    if e is None or t is None:
        return None
    m = [(x + y) / 2 for x, y in zip(e, t, strict=True)]

    def half(p: list[float]) -> float:
        return sum(x * math.log(x / mid) for x, mid in zip(p, m, strict=True) if x > 0) / 2

    return 1 - (half(e) + half(t))


# --- the Catalog's inputs, stated plainly ----------------------------------------------------

Interactions = Sequence[tuple[Hashable, Hashable]]


def item_popularity(train: Interactions, popularity: str = "interactions"
                    ) -> tuple[dict[Hashable, int], int]:
    """Each training item's popularity and what it is a share of: rows per item and all
    rows (``"interactions"``), or distinct users per item and distinct users (``"users"``)."""
    if popularity == "interactions":
        return dict(Counter(item for _, item in train)), len(train)
    pairs = set(train)
    return dict(Counter(item for _, item in pairs)), len({user for user, _ in pairs})


def long_tail_items(pop: Mapping[Hashable, int], long_tail: float) -> set[Hashable]:
    """The long tail of the training items: a share in (0, 1] of them, the least popular
    first, then by item id; or, for ``long_tail`` > 1, the items of popularity <= it."""
    if long_tail > 1:
        return {item for item, count in pop.items() if count <= long_tail}
    ordered = sorted(pop.items(), key=lambda pair: (pair[1], pair[0]))
    cut = max(int(len(ordered) * long_tail), 1)
    return {item for item, _ in ordered[:cut]}


def _users_of(train: Interactions) -> dict[Hashable, set[Hashable]]:
    users: dict[Hashable, set[Hashable]] = {}
    for user, item in train:
        users.setdefault(item, set()).add(user)
    return users


def cooccurrence_similarity(train: Interactions) -> dict[tuple[Hashable, Hashable], float]:
    """The co-occurrence cosine |U_i ∩ U_j| / sqrt(|U_i| |U_j|) of every pair of training
    items that share a user (either order); absent pairs have similarity 0."""
    users = _users_of(train)
    out: dict[tuple[Hashable, Hashable], float] = {}
    for i, u_i in users.items():
        for j, u_j in users.items():
            shared = len(u_i & u_j)
            if shared:
                out[i, j] = shared / math.sqrt(len(u_i) * len(u_j))
    return out


def feature_similarity(features: Mapping[Hashable, Sequence[float] | None]
                       ) -> dict[tuple[Hashable, Hashable], float]:
    """The cosine of the feature vectors of every pair of items (either order)."""
    return {(i, j): cosine(a, b) for i, a in features.items() for j, b in features.items()}


def pair_similarity(items: Sequence[Hashable],
                    similarity: Mapping[tuple[Hashable, Hashable], float]) -> list[float]:
    """For each item of a list, the sum of its similarities to the list's other items."""
    return [sum(similarity.get((items[i], items[j]), 0.0) for j in range(len(items)) if j != i)
            for i in range(len(items))]


def history_similarity(item: Hashable, history: Iterable[Hashable],
                       similarity: Mapping[tuple[Hashable, Hashable], float]) -> float | None:
    """The mean similarity of ``item`` to the user's distinct training items; None for a
    user with none."""
    seen = set(history)
    if not seen:
        return None
    return sum(similarity.get((item, j), 0.0) for j in seen) / len(seen)

"""Judged long tables for ``benchmarks/headline.py``: ``qid, rank, rel``, seeded, made with
NumPy and Polars in a few vectorised steps (no Python loop over rows or queries).

Each shape is ``queries x depth`` retrieved rows (ranks 1..depth) plus rows of
judged-but-unretrieved documents (rank NULL). The chance that a retrieved row is relevant
falls with its rank (as ``rank ** -0.5``) and varies by query (a Gamma(2, 0.5) factor;
a share of the queries has no relevant row at all, so they score 0); the relevant rows
take the shape's grades. The other retrieved rows are judged 0 or unjudged (rel NULL).

- ``trec``: 10,000 x 1,000, about 4% of the rows with rel > 0, grades 1..3, about 30
  judged unretrieved rows per query (three in ten relevant);
- ``deep``: 1,000 x 10,000, about 0.4% with rel > 0, otherwise as ``trec``;
- ``log``: 1,000,000 x 10, a recommender log: about 15% with rel = 1, the rest 0
  (binary, no NULL), a few unretrieved rows (0.3 per query, half of them relevant);
- ``trec-small``, ``log-small``: 2,000 x 1,000 and 200,000 x 10, as ``trec`` and ``log``.

Orders: ``sorted`` (by qid, then rank, each query's unretrieved rows after its retrieved
ones) and ``shuffled`` (every row in a seeded random order, as logs arrive). Columns are
Int64 (``qid`` may be made a string, as ``rankframe.judge`` gives it); no column carries
Polars' sorted flag. ``--scale`` multiplies the number of queries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

ORDERS = ("sorted", "shuffled")


@dataclass(frozen=True)
class Shape:
    """A workload's shape: counts and the chances that make its grades."""

    queries: int
    depth: int
    positive: float  # the share of retrieved rows with rel > 0 (about)
    grades: tuple[tuple[int, float], ...]  # grade of a relevant row -> its chance
    judged_zero: float  # chance that a non-relevant retrieved row is judged 0 (else NULL)
    unretrieved: float  # judged-but-unretrieved rows per query (mean of a Poisson)
    unretrieved_positive: float  # chance that such a row is relevant
    no_relevant: float  # share of the queries with no relevant row


_TREC = Shape(10_000, 1_000, 0.04, ((1, 0.5), (2, 0.3), (3, 0.2)), 0.1, 30.0, 0.3, 0.02)
_LOG = Shape(1_000_000, 10, 0.15, ((1, 1.0),), 1.0, 0.3, 0.5, 0.0)

SHAPES: dict[str, Shape] = {
    "trec": _TREC,
    "deep": Shape(1_000, 10_000, 0.004, _TREC.grades, 0.1, 30.0, 0.3, 0.02),
    "log": _LOG,
    "trec-small": Shape(2_000, 1_000, _TREC.positive, _TREC.grades, 0.1, 30.0, 0.3, 0.02),
    "log-small": Shape(200_000, 10, _LOG.positive, _LOG.grades, 1.0, 0.3, 0.5, 0.0),
}


def workload_names(shapes: list[str] | None = None) -> list[str]:
    """``shape-order`` names, every order of each shape (all shapes when None)."""
    return [f"{s}-{o}" for s in (shapes or list(SHAPES)) for o in ORDERS]


def split_name(name: str) -> tuple[str, str]:
    """``"trec-small-shuffled"`` -> ``("trec-small", "shuffled")``; a ValueError naming the
    problem for anything else."""
    shape, _, order = name.rpartition("-")
    if shape not in SHAPES or order not in ORDERS:
        raise ValueError(f"unknown workload {name!r}: a shape ({', '.join(SHAPES)}) and an "
                         f"order ({', '.join(ORDERS)}), e.g. trec-sorted")
    return shape, order


def queries_at(shape: Shape, scale: float) -> int:
    """The number of queries of ``shape`` at ``scale`` (at least one)."""
    return max(1, round(shape.queries * scale))


def make(shape: Shape, scale: float = 1.0, seed: int = 0) -> pl.DataFrame:
    """The ``sorted`` table of ``shape``: qid, rank, rel (Int64; rank and rel with NULLs)."""
    rng = np.random.default_rng(seed)
    nq, depth = queries_at(shape, scale), shape.depth
    factor = rng.gamma(2.0, 0.5, nq)
    factor[rng.random(nq) < shape.no_relevant] = 0.0
    weight = np.arange(1, depth + 1, dtype=np.float64) ** -0.5
    base = shape.positive * depth / weight.sum()
    chance = np.minimum(1.0, np.outer(factor, base * weight)).ravel()
    is_relevant = rng.random(nq * depth) < chance
    grades = np.array([g for g, _ in shape.grades], dtype=np.int64)
    odds = np.array([p for _, p in shape.grades])
    rel = np.where(is_relevant, rng.choice(grades, size=nq * depth, p=odds), 0)
    judged = is_relevant | (rng.random(nq * depth) < shape.judged_zero)

    extra = rng.poisson(shape.unretrieved, nq)
    extra_qid = np.repeat(np.arange(nq, dtype=np.int64), extra)
    extra_relevant = ((rng.random(extra_qid.size) < shape.unretrieved_positive)
                      & (factor[extra_qid] > 0))
    extra_rel = np.where(extra_relevant, rng.choice(grades, size=extra_qid.size, p=odds), 0)

    # Rows in rank order: query q's block starts after the blocks before it; its retrieved
    # rows come first, ranks ascending, then its unretrieved ones.
    start = np.arange(nq, dtype=np.int64) * depth + np.concatenate(([0], np.cumsum(extra)[:-1]))
    total = nq * depth + extra_qid.size
    at_retrieved = np.repeat(start, depth) + np.tile(np.arange(depth, dtype=np.int64), nq)
    first_extra = np.concatenate(([0], np.cumsum(extra)[:-1]))
    nth_extra = np.arange(extra_qid.size, dtype=np.int64) - np.repeat(first_extra, extra)
    at_extra = start[extra_qid] + depth + nth_extra
    qid = np.empty(total, dtype=np.int64)
    rank = np.zeros(total, dtype=np.int64)  # 0: not retrieved (NULL below)
    grade = np.empty(total, dtype=np.int64)
    has_grade = np.ones(total, dtype=bool)
    qid[at_retrieved] = np.repeat(np.arange(nq, dtype=np.int64), depth)
    rank[at_retrieved] = np.tile(np.arange(1, depth + 1, dtype=np.int64), nq)
    grade[at_retrieved] = rel
    has_grade[at_retrieved] = judged
    qid[at_extra], grade[at_extra] = extra_qid, extra_rel
    return pl.DataFrame({
        "qid": pl.Series(qid),
        "rank": _nulls_where(rank, rank == 0),
        "rel": _nulls_where(grade, ~has_grade),
    })


def _nulls_where(values: np.ndarray, missing: np.ndarray) -> pl.Series:
    """An Int64 Series of ``values`` with NULL where ``missing``."""
    series = pl.Series(values)
    return series.scatter(np.flatnonzero(missing), None) if missing.any() else series


def shuffled(table: pl.DataFrame, seed: int = 0) -> pl.DataFrame:
    """``table``'s rows in a seeded random order."""
    order = np.random.default_rng(seed + 1).permutation(table.height)
    return table[order]


def load(name: str, *, scale: float = 1.0, seed: int = 0, qid: str = "int") -> pl.DataFrame:
    """The workload ``name`` (``shape-order``) at ``scale``; ``qid="str"``: string query
    ids."""
    shape_name, order = split_name(name)
    table = make(SHAPES[shape_name], scale, seed)
    if order == "shuffled":
        table = shuffled(table, seed)
    if qid == "str":
        table = table.with_columns(pl.col("qid").cast(pl.String))
    return table

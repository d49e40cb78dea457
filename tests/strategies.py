"""Hypothesis strategies for judged long tables and metric parameters.

A generated table has many queries; each query mixes retrieved rows (unique ranks,
sometimes with gaps), judged-but-unretrieved rows (rank NULL), unjudged rows (rel NULL),
pooled-unjudged rows (negative grades) and grades up to 4 (occasionally fractional).
Queries with nothing retrieved, nothing relevant or a single row are all likely.
"""

from __future__ import annotations

from typing import Any

import polars as pl
from hypothesis import strategies as st

from rankframe.registry import Metric, Param

GRADES = st.one_of(
    st.none(),
    st.sampled_from([-1, 0, 0, 0, 1, 1, 2, 3, 4]),
    st.sampled_from([0.5, 1.5, 2.5]),
)
JUDGED_GRADES = st.sampled_from([-2, -1, 0, 0, 1, 1, 2, 3, 4])


@st.composite
def query_rows(draw: st.DrawFn) -> list[tuple[float | None, int | None]]:
    """One query's (rel, rank) rows."""
    n_retrieved = draw(st.integers(0, 25))
    gappy = draw(st.booleans()) and n_retrieved > 0
    if gappy:
        ranks = sorted(draw(st.sets(st.integers(1, 3 * n_retrieved), min_size=n_retrieved,
                                    max_size=n_retrieved)))
    else:
        ranks = list(range(1, n_retrieved + 1))
    rows: list[tuple[float | None, int | None]] = [(draw(GRADES), r) for r in ranks]
    n_unretrieved = draw(st.integers(0, 8))
    rows += [(draw(JUDGED_GRADES), None) for _ in range(n_unretrieved)]
    if not rows:
        rows = [(draw(JUDGED_GRADES), None)]
    return draw(st.permutations(rows))


@st.composite
def judged_tables(draw: st.DrawFn, max_queries: int = 8) -> pl.DataFrame:
    """A judged long table with columns qid (str), rel (f64), rank (i64)."""
    queries = draw(st.lists(query_rows(), min_size=1, max_size=max_queries))
    qid: list[str] = []
    rel: list[float | None] = []
    rank: list[int | None] = []
    for i, rows in enumerate(queries):
        for g, r in rows:
            qid.append(f"q{i}")
            rel.append(None if g is None else float(g))
            rank.append(r)
    return pl.DataFrame(
        {"qid": qid, "rel": rel, "rank": rank},
        schema={"qid": pl.String, "rel": pl.Float64, "rank": pl.Int64},
    )


def param_values(param: Param) -> st.SearchStrategy[Any]:
    """Values a parameter can take in generated cases."""
    if param.kind == "cutoff":
        return st.one_of(st.none(), st.integers(1, 40))
    if param.kind == "threshold":
        return st.sampled_from([1, 1, 2, 3, 0.5, 2.5])
    if param.kind == "recall_level":
        return st.sampled_from([0.0, 0.1, 0.2, 0.25, 0.3, 0.5, 0.7, 0.9, 1.0])
    if param.kind == "choice":
        return st.sampled_from(param.choices)
    raise AssertionError(f"no strategy for parameter kind {param.kind!r}")


@st.composite
def metric_params(draw: st.DrawFn, metric: Metric) -> dict[str, Any]:
    """Parameter values for ``metric``; optional ones are sometimes left to their default."""
    values: dict[str, Any] = {}
    for param in metric.params:
        if param.required or draw(st.booleans()):
            values[param.name] = draw(param_values(param))
    return values

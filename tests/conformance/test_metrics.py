"""Every face computes every metric it implements as the oracle does.

One hypothesis loop per (face, metric family): each example draws a table of the family's
shape (ties, gaps, NULL ranks, unjudged and negative grades, empty queries: see
:mod:`tests.support.strategies`), one or two parameter sets for every metric of the family,
and evaluates them all in one call of the face; each value is then compared with the
oracle's, query by query: the very double and its printed bytes where the face declares the
metric exact (``Face.exact``, ``Face.inexact_values``: docs/semantics.md#exactness), else
within 1e-9. The in-process engines are also reached the ways users reach them (a
LazyFrame on the streaming engine, the guarded builders in an eager ``group_by``, the
guarded macros in SQL), and tables come both as generated and sorted by query and rank.

A face joins this suite by being registered in ``rankframe.faces``; a metric by being
registered in ``rankframe.registry`` with its family.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankframe import faces
from rankframe.faces.base import Face, supports
from rankframe.measures import Measure
from rankframe.registry import METRICS, Metric
from tests.conftest import ParityLog
from tests.support.faces import (
    disagreements,
    evaluate,
    evaluate_builders,
    evaluate_macros,
    examples,
    measure,
    tables_per_example,
)
from tests.support.strategies import metric_params, stacked, tables_for

FAMILIES: dict[str, list[Metric]] = {}
for _metric in METRICS.values():
    FAMILIES.setdefault(_metric.family, []).append(_metric)

Results = dict[str, dict[Any, Any]]
#: The ways a face is reached: the face's own ``evaluate`` for every face, and for the
#: engines what users also write.
Route = Callable[[Face, pl.DataFrame, Sequence[Measure], duckdb.DuckDBPyConnection], Results]
ROUTES: dict[str, dict[str, Route]] = {
    "polars": {
        "evaluate": lambda face, t, ms, con: evaluate(face, t, ms),
        "evaluate a LazyFrame": lambda face, t, ms, con: evaluate(face, t.lazy(), ms),
        "builders in group_by": lambda face, t, ms, con: evaluate_builders(t, ms),
    },
    "duckdb": {
        "evaluate": lambda face, t, ms, con: evaluate(face, t, ms),
        "macros in SQL": lambda face, t, ms, con: evaluate_macros(con, t, ms),
    },
}
DEFAULT_ROUTES: dict[str, Route] = {"evaluate": lambda face, t, ms, con: evaluate(face, t, ms)}


def spark_typed_ansi(face: Face, table: pl.DataFrame, measures: Sequence[Measure],
                     con: duckdb.DuckDBPyConnection) -> Results:
    """Spark with its own column types (whole grades as long, ranks as int) under ANSI mode,
    where an overflow or a bad cast is an error instead of NULL."""
    from pyspark.sql import SparkSession

    casts = [pl.col(c).cast(pl.Int32) for c in ("rank", "tie_first", "tie_size")
             if c in table.columns]
    if "rel" in table.columns:
        grades = table["rel"].drop_nulls()
        if bool((grades == grades.floor()).all()):
            casts.append(pl.col("rel").cast(pl.Int64))
    conf = SparkSession.builder.getOrCreate().conf
    conf.set("spark.sql.ansi.enabled", "true")
    try:
        return evaluate(face, table.with_columns(casts), measures)
    finally:
        conf.unset("spark.sql.ansi.enabled")


ROUTES["spark"] = {"evaluate": DEFAULT_ROUTES["evaluate"],
                   "own column types, ANSI mode": spark_typed_ansi}


def routes(face: Face) -> dict[str, Route]:
    return ROUTES.get(face.name, DEFAULT_ROUTES)


@st.composite
def family_measures(draw: st.DrawFn, metrics: Sequence[Metric], most: int) -> list[Measure]:
    """One to ``most`` parameter sets for each metric, as measures labelled m0, m1, ..."""
    drawn: list[Measure] = []
    for metric in metrics:
        for _ in range(draw(st.integers(1, most))):
            drawn.append(measure(metric, draw(metric_params(metric)), f"m{len(drawn)}"))
    return drawn


def in_rank_order(judged: pl.DataFrame) -> pl.DataFrame:
    """The table sorted by query, then by the first ordering column of its shape."""
    order = next(c for c in ("rank", "tie_first", "rank_a", "x") if c in judged.columns)
    return judged.sort("qid", order, nulls_last=True, maintain_order=True)


def check_against_oracle(face: Face, judged: pl.DataFrame, measures: Sequence[Measure],
                         got: Results, log: ParityLog, how: str) -> None:
    want = evaluate(faces.get("oracle"), judged, measures)
    faults: list[str] = []
    for m in measures:
        found, worst = disagreements(face, m, got[m.label], want[m.label])
        faults += found
        log.record(f"{face.name}:{m.metric.name}", len(want[m.label]), worst)
    assert not faults, f"{face.name} ({how}) disagrees with the oracle:\n" + "\n".join(
        faults[:12]) + f"\n{judged}"


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_face_agrees_with_the_oracle(family: str, checked_face: Face, parity_log: ParityLog,
                                     con: duckdb.DuckDBPyConnection) -> None:
    metrics = [m for m in FAMILIES[family] if supports(checked_face, m)]
    if not metrics:
        pytest.skip(f"{checked_face.name} implements no metric of the {family} family")
    ways = routes(checked_face)

    most = tables_per_example(checked_face)  # fewer examples, more tables each

    @settings(max_examples=examples(checked_face, share=1.5))
    @given(judged=st.lists(tables_for(metrics[0]), min_size=1, max_size=most).map(stacked),
           measures=family_measures(metrics, 3 if checked_face.role == "cluster" else 2),
           how=st.sampled_from(sorted(ways)), sort=st.booleans())
    def check(judged: pl.DataFrame, measures: list[Measure], how: str, sort: bool) -> None:
        table = in_rank_order(judged) if sort else judged
        got = ways[how](checked_face, table, measures, con)
        check_against_oracle(checked_face, table, measures, got, parity_log, how)

    check()


def long_queries(seed: int) -> pl.DataFrame:
    """Six queries of 5 to 700 rows with mixed grades: long enough for a parallel or blocked
    float sum to add in another order than one at a time."""
    draw = random.Random(seed)
    rows: list[tuple[str, float | None, int | None]] = []
    for q in range(6):
        for rank in range(1, draw.choice([5, 40, 200, 700]) + 1):
            rel = draw.choice([0.0, 0.0, 1.0, 2.0, 3.0, 0.5, None, -1.0])
            rows.append((f"q{q}", rel, rank))
        rows += [(f"q{q}", draw.choice([0.0, 1.0, 4.0]), None) for _ in range(draw.randint(0, 9))]
    return pl.DataFrame(rows, schema={"qid": pl.String, "rel": pl.Float64, "rank": pl.Int64},
                        orient="row")


def default_values(metric: Metric) -> dict[str, Any]:
    """Defaults, a cutoff of 100, recall level 0.3 and a weight (R-multiple) of 1.5 where a
    parameter is required."""
    required = {"cutoff": 100, "recall_level": 0.3, "weight": 1.5}
    return {p.name: required[p.kind] if p.required else p.default for p in metric.params}


def test_long_queries_alone_and_together(checked_face: Face, parity_log: ParityLog) -> None:
    """Long queries, together and each alone, give the oracle's values (a query's value does
    not depend on the other queries of its table: Polars' blocked ``sum`` once gave dcg
    34.47935712924701 alone, ...006 in a table)."""
    metrics = [m for m in METRICS.values() if m.columns == ("rel", "rank")
               and supports(checked_face, m)]
    measures = [measure(m, default_values(m), f"m{i}") for i, m in enumerate(metrics)]
    table = long_queries(1)
    parts = [table, *(table.filter(pl.col("qid") == q) for q in ("q0", "q3"))]
    if checked_face.role == "cluster":
        parts = parts[:1]  # one job: what a cluster face adds is checked by the loops above
    for part in parts:
        got = evaluate(checked_face, part, measures)
        check_against_oracle(checked_face, part, measures, got, parity_log, "long queries")

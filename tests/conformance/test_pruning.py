"""Pruning: a metric that claims to read only rows with rel > 0 (``Metric.positive_rows``)
must give every query the same value, whichever of its other rows are dropped, on the
oracle and on every engine (those ``evaluate`` prunes for). ``evaluate`` relies on the
claim to drop those rows before grouping. One loop per (face, family), each example every
prunable measure of the family in one call."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import rankframe as rf
from rankframe import faces
from rankframe.faces.base import Face
from rankframe.faces.polars.face import expression
from rankframe.measures import Measure, parse_all
from rankframe.registry import METRICS, Metric
from tests.conftest import skip_unless_runnable
from tests.support.faces import evaluate, examples, measure, tables_per_example
from tests.support.strategies import metric_params, stacked, tables_for

PRUNABLE = [m for m in METRICS.values() if m.positive_rows.__name__ != "_never"]
FAMILIES = sorted({m.family for m in PRUNABLE})


def pruned(judged: pl.DataFrame, drop: list[bool]) -> pl.DataFrame:
    """``judged`` without the rows flagged in ``drop`` that have rel NULL or <= 0, except
    that each query keeps its first row."""
    positive = (pl.col("rel") > 0).fill_null(False)
    first = pl.col("qid").is_first_distinct()
    droppable = pl.Series(drop, dtype=pl.Boolean)
    return judged.filter(positive | first | droppable.not_())


def changed_values(face: Face, measures: list[Measure], judged: pl.DataFrame,
                   drop: list[bool]) -> list[str]:
    """The measures and queries whose value changes when the rows are pruned."""
    before = evaluate(face, judged, measures)
    after = evaluate(face, pruned(judged, drop), measures)
    changed = []
    for m in measures:
        assert set(before[m.label]) == set(after[m.label])
        changed += [f"{face.name}:{m.metric.name}{dict(m.values)}:{q}"
                    for q, value in before[m.label].items()
                    if abs(value - after[m.label][q]) > 1e-12]
    return changed


@st.composite
def prunable_measures(draw: st.DrawFn, metrics: list[Metric]) -> list[Measure]:
    """For each metric, parameter values under which it claims to read positive rows only
    (none where the drawn values make no such claim), and at least one measure: each of
    these metrics claims it for some values."""
    drawn: list[Measure] = []
    for metric in metrics:
        for _ in range(2):
            values: dict[str, Any] = draw(metric_params(metric))
            if metric.reads_positive_rows_only(values):
                drawn.append(measure(metric, values, f"m{len(drawn)}"))
    for _ in range(20):
        if drawn:
            break
        metric = draw(st.sampled_from(metrics))
        values = draw(metric_params(metric))
        if metric.reads_positive_rows_only(values):
            drawn.append(measure(metric, values, "m0"))
    assume(drawn)  # not reached in practice; hypothesis counts it (filter_too_much)
    return drawn


def test_the_registry_declares_prunable_metrics() -> None:
    names = {m.name for m in PRUNABLE}
    assert {"ndcg", "average_precision", "reciprocal_rank", "precision", "recall"} <= names
    assert not {"num_ret", "bpref", "judged", "rbp_residual"} & names
    assert not METRICS["precision"].reads_positive_rows_only({"k": None})
    assert not METRICS["precision"].reads_positive_rows_only({"k": 5, "divisor": "min"})
    assert METRICS["precision"].reads_positive_rows_only({"k": 5})


#: The claims are the contract's: checked in full on the oracle, and on each engine (whose
#: values the conformance kit holds to the oracle's) with a share of the examples.
SHARE = {"oracle": 1.0, **{name: 0.3 for name in faces.ENGINES}}


@pytest.fixture(params=list(SHARE))
def pruning_face(request: pytest.FixtureRequest) -> Face:
    """The oracle and the engines ``evaluate`` prunes for."""
    skip_unless_runnable(request.config, request.param)
    return faces.get(request.param)


@pytest.mark.parametrize("family", FAMILIES)
def test_declared_metrics_ignore_other_rows(family: str, pruning_face: Face) -> None:
    metrics = [m for m in PRUNABLE if m.family == family]
    face = pruning_face

    tables = st.lists(tables_for(metrics[0]), min_size=1,
                      max_size=tables_per_example(face, tables=1)).map(stacked)

    @settings(max_examples=examples(face, share=SHARE[face.name]))
    @given(judged=tables, measures=prunable_measures(metrics), data=st.data())
    def check(judged: pl.DataFrame, measures: list[Measure], data: st.DataObject) -> None:
        assert measures
        drop = data.draw(st.lists(st.booleans(), min_size=judged.height,
                                  max_size=judged.height))
        assert changed_values(face, measures, judged, drop) == []

    check()


def test_the_check_catches_a_metric_that_reads_other_rows() -> None:
    """The property above can fail: num_ret and bpref do change when rows are dropped."""
    judged = pl.DataFrame({"qid": ["a"] * 4, "rel": [1.0, 0.0, None, 0.0],
                           "rank": [1, 2, 3, None]})
    drop = [False, True, True, True]
    polars = faces.get("polars")
    assert changed_values(polars, [measure(METRICS["num_ret"], {"k": None})], judged, drop)
    bpref_case = judged.with_columns(rank=pl.Series([2, 1, 3, None]))
    assert changed_values(polars, [measure(METRICS["bpref"], {})], bpref_case, drop)


@given(judged=tables_for(METRICS["ndcg"]), engine=st.sampled_from(faces.ENGINES),
       layout=st.sampled_from(["as generated", "by query", "ranked first"]),
       lazy=st.booleans())
def test_evaluate_prunes_without_changing_numbers(judged: pl.DataFrame, engine: str,
                                                  layout: str, lazy: bool) -> None:
    """evaluate() with prunable measures only equals each metric grouped on the full table,
    whatever the row order (the kept first row of each block of equal query ids)."""
    if layout == "by query":
        judged = judged.sort("qid", "rank", nulls_last=True)
    elif layout == "ranked first":
        judged = judged.sort(pl.col("rank").is_null(), "qid", "rank")
    labels = ["ndcg@10", "map", "mrr", "P@5", "recall@20", "Rprec", "num_rel_ret"]
    assert all(m.metric.reads_positive_rows_only(m.values) for m in parse_all(labels))
    table = judged.lazy() if lazy else judged
    out = rf.evaluate(table, labels, engine=engine)  # type: ignore[arg-type]
    exprs = [expression(m.metric, {"rel": "rel", "rank": "rank"}, m.values).alias(m.label)
             for m in parse_all(labels)]
    full = judged.group_by("qid").agg(exprs).sort("qid")
    assert out["qid"].to_list() == full["qid"].to_list()
    for label in labels:
        for got, want in zip(out[label], full[label], strict=True):
            assert abs(got - want) <= 1e-12, (label, got, want)

"""Pruning: a metric that claims to read only rows with rel > 0 (``Metric.positive_rows``)
must give every query the same value, on every engine face (those ``evaluate`` prunes
for), whichever of its other rows are dropped. ``evaluate`` relies on the claim to drop
those rows before grouping."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import rankframe as rf
from rankframe import faces
from rankframe.faces.polars import expression
from rankframe.measures import parse_all
from rankframe.metrics.registry import METRICS, Metric
from tests.faces import per_query
from tests.strategies import metric_params, tables_for

PRUNABLE = sorted(name for name, m in METRICS.items() if m.positive_rows.__name__ != "_never")


def pruned(judged: pl.DataFrame, drop: list[bool]) -> pl.DataFrame:
    """``judged`` without the rows flagged in ``drop`` that have rel NULL or <= 0, except
    that each query keeps its first row."""
    positive = (pl.col("rel") > 0).fill_null(False)
    first = pl.col("qid").is_first_distinct()
    droppable = pl.Series(drop, dtype=pl.Boolean)
    return judged.filter(positive | first | droppable.not_())


def disagreement(metric: Metric, judged: pl.DataFrame, values: dict[str, object],
                 drop: list[bool]) -> list[str]:
    """Queries (and engine face) whose value changes when the rows are pruned."""
    smaller = pruned(judged, drop)
    changed = []
    for name in faces.ENGINES:
        face = faces.get(name)
        before = per_query(face, metric, judged, values)
        after = per_query(face, metric, smaller, values)
        assert set(before) == set(after)
        changed += [f"{name}:{q}" for q in before if abs(before[q] - after[q]) > 1e-12]
    return changed


def test_the_registry_declares_prunable_metrics() -> None:
    assert {"ndcg", "average_precision", "reciprocal_rank", "precision", "recall"} <= set(
        PRUNABLE)
    assert not {"num_ret", "bpref", "judged", "rbp_residual"} & set(PRUNABLE)
    assert not METRICS["precision"].reads_positive_rows_only({"k": None})
    assert not METRICS["precision"].reads_positive_rows_only({"k": 5, "divisor": "min"})
    assert METRICS["precision"].reads_positive_rows_only({"k": 5})


@pytest.mark.parametrize("name", PRUNABLE)
def test_declared_metrics_ignore_other_rows(name: str) -> None:
    metric = METRICS[name]

    @given(judged=tables_for(metric), values=metric_params(metric), data=st.data())
    def check(judged: pl.DataFrame, values: dict[str, object], data: st.DataObject) -> None:
        assume(metric.reads_positive_rows_only(values))
        drop = data.draw(st.lists(st.booleans(), min_size=judged.height,
                                  max_size=judged.height))
        assert disagreement(metric, judged, values, drop) == []

    check()


def test_the_check_catches_a_metric_that_reads_other_rows() -> None:
    """The property above can fail: num_ret and bpref do change when rows are dropped."""
    judged = pl.DataFrame({"qid": ["a"] * 4, "rel": [1.0, 0.0, None, 0.0],
                           "rank": [1, 2, 3, None]})
    drop = [False, True, True, True]
    assert disagreement(METRICS["num_ret"], judged, {"k": None}, drop)
    bpref_case = judged.with_columns(rank=pl.Series([2, 1, 3, None]))
    assert disagreement(METRICS["bpref"], bpref_case, {}, drop)


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

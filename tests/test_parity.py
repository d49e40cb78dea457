"""Parity: every registered face agrees with the oracle face to 1e-9, query by query, on
generated tables, for every registered metric the face implements. The table strategy
follows the columns the metric reads (``Metric.columns``). A face joins this suite by
being registered in ``rankframe.faces``."""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankframe.faces.base import Face, supports
from rankframe.faces.polars import expression
from rankframe.metrics.registry import METRICS, Metric
from tests.faces import COLUMNS, examples, per_query, reference_face
from tests.strategies import metric_params, tables_for

TOLERANCE = 1e-9


def assert_agrees(metric: Metric, judged: pl.DataFrame, values: dict[str, object],
                  face: str, result: dict[object, object], oracle: dict[object, object]
                  ) -> float:
    """``result`` has one value per query of ``judged``, each within TOLERANCE of the
    oracle's; returns the largest difference."""
    assert set(result) == set(oracle), f"{face} returned other queries than the table"
    worst = 0.0
    for qid, value in result.items():
        if metric.is_string:  # relstring: the same text, character for character
            assert value == oracle[qid], f"{metric.name}{values} on {qid}: {face}={value!r}"
            continue
        assert isinstance(value, (int, float)), f"{metric.name}{values}: {face} gave {value!r}"
        assert math.isfinite(value), f"{metric.name}{values}: {face} gave {value} for {qid}"
        expected = oracle[qid]
        assert isinstance(expected, (int, float))
        diff = abs(value - expected)
        worst = max(worst, diff)
        assert diff <= TOLERANCE, (
            f"{metric.name}{values} on {qid}: {face}={value!r} oracle={expected!r}\n"
            f"{judged.filter(pl.col('qid') == qid).sort(metric.columns[-1], nulls_last=True)}"
        )
    if metric.is_count:
        assert all(isinstance(v, int) for v in result.values()), f"{face}: counts are int"
    return worst


@pytest.mark.parametrize("name", sorted(METRICS))
def test_face_agrees_with_the_oracle(name: str, checked_face: Face, parity_log) -> None:  # type: ignore[no-untyped-def]
    metric = METRICS[name]
    if not supports(checked_face, metric):
        pytest.skip(f"{checked_face.name} has no {name}: {checked_face.unsupported[name]}")

    @settings(max_examples=examples(checked_face, settings().max_examples))
    @given(judged=tables_for(metric), values=metric_params(metric))
    def check(judged: pl.DataFrame, values: dict[str, object]) -> None:
        oracle = reference_face(metric, judged, values)
        result = per_query(checked_face, metric, judged, values)
        worst = assert_agrees(metric, judged, values, checked_face.name, result, oracle)
        parity_log.record(f"{checked_face.name}:{name}", judged["qid"].n_unique(), worst)

    check()


@pytest.mark.parametrize("name", sorted(METRICS))
def test_polars_expressions_on_every_engine(name: str) -> None:
    """The Polars face collects a DataFrame on the in-memory engine and a LazyFrame on the
    streaming one; users also call the expressions in an eager ``group_by().agg()``: the
    same numbers on all three."""
    metric = METRICS[name]
    engines = st.sampled_from(["eager", "in-memory", "streaming"])

    @given(judged=tables_for(metric), values=metric_params(metric), engine=engines)
    def check(judged: pl.DataFrame, values: dict[str, object], engine: str) -> None:
        expr = expression(metric, COLUMNS, values).alias("value")
        out = (judged.group_by("qid").agg(expr) if engine == "eager"
               else judged.lazy().group_by("qid").agg(expr).collect(engine=engine))
        result = dict(zip(out["qid"].to_list(), out["value"].to_list(), strict=True))
        assert_agrees(metric, judged, values, f"polars {engine}", result,
                      reference_face(metric, judged, values))

    check()


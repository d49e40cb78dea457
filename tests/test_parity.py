"""Parity: the Polars expression, the DuckDB macro and the reference oracle of every
registered metric agree to 1e-9 on generated tables, query by query. The table strategy
follows the columns the metric reads (``Metric.columns``)."""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rankframe.metrics.registry import METRICS, Metric
from tests.faces import duckdb_face, polars_face, reference_face
from tests.strategies import metric_params, tables_for

TOLERANCE = 1e-9


def assert_faces_agree(metric: Metric, judged: pl.DataFrame, values: dict[str, object],
                       faces: dict[str, dict[str, float]]) -> float:
    """Every face returns one value per query of ``judged``, all within TOLERANCE."""
    expected_queries = set(judged["qid"].unique().to_list())
    oracle = faces["reference"]
    worst = 0.0
    for face, result in faces.items():
        assert set(result) == expected_queries, f"{face} returned other queries than the table"
        for qid, value in result.items():
            assert value is not None, f"{metric.name}{values}: {face} gave NULL for {qid}"
            assert math.isfinite(value), f"{metric.name}{values}: {face} gave {value} for {qid}"
            diff = abs(value - oracle[qid])
            worst = max(worst, diff)
            assert diff <= TOLERANCE, (
                f"{metric.name}{values} on {qid}: {face}={value!r} reference={oracle[qid]!r}\n"
                f"{judged.filter(pl.col('qid') == qid).sort(metric.columns[-1], nulls_last=True)}"
            )
    return worst


@pytest.mark.parametrize("name", sorted(METRICS))
def test_faces_agree(name: str, con, parity_log) -> None:  # type: ignore[no-untyped-def]
    metric = METRICS[name]

    @given(judged=tables_for(metric), values=metric_params(metric), lazy=st.booleans())
    def check(judged: pl.DataFrame, values: dict[str, object], lazy: bool) -> None:
        faces = {
            "reference": reference_face(metric, judged, values),
            "polars": polars_face(metric, judged, values, lazy=lazy),
            "duckdb": duckdb_face(metric, judged, values, con),
        }
        worst = assert_faces_agree(metric, judged, values, faces)
        if metric.is_count:
            for face in ("polars", "duckdb"):
                assert all(isinstance(v, int) for v in faces[face].values()), face
        parity_log.record(name, judged["qid"].n_unique(), worst)

    check()

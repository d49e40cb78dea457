"""Bad parameters are refused when an expression is built or a macro is called, with a
message naming the function, the argument and what is allowed."""

from __future__ import annotations

from typing import Any

import duckdb
import pytest

from rankframe.metrics.registry import METRICS, Metric, Param
from tests.faces import COLUMNS

BAD_VALUES: dict[str, list[Any]] = {
    "cutoff": [0, -3, 2.5],
    "threshold": [0, -1],
    "recall_level": [-0.1, 1.5],
    "choice": ["nonsense"],
    "persistence": [0, 1, 1.5],
    "grade": [0, -2],
    "penalty": [-0.5, 1.5],
    "weight": [0, -2],
}
PYTHON_ONLY_BAD: dict[str, list[Any]] = {
    "cutoff": ["10", True],
    "threshold": [float("nan"), "1"],
    "flag": ["yes", 1],
}


def good_values(metric: Metric) -> dict[str, Any]:
    defaults = {"cutoff": 10, "threshold": 1, "recall_level": 0.5, "persistence": 0.8}
    return {p.name: p.default if not p.required else defaults[p.kind] for p in metric.params}


def sample_table(metric: Metric) -> str:
    """Three rows over the metric's own columns, for calling its macro."""
    names = [COLUMNS[c] for c in metric.columns]
    rows = ", ".join("(" + ", ".join([v] * len(names)) + ")" for v in ("1", "2", "NULL"))
    return f"(VALUES {rows}) t({', '.join(names)})"


def bad_cases(table: dict[str, list[Any]]) -> list[tuple[str, Param, Any]]:
    return [
        (name, param, value)
        for name, metric in sorted(METRICS.items())
        for param in metric.params
        for value in table.get(param.kind, [])
    ]


def case_id(case: tuple[str, Param, Any]) -> str:
    return f"{case[0]}-{case[1].name}={case[2]!r}"


@pytest.mark.parametrize("case", bad_cases(BAD_VALUES) + bad_cases(PYTHON_ONLY_BAD), ids=case_id)
def test_polars_face_refuses(case: tuple[str, Param, Any]) -> None:
    name, param, value = case
    metric = METRICS[name]
    values = good_values(metric) | {param.name: value}
    with pytest.raises((TypeError, ValueError)) as err:
        metric.polars_expr(COLUMNS, values)
    message = str(err.value)
    assert message.startswith(f"{name}: {param.name} "), message
    assert repr(value) in message or str(value) in message, message


@pytest.mark.parametrize("case", bad_cases(BAD_VALUES), ids=case_id)
def test_sql_face_refuses(case: tuple[str, Param, Any], con: duckdb.DuckDBPyConnection) -> None:
    name, param, value = case
    metric = METRICS[name]
    values = good_values(metric) | {param.name: value}
    sql = f"SELECT {metric.sql_call(COLUMNS, values)} FROM {sample_table(metric)}"
    with pytest.raises(duckdb.Error) as err:
        con.sql(sql).fetchall()
    message = str(err.value)
    assert f"{metric.macro}: {param.name} " in message, message


@pytest.mark.parametrize("name", sorted(METRICS))
def test_valid_parameters_are_accepted(name: str, con: duckdb.DuckDBPyConnection) -> None:
    metric = METRICS[name]
    values = good_values(metric)
    metric.polars_expr(COLUMNS, values)
    con.sql(f"SELECT {metric.sql_call(COLUMNS, values)} FROM {sample_table(metric)}").fetchall()

"""Bad parameters are refused when an expression is built, a macro is called or a measure
string is parsed, with a message naming the function, the argument, the value and what is
allowed. Driven by the declarations: every registered parameter, by its kind, through
every face that has builders or macros (Polars, Spark, DuckDB) and ``measures.parse``."""

from __future__ import annotations

import math
import os
import shutil
from types import ModuleType
from typing import Any, get_args

import duckdb
import numpy as np
import polars as pl
import pytest

import rankframe as rf
from rankframe import validation
from rankframe.errors import MeasureError
from rankframe.faces import duckdb as duckdb_face
from rankframe.faces import polars as polars_face
from rankframe.measures import measure_names, parse
from rankframe.metrics.registry import METRICS, Metric, Param, ParamKind
from tests.faces import COLUMNS

#: Bad values of each kind that every face refuses (SQL has a literal for each).
BAD_VALUES: dict[str, list[Any]] = {
    "cutoff": [0, -3, 2.5],
    "threshold": [0, -1],
    "recall_level": [-0.1, 1.5],
    "choice": ["nonsense"],
    "persistence": [0, 1, 1.5],
    "grade": [0, -2],
    "penalty": [-0.5, 1.5],
    "weight": [0, -2],
    "count": [-1, 2.5],
    "gains": [{-1: 3}, {1.5: 2}],
}
#: Bad values that only the Python faces can be given (wrong types, NaN, infinity).
PYTHON_ONLY_BAD: dict[str, list[Any]] = {
    "cutoff": ["10", True, np.float64(3.0)],
    "threshold": [float("nan"), float("inf"), "1"],
    "recall_level": [float("nan"), "0.5"],
    "choice": [1, None],
    "persistence": ["0.5", float("nan")],
    "grade": [float("inf")],
    "penalty": [None],
    "weight": [float("nan")],
    "flag": ["yes", 1, None],
    "coefficient": [float("nan"), float("inf"), "1", None],
    "gains": [{1: float("nan")}, {0.5: 1.0}, {-1: 2.0}, "1:2", [(1, 3)], {True: 2}],
}
GOOD_VALUES = {"cutoff": 10, "threshold": 1, "recall_level": 0.5, "persistence": 0.8,
               "weight": 0.5}
#: Parameters a measure string sets after '@' (``rbp@0.8``, ``iprec@0.5``), not in (...).
AFTER_AT = {"p", "recall", "multiple"}


def good_values(metric: Metric) -> dict[str, Any]:
    return {p.name: GOOD_VALUES[p.kind] if p.required else p.default for p in metric.params}


def sample_table(metric: Metric) -> str:
    """Three rows over the metric's own columns, for calling its macro."""
    names = [COLUMNS[c] for c in metric.columns]
    rows = ", ".join("(" + ", ".join([v] * len(names)) + ")" for v in ("1", "2", "NULL"))
    return f"(VALUES {rows}) t({', '.join(names)})"


def bad_cases(*tables: dict[str, list[Any]]) -> list[tuple[str, Param, Any]]:
    return [
        (name, param, value)
        for name, metric in sorted(METRICS.items())
        for param in metric.params
        for table in tables
        for value in table.get(param.kind, [])
    ]


def case_id(case: tuple[str, Param, Any]) -> str:
    return f"{case[0]}-{case[1].name}={case[2]!r}"


ALL_BAD = bad_cases(BAD_VALUES, PYTHON_ONLY_BAD)


def refusal(call: Any) -> BaseException:
    """The TypeError or ValueError that ``call()`` raises."""
    with pytest.raises((TypeError, ValueError)) as err:
        call()
    return err.value


def polars_call(metric: Metric, values: dict[str, Any]) -> pl.Expr:
    args, kwargs = metric.arguments(COLUMNS, values)
    return polars_face.builder(metric)(*args, **kwargs)


def declared_refusal(name: str, values: dict[str, Any]) -> BaseException:
    """What the single entry point, ``Metric.validate``, raises for these values."""
    return refusal(lambda: METRICS[name].validate(values))


def spark_module() -> ModuleType:
    """The Spark face's module; the test is skipped without PySpark or Java."""
    pytest.importorskip("pyspark", reason="PySpark is not installed (rankframe[spark])")
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        pytest.skip("no Java runtime for Spark (no java on PATH, JAVA_HOME unset)")
    from rankframe.faces import spark

    return spark


# --------------------------------------------------------------------------------------
# The declarations: one rule per kind, one entry point
# --------------------------------------------------------------------------------------


def test_every_kind_has_a_rule_and_bad_values() -> None:
    kinds = set(get_args(ParamKind))
    assert kinds == set(validation.RULES) | {"choice"}
    used = {p.kind for metric in METRICS.values() for p in metric.params}
    assert used <= set(BAD_VALUES) | set(PYTHON_ONLY_BAD)


@pytest.mark.parametrize("case", ALL_BAD, ids=case_id)
def test_validate_names_function_argument_and_value(case: tuple[str, Param, Any]) -> None:
    name, param, value = case
    message = str(declared_refusal(name, good_values(METRICS[name]) | {param.name: value}))
    assert message.startswith(f"{name}: {param.name} must "), message
    assert repr(value) in message, message


@pytest.mark.parametrize("name", sorted(METRICS))
def test_validate_fills_defaults_and_refuses_unknown_or_missing(name: str) -> None:
    metric = METRICS[name]
    required = {p.name: GOOD_VALUES[p.kind] for p in metric.required}
    checked = metric.validate(required)
    assert list(checked) == [p.name for p in metric.params]
    for p in metric.optional:
        assert checked[p.name] == p.default
    with pytest.raises(TypeError, match=f"^{name}: unexpected argument 'nonsense'"):
        metric.validate(required | {"nonsense": 1})
    for p in metric.required:
        with pytest.raises(TypeError, match=f"^{name}: missing required argument '{p.name}'"):
            metric.validate({n: v for n, v in required.items() if n != p.name})


def test_numpy_integers_are_cutoffs() -> None:
    assert METRICS["ndcg"].validate({"k": np.int64(5)})["k"] == 5
    assert type(METRICS["ndcg"].validate({"k": np.int32(5)})["k"]) is int
    assert type(METRICS["rbo"].validate({"depth": np.int64(3)})["depth"]) is int
    frame = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "rel": [3, 2, 3, 0, 1]})
    got = frame.select(rf.ndcg("rel", np.int64(3)), rf.precision("rel", k=np.uint8(2)))
    assert got.columns == ["ndcg@3", "P@2"]
    assert got.row(0) == frame.select(rf.ndcg("rel", 3), rf.precision("rel", k=2)).row(0)


# --------------------------------------------------------------------------------------
# Every face refuses through the declarations
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(METRICS))
def test_every_builder_is_validated(name: str) -> None:
    """Each Polars builder checks through ``Metric.validate`` (``validation.validated``)."""
    assert hasattr(polars_face.builder(METRICS[name]), "__wrapped__")


@pytest.mark.parametrize("case", ALL_BAD, ids=case_id)
def test_polars_face_refuses(case: tuple[str, Param, Any]) -> None:
    name, param, value = case
    metric = METRICS[name]
    values = good_values(metric) | {param.name: value}
    error = refusal(lambda: polars_call(metric, values))
    expected = declared_refusal(name, values)
    assert (type(error), str(error)) == (type(expected), str(expected))


@pytest.mark.parametrize("case", ALL_BAD, ids=case_id)
def test_spark_face_refuses_like_the_polars_face(case: tuple[str, Param, Any]) -> None:
    spark = spark_module()
    name, param, value = case
    if name in spark.FACE.unsupported:
        pytest.skip(f"no Spark builder: {spark.FACE.unsupported[name]}")
    metric = METRICS[name]
    values = good_values(metric) | {param.name: value}
    args, kwargs = metric.arguments(COLUMNS, values)
    builder = getattr(spark, name)
    assert hasattr(builder, "__wrapped__")
    error = refusal(lambda: builder(*args, **kwargs))  # refused before any Spark call
    expected = declared_refusal(name, values)
    assert (type(error), str(error)) == (type(expected), str(expected))


@pytest.mark.parametrize("case", bad_cases(BAD_VALUES), ids=case_id)
def test_sql_face_refuses(case: tuple[str, Param, Any], con: duckdb.DuckDBPyConnection) -> None:
    name, param, value = case
    metric = METRICS[name]
    values = good_values(metric) | {param.name: value}
    sql = f"SELECT {duckdb_face.call(metric, COLUMNS, values)} FROM {sample_table(metric)}"
    with pytest.raises(duckdb.Error) as err:
        con.sql(sql).fetchall()
    message = str(err.value)
    assert f"{metric.macro}: {param.name} " in message, message


def measure_text(value: Any) -> str:
    """A parameter value as written in a measure string."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def parse_cases() -> list[tuple[str, Param, Any]]:
    """Bad values a measure string can spell, for metrics with a measure of their own name
    (the cutoff k is refused by the grammar first, see test_measures)."""
    named = set(measure_names())
    return [
        case for case in ALL_BAD
        if case[0] in named and case[1].name != "k" and not isinstance(case[2], np.generic)
        and (isinstance(case[2], (int, float)) or
             (isinstance(case[2], str) and case[2].isidentifier()))
    ]


@pytest.mark.parametrize("case", parse_cases(), ids=case_id)
def test_measure_strings_refuse_with_the_same_message(case: tuple[str, Param, Any]) -> None:
    name, param, value = case
    metric = METRICS[name]
    text = measure_text(value)
    if param.name in AFTER_AT:
        label, given = f"{name}@{text}", float(value)
    else:
        at = [measure_text(GOOD_VALUES[p.kind]) for p in metric.required if p.name in AFTER_AT]
        label = f"{name}({param.name}={text})" + "".join(f"@{a}" for a in at)
        given = value
    with pytest.raises(MeasureError) as err:
        parse(label)
    expected = declared_refusal(name, good_values(metric) | {param.name: given})
    assert str(err.value) == f"measure {label!r}: {expected}"
    assert str(expected).startswith(f"{name}: {param.name} must ")
    if isinstance(given, float) and math.isnan(given):
        return
    assert repr(given) in str(expected)


# --------------------------------------------------------------------------------------
# Valid values pass everywhere
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(METRICS))
def test_valid_parameters_are_accepted(name: str, con: duckdb.DuckDBPyConnection) -> None:
    metric = METRICS[name]
    values = good_values(metric)
    assert metric.validate(values) == values
    polars_call(metric, values)
    sql = f"SELECT {duckdb_face.call(metric, COLUMNS, values)} FROM {sample_table(metric)}"
    con.sql(sql).fetchall()

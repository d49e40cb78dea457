"""Bad parameters are refused when an expression is built, a macro is called or a measure
string is parsed, with a message naming the function, the argument, the value and what is
allowed. Driven by the declarations: the full matrix of bad values (every registered
parameter, every bad value of its kind) runs once, on ``Metric.validate``, the single
entry point; then every face is shown to refuse through it, with one bad value per
parameter of every metric (Polars and Spark builders, DuckDB macros, measure strings).
"""

from __future__ import annotations

import math
from typing import Any, get_args

import duckdb
import numpy as np
import polars as pl
import pytest

import rankframe as rf
from rankframe import validation
from rankframe.errors import MeasureError
from rankframe.faces import duckdb as duckdb_face
from rankframe.faces.polars import face as polars_face
from rankframe.measures import measure_names, parse
from rankframe.registry import METRICS, Metric, Param, ParamKind
from tests.support.faces import COLUMNS

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
    "size": [0, -1, 2.5],
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
    "size": ["10", True],
    "gains": [{1: float("nan")}, {0.5: 1.0}, {-1: 2.0}, "1:2", [(1, 3)], {True: 2}],
}
GOOD_VALUES = {"cutoff": 10, "threshold": 1, "recall_level": 0.5, "persistence": 0.8,
               "weight": 0.5, "size": 10}
#: Kinds whose default (None) a builder or macro cannot run with (a catalogue's size, a
#: total: rankframe.evaluate fills them); given a good value where the others keep theirs.
FILLED_KINDS = {"size"}
#: Parameters a measure string sets after '@' (``rbp@0.8``, ``iprec@0.5``), not in (...).
AFTER_AT = {"p", "recall", "multiple"}

Case = tuple[str, Param, Any]


def good_values(metric: Metric) -> dict[str, Any]:
    return {p.name: GOOD_VALUES[p.kind] if p.required or p.kind in FILLED_KINDS else p.default
            for p in metric.params}


def bad_cases(*tables: dict[str, list[Any]], first_only: bool = False) -> list[Case]:
    """(metric, parameter, bad value) for every parameter of every metric: every bad value
    of its kind in ``tables``, or only the first one found."""
    cases = []
    for name, metric in sorted(METRICS.items()):
        for param in metric.params:
            values = [v for table in tables for v in table.get(param.kind, [])]
            cases += [(name, param, v) for v in values[:1 if first_only else None]]
    return cases


def case_id(case: Case) -> str:
    return f"{case[0]}-{case[1].name}={case[2]!r}"


def refusal(call: Any) -> BaseException:
    """The TypeError or ValueError that ``call()`` raises."""
    with pytest.raises((TypeError, ValueError)) as err:
        call()
    return err.value


def declared_refusal(name: str, values: dict[str, Any]) -> BaseException:
    """What the single entry point, ``Metric.validate``, raises for these values."""
    return refusal(lambda: METRICS[name].validate(values))


def sample_table(metric: Metric) -> str:
    """Three rows over the metric's own columns, for calling its macro."""
    names = [COLUMNS[c] for c in metric.columns]
    vectors = {"features", "alignment", "target"}  # lists of numbers
    rows = ", ".join("(" + ", ".join(f"[{v}.0]" if v != "NULL" and c in vectors else v
                                     for c in metric.columns) + ")"
                     for v in ("1", "2", "NULL"))
    return f"(VALUES {rows}) t({', '.join(names)})"


# --------------------------------------------------------------------------------------
# The declarations: one rule per kind, one entry point, the full matrix
# --------------------------------------------------------------------------------------


def test_every_kind_has_a_rule_and_bad_values() -> None:
    kinds = set(get_args(ParamKind))
    assert kinds == set(validation.RULES) | {"choice"}
    used = {p.kind for metric in METRICS.values() for p in metric.params}
    assert used <= set(BAD_VALUES) | set(PYTHON_ONLY_BAD)


@pytest.mark.parametrize("name", sorted(METRICS))
def test_validate_names_function_argument_and_value(name: str) -> None:
    """Every bad value of every parameter's kind, refused by ``Metric.validate``."""
    metric = METRICS[name]
    for _, param, value in bad_cases(BAD_VALUES, PYTHON_ONLY_BAD):
        if param not in metric.params:
            continue
        message = str(declared_refusal(name, good_values(metric) | {param.name: value}))
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
# Every face refuses through the declarations: one bad value per parameter of each metric
# --------------------------------------------------------------------------------------


def builders_refuse(module: Any, unsupported: Any) -> None:
    """Each builder of ``module`` is decorated (``validated``) and refuses one bad value of
    each parameter (a Python-only one where the kind has one) exactly as ``Metric.validate``
    does, before any engine is called."""
    wrong = []
    for name, param, value in bad_cases(PYTHON_ONLY_BAD, BAD_VALUES, first_only=True):
        if name in unsupported:
            continue
        metric = METRICS[name]
        values = good_values(metric) | {param.name: value}
        builder = getattr(module, name)
        assert hasattr(builder, "__wrapped__"), f"{module.__name__}.{name} is not validated"
        args, kwargs = metric.arguments(COLUMNS, values)
        error = refusal(lambda b=builder, a=args, k=kwargs: b(*a, **k))
        expected = declared_refusal(name, values)
        if (type(error), str(error)) != (type(expected), str(expected)):
            wrong.append(f"{name}({param.name}={value!r}): {error!r}, not {expected!r}")
    assert not wrong, "\n".join(wrong)


def test_polars_builders_refuse() -> None:
    builders_refuse(rf, {})


@pytest.mark.face("spark")
def test_spark_builders_refuse() -> None:
    from rankframe.faces import spark

    builders_refuse(spark, spark.FACE.unsupported)


def test_sql_macros_refuse(con: duckdb.DuckDBPyConnection) -> None:
    """Each macro refuses one bad value of each parameter, naming macro and argument."""
    wrong = []
    for name, param, value in bad_cases(BAD_VALUES, first_only=True):
        metric = METRICS[name]
        values = good_values(metric) | {param.name: value}
        sql = f"SELECT {duckdb_face.call(metric, COLUMNS, values)} FROM {sample_table(metric)}"
        try:
            con.sql(sql).fetchall()
        except duckdb.Error as exc:
            if f"{metric.macro}: {param.name} " not in str(exc):
                wrong.append(f"{sql}: {exc}")
        else:
            wrong.append(f"{sql}: accepted")
    assert not wrong, "\n".join(wrong)


def measure_text(value: Any) -> str:
    """A parameter value as written in a measure string."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def parse_cases() -> list[Case]:
    """Bad values a measure string can spell, for metrics with a measure of their own name
    (the cutoff k is refused by the grammar first, see test_measures)."""
    named = set(measure_names())
    return [
        case for case in bad_cases(BAD_VALUES, PYTHON_ONLY_BAD)
        if case[0] in named and case[1].name != "k" and not isinstance(case[2], np.generic)
        and (isinstance(case[2], (int, float)) or
             (isinstance(case[2], str) and case[2].isidentifier()))
    ]


def test_measure_strings_refuse_with_the_same_message() -> None:
    for name, param, value in parse_cases():
        metric = METRICS[name]
        text = measure_text(value)
        if param.name in AFTER_AT:
            label, given = f"{name}@{text}", float(value)
        else:
            at = [measure_text(GOOD_VALUES[p.kind]) for p in metric.required
                  if p.name in AFTER_AT]
            label = f"{name}({param.name}={text})" + "".join(f"@{a}" for a in at)
            given = value
        with pytest.raises(MeasureError) as err:
            parse(label)
        expected = declared_refusal(name, good_values(metric) | {param.name: given})
        assert str(err.value) == f"measure {label!r}: {expected}"
        assert str(expected).startswith(f"{name}: {param.name} must ")
        if not (isinstance(given, float) and math.isnan(given)):
            assert repr(given) in str(expected)


# --------------------------------------------------------------------------------------
# Valid values pass everywhere
# --------------------------------------------------------------------------------------


def test_valid_parameters_are_accepted(con: duckdb.DuckDBPyConnection) -> None:
    for metric in METRICS.values():
        values = good_values(metric)
        assert metric.validate(values) == values
        args, kwargs = metric.arguments(COLUMNS, values)
        polars_face.builder(metric)(*args, **kwargs)
        sql = f"SELECT {duckdb_face.call(metric, COLUMNS, values)} FROM {sample_table(metric)}"
        con.sql(sql).fetchall()

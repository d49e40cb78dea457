"""Every face on groups at the edge of the contract (docs/semantics.md#input-checks), beside
valid ones: a guard or a dtype's limit is as much a promise as a formula.

Each example draws a generated table and adds one more query of a drawn kind:

- *invalid* (a rank repeated, 0 or negative; NaN, infinite or not whole in a float rank
  column; a NaN or infinite grade): the Polars builders and ``rf.evaluate_expr`` give that
  query NULL and every other query the oracle's value; ``rf.evaluate`` raises
  ``InputError`` on every engine; the DuckDB macros raise an error naming the macro;
- *valid at a limit* (a rank at its integer dtype's largest value; a rank column with no
  value at all, dtype Null): every face gives the oracle's values, on every route.

The cluster faces (Spark, Ibis) have no rank check of their own (their ``evaluate`` is given
checked tables): they take the valid kinds only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import given, settings

from rankframe import faces
from rankframe.errors import InputError
from rankframe.faces.base import Face, supports
from rankframe.faces.polars.face import builder, expression
from rankframe.faces.polars.many import measures_expr
from rankframe.measures import Measure
from rankframe.registry import METRICS, Metric
from rankframe.table.checks import check_judged
from tests.support.faces import (
    COLUMNS,
    disagreements,
    evaluate,
    evaluate_macros,
    examples,
    measure,
)
from tests.support.strategies import judged_tables

#: The metrics that read a rank column, with their defaults (required ones set).
RANKED: list[Metric] = [m for m in METRICS.values() if m.columns == ("rel", "rank")]
_REQUIRED = {"k": 10, "recall": 0.5, "multiple": 1.5}

INVALID = ("repeated rank", "rank 0", "negative rank", "NaN rank", "infinite rank",
           "rank 1.5", "NaN grade", "infinite grade")
#: A dtype and its largest value.
LIMITS: dict[str, tuple[pl.DataType, int]] = {
    "UInt8": (pl.UInt8(), 255), "Int8": (pl.Int8(), 127), "Int16": (pl.Int16(), 2**15 - 1),
    "UInt16": (pl.UInt16(), 2**16 - 1), "Int32": (pl.Int32(), 2**31 - 1),
    "UInt32": (pl.UInt32(), 2**32 - 1), "Int64": (pl.Int64(), 2**63 - 1),
}
VALID = (*(f"rank at the {name} limit" for name in LIMITS), "no rank at all")


def measures_for(face: Face) -> list[Measure]:
    """One measure of every ranked metric ``face`` has, labelled m0, m1 ..."""
    chosen = [m for m in RANKED if supports(face, m)]
    return [measure(m, m.validate({p.name: _REQUIRED[p.name] for p in m.required}),
                    f"m{i}") for i, m in enumerate(chosen)]


def with_query(table: pl.DataFrame, kind: str) -> pl.DataFrame:
    """``table`` and a query ``bad`` of ``kind`` (its rows and, for some kinds, the table's
    column types changed)."""
    rows: list[tuple[float | None, float | int | None]] = [(1.0, 1), (2.0, 2), (0.0, 3)]
    rank_dtype: pl.DataType = pl.Int64()
    if kind == "repeated rank":
        rows[2] = (0.0, 2)
    elif kind == "rank 0":
        rows[0] = (1.0, 0)
    elif kind == "negative rank":
        rows[0] = (1.0, -40000)
    elif kind in ("NaN rank", "infinite rank", "rank 1.5"):
        rank_dtype = pl.Float64()
        rows[1] = (2.0, {"NaN rank": math.nan, "infinite rank": math.inf}.get(kind, 1.5))
    elif kind in ("NaN grade", "infinite grade"):
        rows[1] = (math.nan if kind == "NaN grade" else -math.inf, 2)
    elif kind.startswith("rank at the"):
        rank_dtype, top = LIMITS[kind.split()[3]]
        rows = [(1.0, 1), (0.0, top - 1), (2.0, top)]
    bad = pl.DataFrame({"qid": ["bad"] * len(rows), "rel": [g for g, _ in rows],
                        "rank": [r for _, r in rows]},
                       schema={"qid": pl.String, "rel": pl.Float64, "rank": rank_dtype})
    out = pl.concat([table.with_columns(pl.col("rank").cast(rank_dtype)), bad])
    if kind == "no rank at all":
        out = out.with_columns(rank=pl.lit(None))
    return out


def oracle_values(table: pl.DataFrame, measures: Sequence[Measure]) -> dict[str, dict[Any, Any]]:
    return evaluate(faces.get("oracle"), table.with_columns(pl.col("rank").cast(pl.Int64)),
                    measures)


def assert_oracle(face: Face, got: dict[str, dict[Any, Any]], want: dict[str, dict[Any, Any]],
                  measures: Sequence[Measure], how: str) -> None:
    faults = [f for m in measures for f in disagreements(face, m, got[m.label],
                                                          want[m.label])[0]]
    assert not faults, f"{face.name} ({how}):\n" + "\n".join(faults[:12])


def grouped(table: pl.DataFrame, exprs: list[pl.Expr], measures: Sequence[Measure]
            ) -> dict[str, dict[Any, Any]]:
    result = table.group_by("qid").agg(exprs)
    if "measures" in result.columns:
        result = result.unnest("measures")
    keys = result["qid"].to_list()
    return {m.label: dict(zip(keys, result[m.label].to_list(), strict=True)) for m in measures}


def builders(table: pl.DataFrame, measures: Sequence[Measure]) -> dict[str, dict[Any, Any]]:
    return grouped(table, [expression(m.metric, COLUMNS, m.values).alias(m.label)
                           for m in measures], measures)


def shared(table: pl.DataFrame, measures: Sequence[Measure]) -> dict[str, dict[Any, Any]]:
    return grouped(table, [measures_expr(measures)], measures)


@pytest.mark.parametrize("kind", INVALID)
def test_an_invalid_group_is_null_or_refused(kind: str, engine_face: Face,
                                             con: duckdb.DuckDBPyConnection) -> None:
    measures = measures_for(engine_face)

    @settings(max_examples=examples(engine_face, share=0.1), deadline=None)
    @given(table=judged_tables(max_queries=3))
    def check(table: pl.DataFrame) -> None:
        full = with_query(table, kind)
        with pytest.raises(InputError):  # rf.evaluate's check, on every engine
            check_judged(full)
        if engine_face.name == "duckdb":  # the macros: an error naming the macro
            with pytest.raises(duckdb.Error, match=r"rf_\w+: "):
                evaluate_macros(con, full, measures)
        else:
            want = oracle_values(table.filter(pl.col("qid") != "bad"), measures)
            for how, route in (("builders", builders), ("evaluate_expr", shared)):
                got = route(full, measures)
                assert all(got[m.label].pop("bad") is None for m in measures), (how, kind)
                assert_oracle(engine_face, got, want, measures, how)

    check()


@pytest.mark.parametrize("kind", VALID)
def test_a_group_at_a_limit_gets_the_oracles_values(kind: str, checked_face: Face,
                                                    con: duckdb.DuckDBPyConnection) -> None:
    measures = measures_for(checked_face)

    @settings(max_examples=examples(checked_face, share=0.05), deadline=None)
    @given(table=judged_tables(max_queries=3))
    def check(table: pl.DataFrame) -> None:
        full = with_query(table, kind)
        want = oracle_values(full, measures)
        assert_oracle(checked_face, evaluate(checked_face, full, measures), want, measures,
                      "evaluate")
        if checked_face.name == "polars":
            assert_oracle(checked_face, builders(full, measures), want, measures, "builders")
            assert_oracle(checked_face, shared(full, measures), want, measures,
                          "evaluate_expr")

    check()


def test_a_rank_per_group_is_refused() -> None:
    table = pl.DataFrame({"qid": ["a", "a"], "rank": [1, 2], "rel": [1.0, 0.0]})
    for m in RANKED:
        values = m.validate({p.name: _REQUIRED[p.name] for p in m.required})
        args, kwargs = m.arguments({"rel": "rel", "rank": "rank"}, values)
        kwargs["rank"] = pl.col("rank").first()
        with pytest.raises(InputError, match="one value per group"):
            table.group_by("qid").agg(builder(m)(*args, **kwargs))

"""Run one registered metric through each face over a judged table; results keyed by qid."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb
import polars as pl

from rankframe.metrics.registry import METRICS, Metric

# Every data column a registered metric reads, under its own name (rel, rank first).
COLUMNS = {"rel": "rel", "rank": "rank",
           **{c: c for metric in METRICS.values() for c in metric.columns}}


def columns_of(metric: Metric) -> dict[str, str]:
    """Each column the metric reads, under its own name (the generated tables use them)."""
    return {c: COLUMNS[c] for c in metric.columns}


def polars_face(metric: Metric, judged: pl.DataFrame, values: Mapping[str, Any],
                *, lazy: bool = False) -> dict[str, float]:
    expr = metric.polars_expr(columns_of(metric), values).alias("value")
    if lazy:
        out = judged.lazy().group_by("qid").agg(expr).collect(engine="streaming")
    else:
        out = judged.group_by("qid").agg(expr)
    return dict(zip(out["qid"].to_list(), out["value"].to_list(), strict=True))


def duckdb_face(metric: Metric, judged: pl.DataFrame, values: Mapping[str, Any],
                con: duckdb.DuckDBPyConnection) -> dict[str, float]:
    con.register("judged", judged)
    try:
        call = metric.sql_call(columns_of(metric), values)
        rows = con.sql(f"SELECT qid, {call} AS value FROM judged GROUP BY qid").fetchall()
    finally:
        con.unregister("judged")
    return dict(rows)


def reference_face(metric: Metric, judged: pl.DataFrame,
                   values: Mapping[str, Any]) -> dict[str, float]:
    out: dict[str, float] = {}
    for (qid,), group in judged.group_by("qid"):
        rows = list(zip(*(group[c].to_list() for c in metric.columns), strict=True))
        out[str(qid)] = metric.reference_value(rows, values)
    return out

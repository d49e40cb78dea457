"""Run registered metrics through any registered face over a judged Polars table; results
keyed by query id. Every face is reached through the protocol of ``rankframe.faces``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from rankframe import faces
from rankframe.faces.base import Face
from rankframe.measures import Measure
from rankframe.metrics.registry import METRICS, Metric

# Every data column a registered metric reads, under its own name (rel, rank first).
COLUMNS = {"rel": "rel", "rank": "rank",
           **{c: c for metric in METRICS.values() for c in metric.columns}}

#: Generated examples per test for each face, as a share of the hypothesis profile's
#: budget: a Spark job costs about a second here whatever its size; an Ibis evaluation
#: 20-100 ms, mostly building and compiling the expression (the SQL is the same for the
#: SQL engines, so their shares together cover the formulas several times over).
EXAMPLE_SHARE = {"spark": 0.04, "ibis-duckdb": 0.3, "ibis-sqlite": 0.2,
                 "ibis-datafusion": 0.15, "ibis-postgres": 0.25, "ibis-polars": 0.5}


def examples(face: Face, budget: int) -> int:
    """The number of generated examples a test gives ``face`` out of ``budget``."""
    return max(3, int(budget * EXAMPLE_SHARE.get(face.name, 1.0)))


def measure(metric: Metric, values: Mapping[str, Any], label: str = "value") -> Measure:
    """A parsed measure for one metric and its parameter values, labelled ``label``."""
    summary = "sum" if metric.aggregate == "sum" else "mean"
    return Measure(label, metric, dict(values), summary)


def per_query(face: Face, metric: Metric, judged: pl.DataFrame, values: Mapping[str, Any],
              *, native: Any = None) -> dict[Any, Any]:
    """``metric`` with ``values`` through ``face``: {query id: value}. ``native`` is the
    table in the face's own type (made from ``judged`` when not given)."""
    table = face.native(judged) if native is None else native
    result = face.to_polars(face.evaluate(table, [measure(metric, values)], ["qid"], COLUMNS))
    return dict(zip(result["qid"].to_list(), result["value"].to_list(), strict=True))


def polars_face(metric: Metric, judged: pl.DataFrame, values: Mapping[str, Any]
                ) -> dict[Any, Any]:
    return per_query(faces.get("polars"), metric, judged, values)


def duckdb_face(metric: Metric, judged: pl.DataFrame, values: Mapping[str, Any],
                con: Any = None) -> dict[Any, Any]:
    face = faces.get("duckdb")
    result = face.evaluate(judged, [measure(metric, values)], ["qid"], COLUMNS,
                           connection=con)
    return dict(zip(result["qid"].to_list(), result["value"].to_list(), strict=True))


def reference_face(metric: Metric, judged: pl.DataFrame, values: Mapping[str, Any]
                   ) -> dict[Any, Any]:
    return per_query(faces.get("oracle"), metric, judged, values)

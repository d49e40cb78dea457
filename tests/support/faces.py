"""Run registered metrics through any registered face over a judged Polars table; results
keyed by query id. Every face is reached through the protocol of ``rankframe.faces``."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import duckdb
import polars as pl
from hypothesis import settings

from rankframe import faces
from rankframe.faces import duckdb as duckdb_face
from rankframe.faces.base import Face
from rankframe.faces.polars.face import expression
from rankframe.measures import Measure
from rankframe.registry import METRICS, Metric

# Every data column a registered metric reads, under its own name (rel, rank first).
COLUMNS = {"rel": "rel", "rank": "rank",
           **{c: c for metric in METRICS.values() for c in metric.columns}}

#: A face's share of a test's examples: a Spark job costs about a second whatever its size;
#: an Ibis evaluation 20-100 ms, mostly building and compiling the expression (the SQL
#: engines share the same compiled SQL, so their shares together cover it several times);
#: a DuckDB evaluation binds each macro call it holds, 50-150 ms whatever the table's size.
#: A test batching tables into one evaluation gives such a face more tables per example
#: (:func:`tables_per_example`), so that it sees as much data in fewer evaluations.
EXAMPLE_SHARE = {"spark": 0.08, "ibis-duckdb": 0.3, "ibis-sqlite": 0.2,
                 "ibis-datafusion": 0.15, "ibis-postgres": 0.25, "ibis-polars": 0.5,
                 "duckdb": 0.5}

#: Agreement with the oracle of a value a face does not declare exact.
TOLERANCE = 1e-9


def examples(face: Face | str | None = None, share: float = 1.0) -> int:
    """The examples a hypothesis test runs: ``share`` of the profile's budget
    (``max_examples``), times the face's share (:data:`EXAMPLE_SHARE`), at least 3."""
    name = face if isinstance(face, str) or face is None else face.name
    return max(3, round(settings().max_examples * share * EXAMPLE_SHARE.get(name or "", 1.0)))


def tables_per_example(face: Face | str, tables: int = 3, most: int = 8) -> int:
    """The most tables a batching test stacks into one evaluation of ``face``: ``tables``
    over the face's example share (:data:`EXAMPLE_SHARE`), at most ``most``."""
    name = face if isinstance(face, str) else face.name
    return min(most, round(tables / EXAMPLE_SHARE.get(name, 1.0)))


def measure(metric: Metric, values: Mapping[str, Any], label: str = "value") -> Measure:
    """A parsed measure for one metric and its parameter values, labelled ``label``."""
    summary = "sum" if metric.aggregate == "sum" else "mean"
    return Measure(label, metric, dict(values), summary)


def evaluate(face: Face, judged: pl.DataFrame | pl.LazyFrame, measures: Sequence[Measure]
             ) -> dict[str, dict[Any, Any]]:
    """The measures through ``face`` in one call: {label: {query id: value}}. The face gets
    the query column and the columns the measures read (a SQL engine without arrays, SQLite,
    could not hold the vector columns of other metrics)."""
    read = list(dict.fromkeys(["qid", *(COLUMNS[c] for m in measures for c in m.metric.columns)]))
    judged = judged.select(read)
    table = judged if isinstance(judged, pl.LazyFrame) else face.native(judged)
    result = face.to_polars(face.evaluate(table, measures, ["qid"], COLUMNS))
    keys = result["qid"].to_list()
    return {m.label: dict(zip(keys, result[m.label].to_list(), strict=True)) for m in measures}


def evaluate_builders(judged: pl.DataFrame, measures: Sequence[Measure]
                      ) -> dict[str, dict[Any, Any]]:
    """The measures as a user writes them: the (guarded) Polars builders in an eager
    ``group_by().agg()``."""
    exprs = [expression(m.metric, COLUMNS, m.values).alias(m.label) for m in measures]
    result = judged.group_by("qid").agg(exprs)
    keys = result["qid"].to_list()
    return {m.label: dict(zip(keys, result[m.label].to_list(), strict=True)) for m in measures}


def evaluate_macros(con: duckdb.DuckDBPyConnection, judged: pl.DataFrame,
                    measures: Sequence[Measure]) -> dict[str, dict[Any, Any]]:
    """The measures as a SQL user writes them: the guarded ``rf_*`` macros in a
    ``GROUP BY`` over the table."""
    calls = ", ".join(f"{duckdb_face.call(m.metric, COLUMNS, m.values)} AS "
                      f"{duckdb_face.quote(m.label)}" for m in measures)
    con.register("__kit_judged", judged)
    try:
        rows = con.sql(f"SELECT qid, {calls} FROM __kit_judged GROUP BY qid").fetchall()
    finally:
        con.unregister("__kit_judged")
    return {m.label: {row[0]: row[i] for row in rows} for i, m in enumerate(measures, start=1)}


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


def duckdb_values(metric: Metric, judged: pl.DataFrame, values: Mapping[str, Any],
                       con: Any = None) -> dict[Any, Any]:
    face = faces.get("duckdb")
    result = face.evaluate(judged, [measure(metric, values)], ["qid"], COLUMNS,
                           connection=con)
    return dict(zip(result["qid"].to_list(), result["value"].to_list(), strict=True))


def reference_face(metric: Metric, judged: pl.DataFrame, values: Mapping[str, Any]
                   ) -> dict[Any, Any]:
    return per_query(faces.get("oracle"), metric, judged, values)


def printed(value: Any) -> str:
    """A value as trec_eval prints it: counts as integers, strings (relstring) as they are,
    the rest as %6.4f."""
    return str(value) if isinstance(value, int | str) else f"{value:6.4f}"


def held_exact(face: Face, m: Measure) -> bool:
    """True if ``face`` declares this measure's values the oracle's very doubles."""
    loose = any(f"{name}={value}" in face.inexact_values for name, value in m.values.items())
    return m.metric.name in face.exact and not loose


def disagreements(face: Face, m: Measure, got: Mapping[Any, Any], want: Mapping[Any, Any]
                  ) -> tuple[list[str], float]:
    """How ``got`` (one face's values of ``m`` per query) departs from the oracle's
    ``want``: the same queries; strings equal; NULL where the oracle's is None (a value the
    contract leaves undefined); numbers finite, counts integers, and equal
    to the oracle's double and its printed bytes where the face declares the measure exact
    (:func:`held_exact`), else within :data:`TOLERANCE`. Returns the faults found and the
    largest difference."""
    if set(got) != set(want):
        return [f"{m.label}: other queries than the table's: {sorted(map(str, got))}"], 0.0
    exact = held_exact(face, m)
    faults: list[str] = []
    worst = 0.0
    for qid, expected in want.items():
        value = got[qid]
        where = f"{m.metric.name}{dict(m.values)} on {qid}: {face.name}={value!r} " \
                f"oracle={expected!r}"
        if m.metric.is_string or (exact and isinstance(expected, str)):
            if value != expected:
                faults.append(where)
            continue
        if expected is None or value is None:  # undefined (an empty list): NULL on both
            if value is not expected:
                faults.append(where + " (NULL on one side only)")
            continue
        if not isinstance(value, int | float) or isinstance(value, bool) \
                or not math.isfinite(value):
            faults.append(where + " (not a finite number)")
            continue
        if m.metric.is_count != isinstance(value, int):
            faults.append(where + (" (a count must be an integer)" if m.metric.is_count
                                   else " (a float, not an integer)"))
        diff = abs(value - expected)
        worst = max(worst, diff)
        if exact and (value != expected or printed(value) != printed(expected)):
            faults.append(where + " (declared exact)")
        elif diff > TOLERANCE:
            faults.append(where)
    return faults, worst

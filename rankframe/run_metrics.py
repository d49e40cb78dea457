"""``evaluate``'s run metrics: one value per run beside the per-list measures.

A run metric (``Metric.scope == "run"``: coverage, entropy, Gini) describes every list of a
system together. ``evaluate`` groups the table by the query key; a run metric is grouped by
the key's leading columns instead (all but the last: ``["system", "user"]`` gives one value
per system; a single key column, the whole table), through the same face, and each query
row takes its run's value. Its summary over queries is that value
(docs/semantics.md#beyond-accuracy).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from rankframe.faces.base import Face
from rankframe.measures import Measure
from rankframe.table.blocks import first_of_query

__all__ = ["evaluate", "run_keys", "run_summary", "top_rows"]

#: The constant key of a table that is one run (a single query column).
RUN = "__rf_run"


def run_keys(keys: Sequence[str]) -> list[str]:
    """The columns that identify a run among the query key's columns: all but the last."""
    return list(keys[:-1])


def evaluate(face: Face, judged: pl.DataFrame | pl.LazyFrame, measures: Sequence[Measure],
             keys: Sequence[str], columns: Mapping[str, str], connection: Any = None, *,
             kept: pl.Series | pl.Expr | None = None) -> pl.DataFrame:
    """The face's per-query table of ``measures``, each run metric's value that of its run
    (the other measures per query, as ``face.evaluate`` gives them). ``judged`` is a Polars
    table; a cluster face (Spark, Ibis) gets it as its own table. ``kept``: rows holding at
    least one row of each query (as :func:`top_rows` takes them), when the caller knows."""
    judged = top_rows(judged, measures, keys, columns["rank"], kept)
    lists = [m for m in measures if m.metric.scope == "list"]
    runs = [m for m in measures if m.metric.scope == "run"]

    def per(table: pl.DataFrame | pl.LazyFrame, chosen: list[Measure], by: Sequence[str]
            ) -> pl.DataFrame:
        if face.role == "cluster":  # a Polars table, as rankframe.evaluate joined it
            table = face.native(table.lazy().collect())
        return face.to_polars(face.evaluate(table, chosen, by, columns, connection=connection))

    if not runs:
        return per(judged, list(measures), keys)
    frame = judged.collect() if isinstance(judged, pl.LazyFrame) else judged
    by = run_keys(keys)
    if not by:
        frame, by = frame.with_columns(pl.lit(0, dtype=pl.Int8).alias(RUN)), [RUN]
    per_run = per(frame, runs, by)
    if lists:
        per_query = per(frame, lists, keys)
    else:
        per_query = frame.select(keys).unique().sort(keys, nulls_last=False)
    if RUN in by:  # one run: its values are constants of every query (no join)
        values = per_run.drop(RUN)
        joined = per_query.with_columns(
            pl.lit(values.get_column(c).first(), dtype=values.schema[c]).alias(c)
            for c in values.columns)
    else:
        joined = per_query.join(per_run, on=by, how="left", nulls_equal=True)
    return joined.select(*keys, *(m.label for m in measures)).sort(keys, nulls_last=False)


def top_rows(judged: pl.DataFrame | pl.LazyFrame, measures: Sequence[Measure],
             keys: Sequence[str], rank: str, kept: pl.Series | pl.Expr | None = None
             ) -> pl.DataFrame | pl.LazyFrame:
    """``judged`` without the rows no measure reads, when every measure reads only its rows
    of rank <= k (``Metric.top_rows``, a cutoff given): those of rank above the largest k,
    or NULL, except a row of each query, so that every query keeps a row (its value over no
    recommended row): the ``kept`` rows when given (``evaluate``'s table check found them),
    else the first of each query. A top-100 list read @10 is a tenth of its rows."""
    cutoffs = [m.values.get("k") for m in measures]
    if not all(m.metric.top_rows for m in measures) or None in cutoffs:
        return judged
    top = max(int(k) for k in cutoffs if k is not None)
    first: pl.Series | pl.Expr = first_of_query(list(keys)) if kept is None else kept
    if (kept is None and isinstance(judged, pl.DataFrame) and len(keys) == 1
            and judged.get_column(keys[0]).flags["SORTED_ASC"]):
        key = pl.col(keys[0])  # sorted by the query (evaluate proved it): no hashing
        first = (key != key.shift(1)).fill_null(True)
    return judged.filter((pl.col(rank) <= top).fill_null(False) | first)


def run_summary(column: pl.Expr) -> pl.Expr:
    """The summary of a run metric's per-query column: its value when every query holds
    the same one (one run), else the mean of the values (several runs, no ``by``)."""
    values = column.drop_nulls().cast(pl.Float64)
    return pl.when(values.n_unique() == 1).then(values.first()).otherwise(values.mean())

"""The Polars face: every metric as a ``pl.Expr`` (the builders of
:mod:`rankframe.faces.polars`, ``rankframe.<name>``), evaluated lazily (a LazyFrame on the
streaming engine); ``judge`` is :func:`rankframe.table.judge.judge`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import polars as pl

from rankframe.faces.base import Face, JudgeOptions, PolarsNative
from rankframe.faces.polars.built import builder, expression
from rankframe.faces.polars.diversity import ild_category_sorted
from rankframe.faces.polars.many import evaluate_sorted, has_row_form
from rankframe.measures import Measure
from rankframe.table.judge import judge

__all__ = ["FACE", "PolarsFace", "builder", "expression", "key_order"]


def key_order(schema: Mapping[str, pl.DataType], keys: Sequence[str]) -> list[pl.Expr]:
    """What the result rows are sorted by: the key columns, an Enum key by its text (the
    order of every face: ids compare as strings), not by its categories' order."""
    return [pl.col(k).cast(pl.String) if isinstance(schema[k], pl.Enum) else pl.col(k)
            for k in keys]


def _sorted_key(judged: pl.DataFrame | pl.LazyFrame, keys: Sequence[str]) -> str | None:
    """The one query column of a table in memory that ``evaluate`` flagged sorted by it
    (not an Enum, whose rows come out in its text's order), or None: the condition of the
    sorted paths."""
    if not isinstance(judged, pl.DataFrame) or len(keys) != 1 or not judged.height:
        return None
    key = keys[0]
    if not judged.get_column(key).flags["SORTED_ASC"] or isinstance(judged.schema[key], pl.Enum):
        return None
    return key


def _sorted_paths(judged: pl.DataFrame | pl.LazyFrame, measures: Sequence[Measure],
                  keys: Sequence[str], columns: Mapping[str, str]) -> dict[str, pl.Series]:
    """The values of the measures that have a path of their own over a table sorted by its
    one query column (``ild_category``: :func:`rankframe.faces.polars.diversity.
    ild_category_sorted`), by label, each in the query's order; the others are left to
    the builders' group-by."""
    key = _sorted_key(judged, keys)
    if key is None:
        return {}
    assert isinstance(judged, pl.DataFrame)
    direct = {}
    for m in measures:
        if m.metric.name == "ild_category":
            values = ild_category_sorted(judged, key, columns[m.metric.columns[0]],
                                         columns["rank"], m.values.get("k"))
            if values is not None:
                direct[m.label] = values
    return direct


def _int64_ranks(judged: pl.DataFrame | pl.LazyFrame, columns: Mapping[str, str]
                 ) -> pl.DataFrame | pl.LazyFrame:
    """``judged`` with an integer rank column (or an all-NULL one) cast to Int64: no valid
    rank overflows Int64 when a metric adds to it (UInt8 255 + 1 is 0 in its own dtype;
    ``check_judged`` refused ranks above the largest Int64), and the Null dtype is typed."""
    schema = judged.schema if isinstance(judged, pl.DataFrame) else judged.collect_schema()
    rank = columns.get("rank", "")
    dtype = schema.get(rank)
    if dtype is not None and (dtype.is_integer() or dtype == pl.Null) and dtype != pl.Int64:
        return judged.with_columns(pl.col(rank).cast(pl.Int64))
    return judged


def _one_value(column: pl.Series) -> bool:
    """True for a column flagged sorted that holds one value (its first and last equal, not
    NULL)."""
    first, last = column.head(1), column.tail(1)
    return first.null_count() == 0 and first.equals(last, check_names=False)


def _one_run(judged: pl.DataFrame, key: str, measures: Sequence[Measure],
             columns: Mapping[str, str]) -> pl.DataFrame:
    """The run metrics ``measures`` of a table in memory whose sorted query column holds one
    value (``rankframe.evaluate``'s one run): the builders' aggregates in a ``select`` over
    the whole table, their documented shape, where a group-by of one group would run each
    aggregate in a group's context (a sort there is single-threaded)."""
    return judged.select(pl.lit(judged.get_column(key).head(1)).alias(key),
                         *_expressions(measures, columns))


def _expressions(measures: Sequence[Measure], columns: Mapping[str, str],
                 leave: Mapping[str, pl.Series] | None = None) -> list[pl.Expr]:
    """The unguarded builders' expressions of ``measures`` (the table is checked), named by
    label, but for those whose values ``leave`` holds already."""
    return [expression(m.metric, columns, m.values, checked=True).alias(m.label)
            for m in measures if not leave or m.label not in leave]


class PolarsFace(PolarsNative):
    name = "polars"

    def evaluate(self, judged: pl.DataFrame | pl.LazyFrame, measures: Sequence[Measure],
                 keys: Sequence[str], columns: Mapping[str, str], *,
                 connection: Any = None) -> pl.DataFrame:
        key = _sorted_key(judged, keys)
        if key is not None and has_row_form(measures):
            # Rows sorted by the query (evaluate flags them): a measure with a row form is
            # computed over the rows as they lie, not a list per query (faces/polars/many.py).
            assert isinstance(judged, pl.DataFrame)
            return evaluate_sorted(judged, measures, key, columns)
        judged = _int64_ranks(judged, columns)
        if key is not None and all(m.metric.scope == "run" for m in measures):
            assert isinstance(judged, pl.DataFrame)
            if _one_value(judged.get_column(key)):
                return _one_run(judged, key, measures, columns)
        direct = _sorted_paths(judged, measures, keys, columns)
        exprs = _expressions(measures, columns, direct)
        schema = judged.schema if isinstance(judged, pl.DataFrame) else judged.collect_schema()
        lazy = judged.lazy().group_by(keys).agg(exprs).sort(key_order(schema, keys),
                                                            nulls_last=False)
        # A table in memory: the in-memory engine (no streaming set-up for a table already
        # read; benchmarks/headline.py); a LazyFrame (a scan, say): the streaming engine.
        engine: Literal["in-memory", "streaming"] = (
            "in-memory" if isinstance(judged, pl.DataFrame) else "streaming")
        result = lazy.collect(engine=engine)
        if direct:  # the same queries in the same order: the key sorted, no NULL
            result = result.with_columns(values.alias(label) for label, values in direct.items())
            result = result.select(*keys, *(m.label for m in measures))
        return result

    def judge(self, run: pl.DataFrame, qrels: pl.DataFrame, options: JudgeOptions
              ) -> pl.DataFrame | pl.LazyFrame:
        return judge(run, qrels, query=options.query, doc=options.doc, score=options.score,
                     rel=options.rel, depth=options.depth, ties=options.ties,
                     judged_only=options.judged_only)


FACE: Face = PolarsFace()

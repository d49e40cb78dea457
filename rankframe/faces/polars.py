"""The Polars face: every metric as a ``pl.Expr`` (the builders of :mod:`rankframe.metrics`,
``rankframe.<name>``), evaluated lazily (a LazyFrame on the streaming engine); ``judge`` is
:func:`rankframe.table.judge.judge`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import polars as pl

from rankframe import metrics
from rankframe.faces.base import Face, JudgeOptions, PolarsNative, Role, Ties
from rankframe.measures import Measure
from rankframe.metrics.expr import unguarded
from rankframe.metrics.registry import Metric
from rankframe.table.judge import judge


def builder(metric: Metric) -> Callable[..., pl.Expr]:
    """The Polars builder of ``metric`` (``rankframe.ndcg`` for ``ndcg``)."""
    built: Callable[..., pl.Expr] = getattr(metrics, metric.name)
    return built


def expression(metric: Metric, columns: Mapping[str, str], values: Mapping[str, Any], *,
               checked: bool = False) -> pl.Expr:
    """The metric's expression for these column names and parameter values (checked by
    ``metric.validate``). With ``checked`` (the table has passed ``check_judged``), without
    the rank guard that makes an invalid group NULL: it would repeat that check."""
    args, kwargs = metric.arguments(columns, values)
    built = unguarded(builder(metric)) if checked else builder(metric)
    return built(*args, **kwargs)


class PolarsFace(PolarsNative):
    name = "polars"
    role: Role = "engine"
    judge_ties: frozenset[Ties] = frozenset({"docid", "average"})

    def evaluate(self, judged: pl.DataFrame | pl.LazyFrame, measures: Sequence[Measure],
                 keys: Sequence[str], columns: Mapping[str, str], *,
                 connection: Any = None) -> pl.DataFrame:
        exprs = [expression(m.metric, columns, m.values, checked=True).alias(m.label)
                 for m in measures]
        lazy = judged.lazy().group_by(keys).agg(exprs).sort(keys, nulls_last=False)
        # A table in memory: the in-memory engine (three times faster on a block of 50,000
        # rows); a LazyFrame (a scan, say): the streaming engine.
        engine: Literal["in-memory", "streaming"] = (
            "in-memory" if isinstance(judged, pl.DataFrame) else "streaming")
        return lazy.collect(engine=engine)

    def judge(self, run: pl.DataFrame, qrels: pl.DataFrame, options: JudgeOptions
              ) -> pl.DataFrame | pl.LazyFrame:
        return judge(run, qrels, query=options.query, doc=options.doc, score=options.score,
                     rel=options.rel, depth=options.depth, ties=options.ties,
                     judged_only=options.judged_only)


FACE: Face = PolarsFace()

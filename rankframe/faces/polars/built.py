"""A metric's Polars expression from its registry entry: the builder of its name, called
with the column names and parameter values of a measure. Shared by the Polars face
(:mod:`rankframe.faces.polars.face`) and :func:`rankframe.evaluate_expr`
(:mod:`rankframe.faces.polars.many`), neither importing the other."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from rankframe.faces import polars as metrics
from rankframe.faces.polars.expr import unguarded
from rankframe.registry import Metric


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

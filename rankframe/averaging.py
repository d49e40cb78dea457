"""Which queries a per-query table of a run holds, so which its mean averages over: the
conventions that differ between evaluation tools, as parameters of
:func:`rankframe.evaluate_run` (and :func:`rankframe.evaluate_runs`).

- ``all_queries`` (default True): every qrels query, a query the run did not answer
  scoring 0 (``rf.judge``'s table; trec_eval ``-c``, ir_measures, ranx with
  ``make_comparable=True``); False: the qrels queries the run answered (trec_eval without
  ``-c``, trec_eval 9.x and pytrec_eval). Run queries without qrels are never evaluated.
- ``no_relevant``: what a query without any relevant row (no grade >= ``threshold``) gets,
  TorchMetrics' ``empty_target_action``: ``"keep"`` (default) the measure's own value
  (docs/semantics.md; 0 for nDCG, AP, RR, P@k, recall ...), ``"neg"`` 0, ``"pos"`` 1,
  ``"skip"`` the query is left out of the table, ``"error"`` an :class:`InputError`.
  TorchMetrics' default is ``"neg"``; its "no positive target" is this with grades >= 1
  for binary targets.
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from rankframe.errors import InputError

__all__ = ["NO_RELEVANT", "NoRelevant", "answered_queries", "no_relevant_rows"]

NoRelevant = Literal["keep", "neg", "pos", "skip", "error"]
NO_RELEVANT: tuple[str, ...] = ("keep", "neg", "pos", "skip", "error")


def answered_queries(per_query: pl.DataFrame, run: pl.DataFrame | pl.LazyFrame,
                     query: str) -> pl.DataFrame:
    """``per_query`` on the queries ``run`` has a row for (``all_queries=False``)."""
    asked = run.lazy().select(pl.col(query)).unique().collect().get_column(query)
    return per_query.filter(pl.col(query).is_in(asked.cast(per_query.schema[query]).implode()))


def no_relevant_rows(fn: str, per_query: pl.DataFrame, qrels: pl.DataFrame | pl.LazyFrame,
                     *, query: str, rel: str, threshold: float, action: str) -> pl.DataFrame:
    """``per_query`` with ``action`` applied to its queries that have no relevant row in
    ``qrels`` (see the module)."""
    if action == "keep":
        return per_query
    if action not in NO_RELEVANT:
        raise ValueError(f"{fn}: no_relevant must be one of {', '.join(map(repr, NO_RELEVANT))}"
                         f", got {action!r}")
    relevant = (qrels.lazy().filter(pl.col(rel) >= threshold).select(pl.col(query)).unique()
                .collect().get_column(query))
    empty = pl.col(query).is_in(relevant.cast(per_query.schema[query]).implode()).not_()
    if action == "skip":
        return per_query.filter(empty.not_())
    if action == "error":
        found = per_query.filter(empty)
        if found.height:
            raise InputError(
                f"{fn}: query {found[query][0]!r} has no relevant row (no grade >= "
                f"{threshold:g}) in the qrels ({found.height} such queries); no_relevant="
                "'error' refuses them ('skip' leaves them out, 'neg' scores 0, 'pos' 1)")
        return per_query
    value = 0.0 if action == "neg" else 1.0
    return per_query.with_columns(
        pl.when(empty).then(pl.lit(value)).otherwise(pl.col(name)).alias(name)
        for name, dtype in per_query.schema.items() if name != query and dtype == pl.Float64)

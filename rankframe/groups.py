"""Judgment groups (trec_eval's ``-R qrels_jg``): one run scored against several sets of
judgments per query, then averaged over the sets.

The qrels carry a judgment-group column ``jg`` (:func:`rankframe.io.read_qrels_jg`). The
judged table of judgment groups (docs/semantics.md#judgment-groups) is the judged long table
of each (query, group): the run's ranking of the query joined with that group's judgments,
with columns ``qid``, ``jg``, ``docid``, ``rank``, ``rel``. Any measure evaluated per
(qid, jg) and averaged by :func:`average_groups` gives trec_eval's ``*_avgjg`` measures:
``map_avgjg`` is ``map``, ``P_avgjg_k`` is ``P@k``, ``Rprec_mult_avgjg_x`` is
``rprec_mult@x``, each averaged over the groups of a query.

- :func:`judge_groups`: run + judgment-group qrels -> that table (Polars).
- :func:`evaluate_groups`: per-query values, on any engine (``evaluate`` grouped by
  ``qid, jg``, then :func:`average_groups`).
- :func:`average_groups`: per-(qid, jg) values -> per-query means, summed in group order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from rankframe.errors import InputError
from rankframe.evaluate import evaluate
from rankframe.frames import Eager, eager
from rankframe.table.judge import judge

__all__ = ["GROUP", "average_groups", "evaluate_groups", "group_keys", "judge_groups", "unkey"]

#: The judgment-group column.
GROUP = "jg"
_KEY = "__group_key"


def _need(fn: str, frame: pl.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"{fn}: the {what} lack column(s) {', '.join(missing)} "
                         f"(have {', '.join(frame.columns)})")


def group_keys(run: pl.DataFrame, qrels_jg: pl.DataFrame
               ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The run and qrels keyed by (query, group): ``(run, qrels, groups)`` where ``qid`` of
    the first two is a group key (a String, one per (qid, jg) of the qrels), the run's rows
    repeated for each group of their query, and ``groups`` maps the key (``qid``) back to
    ``query`` and ``jg``. What trec_eval does per group, the ordinary machinery (``judge``,
    ``evaluate_run``) then does per key."""
    _need("judge_groups", run, ["qid", "docid", "score"], "run")
    _need("judge_groups", qrels_jg, ["qid", GROUP, "docid", "rel"], "judgment-group qrels")
    groups = (qrels_jg.select("qid", GROUP).unique().sort("qid", GROUP)
              .with_row_index(_KEY).with_columns(pl.col(_KEY).cast(pl.String)))
    keyed_run = (run.join(groups, on="qid", how="inner")
                 .select(pl.col(_KEY).alias("qid"), pl.exclude("qid", GROUP, _KEY)))
    keyed_qrels = (qrels_jg.join(groups, on=["qid", GROUP], how="inner")
                   .select(pl.col(_KEY).alias("qid"), "docid", "rel"))
    mapping = groups.select(pl.col(_KEY).alias("qid"), pl.col("qid").alias("query"), GROUP)
    return keyed_run, keyed_qrels, mapping


def _unkey(frame: pl.DataFrame, mapping: pl.DataFrame) -> pl.DataFrame:
    """``frame`` keyed by group key (``qid``) with the key replaced by ``qid, jg``."""
    return (frame.join(mapping, on="qid", how="left", maintain_order="left")
            .select(pl.col("query").alias("qid"), GROUP, pl.exclude("qid", "query", GROUP)))


def unkey(frame: pl.DataFrame, mapping: pl.DataFrame) -> pl.DataFrame:
    """A frame keyed by :func:`group_keys`' group key (``qid``) keyed by ``qid, jg``."""
    return _unkey(frame, mapping)


def judge_groups(run: Eager, qrels_jg: Eager, *,
                 depth: int | None = None) -> pl.DataFrame:
    """The judged table of judgment groups: for each query of ``qrels_jg`` and each of its
    groups, :func:`rankframe.judge` of the run's rows for that query against that group's
    judgments (same ranking rule, full outer join, ``depth`` as trec_eval ``-M``).

    Parameters
    ----------
    run
        ``qid``, ``docid``, ``score`` (as for :func:`rankframe.judge`).
    qrels_jg
        ``qid``, ``jg``, ``docid``, ``rel`` (:func:`rankframe.io.read_qrels_jg`).
    depth
        Keep the top ``depth`` ranks of each query; None: all.

    Returns
    -------
    pl.DataFrame
        ``qid``, ``jg``, ``docid``, ``rank``, ``rel`` (and ``score``), sorted by ``qid``,
        ``jg`` then judge's order within a group. Run queries without judgments are left
        out; a group's judged documents the run missed have rank NULL.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> run = pl.DataFrame({"qid": ["1", "1"], "docid": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"qid": ["1", "1", "1"], "jg": ["u", "v", "v"],
    ...                       "docid": ["b", "a", "c"], "rel": [1, 1, 1]})
    >>> for row in rf.judge_groups(run, qrels).select("jg", "docid", "rank", "rel").rows():
    ...     print(row)
    ('u', 'a', 1, None)
    ('u', 'b', 2, 1)
    ('v', 'a', 1, 1)
    ('v', 'b', 2, None)
    ('v', 'c', None, 1)
    """
    run, qrels_jg = eager("judge_groups", "run", run), eager("judge_groups", "qrels", qrels_jg)
    keyed_run, keyed_qrels, mapping = group_keys(run, qrels_jg)
    judged = judge(keyed_run, keyed_qrels, depth=depth).with_row_index("__row")
    return (_unkey(judged, mapping).sort("qid", GROUP, "__row", maintain_order=True)
            .drop("__row"))


def average_groups(per_group: Eager, *, query: str = "qid",
                   group: str = GROUP) -> pl.DataFrame:
    """Per-query means over judgment groups of per-(query, group) values, as trec_eval
    computes its ``*_avgjg`` measures: each query's values summed left to right in the byte
    order of the group ids, then divided by the number of groups.

    Parameters
    ----------
    per_group
        One row per (``query``, ``group``); every other column is a measure.
    query, group
        The query and judgment-group columns; default ``qid`` and ``jg``.

    Returns
    -------
    pl.DataFrame
        One row per query, sorted by ``query``; Float64 measure columns (NULL for a query
        with a NULL value in one of its groups).

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> per_group = pl.DataFrame({"qid": ["1", "1", "2"], "jg": ["b", "a", "a"],
    ...                           "map": [0.5, 0.25, 1.0]})
    >>> rf.average_groups(per_group).rows()
    [('1', 0.375), ('2', 1.0)]
    """
    per_group = eager("average_groups", "per_group", per_group)
    values = [c for c in per_group.columns if c not in (query, group)]
    # A NULL value (an invalid group's) makes the query's mean NULL: left out, the mean
    # would be over the other groups, or count it as 0, without a word.
    return (per_group.sort(query, group)
            .group_by(query, maintain_order=True)
            .agg(pl.when(pl.col(c).null_count() == 0)
                 .then(pl.col(c).cast(pl.Float64).cum_sum().last() / pl.len()).alias(c)
                 for c in values))


def evaluate_groups(judged: Eager | pl.LazyFrame, measures: str | Sequence[str], *,
                    engine: str = "polars", threshold: float = 1, con: Any = None
                    ) -> pl.DataFrame:
    """Per-query values of ``measures`` over the judged table of judgment groups
    (:func:`judge_groups`): each measure per (qid, jg) by :func:`rankframe.evaluate` on
    ``engine``, then averaged over each query's groups (:func:`average_groups`).
    ``evaluate_groups(judged, "map")`` is trec_eval's ``map_avgjg``, ``"P@10"`` its
    ``P_avgjg_10``, ``"rprec_mult@0.2"`` its ``Rprec_mult_avgjg_0.20``.

    Parameters
    ----------
    judged
        The judged table of judgment groups: ``qid``, ``jg``, ``rank``, ``rel``.
    measures
        Measure strings, as for :func:`rankframe.evaluate`.
    engine, threshold, con
        As for :func:`rankframe.evaluate`.

    Returns
    -------
    pl.DataFrame
        One row per query, sorted by ``qid``; one Float64 column per measure.

    Examples
    --------
    Query 1, judged by u (b relevant) and v (a and c relevant); the run ranks a, b:
    AP is 1/2 for u and (1/1) / 2 for v, so map_avgjg = (0.5 + 0.5) / 2.

    >>> import polars as pl, rankframe as rf
    >>> run = pl.DataFrame({"qid": ["1", "1"], "docid": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"qid": ["1", "1", "1"], "jg": ["u", "v", "v"],
    ...                       "docid": ["b", "a", "c"], "rel": [1, 1, 1]})
    >>> rf.evaluate_groups(rf.judge_groups(run, qrels), ["map", "P@1"]).rows()
    [('1', 0.5, 0.5)]
    """
    per_group = evaluate(judged, measures, query=["qid", GROUP], engine=engine,
                         threshold=threshold, con=con)
    return average_groups(per_group)

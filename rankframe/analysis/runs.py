"""Several runs against one qrels: read them, evaluate each on the queries trec_eval would
evaluate, and stack the per-query tables with a ``system`` column, the input of
:func:`rankframe.analysis.compare.compare` and of the plots.

>>> import rankframe as rf
>>> per_query = rf.evaluate_runs(["bm25.run", "dense.run"], "qrels.txt",
...                              ["ndcg@10", "map"])  # doctest: +SKIP
>>> rf.compare(per_query)  # doctest: +SKIP

A system is named by its run tag (the last field of the run's first line), or by its file
name when two runs share a tag (:func:`read_runs`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import polars as pl

from rankframe import trec_eval
from rankframe.errors import InputError
from rankframe.evaluate import evaluate, evaluate_run
from rankframe.io import read_qrels, read_run
from rankframe.table.judge import Ties, judge

__all__ = ["evaluate_runs", "read_runs", "trec_eval_per_query"]

PathLike = str | os.PathLike[str]


def read_runs(paths: Sequence[PathLike]) -> dict[str, pl.DataFrame]:
    """Read run files, keyed by system name, in the order given.

    A system is named by its run tag (the ``tag`` of its first row), or by its file name
    when another run has the same tag (or it has none).

    Parameters
    ----------
    paths
        TREC run files (plain or gzip), in the order the systems should appear.

    Raises
    ------
    InputError
        A file cannot be read as a run, or two runs end up with the same name.
    """
    runs = [(Path(p), read_run(p)) for p in paths]
    tags = [str(frame["tag"][0]) if frame.height and frame["tag"][0] is not None else ""
            for _, frame in runs]
    names = [tag if tag and tags.count(tag) == 1 else path.name
             for (path, _), tag in zip(runs, tags, strict=True)]
    if len(set(names)) != len(names):
        raise InputError(
            "compare: runs need distinct names (their tags, or file names when tags "
            f"repeat); got {', '.join(names)}"
        )
    return {name: frame for name, (_, frame) in zip(names, runs, strict=True)}


def trec_eval_per_query(
    run: pl.DataFrame,
    qrels: pl.DataFrame,
    measures: Sequence[str],
    *,
    all_queries: bool = False,
    depth: int | None = None,
    ties: Ties = "docid",
    threshold: float = 1,
    engine: str = "polars",
    name: str = "",
    judged_only: bool = False,
) -> pl.DataFrame:
    """Per-query values of ``measures`` for one run, on the queries trec_eval evaluates.

    That is :func:`rankframe.evaluate.evaluate_run` (or ``evaluate(judge(..., ties=ties))``
    for tie-aware measures) restricted as :func:`rankframe.trec_eval.select_queries` says:
    run queries without qrels are left out (``rf.unjudged_run_queries`` lists them), qrels
    queries without results are kept, scoring 0, only with ``all_queries`` (trec_eval
    ``-c``). ``name`` names the run in the error raised when no query is left.
    ``judged_only`` ranks only the judged documents (trec_eval ``-J``).
    """
    if ties == "docid":  # one call, without building the judged table when it can
        per_query = evaluate_run(run, qrels, list(measures), depth=depth, engine=engine,
                                 threshold=threshold, judged_only=judged_only)
        return trec_eval.select_queries(per_query, run, complete=all_queries, name=name)
    judged = judge(run, qrels, depth=depth, ties=ties, judged_only=judged_only)
    judged = trec_eval.select_queries(judged, run, complete=all_queries, name=name)
    return evaluate(judged, list(measures), engine=engine, threshold=threshold)


def evaluate_runs(
    runs: Mapping[str, pl.DataFrame] | Sequence[PathLike],
    qrels: pl.DataFrame | PathLike,
    measures: str | Sequence[str],
    *,
    all_queries: bool = False,
    depth: int | None = None,
    threshold: float = 1,
    engine: str = "polars",
    system: str = "system",
) -> pl.DataFrame:
    """Per-query values of ``measures`` for several runs, stacked with a system column.

    Parameters
    ----------
    runs
        System name -> run frame (``qid``, ``docid``, ``score``), or run file paths, named
        as :func:`read_runs` names them.
    qrels
        The qrels frame (``qid``, ``docid``, ``rel``) or a qrels file path.
    measures
        Measure strings, as for :func:`rankframe.evaluate.evaluate`.
    all_queries
        Evaluate every run on every qrels query, a run's missing queries scoring 0
        (trec_eval ``-c``); by default each run on the qrels queries it retrieved for.
        Run queries without qrels are never evaluated.
    depth, threshold, engine
        As for :func:`rankframe.evaluate.evaluate_run`.
    system
        Name of the system column.

    Returns
    -------
    polars.DataFrame
        Columns ``system``, ``qid`` and one per measure; the systems in the order given,
        each one's queries sorted. Ready for :func:`rankframe.compare`.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> qrels = pl.DataFrame({"qid": ["1", "1"], "docid": ["a", "b"], "rel": [1, 0]})
    >>> runs = {"x": pl.DataFrame({"qid": ["1", "1"], "docid": ["a", "b"],
    ...                            "score": [2.0, 1.0]}),
    ...         "y": pl.DataFrame({"qid": ["1", "1"], "docid": ["a", "b"],
    ...                            "score": [1.0, 2.0]})}
    >>> rf.evaluate_runs(runs, qrels, ["P@1"]).rows()
    [('x', '1', 1.0), ('y', '1', 0.0)]
    """
    if not isinstance(runs, Mapping):
        runs = read_runs(runs)
    if not isinstance(qrels, pl.DataFrame):
        qrels = read_qrels(qrels)
    labels = [measures] if isinstance(measures, str) else list(measures)
    frames = [
        trec_eval_per_query(run, qrels, labels, all_queries=all_queries, depth=depth,
                            threshold=threshold, engine=engine, name=f"system {name!r}")
        .select(pl.lit(name).alias(system), pl.all())
        for name, run in runs.items()
    ]
    if not frames:
        raise InputError("evaluate_runs: no runs given")
    return pl.concat(frames, how="vertical_relaxed")

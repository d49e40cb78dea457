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
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple, TypedDict, Unpack, cast

import polars as pl

from rankframe import trec_eval
from rankframe.errors import InputError
from rankframe.evaluate import evaluate, evaluate_run
from rankframe.frames import Eager, run_or_qrels
from rankframe.io import read_qrels, read_run
from rankframe.io.stream import NotStreamable, RunStream, prefetched
from rankframe.table.judge import Ties, judge

__all__ = ["PerQueryOptions", "RunFileResult", "evaluate_runs", "read_runs",
           "trec_eval_per_query", "trec_eval_run_file"]

PathLike = str | os.PathLike[str]

#: Blocks of a streamed run evaluated at once (Polars releases the GIL): with the thread
#: that reads and parses the next piece, both cores stay busy.
IN_FLIGHT = 2


def _paths_of(fn: str, paths: PathLike | Iterable[PathLike]) -> list[PathLike]:
    """``paths`` as a list of run file paths: one path (a ``str`` or ``os.PathLike``) is
    one run, not a sequence of one-character names; anything that is not paths (a frame,
    bytes) is a TypeError naming it."""
    if isinstance(paths, (str, os.PathLike)):
        return [paths]
    frame = hasattr(paths, "columns") or hasattr(paths, "schema")
    if frame or isinstance(paths, (bytes, Mapping)) or not isinstance(paths, Iterable):
        raise TypeError(f"{fn}: expected run file paths (one path or several), got "
                        f"{type(paths).__name__}; run frames go in a mapping {{name: frame}}")
    listed = list(paths)
    for i, path in enumerate(listed):
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"{fn}: run {i} is a {type(path).__name__}, not a file path "
                            "(str or os.PathLike); run frames go in a mapping {name: frame}")
    return listed


def read_runs(paths: PathLike | Iterable[PathLike]) -> dict[str, pl.DataFrame]:
    """Read run files, keyed by system name, in the order given.

    A system is named by its run tag (the ``tag`` of its first row), or by its file name
    when another run has the same tag (or it has none).

    Parameters
    ----------
    paths
        TREC run files (plain or gzip), in the order the systems should appear; one path
        is one run.

    Raises
    ------
    InputError
        A file cannot be read as a run, or two runs end up with the same name.
    TypeError
        ``paths`` holds something other than file paths (a frame, bytes).
    """
    runs = [(Path(p), read_run(p)) for p in _paths_of("read_runs", paths)]
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


class RunFileResult(NamedTuple):
    """What :func:`trec_eval_run_file` returns."""

    per_query: pl.DataFrame  # qid and one column per measure, queries sorted
    runid: str  # the tag of the run's first line ("" for an empty run)
    unjudged: int  # run queries without qrels, not evaluated
    queries: pl.Series  # the run's queries


class PerQueryOptions(TypedDict, total=False):
    """The keyword options of :func:`trec_eval_per_query`, which :func:`trec_eval_run_file`
    passes on (an option left out takes that function's default)."""

    all_queries: bool
    depth: int | None
    ties: Ties
    threshold: float
    engine: str
    name: str
    judged_only: bool


def trec_eval_run_file(path: PathLike, qrels: pl.DataFrame, measures: Sequence[str], *,
                       block_bytes: int | None = None, **options: Unpack[PerQueryOptions]
                       ) -> RunFileResult:
    """:func:`trec_eval_per_query` of the run file ``path``, streamed; ``options`` are that
    function's keywords (:class:`PerQueryOptions`).

    The file is read in blocks of whole queries (:class:`rankframe.io.stream.RunStream`),
    each evaluated against its queries' slice of the qrels as it arrives, so memory holds
    one block, the qrels and the per-query values, whatever the file's size. A file that
    cannot be streamed (not plainly laid out, queries not contiguous, a problem to report
    by line, a pipe) is read whole with :func:`rankframe.io.read_run` instead; the result
    is the same either way. ``block_bytes`` is the text parsed at once (None: from the
    file's size, :func:`rankframe.io.stream.block_bytes_for`).
    """
    stream = RunStream(path, block_bytes)
    try:
        return _streamed(stream, qrels, list(measures), options)
    except (NotStreamable, InputError):
        run = read_run(path)  # reads any layout; raises the file's problem with its line
        per_query = trec_eval_per_query(run, qrels, measures, **options)
        runid = str(run["tag"][0]) if run.height else ""
        return RunFileResult(per_query, runid, trec_eval.unjudged_count(run, qrels),
                             run["qid"].unique())


def _streamed(stream: RunStream, qrels: pl.DataFrame, measures: list[str],
              options: PerQueryOptions) -> RunFileResult:
    """:func:`trec_eval_run_file` block by block; NotStreamable if the file's queries are not
    contiguous (InputError for a problem that read_run names by line)."""
    each_block = options | {"all_queries": True}  # a block holds only some of the queries
    qrels = qrels.sort("qid", maintain_order=True)
    judged_queries = qrels.get_column("qid").set_sorted()
    parts: list[pl.DataFrame] = []
    unjudged = 0
    in_flight: deque[Future[pl.DataFrame]] = deque()
    workers = max(1, min(IN_FLIGHT, pl.thread_pool_size()))
    with ThreadPoolExecutor(workers) as pool:
        for block, heads in prefetched(_with_heads(stream)):
            heads = heads.sort()
            low = judged_queries.search_sorted(heads, side="left")
            high = judged_queries.search_sorted(heads, side="right")
            unjudged += int((low == high).sum())
            rows = pl.select(pl.int_ranges(low, high).explode().drop_nulls()).to_series()
            if rows.len():
                in_flight.append(pool.submit(trec_eval_per_query, block, qrels[rows],
                                             measures, **each_block))
            while len(in_flight) >= workers or (in_flight and in_flight[0].done()):
                parts.append(in_flight.popleft().result())
        parts.extend(future.result() for future in in_flight)
    heads = pl.concat(stream.heads) if stream.heads else pl.Series("qid", [], pl.String)
    if heads.n_unique() != heads.len():
        raise NotStreamable("a query's lines are not contiguous")
    if options.get("all_queries"):  # qrels queries without results score 0 (trec_eval -c)
        missing = qrels.filter(pl.col("qid").is_in(heads.implode()).not_())
        if missing.height:
            empty = pl.DataFrame(schema={"qid": pl.String, "docid": pl.String,
                                         "score": pl.Float64})
            parts.append(trec_eval_per_query(empty, missing, measures, **each_block))
    per_query = pl.concat(parts).sort("qid") if parts else pl.DataFrame()
    if per_query.height == 0:
        raise trec_eval.no_queries_error(options.get("name", ""))
    return RunFileResult(per_query, stream.tag or "", unjudged, heads)


def _with_heads(stream: RunStream) -> Iterator[tuple[pl.DataFrame, pl.Series]]:
    for block in stream:
        yield block, stream.heads[-1]


def _eager(frame: pl.DataFrame | pl.LazyFrame, name: str) -> pl.DataFrame:
    if isinstance(frame, pl.LazyFrame):
        raise TypeError(f"evaluate_runs: the {name}: expected a DataFrame (polars, pandas or "
                        "a pyarrow Table), got a LazyFrame; collect it first")
    return frame


def evaluate_runs(
    runs: Mapping[str, Eager | object] | PathLike | Iterable[PathLike | object],
    qrels: Eager | PathLike | object,
    measures: str | Sequence[str],
    *,
    all_queries: bool = True,
    depth: int | None = None,
    threshold: float = 1,
    engine: str = "polars",
    system: str = "system",
) -> pl.DataFrame:
    """Per-query values of ``measures`` for several runs, stacked with a system column.

    Parameters
    ----------
    runs
        System name -> run (a frame with ``qid``, ``docid``, ``score``: Polars, pandas or a
        pyarrow Table; or a peer's form: a dict ``{qid: {docid: score}}``, a ranx ``Run``,
        ir_measures' namedtuples, as for :func:`rankframe.judge`), or run file paths, named
        as :func:`read_runs` names them (one path: one run), or a list of ranx ``Run``
        objects (named by their ``name``). A frame or bytes given directly is a TypeError.
    qrels
        The qrels (a frame with ``qid``, ``docid``, ``rel``, or a peer's form) or a qrels
        file path.
    measures
        Measure strings, as for :func:`rankframe.evaluate.evaluate`.
    all_queries
        True (default): every run on every qrels query, a run's missing queries scoring 0
        (trec_eval ``-c``, and what :func:`rankframe.evaluate_run` and ``rf.judge`` do);
        False: each run on the qrels queries it retrieved for (trec_eval without ``-c``,
        pytrec_eval; ``rankframe compare`` without ``-c``). Run queries without qrels are
        never evaluated.
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
    fn = "evaluate_runs"
    if isinstance(runs, Sequence) and not isinstance(runs, str) and runs and all(
            type(run).__module__.partition(".")[0] == "ranx" for run in runs):
        runs = {str(getattr(run, "name", None) or f"run_{i}"): run  # ranx: runs named
                for i, run in enumerate(runs, start=1)}
    frames_of: Mapping[str, pl.DataFrame] = (
        {name: _eager(run_or_qrels(fn, "run", run, ("qid", "docid", "score"),
                                   f"run {name!r}"), f"run {name!r}")
         for name, run in runs.items()}
        if isinstance(runs, Mapping)
        else read_runs(_paths_of(fn, cast("PathLike | Iterable[PathLike]", runs))))
    if isinstance(qrels, (str, os.PathLike)):
        qrels = read_qrels(qrels)
    else:
        qrels = _eager(run_or_qrels(fn, "qrels", qrels, ("qid", "docid", "rel")), "qrels")
    labels = [measures] if isinstance(measures, str) else list(measures)
    frames = [
        trec_eval_per_query(run, qrels, labels, all_queries=all_queries, depth=depth,
                            threshold=threshold, engine=engine, name=f"system {name!r}")
        .select(pl.lit(name).alias(system), pl.all())
        for name, run in frames_of.items()
    ]
    if not frames:
        raise InputError("evaluate_runs: no runs given")
    return pl.concat(frames, how="vertical_relaxed")

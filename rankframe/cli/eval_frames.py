"""``rankframe eval`` on Polars: the relevance file read once as a table, each run file
streamed in blocks of whole queries (:func:`rankframe.analysis.runs.trec_eval_run_file`) and
evaluated by the Polars or DuckDB face, and the tidy table as ``--format parquet``.
Every ``-R`` format (:data:`_READERS`, :data:`_EVALUATORS`) is read and evaluated here;
:mod:`rankframe.cli.eval` imports this module only when :mod:`rankframe.cli.eval_small` does not
take the input.
"""

from __future__ import annotations

import argparse
import io
from collections.abc import Callable, Iterable
from typing import Any

import polars as pl

from rankframe import groups, trec_eval
from rankframe.analysis.runs import RunFileResult, trec_eval_per_query, trec_eval_run_file
from rankframe.cli.eval_output import TidyRow
from rankframe.cli.eval_plan import FORMATS, RunEvaluator, plan
from rankframe.errors import RankframeError
from rankframe.faces.polars.prefs import prefs_evaluate
from rankframe.io import (
    read_prefs,
    read_qrels,
    read_qrels_jg,
    read_qrels_prefs,
    read_run,
    read_zscores,
)

__all__ = ["prepare", "write_parquet"]


def _engine(args: argparse.Namespace) -> str:
    """The face that computes: ``--engine`` as given, Polars for ``auto``."""
    return "polars" if args.engine == "auto" else str(args.engine)


def prepare(args: argparse.Namespace) -> tuple[pl.DataFrame, RunEvaluator]:
    """The relevance file read (``-R`` format), and what evaluates one run against it; the
    options and measures are checked before the file is read."""
    evaluate_one = _EVALUATORS[args.R](args)
    return _READERS[args.R](args.qrels), evaluate_one


def _qrels_per_query(path: str, qrels: pl.DataFrame, needed: list[str],
                     args: argparse.Namespace, name: str) -> RunFileResult:
    """The run file streamed in blocks of whole queries (bounded memory)."""
    return trec_eval_run_file(path, qrels, needed, all_queries=args.c, depth=args.M,
                              ties=args.ties, threshold=args.l, engine=_engine(args),
                              judged_only=args.J, name=name)


def _groups_per_query(path: str, qrels_jg: pl.DataFrame, needed: list[str],
                      args: argparse.Namespace, name: str) -> RunFileResult:
    """Each measure per (query, judgment group), then averaged over the query's groups."""
    if args.ties != "docid":
        raise RankframeError("-R qrels_jg: --ties average is not available for judgment groups")
    run = read_run(path)
    keyed_run, keyed_qrels, mapping = groups.group_keys(run, qrels_jg)
    per_group = trec_eval_per_query(keyed_run, keyed_qrels, needed, all_queries=args.c,
                                    depth=args.M, threshold=args.l, engine=_engine(args),
                                    judged_only=args.J, name=name)
    per_query = groups.average_groups(groups.unkey(per_group, mapping))
    runid = str(run["tag"][0]) if run.height else ""
    return RunFileResult(per_query, runid, trec_eval.unjudged_count(run, qrels_jg),
                         run["qid"].unique())


def write_parquet(rows: Iterable[TidyRow], out: Any) -> None:
    """The tidy rows (:func:`rankframe.cli.eval_output.tidy_rows`) as a parquet table: run, qid
    (null on summary rows), measure, value (a double)."""
    columns: tuple[list[Any], ...] = ([], [], [], [])
    for row in rows:
        for column, item in zip(columns, row, strict=True):
            column.append(item)
    schema = {"run": pl.String, "qid": pl.String, "measure": pl.String, "value": pl.Float64}
    # Made in memory, then written as the other formats write: a failing write (a full
    # disk, a closed pipe) is the same OSError as theirs, not a Polars error.
    data = io.BytesIO()
    pl.DataFrame(dict(zip(schema, columns, strict=True)), schema=schema).write_parquet(data)
    out.write(data.getbuffer())


def _zscores(path: str | None) -> trec_eval.ZScores | None:
    if path is None:
        return None
    table: dict[str, dict[str, tuple[float, float]]] = {}
    for qid, name, mean, stddev in read_zscores(path).iter_rows():
        table.setdefault(qid, {})[name] = (mean, stddev)
    return table


def _qrels_evaluator(args: argparse.Namespace) -> RunEvaluator:
    """``-R qrels`` (the default) and ``-R qrels_jg``: every measure but the preference
    ones (a judgment-group measure needs ``qrels_jg``, the others ``qrels``)."""
    selected, strings, needed = plan(args)
    zscores = _zscores(args.Z)
    per_query_of = _groups_per_query if args.R == "qrels_jg" else _qrels_per_query

    def evaluate_one(path: str, qrels: pl.DataFrame, name: str
                     ) -> tuple[int, list[trec_eval.Line]]:
        per_query, runid, unjudged, run_queries = per_query_of(path, qrels, needed, args, name)
        # One column per printed name (two names may share a measure string).
        per_query = per_query.select(
            "qid", *(pl.col(string).alias(printed) for printed, string in strings.items()))
        _, only = args.D
        if only is not None:  # -D level.qid: that query alone, as trec_eval
            per_query = per_query.filter(pl.col("qid") == only)
            if per_query.height == 0:
                raise trec_eval.no_query_error(args.D[0], only)
        # trec_eval's num_rel under -c sums the qrels' grades > 0, whatever -l (m_num_rel.c).
        num_rel_all = int((qrels["rel"] > 0).sum()) if args.c and only is None else None
        shown = None
        if args.trec_eval9 and args.c:  # 9.x prints no lines for queries without results
            shown = per_query["qid"].is_in(run_queries.implode()).to_list()
        return unjudged, trec_eval.lines(per_query, selected, runid, per_query_lines=args.q,
                                         summaries=not args.n, judged_only=args.J,
                                         num_rel_all=num_rel_all, printed=shown,
                                         zscores=zscores)

    return evaluate_one


def _duckdb_prefs(prefs: pl.DataFrame, run: pl.DataFrame, **options: Any) -> pl.DataFrame:
    """The preference measures on DuckDB (imported here: DuckDB stays off the default path)."""
    from rankframe.faces.duckdb import evaluate_prefs

    return evaluate_prefs(prefs, run, **options)


#: -R prefs / qrels_prefs: what computes them, per --engine.
_PREFS_ENGINES: dict[str, Callable[..., pl.DataFrame]] = {
    "polars": prefs_evaluate, "duckdb": _duckdb_prefs}


def _prefs_evaluator(args: argparse.Namespace) -> RunEvaluator:
    """``-R prefs`` or ``-R qrels_prefs``: trec_eval's ``prefs_*`` measures
    (:func:`rankframe.trec_eval.select_prefs`; no ``-m``: the ``prefs`` nickname). ``-J`` is
    ignored, as trec_eval's preference code ignores it (form_prefs_counts.c)."""
    if args.ties != "docid":
        raise RankframeError("--ties average: the preference measures have no tie-aware form")
    if _engine(args) not in _PREFS_ENGINES:
        raise RankframeError(f"--engine {args.engine}: -R {args.R} is computed by "
                             f"{' or '.join(_PREFS_ENGINES)}")
    selected = trec_eval.select_prefs(args.m)

    def evaluate_one(path: str, prefs: pl.DataFrame, name: str
                     ) -> tuple[int, list[trec_eval.Line]]:
        run_frame = read_run(path)
        unjudged = trec_eval.unjudged_count(run_frame, prefs)
        per_query = _PREFS_ENGINES[_engine(args)](prefs, run_frame, depth=args.M,
                                                complete=args.c)
        if per_query.height == 0:
            raise trec_eval.no_queries_error(path)
        return unjudged, trec_eval.lines(per_query, selected, str(run_frame["tag"][0]),
                                         per_query_lines=args.q, summaries=not args.n)

    return evaluate_one


#: -R: relevance-file format -> its reader, and what evaluates one run against it.
_READERS: dict[str, Callable[[str], pl.DataFrame]] = {
    "qrels": read_qrels, "qrels_jg": read_qrels_jg, "prefs": read_prefs,
    "qrels_prefs": read_qrels_prefs}
_EVALUATORS: dict[str, Callable[[argparse.Namespace], RunEvaluator]] = {
    "qrels": _qrels_evaluator, "qrels_jg": _qrels_evaluator, "prefs": _prefs_evaluator,
    "qrels_prefs": _prefs_evaluator}

assert tuple(_READERS) == FORMATS == tuple(_EVALUATORS)

"""The ``rankframe eval`` subcommand: a trec_eval drop-in.

``rankframe eval [-q] [-c] [-l N] [-M N] [-m MEASURE ...] QRELS RUN [RUN ...]``

What to compute and print is trec_eval's knowledge (:mod:`rankframe.trec_eval`: ``-m``
syntax, printed names, order, summaries, query selection, line format); the values come
from :func:`rankframe.analysis.runs.trec_eval_per_query`. ``-m`` also takes rankframe
measure strings (``ndcg@10``): printed under trec_eval's name for the same measure
(:func:`rankframe.measures.trec_eval_name`), else under their canonical string, after
trec_eval's measures. This module reads the options and writes the lines (trec, csv or
json; several runs or parquet: one tidy table, columns run, qid, measure, value).

Several runs (or a quoted glob pattern) are evaluated against the qrels read once, on a
thread pool (Polars releases the GIL), and printed in the order given, each as trec_eval
prints it: the shell loop around trec_eval in one process.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import os
import sys
from collections.abc import Generator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import polars as pl

from rankframe import faces, trec_eval
from rankframe.analysis.runs import trec_eval_per_query
from rankframe.errors import InputError, MeasureError, RankframeError
from rankframe.io import read_qrels, read_run
from rankframe.measures import canonical, measure_names, parse, trec_eval_name
from rankframe.validation import MAX_CUTOFF

__all__ = ["add_parser", "measure_help", "run", "run_paths", "selection"]

_QUERIES_ONLY = "num_ret"


def measure_help() -> str:
    """The measures the command line accepts: trec_eval's names and nicknames, and
    rankframe's measure strings."""
    trec = ", ".join(m.name for m in trec_eval.TREC_MEASURES if m.trec)
    ours = ", ".join(m.name for m in trec_eval.TREC_MEASURES if not m.trec)
    nick = "; ".join(f"{k} = {' '.join(v)}" for k, v in trec_eval.NICKNAMES.items()
                     if k not in ("all_trec", "all"))
    grammar = "\n".join(f"  {name:<16} {text}" for name, text in measure_names().items())
    return (
        f"trec_eval measures (-m name or -m name.p1,p2): {trec}; rankframe's: {ours}\n"
        f"nicknames: {nick}; all_trec = every trec_eval measure; all = all_trec and "
        "rankframe's\n\n"
        "rankframe measure strings (-m ndcg@10, as for evaluate(); "
        "name[(param=value)][@cutoff]):\n"
        f"{grammar}\n"
        "A measure string prints under trec_eval's name for the same measure (ndcg@10 ->\n"
        "ndcg_cut_10, P@10 -> P_10, the same numbers), else under its canonical string after\n"
        "trec_eval's measures (mrr@10). trec_eval's syntax wins: -m P is P at every cutoff."
    )


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``eval`` subcommand to an ``argparse`` subparsers object; its ``handler``
    default is :func:`run`."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "eval",
        help="evaluate a TREC run against qrels, printing what trec_eval prints",
        description="Evaluate each RUN against QRELS; output is byte-compatible with trec_eval 9.x "
        "for the supported measures.",
        epilog=measure_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", help="qrels file: qid iter docid rel (plain or gzip)")
    parser.add_argument("run", nargs="+", metavar="RUN",
                        help="run file: qid Q0 docid rank score tag (plain or gzip); several "
                        "runs, or a quoted glob pattern ('runs/*.txt'), are each evaluated "
                        "against QRELS read once, in parallel, printed in the order given")
    parser.add_argument("-q", action="store_true", help="also print per-query values")
    parser.add_argument("-c", action="store_true",
                        help="average over every qrels query (missing ones score 0)")
    parser.add_argument("-l", type=int, default=1, metavar="N",
                        help="relevance level: rel >= N is relevant (default 1)")
    parser.add_argument("-M", type=int, default=None, metavar="N",
                        help="evaluate only the top N results of each query")
    parser.add_argument("-m", action="append", metavar="MEASURE",
                        help="measure, in trec_eval's syntax (P.5,10  ndcg_cut.10  map  "
                        "official) or rankframe's (P@10  ndcg@10  mrr@10); repeatable; "
                        "default: official")
    parser.add_argument("-n", action="store_true", help="no summary ('all') lines")
    parser.add_argument("--trec-eval9", action="store_true",
                        help="reproduce trec_eval 9.x (and pytrec_eval) where trec_eval 10 "
                        "differs: iprec_at_recall rounds recall levels up (x*R + 0.9)")
    parser.add_argument("--ties", choices=("docid", "average"), default="docid",
                        help="tied scores: break by docid as trec_eval (default), or report "
                        "the expected value over all orderings of tied documents "
                        "(P, recall, ndcg, ndcg_cut, map, map_cut, recip_rank)")
    parser.add_argument("--engine", choices=faces.ENGINES, default="polars",
                        help="engine that computes the metrics (same output)")
    parser.add_argument("--format", choices=("trec", "csv", "json", "parquet"),
                        default="trec",
                        help="output format (default trec: each run as trec_eval prints it); "
                        "csv/json for several runs and parquet: one table with columns run "
                        "(the file as given), qid, measure, value")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE instead of stdout")
    parser.add_argument("--threads", type=int, default=None, metavar="N",
                        help="runs evaluated at once (default: the number of CPUs, at most 4)")
    parser.set_defaults(handler=run)
    return parser


def _write(lines: list[trec_eval.Line], fmt: str, out: Any) -> None:
    """One run's lines: trec_eval's text, or csv (measure,qid,value) or json (all,
    per_query)."""
    if fmt == "trec":
        for line in lines:
            out.write(trec_eval.format_line(line) + "\n")
    elif fmt == "csv":
        out.write("measure,qid,value\n")
        for line in lines:
            text = line.value if isinstance(line.value, str) else repr(line.value)
            out.write(f"{line.name},{line.query},{text}\n")
    else:
        import json  # only this format needs it

        per_query: dict[str, dict[str, Any]] = {}
        for line in lines:
            per_query.setdefault(line.query, {})[line.name] = line.value
        summary = per_query.pop("all", {})
        json.dump({"all": summary, "per_query": per_query}, out, indent=1)
        out.write("\n")


def _tidy(name: str, lines: list[trec_eval.Line]) -> pl.DataFrame:
    """One run's lines as rows (run, qid, measure, value); the runid line is left out, the
    run column names the run."""
    rows = [line for line in lines if not isinstance(line.value, str)]
    return pl.DataFrame(
        {"run": [name] * len(rows), "qid": [line.query for line in rows],
         "measure": [line.name for line in rows], "value": [float(line.value) for line in rows]},
        schema={"run": pl.String, "qid": pl.String, "measure": pl.String, "value": pl.Float64},
    )


def _write_table(table: pl.DataFrame, fmt: str, out: Any) -> None:
    """The tidy table of every run as csv, json (a list of records) or parquet."""
    if fmt == "parquet":
        table.write_parquet(out)
    elif fmt == "csv":
        out.write(table.write_csv())
    else:
        out.write(table.write_json() + "\n")


def run_paths(specs: list[str]) -> list[str]:
    """The run files named on the command line: a name as given when such a file exists or
    it has no glob characters, else the files the pattern matches, sorted.

    Raises
    ------
    InputError
        A pattern matches no file.
    """
    paths: list[str] = []
    for spec in specs:
        if os.path.exists(spec) or not any(c in spec for c in "*?["):
            paths.append(spec)
            continue
        found = sorted(glob.glob(spec))
        if not found:
            raise InputError(f"{spec}: no run file matches this pattern")
        paths.extend(found)
    return paths


def selection(specs: list[str] | None) -> trec_eval.Selection:
    """What ``-m`` options select: trec_eval specs as :func:`rankframe.trec_eval.select`
    reads them, rankframe measure strings under trec_eval's name for the same measure, or
    else (in the order given, after trec_eval's measures) under their canonical string."""
    if specs is None:
        return trec_eval.select(None)
    trec_specs: list[str] = []
    extra: dict[str, trec_eval.TrecMeasure] = {}
    for spec in specs:
        if trec_eval.is_spec(spec):
            trec_specs.append(spec)
            continue
        try:
            name = trec_eval_name(spec)
        except MeasureError as exc:
            if "@" in spec or "(" in spec:
                raise MeasureError(f"-m {spec}: {exc}") from None
            supported = ", ".join(m.name for m in trec_eval.TREC_MEASURES)
            raise MeasureError(
                f"-m {spec}: unknown measure {spec!r}; use a trec_eval measure ({supported}), "
                f"a nickname ({', '.join(trec_eval.NICKNAMES)}) or a rankframe measure string "
                "such as ndcg@10 (see rankframe eval --help)") from None
        if name is not None:
            trec_specs.append(trec_eval.spec_of(name))
        else:
            string = canonical(spec)
            extra[string] = trec_eval.rankframe_measure(string, parse(spec).summary)
    return trec_eval.select(trec_specs) + [(m, None) for m in extra.values()]


def run(args: argparse.Namespace) -> int:
    """Run ``rankframe eval`` from parsed arguments; print to stdout (or ``-o``), return 0."""
    if args.M is not None and not 1 <= args.M <= MAX_CUTOFF:
        raise RankframeError(
            f"-M must be a positive number of results below 2**63, got {args.M}")
    if args.l < 1:
        raise RankframeError(f"-l must be a relevance level >= 1, got {args.l}")
    if args.threads is not None and args.threads < 1:
        raise RankframeError(f"--threads must be at least 1, got {args.threads}")
    selected = selection(args.m)
    strings = trec_eval.measure_strings(selected, trec_eval9=args.trec_eval9, ties=args.ties)
    paths = run_paths(args.run)
    several = len(paths) > 1 or paths != args.run  # a pattern: the tidy table, named
    tidy = args.format == "parquet" or (several and args.format != "trec")
    if args.format == "parquet" and args.output is None and sys.stdout.isatty():
        raise RankframeError("--format parquet writes binary data: name a file with -o FILE, "
                             "or redirect stdout")
    # runid and num_q alone need only the queries: any measure lists them.
    needed = list(strings.values()) or [_QUERIES_ONLY]

    def lines_of(path: str, qrels: pl.DataFrame) -> tuple[int, list[trec_eval.Line]]:
        """(run queries without qrels, the lines trec_eval prints) for one run file."""
        per_query, runid, unjudged = _per_query(path, qrels, needed, args,
                                                name=f"run {path}" if several else "")
        per_query = per_query.rename({string: name for name, string in strings.items()})
        if not strings:
            per_query = per_query.drop(_QUERIES_ONLY)
        return unjudged, trec_eval.lines(per_query, selected, runid, per_query_lines=args.q,
                                         summaries=not args.n)

    qrels = read_qrels(args.qrels)
    results = (_evaluate_all(paths, qrels, lines_of, args.threads) if several
               else (lines for lines in [lines_of(paths[0], qrels)]))
    # Closing the results stops the runs not yet started, should writing fail (| head).
    with contextlib.closing(results), _opened(args.output, binary=args.format == "parquet") as out:
        tables = []
        for path, (unjudged, lines) in zip(paths, results, strict=True):
            if unjudged:
                note = trec_eval.unjudged_note(unjudged, f"run {path}" if several else "")
                print(f"rankframe: {note}", file=sys.stderr)
            if tidy:
                tables.append(_tidy(path, lines))
            else:
                _write(lines, args.format, out)
        if tidy:
            _write_table(pl.concat(tables), args.format, out)
    return 0


def _per_query(path: str, qrels: pl.DataFrame, needed: list[str], args: argparse.Namespace,
               name: str) -> tuple[pl.DataFrame, str, int]:
    """(per-query values of ``needed`` on the queries trec_eval evaluates, the run's tag,
    how many run queries have no qrels) for the run file at ``path``."""
    run_frame = read_run(path)
    unjudged = trec_eval.unjudged_count(run_frame, qrels)
    per_query = trec_eval_per_query(run_frame, qrels, needed, all_queries=args.c,
                                    depth=args.M, ties=args.ties, threshold=args.l,
                                    engine=args.engine, name=name)
    runid = str(run_frame["tag"][0]) if run_frame.height else ""
    return per_query, runid, unjudged


def _evaluate_all(paths: list[str], qrels: pl.DataFrame, lines_of: Any,
                  threads: int | None) -> Generator[tuple[int, list[trec_eval.Line]]]:
    """``lines_of(path, qrels)`` for every path, on a thread pool, yielded in path order;
    an error stops the runs not yet started."""
    workers = threads or min(os.cpu_count() or 1, 4)
    pool = ThreadPoolExecutor(max_workers=min(workers, len(paths)))
    try:
        futures = [pool.submit(lines_of, path, qrels) for path in paths]
        for future in futures:
            yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class _opened:
    """stdout, or the ``-o`` file (text, or binary for parquet), as a context manager."""

    def __init__(self, path: str | None, *, binary: bool) -> None:
        self.path, self.binary = path, binary
        self.file: Any = None

    def __enter__(self) -> Any:
        if self.path is None:
            return sys.stdout.buffer if self.binary else sys.stdout
        self.file = open(self.path, "wb" if self.binary else "w")
        return self.file

    def __exit__(self, *exc: object) -> None:
        if self.file is not None:
            self.file.close()

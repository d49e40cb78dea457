"""The ``rankframe`` command line: ``rankframe eval`` (a trec_eval drop-in) and friends."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

import polars as pl

from rankframe import __version__, trec_eval
from rankframe.errors import RankframeError
from rankframe.evaluate import evaluate, evaluate_run
from rankframe.io import read_qrels, read_run
from rankframe.measures import measure_names
from rankframe.table.judge import Ties, judge
from rankframe.trec_eval import NICKNAMES, TREC_MEASURES, format_line, select


def _measure_help() -> str:
    trec = ", ".join(m.name for m in TREC_MEASURES)
    nick = "; ".join(f"{k} = {' '.join(v)}" for k, v in NICKNAMES.items())
    grammar = "\n".join(f"  {name:<16} {text}" for name, text in measure_names().items())
    return (
        f"trec_eval measures (-m name or -m name.p1,p2): {trec}\n"
        f"nicknames: {nick}\n\n"
        "rankframe measure strings (Python evaluate(), name[(param=value)][@cutoff]):\n"
        f"{grammar}"
    )


def _eval_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "eval",
        help="evaluate a TREC run against qrels, printing what trec_eval prints",
        description="Evaluate RUN against QRELS; output is byte-compatible with trec_eval 9.x "
        "for the supported measures.",
        epilog=_measure_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", help="qrels file: qid iter docid rel (plain or gzip)")
    parser.add_argument("run", help="run file: qid Q0 docid rank score tag (plain or gzip)")
    parser.add_argument("-q", action="store_true", help="also print per-query values")
    parser.add_argument("-c", action="store_true",
                        help="average over every qrels query (missing ones score 0)")
    parser.add_argument("-l", type=int, default=1, metavar="N",
                        help="relevance level: rel >= N is relevant (default 1)")
    parser.add_argument("-M", type=int, default=None, metavar="N",
                        help="evaluate only the top N results of each query")
    parser.add_argument("-m", action="append", metavar="MEASURE",
                        help="measure (trec_eval syntax: P.5,10  ndcg_cut.10  map  official); "
                        "repeatable; default: official")
    parser.add_argument("-n", action="store_true", help="no summary ('all') lines")
    parser.add_argument("--trec-eval9", action="store_true",
                        help="reproduce trec_eval 9.x (and pytrec_eval) where trec_eval 10 "
                        "differs: iprec_at_recall rounds recall levels up (x*R + 0.9)")
    parser.add_argument("--ties", choices=("docid", "average"), default="docid",
                        help="tied scores: break by docid as trec_eval (default), or report "
                        "the expected value over all orderings of tied documents "
                        "(P, recall, ndcg, ndcg_cut, map, map_cut, recip_rank)")
    parser.add_argument("--engine", choices=("polars", "duckdb"), default="polars",
                        help="engine that computes the metrics (same output)")
    parser.add_argument("--format", choices=("trec", "csv", "json"), default="trec",
                        help="output format (default trec)")
    parser.set_defaults(handler=_run_eval)


def _print(lines: list[trec_eval.Line], fmt: str) -> None:
    out = sys.stdout
    if fmt == "trec":
        for line in lines:
            out.write(format_line(line) + "\n")
    elif fmt == "csv":
        out.write("measure,qid,value\n")
        for line in lines:
            text = line.value if isinstance(line.value, str) else repr(line.value)
            out.write(f"{line.name},{line.query},{text}\n")
    else:
        per_query: dict[str, dict[str, Any]] = {}
        for line in lines:
            per_query.setdefault(line.query, {})[line.name] = line.value
        summary = per_query.pop("all", {})
        json.dump({"all": summary, "per_query": per_query}, out, indent=1)
        out.write("\n")


def judged_run(run: pl.DataFrame, qrels: pl.DataFrame, *, complete: bool,
               depth: int | None = None, name: str = "", ties: Ties = "docid"
               ) -> pl.DataFrame:
    """The judged table the commands evaluate, as trec_eval would choose its queries.

    Run queries without qrels are left out (and counted on stderr); qrels queries without
    results are kept only when ``complete`` (trec_eval ``-c``), scoring 0.
    """
    judged = judge(run, qrels, depth=depth, ties=ties)
    return _trec_eval_queries(judged, run, qrels, complete=complete, name=name)


def _trec_eval_queries(table: pl.DataFrame, run: pl.DataFrame, qrels: pl.DataFrame, *,
                       complete: bool, name: str = "") -> pl.DataFrame:
    """``table`` on the queries trec_eval evaluates, run queries without qrels counted on
    stderr (see :func:`rankframe.trec_eval.select_queries`)."""
    unjudged = trec_eval.unjudged_count(run, qrels)
    if unjudged:
        print(f"rankframe: {trec_eval.unjudged_note(unjudged, name)}", file=sys.stderr)
    return trec_eval.select_queries(table, run, complete=complete, name=name)


def _run_eval(args: argparse.Namespace) -> int:
    if args.M is not None and args.M < 1:
        raise RankframeError(f"-M must be a positive number of results, got {args.M}")
    if args.l < 1:
        raise RankframeError(f"-l must be a relevance level >= 1, got {args.l}")
    selected = select(args.m)
    run, qrels = read_run(args.run), read_qrels(args.qrels)
    labels = trec_eval.measure_strings(selected, trec_eval9=args.trec_eval9, ties=args.ties)
    if args.ties == "docid":
        # One call: without building the judged table when the measures allow it.
        per_query = evaluate_run(run, qrels, list(labels.values()), depth=args.M,
                                 engine=args.engine, threshold=args.l)
        per_query = _trec_eval_queries(per_query, run, qrels, complete=args.c)
    else:
        judged = judged_run(run, qrels, complete=args.c, depth=args.M, ties=args.ties)
        per_query = evaluate(judged, list(labels.values()), engine=args.engine,
                             threshold=args.l)
    per_query = per_query.rename({label: name for name, label in labels.items()})
    runid = str(run["tag"][0]) if run.height else ""
    lines = trec_eval.lines(per_query, selected, runid, per_query_lines=args.q,
                            summaries=not args.n)
    _print(lines, args.format)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rankframe",
        description="Ranking metrics where the data lives: Polars expressions, DuckDB macros, "
        "and a trec_eval-compatible command line.",
        epilog=_measure_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"rankframe {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    _eval_parser(subparsers)
    try:
        from rankframe.cli import compare as cli_compare
    except ImportError:  # pragma: no cover - the compare command is optional
        pass
    else:
        cli_compare.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``rankframe`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return 2
    try:
        status: int = args.handler(args)
    except (RankframeError, OSError) as exc:
        print(f"rankframe: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # pragma: no cover
        return 130
    return status

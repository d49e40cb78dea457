"""The ``rankframe eval`` subcommand: a trec_eval drop-in.

``rankframe eval [-q] [-c] [-l N] [-M N] [-m MEASURE ...] QRELS RUN``

What to compute and print is trec_eval's knowledge (:mod:`rankframe.trec_eval`: ``-m``
syntax, printed names, order, summaries, query selection, line format); the values come
from :func:`rankframe.analysis.runs.trec_eval_run_file`. ``-m`` also takes rankframe
measure strings (``ndcg@10``): printed under trec_eval's name for the same measure
(:func:`rankframe.measures.trec_eval_name`), else under their canonical string, after
trec_eval's measures. This module reads the options and writes the lines (trec, csv or
json).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rankframe import faces, trec_eval
from rankframe.analysis.runs import trec_eval_run_file
from rankframe.errors import MeasureError, RankframeError
from rankframe.io import read_qrels
from rankframe.measures import canonical, measure_names, parse, trec_eval_name
from rankframe.validation import MAX_CUTOFF

__all__ = ["add_parser", "measure_help", "run", "selection"]

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
        description="Evaluate RUN against QRELS; output is byte-compatible with trec_eval 9.x "
        "for the supported measures.",
        epilog=measure_help(),
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
    parser.add_argument("--format", choices=("trec", "csv", "json"), default="trec",
                        help="output format (default trec)")
    parser.set_defaults(handler=run)
    return parser


def _write(lines: list[trec_eval.Line], fmt: str) -> None:
    out = sys.stdout
    if fmt == "trec":
        for line in lines:
            out.write(trec_eval.format_line(line) + "\n")
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
    """Run ``rankframe eval`` from parsed arguments; print to stdout, return 0."""
    if args.M is not None and not 1 <= args.M <= MAX_CUTOFF:
        raise RankframeError(
            f"-M must be a positive number of results below 2**63, got {args.M}")
    if args.l < 1:
        raise RankframeError(f"-l must be a relevance level >= 1, got {args.l}")
    selected = selection(args.m)
    qrels = read_qrels(args.qrels)
    strings = trec_eval.measure_strings(selected, trec_eval9=args.trec_eval9, ties=args.ties)
    # runid and num_q alone need only the queries: any measure lists them.
    needed = list(strings.values()) or [_QUERIES_ONLY]
    per_query, runid, unjudged = trec_eval_run_file(
        args.run, qrels, needed, all_queries=args.c, depth=args.M, ties=args.ties,
        threshold=args.l, engine=args.engine)
    if unjudged:
        print(f"rankframe: {trec_eval.unjudged_note(unjudged)}", file=sys.stderr)
    per_query = per_query.rename({string: name for name, string in strings.items()})
    if not strings:
        per_query = per_query.drop(_QUERIES_ONLY)
    lines = trec_eval.lines(per_query, selected, runid, per_query_lines=args.q,
                            summaries=not args.n)
    _write(lines, args.format)
    return 0

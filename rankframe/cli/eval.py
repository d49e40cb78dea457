"""The ``rankframe eval`` subcommand: a trec_eval drop-in.

``rankframe eval [-q] [-c] [-J] [-l N] [-M N] [-R FORMAT] [-m MEASURE ...] QRELS RUN``;
``rankframe eval -h -m NAME`` describes measures.

What to compute and print is trec_eval's knowledge (:mod:`rankframe.trec_eval`: ``-m``
syntax, printed names, order, summaries, query selection, line format); the values come
from :func:`rankframe.analysis.runs.trec_eval_per_query`. ``-m`` also takes rankframe
measure strings (``ndcg@10``): printed under trec_eval's name for the same measure
(:func:`rankframe.measures.trec_eval_name`), else under their canonical string, after
trec_eval's measures. This module reads the options and writes the lines (trec, csv or
json).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

import polars as pl

from rankframe import faces, trec_eval
from rankframe.analysis.runs import trec_eval_per_query
from rankframe.errors import MeasureError, RankframeError
from rankframe.faces.duckdb import evaluate_prefs
from rankframe.io import read_prefs, read_qrels, read_qrels_prefs, read_run
from rankframe.measures import canonical, measure_names, parse, trec_eval_name
from rankframe.metrics.prefs import prefs_evaluate
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
        "rankframe's\n"
        f"with -R prefs or -R qrels_prefs: {', '.join(m.name for m in trec_eval.PREFS_MEASURES)}"
        "; nicknames all_prefs (all of them) and prefs (the default)\n\n"
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
        add_help=False,
    )
    parser.add_argument("-h", "--help", action="store_true", dest="help",
                        help="show this help; with -m NAME, describe that measure instead")
    parser.add_argument("qrels", nargs="?",
                        help="qrels file: qid iter docid rel (plain or gzip)")
    parser.add_argument("run", nargs="?",
                        help="run file: qid Q0 docid rank score tag (plain or gzip)")
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
    parser.add_argument("-J", action="store_true",
                        help="judged documents only: results without a grade >= 0 are removed "
                        "from each ranking (after -M) before any measure")
    parser.add_argument("-R", default="qrels", choices=tuple(FORMATS), metavar="FORMAT",
                        help="format of the relevance file: qrels (default); prefs (qid jg jsg "
                        "docid level) or qrels_prefs (qrels read as preferences), for the "
                        "prefs_* measures (-m all_prefs)")
    parser.add_argument("--trec-eval9", action="store_true",
                        help="reproduce trec_eval 9.x (and pytrec_eval) where trec_eval 10 "
                        "differs: iprec_at_recall rounds recall levels up (x*R + 0.9); -c -q "
                        "prints no per-query lines for queries without results")
    parser.add_argument("--ties", choices=("docid", "average"), default="docid",
                        help="tied scores: break by docid as trec_eval (default), or report "
                        "the expected value over all orderings of tied documents "
                        "(P, recall, ndcg, ndcg_cut, map, map_cut, recip_rank)")
    parser.add_argument("--engine", choices=faces.ENGINES, default="polars",
                        help="engine that computes the metrics (same output)")
    parser.add_argument("--format", choices=("trec", "csv", "json"), default="trec",
                        help="output format (default trec)")
    parser.set_defaults(handler=run, eval_parser=parser)
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
    if args.help:  # -h: the usage; -h -m NAME: what each named measure is (as trec_eval)
        if args.m:
            sys.stdout.write("".join(trec_eval.describe(spec) for spec in args.m))
        else:
            args.eval_parser.print_help()
        return 0
    if args.qrels is None or args.run is None:
        raise RankframeError("eval needs two files, QRELS and RUN (rankframe eval -h: usage)")
    if args.M is not None and not 1 <= args.M <= MAX_CUTOFF:
        raise RankframeError(
            f"-M must be a positive number of results below 2**63, got {args.M}")
    if args.l < 1:
        raise RankframeError(f"-l must be a relevance level >= 1, got {args.l}")
    _write(FORMATS[args.R](args), args.format)
    return 0


def _qrels_lines(args: argparse.Namespace) -> list[trec_eval.Line]:
    """The lines for ``-R qrels`` (the default): every measure but the preference ones."""
    selected = selection(args.m)
    run_frame, qrels = read_run(args.run), read_qrels(args.qrels)
    strings = trec_eval.measure_strings(selected, trec_eval9=args.trec_eval9, ties=args.ties)
    unjudged = trec_eval.unjudged_count(run_frame, qrels)
    if unjudged:
        print(f"rankframe: {trec_eval.unjudged_note(unjudged)}", file=sys.stderr)
    # runid and num_q alone need only the queries: any measure lists them.
    needed = list(dict.fromkeys(strings.values())) or [_QUERIES_ONLY]
    per_query = trec_eval_per_query(run_frame, qrels, needed,
                                    all_queries=args.c, depth=args.M, ties=args.ties,
                                    threshold=args.l, engine=args.engine, judged_only=args.J)
    # One column per printed name (two names may share a measure string).
    per_query = per_query.select(
        "qid", *(pl.col(string).alias(name) for name, string in strings.items()))
    runid = str(run_frame["tag"][0]) if run_frame.height else ""
    # trec_eval's num_rel under -c sums the qrels' grades > 0, whatever -l (m_num_rel.c).
    num_rel_all = int((qrels["rel"] > 0).sum()) if args.c else None
    printed = None
    if args.trec_eval9 and args.c:  # 9.x prints no lines for queries without results
        printed = per_query["qid"].is_in(run_frame["qid"].unique().implode())
    return trec_eval.lines(per_query, selected, runid, per_query_lines=args.q,
                           summaries=not args.n, judged_only=args.J,
                           num_rel_all=num_rel_all, printed=printed)


#: -R prefs / qrels_prefs: the reader of the relevance file; --engine: what computes them.
_PREFS_READERS: dict[str, Callable[[str], pl.DataFrame]] = {
    "prefs": read_prefs, "qrels_prefs": read_qrels_prefs}
_PREFS_ENGINES: dict[str, Callable[..., pl.DataFrame]] = {
    "polars": prefs_evaluate, "duckdb": evaluate_prefs}


def _prefs_lines(args: argparse.Namespace) -> list[trec_eval.Line]:
    """The lines for ``-R prefs`` or ``-R qrels_prefs``: trec_eval's ``prefs_*`` measures
    (:func:`rankframe.trec_eval.select_prefs`; no ``-m``: the ``prefs`` nickname)."""
    if args.ties != "docid":
        raise RankframeError("--ties average: the preference measures have no tie-aware form")
    # -J is ignored here, as trec_eval's preference code ignores it (form_prefs_counts.c).
    if args.engine not in _PREFS_ENGINES:
        raise RankframeError(f"--engine {args.engine}: -R {args.R} is computed by "
                             f"{' or '.join(_PREFS_ENGINES)}")
    selected = trec_eval.select_prefs(args.m)
    run_frame, prefs = read_run(args.run), _PREFS_READERS[args.R](args.qrels)
    unjudged = trec_eval.unjudged_count(run_frame, prefs)
    if unjudged:
        print(f"rankframe: {trec_eval.unjudged_note(unjudged)}", file=sys.stderr)
    per_query = _PREFS_ENGINES[args.engine](prefs, run_frame, depth=args.M, complete=args.c)
    if per_query.height == 0:
        raise RankframeError(f"{args.run}: no queries with both results and relevance info")
    return trec_eval.lines(per_query, selected, str(run_frame["tag"][0]),
                           per_query_lines=args.q, summaries=not args.n)


#: -R: relevance-file format -> the function computing the lines to print.
FORMATS: dict[str, Callable[[argparse.Namespace], list[trec_eval.Line]]] = {
    "qrels": _qrels_lines,
    "prefs": _prefs_lines,
    "qrels_prefs": _prefs_lines,
}

"""The ``rankframe eval`` subcommand: a trec_eval drop-in.

``rankframe eval [-q] [-c] [-n] [-l N] [-M N] [-N N] [-D N[.QID]] [-R FORMAT] [-T FORMAT]
[-Z FILE] [-o] [-v] [-m MEASURE ...] QRELS RUN``

What to compute and print is trec_eval's knowledge (:mod:`rankframe.trec_eval`: ``-m``
syntax, printed names, order, summaries, query selection, line format); the values come
from :func:`rankframe.analysis.runs.trec_eval_per_query`. ``-m`` also takes rankframe
measure strings (``ndcg@10``): printed under trec_eval's name for the same measure
(:func:`rankframe.measures.trec_eval_name`), else under their canonical string, after
trec_eval's measures. ``-R`` picks the relevance-information format from :data:`FORMATS`
(how to read the file and compute the per-query values). This module reads the options and
writes the lines (trec, csv or json).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import polars as pl

from rankframe import __version__, faces, groups, trec_eval
from rankframe.analysis.runs import trec_eval_per_query
from rankframe.errors import MeasureError, RankframeError
from rankframe.io import read_qrels, read_qrels_jg, read_run, read_zscores
from rankframe.measures import canonical, measure_names, parse, trec_eval_name
from rankframe.validation import MAX_CUTOFF

__all__ = ["FORMATS", "RelFormat", "add_parser", "measure_help", "run", "selection"]

_QUERIES_ONLY = "num_ret"
#: The trec_eval release whose output ``rankframe eval`` reproduces (``-v``).
TREC_EVAL_VERSION = "10.0-rc3"


@dataclass(frozen=True)
class RelFormat:
    """A relevance-information format of ``-R``: how to read its file, and the per-query
    values of measure strings for a run against it (a ``qid`` column, one column per
    measure string, on the queries trec_eval evaluates)."""

    read: Callable[[str], pl.DataFrame]
    per_query: Callable[[pl.DataFrame, pl.DataFrame, list[str], argparse.Namespace],
                        pl.DataFrame]


def _qrels_per_query(run: pl.DataFrame, qrels: pl.DataFrame, needed: list[str],
                     args: argparse.Namespace) -> pl.DataFrame:
    return trec_eval_per_query(run, qrels, needed, all_queries=args.c, depth=args.M,
                               ties=args.ties, threshold=args.l, engine=args.engine)


def _groups_per_query(run: pl.DataFrame, qrels_jg: pl.DataFrame, needed: list[str],
                      args: argparse.Namespace) -> pl.DataFrame:
    """Each measure per (query, judgment group), then averaged over the query's groups."""
    if args.ties != "docid":
        raise RankframeError("-R qrels_jg: --ties average is not available for judgment groups")
    keyed_run, keyed_qrels, mapping = groups.group_keys(run, qrels_jg)
    per_group = trec_eval_per_query(keyed_run, keyed_qrels, needed, all_queries=args.c,
                                    depth=args.M, threshold=args.l, engine=args.engine)
    return groups.average_groups(groups.unkey(per_group, mapping))


#: ``-R`` formats: trec_eval's name -> reader and evaluation.
FORMATS: dict[str, RelFormat] = {
    "qrels": RelFormat(read_qrels, _qrels_per_query),
    "qrels_jg": RelFormat(read_qrels_jg, _groups_per_query),
}
#: ``-T`` formats (trec_eval 10 has one).
RESULTS_FORMATS = ("trec_results",)


class _Version(argparse.Action):
    """``-v``: print the version to stderr and exit 0, as trec_eval does."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> NoReturn:
        print(f"rankframe eval {__version__} (trec_eval version {TREC_EVAL_VERSION} "
              "compatible)", file=sys.stderr)
        parser.exit(0)


def _debug(text: str) -> tuple[int, str | None]:
    """``-D level[.qid]`` as trec_eval reads it: the level, and the one query to evaluate."""
    level, dot, qid = text.partition(".")
    try:
        number = int(level)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a debug level, optionally .QID (e.g. 0 or 1.301), got {text!r}") from None
    return number, (qid if dot else None)


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
    parser.add_argument("-R", default="qrels", metavar="FORMAT",
                        help="format of QRELS: qrels (default; qid iter docid rel) or qrels_jg "
                        "(qid jg docid rel: judgment groups, for -m qrels_jg)")
    parser.add_argument("-T", default="trec_results", metavar="FORMAT",
                        help="format of RUN: trec_results (the only one, as in trec_eval 10)")
    parser.add_argument("-Z", metavar="FILE",
                        help="print z-scores: (value - mean) / stddev per query and measure, "
                        "from FILE's lines 'qid measure mean stddev' (-1000000 where missing)")
    parser.add_argument("-N", type=int, default=0, metavar="N",
                        help="number of documents in the collection (trec_eval -N, which only "
                        "its utility measure reads; default 0)")
    parser.add_argument("-D", type=_debug, default=(0, None), metavar="N[.QID]",
                        help="trec_eval's debug level: no trace is printed; N.QID evaluates "
                        "query QID only, as trec_eval does")
    parser.add_argument("-o", action="store_true",
                        help="old output format: ignored, as by trec_eval 10")
    parser.add_argument("-v", action=_Version, help="print the version and exit")
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
        return
    named = [("Z" if line.zscore else "") + line.name for line in lines]
    if fmt == "csv":
        out.write("measure,qid,value\n")
        for name, line in zip(named, lines, strict=True):
            text = line.value if isinstance(line.value, str) else repr(line.value)
            out.write(f"{name},{line.query},{text}\n")
    else:
        per_query: dict[str, dict[str, Any]] = {}
        for name, line in zip(named, lines, strict=True):
            per_query.setdefault(line.query, {})[name] = line.value
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


def _check_formats(selected: trec_eval.Selection, rel_format: str) -> None:
    """Every selected measure is computed from the ``-R`` format."""
    for needs, names in trec_eval.formats(selected).items():
        if needs != rel_format:
            raise MeasureError(
                f"-R {rel_format}: {', '.join(names)} "
                f"{'needs' if len(names) == 1 else 'need'} -R {needs}"
                + (" (judgment groups: -m qrels_jg)" if rel_format == "qrels_jg" else ""))


def _zscores(path: str | None) -> trec_eval.ZScores | None:
    if path is None:
        return None
    table: dict[str, dict[str, tuple[float, float]]] = {}
    for qid, name, mean, stddev in read_zscores(path).iter_rows():
        table.setdefault(qid, {})[name] = (mean, stddev)
    return table


def run(args: argparse.Namespace) -> int:
    """Run ``rankframe eval`` from parsed arguments; print to stdout, return 0."""
    if args.M is not None and not 1 <= args.M <= MAX_CUTOFF:
        raise RankframeError(
            f"-M must be a positive number of results below 2**63, got {args.M}")
    if args.l < 1:
        raise RankframeError(f"-l must be a relevance level >= 1, got {args.l}")
    rel_format = FORMATS.get(args.R)
    if rel_format is None:
        raise RankframeError(f"-R: unknown relevance format {args.R!r}; "
                             f"known: {', '.join(FORMATS)}")
    if args.T not in RESULTS_FORMATS:
        raise RankframeError(f"-T: unknown results format {args.T!r}; "
                             f"known: {', '.join(RESULTS_FORMATS)}")
    selected = selection(args.m)
    _check_formats(selected, args.R)
    zscores = _zscores(args.Z)
    run_frame, qrels = read_run(args.run), rel_format.read(args.qrels)
    strings = trec_eval.measure_strings(selected, trec_eval9=args.trec_eval9, ties=args.ties)
    unjudged = trec_eval.unjudged_count(run_frame, qrels)
    if unjudged:
        print(f"rankframe: {trec_eval.unjudged_note(unjudged)}", file=sys.stderr)
    # runid and num_q alone need only the queries: any measure lists them.
    needed = list(dict.fromkeys(strings.values())) or [_QUERIES_ONLY]
    per_query = rel_format.per_query(run_frame, qrels, needed, args)
    per_query = per_query.select(
        "qid", *(pl.col(string).alias(name) for name, string in strings.items()))
    _, only = args.D
    if only is not None:  # -D level.qid: that query alone, as trec_eval
        per_query = per_query.filter(pl.col("qid") == only)
        if per_query.height == 0:
            raise RankframeError(f"-D {args.D[0]}.{only}: no query {only!r} with both results "
                                 "and relevance info")
    runid = str(run_frame["tag"][0]) if run_frame.height else ""
    lines = trec_eval.lines(per_query, selected, runid, per_query_lines=args.q,
                            summaries=not args.n, zscores=zscores)
    _write(lines, args.format)
    return 0

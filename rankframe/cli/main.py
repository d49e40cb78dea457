"""The ``rankframe`` command line: ``rankframe eval`` (a trec_eval drop-in) and friends."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from typing import Any

import polars as pl

from rankframe import __version__
from rankframe.errors import RankframeError
from rankframe.evaluate import evaluate, evaluate_run
from rankframe.io import read_qrels, read_run
from rankframe.measures import GEOMETRIC_MEAN_FLOOR, measure_names
from rankframe.table.judge import Ties, judge
from rankframe.table.series import run_starts
from rankframe.trec_eval import NICKNAMES, TREC_MEASURES, TrecMeasure, format_line, select

_ELEVEN_POINTS = [f"iprec_at_recall_{i / 10:3.2f}" for i in range(11)]


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


# trec_eval measures with a tie-aware form (McSherry & Najork), for --ties average.
_TIE_AWARE = {"P": "P_ties", "recall": "recall_ties", "ndcg": "ndcg_ties",
              "ndcg_cut": "ndcg_ties", "map": "map_ties", "map_cut": "map_ties",
              "recip_rank": "mrr_ties"}


def _label(measure: TrecMeasure, name: str, *, trec_eval9: bool, ties: str) -> str:
    """The rankframe measure string behind one printed trec_eval name."""
    suffix = name[len(measure.name):].lstrip("_")
    if measure.name in ("rbp", "rbp_resid", "set_F"):
        return f"{measure.name}@{suffix or measure.defaults[0]}"
    if ties == "average" and measure.kind != "count":
        if measure.name not in _TIE_AWARE:
            raise RankframeError(f"--ties average: {measure.name} has no tie-aware form; "
                                 f"those with one: {', '.join(_TIE_AWARE)}")
        return _TIE_AWARE[measure.name] + (f"@{suffix}" if suffix else "")
    if trec_eval9 and measure.name in ("iprec_at_recall", "11pt_avg"):
        return f"iprec(rounding=trec_eval9)@{name.rsplit('_', 1)[1]}"
    return name  # trec_eval names parse as rankframe measures


def _labels(selected: list[tuple[TrecMeasure, tuple[float, ...] | None]],
            *, trec_eval9: bool, ties: str = "docid") -> dict[str, str]:
    """Printed name -> rankframe measure string for every column ``selected`` needs.

    11pt_avg needs the eleven iprec_at_recall columns; under ``trec_eval9`` those get
    trec_eval 9.x's recall-level rounding (see :func:`rankframe.iprec_at_recall`).
    """
    labels: dict[str, str] = {}
    for measure, params in selected:
        if measure.kind in ("runid", "num_q"):
            continue
        if measure.name == "11pt_avg":
            iprec = next(m for m in TREC_MEASURES if m.name == "iprec_at_recall")
            for name in _ELEVEN_POINTS:
                labels[name] = _label(iprec, name, trec_eval9=trec_eval9, ties=ties)
            continue
        for name in measure.names(params):
            labels[name] = _label(measure, name, trec_eval9=trec_eval9, ties=ties)
    return labels


def _summary(name: str, values: list[Any], kind: str, n: int) -> float | int:
    if kind == "count":
        return sum(int(v) for v in values)
    if name == "gm_map":
        logs = 0.0
        for v in values:
            logs += math.log(max(v, GEOMETRIC_MEAN_FLOOR))
        return math.exp(logs / n)
    total = 0.0
    for v in values:  # left to right, as trec_eval accumulates
        total += v
    return total / n


def _rows(per_query: pl.DataFrame, selected: list[tuple[TrecMeasure, tuple[float, ...] | None]],
          runid: str, *, per_query_lines: bool, summary: bool
          ) -> list[tuple[str, str, float | int | str, bool]]:
    """(measure, query, value, is_integer) in trec_eval's print order."""
    table = per_query
    if any(m.name == "11pt_avg" for m, _ in selected):
        table = table.with_columns(pl.mean_horizontal(_ELEVEN_POINTS).alias("11pt_avg"))
    queries = table["qid"].to_list()
    columns = {c: table[c].to_list() for c in table.columns}
    printable = [(m, name) for m, params in selected
                 if m.kind not in ("runid", "num_q") for name in m.names(params)]
    rows: list[tuple[str, str, float | int | str, bool]] = []
    if per_query_lines:
        for i, qid in enumerate(queries):
            for measure, name in printable:
                if measure.kind != "summary_only":
                    rows.append((name, str(qid), columns[name][i], measure.kind == "count"))
    if summary:
        n = len(queries)
        for measure, params in selected:
            if measure.kind == "runid":
                rows.append(("runid", "all", runid, False))
            elif measure.kind == "num_q":
                rows.append(("num_q", "all", n, True))
            else:
                for name in measure.names(params):
                    value = _summary(name, columns[name], measure.kind, n)
                    rows.append((name, "all", value, measure.kind == "count"))
    return rows


def _print(rows: list[tuple[str, str, float | int | str, bool]], fmt: str) -> None:
    out = sys.stdout
    if fmt == "trec":
        for name, qid, value, integer in rows:
            out.write(format_line(name, qid, value, integer=integer) + "\n")
    elif fmt == "csv":
        out.write("measure,qid,value\n")
        for name, qid, value, _ in rows:
            text = value if isinstance(value, str) else repr(value)
            out.write(f"{name},{qid},{text}\n")
    else:
        per_query: dict[str, dict[str, Any]] = {}
        for name, qid, value, _ in rows:
            per_query.setdefault(qid, {})[name] = value
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
    """``table`` (judged or per-query, from ``run`` and ``qrels``) on the queries trec_eval
    evaluates: run queries without qrels are counted on stderr (judge left them out), and
    qrels queries without results are dropped unless ``complete``."""
    where = f"{name}: " if name else ""
    queries = _distinct(run.get_column("qid"))
    unjudged = queries.filter(queries.is_in(qrels.get_column("qid").implode()).not_()).len()
    if unjudged:
        noun, verb = ("query has", "was") if unjudged == 1 else ("queries have", "were")
        print(f"rankframe: {where}{unjudged} run {noun} no qrels and {verb} not evaluated",
              file=sys.stderr)
    if not complete:
        table = table.filter(pl.col("qid").is_in(queries.implode()))
    if table.height == 0:
        raise RankframeError(f"{where}no queries with both results and relevance info")
    return table


def _distinct(queries: pl.Series) -> pl.Series:
    """The distinct values of ``queries``: from the first row of each run of equal values
    when those are distinct already (a run file groups its queries), else by hashing."""
    heads = queries.gather(run_starts(queries))
    return heads if heads.n_unique() == heads.len() else queries.unique()


def _run_eval(args: argparse.Namespace) -> int:
    if args.M is not None and args.M < 1:
        raise RankframeError(f"-M must be a positive number of results, got {args.M}")
    if args.l < 1:
        raise RankframeError(f"-l must be a relevance level >= 1, got {args.l}")
    selected = select(args.m)
    run, qrels = read_run(args.run), read_qrels(args.qrels)
    labels = _labels(selected, trec_eval9=args.trec_eval9, ties=args.ties)
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
    rows = _rows(per_query, selected, runid, per_query_lines=args.q, summary=not args.n)
    _print(rows, args.format)
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

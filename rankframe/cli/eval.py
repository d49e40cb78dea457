"""The ``rankframe eval`` subcommand: a trec_eval drop-in.

``rankframe eval [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] [-D N[.QID]] [-R FORMAT]
[-T FORMAT] [-Z FILE] [-o] [-v] [-m MEASURE ...] QRELS RUN [RUN ...]``; ``rankframe eval
-h -m NAME`` describes measures.

What to compute and print is trec_eval's knowledge (:mod:`rankframe.trec_eval`: ``-m``
syntax, printed names, order, summaries, query selection, line format); the values come
from :func:`rankframe.analysis.runs.trec_eval_run_file`. ``-m`` also takes rankframe
measure strings (``ndcg@10``): printed under trec_eval's name for the same measure
(:func:`rankframe.measures.trec_eval_name`), else under their canonical string, after
trec_eval's measures. ``-R`` picks the relevance-information format (:data:`FORMATS`: how
to read the file and evaluate a run against it). This module reads the options and writes
the lines: trec_eval's text, or one tidy table (csv, json or parquet; columns run, qid,
measure, value) for any number of runs, through :mod:`rankframe.cli.eval_output`. The run ``-``
is standard input, as for trec_eval.

Several runs (or a quoted glob pattern) are evaluated against the relevance file read once,
on a thread pool (Polars releases the GIL), and printed in the order given, each as
trec_eval prints it: the shell loop around trec_eval in one process.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any, NoReturn

from rankframe import __version__, faces, trec_eval
from rankframe.cli import eval_items, eval_output
from rankframe.cli.eval_plan import FORMATS, Plan, RunEvaluator, plan, selection
from rankframe.errors import InputError, RankframeError
from rankframe.measures import measure_names
from rankframe.validation import MAX_CUTOFF

__all__ = ["ENGINES", "FORMATS", "Plan", "add_parser", "measure_help", "plan", "run",
           "run_paths", "selection"]


#: The trec_eval release whose output ``rankframe eval`` reproduces (``-v``).
TREC_EVAL_VERSION = "10.0-rc3"


#: --engine: ``auto`` (pure Python for small plain inputs, else Polars), ``python`` (pure
#: Python, :mod:`rankframe.cli.eval_small`), or a face that evaluates Polars frames.
ENGINES = ("auto", "python", *faces.ENGINES)

#: ``-T`` formats (trec_eval 10 has one).
RESULTS_FORMATS = ("trec_results",)

#: The run read from standard input (trec_eval's ``-``; the qrels are always a file).
STDIN = "-"


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
        description="Evaluate each RUN against QRELS; the output is trec_eval 10's "
        f"(version {TREC_EVAL_VERSION}), byte for byte, for every measure rankframe computes "
        "(--trec-eval9: trec_eval 9.x's where the two differ).",
        epilog=measure_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        add_help=False,
    )
    parser.add_argument("-h", "--help", action="store_true", dest="help",
                        help="show this help; with -m NAME, describe that measure instead")
    parser.add_argument("qrels", nargs="?",
                        help="qrels file: qid iter docid rel (plain or gzip)")
    parser.add_argument("run", nargs="*", metavar="RUN",
                        help="run file: qid Q0 docid rank score tag (plain or gzip); - reads "
                        "it from standard input, as trec_eval does; several runs, or a quoted "
                        "glob pattern ('runs/*.txt'), are each evaluated against QRELS read "
                        "once, in parallel, printed in the order given")
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
    parser.add_argument("-R", default="qrels", metavar="FORMAT",
                        help="format of QRELS: qrels (default; qid iter docid rel); qrels_jg "
                        "(qid jg docid rel: judgment groups, for -m qrels_jg); prefs (qid jg "
                        "jsg docid level) or qrels_prefs (qrels read as preferences), for the "
                        "prefs_* measures (-m all_prefs)")
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
                        "differs: iprec_at_recall rounds recall levels up (x*R + 0.9); -c -q "
                        "prints no per-query lines for queries without results")
    parser.add_argument("--ties", choices=("docid", "average"), default="docid",
                        help="tied scores: break by docid as trec_eval (default), or report "
                        "the expected value over all orderings of tied documents "
                        "(P, recall, ndcg, ndcg_cut, map, map_cut, recip_rank)")
    parser.add_argument("--engine", choices=ENGINES, default="auto",
                        help="what computes the measures, with the same output: python (the "
                        "reference functions in pure Python; plain -R qrels files only), "
                        "polars or duckdb; auto (default): python for plain inputs of up to "
                        "1 MB of run text, which it finishes before Polars would have "
                        "loaded, else polars")
    parser.add_argument("--format", choices=("trec", "csv", "json", "parquet"),
                        default="trec",
                        help="output format (default trec: each run as trec_eval prints it); "
                        "csv, json and parquet: one tidy table, columns run (the file as "
                        "given), qid (empty or null on the summary rows), measure, value")
    parser.add_argument("--output", metavar="FILE",
                        help="write to FILE instead of stdout: written whole or not at all "
                        "(an error or an interrupt leaves FILE as it was); never an input; "
                        "/dev/stdout, /dev/fd/N: written through, as the shell opened it")
    parser.add_argument("--threads", type=int, default=None, metavar="N",
                        help="runs evaluated at once (default: the number of CPUs, at most 4)")
    eval_items.add_arguments(parser)
    parser.set_defaults(handler=run, eval_parser=parser)
    return parser


def _write_trec(lines: list[trec_eval.Line], out: Any) -> None:
    """One run's lines as trec_eval prints them (line by line: a large write that a closed
    pipe cuts short may not report it)."""
    for line in lines:
        out.write(trec_eval.format_line(line) + "\n")


def _write_tidy(runs: list[tuple[str, list[trec_eval.Line]]], fmt: str, out: Any) -> None:
    """Every run's lines as one tidy table (:mod:`rankframe.cli.eval_output`)."""
    rows = eval_output.tidy_rows(runs)
    if fmt == "csv":
        eval_output.write_csv(rows, out)
    elif fmt == "json":
        eval_output.write_json(rows, out)
    else:
        from rankframe.cli.eval_frames import write_parquet

        write_parquet(rows, out)


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


def run(args: argparse.Namespace) -> int:
    """Run ``rankframe eval`` from parsed arguments; print to stdout (or ``--output``), return 0."""
    if args.help:  # -h: the usage; -h -m NAME: what each named measure is (as trec_eval)
        if args.m:
            from rankframe.cli.measure_option import describe_option

            sys.stdout.write("".join(describe_option(spec) for spec in args.m))
        else:
            args.eval_parser.print_help()
        return 0
    if args.qrels is None or not args.run:
        raise RankframeError("eval needs two files, QRELS and RUN (rankframe eval -h: usage)")
    if args.qrels == STDIN and not os.path.exists(STDIN):
        raise RankframeError("qrels file not found: - (standard input is read for the run "
                             "only, as trec_eval reads it: rankframe eval QRELS -)")
    if args.M is not None and not 1 <= args.M <= MAX_CUTOFF:
        raise RankframeError(
            f"-M must be a positive number of results below 2**63, got {args.M}")
    if args.l < 1:
        raise RankframeError(f"-l must be a relevance level >= 1, got {args.l}")
    if args.R not in FORMATS:
        raise RankframeError(f"-R: unknown relevance format {args.R!r}; "
                             f"known: {', '.join(FORMATS)}")
    if args.T not in RESULTS_FORMATS:
        raise RankframeError(f"-T: unknown results format {args.T!r}; "
                             f"known: {', '.join(RESULTS_FORMATS)}")
    if args.threads is not None and args.threads < 1:
        raise RankframeError(f"--threads must be at least 1, got {args.threads}")
    paths = run_paths(args.run)
    if paths.count(STDIN) > 1:
        raise RankframeError("the run - (standard input) is given twice; it can be read once")
    several = len(paths) > 1 or paths != args.run  # a pattern: each run's messages named
    tidy = args.format != "trec"
    if args.format == "parquet" and args.output is None and sys.stdout.isatty():
        raise RankframeError("--format parquet writes binary data: name a file with --output FILE, "
                             "or redirect stdout")
    eval_output.check_not_input(args.output, [
        ("qrels file", args.qrels), *(("run file", p) for p in paths if p != STDIN),
        *([("z-score file", args.Z)] if args.Z else [])],
        stdin_role="run file" if STDIN in paths else None)
    if eval_items.wanted(args):  # beyond-accuracy measures: the item inputs, the tidy table
        return eval_items.run(args, paths)
    with contextlib.ExitStack() as stack:
        sources = {p: _stdin_source(stack) if p == STDIN else p for p in paths}
        relevance, evaluate_one = _prepared(args, list(sources.values()),
                                            args.format == "parquet")

        def lines_of(path: str) -> tuple[int, list[trec_eval.Line]]:
            source = sources[path]
            try:
                return evaluate_one(source, relevance, f"run {path}" if several else "")
            except RankframeError as exc:
                if source == path:
                    raise
                raise type(exc)(str(exc).replace(source, "standard input")) from None

        # The output first: a folder that cannot be written is reported before any run starts.
        with eval_output.Output(args.output, binary=args.format == "parquet") as out, \
                _evaluated(paths, lines_of, args.threads) as results:
            tables = []
            for path, (unjudged, lines) in zip(paths, results, strict=True):
                if unjudged:
                    note = trec_eval.unjudged_note(unjudged, f"run {path}" if several else "")
                    print(f"rankframe: {note}", file=sys.stderr)
                if tidy:
                    tables.append((path, lines))
                else:
                    _write_trec(lines, out)
            if tidy:
                _write_tidy(tables, args.format, out)
    return 0


def _stdin_source(stack: contextlib.ExitStack) -> str:
    """A path that reads the run given as ``-``, standard input, from where it stands:
    ``/dev/stdin`` on Linux for a pipe, a terminal or a file read from its start (opened
    again, such a file starts over), else a temporary copy of what is left to read."""
    try:
        descriptor = sys.stdin.fileno()
        mode = os.fstat(descriptor).st_mode
    except (OSError, ValueError, AttributeError):
        raise RankframeError("the run is - (standard input), but standard input is closed"
                             ) from None
    at_start = not stat.S_ISREG(mode) or os.lseek(descriptor, 0, os.SEEK_CUR) == 0
    if sys.platform.startswith("linux") and at_start and (
            stat.S_ISFIFO(mode) or stat.S_ISREG(mode) or stat.S_ISCHR(mode)):
        return "/dev/stdin"
    import shutil
    import tempfile

    with tempfile.NamedTemporaryFile(prefix="rankframe-stdin-", suffix=".run",
                                     delete=False) as copy:
        stack.callback(os.unlink, copy.name)
        shutil.copyfileobj(sys.stdin.buffer, copy)
    return copy.name


def _prepared(args: argparse.Namespace, paths: list[str], parquet: bool
              ) -> tuple[Any, RunEvaluator]:
    """The relevance file read and what evaluates one run against it: pure Python
    (:mod:`rankframe.cli.eval_small`) for ``--engine python``, and for ``auto`` when it takes the
    input (small plain files); else Polars (:mod:`rankframe.cli.eval_frames`), imported only
    then."""
    if args.engine in ("auto", "python"):
        from rankframe.cli import eval_small as small

        auto = args.engine == "auto"
        why = small.unsuitable(args, paths, parquet, auto=auto)
        if why is None:
            prepared = small.prepare(args, paths, plan(args), plain_only=auto)
            if prepared is not None:
                return prepared
            why = "a measure reads more than (rel, rank)"
        if not auto:
            raise RankframeError(f"--engine python: {why}; use --engine polars")
    args.watched()  # Polars or DuckDB from here: an abort of theirs is one line (main)
    from rankframe.cli import eval_frames as frames

    return frames.prepare(args)


@contextlib.contextmanager
def _evaluated(paths: list[str], lines_of: Any, threads: int | None
               ) -> Iterator[Iterator[tuple[int, list[trec_eval.Line]]]]:
    """``lines_of(path)`` for every path, in path order, on a thread pool (one run too: this
    thread only waits, so that Ctrl-C reaches it at once). An error stops the runs not yet
    started; an interrupt (Ctrl-C, SIGTERM) leaves without waiting for the runs in
    progress."""
    workers = threads or min(os.cpu_count() or 1, 4)
    pool = ThreadPoolExecutor(max_workers=min(workers, len(paths)),
                              thread_name_prefix="rankframe-eval")
    futures: list[Future[tuple[int, list[trec_eval.Line]]]] = [
        pool.submit(lines_of, path) for path in paths]
    # An interrupt may surface in any run's thread (Polars stops the query it is running):
    # it ends the wait for the earlier runs too.
    stopped: list[BaseException] = []

    def stop_on_interrupt(future: Future[Any]) -> None:
        error = None if future.cancelled() else future.exception()
        if error is not None and not isinstance(error, Exception):
            stopped.append(error)

    def in_order() -> Iterator[tuple[int, list[trec_eval.Line]]]:
        for future in futures:
            while not future.done() and not stopped:
                wait([future], timeout=0.1)
            if stopped:
                raise stopped[0]
            yield future.result()

    for future in futures:
        future.add_done_callback(stop_on_interrupt)
    try:
        yield in_order()
    except Exception:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    except BaseException:  # KeyboardInterrupt, SystemExit: do not wait for the runs
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)

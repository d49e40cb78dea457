"""The ``rankframe compare`` subcommand: evaluate several runs against one qrels file and
test each against a baseline.

``rankframe compare QRELS RUN1 RUN2 ... -m ndcg@10 -m map --test randomization``

The runs are read and named by :func:`rankframe.analysis.runs.read_runs` (by run tag, or
file name when two runs share a tag), evaluated per query by
:func:`rankframe.analysis.runs.evaluate_runs`, and :func:`rankframe.analysis.compare.compare`
does the rest; this module reads the options and prints the table.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from rankframe import faces
from rankframe.errors import RankframeError

__all__ = ["add_parser", "run"]

DEFAULT_MEASURES = ("ndcg@10", "map")
FORMATS = ("text", "markdown", "latex", "csv")
#: The most --resamples taken (the bootstrap keeps every resample's mean of each run).
MAX_RESAMPLES = 100_000_000


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``compare`` subcommand to an ``argparse`` subparsers object.

    The parser's ``handler`` default is :func:`run`, so a main program dispatches with
    ``args.handler(args)``.
    """
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "compare",
        help="compare runs: means, confidence intervals, significance tests vs a baseline",
        description="Evaluate each RUN against QRELS and compare every run with a baseline "
        "(default the first run), query by query. Prints one row per run with the mean of "
        "each measure; a superscript letter marks a run significantly better than the run "
        "with that letter. --format csv prints the full comparison (intervals, deltas, "
        "p-values, wins/ties/losses, effect sizes).",
    )
    parser.add_argument("qrels", help="qrels file: qid iter docid rel (plain or gzip)")
    parser.add_argument("runs", nargs="+", metavar="RUN",
                        help="run files: qid Q0 docid rank score tag (at least two)")
    parser.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                        help="measure string as for evaluate(): ndcg@10, map, P@10, mrr@10, "
                        "..., or trec_eval's -m form: ndcg_cut.10, P.5,10 (repeatable; "
                        f"default {' '.join(DEFAULT_MEASURES)})")
    parser.add_argument("--test", choices=("t", "randomization", "bootstrap"), default="t",
                        help="paired significance test (default t)")
    parser.add_argument("--baseline", metavar="NAME",
                        help="baseline run, by system name or file path (default the first)")
    parser.add_argument("--correction", choices=("holm", "bonferroni", "none"),
                        default="holm",
                        help="multiple-comparison correction over all runs x measures "
                        "(default holm)")
    parser.add_argument("--alpha", default="0.05",
                        help="significance level in (0, 1); intervals are 1 - alpha "
                        "(default 0.05)")
    parser.add_argument("--resamples", default="10000", metavar="N",
                        help="bootstrap resamples and randomization sign flips, 1 to "
                        f"{MAX_RESAMPLES:,} (default 10000)")
    parser.add_argument("--seed", default="0", help="random seed, an integer >= 0 (default 0)")
    parser.add_argument("--missing", choices=("error", "intersect", "zero"), default="error",
                        help="a query some run lacks: fail (default), drop it for all runs, "
                        "or score it 0")
    parser.add_argument("-c", action="store_true",
                        help="evaluate every qrels query for every run (a run's missing "
                        "queries score 0), as trec_eval -c")
    parser.add_argument("-l", type=int, default=1, metavar="N",
                        help="relevance level: rel >= N is relevant (default 1)")
    parser.add_argument("--engine", choices=faces.ENGINES, default="polars",
                        help="engine that computes the metrics (same numbers)")
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="output format (default text)")
    parser.add_argument("--digits", type=int, default=4,
                        help="decimals in text/markdown/latex (default 4)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bar for resampling (default: when slow, on a terminal)")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run ``rankframe compare`` from parsed arguments; print to stdout, return 0."""
    args.watched()  # Polars from here: an abort of its is one line (main)
    # Imported here: `rankframe eval` and the parser need none of this.
    from rankframe import trec_eval
    from rankframe.analysis import report
    from rankframe.analysis.compare import MissingQueriesError, compare
    from rankframe.analysis.runs import evaluate_runs, read_runs
    from rankframe.cli.measure_option import check_measure_option
    from rankframe.io import read_qrels
    from rankframe.measures import expand

    if len(args.runs) < 2:
        raise RankframeError("compare needs at least two runs")
    alpha, resamples, seed = _options(args)
    if args.l < 1:
        raise RankframeError(f"-l must be a relevance level >= 1, got {args.l}")
    if not 0 <= args.digits <= 15:
        raise RankframeError(f"--digits must be a number of decimals in 0..15, got {args.digits}")
    for spec in args.measures or ():  # before any file is read
        check_measure_option(spec)
    measures = list(dict.fromkeys(expand(args.measures or DEFAULT_MEASURES)))
    qrels, runs = read_qrels(args.qrels), read_runs(args.runs)
    names = dict(zip(args.runs, runs, strict=True))  # run path, as given -> system name
    for path, run_frame in zip(args.runs, runs.values(), strict=True):
        unjudged = trec_eval.unjudged_count(run_frame, qrels)
        if unjudged:
            note = trec_eval.unjudged_note(unjudged, f"run {path}")
            print(f"rankframe: {note}", file=sys.stderr)
    table = evaluate_runs(runs, qrels, measures, all_queries=args.c, threshold=args.l,
                          engine=args.engine)
    baseline = args.baseline
    if baseline is not None and baseline not in names.values():
        if baseline not in names:
            raise RankframeError(
                f"--baseline {baseline}: not a run; give a run's name "
                f"({', '.join(names.values())}) or its file as given")
        baseline = names[baseline]  # a run path names its system
    correction = None if args.correction == "none" else args.correction
    try:
        result = compare(
            table, system="system", query="qid", measures=measures, baseline=baseline,
            test=args.test, correction=correction, alpha=alpha, n_resamples=resamples,
            seed=seed, missing=args.missing, progress=args.progress,
        )
    except ImportError as exc:  # the optional extra `stats` is not installed
        raise RankframeError(str(exc)) from exc
    except MissingQueriesError as exc:  # the remedy in the command line's words
        raise RankframeError(f"{exc.problem}. Use --missing intersect to drop them, or "
                             "--missing zero to score them 0") from None
    n = int(result["n_queries"].max())  # type: ignore[arg-type]
    test = {"t": "Paired t-test", "randomization": "Paired randomization test",
            "bootstrap": "Paired bootstrap test"}[args.test]
    fwer = {"holm": "Holm", "bonferroni": "Bonferroni", None: "no"}[correction]
    note = f"{test}, {fwer} correction, alpha {alpha:g}, {n} queries."
    if args.format == "csv":
        text = result.write_csv()
    elif args.format == "markdown":
        text = report.to_markdown(result, digits=args.digits, note=note)
    elif args.format == "latex":
        text = report.to_latex(result, digits=args.digits, note=note)
    else:
        text = report.to_text(result, digits=args.digits, note=note)
    _write_utf8(text)
    return 0


def _write_utf8(text: str) -> None:
    """``text`` on stdout as UTF-8 (run names as read), whatever the locale's encoding."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    for line in text.splitlines(keepends=True):  # small writes: a closed pipe is reported
        buffer.write(line.encode("utf-8"))
    buffer.flush()


def _options(args: argparse.Namespace) -> tuple[float, int, int]:
    """--alpha, --resamples and --seed, checked: each a one-line error naming the option."""
    try:
        alpha = float(args.alpha)
    except ValueError:
        alpha = math.nan
    if not 0 < alpha < 1:
        raise RankframeError(f"--alpha must be a number in (0, 1), e.g. 0.05; got {args.alpha}")
    resamples = _integer(args.resamples)
    if resamples is None or not 1 <= resamples <= MAX_RESAMPLES:
        raise RankframeError(f"--resamples must be a whole number from 1 to {MAX_RESAMPLES:,} "
                             f"(e.g. 10000 or 1e5); got {args.resamples}")
    seed = _integer(args.seed)
    if seed is None or seed < 0:
        raise RankframeError(f"--seed must be a whole number >= 0 (e.g. 0 or 42); got "
                             f"{args.seed}")
    return alpha, resamples, seed


def _integer(text: str) -> int | None:
    """``text`` as a whole number (``10000``, ``1e5``), None if it is not one."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if math.isfinite(value) and value.is_integer() else None

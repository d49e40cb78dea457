"""``rankframe eval -R prefs | -R qrels_prefs``: trec_eval's preference measures.

The relevance file is read as preferences (:func:`rankframe.io.read_prefs`, or a qrels
file by :func:`rankframe.io.read_qrels_prefs`); ``-m`` selects among trec_eval's
``prefs_*`` measures (:func:`rankframe.trec_eval.select_prefs`; default: the ``prefs``
nickname); the values come from the chosen engine (Polars frame functions or the
``rf_prefs`` macro); the lines are trec_eval's (:func:`rankframe.trec_eval.lines`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

import polars as pl

from rankframe import trec_eval
from rankframe.errors import RankframeError
from rankframe.faces.duckdb import evaluate_prefs
from rankframe.io import read_prefs, read_qrels_prefs, read_run
from rankframe.metrics.prefs import prefs_evaluate

__all__ = ["READERS", "lines"]

#: -R format -> the reader of its relevance file.
READERS: dict[str, Callable[[str], pl.DataFrame]] = {
    "prefs": read_prefs,
    "qrels_prefs": read_qrels_prefs,
}
_ENGINES: dict[str, Callable[..., pl.DataFrame]] = {
    "polars": prefs_evaluate,
    "duckdb": evaluate_prefs,
}


def lines(args: argparse.Namespace) -> list[trec_eval.Line]:
    """The lines ``rankframe eval`` prints for ``-R prefs`` or ``-R qrels_prefs``."""
    if args.ties != "docid":
        raise RankframeError("--ties average: the preference measures have no tie-aware form")
    if args.engine not in _ENGINES:
        raise RankframeError(f"--engine {args.engine}: -R {args.R} is computed by "
                             f"{' or '.join(_ENGINES)}")
    selected = trec_eval.select_prefs(args.m)
    run_frame, prefs = read_run(args.run), READERS[args.R](args.qrels)
    unjudged = trec_eval.unjudged_count(run_frame, prefs)
    if unjudged:
        print(f"rankframe: {trec_eval.unjudged_note(unjudged)}", file=sys.stderr)
    per_query = _ENGINES[args.engine](prefs, run_frame, depth=args.M, complete=args.c)
    if per_query.height == 0:
        raise RankframeError(f"{args.run}: no queries with both results and relevance info")
    runid = str(run_frame["tag"][0])
    return trec_eval.lines(per_query, selected, runid, per_query_lines=args.q,
                           summaries=not args.n)

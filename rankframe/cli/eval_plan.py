"""What ``rankframe eval`` computes: the measures ``-m`` selects (trec_eval's syntax or
rankframe measure strings), checked against the ``-R`` format, as measure strings. Shared by
the two ways of evaluating, :mod:`rankframe.cli.eval_small` (pure Python) and
:mod:`rankframe.cli.eval_frames` (Polars); imports no Polars.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, NamedTuple

from rankframe import trec_eval
from rankframe.cli.measure_option import measure_option_error
from rankframe.errors import MeasureError, RankframeError
from rankframe.measures import canonical, parse, split_cutoffs, trec_eval_name

__all__ = ["FORMATS", "Plan", "RunEvaluator", "plan", "selection"]

#: The -R choices (trec_eval's names); :mod:`rankframe.cli.eval_frames` reads each.
FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs")
_QUERIES_ONLY = "num_ret"

#: One run evaluated: (run file, relevance information as read once, a name for messages)
#: -> (run queries without relevance information, the lines trec_eval prints).
RunEvaluator = Callable[[str, Any, str], tuple[int, list[trec_eval.Line]]]


def selection(specs: list[str] | None) -> trec_eval.Selection:
    """What ``-m`` options select: trec_eval specs as :func:`rankframe.trec_eval.select`
    reads them, rankframe measure strings under trec_eval's name for the same measure, or
    else (in the order given, after trec_eval's measures) under their canonical string."""
    if specs is None:
        return trec_eval.select(None)
    trec_specs: list[str] = []
    extra: dict[str, trec_eval.TrecMeasure] = {}
    for spec in (one for written in specs for one in _cutoff_lists(written)):
        if trec_eval.is_spec(spec):
            trec_specs.append(spec)
            continue
        try:
            name = trec_eval_name(spec)
        except MeasureError as exc:
            raise measure_option_error(spec, exc) from None
        if name is not None:
            trec_specs.append(trec_eval.spec_of(name))
        else:
            string = canonical(spec)
            extra[string] = trec_eval.rankframe_measure(string, parse(spec).summary)
    return trec_eval.select(trec_specs) + [(m, None) for m in extra.values()]


def _cutoff_lists(spec: str) -> list[str]:
    """A measure string with a list of cutoffs (``ndcg@5,10``, ``P@[1,5]``) as one string
    per cutoff; a trec_eval spec (``P.5,10``) or any other string as it is."""
    if trec_eval.is_spec(spec):
        return [spec]
    try:
        return split_cutoffs(spec)
    except MeasureError as exc:
        raise measure_option_error(spec, exc) from None


def _check_formats(selected: trec_eval.Selection, rel_format: str) -> None:
    """Every selected measure is computed from the ``-R`` format."""
    for needs, names in trec_eval.formats(selected).items():
        if needs != rel_format:
            raise MeasureError(
                f"-R {rel_format}: {', '.join(names)} "
                f"{'needs' if len(names) == 1 else 'need'} -R {needs}"
                + (" (judgment groups: -m qrels_jg)" if rel_format == "qrels_jg" else ""))


class Plan(NamedTuple):
    """What ``-m`` asks for (``-R qrels`` or ``qrels_jg``): the selection, printed name ->
    rankframe measure string, and the distinct measure strings to compute."""

    selected: trec_eval.Selection
    strings: dict[str, str]
    needed: list[str]


def plan(args: argparse.Namespace) -> Plan:
    """The measures of ``-m`` checked against ``-R`` and turned into measure strings."""
    selected = selection(args.m)
    _check_formats(selected, args.R)
    if args.N < 0:
        raise RankframeError(f"-N must be a number of documents >= 0, got {args.N}")
    strings = trec_eval.measure_strings(selected, trec_eval9=args.trec_eval9, ties=args.ties,
                                        num_docs=args.N, judged_only=args.J)
    # runid and num_q alone need only the queries: any measure lists them.
    return Plan(selected, strings, list(dict.fromkeys(strings.values())) or [_QUERIES_ONLY])

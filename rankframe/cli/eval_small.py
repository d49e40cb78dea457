"""``rankframe eval`` in pure Python, for small plain files: no Polars is imported.

Importing Polars is a fixed cost comparable to trec_eval's whole work on a small run, so a
small input is read and evaluated here, by the reference functions
(:mod:`rankframe.reference`), which give the Polars and DuckDB faces' doubles
(``tests/conformance/test_metrics.py``) and so trec_eval's bytes. The timings behind
:data:`LIMIT_BYTES` are in ``benchmarks/README.md`` (``benchmarks/cli.py``).

``--engine auto`` takes only ``-R qrels`` files in the plain layout here and leaves anything
else to :mod:`rankframe.cli.eval_frames`; ``--engine python`` reads such files with the
Polars readers, then evaluates them here. Plain means: regular files of printable ASCII
and blanks, read line by line as every reader reads them (:mod:`rankframe.io.lines`: LF,
CRLF or lone CR line ends, runs of blanks between fields, blank lines skipped); every data
line with exactly 4 (qrels: qid iter docid rel) or 6 (run: qid Q0 docid rank score tag)
fields; no ``#`` anywhere (trec_eval's comments); grades integers
below 2**62 in size; scores finite decimal numbers (:data:`rankframe.io.fields.NUMBER`);
no (qid, docid) twice in a file.

Each query is ranked as :func:`rankframe.judge` ranks it (score descending, then docid
descending), cut at ``-M``, reduced to judged documents under ``-J``, and evaluated over
``(rel, rank)`` rows: the ranked documents, then the query's judged documents not ranked
(rank None).
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import stat
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rankframe import reference, trec_eval
from rankframe.io.lines import data_fields
from rankframe.measures import Measure, parse

if TYPE_CHECKING:
    from rankframe.cli.eval_plan import Plan, RunEvaluator

__all__ = ["LIMIT_BYTES", "Qrels", "prepare", "read_plain", "unsuitable"]

#: ``--engine auto`` evaluates run files of up to this many bytes in all here: beyond it,
#: Polars' fixed cost of loading is paid back (measured by ``benchmarks/cli.py``, see
#: ``benchmarks/README.md``).
LIMIT_BYTES = 1_000_000
#: Bytes a plain file may hold: printable ASCII but ``#``, and C's blanks.
_ALLOWED = bytes(sorted({*range(0x20, 0x7F), *b"\t\n\v\f\r"} - {ord("#")}))
#: Characters of integers and of decimal numbers (rankframe.io.fields.INTEGER, NUMBER).
_SIGNED = frozenset("0123456789+-")
_DECIMAL = frozenset("0123456789+-.eE")
#: Grades from here on are left to the Polars reader (64-bit integers).
_LARGEST_GRADE = 2**62

#: The qrels as read: query -> document -> grade.
Qrels = dict[str, dict[str, int]]


def unsuitable(args: argparse.Namespace, paths: Sequence[str], parquet: bool, *, auto: bool
               ) -> str | None:
    """Why the options or files are not for this path (None: they are); ``auto``
    (``--engine auto``) also asks for regular files of up to :data:`LIMIT_BYTES` of runs."""
    if args.R != "qrels":
        return f"-R {args.R} is evaluated by polars or duckdb"
    if args.ties != "docid":
        return "--ties average is evaluated by polars or duckdb"
    if args.Z is not None or parquet:
        return "-Z and --format parquet need polars"
    if auto:
        sizes = [_regular_size(path) for path in [args.qrels, *paths]]
        if any(size is None for size in sizes):
            return "not a regular file"
        if sum(size or 0 for size in sizes[1:]) > LIMIT_BYTES:
            return "the run files are larger than rankframe.cli.eval_small.LIMIT_BYTES"
    return None


def _regular_size(path: str) -> int | None:
    """The size of a regular file; None for anything else (a pipe is read once, by the
    Polars reader, which also names a missing file)."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_size if stat.S_ISREG(status.st_mode) else None


def read_plain(path: str, fields: int) -> list[list[str]] | None:
    """The lines of a plain file as lists of ``fields`` fields, or None when the file is
    not plain (see the module's docstring), holds no line or is not a regular file."""
    if _regular_size(path) is None:
        return None
    with open(path, "rb") as file:
        data = file.read()
    if data.translate(None, _ALLOWED):
        return None  # a byte outside the plain set: gzip, UTF-8, NUL, comments ...
    rows = data_fields(data.decode("ascii"))
    if not rows or any(len(fields_) != fields for fields_ in rows):
        return None
    return rows


def _numbers(texts: Sequence[str], allowed: frozenset[str], convert: type[float] | type[int]
             ) -> list[Any] | None:
    """``texts`` converted, or None if one holds a character outside ``allowed`` or does
    not convert (with those characters Python's syntax is trec_eval's files' syntax)."""
    if not allowed.issuperset("".join(texts)):
        return None
    try:
        return list(map(convert, texts))
    except ValueError:
        return None


def _read_qrels(path: str) -> Qrels | None:
    lines = read_plain(path, 4)
    grades = _numbers([rel for *_, rel in lines], _SIGNED, int) if lines else None
    if lines is None or grades is None or max(map(abs, grades)) >= _LARGEST_GRADE:
        return None
    qrels: Qrels = {}
    for (qid, _, doc, _), rel in zip(lines, grades, strict=True):
        judged = qrels.setdefault(qid, {})
        if doc in judged:
            return None
        judged[doc] = rel
    return qrels


def _read_run(path: str) -> tuple[dict[str, list[tuple[float, str]]], str] | None:
    """A plain run file: query -> (score, docid) pairs in file order, and the first line's
    tag; None if the file is not plain."""
    lines = read_plain(path, 6)
    if lines is None:
        return None
    qids, _, docs, _, texts, _ = zip(*lines, strict=True)  # the rank field is not read
    scores = _numbers(texts, _DECIMAL, float)
    if scores is None or not all(map(math.isfinite, scores)):
        return None
    pairs = list(zip(scores, docs, strict=True))
    run: dict[str, list[tuple[float, str]]] = {}
    start = 0
    for qid, group in itertools.groupby(qids):  # a run file lists each query's lines together
        end = start + sum(1 for _ in group)
        run.setdefault(qid, []).extend(pairs[start:end])
        start = end
    if any(len({doc for _, doc in results}) != len(results) for results in run.values()):
        return None  # a (qid, docid) twice
    return run, lines[0][5]


def _rows(results: list[tuple[float, str]], grades: dict[str, int], args: argparse.Namespace
          ) -> list[tuple[int | None, int | None]]:
    """One query's ``(rel, rank)`` rows: ranked, cut, judged-only as asked, then the judged
    documents not ranked."""
    # Score descending, then docid descending (-0.0 == 0.0 ties, as in judge).
    ranked = [doc for _, doc in sorted(results, reverse=True)][: args.M]
    if args.J:  # -J: only documents graded >= 0 keep a place
        ranked = [doc for doc in ranked if grades.get(doc, -1) >= 0]
    rows: list[tuple[int | None, int | None]] = [
        (grades.get(doc), rank) for rank, doc in enumerate(ranked, start=1)]
    kept = set(ranked)
    rows += [(rel, None) for doc, rel in grades.items() if doc not in kept]
    return rows


def _qrels_table(path: str) -> Qrels:
    """A qrels file that is not plain, read by the Polars reader (its warnings, its errors)."""
    from rankframe.io import read_qrels

    qrels: Qrels = {}
    for qid, doc, rel in read_qrels(path).select("qid", "docid", "rel").iter_rows():
        qrels.setdefault(qid, {})[doc] = rel
    return qrels


def _run_table(path: str) -> tuple[dict[str, list[tuple[float, str]]], str]:
    """A run file that is not plain, read by the Polars reader (its warnings, its errors)."""
    from rankframe.io import read_run

    table = read_run(path)
    run: dict[str, list[tuple[float, str]]] = {}
    for qid, doc, score in table.select("qid", "docid", "score").iter_rows():
        run.setdefault(qid, []).append((score, doc))
    return run, str(table["tag"][0])


def prepare(args: argparse.Namespace, paths: Sequence[str], plan: Plan, *, plain_only: bool
            ) -> tuple[Qrels, RunEvaluator] | None:
    """The qrels read, and what evaluates one run against them; None when a measure reads
    more than ``(rel, rank)``, or, with ``plain_only``, when a file is not plain (else the
    Polars readers read such a file)."""
    measures = {string: parse(string, threshold=args.l) for string in plan.needed}
    if any(m.metric.columns != ("rel", "rank") for m in measures.values()):
        return None
    qrels = _read_qrels(args.qrels)
    if qrels is None and not plain_only:
        qrels = _qrels_table(args.qrels)
    runs = {path: _read_run(path) for path in dict.fromkeys(paths)}
    if qrels is None or (plain_only and any(run is None for run in runs.values())):
        return None

    def evaluate_one(path: str, qrels: Qrels, name: str) -> tuple[int, list[trec_eval.Line]]:
        run, runid = runs[path] or _run_table(path)
        return _evaluated(run, runid, qrels, measures, plan, args, name)

    return qrels, evaluate_one


def _evaluated(run: dict[str, list[tuple[float, str]]], runid: str, qrels: Qrels,
               measures: dict[str, Measure], plan: Plan, args: argparse.Namespace,
               name: str) -> tuple[int, list[trec_eval.Line]]:
    """The lines of one run: the queries trec_eval evaluates (``-c``: every qrels query;
    ``-D level.qid``: that one), in id order, each measure from the reference functions."""
    queries = sorted(qrels if args.c else run.keys() & qrels.keys())
    _, only = args.D
    if only is not None:
        queries = [q for q in queries if q == only]
        if not queries:
            raise trec_eval.no_query_error(args.D[0], only)
    if not queries:
        raise trec_eval.no_queries_error(name)
    values: dict[str, list[Any]] = {string: [] for string in measures}
    for qid in queries:
        rows = _rows(run.get(qid, []), qrels[qid], args)
        for string, measure in measures.items():
            values[string].append(reference.value(measure.metric, rows, measure.values))
    columns = {"qid": queries, **{printed: values[string]
                                  for printed, string in plan.strings.items()}}
    num_rel_all = (sum(1 for grades in qrels.values() for rel in grades.values() if rel > 0)
                   if args.c and only is None else None)
    shown = [q in run for q in queries] if args.trec_eval9 and args.c else None
    unjudged = sum(1 for q in run if q not in qrels)
    return unjudged, trec_eval.lines(
        trec_eval.list_columns(columns, plan.selected, judged_only=args.J), plan.selected,
        runid, per_query_lines=args.q, summaries=not args.n, judged_only=args.J,
        num_rel_all=num_rel_all, printed=shown)

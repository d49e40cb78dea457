"""Readers for trec_eval's preference files: ``-R prefs`` and ``-R qrels_prefs``.

A prefs file has one line per (query, judgment group, judgment sub-group, document):
``qid jg jsg docid level``. Within a sub-group, a document with a higher level is preferred
to one with a lower level; a judgment group (one user at one time) is the transitive
closure of its sub-groups (docs/semantics.md#preferences). ``-R qrels_prefs`` reads a
qrels file (``qid iter docid rel``) as prefs: the ``iter`` field is the judgment group and
every line is in the one sub-group ``"0"``.

Both readers read their input once (plain or gzip, as :mod:`rankframe.io.source`), fields
separated by runs of blanks, LF, CRLF or CR line ends. A comment is a line whose first
character (column 1) is ``#``, as trec_eval 10 reads these files; blank lines are skipped.
Every problem raises :class:`rankframe.errors.InputError` naming the file and line.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

import polars as pl

from rankframe.io.fields import NUMBER, field, first_problem, lines_of, parse
from rankframe.io.source import fail, read_text_bytes

__all__ = ["PREFS_LAYOUT", "QRELS_PREFS_LAYOUT", "read_prefs", "read_qrels_prefs"]

PREFS_LAYOUT: Final = ("qid", "jg", "jsg", "docid", "level")
QRELS_PREFS_LAYOUT: Final = ("qid", "jg", "docid", "level")
_SCHEMA: Final = {"qid": pl.String, "jg": pl.String, "jsg": pl.String, "docid": pl.String,
                  "level": pl.Float64}


def read_prefs(path: str | os.PathLike[str]) -> pl.DataFrame:
    """Read a trec_eval prefs file (``qid jg jsg docid level`` per line).

    Returns
    -------
    pl.DataFrame
        Columns ``qid``, ``jg``, ``jsg``, ``docid`` (String) and ``level`` (Float64), one
        row per line, in file order.

    Raises
    ------
    InputError
        Naming the file and line: a line without exactly 5 fields, a level that is not a
        finite number or is negative (trec_eval: "a non-negative double"), a document
        twice in one sub-group, a document with level 0 in one sub-group and above 0 in
        another of the same judgment group (trec_eval's error too), a file with no lines.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "prefs.txt"
    >>> _ = path.write_text("# user 1\\nq1 u1 s1 d1 3\\nq1 u1 s1 d2 0\\n")
    >>> read_prefs(path).rows()
    [('q1', 'u1', 's1', 'd1', 3.0), ('q1', 'u1', 's1', 'd2', 0.0)]
    """
    return _read(Path(path), PREFS_LAYOUT, "prefs")


def read_qrels_prefs(path: str | os.PathLike[str]) -> pl.DataFrame:
    """Read a qrels file as trec_eval's ``-R qrels_prefs`` does: ``qid iter docid rel``,
    the ``iter`` field as the judgment group ``jg``, every line in sub-group ``"0"``.

    Returns the columns of :func:`read_prefs`; levels may be negative here (qrels grades).
    Raises :class:`~rankframe.errors.InputError` naming the file and line: a line without
    exactly 4 fields, a level that is not a finite number, a (qid, iter, docid) seen
    before, a file with no lines.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> _ = path.write_text("q1 0 d1 1\\nq1 0 d2 0\\n")
    >>> read_qrels_prefs(path).rows()
    [('q1', '0', '0', 'd1', 1.0), ('q1', '0', '0', 'd2', 0.0)]
    """
    return _read(Path(path), QRELS_PREFS_LAYOUT, "qrels_prefs")


def _read(source: Path, layout: tuple[str, ...], kind: str) -> pl.DataFrame:
    lines = lines_of(source, read_text_bytes(source, kind), kind, layout, comments="column 1")
    raw = field(len(layout) - 1)
    columns = {name: field(i) for i, name in enumerate(layout) if name != "level"}
    if "jsg" not in columns:
        columns["jsg"] = pl.lit("0")
    parsed = lines.select("line", raw=raw, **columns, level=parse(raw, NUMBER, pl.Float64))
    problem: pl.Expr = (
        pl.when(pl.col("level").is_null() | pl.col("level").is_infinite())
        .then(pl.format("level '{}' is not a finite number", "raw"))
    )
    if kind == "prefs":
        problem = pl.coalesce(problem, pl.when(pl.col("level") < 0).then(
            pl.format("level '{}' is negative; prefs levels are >= 0 (0: not relevant)", "raw")))
    first_problem(source, parsed, problem)
    table = parsed.select("line", *_SCHEMA).cast(_SCHEMA)  # type: ignore[arg-type]
    _check_repeats(source, table, kind)
    _check_zero(source, table)
    return table.drop("line")


def _check_repeats(source: Path, table: pl.DataFrame, kind: str) -> None:
    """A document twice in one sub-group of a query is an error."""
    keys = ["qid", "jg", "jsg", "docid"]
    repeat = table.filter(pl.struct(keys).is_first_distinct().not_()).head(1)
    if repeat.height:
        line, qid, jg, jsg, docid = repeat.select("line", *keys).row(0)
        group = f"judgment group {jg!r}" + (f", sub-group {jsg!r}" if kind == "prefs" else "")
        raise fail(source, line, f"document {docid!r} appears twice for query {qid!r} in "
                   f"{group}; give each document one level there")


def _check_zero(source: Path, table: pl.DataFrame) -> None:
    """Within a judgment group a document is not relevant (level 0) everywhere or nowhere."""
    mixed = (table.group_by("qid", "jg", "docid")
             .agg(zero=(pl.col("level") == 0).any(), positive=(pl.col("level") > 0).any())
             .filter("zero", "positive"))
    if mixed.height:
        qid, jg, docid = mixed.sort("qid", "jg", "docid").select("qid", "jg", "docid").row(0)
        line: int = table.filter(pl.col("qid") == qid, pl.col("jg") == jg,
                                 pl.col("docid") == docid)["line"].max()  # type: ignore[assignment]
        raise fail(source, line, f"document {docid!r} of query {qid!r} has level 0 (not "
                   f"relevant) and a level above 0 in judgment group {jg!r}")

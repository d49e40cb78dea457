"""Reader of trec_eval's judgment-group qrels (``-R qrels_jg``): ``qid jg docid rel``.

Each judgment group (a user, an assessor) judges the documents of a query on its own; the
measures ``map_avgjg``, ``P_avgjg`` and ``Rprec_mult_avgjg`` score a run against each group
and average over the groups (docs/semantics.md#judgment-groups).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

import polars as pl

from rankframe.io.fields import INTEGER, field, first_problem, lines_of, parse, repeated
from rankframe.io.source import fail, read_text_bytes

__all__ = ["QRELS_JG_LAYOUT", "read_qrels_jg"]

QRELS_JG_LAYOUT: Final = ("qid", "jg", "docid", "rel")


def read_qrels_jg(path: str | os.PathLike[str]) -> pl.DataFrame:
    """Read a judgment-group qrels file (``qid jg docid rel`` per line; trec_eval
    ``-R qrels_jg``).

    Parameters
    ----------
    path
        A plain or gzip-compressed text file. Fields are separated by whitespace; blank
        lines and comment lines (first non-blank character ``#``) are skipped.

    Returns
    -------
    pl.DataFrame
        Columns ``qid``, ``jg``, ``docid`` (String) and ``rel`` (Int64; negative: pooled
        but unjudged), one row per line, in file order.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    InputError
        Naming the file and line: a line without exactly 4 fields, a grade that is not an
        integer, a ``(qid, jg, docid)`` triple seen before (the same document may be judged
        by several groups), non-UTF-8 or binary content, or no qrels lines at all.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rankframe.io import read_qrels_jg
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.jg"
    >>> _ = path.write_text("# two assessors\\n1 a d1 1\\n1 b d1 0\\n1 b d2 2\\n")
    >>> read_qrels_jg(path).rows()
    [('1', 'a', 'd1', 1), ('1', 'b', 'd1', 0), ('1', 'b', 'd2', 2)]
    """
    source = Path(path)
    kind = "judgment-group qrels"
    lines = lines_of(source, read_text_bytes(source, "qrels"), kind, QRELS_JG_LAYOUT)
    raw_rel = field(3)
    table = lines.select(
        "line", qid=field(0), jg=field(1), docid=field(2),
        rel=parse(raw_rel, INTEGER, pl.Int64),
        raw_rel=raw_rel,
    )
    first_problem(source, table, pl.when(pl.col("rel").is_null()).then(
        pl.format("relevance grade '{}' is not an integer", "raw_rel")))
    twice = repeated(table, ["qid", "jg", "docid"])
    if twice is not None:
        line, earlier = twice
        qid, jg, docid = table.filter(pl.col("line") == line).row(0)[1:4]
        raise fail(source, line, f"duplicate document {docid!r} for query {qid!r} in judgment "
                                 f"group {jg!r} (first on line {earlier}); each (qid, jg, docid) "
                                 "may appear only once")
    return table.select("qid", "jg", "docid", "rel")

"""Readers for TREC run and qrels files.

Both readers read their input once (a pipe or FIFO works) and accept plain or
gzip-compressed text (gzip is recognised by its magic bytes, whatever the file is called),
UTF-8, or UTF-16/UTF-32 with a byte-order mark (:mod:`rankframe.io.source`, which also
refuses NUL bytes and lines over 1 MiB), fields separated by any run of whitespace (spaces,
tabs), LF or CRLF line endings, blank lines, and comment lines (the first non-blank
character is ``#``, trec_eval's rule; a comment that reads as a data line is warned about).

Parsing is vectorised: the text is split into lines and fields by Polars string kernels,
never by a Python loop over lines. Every problem raises :class:`rankframe.errors.InputError`
with a one-line message naming the file and the 1-based line number.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Final

import polars as pl

from rankframe.errors import InputWarning
from rankframe.io.fields import BLANKS, INTEGER, NUMBER, field, first_problem, parse
from rankframe.io.source import fail, read_text_bytes
from rankframe.table.keys import pair_key

__all__ = ["read_qrels", "read_run"]

# Field separators are runs of the characters C's isspace() accepts: trec_eval reads its
# files with sscanf("%s") (rankframe.io.fields.BLANKS).
# Text is handed to Polars in pieces of about this many bytes, cut at line ends: pieces
# are split into lines in parallel, and no string comes near Polars' 4 GiB limit.
_CHUNK_BYTES: Final = 1 << 20

RUN_LAYOUT: Final = ("qid", "Q0", "docid", "rank", "score", "tag")
QRELS_LAYOUT: Final = ("qid", "iter", "docid", "rel")


def read_run(path: str | os.PathLike[str]) -> pl.DataFrame:
    """Read a TREC run file (``qid Q0 docid rank score tag`` per line).

    Parameters
    ----------
    path
        A plain or gzip-compressed text file.

    Returns
    -------
    pl.DataFrame
        Columns ``qid`` (String), ``docid`` (String), ``rank`` (Int64, as written in the
        file, NULL where it is not an integer: trec_eval skips the field, and
        :func:`rankframe.table.judge.judge` ranks by score and ignores it), ``score``
        (Float64) and ``tag`` (String), one row per line, in file order.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    InputError
        Naming the file and line: a line with fewer than 6 fields (fields after the sixth
        are ignored, as trec_eval ignores them), a score that is not a
        finite number (``nan``, ``inf`` are rejected), a ``(qid, docid)`` pair seen before,
        a binary (NUL bytes) or non-UTF-8 file, a line over 1 MiB, a broken gzip stream, an
        I/O error, or a file with no run lines at all.

    Warns
    -----
    InputWarning
        A comment line that reads as a run line (a query id starting with ``#``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rankframe.io import read_run
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 d1 1 2.5 bm25\\nq1\\tQ0\\td2\\t2\\t1.0\\tbm25\\n")
    >>> read_run(path).rows()
    [('q1', 'd1', 1, 2.5, 'bm25'), ('q1', 'd2', 2, 1.0, 'bm25')]
    """
    source = Path(path)
    data = read_text_bytes(source, "run")
    fast = _simple_table(data, RUN_LAYOUT)
    if fast is not None:
        return fast.select("qid", "docid", "rank", "score", "tag")
    lines = _data_lines(source, data, "run")
    wrong_count, count_message = _field_count("run", RUN_LAYOUT, extra=True)
    raw_rank, raw_score = field(3), field(4)
    # trec_eval skips the rank field; kept as an integer when it is one, else NULL.
    parsed = lines.select(
        "line",
        count_message=pl.when(wrong_count).then(count_message),
        qid=field(0),
        docid=field(2),
        rank=parse(raw_rank, INTEGER, pl.Int64),
        score=parse(raw_score, NUMBER, pl.Float64),
        tag=field(5),
        raw_score=raw_score,
    )
    problem = (
        pl.when(pl.col("count_message").is_not_null())
        .then("count_message")
        .when(pl.col("score").is_null() | pl.col("score").is_infinite())
        .then(pl.format("score '{}' is not a finite number", "raw_score"))
    )
    first_problem(source, parsed, problem)
    _raise_duplicate(source, parsed, "run")
    return parsed.select("qid", "docid", "rank", "score", "tag")


def read_qrels(path: str | os.PathLike[str]) -> pl.DataFrame:
    """Read a TREC qrels file (``qid iter docid rel`` per line).

    Parameters
    ----------
    path
        A plain or gzip-compressed text file.

    Returns
    -------
    pl.DataFrame
        Columns ``qid`` (String), ``docid`` (String) and ``rel`` (Int64; negative grades
        are kept, they mean "pooled but unjudged"), one row per line, in file order. The
        ``iter`` field is read and discarded, as trec_eval does.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    InputError
        Naming the file and line: a line without exactly 4 fields, a grade that is not an
        integer (``x``, ``1.5``), a ``(qid, docid)`` pair seen before, a binary or
        non-UTF-8 file, a line over 1 MiB, a broken gzip stream, an I/O error, or a file
        with no qrels lines at all.

    Warns
    -----
    InputWarning
        A comment line that reads as a qrels line (a query id starting with ``#``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rankframe.io import read_qrels
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> _ = path.write_text("# topic 1\\n1 0 d1 2\\r\\n1 0 d7 0\\r\\n")
    >>> read_qrels(path).rows()
    [('1', 'd1', 2), ('1', 'd7', 0)]
    """
    source = Path(path)
    data = read_text_bytes(source, "qrels")
    fast = _simple_table(data, QRELS_LAYOUT)
    if fast is not None:
        return fast.select("qid", "docid", "rel")
    lines = _data_lines(source, data, "qrels")
    wrong_count, count_message = _field_count("qrels", QRELS_LAYOUT)
    raw_rel = field(3)
    parsed = lines.select(
        "line",
        count_message=pl.when(wrong_count).then(count_message),
        qid=field(0),
        docid=field(2),
        rel=parse(raw_rel, INTEGER, pl.Int64),
        raw_rel=raw_rel,
    )
    problem = (
        pl.when(pl.col("count_message").is_not_null())
        .then("count_message")
        .when(pl.col("rel").is_null())
        .then(pl.format("relevance grade '{}' is not an integer", "raw_rel"))
    )
    first_problem(source, parsed, problem)
    _raise_duplicate(source, parsed, "qrels")
    return parsed.select("qid", "docid", "rel")



# Bytes that a plainly laid out file never holds: blanks other than the single space that
# separates fields and the LF that ends lines (a tab, a CR ...).
_NOT_PLAIN: Final = (b"\t", b"\v", b"\f", b"\r")
# The fast path reads numbers with Polars' own parsers, which accept what the general path's
# patterns accept, plus the non-finite spellings (nan, inf) that the check below rejects.
_TYPES: Final = {"rank": pl.Int64, "score": pl.Float64, "rel": pl.Int64}


def _simple_table(data: bytes, layout: tuple[str, ...]) -> pl.DataFrame | None:
    """The parsed table when the file is plainly laid out and clean, else None.

    Most run and qrels files are written by programs: one space between fields, LF line
    ends, no comments. Such a file is handed whole to Polars' CSV reader (a space as the
    separator, numbers parsed as it reads). What the general reader would treat otherwise
    is ruled out in bulk: other blank bytes and NUL (one ``memchr`` each), an empty or
    missing field (runs of spaces, a short or blank line: NULL), a comment line, a
    non-finite score, a repeated pair; Polars itself rejects long lines, malformed numbers
    and invalid UTF-8. Line numbers are then row numbers + 1. Whenever that cannot be
    proven, None sends the caller to the general path, which reads any layout and names
    the file and line of a problem.
    """
    if not data or any(blank in data for blank in _NOT_PLAIN):
        return None
    try:
        table = pl.read_csv(
            data,
            separator=" ",
            has_header=False,
            quote_char=None,
            new_columns=list(layout),
            schema={c: _TYPES.get(c, pl.String) for c in layout},
            truncate_ragged_lines=False,
        )
    except (pl.exceptions.PolarsError, OSError):
        # OSError: text that begins like zlib or zstd data ('x\x01' ...), which Polars
        # takes for compressed input and fails to inflate; the general path reads it.
        return None
    tests = [pl.col(c).null_count() == 0 for c in layout]
    tests.append(pl.col("qid").str.starts_with("#").not_().all())
    if "score" in layout:
        tests.append(pl.col("score").is_finite().all())
    passed = table.select(t.alias(f"t{i}") for i, t in enumerate(tests)).row(0)
    if table.height == 0 or not all(passed):
        return None
    if table.select(pair_key("qid", "docid").n_unique()).item() != table.height:
        return None  # a duplicate pair (or a hash collision): the general path decides
    return table


def _read_text(source: Path, data: bytes, kind: str) -> list[str]:
    """The text of ``data`` (UTF-8, NUL-free: see :mod:`rankframe.io.source`) as a few
    strings, each a whole number of lines, newlines dropped at the piece boundaries so that
    splitting every piece on ``\\n`` yields the file's lines."""
    data = data.translate(BLANKS)
    pieces: list[str] = []
    start = 0
    while start < len(data):
        end = min(start + _CHUNK_BYTES, len(data))
        if end < len(data):
            newline = data.find(b"\n", end - 1)
            end = len(data) if newline < 0 else newline + 1
        try:
            text = data[start:end].decode("utf-8")
        except UnicodeDecodeError as exc:
            offset = start + exc.start
            line = data.count(b"\n", 0, offset) + 1
            raise fail(
                source, line, f"not UTF-8 text (byte 0x{data[offset]:02x}); is this a {kind} file?"
            ) from None
        pieces.append(text[:-1] if text.endswith("\n") else text)
        start = end
    return pieces


def _data_lines(source: Path, data: bytes, kind: str) -> pl.DataFrame:
    """Columns ``line`` (1-based number) and ``fields`` (list of str) for every line that is
    neither blank nor a comment; raises if there is no such line.

    A comment is a line whose first non-blank character is ``#``: trec_eval's rule for runs
    (its qrels reader wants the ``#`` in the first column, and fails on an indented one). A
    comment that otherwise reads as a data line (a query id starting with ``#``) is skipped,
    as trec_eval skips it, with an :class:`~rankframe.errors.InputWarning` naming the line,
    so that no query vanishes silently."""
    pieces = _read_text(source, data, kind)
    text = pl.col("text").str.strip_chars(" ").str.replace_all(" {2,}", " ")
    lines = (
        pl.DataFrame({"text": pieces}, schema={"text": pl.String})
        .select(pl.col("text").str.split("\n"))
        .explode("text")
        .with_row_index("line", offset=1)
        .select(pl.col("line").cast(pl.Int64), text)
        .filter(pl.col("text") != "")
        .select("line", pl.col("text").str.starts_with("#").alias("comment"),
                fields=pl.col("text").str.split(" "))
    )
    _warn_commented_data(source, lines.filter("comment"), kind)
    lines = lines.filter(pl.col("comment").not_()).drop("comment")
    if lines.height == 0:
        raise fail(
            source, None, f"no {kind} lines (the file is empty or holds only blanks and comments)"
        )
    return lines


def _warn_commented_data(source: Path, comments: pl.DataFrame, kind: str) -> None:
    """Warn about the comment lines shaped like data lines (see :func:`_data_lines`)."""
    layout, value, pattern = (
        (RUN_LAYOUT, 4, NUMBER) if kind == "run" else (QRELS_LAYOUT, 3, INTEGER))
    shaped = comments.filter(
        pl.col("fields").list.len() == len(layout),
        field(value).str.contains(pattern),
    )
    if shaped.height:
        line, fields = shaped.row(0)[0], shaped.row(0)[2]
        more = f" (and {shaped.height - 1} more such lines)" if shaped.height > 1 else ""
        warnings.warn(
            f"{source}, line {line}: skipped as a comment, as trec_eval does, although it "
            f"reads as a {kind} line for query {fields[0]!r}{more}; a query id must not start "
            f"with '#'",
            InputWarning,
            stacklevel=4,
        )


def _field_count(kind: str, layout: tuple[str, ...], *, extra: bool = False
                 ) -> tuple[pl.Expr, pl.Expr]:
    """(a line has the wrong number of fields, the message saying so); with ``extra``,
    fields after the layout's are allowed (and ignored)."""
    found = pl.col("fields").list.len()
    least = "at least " if extra else ""
    message = pl.format(
        f"expected {least}{len(layout)} fields ({' '.join(layout)}), found {{}}", found)
    return (found < len(layout)) if extra else (found != len(layout)), message




def _raise_duplicate(source: Path, frame: pl.DataFrame, kind: str) -> None:
    """Raise for the first line whose (qid, docid) already appeared on an earlier line."""
    # Fields hold no spaces, so "qid docid" is a faithful key, and one cheaper to hash.
    key = pl.concat_str("qid", "docid", separator=" ")
    repeat = frame.filter(key.is_first_distinct().not_()).head(1)
    if not repeat.height:
        return
    line, qid, docid = (repeat[c][0] for c in ("line", "qid", "docid"))
    earlier = frame.filter(pl.col("qid") == qid, pl.col("docid") == docid)["line"][0]
    raise fail(
        source,
        line,
        f"duplicate document {docid!r} for query {qid!r} (first on line {earlier}); "
        f"each (qid, docid) pair may appear only once in a {kind} file",
    )

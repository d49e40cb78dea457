"""Readers for TREC run and qrels files.

Both readers read their input once (a pipe or FIFO works) and accept plain or
gzip-compressed text (gzip is recognised by its magic bytes, whatever the file is called),
UTF-8, or UTF-16/UTF-32 with a byte-order mark (:mod:`rankframe.io.source`, which also
refuses NUL bytes and lines over 1 MiB), and read lines as :mod:`rankframe.io.lines`
defines them: fields separated by any run of whitespace (spaces, tabs), LF, CRLF or CR
line endings, blank lines, and comment lines (the first non-blank character is ``#``,
trec_eval's rule; a comment that reads as a data line is warned about).

The text is parsed in blocks of whole lines as it streams in (:func:`parse_block`), so
memory holds one block of text and the table read so far, whatever the layout: a block
that is plainly laid out goes to Polars' CSV reader, any other through Polars string
kernels, never a Python loop over lines. Every problem raises
:class:`rankframe.errors.InputError` with a one-line message naming the file and the 1-based
line number.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Final, NamedTuple, TypeVar

import polars as pl

from rankframe.errors import InputError, InputWarning
from rankframe.io.fields import (
    BLANKS,
    INTEGER,
    NUMBER,
    field,
    first_problem,
    in_file,
    is_comment,
    parse,
    split_fields,
    squeezed,
)
from rankframe.io.lines import OTHER_BLANKS, BlankLines, without_blank_runs
from rankframe.io.source import fail, text_blocks
from rankframe.table.keys import pair_key

__all__ = ["Comments", "ParsedBlock", "parse_block", "read_qrels", "read_run"]

_Frame = TypeVar("_Frame", pl.DataFrame, pl.Series)

# The line grammar (line ends, blanks, blank and comment lines) is rankframe.io.lines'.
# Text is handed to Polars in pieces of about this many bytes, cut at line ends: pieces
# are split into lines in parallel, and no string comes near Polars' 4 GiB limit.
_CHUNK_BYTES: Final = 1 << 20
#: Text parsed at once by read_run and read_qrels: blocks of whole lines of about 8 MiB.
READ_BYTES: Final = 8 << 20

RUN_LAYOUT: Final = ("qid", "Q0", "docid", "rank", "score", "tag")
QRELS_LAYOUT: Final = ("qid", "iter", "docid", "rel")
#: The columns each reader returns.
_COLUMNS: Final = {"run": ("qid", "docid", "rank", "score", "tag"),
                   "qrels": ("qid", "docid", "rel")}
#: Their types.
_SCHEMAS: Final = {kind: {c: {"rank": pl.Int64, "score": pl.Float64, "rel": pl.Int64}.get(
    c, pl.String) for c in columns} for kind, columns in _COLUMNS.items()}


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
    return _read(Path(path), "run")


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
    return _read(Path(path), "qrels")


class Comments:
    """The comment lines shaped like data lines met while reading a file, warned about once
    (:class:`~rankframe.errors.InputWarning`): the first one and how many more."""

    def __init__(self, source: Path, kind: str) -> None:
        self.source, self.kind = source, kind
        self.first: tuple[int, str] | None = None  # (line, query id)
        self.count = 0
        self._warned = False

    def add(self, shaped: pl.DataFrame) -> None:
        """Record the rows (``line``, ``fields``) of comment lines shaped like data."""
        if shaped.height and self.first is None:
            line, fields = shaped.row(0)[0], shaped.row(0)[-1]
            self.first = (line, fields[0])
        self.count += shaped.height

    def warn(self, stacklevel: int = 4) -> None:
        if self.first is None or self._warned:
            return
        self._warned = True
        line, query = self.first
        more = f" (and {self.count - 1} more such lines)" if self.count > 1 else ""
        warnings.warn(
            f"{self.source}, line {line}: skipped as a comment, as trec_eval does, although "
            f"it reads as a {self.kind} line for query {query!r}{more}; a query id must not "
            f"start with '#'",
            InputWarning,
            stacklevel=stacklevel,
        )


class ParsedBlock(NamedTuple):
    """One block of a file, parsed: the reader's columns, and each row's line (``lines``;
    None: the rows are the block's lines from ``first_line`` on, but the blank lines taken
    out, ``blanks``)."""

    table: pl.DataFrame
    first_line: int
    lines: pl.Series | None
    blanks: BlankLines | None = None

    def line(self, row: int) -> int:
        if self.lines is not None:
            return int(self.lines[row])
        if self.blanks is not None:
            return self.blanks.line(row, self.first_line)
        return self.first_line + row


def _read(source: Path, kind: str) -> pl.DataFrame:
    """The table of a run or qrels file, parsed block by block (see the module). A (qid,
    docid) pair twice within a block is reported with that block, before the rest of the
    file is read: only the file's pairs up to it can hold the first repeat."""
    comments = Comments(source, kind)
    parts: list[ParsedBlock] = []
    keys: list[pl.Series] = []
    try:
        for first_line, text in text_blocks(source, kind, READ_BYTES):
            part = parse_block(source, kind, first_line, text, comments)
            if not part.table.height:
                continue
            parts.append(part)
            keys.append(part.table.select(pair_key("qid", "docid")).to_series())
            if keys[-1].n_unique() != keys[-1].len():
                _raise_duplicate(source, _joined([p.table for p in parts]), parts, kind,
                                 _joined(keys))
    except InputError:
        comments.warn(stacklevel=5)
        raise
    comments.warn(stacklevel=5)
    if not parts:
        raise fail(
            source, None, f"no {kind} lines (the file is empty or holds only blanks and comments)"
        )
    table = _joined([part.table for part in parts])
    _raise_duplicate(source, table, parts, kind, _joined(keys))
    return table


def _joined(frames: list[_Frame]) -> _Frame:
    return pl.concat(frames) if len(frames) > 1 else frames[0]


def parse_block(source: Path, kind: str, first_line: int, text: bytes,
                comments: Comments) -> ParsedBlock:
    """The rows of ``text``, whole lines of a ``kind`` file ("run" or "qrels") from line
    ``first_line`` on, as the reader's columns (no row for a blank or comment line); comment
    lines shaped like data go to ``comments``. Raises for the first line with a problem;
    repeated (qid, docid) pairs are left to the caller, who sees the whole file."""
    layout = RUN_LAYOUT if kind == "run" else QRELS_LAYOUT
    blanks, looked = None, _empty_line(text)
    if looked:  # long runs of blank lines out first
        text, blanks = without_blank_runs(text)
    fast = None if looked and _empty_line(text) else _simple_table(text, layout,
                                                                  distinct=False)
    if fast is None and not looked:  # long runs of lines of blanks, perhaps
        text, blanks = without_blank_runs(text)
        if blanks is not None and not _empty_line(text):
            fast = _simple_table(text, layout, distinct=False)
    if fast is not None:
        return ParsedBlock(fast.select(_COLUMNS[kind]), first_line, None, blanks)
    if not text:  # blank lines only
        return ParsedBlock(pl.DataFrame(schema=_SCHEMAS[kind]), first_line, None, blanks)
    numbered = _numbered_lines(source, text, kind, first_line, blanks)
    if numbered.height < text.count(b"\n") + (not text.endswith(b"\n")):
        # Blank lines were left (short runs): without them, the text may be plainly laid out.
        plain = numbered.get_column("text").str.join("\n").item().encode() + b"\n"
        fast = _simple_table(plain, layout, distinct=False)
        if fast is not None and fast.height == numbered.height:
            return ParsedBlock(fast.select(_COLUMNS[kind]), first_line,
                               numbered.get_column("line"))
    lines = _data_lines(numbered, kind, comments)
    parsed, problem = (_run_fields if kind == "run" else _qrels_fields)(lines)
    first_problem(source, parsed, problem)
    return ParsedBlock(parsed.select(_COLUMNS[kind]), first_line, parsed.get_column("line"))


def _empty_line(text: bytes) -> bool:
    """Whether ``text`` holds an empty line (which the plain reader cannot take)."""
    return text.startswith(b"\n") or b"\n\n" in text


def _run_fields(lines: pl.DataFrame) -> tuple[pl.DataFrame, pl.Expr]:
    """A run's lines (``line``, ``fields``) as its columns, and each line's problem."""
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
    return parsed, problem


def _qrels_fields(lines: pl.DataFrame) -> tuple[pl.DataFrame, pl.Expr]:
    """A qrels file's lines (``line``, ``fields``) as its columns, and each line's problem."""
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
    return parsed, problem


# Blanks other than the single space that separates fields (a tab ...): one each between
# fields, they are made spaces first; runs of them leave empty fields, refused below.
_NOT_PLAIN: Final = tuple(OTHER_BLANKS[i:i + 1] for i in range(len(OTHER_BLANKS)))
# The fast path reads numbers with Polars' own parsers, which accept what the general path's
# patterns accept, plus the non-finite spellings (nan, inf) that the check below rejects.
_TYPES: Final = {"rank": pl.Int64, "score": pl.Float64, "rel": pl.Int64}


def _simple_table(data: bytes, layout: tuple[str, ...], *, distinct: bool = True
                  ) -> pl.DataFrame | None:
    """The parsed table when the text is plainly laid out and clean, else None.

    Most run and qrels files are written by programs: one space (or one tab) between
    fields, no comments. Such text is handed whole to Polars' CSV reader (a space as the
    separator, numbers parsed as it reads). What the general reader would treat otherwise
    is ruled out in bulk: an empty or missing field (runs of blanks, a short or blank line:
    NULL), a comment line, a non-finite score, with ``distinct`` a repeated pair; Polars
    itself rejects long lines, malformed numbers and invalid UTF-8. Row i is then line
    i + 1. Whenever that cannot be proven, None sends the caller to the general path,
    which reads any layout and names the file and line of a problem.
    """
    if not data:
        return None
    if any(blank in data for blank in _NOT_PLAIN):
        data = data.translate(BLANKS)
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
    tests.append(is_comment(pl.col("qid")).not_().all())
    if "score" in layout:
        tests.append(pl.col("score").is_finite().all())
    passed = table.select(t.alias(f"t{i}") for i, t in enumerate(tests)).row(0)
    if table.height == 0 or not all(passed):
        return None
    if distinct and table.select(pair_key("qid", "docid").n_unique()).item() != table.height:
        return None  # a duplicate pair (or a hash collision): the general path decides
    return table


def _read_text(source: Path, data: bytes, kind: str, first_line: int,
               blanks: BlankLines | None) -> list[str]:
    """The text of ``data`` (UTF-8, NUL-free: see :mod:`rankframe.io.source`; its first line
    is line ``first_line`` of the file, ``blanks`` taken out of it) as a few strings, each
    a whole number of lines, newlines dropped at the piece boundaries so that splitting
    every piece on ``\\n`` yields the lines."""
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
            row = data.count(b"\n", 0, offset)
            line = first_line + row if blanks is None else blanks.line(row, first_line)
            raise fail(
                source, line, f"not UTF-8 text (byte 0x{data[offset]:02x}); is this a {kind} file?"
            ) from None
        pieces.append(text[:-1] if text.endswith("\n") else text)
        start = end
    return pieces


def _numbered_lines(source: Path, data: bytes, kind: str, first_line: int,
                    blanks: BlankLines | None) -> pl.DataFrame:
    """Columns ``line`` (1-based number in the file) and ``text`` (squeezed: one space
    between fields) for every line of ``data`` that is not blank (from line ``first_line``
    on, ``blanks`` taken out of it)."""
    pieces = _read_text(source, data, kind, first_line, blanks)
    lines = (
        pl.DataFrame({"text": pieces}, schema={"text": pl.String})
        .select(pl.col("text").str.split("\n"))
        .explode("text")
        .with_row_index("line", offset=first_line)
        .select(pl.col("line").cast(pl.Int64), squeezed(pl.col("text")))
        .filter(pl.col("text") != "")
    )
    if blanks is not None:
        lines = lines.with_columns(in_file(lines.get_column("line"), first_line, blanks))
    return lines


def _data_lines(lines: pl.DataFrame, kind: str, comments: Comments) -> pl.DataFrame:
    """Columns ``line`` and ``fields`` (list of str) of the ``lines`` (``line``, ``text``:
    :func:`_numbered_lines`) that are not comments.

    A comment is a line whose first non-blank character is ``#``: trec_eval's rule for runs
    (its qrels reader wants the ``#`` in the first column, and fails on an indented one). A
    comment that otherwise reads as a data line (a query id starting with ``#``) is skipped,
    as trec_eval skips it, and goes to ``comments``, warned about by the caller with its
    line, so that no query vanishes silently."""
    lines = lines.select("line", is_comment(pl.col("text")).alias("comment"),
                         fields=split_fields(pl.col("text")))
    comments.add(_shaped_like_data(lines.filter("comment"), kind).drop("comment"))
    return lines.filter(pl.col("comment").not_()).drop("comment")


def _shaped_like_data(comments: pl.DataFrame, kind: str) -> pl.DataFrame:
    """The comment lines that read as data lines (see :func:`_data_lines`)."""
    layout, value, pattern = (
        (RUN_LAYOUT, 4, NUMBER) if kind == "run" else (QRELS_LAYOUT, 3, INTEGER))
    return comments.filter(
        pl.col("fields").list.len() == len(layout),
        field(value).str.contains(pattern),
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




def _raise_duplicate(source: Path, table: pl.DataFrame, parts: list[ParsedBlock],
                     kind: str, keys: pl.Series) -> None:
    """Raise for the first line whose (qid, docid) already appeared on an earlier line.
    64-bit pair keys (``keys``, one per row of ``table``) prove the pairs distinct in one
    pass; only rows whose key repeats are compared by their text."""
    if keys.n_unique() == keys.len():
        return
    # The first row whose key was seen before, and the first row of that key: a duplicate
    # when their ids agree (else a hash collision, settled by the ids of every suspect).
    row = int(keys.is_first_distinct().not_().arg_max() or 0)
    earlier = int((keys == keys[row]).arg_max() or 0)
    if any(table[c][row] != table[c][earlier] for c in ("qid", "docid")):
        suspects = keys.is_duplicated().arg_true()
        # Fields hold no spaces, so "qid docid" is a faithful key.
        text = table[suspects].select(pl.concat_str("qid", "docid", separator=" "))
        again = text.to_series().is_first_distinct().not_()
        if not again.any():
            return
        at = int(again.arg_max() or 0)
        row = int(suspects[at])
        earlier = int(suspects[int((text.to_series() == text.to_series()[at]).arg_max() or 0)])
    raise fail(
        source,
        _line_of(parts, row),
        f"duplicate document {table['docid'][row]!r} for query {table['qid'][row]!r} (first "
        f"on line {_line_of(parts, earlier)}); each (qid, docid) pair may appear only once "
        f"in a {kind} file",
    )


def _line_of(parts: list[ParsedBlock], row: int) -> int:
    """The line of row ``row`` of the parts' rows, one after the other."""
    for part in parts:
        if row < part.table.height:
            return part.line(row)
        row -= part.table.height
    raise IndexError(row)

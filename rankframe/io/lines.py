"""The line grammar of trec_eval's text files (runs, qrels, prefs, judgment groups, z-scores),
owned here and read the same way by every reader.

- A line ends at LF, CRLF or a lone CR (classic Mac OS), in any mix within one file:
  :func:`line_feeds` (text streaming in, in pieces) and :func:`with_line_feeds` (a whole
  text) make each of them one LF.
- Fields are separated by runs of C's ``isspace`` blanks, as trec_eval reads its files
  with ``sscanf("%s")``: space, tab, vertical tab, form feed (and CR, which no longer
  occurs once line ends are LFs). :data:`BLANKS` maps the others to :data:`SEPARATOR`.
- A blank line (blanks only) holds no data; nor does a comment line, whose first non-blank
  character is :data:`COMMENT` (trec_eval's rule for runs). Blank lines are taken out of
  a text before its lines are split, so that they cost about what their bytes cost: long
  runs of them one run at a time, with where they were, for the line numbers of messages
  (:func:`without_blank_runs`), the others with the lines the reader splits anyway.

:func:`data_lines` and :func:`data_fields` apply all of it in pure Python (no Polars:
``rankframe eval`` reads small plain files with it before any dataframe library is
imported); the Polars readers
(:mod:`rankframe.io.trec`, :mod:`rankframe.io.fields`) state the same rules as string
kernels over these constants, and a test holds the two to the same lines.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from typing import Final, NamedTuple

__all__ = ["BLANKS", "COMMENT", "OTHER_BLANKS", "SEPARATOR", "BlankLines", "data_fields",
           "data_lines", "line_feeds", "with_line_feeds", "without_blank_runs"]

#: The blank that separates fields once the others are mapped to it.
SEPARATOR: Final = " "
#: C's isspace() blanks other than space and LF.
OTHER_BLANKS: Final = b"\t\v\f\r"
#: :data:`OTHER_BLANKS` mapped to spaces byte for byte (they never occur inside a UTF-8
#: multi-byte sequence); runs of spaces are then one separator.
BLANKS: Final = bytes.maketrans(OTHER_BLANKS, SEPARATOR.encode() * len(OTHER_BLANKS))
#: The first non-blank character of a comment line.
COMMENT: Final = "#"

_TEXT_BLANKS: Final = str.maketrans(OTHER_BLANKS.decode(), SEPARATOR * len(OTHER_BLANKS))
# Blank lines once line ends are LFs: a run of them after a line's end (a match runs from
# that LF to the run's last LF), and at the start of a text. One class repeated, so the
# regular expression engine scans a run at the speed of its bytes. A long run: 64 bytes
# from its first LF to its last, or more.
_LONG_BLANK_RUN: Final = re.compile(rb"\n[ \t\v\f\n]{62,}\n")
_LEADING_BLANKS: Final = re.compile(rb"\A[ \t\v\f\n]*\n")
_BLANK_RUN_TEXT: Final = re.compile(r"\n[ \t\v\f\n]*\n")
_LEADING_BLANKS_TEXT: Final = re.compile(r"\A[ \t\v\f\n]*\n")
#: Characters Python's ``str.split()`` takes for blanks in ASCII text that C does not.
_PYTHON_ONLY_BLANKS: Final = "\x1c\x1d\x1e\x1f"


def line_feeds(pieces: Iterable[bytes]) -> Iterator[bytes]:
    """``pieces`` of text with every CRLF and lone CR made an LF (a CR that ends a piece
    waits for the next piece's first byte: a CRLF split between pieces is one line end)."""
    carried = False  # the piece before ended with a CR, not yet given as a line end
    for piece in pieces:
        if carried:
            yield b"\n"
            if piece.startswith(b"\n"):
                piece = piece[1:]
        carried = piece.endswith(b"\r")
        if carried:
            piece = piece[:-1]
        if b"\r" in piece:
            piece = piece.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if piece:
            yield piece
    if carried:
        yield b"\n"


def with_line_feeds(text: str) -> str:
    """A whole ``text`` with every CRLF and lone CR made an LF, as :func:`line_feeds`.

    Examples
    --------
    >>> with_line_feeds("a\\r\\nb\\rc\\n\\rd")
    'a\\nb\\nc\\n\\nd'
    """
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


class BlankLines(NamedTuple):
    """Where :func:`without_blank_runs` took blank lines out of a text: before its
    ``at[i]``-th remaining line (0-based), ``skipped[i]`` lines had been taken out in all.
    Both grow with i."""

    at: array[int]
    skipped: array[int]

    def line(self, row: int, first_line: int = 1) -> int:
        """The line number, in the text as it was, of its ``row``-th remaining line
        (0-based; the text's first line is ``first_line``)."""
        runs = bisect_right(self.at, row)
        return first_line + row + (self.skipped[runs - 1] if runs else 0)


def without_blank_runs(data: bytes) -> tuple[bytes, BlankLines | None]:
    """``data`` (text with LF line ends) without its long runs of blank lines (blanks only,
    or empty; together at least 64 bytes) and its leading blank lines, and where they were
    (None: it had none). Each run costs a few steps in Python, hence a run's least size:
    the blank lines of short runs are left for the caller to drop with the lines it splits
    (in one vectorised step).

    Examples
    --------
    >>> text, blanks = without_blank_runs(b"\\n\\na 1\\n" + b"\\n" * 70 + b"b 2\\n")
    >>> text, [blanks.line(row) for row in range(2)]
    (b'a 1\\nb 2\\n', [3, 74])
    """
    at, skipped = array("q"), array("q")
    kept = taken = start = 0
    count = data.count
    leading = _LEADING_BLANKS.match(data)
    if leading:
        start = leading.end()
        taken = count(b"\n", 0, start)
        at.append(0)
        skipped.append(taken)
    for run in _LONG_BLANK_RUN.finditer(data, start):
        kept += count(b"\n", start, run.start() + 1)  # the lines before the run
        taken += count(b"\n", run.start() + 1, run.end())
        at.append(kept)
        skipped.append(taken)
        start = run.end()
    if not at:
        return data, None
    return _LONG_BLANK_RUN.sub(b"\n", data[leading.end():] if leading else data), BlankLines(
        at, skipped)


def _without_blank_lines(text: str) -> str:
    """``text`` (LF line ends) without any of its blank lines (a last line without its LF
    is kept)."""
    return _BLANK_RUN_TEXT.sub("\n", _LEADING_BLANKS_TEXT.sub("", text, count=1))


def data_lines(text: str, first_line: int = 1, *, comments: bool = True
               ) -> Iterator[tuple[int, list[str]]]:
    """(1-based line number, fields) of every line of ``text`` that holds data: not blank
    and, with ``comments``, not a comment. ``first_line`` numbers the text's first line.

    Examples
    --------
    >>> list(data_lines("# a run\\r1 Q0 d1 1 2.5 x\\r\\n\\n 1\\tQ0  d2 2 1 x\\n"))
    [(2, ['1', 'Q0', 'd1', '1', '2.5', 'x']), (4, ['1', 'Q0', 'd2', '2', '1', 'x'])]
    """
    text = with_line_feeds(text)
    split = _splitter(text)
    for number, line in enumerate(text.split("\n"), start=first_line):
        fields = split(line)
        if fields and not (comments and fields[0].startswith(COMMENT)):
            yield number, fields


def data_fields(text: str, *, comments: bool = True) -> list[list[str]]:
    """The fields of every data line of ``text``, as :func:`data_lines` reads them (without
    the line numbers, in one pass: the small-file path reads whole files this way).

    Examples
    --------
    >>> data_fields("q1 0 d1 1\\r\\rq1 0 d2 0")
    [['q1', '0', 'd1', '1'], ['q1', '0', 'd2', '0']]
    """
    text = _without_blank_lines(with_line_feeds(text))
    rows = [fields for fields in map(_splitter(text), text.split("\n")) if fields]
    if comments and COMMENT in text:
        rows = [fields for fields in rows if not fields[0].startswith(COMMENT)]
    return rows


def _splitter(text: str) -> Callable[[str], list[str]]:
    """How to split the lines of ``text`` into fields: in ASCII text without the
    separators \\x1c-\\x1f, ``str.split()`` splits on exactly C's blanks; elsewhere
    (Unicode spaces are data to trec_eval) the blanks are mapped first."""
    simple = text.isascii() and not any(blank in text for blank in _PYTHON_ONLY_BLANKS)
    return str.split if simple else _fields


def _fields(line: str) -> list[str]:
    """The fields of ``line``: text between runs of C's blanks (and only those)."""
    return [field for field in line.translate(_TEXT_BLANKS).split(SEPARATOR) if field]

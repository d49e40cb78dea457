"""Readers for TREC run and qrels files.

Both readers accept plain or gzip-compressed text (gzip is recognised by its magic bytes,
whatever the file is called), fields separated by any run of whitespace (spaces, tabs),
LF or CRLF line endings, a leading UTF-8 byte-order mark, blank lines and comment lines
whose first field starts with ``#``.

Parsing is vectorised: the text is split into lines and fields by Polars string kernels,
never by a Python loop over lines. Every problem raises :class:`rankframe.errors.InputError`
with a one-line message naming the file and the 1-based line number.
"""

from __future__ import annotations

import codecs
import gzip
import os
import zlib
from pathlib import Path
from typing import Final

import polars as pl

from rankframe.errors import InputError
from rankframe.table.keys import pair_key

__all__ = ["read_qrels", "read_run"]

# Field separators are runs of the characters C's isspace() accepts: trec_eval reads its
# files with sscanf("%s"). Tab, vertical tab, form feed and CR become spaces byte for byte
# (they never occur inside a UTF-8 multi-byte sequence), then runs of spaces are collapsed.
_BLANKS: Final = bytes.maketrans(b"\t\v\f\r", b"    ")
# Number syntax, shared with sql/rf_read_*.sql so that both readers accept the same files
# (a plain cast is more lenient in DuckDB, e.g. '1.5' -> 2, '0x10' -> 16).
_INTEGER: Final = r"^[+-]?[0-9]+$"
_DECIMAL: Final = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
_GZIP_MAGIC: Final = b"\x1f\x8b"
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
        file; :func:`rankframe.table.judge.judge` ranks by score and ignores it), ``score``
        (Float64) and ``tag`` (String), one row per line, in file order.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    InputError
        Naming the file and line: a line without exactly 6 fields, a rank that is not an
        integer, a score that is not a finite number (``nan``, ``inf`` are rejected), a
        ``(qid, docid)`` pair seen before, a binary (NUL bytes) or non-UTF-8 file, a broken
        gzip stream, or a file with no run lines at all.

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
    fast = _simple_table(source, "run", RUN_LAYOUT)
    if fast is not None:
        return fast.select("qid", "docid", "rank", "score", "tag")
    lines = _data_lines(source, "run")
    wrong_count, count_message = _field_count("run", RUN_LAYOUT)
    raw_rank, raw_score = _field(3), _field(4)
    parsed = lines.select(
        "line",
        count_message=pl.when(wrong_count).then(count_message),
        qid=_field(0),
        docid=_field(2),
        rank=_parse(raw_rank, _INTEGER, pl.Int64),
        score=_parse(raw_score, _DECIMAL, pl.Float64),
        tag=_field(5),
        raw_rank=raw_rank,
        raw_score=raw_score,
    )
    problem = (
        pl.when(pl.col("count_message").is_not_null())
        .then("count_message")
        .when(pl.col("rank").is_null())
        .then(pl.format("rank '{}' is not an integer", "raw_rank"))
        .when(pl.col("score").is_null() | pl.col("score").is_infinite())
        .then(pl.format("score '{}' is not a finite number", "raw_score"))
    )
    _raise_first(source, parsed, problem)
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
        non-UTF-8 file, a broken gzip stream, or a file with no qrels lines at all.

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
    fast = _simple_table(source, "qrels", QRELS_LAYOUT)
    if fast is not None:
        return fast.select("qid", "docid", "rel")
    lines = _data_lines(source, "qrels")
    wrong_count, count_message = _field_count("qrels", QRELS_LAYOUT)
    raw_rel = _field(3)
    parsed = lines.select(
        "line",
        count_message=pl.when(wrong_count).then(count_message),
        qid=_field(0),
        docid=_field(2),
        rel=_parse(raw_rel, _INTEGER, pl.Int64),
        raw_rel=raw_rel,
    )
    problem = (
        pl.when(pl.col("count_message").is_not_null())
        .then("count_message")
        .when(pl.col("rel").is_null())
        .then(pl.format("relevance grade '{}' is not an integer", "raw_rel"))
    )
    _raise_first(source, parsed, problem)
    _raise_duplicate(source, parsed, "qrels")
    return parsed.select("qid", "docid", "rel")


def _parse(raw: pl.Expr, pattern: str, dtype: type[pl.DataType]) -> pl.Expr:
    """``raw`` cast to ``dtype`` where it matches ``pattern`` (and fits), else NULL."""
    return pl.when(raw.str.contains(pattern)).then(raw.cast(dtype, strict=False))


def _fail(source: Path, line: int | None, problem: str) -> InputError:
    where = f"{source}" if line is None else f"{source}, line {line}"
    return InputError(f"{where}: {problem}")


def _raw_bytes(source: Path, kind: str) -> bytes:
    """The file's bytes, gunzipped; raises for a missing file, a directory or bad gzip."""
    if not source.exists():
        raise FileNotFoundError(f"rankframe: {kind} file not found: {source}")
    if source.is_dir():
        raise _fail(source, None, f"is a directory, expected a {kind} file")
    data = source.read_bytes()
    if data.startswith(_GZIP_MAGIC):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise _fail(source, None, f"broken gzip stream ({exc})") from None
    return data


# Bytes that a plainly laid out file never holds: blanks other than the single space that
# separates fields and the LF that ends lines (a tab, a CR ...), and NUL (a binary file).
_NOT_PLAIN: Final = (b"\t", b"\v", b"\f", b"\r", b"\x00")
# The fast path reads numbers with Polars' own parsers, which accept what the general path's
# patterns accept, plus the non-finite spellings (nan, inf) that the check below rejects.
_TYPES: Final = {"rank": pl.Int64, "score": pl.Float64, "rel": pl.Int64}


def _simple_table(source: Path, kind: str, layout: tuple[str, ...]) -> pl.DataFrame | None:
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
    data = _raw_bytes(source, kind)
    data = data[len(codecs.BOM_UTF8) :] if data.startswith(codecs.BOM_UTF8) else data
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
    except pl.exceptions.PolarsError:
        return None
    tests = [pl.col(c).null_count() == 0 for c in layout]
    tests.append(pl.col("qid").str.starts_with("#").not_().all())
    if kind == "run":
        tests.append(pl.col("score").is_finite().all())
    passed = table.select(t.alias(f"t{i}") for i, t in enumerate(tests)).row(0)
    if table.height == 0 or not all(passed):
        return None
    if table.select(pair_key("qid", "docid").n_unique()).item() != table.height:
        return None  # a duplicate pair (or a hash collision): the general path decides
    return table


def _read_text(source: Path, kind: str) -> list[str]:
    """The file's text as a few strings, each a whole number of lines, newlines dropped at
    the piece boundaries so that splitting every piece on ``\\n`` yields the file's lines."""
    data = _raw_bytes(source, kind)
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise _fail(source, line, f"binary data (NUL byte); expected a text {kind} file")
    bom = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    data = data.translate(_BLANKS)
    pieces: list[str] = []
    start = bom
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
            raise _fail(
                source, line, f"not UTF-8 text (byte 0x{data[offset]:02x}); is this a {kind} file?"
            ) from None
        pieces.append(text[:-1] if text.endswith("\n") else text)
        start = end
    return pieces


def _data_lines(source: Path, kind: str) -> pl.DataFrame:
    """Columns ``line`` (1-based number) and ``fields`` (list of str) for every line that is
    neither blank nor a comment; raises if there is no such line."""
    pieces = _read_text(source, kind)
    lines = (
        pl.DataFrame({"text": pieces}, schema={"text": pl.String})
        .select(pl.col("text").str.split("\n"))
        .explode("text")
        .with_row_index("line", offset=1)
        .select(
            pl.col("line").cast(pl.Int64),
            pl.col("text").str.strip_chars(" ").str.replace_all(" {2,}", " "),
        )
        .filter(pl.col("text") != "", pl.col("text").str.starts_with("#").not_())
        .select("line", fields=pl.col("text").str.split(" "))
    )
    if lines.height == 0:
        raise _fail(
            source, None, f"no {kind} lines (the file is empty or holds only blanks and comments)"
        )
    return lines


def _field_count(kind: str, layout: tuple[str, ...]) -> tuple[pl.Expr, pl.Expr]:
    """(a line has the wrong number of fields, the message saying so)."""
    found = pl.col("fields").list.len()
    message = pl.format(f"expected {len(layout)} fields ({' '.join(layout)}), found {{}}", found)
    return found != len(layout), message


def _field(i: int) -> pl.Expr:
    """The i-th field (0-based), NULL on a line that is too short."""
    return pl.col("fields").list.get(i, null_on_oob=True)


def _raise_first(source: Path, frame: pl.DataFrame, problem: pl.Expr) -> None:
    """Raise for the first line where ``problem`` (a message, NULL when fine) is set."""
    first = frame.select("line", problem=problem).drop_nulls("problem").head(1)
    if first.height:
        line, message = first.row(0)
        raise _fail(source, line, message)


def _raise_duplicate(source: Path, frame: pl.DataFrame, kind: str) -> None:
    """Raise for the first line whose (qid, docid) already appeared on an earlier line."""
    # Fields hold no spaces, so "qid docid" is a faithful key, and one cheaper to hash.
    key = pl.concat_str("qid", "docid", separator=" ")
    repeat = frame.filter(key.is_first_distinct().not_()).head(1)
    if not repeat.height:
        return
    line, qid, docid = (repeat[c][0] for c in ("line", "qid", "docid"))
    earlier = frame.filter(pl.col("qid") == qid, pl.col("docid") == docid)["line"][0]
    raise _fail(
        source,
        line,
        f"duplicate document {docid!r} for query {qid!r} (first on line {earlier}); "
        f"each (qid, docid) pair may appear only once in a {kind} file",
    )

"""Whitespace-separated text files as a table of fields, for the readers of trec_eval's
input formats (:mod:`rankframe.io.trec`, :mod:`rankframe.io.prefs`, :mod:`rankframe.io.groups`,
:mod:`rankframe.io.zscores`).

A file is read once as :func:`rankframe.io.source.read_text_bytes` reads it (plain or gzip,
UTF-8 or a byte-order mark, no NUL bytes, lines up to 1 MiB); fields are separated by runs
of C's ``isspace`` characters, blank lines are skipped, and so are comment lines (first
non-blank character ``#``) where the format has them. Problems raise
:class:`rankframe.errors.InputError` naming the file and the 1-based line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, Literal

import polars as pl

from rankframe.io.lines import BLANKS, COMMENT, SEPARATOR, BlankLines, without_blank_runs
from rankframe.io.source import fail

__all__ = ["BLANKS", "INTEGER", "NUMBER", "CommentRule", "field", "first_problem", "in_file",
           "is_comment", "lines_of", "parse", "repeated", "split_fields", "squeezed"]

# Number syntax, shared with sql/rf_read_*.sql so that both readers accept the same files
# (a plain cast is more lenient in DuckDB, e.g. '1.5' -> 2, '0x10' -> 16).
#: An integer as trec_eval's files write one.
INTEGER: Final = r"^[+-]?[0-9]+$"
#: A decimal number, optionally with an exponent.
NUMBER: Final = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"


#: Where a format's comment lines have their ``#``: first non-blank character, or column 1
#: only (trec_eval 10's prefs readers); None: the format has no comments.
CommentRule = Literal["indented", "column 1"] | None


def lines_of(source: Path, data: bytes, kind: str, layout: tuple[str, ...], *,
             comments: CommentRule = "indented") -> pl.DataFrame:
    """Columns ``line`` (1-based) and ``fields`` (list of str) of every data line of
    ``data`` (neither blank nor a comment by the rule ``comments``), each holding exactly
    ``len(layout)`` fields; raises for the first line that does not, for text that is not
    UTF-8, and for a file without data lines."""
    data, blanks = without_blank_runs(data)
    blank = data.translate(BLANKS)
    try:
        text = blank.decode("utf-8")
    except UnicodeDecodeError as exc:
        row = blank.count(b"\n", 0, exc.start)
        line = row + 1 if blanks is None else blanks.line(row)
        raise fail(source, line, f"not UTF-8 text (byte 0x{blank[exc.start]:02x}); "
                                 f"is this a {kind} file?") from None
    table = (
        pl.DataFrame({"text": text.split("\n")}, schema={"text": pl.String})
        .with_row_index("line", offset=1)
        .select(pl.col("line").cast(pl.Int64), pl.col("text").alias("raw"),
                squeezed(pl.col("text")))
        .filter(pl.col("text") != "")
    )
    if blanks is not None:
        table = table.with_columns(in_file(table.get_column("line"), 1, blanks))
    if comments is not None:
        table = table.filter(is_comment(pl.col("raw" if comments == "column 1" else "text"))
                             .not_())
    table = table.select("line", fields=split_fields(pl.col("text")))
    if table.height == 0:
        raise fail(source, None, f"no {kind} lines (the file is empty or holds only blanks"
                                 + (" and comments)" if comments else ")"))
    found = pl.col("fields").list.len()
    first_problem(source, table, pl.when(found != len(layout)).then(pl.format(
        f"expected {len(layout)} fields ({' '.join(layout)}), found {{}}", found)))
    return table


def in_file(numbers: pl.Series, first_line: int, blanks: BlankLines) -> pl.Series:
    """``numbers`` (``first_line`` + the row, in a text that ``blanks`` were taken out of:
    :func:`rankframe.io.lines.without_blank_runs`) as line numbers in the file."""
    runs = pl.Series(blanks.at, dtype=pl.Int64).search_sorted(numbers - first_line,
                                                              side="right")
    taken = pl.Series([0, *blanks.skipped], dtype=pl.Int64)
    return numbers + taken.gather(runs)


def squeezed(text: pl.Expr) -> pl.Expr:
    """Each line of ``text`` (its blanks already spaces: :data:`BLANKS`) with one
    separator between fields and none around them; a blank line becomes ``""``
    (:mod:`rankframe.io.lines`' grammar as string kernels)."""
    return text.str.strip_chars(SEPARATOR).str.replace_all(f"{SEPARATOR}{{2,}}", SEPARATOR)


def is_comment(text: pl.Expr) -> pl.Expr:
    """Whether a line of ``text`` starts with :data:`~rankframe.io.lines.COMMENT`."""
    return text.str.starts_with(COMMENT)


def split_fields(text: pl.Expr) -> pl.Expr:
    """A :func:`squeezed` line's fields."""
    return text.str.split(SEPARATOR)


def field(i: int) -> pl.Expr:
    """The i-th field (0-based) of the ``fields`` column."""
    return pl.col("fields").list.get(i, null_on_oob=True)


def parse(raw: pl.Expr, pattern: str, dtype: type[pl.DataType]) -> pl.Expr:
    """``raw`` cast to ``dtype`` where it matches ``pattern`` (and fits), else NULL."""
    return pl.when(raw.str.contains(pattern)).then(raw.cast(dtype, strict=False))


def first_problem(source: Path, frame: pl.DataFrame, problem: pl.Expr) -> None:
    """Raise for the first line of ``frame`` where ``problem`` (a message, NULL when the
    line is fine) is set."""
    first = frame.select("line", problem=problem).drop_nulls("problem").head(1)
    if first.height:
        line, message = first.row(0)
        raise fail(source, line, message)


def repeated(frame: pl.DataFrame, key: list[str]) -> tuple[int, int] | None:
    """(line, earlier line) of the first row whose ``key`` columns repeat an earlier row's,
    None when all are distinct."""
    joined = pl.concat_str(key, separator=" ")  # fields hold no spaces: a faithful key
    again = frame.filter(joined.is_first_distinct().not_()).head(1)
    if not again.height:
        return None
    row = again.row(0, named=True)
    same = pl.all_horizontal(pl.col(c) == row[c] for c in key)
    return row["line"], frame.filter(same)["line"][0]

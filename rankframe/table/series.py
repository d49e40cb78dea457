"""Linear passes that compare each row with the one before it, chunk by chunk.

Comparing a column with itself shifted by one row (``s.shift(1)``, or ``s.slice(1)`` against
``s.slice(0, n - 1)``) makes Polars copy it whenever the column has several chunks (a table
read from parquet has one per row group), because the two sides no longer line up. Within
one chunk the two slices do line up, so :func:`adjacent` walks the chunks and compares the
seam between two chunks on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import polars as pl

# Above this many chunks a column is first copied into one (each chunk costs a few calls).
MAX_CHUNKS = 256


def chunks(values: pl.Series) -> Iterator[pl.Series]:
    """The non-empty chunks of ``values``, in order."""
    if values.n_chunks() > MAX_CHUNKS:
        values = values.rechunk()
    return (chunk for chunk in values.get_chunks() if chunk.len())


def adjacent(values: pl.Series, compare: Callable[[pl.Series, pl.Series], pl.Series]
             ) -> pl.Series:
    """``compare(rows, rows before)`` for every row but the first, which gets True: a Boolean
    Series as long as ``values``; ``compare`` must not return NULL."""
    pieces: list[pl.Series] = []
    before: pl.Series | None = None  # the last row of the chunk before
    for chunk in chunks(values):
        first = chunk.slice(0, 1)
        pieces.append(pl.Series([True]) if before is None else compare(first, before))
        pieces.append(compare(chunk.slice(1), chunk.slice(0, chunk.len() - 1)))
        before = chunk.slice(chunk.len() - 1, 1)
    if not pieces:
        return pl.Series(values.name, [], dtype=pl.Boolean)
    return pl.concat(pieces).alias(values.name)


def changes(values: pl.Series) -> pl.Series:
    """True on each row whose value differs from the previous row's (NULL equals NULL),
    and on the first row."""
    return adjacent(values, _differ)


def _differ(rows: pl.Series, before: pl.Series) -> pl.Series:
    differ = rows.ne_missing(before)
    assert isinstance(differ, pl.Series)
    return differ


def run_starts(values: pl.Series) -> pl.Series:
    """The row numbers (Int64) where a run of equal consecutive values starts: 0, then every
    row whose value differs from the previous row's (NULL equals NULL)."""
    starts: pl.Series = changes(values).arg_true().cast(pl.Int64)
    return starts


def ascending(rows: pl.DataFrame) -> bool:
    """True if each row is greater than the one before it, comparing the columns in order
    (rows without NULL, such as the first row of each query)."""
    if rows.height < 2:
        return True
    this, before = rows.slice(1), rows.slice(0, rows.height - 1)
    later = pl.repeat(False, rows.height - 1, eager=True)
    for name in reversed(rows.columns):
        a, b = this.get_column(name), before.get_column(name)
        later = (a > b) | ((a == b) & later)
    return bool(later.all())

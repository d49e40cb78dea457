"""Linear passes over a Series that compare each value with the one before it, chunk by chunk.

Comparing a column with itself shifted by one row (``s.shift(1)``, or ``s.slice(1)`` against
``s.slice(0, n - 1)``) makes Polars copy it whenever the column has several chunks (a table
read from parquet has one per row group), because the two sides no longer line up. Within
one chunk the two slices do line up, so these helpers walk the chunks and compare the seam
between two chunks on its own.
"""

from __future__ import annotations

from collections.abc import Iterator

import polars as pl

# Above this many chunks a column is first copied into one (each chunk costs a few calls).
MAX_CHUNKS = 256


def chunks(values: pl.Series) -> Iterator[tuple[int, pl.Series]]:
    """(offset, chunk) for each non-empty chunk of ``values``, in order."""
    if values.n_chunks() > MAX_CHUNKS:
        values = values.rechunk()
    offset = 0
    for chunk in values.get_chunks():
        if chunk.len():
            yield offset, chunk
            offset += chunk.len()


def changes(values: pl.Series) -> pl.Series:
    """True on each row whose value differs from the previous row's (NULL equals NULL),
    and on the first row."""
    pieces: list[pl.Series] = []
    previous: pl.Series | None = None  # the last value of the chunk before, as a Series
    for _, chunk in chunks(values):
        seam = True if previous is None else bool(previous.ne_missing(chunk.slice(0, 1)).item())
        pieces.append(pl.Series([seam], dtype=pl.Boolean))
        pieces.append(chunk.slice(1).ne_missing(chunk.slice(0, chunk.len() - 1)))
        previous = chunk.slice(chunk.len() - 1, 1)
    if not pieces:
        return pl.Series(values.name, [], dtype=pl.Boolean)
    return pl.concat(pieces).alias(values.name)


def run_starts(values: pl.Series) -> pl.Series:
    """The row numbers (Int64) where a run of equal consecutive values starts: 0, then every
    row whose value differs from the previous row's (NULL equals NULL)."""
    starts: pl.Series = changes(values).arg_true().cast(pl.Int64)
    return starts

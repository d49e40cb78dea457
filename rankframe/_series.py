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


def run_starts(values: pl.Series) -> pl.Series:
    """The row numbers (Int64) where a run of equal consecutive values starts: 0, then every
    row whose value differs from the previous row's (NULL equals NULL)."""
    starts: list[pl.Series] = []
    previous: pl.Series | None = None  # the last value of the chunk before, as a Series
    for offset, chunk in chunks(values):
        if previous is None or previous.ne_missing(chunk.slice(0, 1)).item():
            starts.append(pl.Series([offset], dtype=pl.Int64))
        differs = chunk.slice(1).ne_missing(chunk.slice(0, chunk.len() - 1))
        starts.append(differs.arg_true().cast(pl.Int64) + (offset + 1))
        previous = chunk.slice(chunk.len() - 1, 1)
    if not starts:
        return pl.Series([], dtype=pl.Int64)
    return pl.concat(starts)

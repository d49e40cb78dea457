"""Invalid ranks within groups (below 1, not whole, repeated), found in linear time.

Every rank check of the project (``evaluate``'s table check, the builders' guard, the
many-measures expression) asks one question of flat columns: given each row's group (an
integer code ``0 .. groups - 1``) and its rank (a whole number >= 1), which groups hold a
rank twice? Hashing the pairs or sorting them answers it in O(n log n) or with a hash table
as large as the rows. Here, while the pairs fit a dense key space ``group * top + rank - 1``
(``top`` the largest rank) of at most :data:`DENSE_FACTOR` slots per row, one scatter of
True into a zeroed Boolean column of that size proves every pair distinct: its number of
True slots equals the number of rows exactly when no slot was written twice. Only when that
count falls short (or the key space is too sparse) are the pairs sorted, which names the
groups at fault. Pairs that come sorted (each group's rows together, ranks ascending: a
table sorted by query and rank) prove themselves first, by comparing each row with the one
before it.
"""

from __future__ import annotations

import polars as pl

from rankframe.errors import InputError

#: The dense key space may have at most this many slots per row (plus a constant): a
#: Boolean slot is one byte, so the bitmap stays within a few times the key column's size.
DENSE_FACTOR = 16
_DENSE_SLACK = 1 << 16
_INT64_MAX = (1 << 63) - 1


def repeated_groups(group: pl.Series, rank: pl.Series, groups: int) -> pl.Series:
    """The groups (their codes, ascending, no repeats) in which some rank occurs twice.

    ``group``: each row's group code, integers in ``0 .. groups - 1``; ``rank``: each row's
    rank, whole numbers >= 1 of an integer or float dtype; NULL ranks are left out.
    Linear while ``groups * (max(rank) + 1)`` is at most :data:`DENSE_FACTOR` times the
    rows; otherwise, or when a repeat is found, a sort of the pairs."""
    none = pl.Series("group", [], dtype=group.dtype)
    n = rank.len() - rank.null_count()
    if n < 2 or _strictly_increasing(group, rank):
        return none
    top = rank.max()
    assert isinstance(top, int | float)
    width = int(top) + 1
    if rank.dtype.is_integer() and width <= _INT64_MAX // max(groups + 1, 1):
        slots = groups * width + 1  # the last slot takes every NULL rank
        if slots <= DENSE_FACTOR * n + _DENSE_SLACK:
            key = pl.select((pl.lit(group).cast(pl.Int64) * width + pl.lit(rank))
                            .fill_null(slots - 1)).to_series()
            seen = pl.zeros(slots, dtype=pl.Boolean, eager=True).scatter(key, True)
            if seen.sum() == n + (rank.len() > n):
                return none
    if rank.has_nulls():
        ranked = rank.is_not_null()
        group, rank = group.filter(ranked), rank.filter(ranked)
    return _repeated_by_sorting(group, rank)


#: Rows compared first, before the whole of a column is: pairs in any order fail here.
_HEAD = 4096


def _strictly_increasing(group: pl.Series, rank: pl.Series) -> bool:
    """True if the (group, rank) pairs of the rows with a rank increase strictly from row to
    row (so none repeats): the first :data:`_HEAD` rows are compared first, the rest only if
    they pass."""
    def increasing(g: pl.Series, r: pl.Series) -> bool:
        if r.has_nulls():
            ranked = r.is_not_null()
            g, r = g.filter(ranked), r.filter(ranked)
        g0, g1 = g.slice(0, g.len() - 1), g.slice(1)
        r0, r1 = r.slice(0, r.len() - 1), r.slice(1)
        return bool(((g1 > g0) | ((g1 == g0) & (r1 > r0))).all())

    head = min(group.len(), _HEAD)
    return increasing(group.head(head), rank.head(head)) and (
        head == group.len() or increasing(group, rank))


def _repeated_by_sorting(group: pl.Series, rank: pl.Series) -> pl.Series:
    """:func:`repeated_groups` by sorting the (group, rank) pairs: a pair equal to the one
    before it is a repeat."""
    pairs = pl.DataFrame({"group": group, "rank": rank}).sort("group", "rank")
    twice = (pl.col("group") == pl.col("group").shift(1)) & (
        pl.col("rank") == pl.col("rank").shift(1))
    return pairs.filter(twice.fill_null(False)).get_column("group").unique(maintain_order=True)


def invalid_groups(lists: pl.Series, groups: int) -> pl.Series:
    """True for each group (a list of ``lists``) holding a rank that is below 1, not whole,
    NaN, infinite, above 2^63 - 1 (the largest Int64), or repeated; NULL ranks (not
    retrieved) are valid."""
    dtype = lists.dtype.inner if isinstance(lists.dtype, pl.List) else pl.Null
    flat = lists.rename("rank").to_frame().with_row_index("q")
    if dtype != pl.Null:
        flat = flat.explode("rank", empty_as_null=False)
    return invalid_in_rows(flat.get_column("q"), flat.get_column("rank"), groups)


def invalid_in_rows(group: pl.Series, rank: pl.Series, groups: int) -> pl.Series:
    """:func:`invalid_groups` for rows given flat: each row's ``group`` (codes ``0 ..
    groups - 1``, each group's rows together) and its ``rank``."""
    out = pl.repeat(False, groups, eager=True, dtype=pl.Boolean)
    if rank.dtype in (pl.Null, pl.List(pl.Null)):  # every rank NULL: nothing retrieved
        return out
    if not rank.dtype.is_numeric():
        raise InputError(f"rank: the rank column must hold numbers, got {rank.dtype}")
    bad = (rank < 1).fill_null(False)
    if rank.dtype.is_float():
        bad = bad | ((rank - rank.floor()) != 0).fill_null(False)  # NaN, infinity included
    if rank.dtype == pl.UInt64 or rank.dtype.is_float():
        bad = bad | (rank > _INT64_MAX).fill_null(False)
    if bad.any():
        out = out.scatter(group.filter(bad).unique(), True)
        keep = ~bad
        group, rank = group.filter(keep), rank.filter(keep)
    repeated = repeated_groups(group, rank, groups)
    return out.scatter(repeated, True) if repeated.len() else out

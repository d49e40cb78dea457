"""Checks of a judged long table (SEMANTICS.md §1) before metrics are computed on it.

:func:`check_judged` is what ``evaluate()`` calls first. Schema problems (a missing
column, a rank that is not an integer, a grade that is not numeric) are reported at once,
for a ``LazyFrame`` too, from its schema alone. Data problems (a rank below 1, the same
rank twice within a query, a NaN grade) need the rows: a ``DataFrame`` is checked at once;
a ``LazyFrame`` gets the check attached to its plan and raises when it is collected. The
check sees the data as it flows into the next step of the same query, so the source is read
once, not once for the check and again for the metrics; the price is that this step of the
plan holds the whole table in memory rather than streaming it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, overload

import polars as pl

from rankframe.errors import InputError
from rankframe.table.series import changes, chunks

__all__ = ["check_judged"]

_FN = "check_judged"


@overload
def check_judged(
    frame: pl.DataFrame, *, query: str | Sequence[str] = ..., rel: str = ..., rank: str = ...
) -> pl.DataFrame: ...


@overload
def check_judged(
    frame: pl.LazyFrame, *, query: str | Sequence[str] = ..., rel: str = ..., rank: str = ...
) -> pl.LazyFrame: ...


@overload
def check_judged(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    query: str | Sequence[str] = ...,
    rel: str = ...,
    rank: str = ...,
) -> pl.DataFrame | pl.LazyFrame: ...


def check_judged(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    query: str | Sequence[str] = "qid",
    rel: str = "rel",
    rank: str = "rank",
) -> pl.DataFrame | pl.LazyFrame:
    """Validate a judged long table and return it unchanged.

    Parameters
    ----------
    frame
        The judged table: one row per (query, document).
    query
        The query key: a column name or several (``("system", "qid")``).
    rel
        Relevance grades: any numeric dtype, NULL = unjudged, no NaN.
    rank
        Ranks: any integer dtype, NULL = not retrieved, otherwise >= 1 and unique within
        a query.

    Returns
    -------
    pl.DataFrame or pl.LazyFrame
        ``frame`` itself; for a ``LazyFrame``, the same plan with the data checks attached
        (they run, and raise, when it is collected).

    Raises
    ------
    InputError
        A missing column (the message lists the columns there are), a rank column that is
        not integer, a rel column that is not numeric, a rank < 1, a rank repeated within a
        query, or a NaN grade; the query and rank at fault are named.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> from rankframe.table.checks import check_judged
    >>> ok = pl.DataFrame({"qid": ["a", "a"], "rank": [1, None], "rel": [0, 2]})
    >>> check_judged(ok).height
    2
    >>> bad = pl.DataFrame({"qid": ["a", "a"], "rank": [1, 1], "rel": [0, 2]})
    >>> try:
    ...     check_judged(bad)
    ... except rf.InputError as error:
    ...     print(error)
    check_judged: query 'a' has rank 1 twice (rows 0 and 1, 0-based); ranks must be unique ...
    """
    keys = [query] if isinstance(query, str) else list(query)
    if not keys:
        raise ValueError(f"{_FN}: query must name at least one column")
    if isinstance(frame, pl.LazyFrame):
        schema = frame.collect_schema()
    elif isinstance(frame, pl.DataFrame):
        schema = frame.schema
    else:
        raise TypeError(
            f"{_FN}: expected a polars DataFrame or LazyFrame, got {type(frame).__name__}"
        )
    _check_schema(schema, keys, rel, rank)

    def check_data(data: pl.DataFrame) -> pl.DataFrame:
        _check_rows(data, keys, rel, rank)
        return data

    if isinstance(frame, pl.LazyFrame):
        return frame.map_batches(check_data, schema=schema)
    return check_data(frame)


def _check_schema(schema: pl.Schema, keys: list[str], rel: str, rank: str) -> None:
    missing = [c for c in (*keys, rank, rel) if c not in schema]
    if missing:
        have = ", ".join(repr(c) for c in schema.names()) or "none"
        raise InputError(
            f"{_FN}: missing column(s) {', '.join(repr(c) for c in missing)}; "
            f"the table has: {have}"
        )
    rank_dtype, rel_dtype = schema[rank], schema[rel]
    if not (rank_dtype.is_integer() or rank_dtype == pl.Null):
        raise InputError(
            f"{_FN}: column {rank!r} must hold integer ranks, got {rank_dtype} "
            f"(cast it, e.g. pl.col({rank!r}).cast(pl.Int64))"
        )
    if not (rel_dtype.is_numeric() or rel_dtype == pl.Null):
        raise InputError(f"{_FN}: column {rel!r} must hold numeric grades, got {rel_dtype}")


def _check_rows(data: pl.DataFrame, keys: list[str], rel: str, rank: str) -> None:
    if _valid_in_order(data, keys, rel, rank) is None:
        _locate_problem(data, keys, rel, rank)


class Checked(NamedTuple):
    """What :func:`check_frame` learnt on the way: whether the rows are sorted by the query
    key, and (when its linear test ran) which rows start a new key, True on each row whose
    key differs from the previous row's (so a caller need not compare the keys again)."""

    grouped: bool
    new_key: pl.Series | None


def check_frame(data: pl.DataFrame, keys: list[str], rel: str, rank: str) -> Checked:
    """:func:`check_judged` for a DataFrame, for ``evaluate``: raises the same errors, and
    says whether the rows were found sorted by the query key (so a caller may flag the key
    column as sorted, which lets Polars group contiguous rows without hashing)."""
    _check_schema(data.schema, keys, rel, rank)
    checked = _valid_in_order(data, keys, rel, rank)
    if checked is None:
        _locate_problem(data, keys, rel, rank)
        return Checked(grouped=False, new_key=None)
    return checked


_ORDERED_KEYS = (pl.String, pl.Boolean)


def _valid_in_order(data: pl.DataFrame, keys: list[str], rel: str, rank: str) -> Checked | None:
    """A linear test that passes only for a valid table: no rank < 1, no NaN grade, and the
    rows with a rank sorted by the query key with each query's ranks increasing. Then a
    repeated rank would sit next to its twin, so comparing each row with the one before
    proves the ranks unique without hashing. Two layouts pass: ``judge``'s (every ranked
    row, then the unranked rows) and a table sorted by query with each query's unranked
    rows after its ranked ones.

    None means "not proven": the caller runs the exact checks, which also name the problem.
    """
    if data.height == 0:
        return Checked(grouped=True, new_key=pl.Series("new_key", [], dtype=pl.Boolean))
    schema = data.schema
    if not all(schema[k].is_numeric() or isinstance(schema[k], _ORDERED_KEYS) for k in keys):
        return None
    tests = [pl.col(k).null_count() == 0 for k in keys]
    if schema[rank] != pl.Null:
        tests.append((pl.col(rank) >= 1).all(ignore_nulls=True))
    if schema[rel].is_float():
        tests.append(pl.col(rel).is_nan().any().not_())
    if not all(data.select(t.alias(f"t{i}") for i, t in enumerate(tests)).row(0)):
        return None
    if schema[rank] == pl.Null:
        new_key = _new_key(data, keys)
        return Checked(_ascending_groups(data, keys, new_key), new_key)
    ranks = data.get_column(rank)
    unranked = ranks.null_count()
    if 0 < unranked < data.height and (
        ranks.slice(data.height - unranked).null_count() == unranked
    ):
        # judge's layout: every ranked row first; only they need the rank test.
        ranked, rest = data.slice(0, data.height - unranked), data.slice(data.height - unranked)
        ranked_new = _ranks_in_order(ranked, keys, rank)
        if ranked_new is None:
            return None
        seam = pl.concat([ranked.select(keys).tail(1), rest.select(keys).head(1)])
        rest_new = _new_key(rest, keys).scatter(0, _new_key(seam, keys)[1])
        new_key = pl.concat([ranked_new, rest_new])
        return Checked(_ascending_groups(data, keys, new_key), new_key)
    sorted_new = _ranks_in_order(data, keys, rank)
    return None if sorted_new is None else Checked(grouped=True, new_key=sorted_new)


def _later(keys: list[str]) -> pl.Expr:
    """True where this row's key is greater than the previous row's."""
    later = pl.lit(False)
    for k in reversed(keys):
        col, prev = pl.col(k), pl.col(k).shift(1)
        later = (col > prev) | ((col == prev) & later)
    return later


def _new_key(data: pl.DataFrame, keys: list[str]) -> pl.Series:
    """True on each row whose key differs from the previous row's, and on the first row:
    the starts of the runs of equal values of each key column."""
    new_key = pl.repeat(False, data.height, eager=True)
    for k in keys:
        new_key = new_key | changes(data.get_column(k))
    return new_key.alias("new_key")


def _ascending_groups(data: pl.DataFrame, keys: list[str], new_key: pl.Series) -> bool:
    """True if each key's rows are contiguous and the keys ascend: the key of every row that
    starts a new key is greater than the one before it (a linear pass over those rows only)."""
    heads = data.select(keys).filter(new_key)
    return heads.height < 2 or bool(heads.select(_later(keys).slice(1).all()).item())


def _ranks_in_order(data: pl.DataFrame, keys: list[str], rank: str) -> pl.Series | None:
    """The new-key mask if the rows are sorted by the key and, within a key, ranks strictly
    increase with NULL ranks last; else None."""
    new_key = _new_key(data, keys)
    if not _ascending_groups(data, keys, new_key):
        return None
    return new_key if _ranks_increase(data.get_column(rank), new_key) else None


def _ranks_increase(ranks: pl.Series, new_key: pl.Series) -> bool:
    """True if each rank is above the one before it, NULL ranks last, except where
    ``new_key`` starts a new key (compared chunk by chunk, see :mod:`rankframe.table.series`)."""
    new_key = new_key.rechunk()
    previous = None
    for offset, chunk in chunks(ranks):
        m = chunk.len()
        starts = new_key.slice(offset, m)
        this, before = chunk.slice(1), chunk.slice(0, m - 1)
        increasing = this.is_null() | (before.is_not_null() & (this > before))
        if not (starts.slice(1) | increasing).all():
            return False
        first = chunk[0]
        if offset and not starts[0] and not (
            first is None or (previous is not None and first > previous)
        ):
            return False
        previous = chunk[m - 1]
    return True


def _locate_problem(data: pl.DataFrame, keys: list[str], rel: str, rank: str) -> None:
    indexed = data.select(*keys, rank, rel).with_row_index("__row")
    low = indexed.filter(pl.col(rank) < 1).head(1)
    if low.height:
        raise InputError(
            f"{_FN}: query {_key(low, keys)} has rank {low[rank][0]} at row "
            f"{low['__row'][0]} (0-based); ranks start at 1 (NULL = not retrieved)"
        )
    repeat = indexed.filter(
        pl.col(rank).is_not_null() & pl.struct(*keys, rank).is_first_distinct().not_()
    ).head(1)
    if repeat.height:
        value = repeat[rank][0]
        first = indexed.filter(
            *(pl.col(k).eq_missing(repeat[k][0]) for k in keys), pl.col(rank) == value
        )["__row"][0]
        raise InputError(
            f"{_FN}: query {_key(repeat, keys)} has rank {value} twice (rows {first} and "
            f"{repeat['__row'][0]}, 0-based); ranks must be unique within a query"
        )
    if data.schema[rel].is_float():
        nan = indexed.filter(pl.col(rel).is_nan()).head(1)
        if nan.height:
            raise InputError(
                f"{_FN}: query {_key(nan, keys)} has a NaN grade in {rel!r} at row "
                f"{nan['__row'][0]} (0-based); use NULL for an unjudged row"
            )


def _key(row: pl.DataFrame, keys: list[str]) -> str:
    values = tuple(row[k][0] for k in keys)
    return repr(values[0]) if len(values) == 1 else repr(values)

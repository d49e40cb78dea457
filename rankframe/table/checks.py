"""Checks of a judged long table (docs/semantics.md#input-checks) before metrics are
computed on it.

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
from rankframe.frames import Eager, to_polars
from rankframe.table.inputs import schema_of
from rankframe.table.ranks import DENSE_FACTOR, invalid_groups, repeated_groups
from rankframe.table.series import adjacent, ascending, changes

__all__ = ["check_judged"]

_FN = "check_judged"


@overload
def check_judged(
    frame: Eager, *, query: str | Sequence[str] = ..., rel: str = ..., rank: str = ...,
    max_grade: float | None = ...,
) -> pl.DataFrame: ...


@overload
def check_judged(
    frame: pl.LazyFrame, *, query: str | Sequence[str] = ..., rel: str = ..., rank: str = ...,
    max_grade: float | None = ...,
) -> pl.LazyFrame: ...


@overload
def check_judged(
    frame: Eager | pl.LazyFrame,
    *,
    query: str | Sequence[str] = ...,
    rel: str = ...,
    rank: str = ...,
    max_grade: float | None = ...,
) -> pl.DataFrame | pl.LazyFrame: ...


def check_judged(
    frame: Eager | pl.LazyFrame,
    *,
    query: str | Sequence[str] = "qid",
    rel: str = "rel",
    rank: str = "rank",
    max_grade: float | None = None,
) -> pl.DataFrame | pl.LazyFrame:
    """Validate a judged long table and return it unchanged.

    Parameters
    ----------
    frame
        The judged table: one row per (query, document). A pandas DataFrame or a pyarrow
        Table is converted to Polars (and returned as such).
    query
        The query key: a column name or several (``("system", "qid")``).
    rel
        Relevance grades: any numeric dtype, NULL = unjudged, finite (no NaN or infinity).
    rank
        Ranks: any integer dtype, NULL = not retrieved, otherwise >= 1 and unique within
        a query.
    max_grade
        The largest grade allowed, or None. ``evaluate`` passes 960 when a measure uses
        the exponential gain ``2**rel - 1``, whose sums could overflow Float64 above it.

    Returns
    -------
    pl.DataFrame or pl.LazyFrame
        ``frame`` itself; for a ``LazyFrame``, the same plan with the data checks attached
        (they run, and raise, when it is collected).

    Raises
    ------
    InputError
        A missing column (the message lists the columns there are), a query column of
        Python objects (dtype Object), a rank column that is not integer, a rel column that
        is not numeric, a NULL query id, a rank < 1, a rank repeated within a query, a NaN
        or infinite grade, or a grade above ``max_grade``; the column, query and rank at
        fault are named.

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
    frame = to_polars(_FN, "judged table", frame)
    keys = [query] if isinstance(query, str) else list(query)
    if not keys:
        raise ValueError(f"{_FN}: query must name at least one column")
    schema = schema_of(frame, f"{_FN}: ")
    _check_schema(schema, keys, rel, rank)

    def check_data(data: pl.DataFrame) -> pl.DataFrame:
        check_frame(data, keys, rel, rank, max_grade)
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
    objects = [k for k in keys if schema[k] == pl.Object]
    if objects:
        raise InputError(
            f"{_FN}: the query column {objects[0]!r} holds Python objects (dtype Object), "
            f"which no engine groups or sorts; give it strings or integers (e.g. "
            f"pl.Series(ids, dtype=pl.String))"
        )
    rank_dtype, rel_dtype = schema[rank], schema[rel]
    if not (rank_dtype.is_integer() or rank_dtype == pl.Null):
        raise InputError(
            f"{_FN}: column {rank!r} must hold integer ranks, got {rank_dtype} "
            f"(cast it, e.g. pl.col({rank!r}).cast(pl.Int64))"
        )
    if not (rel_dtype.is_numeric() or rel_dtype == pl.Null):
        raise InputError(f"{_FN}: column {rel!r} must hold numeric grades, got {rel_dtype}")


class Checked(NamedTuple):
    """What :func:`check_frame` learnt on the way: whether the rows are sorted by the query
    key; (when its linear test in row order ran) which rows start a new key, True on each
    row whose key differs from the previous row's (so a caller need not compare the keys
    again); and (for a table in any order) one row of each query, True there."""

    grouped: bool
    new_key: pl.Series | None
    one_per_query: pl.Series | None = None


def check_frame(data: pl.DataFrame, keys: list[str], rel: str, rank: str,
                max_grade: float | None = None) -> Checked:
    """:func:`check_judged` for a DataFrame, for ``evaluate``: raises the same errors, and
    says whether the rows were found sorted by the query key (so a caller may flag the key
    column as sorted, which lets Polars group contiguous rows without hashing), or else
    where each query has a row.

    One pass proves a valid table valid: the values in one aggregate (no NULL key, no rank
    below 1, no NaN or infinite grade), then the ranks unique within each query, by
    comparing neighbours when the rows come in order (:func:`valid_in_order`), else in one
    scatter over (query, rank) (:func:`rankframe.table.ranks.repeated_groups`). Only a
    table that fails is searched again, by :func:`locate_problem`, to name the problem."""
    _check_schema(data.schema, keys, rel, rank)
    if data.height == 0:
        return Checked(grouped=True, new_key=pl.Series("new_key", [], dtype=pl.Boolean))
    if _values_pass(data, keys, rel, rank, max_grade):
        checked = _in_order(data, keys, rank)
        if checked is not None:
            return checked
        one_per_query = _unique_in_any_order(data, keys, rank)
        if one_per_query is not None:
            return Checked(grouped=False, new_key=None, one_per_query=one_per_query)
    locate_problem(data, keys, rel, rank, max_grade)
    raise AssertionError(f"{_FN}: a check failed, but locate_problem found no problem")


_ORDERED_KEYS = (pl.String, pl.Boolean)


def valid_in_order(data: pl.DataFrame, keys: list[str], rel: str, rank: str,
                   max_grade: float | None = None) -> Checked | None:
    """A linear test that passes only for a valid table: no NULL key, no rank < 1, no NaN
    or infinite grade, none above ``max_grade``, and the ranked rows, in the order they
    come, sorted by the query key with each query's ranks increasing. Then a repeated rank
    would sit next to its twin, so comparing each row with the one before proves the ranks
    unique without hashing. ``judge``'s table
    passes (its ranked rows come first), and so does a table sorted by query and rank.

    None means "not proven": the caller runs :func:`locate_problem`, which names the problem.
    """
    if data.height == 0:
        return Checked(grouped=True, new_key=pl.Series("new_key", [], dtype=pl.Boolean))
    if not _values_pass(data, keys, rel, rank, max_grade):
        return None
    return _in_order(data, keys, rank)


def _values_pass(data: pl.DataFrame, keys: list[str], rel: str, rank: str,
                 max_grade: float | None) -> bool:
    """One aggregate over the table: no NULL key, no rank < 1, no NaN or infinite grade,
    none above ``max_grade``."""
    schema = data.schema
    tests = [pl.col(k).null_count() == 0 for k in keys]
    if schema[rank] != pl.Null:
        tests.append((pl.col(rank) >= 1).all(ignore_nulls=True))
    if schema[rank] == pl.UInt64:
        tests.append((pl.col(rank) <= _INT64_MAX).all(ignore_nulls=True))
    if schema[rel].is_float():
        tests.append(pl.col(rel).is_finite().all(ignore_nulls=True))
    if max_grade is not None and schema[rel] != pl.Null:
        tests.append((pl.col(rel) <= max_grade).all(ignore_nulls=True))
    return all(data.select(t.alias(f"t{i}") for i, t in enumerate(tests)).row(0))


#: Rows tested in order first: a table in any order fails on them, before the whole is.
_HEAD = 4096


def _in_order(data: pl.DataFrame, keys: list[str], rank: str) -> Checked | None:
    """:func:`valid_in_order` once the values have passed: the first :data:`_HEAD` rows,
    then every row."""
    schema = data.schema
    if not all(schema[k].is_numeric() or isinstance(schema[k], _ORDERED_KEYS) for k in keys):
        return None
    if data.height > _HEAD and _ranks_in_order(data.head(_HEAD), keys, rank) is None:
        return None
    return _ranks_in_order(data, keys, rank)


def _ranks_in_order(data: pl.DataFrame, keys: list[str], rank: str) -> Checked | None:
    """The order test of :func:`valid_in_order` on ``data``."""
    new_key = _new_key(data, keys)
    ranks = data.get_column(rank)
    n = data.height - ranks.null_count()
    if ranks.slice(0, n).null_count() == 0:  # the ranked rows come first (judge's table)
        ranked, ranked_new = data.slice(0, n), new_key.slice(0, n)
    else:
        ranked = data.filter(ranks.is_not_null())
        ranked_new = _new_key(ranked, keys)
    increasing = adjacent(ranked.get_column(rank), lambda rows, before: rows > before)
    if not (_ascending_groups(ranked, keys, ranked_new) and (ranked_new | increasing).all()):
        return None
    return Checked(_ascending_groups(data, keys, new_key), new_key)


def _unique_in_any_order(data: pl.DataFrame, keys: list[str], rank: str) -> pl.Series | None:
    """For a table in any order whose values have passed: one row of each query (True there)
    if no query has a rank twice, else None. Each row gets its query's code, the rows' (code,
    rank) pairs are proven distinct by :func:`~rankframe.table.ranks.repeated_groups`, and
    each code's first row is marked. A single integer key whose values span at most
    :data:`~rankframe.table.ranks.DENSE_FACTOR` times the rows is its own code (less its
    smallest value); any other key is hashed once, by a group-by that gathers each query's
    ranks and a row number."""
    ranks = data.get_column(rank)
    codes = _integer_codes(data.get_column(keys[0])) if len(keys) == 1 else None
    if codes is None:
        groups = (data.lazy().select(*keys, rank).with_row_index(_ROW).group_by(keys)
                  .agg(pl.col(_ROW).first(), pl.col(rank).implode()).collect())
        if ranks.dtype != pl.Null and invalid_groups(groups.get_column(rank),
                                                     groups.height).any():
            return None
        rows = groups.get_column(_ROW)
    else:
        code, size = codes
        if ranks.dtype != pl.Null and repeated_groups(code, ranks, size).len():
            return None
        rows = code.arg_unique()  # each query's first row
    return pl.repeat(False, data.height, eager=True, dtype=pl.Boolean).scatter(rows, True)


_ROW = "__rankframe_row"
_INT64_MAX = (1 << 63) - 1


def _integer_codes(key: pl.Series) -> tuple[pl.Series, int] | None:
    """``(key - min(key), max - min + 1)`` for an integer key without NULL whose values span
    at most DENSE_FACTOR times the rows, else None."""
    if not key.dtype.is_integer() or key.has_nulls():
        return None
    low, high = key.min(), key.max()
    assert isinstance(low, int) and isinstance(high, int)
    if high > _INT64_MAX or high - low + 1 > DENSE_FACTOR * key.len():
        return None
    return (key.cast(pl.Int64) - low if low else key), high - low + 1


def _new_key(data: pl.DataFrame, keys: list[str]) -> pl.Series:
    """True on each row whose key differs from the previous row's, and on the first row."""
    new_key = changes(data.get_column(keys[0]))
    for k in keys[1:]:
        new_key = new_key | changes(data.get_column(k))
    return new_key.alias("new_key")


def _ascending_groups(data: pl.DataFrame, keys: list[str], new_key: pl.Series) -> bool:
    """True if each key's rows are contiguous and the keys ascend: the rows that start a new
    key are in ascending order of the key."""
    return ascending(data.select(keys).filter(new_key))


def locate_problem(data: pl.DataFrame, keys: list[str], rel: str, rank: str,
                   max_grade: float | None = None) -> None:
    """Raise for the first problem of ``data`` (a table in any row order), if any.

    Every test is first one aggregate over the table (a repeated rank: one group-by on the
    query, comparing each query's distinct ranks with its ranks); only a table that fails
    one is searched for the row to name."""
    for key in keys:
        nulls = data.get_column(key).is_null()
        if nulls.any():
            raise InputError(
                f"{_FN}: the query column {key!r} is NULL at row {nulls.arg_max()} "
                f"(0-based); every row needs a query id"
            )
    r, g = pl.col(rank), pl.col(rel)
    huge = (r > _INT64_MAX).any() if data.schema[rank] == pl.UInt64 else pl.lit(False)
    tests = {"low": (r < 1).any(), "huge": huge, "repeat": pl.lit(False), "nan": pl.lit(False),
             "infinite": pl.lit(False), "high": pl.lit(False)}
    if data.schema[rel].is_float():
        tests |= {"nan": g.is_nan().any(), "infinite": g.is_infinite().any()}
    if max_grade is not None and data.schema[rel] != pl.Null:
        tests["high"] = (g > max_grade).any()
    failed = data.select(**tests).row(0, named=True)
    if not (failed["low"] or failed["huge"]):
        repeated = r.n_unique() != r.count() + r.has_nulls().cast(pl.UInt32)
        failed["repeat"] = data.group_by(keys).agg(repeated.alias("r"))["r"].any()
    if not any(failed.values()):
        return
    indexed = data.select(*keys, rank, rel).with_row_index("__row")
    if failed["low"]:
        low = indexed.filter(r < 1).head(1)
        raise InputError(
            f"{_FN}: query {_key(low, keys)} has rank {low[rank][0]} at row "
            f"{low['__row'][0]} (0-based); ranks start at 1 (NULL = not retrieved)"
        )
    if failed["huge"]:
        huge_row = indexed.filter(r > _INT64_MAX).head(1)
        raise InputError(
            f"{_FN}: query {_key(huge_row, keys)} has rank {huge_row[rank][0]} at row "
            f"{huge_row['__row'][0]} (0-based); ranks must be at most 2^63 - 1 "
            f"({_INT64_MAX}), the largest Int64"
        )
    if failed["repeat"]:
        repeat = indexed.filter(
            r.is_not_null() & pl.struct(*keys, rank).is_first_distinct().not_()).head(1)
        value = repeat[rank][0]
        first = indexed.filter(*(pl.col(k).eq_missing(repeat[k][0]) for k in keys),
                               r == value)["__row"][0]
        raise InputError(
            f"{_FN}: query {_key(repeat, keys)} has rank {value} twice (rows {first} and "
            f"{repeat['__row'][0]}, 0-based); ranks must be unique within a query"
        )
    if failed["nan"]:
        nan = indexed.filter(g.is_nan()).head(1)
        raise InputError(
            f"{_FN}: query {_key(nan, keys)} has a NaN grade in {rel!r} at row "
            f"{nan['__row'][0]} (0-based); use NULL for an unjudged row"
        )
    if failed["infinite"]:
        infinite = indexed.filter(g.is_infinite()).head(1)
        raise InputError(
            f"{_FN}: query {_key(infinite, keys)} has an infinite grade in {rel!r} at row "
            f"{infinite['__row'][0]} (0-based); grades must be finite"
        )
    high = indexed.filter(g > max_grade).head(1)
    raise InputError(
        f"{_FN}: query {_key(high, keys)} has grade {high[rel][0]} in {rel!r} at row "
        f"{high['__row'][0]} (0-based); the exponential gain 2**rel - 1 needs grades "
        f"<= {max_grade:g}, so that its sums stay finite"
    )


def _key(row: pl.DataFrame, keys: list[str]) -> str:
    values = tuple(row[k][0] for k in keys)
    return repr(values[0]) if len(values) == 1 else repr(values)

"""Input checks shared by both paths of :func:`rankframe.table.judge.judge`: columns and dtypes
(from the schema alone), then the data of each side (NULL, NaN, a repeated (query, doc) pair),
each error naming the column, the side and the row."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal

import polars as pl

from rankframe.errors import InputError
from rankframe.table.keys import pair_key

Kind = Literal["id", "numeric"]
TEXT = (pl.String, pl.Categorical, pl.Enum)


def schema_of(frame: pl.DataFrame | pl.LazyFrame) -> pl.Schema:
    if isinstance(frame, pl.LazyFrame):
        return frame.collect_schema()
    if isinstance(frame, pl.DataFrame):
        return frame.schema
    raise TypeError(f"expected a polars DataFrame or LazyFrame, got {type(frame).__name__}")


def require(fn: str, side: str, schema: pl.Schema, columns: Mapping[str, Kind]) -> None:
    """Raise if a column is missing or of the wrong kind of dtype."""
    missing = [c for c in columns if c not in schema]
    if missing:
        have = ", ".join(repr(c) for c in schema.names())
        raise InputError(
            f"{fn}: the {side} has no column {', '.join(repr(c) for c in missing)}; "
            f"its columns are: {have}"
        )
    for name, kind in columns.items():
        dtype = schema[name]
        if kind == "id" and not (isinstance(dtype, TEXT) or dtype.is_integer()):
            raise InputError(
                f"{fn}: column {name!r} of the {side} must hold string or integer ids, "
                f"got {dtype}"
            )
        if kind == "numeric" and not dtype.is_numeric():
            raise InputError(f"{fn}: column {name!r} of the {side} must be numeric, got {dtype}")


def id_dtype(fn: str, name: str, run_dtype: pl.DataType, qrels_dtype: pl.DataType) -> pl.DataType:
    """The dtype both sides' ids are cast to (see the module's id dtype policy)."""
    run_text, qrels_text = isinstance(run_dtype, TEXT), isinstance(qrels_dtype, TEXT)
    if run_text and qrels_text:
        return pl.String()
    if not run_text and not qrels_text:
        return run_dtype if run_dtype == qrels_dtype else pl.Int64()
    raise InputError(
        f"{fn}: column {name!r} is {run_dtype} in the run but {qrels_dtype} in the qrels; "
        f"ids must be strings on both sides or integers on both sides "
        f"(cast one, e.g. pl.col({name!r}).cast(pl.String))"
    )


def checked(frame: pl.LazyFrame, check: Callable[[pl.DataFrame], None]) -> pl.LazyFrame:
    """``frame`` with ``check`` run on its data when collected (raising stops the query)."""

    def run_check(data: pl.DataFrame) -> pl.DataFrame:
        check(data)
        return data

    return frame.map_batches(run_check, schema=frame.collect_schema())


def data_check(
    fn: str, side: str, query: str, doc: str, value: str
) -> Callable[[pl.DataFrame], None]:
    """A check of one side's data: no NULL ids or values, no NaN, no duplicate pair."""

    def check(data: pl.DataFrame) -> None:
        check_values(fn, side, data, query, doc, value)
        # Distinct 64-bit pair keys prove the pairs distinct; a repeat gets the exact check.
        if data.select(pair_key(query, doc).n_unique()).item() != data.height:
            raise_duplicate(fn, side, data, query, doc)

    return check


def check_values(fn: str, side: str, data: pl.DataFrame, query: str, doc: str, value: str) -> None:
    """Raise for the first NULL id or value, then for the first NaN value."""
    for name in (query, doc, value):
        nulls = data[name].is_null()
        if nulls.any():
            row = int(nulls.arg_max() or 0)
            raise InputError(f"{fn}: column {name!r} of the {side} is NULL at row {row} (0-based)")
    if data[value].dtype.is_float():
        nans = data[value].is_nan()
        if nans.any():
            row = int(nans.arg_max() or 0)
            raise InputError(
                f"{fn}: column {value!r} of the {side} is NaN at row {row} (0-based) "
                f"(query {data[query][row]!r}, {doc} {data[doc][row]!r})"
            )


def raise_duplicate(fn: str, side: str, data: pl.DataFrame, query: str, doc: str) -> None:
    """Raise for the first (query, doc) pair seen on an earlier row (exact, hashes strings)."""
    repeats = data.select(pl.struct(query, doc).is_first_distinct().not_()).to_series()
    if repeats.any():
        row = int(repeats.arg_max() or 0)
        qid, docid = data[query][row], data[doc][row]
        first = data.with_row_index("row").filter(pl.col(query) == qid, pl.col(doc) == docid)[
            "row"
        ][0]
        raise InputError(
            f"{fn}: duplicate ({query}, {doc}) in the {side}: query {qid!r}, document "
            f"{docid!r} at rows {first} and {row} (0-based); each pair may appear only once"
        )

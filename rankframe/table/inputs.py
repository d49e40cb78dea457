"""Input checks of :func:`rankframe.table.judge.judge`: columns and dtypes (from the schema
alone, :func:`prepared_columns`; the checks of every face, :mod:`rankframe.table.input_checks`,
read Polars dtypes with :data:`DTYPES`), then the data of each side (NULL, NaN, a repeated
(query, doc) pair), each error naming the column, the side and the row."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import polars as pl

from rankframe.errors import InputError
from rankframe.table import input_checks
from rankframe.table.input_checks import Kind, TypeClass, TypeReader

TEXT = (pl.String, pl.Categorical, pl.Enum)


def _classify(dtype: pl.DataType) -> TypeClass:
    if isinstance(dtype, TEXT):
        return "text"
    if dtype.is_integer():
        return "integer"
    return "numeric" if dtype.is_numeric() else "other"


#: How the input checks read a Polars dtype.
DTYPES: TypeReader[pl.DataType] = TypeReader(
    classify=_classify, show=str,
    cast_hint=lambda name: f"cast one, e.g. pl.col({name!r}).cast(pl.String)")


def schema_of(frame: pl.DataFrame | pl.LazyFrame, prefix: str = "") -> pl.Schema:
    """The schema of a frame (a LazyFrame's without collecting it); a TypeError for another
    object, its message starting with ``prefix``."""
    if isinstance(frame, pl.LazyFrame):
        return frame.collect_schema()
    if isinstance(frame, pl.DataFrame):
        return frame.schema
    raise TypeError(
        f"{prefix}expected a polars DataFrame or LazyFrame, got {type(frame).__name__}")


class Names(NamedTuple):
    """The column names of a run and qrels."""

    query: str
    doc: str
    score: str
    rel: str


def prepared_columns(fn: str, run: pl.DataFrame | pl.LazyFrame,
                     qrels: pl.DataFrame | pl.LazyFrame, names: Names
                     ) -> tuple[list[pl.Expr], list[pl.Expr]]:
    """The columns :func:`rankframe.table.judge.judge` reads from each side, cast to the
    common id dtypes (see its id dtype policy), after checking names, columns and dtypes."""
    query, doc, score, rel = names
    input_checks.distinct_names(fn, names._asdict())
    run_schema = schema_of(run)
    qrels_schema = schema_of(qrels)
    require(fn, "run", run_schema, {query: "id", doc: "id", score: "numeric"})
    require(fn, "qrels", qrels_schema, {query: "id", doc: "id", rel: "numeric"})
    query_dtype = id_dtype(fn, query, run_schema[query], qrels_schema[query])
    doc_dtype = id_dtype(fn, doc, run_schema[doc], qrels_schema[doc])
    run_columns = [
        _cast(query, run_schema[query], query_dtype),
        _cast(doc, run_schema[doc], doc_dtype),
        _score(score, run_schema[score]),
    ]
    qrels_columns = [
        _cast(query, qrels_schema[query], query_dtype),
        _cast(doc, qrels_schema[doc], doc_dtype),
        pl.col(rel),
    ]
    return run_columns, qrels_columns


def score_dtype(dtype: pl.DataType) -> pl.DataType:
    """The dtype of the judged table's score: Float64 for a float column, the column's own
    for integers and decimals, which are compared exactly (an integer above 2**53 has no
    exact Float64)."""
    return pl.Float64() if dtype.is_float() else dtype


def _score(name: str, dtype: pl.DataType) -> pl.Expr:
    if not dtype.is_float():
        return pl.col(name)
    # + 0.0 turns -0.0 into 0.0: the two are equal scores, and tie as such.
    return (_cast(name, dtype, pl.Float64()) + 0.0).alias(name)


def _cast(name: str, dtype: pl.DataType, target: pl.DataType) -> pl.Expr:
    """``name`` cast to ``target``, or the bare column when it already has that dtype (no
    copy is made for the no-op cast)."""
    return pl.col(name) if dtype == target else pl.col(name).cast(target)


def require(fn: str, side: str, schema: pl.Schema, columns: Mapping[str, Kind]) -> None:
    """Raise if a column is missing or of the wrong kind of dtype."""
    input_checks.require(fn, side, schema, columns, DTYPES)


def id_dtype(fn: str, name: str, run_dtype: pl.DataType, qrels_dtype: pl.DataType) -> pl.DataType:
    """The dtype both sides' ids are cast to (see the module's id dtype policy)."""
    if input_checks.id_class(fn, name, run_dtype, qrels_dtype, DTYPES) == "text":
        return pl.String()
    return _common_integer(run_dtype, qrels_dtype)


def _common_integer(a: pl.DataType, b: pl.DataType) -> pl.DataType:
    """The dtype holding every value of integer dtypes ``a`` and ``b``: ``a`` if they are the
    same, UInt64 for two unsigned, Int128 for UInt64 and a signed one, else Int64."""
    if a == b:
        return a
    unsigned = [d.is_unsigned_integer() for d in (a, b)]
    if all(unsigned):
        return pl.UInt64()
    if pl.UInt64() in (a, b) or any(d == pl.Int128 for d in (a, b)):
        return pl.Int128()
    return pl.Int64()


def check_values(fn: str, side: str, data: pl.DataFrame, query: str, doc: str, value: str) -> None:
    """Raise for the first NULL id or value, then for the first NaN value, and in the qrels
    for the first infinite grade."""
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
        infinite = data[value].is_infinite()
        if side == "qrels" and infinite.any():
            row = int(infinite.arg_max() or 0)
            raise InputError(
                f"{fn}: column {value!r} of the {side} is infinite at row {row} (0-based) "
                f"(query {data[query][row]!r}, {doc} {data[doc][row]!r}); grades must be finite"
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

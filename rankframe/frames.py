"""pandas and pyarrow tables at the public API's boundary, converted to Polars on the way in.

Every public function that takes a Polars frame (``judge``, ``evaluate``, ``evaluate_run``,
``summarize``, ``check_judged``, ``evaluate_runs``, ``compare``, the judgment-group
functions) also takes a pandas DataFrame or a pyarrow Table (or RecordBatch), converted
here once; what they return is Polars. Neither library is imported unless such a table is
passed: the check reads the object's type by its module name first.

The qrels of implicit feedback (held-out interactions, clicks) have no grade column:
``rel=None`` gives each listed pair the grade 1 (:func:`graded_qrels`).
"""

from __future__ import annotations

import sys
from typing import Any, Protocol, overload

import polars as pl

from rankframe.errors import InputError

__all__ = ["ACCEPTED", "ArrowTabular", "Eager", "eager", "from_foreign", "graded_qrels",
           "to_polars"]

#: What the public API takes where it takes a table, for error messages.
ACCEPTED = "a polars DataFrame or LazyFrame, a pandas DataFrame or a pyarrow Table"

#: The grade column ``rel=None`` adds to qrels without grades.
IMPLICIT_GRADE = "rel"


class ArrowTabular(Protocol):
    """A table exporting an Arrow stream: what type checkers see of a pandas DataFrame
    (pandas >= 2.2) or a pyarrow Table. At run time only these two (and Polars frames)
    are accepted."""

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...


#: An eager table: a Polars DataFrame, a pandas DataFrame or a pyarrow Table.
Eager = pl.DataFrame | ArrowTabular


def _foreign(obj: object) -> pl.DataFrame | None:
    """``obj`` as a Polars DataFrame if it is a pandas DataFrame or a pyarrow Table or
    RecordBatch, else None. The library is looked up in ``sys.modules`` only: an object of
    it exists, so it is loaded."""
    root = type(obj).__module__.partition(".")[0]
    if root == "pandas":
        pandas: Any = sys.modules["pandas"]
        if isinstance(obj, pandas.DataFrame):
            # A named or non-default index (e.g. from a groupby) becomes a column.
            return pl.from_pandas(obj, include_index=True)
    elif root == "pyarrow":
        pyarrow: Any = sys.modules["pyarrow"]
        if isinstance(obj, (pyarrow.Table, pyarrow.RecordBatch)):
            converted = pl.from_arrow(obj)
            assert isinstance(converted, pl.DataFrame)  # a table gives a frame
            return converted
    return None


@overload
def to_polars(fn: str, name: str, obj: pl.LazyFrame) -> pl.LazyFrame: ...


@overload
def to_polars(fn: str, name: str, obj: Eager) -> pl.DataFrame: ...


@overload
def to_polars(fn: str, name: str, obj: Eager | pl.LazyFrame
              ) -> pl.DataFrame | pl.LazyFrame: ...


def to_polars(fn: str, name: str, obj: object) -> pl.DataFrame | pl.LazyFrame:
    """``obj`` as a Polars frame: a Polars frame as it is, a pandas DataFrame or a pyarrow
    Table converted. Anything else is a TypeError naming ``fn``, the argument ``name`` and
    what is accepted; a table Polars cannot convert is an :class:`InputError` saying why."""
    return _convert(fn, name, obj)


def from_foreign(fn: str, name: str, obj: object) -> pl.DataFrame | None:
    """``obj`` converted to a Polars DataFrame if it is a pandas DataFrame or a pyarrow
    Table, else None (a Polars frame too); a table Polars cannot convert is an
    :class:`InputError` naming ``fn``, the argument ``name`` and the cause."""
    try:
        return _foreign(obj)
    except Exception as exc:  # pandas/pyarrow/polars conversion errors have no common base
        raise InputError(f"{fn}: the {name} ({type(obj).__module__.partition('.')[0]} "
                         f"{type(obj).__name__}) cannot be converted to Polars: {exc}") from exc


def _convert(fn: str, name: str, obj: object) -> pl.DataFrame | pl.LazyFrame:
    if isinstance(obj, (pl.DataFrame, pl.LazyFrame)):
        return obj
    converted = from_foreign(fn, name, obj)
    if converted is None:
        kind = type(obj)
        got = kind.__name__ if kind.__module__ == "builtins" else (
            f"{kind.__module__}.{kind.__qualname__}")
        raise TypeError(f"{fn}: the {name}: expected a polars DataFrame or LazyFrame, got "
                        f"{got} (accepted: {ACCEPTED})")
    return converted


def eager(fn: str, name: str, obj: object) -> pl.DataFrame:
    """``obj`` as a Polars DataFrame, for arguments that take no LazyFrame."""
    frame = _convert(fn, name, obj)
    if isinstance(frame, pl.LazyFrame):
        raise TypeError(f"{fn}: the {name}: expected a DataFrame (polars, pandas or a pyarrow "
                        "Table), got a LazyFrame; collect it first")
    return frame


def graded_qrels(fn: str, qrels: pl.DataFrame | pl.LazyFrame, rel: str | None
                 ) -> tuple[pl.DataFrame | pl.LazyFrame, str]:
    """The qrels and the name of their grade column. ``rel=None``: qrels without grades
    (each listed pair relevant, e.g. held-out interactions) get a column ``rel`` of 1s.
    A grade column that is missing is an error naming the columns there are and this way
    out."""
    columns = qrels.collect_schema().names() if isinstance(qrels, pl.LazyFrame) else (
        qrels.columns)
    if rel is None:
        if IMPLICIT_GRADE in columns:
            raise InputError(
                f"{fn}: rel=None gives every qrels pair the grade 1 in a new column "
                f"{IMPLICIT_GRADE!r}, but the qrels already has one; pass rel="
                f"{IMPLICIT_GRADE!r} to use its grades, or drop it")
        return qrels.with_columns(pl.lit(1, pl.Int64).alias(IMPLICIT_GRADE)), IMPLICIT_GRADE
    if rel not in columns:
        have = ", ".join(repr(c) for c in columns)
        raise InputError(
            f"{fn}: the qrels has no column {rel!r}; its columns are: {have}. Name the grade "
            f"column with rel=..., or pass rel=None for qrels without grades (every listed "
            f"pair relevant, grade 1: held-out interactions, clicks)")
    return qrels, rel

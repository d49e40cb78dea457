"""pandas and pyarrow tables at the public API's boundary, converted to Polars on the way in.

Every public function that takes a Polars frame (``judge``, ``evaluate``, ``evaluate_run``,
``summarize``, ``check_judged``, ``evaluate_runs``, ``compare``, the judgment-group
functions) also takes a pandas DataFrame or a pyarrow Table (or RecordBatch), converted
here once; what they return is Polars. Neither library is imported unless such a table is
passed: the check reads the object's type by its module name first.

Where a run and qrels are taken (``judge``, ``evaluate_run``, ``evaluate_runs``,
``unjudged_run_queries``), the peers' in-memory forms are accepted too and converted here
once (:func:`run_and_qrels`, :mod:`rankframe.peer_inputs`): pytrec_eval's, ranx's and
ir_measures' dict of dicts, ranx's ``Run``/``Qrels``, ir_measures' namedtuples,
TorchMetrics' ``(preds, indexes)`` and ``(target, indexes)`` arrays.

The qrels of implicit feedback (held-out interactions, clicks) have no grade column:
``rel=None`` gives each listed pair the grade 1 (:func:`graded_qrels`).
"""

from __future__ import annotations

import sys
from typing import Any, Protocol, overload

import polars as pl

from rankframe.errors import InputError
from rankframe.peer_inputs import FORMS, Role, arrays_pair, peer_frame

__all__ = ["ACCEPTED", "ArrowTabular", "Eager", "eager", "from_foreign", "graded_qrels",
           "run_and_qrels", "run_or_qrels", "to_polars"]

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


def run_or_qrels(fn: str, role: Role, obj: object, columns: tuple[str, str, str],
                 name: str | None = None) -> pl.DataFrame | pl.LazyFrame:
    """A run or qrels (``role``) as a Polars frame: a Polars frame as it is, a pandas
    DataFrame or pyarrow Table converted, or one of the peers' forms
    (:mod:`rankframe.peer_inputs`) made into a frame with ``columns`` (query, doc, score or
    grade). Anything else is a TypeError naming ``fn``, the argument (``name``, default the
    role) and every form accepted."""
    if isinstance(obj, (pl.DataFrame, pl.LazyFrame)):
        return obj
    converted = from_foreign(fn, name or role, obj)
    if converted is None:
        converted = peer_frame(fn, role, obj, columns)
    if converted is None:
        kind = type(obj)
        got = kind.__name__ if kind.__module__ == "builtins" else (
            f"{kind.__module__}.{kind.__qualname__}")
        raise TypeError(f"{fn}: the {name or role}: expected {FORMS[role]}, got {got}")
    return converted


def run_and_qrels(fn: str, run: object, qrels: object, *, query: str = "qid",
                  doc: str = "docid", score: str = "score", rel: str | None = "rel"
                  ) -> tuple[pl.DataFrame | pl.LazyFrame, pl.DataFrame | pl.LazyFrame]:
    """The run and the qrels as Polars frames (:func:`run_or_qrels`), converted once, with
    the columns the caller names. TorchMetrics-style arrays name documents by position, so
    they are taken on both sides or on neither, and must be the same rows."""
    if arrays_pair(run) != arrays_pair(qrels):
        given = "run" if arrays_pair(run) else "qrels"
        raise InputError(
            f"{fn}: the {given} is TorchMetrics-style (values, indexes) arrays, whose documents "
            "are row positions, so the other must be too: run=(preds, indexes), "
            "qrels=(target, indexes)")
    run_frame = run_or_qrels(fn, "run", run, (query, doc, score))
    qrels_frame = run_or_qrels(fn, "qrels", qrels, (query, doc, rel or IMPLICIT_GRADE))
    if arrays_pair(run):
        assert isinstance(run_frame, pl.DataFrame) and isinstance(qrels_frame, pl.DataFrame)
        if not run_frame[query].equals(qrels_frame[query], check_names=False):
            raise InputError(
                f"{fn}: the run's and the qrels' indexes differ ({run_frame.height} and "
                f"{qrels_frame.height} rows); TorchMetrics-style arrays are one row per "
                "(query, document): preds, target and indexes of the same rows")
    foreign = ("polars", "pandas", "pyarrow")
    if rel is None and type(qrels).__module__.partition(".")[0] not in foreign:
        qrels_frame = qrels_frame.drop(IMPLICIT_GRADE)  # rel=None: the listed pairs only
    return run_frame, qrels_frame

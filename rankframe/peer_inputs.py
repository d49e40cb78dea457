"""The peers' in-memory runs and qrels, converted to Polars frames once, at the public API's
boundary (:func:`rankframe.frames.run_and_qrels`).

What the users of other evaluation libraries hold, and what it becomes (columns named as
the caller's ``query``, ``doc``, ``score`` / ``rel``):

- a dict of dicts, ``{qid: {docid: score}}`` / ``{qid: {docid: grade}}`` (pytrec_eval,
  ranx, ir_measures): one row per inner pair; a query with an empty dict has no row;
- ranx's ``Run`` and ``Qrels`` (through their ``to_dict()``);
- an iterable of ir_measures' namedtuples, ``ScoredDoc(query_id, doc_id, score)`` /
  ``Qrel(query_id, doc_id, relevance, ...)`` (any namedtuple with those fields: ir_datasets'
  ``qrels_iter()`` too), a generator included;
- TorchMetrics' retrieval inputs, one row per (query, document) with no document ids: the
  run as ``(preds, indexes)``, the qrels as ``(target, indexes)``, two 1-D arrays, lists or
  tensors of one length each; a document is its position, so the two must be the same rows
  (the same ``indexes``). Boolean targets are grades 0 and 1.

No peer library is imported here: an object is recognised by its type's module and shape.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal

import polars as pl

from rankframe.errors import InputError

__all__ = ["FORMS", "Role", "arrays_pair", "peer_frame"]

Role = Literal["run", "qrels"]

#: The forms each argument takes, for the one error naming them.
FORMS: dict[Role, str] = {
    "run": ("a polars DataFrame or LazyFrame, a pandas DataFrame, a pyarrow Table, a dict "
            "{qid: {docid: score}}, a ranx Run, an iterable of ir_measures ScoredDoc(query_id, "
            "doc_id, score), or TorchMetrics-style (preds, indexes) arrays"),
    "qrels": ("a polars DataFrame or LazyFrame, a pandas DataFrame, a pyarrow Table, a dict "
              "{qid: {docid: grade}}, a ranx Qrels, an iterable of ir_measures Qrel(query_id, "
              "doc_id, relevance), or TorchMetrics-style (target, indexes) arrays"),
}
#: The namedtuple fields of ir_measures' ScoredDoc and Qrel.
_FIELDS: dict[Role, tuple[str, str, str]] = {"run": ("query_id", "doc_id", "score"),
                                             "qrels": ("query_id", "doc_id", "relevance")}


def _module(obj: object) -> str:
    return type(obj).__module__.partition(".")[0]


def _is_namedtuple(obj: object) -> bool:
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def _is_array(obj: object) -> bool:
    """A 1-D array-like of values: a list, a NumPy array, a tensor, a Polars Series."""
    if isinstance(obj, str | bytes | Mapping) or _is_namedtuple(obj):
        return False
    return isinstance(obj, list | pl.Series) or hasattr(obj, "__array__") or (
        hasattr(obj, "shape") and hasattr(obj, "__len__"))


def arrays_pair(obj: object) -> bool:
    """Whether ``obj`` is TorchMetrics-style ``(values, indexes)``: a 2-tuple of arrays."""
    return (isinstance(obj, tuple) and not _is_namedtuple(obj) and len(obj) == 2
            and all(_is_array(part) for part in obj))


def peer_frame(fn: str, role: Role, obj: object, columns: tuple[str, str, str]
               ) -> pl.DataFrame | None:
    """``obj`` as a Polars DataFrame with ``columns`` (query, doc, score or grade) if it is
    one of the peers' forms (see the module), else None. A malformed one is an
    :class:`InputError` naming ``fn``, the argument and the shape expected."""
    if _module(obj) == "ranx" and hasattr(obj, "to_dict"):  # ranx's Run and Qrels
        return _from_nested(fn, role, obj.to_dict(), columns)
    if isinstance(obj, Mapping):
        return _from_nested(fn, role, obj, columns)
    if arrays_pair(obj):
        assert isinstance(obj, tuple)
        return _from_arrays(fn, role, obj[0], obj[1], columns)
    if isinstance(obj, str | bytes | pl.DataFrame | pl.LazyFrame) or _module(obj) in (
            "pandas", "pyarrow"):
        return None
    if isinstance(obj, Iterable) and not isinstance(obj, Mapping):
        rows = iter(obj)
        first = next(rows, None)
        if first is None:
            return _empty(role, columns) if isinstance(obj, list | tuple | Iterator) else None
        if _is_namedtuple(first):
            return _from_namedtuples(fn, role, itertools.chain([first], rows), columns)
        if isinstance(obj, Iterator):  # consumed: say what it held
            raise TypeError(f"{fn}: the {role} is an iterator of {type(first).__name__}; "
                             f"expected {FORMS[role]}")
    return None


def _empty(role: Role, columns: tuple[str, str, str]) -> pl.DataFrame:
    query, doc, value = columns
    value_dtype = pl.Float64 if role == "run" else pl.Int64
    return pl.DataFrame(schema={query: pl.String, doc: pl.String, value: value_dtype})


def _series(fn: str, role: Role, name: str, values: list[Any], what: str) -> pl.Series:
    """A column from Python values (ids: strings or integers; values: numbers)."""
    try:
        series = pl.Series(name, values, strict=False) if what == "value" else pl.Series(
            name, values)
    except (TypeError, pl.exceptions.PolarsError) as exc:
        raise InputError(f"{fn}: the {role}'s {what}s mix types ({exc}); ids are all strings "
                         "or all integers, values numbers") from None
    if what == "value":
        if series.dtype == pl.Boolean:
            return series.cast(pl.Int64)
        if not series.dtype.is_numeric() and series.dtype != pl.Null:
            bad = next(v for v in values if not isinstance(v, int | float))
            raise InputError(f"{fn}: the {role}'s {'scores' if role == 'run' else 'grades'} "
                             f"must be numbers, got {bad!r}")
        if series.dtype == pl.Null:
            series = series.cast(pl.Float64)
    elif not (series.dtype == pl.String or series.dtype.is_integer()):
        bad = next(v for v in values if not isinstance(v, str | int))
        raise InputError(f"{fn}: the {role}'s {what}s must be strings or integers, got "
                         f"{bad!r}")
    return series


def _from_nested(fn: str, role: Role, nested: Mapping[Any, Any],
                 columns: tuple[str, str, str]) -> pl.DataFrame:
    """``{qid: {docid: value}}`` as rows."""
    if not nested:
        return _empty(role, columns)
    for qid, inner in nested.items():
        if not isinstance(inner, Mapping):
            raise TypeError(
                f"{fn}: the {role}: a dict whose value for {qid!r} is a "
                f"{type(inner).__name__}, not a dict; expected {FORMS[role]} (a dict of "
                "columns: pl.DataFrame(it))")
    query, doc, value = columns
    qids = [qid for qid, inner in nested.items() for _ in range(len(inner))]
    docs = [docid for inner in nested.values() for docid in inner]
    values = [v for inner in nested.values() for v in inner.values()]
    if not qids:
        return _empty(role, columns)
    return pl.DataFrame([_series(fn, role, query, qids, "query id"),
                         _series(fn, role, doc, docs, "document id"),
                         _series(fn, role, value, values, "value")])


def _from_namedtuples(fn: str, role: Role, rows: Iterable[Any],
                      columns: tuple[str, str, str]) -> pl.DataFrame:
    """ir_measures' ``ScoredDoc`` / ``Qrel`` namedtuples as rows."""
    rows = list(rows)
    fields = _FIELDS[role]
    have = rows[0]._fields
    if not all(field in have for field in fields):
        raise TypeError(f"{fn}: the {role} is an iterable of {type(rows[0]).__name__}"
                         f"{tuple(have)}; expected namedtuples with fields {', '.join(fields)} "
                         f"(ir_measures' {'ScoredDoc' if role == 'run' else 'Qrel'})")
    try:
        data = [[getattr(row, field) for row in rows] for field in fields]
    except AttributeError:
        bad = next(row for row in rows if not all(hasattr(row, f) for f in fields))
        raise InputError(f"{fn}: the {role} mixes rows: {bad!r} has no field among "
                         f"{', '.join(fields)}") from None
    kinds = ("query id", "document id", "value")
    return pl.DataFrame([_series(fn, role, name, values, kind)
                         for name, values, kind in zip(columns, data, kinds, strict=True)])


def _flat(fn: str, role: Role, name: str, array: Any) -> pl.Series:
    """A 1-D array-like (list, NumPy array, tensor) as a Series."""
    if hasattr(array, "detach"):  # a torch tensor
        array = array.detach().cpu().numpy()
    try:
        series = array.rename(name) if isinstance(array, pl.Series) else pl.Series(name, array)
    except (TypeError, ValueError, pl.exceptions.PolarsError) as exc:
        raise InputError(f"{fn}: the {role}'s {name} array cannot be read: {exc}") from None
    if isinstance(series.dtype, pl.List | pl.Array):
        raise InputError(f"{fn}: the {role}'s arrays must be 1-D (one value per row, "
                         f"TorchMetrics' flattened preds/target with indexes), got "
                         f"{series.dtype}")
    return series


def _from_arrays(fn: str, role: Role, values: Any, indexes: Any,
                 columns: tuple[str, str, str]) -> pl.DataFrame:
    """TorchMetrics-style ``(values, indexes)``: a row per position, the position its doc."""
    query, doc, value = columns
    what = "preds" if role == "run" else "target"
    grades = _flat(fn, role, value, values)
    keys = _flat(fn, role, query, indexes)
    if grades.len() != keys.len():
        raise InputError(f"{fn}: the {role}'s ({what}, indexes) have {grades.len()} and "
                         f"{keys.len()} values; they must be the same length")
    if grades.dtype == pl.Boolean:
        grades = grades.cast(pl.Int64)
    if not grades.dtype.is_numeric():
        raise InputError(f"{fn}: the {role}'s {what} must be numbers, got {grades.dtype}")
    if not (keys.dtype.is_integer() or keys.dtype == pl.String):
        raise InputError(f"{fn}: the {role}'s indexes must be integers or strings (a query "
                         f"per row), got {keys.dtype}")
    positions = pl.int_range(0, grades.len(), dtype=pl.Int64, eager=True).alias(doc)
    return pl.DataFrame([keys, positions, grades])

"""The judge's input checks and their messages, written once for every face that judges (the
Polars judge, :mod:`rankframe.table.inputs`; Spark's; Ibis'): column names, the columns and
the kinds of their types, ids of one kind on both sides, and the message naming the first
offending (query, doc) pairs of a data check. A face supplies only how it reads a column's
type (:class:`TypeReader`); the checks and the words are the same on every face.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from rankframe.errors import InputError

#: What a column must hold: ids (strings or integers), or numbers.
Kind = Literal["id", "numeric"]
#: A column's type as the checks see it.
TypeClass = Literal["text", "integer", "numeric", "other"]
DType = TypeVar("DType")

#: How many offending (query, doc) pairs an input error names.
NAMED_PROBLEMS = 3
#: The kinds of problem a data check finds, in the order they are reported.
NULL_ID, BAD_VALUE, DUPLICATE = 0, 1, 2


@dataclass(frozen=True)
class TypeReader(Generic[DType]):
    """How a face reads a column's type: its class, how it is printed, and how the face's
    own API casts an id column (the hint of an error about ids of two kinds)."""

    classify: Callable[[DType], TypeClass]
    show: Callable[[DType], str]
    cast_hint: Callable[[str], str]


def distinct_names(fn: str, names: Mapping[str, str]) -> None:
    """Raise ValueError unless the query, doc, score and rel column names are distinct and
    none is ``rank``."""
    if len(set(names.values()) | {"rank"}) != len(names) + 1:
        raise ValueError(
            f"{fn}: query, doc, score and rel must be distinct column names other than "
            f"'rank'; got {dict(names)}"
        )


def require(fn: str, side: str, schema: Mapping[str, DType], columns: Mapping[str, Kind],
            reader: TypeReader[DType]) -> None:
    """Raise InputError if a column of ``columns`` is missing from ``schema`` (the run's or
    the qrels', ``side``) or its type is not of the kind wanted."""
    missing = [c for c in columns if c not in schema]
    if missing:
        have = ", ".join(repr(c) for c in schema)
        raise InputError(
            f"{fn}: the {side} has no column {', '.join(repr(c) for c in missing)}; "
            f"its columns are: {have}"
        )
    for name, kind in columns.items():
        found = reader.classify(schema[name])
        if kind == "id" and found not in ("text", "integer"):
            raise InputError(f"{fn}: column {name!r} of the {side} must hold string or integer "
                             f"ids, got {reader.show(schema[name])}")
        if kind == "numeric" and found not in ("integer", "numeric"):
            raise InputError(f"{fn}: column {name!r} of the {side} must be numeric, "
                             f"got {reader.show(schema[name])}")


def id_class(fn: str, name: str, run_type: DType, qrels_type: DType,
             reader: TypeReader[DType]) -> Literal["text", "integer"]:
    """Whether the id column ``name`` (checked by :func:`require` on both sides) holds text
    on both sides or integers on both sides; InputError for one of each."""
    run_text = reader.classify(run_type) == "text"
    if run_text == (reader.classify(qrels_type) == "text"):
        return "text" if run_text else "integer"
    raise InputError(
        f"{fn}: column {name!r} is {reader.show(run_type)} in the run but "
        f"{reader.show(qrels_type)} in the qrels; ids must be strings on both sides or "
        f"integers on both sides ({reader.cast_hint(name)})"
    )


def problem_message(fn: str, side: str, value: str, query: str, doc: str,
                    rows: Sequence[Mapping[str, Any]]) -> str:
    """The message of a data check over the grouped (query, doc) pairs of one side: ``rows``
    are its first offending groups in report order, each with ``kind`` (:data:`NULL_ID`,
    :data:`BAD_VALUE`, :data:`DUPLICATE`), the ids ``query`` and ``doc``, and its counts
    ``rows`` and ``nulls``; ``value`` is the side's score or grade column."""
    first = rows[0]
    where = f"query {first['query']!r}, document {first['doc']!r}"
    if first["kind"] == NULL_ID:
        column = query if first["query"] is None else doc
        return f"{fn}: column {column!r} of the {side} is NULL ({where})"
    if first["kind"] == BAD_VALUE:
        what = "NULL" if first["nulls"] else "NaN"
        return f"{fn}: column {value!r} of the {side} is {what} ({where})"
    pairs = "; ".join(f"query {row['query']!r}, document {row['doc']!r} ({row['rows']} rows)"
                      for row in rows if row["kind"] == DUPLICATE)
    return (f"{fn}: duplicate ({query}, {doc}) in the {side}: {pairs}; "
            "each pair may appear only once")

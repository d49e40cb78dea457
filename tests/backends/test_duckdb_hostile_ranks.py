"""Hostile rank columns and query shapes for every macro (docs/semantics.md#input-checks):

- a rank at the largest valid value of its integer type (UTINYINT 255 ... BIGINT 2^63 - 1;
  2^63 - 1 in the wider ones) gives the oracle's number, through the guarded macros and the
  unguarded ones that ``evaluate`` calls: no ``rank + 1`` or ``rank - 1`` overflows in the
  rank's own type; a rank above 2^63 - 1 (UBIGINT, HUGEINT, UHUGEINT) is refused, naming
  the macro;
- a NaN or infinite grade is refused by every macro reading grades, naming the macro (a NaN
  compares above every number in DuckDB: it would count as relevant);
- a rank column of a type that is not an integer (VARCHAR, BOOLEAN, DOUBLE, DATE) binds, so
  that the guard names the macro: "rank must be of an integer type"; an untyped NULL rank
  column is valid (nothing retrieved);
- every metric macro works in ``HAVING`` and over a constant argument; in a window
  (``OVER (...)``) DuckDB runs only macros made of one aggregate, which the metric macros
  are not, and refuses with its own message (documented).
"""

from __future__ import annotations

from collections.abc import Mapping

import duckdb
import pytest

from rankframe import faces
from rankframe.faces.duckdb import call
from rankframe.measures import Measure
from rankframe.reference import value
from rankframe.registry import METRICS, Metric
from tests.support.faces import disagreements, measure

#: The metrics of a judged table's rel and rank (the beyond-accuracy ones, which read item
#: columns too, are tested with their own tables).
RANKED = sorted(name for name, m in METRICS.items() if m.columns == ("rel", "rank"))
REQUIRED = {"k": 10, "recall": 0.5, "multiple": 1.0}

#: The largest value of each integer type.
MAXIMA = {"TINYINT": 2**7 - 1, "SMALLINT": 2**15 - 1, "INTEGER": 2**31 - 1,
          "BIGINT": 2**63 - 1, "HUGEINT": 2**127 - 1, "UTINYINT": 2**8 - 1,
          "USMALLINT": 2**16 - 1, "UINTEGER": 2**32 - 1, "UBIGINT": 2**64 - 1,
          "UHUGEINT": 2**128 - 1}
#: The largest valid rank (docs/semantics.md#invalid-groups-in-the-expressions-and-macros).
LARGEST_RANK = 2**63 - 1
#: The types whose largest value is above it.
WIDER = sorted(t for t, top in MAXIMA.items() if top > LARGEST_RANK)

#: A query of small ranks, a rank at its type's largest valid value ("max") and an
#: unretrieved row; grades 0-3 and an unjudged row. A column ``rank_<TYPE>`` per integer
#: type.
RANKS = [1, 2, 3, 5, None, "max"]
GRADES = [2, 0, 1, None, 3, 1]
#: The types also run through the unguarded macros (``rf__unchecked_*``, as evaluate calls).
UNGUARDED = ["UTINYINT", "BIGINT", "UHUGEINT"]


def values(metric: Metric) -> dict[str, object]:
    return metric.validate({p.name: REQUIRED[p.name] for p in metric.required})


def sql_value(x: object) -> str:
    return "NULL" if x is None else repr(x)


def ranks_of(rank_type: str, top: int | None = None) -> list[int | None]:
    """RANKS with "max" the type's largest valid rank (``top`` when given)."""
    largest = min(MAXIMA[rank_type], LARGEST_RANK) if top is None else top
    return [largest if r == "max" else r for r in RANKS]  # type: ignore[misc]


def typed_table(top: Mapping[str, int] | None = None) -> str:
    """The query as SQL: rel and a rank column per integer type (its "max" rank ``top[type]``
    when given)."""
    tops = top or {}
    columns = {"rel": ("INTEGER", GRADES)} | {f"rank_{t}": (t, ranks_of(t, tops.get(t)))
                                              for t in MAXIMA}
    rows = ", ".join(
        "(" + ", ".join(f"{sql_value(v[i])}::{typ}" for typ, v in columns.values()) + ")"
        for i in range(len(RANKS)))
    return f"(VALUES {rows}) t({', '.join(columns)})"


def macro_value(con: duckdb.DuckDBPyConnection, metric: Metric, source: str,
                checked: bool) -> object:
    called = call(metric, {c: c for c in metric.columns}, values(metric), checked=checked)
    return con.sql(f"SELECT {called} FROM {source}").fetchall()[0][0]


def agree(metric: Metric, got: object, want: object) -> None:
    m: Measure = measure(metric, values(metric))
    faults, _ = disagreements(faces.get("duckdb"), m, {"q": got}, {"q": want})
    assert not faults, faults


# -- a rank at its type's maximum -----------------------------------------------------------


@pytest.mark.parametrize("name", RANKED)
def test_a_rank_at_its_types_largest_valid_value_gives_the_oracles_number(
        name: str, con: duckdb.DuckDBPyConnection) -> None:
    """UTINYINT 255 + 1 overflowed ("Overflow in addition of UINT8 (255 + 1)") inside the
    macros, and so did rank - 1 and the casts to BIGINT of the larger types."""
    metric = METRICS[name]
    cases = [(t, False) for t in MAXIMA] + [(t, True) for t in UNGUARDED]
    calls = [call(metric, {"rel": "rel", "rank": f"rank_{t}"}, values(metric), checked=checked)
             for t, checked in cases]
    got = con.sql(f"SELECT {', '.join(calls)} FROM {typed_table()}").fetchall()[0]
    for (rank_type, checked), result in zip(cases, got, strict=True):
        rows = list(zip(GRADES, ranks_of(rank_type), strict=True))
        want = value(metric, rows, values(metric))
        m: Measure = measure(metric, values(metric))
        faults, _ = disagreements(faces.get("duckdb"), m, {"q": result}, {"q": want})
        assert not faults, (rank_type, "unguarded" if checked else "guarded", faults)


# -- rank columns that are not of an integer type -------------------------------------------

@pytest.mark.parametrize("name", RANKED)
def test_a_rank_above_the_largest_is_refused(name: str, con: duckdb.DuckDBPyConnection) -> None:
    """Every face counts ranks in 64-bit signed integers: a rank above 2^63 - 1 is refused
    by the guard, as ``check_judged`` refuses it."""
    metric = METRICS[name]
    source = typed_table(MAXIMA)
    for rank_type in WIDER:
        called = call(metric, {"rel": "rel", "rank": f"rank_{rank_type}"}, values(metric))
        with pytest.raises(duckdb.Error, match=rf"^Invalid Input Error: {metric.macro}: rank "
                                               rf"{MAXIMA[rank_type]} is above 2\^63 - 1 "):
            con.sql(f"SELECT {called} FROM {source}").fetchall()


NOT_INTEGER = {"VARCHAR": "'1', '2'", "BOOLEAN": "true, false", "DOUBLE": "'nan'::DOUBLE, 2.0",
               "DATE": "DATE '2024-01-01', DATE '2024-01-02'"}


@pytest.mark.parametrize("rank_type", sorted(NOT_INTEGER))
@pytest.mark.parametrize("name", RANKED)
def test_a_rank_column_of_another_type_is_named(name: str, rank_type: str,
                                                con: duckdb.DuckDBPyConnection) -> None:
    metric = METRICS[name]
    first, second = NOT_INTEGER[rank_type].split(", ")
    source = f"(VALUES ({first}, 1), ({second}, 0)) t(rank, rel)"
    with pytest.raises(duckdb.Error, match=rf"^Invalid Input Error: {metric.macro}: rank must "
                                           rf"be of an integer type, got {rank_type} "):
        macro_value(con, metric, source, checked=False)


@pytest.mark.parametrize("name", RANKED)
def test_an_untyped_null_rank_column_is_valid(name: str,
                                              con: duckdb.DuckDBPyConnection) -> None:
    """``rank`` NULL (DuckDB's type "NULL"): nothing retrieved, as an all-NULL BIGINT."""
    metric = METRICS[name]
    untyped = macro_value(con, metric, "(VALUES (NULL, 1), (NULL, 0)) t(rank, rel)", False)
    typed = macro_value(con, metric, "(VALUES (NULL::BIGINT, 1), (NULL, 0)) t(rank, rel)",
                        False)
    assert untyped == typed
    want = value(metric, [(1, None), (0, None)], values(metric))
    agree(metric, untyped, want)


# -- grades that are not finite --------------------------------------------------------------

GRADED = sorted(name for name, m in METRICS.items()
                if "rel" in m.columns and set(m.columns) <= {"rel", "rank", "tie_first",
                                                              "tie_size"})
NOT_FINITE = {"NaN": "'nan'::DOUBLE", "inf": "'inf'::DOUBLE", "-inf": "'-inf'::DOUBLE"}


@pytest.mark.parametrize("grade", sorted(NOT_FINITE))
@pytest.mark.parametrize("name", GRADED)
def test_a_grade_that_is_not_finite_is_refused(name: str, grade: str,
                                               con: duckdb.DuckDBPyConnection) -> None:
    """``rf_precision`` gave 0.5 with a NaN grade (NaN >= 1 holds in DuckDB): now an error
    naming the macro, guarded and on the tie-aware macros alike."""
    metric = METRICS[name]
    source = (f"(VALUES ({NOT_FINITE[grade]}, 1, 1, 1), (1.0, 2, 2, 1)) "
              "t(rel, rank, tie_first, tie_size)")
    with pytest.raises(duckdb.Error, match=rf"^Invalid Input Error: {metric.macro}: grade "
                                           rf"{grade.lower()} is not a finite number"):
        macro_value(con, metric, source, checked=False)


# -- HAVING, windows and constants ----------------------------------------------------------

ALL = sorted(name for name, m in METRICS.items()
             if set(m.columns) <= {"rel", "rank", "tie_first", "tie_size", "x", "y", "rank_a",
                                   "rank_b"})
QUERIES = ("(VALUES ('a', 1, 2, 1, 1, 1.0, 2.0, 1, 2), ('a', 2, 0, 2, 1, 2.0, 1.0, 2, 1), "
           "('a', NULL, 1, NULL, NULL, 3.0, 3.0, NULL, 3), ('b', 1, 0, 1, 1, 1.0, 1.0, 1, NULL)) "
           "t(qid, rank, rel, tie_first, tie_size, x, y, rank_a, rank_b)")


def called(metric: Metric) -> str:
    return call(metric, {c: c for c in metric.columns}, values(metric))


def per_query(con: duckdb.DuckDBPyConnection, metric: Metric) -> dict[str, object]:
    return dict(con.sql(f"SELECT qid, {called(metric)} FROM {QUERIES} GROUP BY qid")
                .fetchall())


@pytest.mark.parametrize("name", ALL)
def test_every_macro_works_in_having(name: str, con: duckdb.DuckDBPyConnection) -> None:
    metric = METRICS[name]
    expected = per_query(con, metric)
    got = con.sql(f"SELECT qid FROM {QUERIES} GROUP BY qid HAVING {called(metric)} IS NOT "
                  "DISTINCT FROM $v ORDER BY qid", params={"v": expected["a"]}).fetchall()
    assert ("a",) in got
    # and in ORDER BY and inside another expression of the select list
    ordered = con.sql(f"SELECT qid, coalesce({called(metric)}, NULL) FROM {QUERIES} "
                      f"GROUP BY qid ORDER BY {called(metric)} NULLS FIRST, qid").fetchall()
    assert dict(ordered) == expected


@pytest.mark.parametrize("name", ALL)
def test_a_macro_in_a_window_is_refused_by_duckdb(name: str,
                                                 con: duckdb.DuckDBPyConnection) -> None:
    """A macro holding several aggregates is no window function in DuckDB: its own Binder
    Error, before any row is read (docs/semantics.md, invalid groups in the expressions and
    macros); for rf_average_precision_ties, whose aggregate sits in a list, DuckDB's
    binder names a column instead."""
    with pytest.raises(duckdb.BinderException,
                       match=r"Window function macro bodies must contain exactly one "
                             r"aggregate function|must appear in the GROUP BY clause"):
        con.sql(f"SELECT {called(METRICS[name])} OVER (PARTITION BY qid) FROM {QUERIES}"
                ).fetchall()


CONSTANTS: Mapping[str, str] = {"rel": "1", "rank": "1", "x": "1.0", "y": "2.0",
                                "rank_a": "1", "rank_b": "1", "tie_first": "1",
                                "tie_size": "1"}


@pytest.mark.parametrize("name", ALL)
def test_a_constant_column_argument_is_one_value_per_row(
        name: str, con: duckdb.DuckDBPyConnection) -> None:
    """A literal where a column is expected is that value on every row: the number a column
    holding it gives (in a query of one row: a constant rank on two rows repeats a rank)."""
    metric = METRICS[name]
    one_row = f"(SELECT * FROM {QUERIES} WHERE qid = 'b')"
    literal = [call(metric, {c: CONSTANTS[c] if c == column else c for c in metric.columns},
                    values(metric)) for column in metric.columns]
    got = con.sql(f"SELECT {', '.join(literal)} FROM {one_row}").fetchall()[0]
    for column, result in zip(metric.columns, got, strict=True):
        want = con.sql(f"SELECT {called(metric)} FROM (SELECT * REPLACE ({CONSTANTS[column]} "
                       f"AS {column}) FROM {one_row})").fetchall()[0][0]
        assert result == want, column

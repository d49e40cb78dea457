"""The SQL macros' rank guard counts distinct ranks exactly in every range it splits them
into (one 64-bit word, two bitmaps, a list), and the guarded macros check their arguments
before any row is read (an empty input included)."""

from __future__ import annotations

import duckdb
import pytest

# Ranks next to each boundary of the guard's ranges, and far beyond them.
EDGES = [1, 2, 63, 64, 65, 66, 1023, 1024, 1025, 1026, 16383, 16384, 16385, 16386, 2**40,
         2**62]


def guard_sql(ranks: list[int], rank_type: str) -> str:
    rows = ", ".join(f"({r}::{rank_type}, 1)" for r in ranks)
    return f"SELECT rf_precision(rel, rank, 10) FROM (VALUES {rows}) t(rank, rel)"


@pytest.mark.parametrize("repeated", EDGES)
def test_a_repeated_rank_is_counted_in_every_range(repeated: int,
                                                   con: duckdb.DuckDBPyConnection) -> None:
    ranks = [*EDGES, repeated, repeated]
    distinct = len(set(ranks))
    with pytest.raises(duckdb.Error, match=rf"rf_precision: a rank occurs twice in a group "
                                           rf"\({len(ranks)} ranks, {distinct} distinct\)"):
        con.sql(guard_sql(ranks, "BIGINT")).fetchall()


@pytest.mark.parametrize("rank_type", ["TINYINT", "UTINYINT", "SMALLINT", "USMALLINT",
                                       "INTEGER", "UINTEGER", "BIGINT", "UBIGINT", "HUGEINT",
                                       "UHUGEINT"])
def test_each_integer_type_passes_unique_ranks_and_fails_a_repeated_one(
        rank_type: str, con: duckdb.DuckDBPyConnection) -> None:
    top = {"TINYINT": 127, "UTINYINT": 255, "SMALLINT": 32_767,
           "USMALLINT": 65_535}.get(rank_type, 70_000)
    ranks = [r for r in (1, 64, 65, 127, 255, 1024, 1025, 16384, 16385, 20_000,
                                  70_000) if r <= top]
    assert con.sql(guard_sql(ranks, rank_type)).fetchall() == [(0.1,)]
    for repeated in ranks:
        with pytest.raises(duckdb.Error, match=rf"\({len(ranks) + 1} ranks, {len(ranks)} "):
            con.sql(guard_sql([*ranks, repeated], rank_type)).fetchall()


def test_ranks_beyond_bigint_are_refused(con: duckdb.DuckDBPyConnection) -> None:
    """A rank above 2^63 - 1 is invalid (docs/semantics.md#input-checks), in a HUGEINT
    column too; 2^63 - 1 itself is valid."""
    top = 2**63 - 1
    assert con.sql(guard_sql([1, top], "HUGEINT")).fetchall() == [(0.1,)]
    with pytest.raises(duckdb.Error, match=r"rf_precision: rank \d+ is above 2\^63 - 1"):
        con.sql(guard_sql([1, 2**100, 2**100 + 1], "HUGEINT")).fetchall()


def test_unique_ranks_in_many_groups_pass(con: duckdb.DuckDBPyConnection) -> None:
    """Every rank of 1..20,000 once in each of three groups, rows interleaved."""
    got = con.sql("SELECT q, rf_recall(rel, rank, 100) AS v, rf_precision(rel, rank) AS p "
                  "FROM (SELECT i % 3 AS q, i // 3 + 1 AS rank, (i % 2)::INTEGER AS rel "
                  "FROM range(60000) r(i)) GROUP BY q ORDER BY q").fetchall()
    assert [(q, round(v, 6), p) for q, v, p in got] == [
        (0, round(50 / 10_000, 6), 0.5), (1, round(50 / 10_000, 6), 0.5),
        (2, round(50 / 10_000, 6), 0.5)]


BAD_ARGUMENTS = [
    ("rf_ndcg(rel, rank, 0)", "rf_ndcg: k must be a positive integer"),
    ("rf_ndcg(rel, rank, 3, ideal := 'x')", "rf_ndcg: ideal must be one of"),
    ("rf_dcg(rel, rank, 3, 'x')", "rf_dcg: gain must be one of"),
    ("rf_idcg(rel, rank, 2.5)", "rf_idcg: k must be a positive integer"),
    ("rf_cg(rel, rank, 3, gain := 'x')", "rf_cg: gain must be one of"),
    ("rf_average_precision(rel, rank, divisor := 'x')", "rf_average_precision: divisor must"),
    ("rf_average_precision(rel, rank, threshold := 0)", "rf_average_precision: threshold must"),
    ("rf_precision(rel, rank, 3, divisor := 'x')", "rf_precision: divisor must be one of"),
    ("rf_recall(rel, rank, -1)", "rf_recall: k must be a positive integer"),
    ("rf_reciprocal_rank(rel, rank, threshold := NULL)", "rf_reciprocal_rank: threshold must"),
    ("rf__unchecked_ndcg(rel, rank, 0)", "rf_ndcg: k must be a positive integer"),
]


@pytest.mark.parametrize(("called", "message"), BAD_ARGUMENTS)
def test_a_bad_argument_fails_on_an_empty_input(called: str, message: str,
                                                con: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(duckdb.Error, match=message):
        con.sql(f"SELECT {called} FROM (VALUES (1, 1)) t(rank, rel) WHERE false").fetchall()


@pytest.mark.parametrize(("called", "message"), BAD_ARGUMENTS[:-1])
def test_a_bad_argument_is_named_before_bad_ranks(called: str, message: str,
                                                  con: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(duckdb.Error, match=message):
        con.sql(f"SELECT {called} FROM (VALUES (1, 1), (1, 0)) t(rank, rel)").fetchall()

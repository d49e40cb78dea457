"""User-model metrics (rbp, rbp_residual, err, judged): worked examples computed by hand in
every face, the residual's bound, and argument errors. Parity on generated tables is in
test_parity.py."""

from __future__ import annotations

import math

import duckdb
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankframe as rf
from rankframe.registry import METRICS
from tests.support.faces import duckdb_values, polars_face, reference_face
from tests.support.strategies import judged_tables

# docs/semantics.md#worked-examples, binary list: relevant at ranks 1, 3, 5 (plus an
# unjudged row at 6).
BINARY = pl.DataFrame({"qid": ["q"] * 6, "rank": [1, 2, 3, 4, 5, 6],
                       "rel": [1.0, 0.0, 1.0, 0.0, 1.0, None]})
# Graded list 3, 2, 3, 0, 1 and a grade-4 document nobody retrieved.
GRADED = pl.DataFrame({"qid": ["q"] * 6, "rank": [1, 2, 3, 4, 5, None],
                       "rel": [3.0, 2.0, 3.0, 0.0, 1.0, 4.0]})

CASES = [
    # (metric, table, params, value worked out by hand)
    ("rbp", BINARY, {"p": 0.8}, 0.2 * (1 + 0.8**2 + 0.8**4)),
    ("rbp", BINARY, {"p": 0.5, "threshold": 2}, 0.0),
    ("rbp", GRADED, {"p": 0.5, "graded": True},
     0.5 * (3 / 4 + 2 / 4 * 0.5 + 3 / 4 * 0.25 + 1 / 4 * 0.5**4)),
    ("rbp", GRADED, {"p": 0.5, "graded": True, "max_grade": 2},
     0.5 * (1 + 1 * 0.5 + 1 * 0.25 + 0.5 * 0.5**4)),
    ("rbp_residual", BINARY, {"p": 0.8}, 0.2 * 0.8**5 + 0.8**6),
    ("rbp_residual", GRADED, {"p": 0.5}, 0.5**5),
    ("err", GRADED, {"k": None},
     7 / 16 + (9 / 16) * (3 / 16) / 2 + (9 / 16) * (13 / 16) * (7 / 16) / 3
     + (9 / 16) * (13 / 16) * (9 / 16) * (1 / 16) / 5),
    ("err", GRADED, {"k": 1}, 7 / 16),
    ("err", GRADED, {"k": None, "max_grade": 1},  # every grade >= 1 clips to R = 1/2
     1 / 2 + (1 / 2) * (1 / 2) / 2 + (1 / 4) * (1 / 2) / 3 + (1 / 8) * (1 / 2) / 5),
    ("judged", BINARY, {"k": 10}, 5 / 6),
    ("judged", BINARY, {"k": 5}, 1.0),
    ("judged", BINARY, {"k": None}, 5 / 6),
]


@pytest.mark.parametrize(("name", "table", "params", "expected"), CASES)
def test_worked_examples(name: str, table: pl.DataFrame, params: dict[str, object],
                         expected: float, con: duckdb.DuckDBPyConnection) -> None:
    metric = METRICS[name]
    for face in (polars_face(metric, table, params), duckdb_values(metric, table, params, con),
                 reference_face(metric, table, params)):
        assert face["q"] == pytest.approx(expected, abs=1e-12), (name, params)


def test_graded_default_scale_is_the_query_maximum() -> None:
    """Without max_grade, the highest grade of the query (retrieved or not) is 1."""
    explicit = GRADED.select(rf.rbp("rel", graded=True, max_grade=4)).item()
    default = GRADED.select(rf.rbp("rel", graded=True)).item()
    assert default == pytest.approx(explicit, abs=1e-15)


def test_rank_gaps_count_as_unknown_in_the_residual(con: duckdb.DuckDBPyConnection) -> None:
    gappy = pl.DataFrame({"qid": ["q", "q"], "rank": [1, 3], "rel": [1.0, 0.0]})
    expected = 0.5 * 0.5 + 0.5**3  # position 2 is unknown; everything below 3 too
    assert gappy.select(rf.rbp_residual("rel", p=0.5)).item() == pytest.approx(expected)
    sql = "SELECT rf_rbp_residual(rel, rank, p := 0.5) FROM gappy"
    assert con.sql(sql).fetchall() == [(pytest.approx(expected),)]


def test_nothing_retrieved() -> None:
    empty = pl.DataFrame({"rank": [None], "rel": [2.0]}, schema={"rank": pl.Int64,
                                                                  "rel": pl.Float64})
    row = empty.select(rf.rbp("rel"), rf.rbp_residual("rel"), rf.err("rel"),
                       rf.judged("rel", 5)).row(0)
    assert row == (0.0, 1.0, 0.0, 0.0)


@given(judged=judged_tables(), p=st.sampled_from([0.5, 0.8, 0.95]))
def test_residual_bounds_every_judging_of_the_unknown(judged: pl.DataFrame, p: float) -> None:
    """rbp <= rbp(unknown judged relevant) <= rbp + residual, for binary RBP."""
    optimistic = judged.with_columns(
        pl.when(pl.col("rel").is_null() | (pl.col("rel") < 0)).then(1.0)
        .otherwise(pl.col("rel")).alias("rel"))
    base = judged.group_by("qid").agg(rf.rbp("rel", p=p), rf.rbp_residual("rel", p=p))
    best = optimistic.group_by("qid").agg(rf.rbp("rel", p=p).alias("best"))
    both = base.join(best, on="qid")
    for low, residual, high in both.select("rbp", "rbp_residual", "best").rows():
        assert low <= high + 1e-12
        assert high <= low + residual + 1e-12


@given(judged=judged_tables())
def test_err_is_a_probability_and_grows_with_k(judged: pl.DataFrame) -> None:
    out = judged.group_by("qid").agg(rf.err("rel", 3).alias("at3"), rf.err("rel").alias("all"))
    for at3, full in out.select("at3", "all").rows():
        assert 0.0 <= at3 <= full + 1e-12
        assert full < 1.0


@pytest.mark.parametrize(("call", "sql", "message"), [
    (lambda: rf.rbp(p=1.0), "rf_rbp(rel, rank, p := 1)", "p must lie in"),
    (lambda: rf.rbp(p=0), "rf_rbp(rel, rank, p := 0)", "p must lie in"),
    (lambda: rf.rbp(graded=True, max_grade=0),
     "rf_rbp(rel, rank, graded := true, max_grade := 0)", "max_grade must be"),
    (lambda: rf.rbp_residual(p=-0.5), "rf_rbp_residual(rel, rank, p := -0.5)", "p must lie in"),
    (lambda: rf.err(k=0), "rf_err(rel, rank, 0)", "k must be a positive integer"),
    (lambda: rf.err(max_grade=-1), "rf_err(rel, rank, 5, max_grade := -1)", "max_grade must be"),
    (lambda: rf.judged(k=1.5), "rf_judged(rel, rank, 1.5)", "k must be a positive integer"),
])
def test_bad_arguments_fail_in_both_faces(call: object, sql: str, message: str,
                                          con: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        call()  # type: ignore[operator]
    with pytest.raises(duckdb.Error, match=message):
        con.sql(f"SELECT {sql} FROM (VALUES (1, 1.0)) t(rank, rel)").fetchall()


def test_graded_flag_must_be_boolean() -> None:
    with pytest.raises(TypeError, match="graded must be True or False"):
        rf.rbp(graded=1)  # type: ignore[arg-type]


def test_err_matches_the_textbook_cascade_on_a_long_list() -> None:
    grades = [4, 3, 0, 2, 1, 0, 4] * 20
    table = pl.DataFrame({"rank": list(range(1, len(grades) + 1)),
                          "rel": [float(g) for g in grades]})
    value, reach = 0.0, 1.0
    for i, g in enumerate(grades, start=1):
        stop = (2**g - 1) / 16
        value += reach * stop / i
        reach *= 1 - stop
    assert table.select(rf.err("rel")).item() == pytest.approx(value, rel=1e-12)
    assert math.isfinite(value)

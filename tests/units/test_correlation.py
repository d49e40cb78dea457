"""Rank correlation and overlap: Kendall and Spearman against scipy (test-only), their
degenerate cases, and RBO against worked values and its defining properties. Parity of
the three faces on generated tables is in test_parity.py."""

from __future__ import annotations

import math
import warnings
from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankframe as rf
from rankframe.faces.base import Face, supports
from rankframe.registry import METRICS
from tests.support import needs
from tests.support.faces import COLUMNS, duckdb_values, measure, polars_face
from tests.support.strategies import paired_tables, ranking_tables


def _dense_ranks(values: list[float]) -> list[int]:
    """Each value's position among the distinct values: the order and ties, exactly (Python
    compares ints beyond 2^53 with each other and with floats exactly; -0.0 == 0.0)."""
    position = {v: i for i, v in enumerate(sorted(set(values)))}
    return [position[v] for v in values]


def _scipy(kind: str, x: list[float], y: list[float]) -> float:
    """scipy's statistic over the dense ranks of x and y: both statistics depend on the
    order only, and scipy casts a float column and an int column to one float dtype,
    which would round integers beyond 2^53 into ties."""
    stats = needs.load("scipy", "scipy.stats")
    x, y = _dense_ranks(x), _dense_ranks(y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on constant input and returns NaN
        if kind == "kendall_tau":
            value = float(stats.kendalltau(x, y, variant="b").statistic)
        else:
            value = float(stats.spearmanr(x, y).statistic)
    return 0.0 if math.isnan(value) else value


@pytest.mark.parametrize("name", ["kendall_tau", "spearman_rho"])
def test_matches_scipy(name: str, con: duckdb.DuckDBPyConnection) -> None:
    metric = METRICS[name]

    @given(table=paired_tables())
    def check(table: pl.DataFrame) -> None:
        polars_values = polars_face(metric, table, {})
        sql_values = duckdb_values(metric, table, {}, con)
        for (qid,), group in table.group_by("qid"):
            kept = group.filter(pl.col("x").is_not_null() & pl.col("y").is_not_null()
                                & pl.col("x").is_not_nan() & pl.col("y").is_not_nan())
            expected = (_scipy(name, kept["x"].to_list(), kept["y"].to_list())
                        if kept.height >= 2 else 0.0)
            assert polars_values[qid] == pytest.approx(expected, abs=1e-12)
            assert sql_values[qid] == pytest.approx(expected, abs=1e-12)

    check()


@given(values=st.lists(st.integers(-50, 50), min_size=2, max_size=40, unique=True),
       data=st.data())
def test_distance_is_half_one_minus_tau_without_ties(values: list[int],
                                                     data: st.DataObject) -> None:
    other = data.draw(st.permutations(values))
    table = pl.DataFrame({"x": values, "y": other})
    tau, distance = table.select(rf.kendall_tau("x", y="y"), rf.kendall_distance("x", y="y")).row(0)
    assert distance == pytest.approx((1 - tau) / 2, abs=1e-12)


def test_distance_extremes_and_tie_penalty() -> None:
    table = pl.DataFrame({"x": [1, 2, 3, 4], "same": [10, 20, 30, 40], "rev": [4, 3, 2, 1],
                          "tied": [1, 1, 2, 2]})
    assert table.select(rf.kendall_distance("x", y="same")).item() == 0.0
    assert table.select(rf.kendall_distance("x", y="rev")).item() == 1.0
    # x vs tied: pairs (1,2) and (3,4) tied in one column only; no inversions.
    assert table.select(rf.kendall_distance("x", y="tied")).item() == 0.0
    assert table.select(rf.kendall_distance("x", y="tied", penalty=0.5)).item() == 1 / 6
    with pytest.raises(ValueError, match="penalty must lie in"):
        rf.kendall_distance("x", y="y", penalty=2)


def test_degenerate_groups_score_zero(con: duckdb.DuckDBPyConnection) -> None:
    table = pl.DataFrame({"qid": ["one", "const", "const", "nulls", "nulls"],
                          "x": [1.0, 2.0, 3.0, None, 1.0], "y": [1.0, 5.0, 5.0, 2.0, None]})
    for name in ("kendall_tau", "kendall_distance", "spearman_rho"):
        metric = METRICS[name]
        expected = {"one": 0.0, "const": 0.0, "nulls": 0.0}
        assert polars_face(metric, table, {}) == expected
        assert duckdb_values(metric, table, {}, con) == expected


# --- RBO ----------------------------------------------------------------------------------


def _rbo_table(a: list[str], b: list[str]) -> pl.DataFrame:
    docs = list(dict.fromkeys(a + b))
    return pl.DataFrame({
        "qid": ["q"] * len(docs),
        "rank_a": [a.index(d) + 1 if d in a else None for d in docs],
        "rank_b": [b.index(d) + 1 if d in b else None for d in docs],
    }, schema={"qid": pl.String, "rank_a": pl.Int64, "rank_b": pl.Int64})


def _both_faces(table: pl.DataFrame, con: duckdb.DuckDBPyConnection,
                **params: object) -> list[float]:
    metric = METRICS["rbo"]
    return [polars_face(metric, table, params)["q"],
            duckdb_values(metric, table, params, con)["q"]]


def test_rbo_worked_example(con: duckdb.DuckDBPyConnection) -> None:
    """A = abc, B = bad: X = 0, 2, 2 at depths 1, 2, 3."""
    table = _rbo_table(list("abc"), list("bad"))
    p = 0.9
    ext = (1 - p) / p * (2 * p**2 / 2 + 2 * p**3 / 3) + 2 / 3 * p**3
    low = (1 - p) / p * ((0 - 2) * p + 0 + 0) - (1 - p) / p * 2 * math.log(1 - p)
    assert _both_faces(table, con, p=p) == [pytest.approx(ext)] * 2
    assert _both_faces(table, con, p=p, extrapolated=False) == [pytest.approx(low)] * 2


def test_rbo_identical_and_disjoint(con: duckdb.DuckDBPyConnection) -> None:
    same = _rbo_table(list("abcdef"), list("abcdef"))
    assert _both_faces(same, con) == [pytest.approx(1.0)] * 2
    # The lower bound of identical lists of length l: full agreement to depth l, then l/d.
    p, length = 0.9, 6
    tail = sum((1 - p) * p ** (d - 1) * length / d for d in range(length + 1, 2000))
    low = 1 - p**length + tail
    assert _both_faces(same, con, p=p, extrapolated=False) == [pytest.approx(low)] * 2
    disjoint = _rbo_table(list("abc"), list("xyz"))
    assert _both_faces(disjoint, con) == [0.0, 0.0]
    assert _both_faces(disjoint, con, extrapolated=False) == [0.0, 0.0]
    one_empty = _rbo_table(list("abc"), [])
    assert _both_faces(one_empty, con) == [0.0, 0.0]


def test_rbo_uneven_lengths_extrapolate_the_shorter_list(con: duckdb.DuckDBPyConnection) -> None:
    """A = ab, B = abcd: agreement 1 throughout the seen prefix of A; ext assumes A goes on
    agreeing with B at rate X_s/s = 1, so RBO_ext = 1."""
    table = _rbo_table(list("ab"), list("abcd"))
    assert _both_faces(table, con, p=0.8) == [pytest.approx(1.0)] * 2


@given(table=ranking_tables(max_queries=1, ties=False), p=st.sampled_from([0.5, 0.9, 0.98]),
       depth=st.one_of(st.none(), st.integers(1, 20)))
def test_rbo_min_below_ext_and_both_in_unit_interval(table: pl.DataFrame, p: float,
                                                      depth: int | None) -> None:
    low, ext = table.select(
        rf.rbo("rank_a", rank_b="rank_b", p=p, depth=depth, extrapolated=False).alias("low"),
        rf.rbo("rank_a", rank_b="rank_b", p=p, depth=depth).alias("ext")).row(0)
    assert -1e-12 <= low <= ext + 1e-12
    assert ext <= 1.0 + 1e-12


@given(table=ranking_tables(max_queries=1), depth=st.integers(1, 20))
def test_rbo_depth_is_truncation(table: pl.DataFrame, depth: int) -> None:
    truncated = table.with_columns(
        pl.when(pl.col(c) <= depth).then(pl.col(c)).alias(c) for c in ("rank_a", "rank_b"))
    for extrapolated in (True, False):
        cut = table.select(rf.rbo(depth=depth, extrapolated=extrapolated)).item()
        manual = truncated.select(rf.rbo(extrapolated=extrapolated)).item()
        assert cut == pytest.approx(manual, abs=1e-15)


def test_rbo_bad_arguments() -> None:
    with pytest.raises(ValueError, match="p must lie in"):
        rf.rbo(p=1.0)
    with pytest.raises(ValueError, match="depth must be a positive integer"):
        rf.rbo(depth=0)
    with pytest.raises(TypeError, match="extrapolated must be True or False"):
        rf.rbo(extrapolated="yes")  # type: ignore[arg-type]


# --- the edges, every face ------------------------------------------------------------------

INF, NAN = math.inf, math.nan
SQRT = math.sqrt
#: (x, y, tau, distance, distance with penalty 1, rho) per group; docs/semantics.md, rank
#: correlation and overlap. By the dtypes of x and y, so each table has one dtype a column.
EDGES: dict[tuple[type[pl.DataType], type[pl.DataType]], dict[str, tuple[Any, ...]]] = {
    (pl.Float64, pl.Float64): {
        "inf largest": ([1.0, 2.0, INF], [1.0, 2.0, 3.0], 1.0, 0.0, 0.0, 1.0),
        "inf ties inf": ([1.0, INF, INF], [1.0, 2.0, 3.0], 2 / SQRT(6), 0.0, 1 / 3, 1.5 / SQRT(3)),
        "-inf to inf": ([-INF, 0.0, INF], [3.0, 2.0, 1.0], -1.0, 1.0, 1.0, -1.0),
        "-0.0 is 0.0": ([-0.0, 0.0, 1.0], [1.0, 2.0, 3.0], 2 / SQRT(6), 0.0, 1 / 3, 1.5 / SQRT(3)),
        "two left": ([1.0, None, NAN, 2.0, 3.0], [2.0, 1.0, 1.0, NAN, 1.0], -1.0, 1.0, 1.0, -1.0),
        "none left": ([None, NAN], [1.0, 2.0], 0.0, 0.0, 0.0, 0.0),
        "one row": ([1.0], [2.0], 0.0, 0.0, 0.0, 0.0),
        "constant y": ([1.0, 2.0, 3.0], [4.0, 4.0, 4.0], 0.0, 0.0, 1.0, 0.0),
        "both constant": ([1.0, 1.0], [2.0, 2.0], 0.0, 0.0, 0.0, 0.0),
    },
    (pl.Int64, pl.Float64): {
        "beyond 2^53": ([2**53, 2**53 + 1, 2**53 + 2], [1.0, 2.0, 3.0], 1.0, 0.0, 0.0, 1.0),
        "one apart": ([2**53 + 1, 2**53], [0.0, INF], -1.0, 1.0, 1.0, -1.0),
    },
    (pl.Int64, pl.Int64): {
        "Int64 ends": ([-(2**63), 0, 2**63 - 1], [2**63 - 1, 0, -(2**63)], -1.0, 1.0, 1.0, -1.0),
        "big constant": ([2**62, 2**62 + 1, None], [2**62, 2**62, 5], 0.0, 0.0, 1.0, 0.0),
    },
}
CORRELATIONS = [("tau", "kendall_tau", {}), ("distance", "kendall_distance", {}),
                ("distance p1", "kendall_distance", {"penalty": 1.0}),
                ("rho", "spearman_rho", {})]


def evaluate_edges(face: Face, table: pl.DataFrame,
                   measures: list[tuple[str, str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """The measures (label, metric, parameters) the face has, per query, in one evaluation."""
    chosen = [measure(METRICS[m], values, label) for label, m, values in measures
              if supports(face, METRICS[m])]
    if not chosen:
        pytest.skip(f"{face.name} has none of {[m for _, m, _ in measures]}")
    result = face.to_polars(face.evaluate(face.native(table), chosen, ["qid"], COLUMNS))
    return {row["qid"]: row for row in result.iter_rows(named=True)}


@pytest.mark.parametrize("dtypes", list(EDGES), ids=lambda d: f"{d[0].__name__}-{d[1].__name__}")
def test_correlation_edges_on_every_face(face: Face, dtypes: tuple[Any, Any]) -> None:
    cases = EDGES[dtypes]
    table = pl.DataFrame(
        [(qid, x, y) for qid, (xs, ys, *_) in cases.items() for x, y in zip(xs, ys, strict=True)],
        schema={"qid": pl.String, "x": dtypes[0], "y": dtypes[1]}, orient="row")
    got = evaluate_edges(face, table, CORRELATIONS)
    for qid, (_, _, *expected) in cases.items():
        for (label, _, _), value in zip(CORRELATIONS, expected, strict=True):
            if label in got[qid]:
                assert got[qid][label] == pytest.approx(value, abs=1e-12), (face.name, qid, label)


def test_edges_match_scipy() -> None:
    """The hand values above, where scipy is defined (2+ rows, no constant column)."""
    for cases in EDGES.values():
        for qid, (xs, ys, tau, _, _, rho) in cases.items():
            kept = [(x, y) for x, y in zip(xs, ys, strict=True)
                    if x is not None and y is not None and not math.isnan(x)
                    and not math.isnan(y)]
            if len(kept) < 2 or tau == 0.0:
                continue
            x, y = [a for a, _ in kept], [b for _, b in kept]
            assert _scipy("kendall_tau", x, y) == pytest.approx(tau, abs=1e-12), qid
            assert _scipy("spearman_rho", x, y) == pytest.approx(rho, abs=1e-12), qid


P = 0.9
#: (rank_a, rank_b, RBO_ext, RBO_min, RBO_ext at depth 2) per group.
RBO_EDGES: dict[str, tuple[Any, ...]] = {
    "one shared": ([1], [1], 1.0, -(1 - P) / P * math.log(1 - P), 1.0),
    "absent from both": ([1, None], [1, None], 1.0, -(1 - P) / P * math.log(1 - P), 1.0),
    "disjoint singles": ([1, None], [None, 1], 0.0, 0.0, 0.0),
    "cut to nothing": ([3, None], [None, 1], 0.0, 0.0, 0.0),
    "one side empty": ([1, 2], [None, None], 0.0, 0.0, 0.0),
}
RBOS = [("ext", "rbo", {}), ("min", "rbo", {"extrapolated": False}),
        ("ext@2", "rbo", {"depth": 2})]


def test_rbo_edges_on_every_face(face: Face) -> None:
    table = pl.DataFrame(
        [(qid, a, b) for qid, (ra, rb, *_) in RBO_EDGES.items()
         for a, b in zip(ra, rb, strict=True)],
        schema={"qid": pl.String, "rank_a": pl.Int64, "rank_b": pl.Int64}, orient="row")
    got = evaluate_edges(face, table, RBOS)
    for qid, (_, _, *expected) in RBO_EDGES.items():
        for (label, _, _), value in zip(RBOS, expected, strict=True):
            assert got[qid][label] == pytest.approx(value, abs=1e-12), (face.name, qid, label)

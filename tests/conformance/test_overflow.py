"""Numbers too large to sum: a gain map's gains are at most 2^960 in size (every face, by
``Metric.validate`` and the SQL check); with the exponential gain a grade above 960 makes
the group NULL in a builder or a face's evaluate, an error in a macro or ``evaluate``; and
``compare`` refuses an infinite per-query value as it refuses NaN."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest

import rankframe as rf
import rankframe.duckdb
from rankframe.errors import InputError, MeasureError
from rankframe.faces.base import Face
from rankframe.measures import parse
from tests.support import needs

JUDGED = pl.DataFrame({"qid": ["a", "a", "b", "b"], "rank": [1, 2, 1, 2], "rel": [1, 2, 2, 1],
                       "tie_first": [1, 2, 1, 2], "tie_size": [1, 1, 1, 1]})
HIGH = JUDGED.with_columns(pl.when(pl.col("qid") == "a").then(1024).otherwise("rel").alias("rel"))


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("measure", ["G(gains=1:1e308;2:1e308)", "ndcg(gains=2:-1e300)",
                                     "ndcg_rel(gains=3:1e290)"])
def test_a_huge_mapped_gain_is_refused(engine: str, measure: str) -> None:
    with pytest.raises(MeasureError, match=r"gains must .* at most 2\*\*960"):
        rf.evaluate(JUDGED, [measure], engine=engine)


def test_a_mapped_gain_of_2_to_the_960_is_accepted() -> None:
    got = rf.evaluate(JUDGED, ["G(gains=1:9.7e288;2:-9.7e288)"], engine="duckdb")
    assert got.equals(rf.evaluate(JUDGED, ["G(gains=1:9.7e288;2:-9.7e288)"]))


def test_builders_refuse_a_huge_mapped_gain() -> None:
    with pytest.raises(MeasureError, match=r"at most 2\*\*960"):
        rf.g("rel", gains={1: 1e308, 2: 1e308})


def test_the_macro_refuses_a_huge_mapped_gain() -> None:
    con = rankframe.duckdb.register(duckdb.connect())
    with pytest.raises(duckdb.Error, match=r"rf_ndcg: gains must .* at most 2\^960"):
        con.sql("SELECT rf_ndcg(rel, rank, gains := MAP {1: 1e308}) FROM JUDGED").fetchall()


EXPONENTIAL = [("ndcg", "rank"), ("dcg", "rank"), ("idcg", "rank"), ("cg", "rank"),
               ("ndcg_ties", "tie"), ("dcg_ties", "tie")]


@pytest.mark.parametrize(("name", "reads"), EXPONENTIAL)
def test_a_builder_gives_null_for_a_grade_above_960(name: str, reads: str) -> None:
    build = getattr(rf, name)
    got = HIGH.group_by("qid", maintain_order=True).agg(build("rel", gain="exponential"))
    values = dict(got.rows())
    assert values["a"] is None
    assert values["b"] == pytest.approx(
        JUDGED.filter(pl.col("qid") == "b").select(build("rel", gain="exponential")).item())


@pytest.mark.parametrize(("name", "reads"), EXPONENTIAL)
def test_a_macro_refuses_a_grade_above_960(name: str, reads: str) -> None:
    con = rankframe.duckdb.register(duckdb.connect())
    columns = "rel, rank" if reads == "rank" else "rel, tie_first, tie_size"
    with pytest.raises(duckdb.Error, match=r"grade 1024 with the exponential gain"):
        con.sql(f"SELECT qid, rf_{name}({columns}, gain := 'exponential') FROM HIGH "
                "GROUP BY qid").fetchall()


@pytest.mark.parametrize("name", ["ndcg", "cg"])
def test_every_face_gives_null_for_a_grade_above_960(checked_face: Face, name: str) -> None:
    if name in checked_face.unsupported:
        pytest.skip(f"{checked_face.name} has no {name}")
    if checked_face.name == "polars":
        pytest.skip("the Polars face evaluates checked tables: rf.evaluate refuses the grade "
                    "(test_evaluate_refuses_a_grade_above_960), its builders give NULL")
    measures = [parse(f"{name}(gain=exponential)"), parse(name)]
    table = checked_face.native(HIGH.select("qid", "rank", "rel"))
    try:
        result = checked_face.to_polars(checked_face.evaluate(
            table, measures, ["qid"], {"rel": "rel", "rank": "rank"}))
    except duckdb.Error as error:  # the DuckDB face runs the macros: their error
        assert "grade 1024 with the exponential gain" in str(error)
        return
    rows = {row[0]: row[1:] for row in result.rows()}
    assert rows["a"][0] is None and rows["a"][1] is not None
    assert rows["b"][0] is not None


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_evaluate_refuses_a_grade_above_960(engine: str) -> None:
    with pytest.raises(InputError, match=r"grade 1024 .* <= 960"):
        rf.evaluate(HIGH, ["ndcg(gain=exponential)"], engine=engine)


@pytest.mark.parametrize("value", [float("inf"), float("-inf")])
def test_compare_refuses_an_infinite_value(value: float) -> None:
    needs.require("scipy")
    per_query = pl.DataFrame({"system": ["s", "s", "s", "t", "t", "t"],
                              "qid": ["1", "2", "3", "1", "2", "3"],
                              "map": [0.1, value, 0.3, 0.2, 0.3, 0.4]})
    for missing in ("error", "intersect", "zero"):
        with pytest.raises(InputError, match=r"measure 'map' is -?inf for system 's' query '2'"):
            rf.compare(per_query, measures="map", missing=missing)

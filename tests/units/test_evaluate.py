"""evaluate(): the shortcuts taken for a table in (query, rank) order (a sorted flag on the
query key, only the needed columns sent to DuckDB) give the numbers of the plain path,
on generated tables in any row order and straight from judge()."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import rankframe as rf
from rankframe.errors import InputError
from tests.support.strategies import judged_tables

MEASURES = ["ndcg@10", "ndcg", "map", "mrr", "mrr@3", "P@5", "recall@10", "Rprec", "bpref",
            "num_ret", "num_rel_ret", "success@2"]


def plain(judged: pl.DataFrame, engine: str = "polars") -> pl.DataFrame:
    """The lazy path: checks attached to the plan, no sorted flag."""
    return rf.evaluate(judged.lazy(), MEASURES, engine=engine)  # type: ignore[arg-type]


@given(frame=judged_tables(), sorted_on_duckdb=st.booleans())
def test_row_order_does_not_change_the_numbers(frame: pl.DataFrame,
                                               sorted_on_duckdb: bool) -> None:
    """Both orders on Polars, one drawn on DuckDB (binding its macros costs most of a call)."""
    ordered = frame.sort("qid", "rank", nulls_last=True, maintain_order=True)
    expected = plain(frame)
    for candidate in (frame, ordered):
        assert_frame_equal(rf.evaluate(candidate, MEASURES), expected, abs_tol=1e-12)
    on_duckdb = ordered if sorted_on_duckdb else frame
    assert_frame_equal(rf.evaluate(on_duckdb, MEASURES, engine="duckdb"), expected,
                       abs_tol=1e-12)


def test_judged_table_from_judge() -> None:
    run = pl.DataFrame({"qid": ["b", "a", "a", "b", "a"], "docid": ["x", "y", "z", "w", "v"],
                        "score": [1.0, 3.0, 3.0, 2.0, 0.5], "note": [1, 2, 3, 4, 5]})
    qrels = pl.DataFrame({"qid": ["a", "a", "b", "c"], "docid": ["z", "u", "x", "t"],
                          "rel": [2, 1, 1, 1]})
    judged = rf.judge(run, qrels)
    out = rf.evaluate(judged, ["P@2", "mrr", "map", "ndcg@3"])
    assert out["qid"].to_list() == ["a", "b", "c"]
    assert_frame_equal(out, plain_measures(judged, ["P@2", "mrr", "map", "ndcg@3"]))
    con = duckdb.connect()
    assert_frame_equal(rf.evaluate(judged, ["P@2", "mrr"], engine="duckdb", con=con),
                       plain_measures(judged, ["P@2", "mrr"]))
    assert con.execute("SELECT count(*) FROM duckdb_functions() "
                   "WHERE function_name = 'rf_ndcg'").fetchone() == (1,)


def plain_measures(judged: pl.DataFrame, measures: list[str]) -> pl.DataFrame:
    return rf.evaluate(judged.lazy(), measures)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_bad_tables_still_fail_with_the_check_message(engine: str) -> None:
    frame = pl.DataFrame({"qid": ["a", "a"], "rank": [1, 1], "rel": [1, 0]})
    with pytest.raises(InputError, match=r"query 'a' has rank 1 twice \(rows 0 and 1"):
        rf.evaluate(frame, ["P@1"], engine=engine)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="missing column"):
        rf.evaluate(frame.drop("rel"), ["P@1"], engine=engine)  # type: ignore[arg-type]


@pytest.mark.parametrize("query", [["qid"], ["system", "qid"]])
def test_engines_agree_on_keys_dtypes_and_order(query: list[str]) -> None:
    """Same rows, dtypes and row order (sorted by the keys) from both engines."""
    frame = pl.DataFrame({"system": ["A", "A", "B", "B", "B"], "qid": [2, 5, 3, 1, 5],
                          "rank": [1, 1, 1, 1, 2], "rel": [1, 0, 2, None, 1]},
                         schema_overrides={"qid": pl.Int16})
    measures = ["map", "P@1", "num_ret"]
    polars_out = rf.evaluate(frame, measures, query=query)
    assert polars_out.schema == pl.Schema({**{k: frame.schema[k] for k in query},
                                           "map": pl.Float64, "P@1": pl.Float64,
                                           "num_ret": pl.Int64})
    assert_frame_equal(rf.evaluate(frame, measures, query=query, engine="duckdb"), polars_out)
    keys = polars_out.select(query).rows()
    assert keys == sorted(keys)


def test_a_failing_set_up_is_reported_once_by_the_call() -> None:
    """The DuckDB face prepares on a thread while Polars checks the table; a connection that
    cannot be used fails the call itself, not the thread (pytest turns an exception left in
    a thread into an error)."""
    con = duckdb.connect()
    con.close()
    judged = pl.DataFrame({"qid": ["a"], "rank": [1], "rel": [1]})
    with pytest.raises(rf.EngineError, match="closed"):
        rf.evaluate(judged, ["map"], engine="duckdb", con=con)

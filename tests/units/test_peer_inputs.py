"""The peers' in-memory runs and qrels, converted once at the API's boundary
(:mod:`rankframe.peer_inputs`): every form gives the frame's numbers, and a malformed one
one clear error naming the shape expected. No peer library is needed here."""

from __future__ import annotations

from collections import namedtuple

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankframe as rf
from rankframe.errors import InputError

RUN = pl.DataFrame({"qid": ["a", "a", "a", "b", "b"], "docid": ["x", "y", "z", "x", "w"],
                    "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
QRELS = pl.DataFrame({"qid": ["a", "a", "b", "c"], "docid": ["y", "z", "w", "x"],
                      "rel": [1, 2, 1, 1]})
MEASURES = ["map", "ndcg@2", "P@1"]
ScoredDoc = namedtuple("ScoredDoc", ["query_id", "doc_id", "score"])
Qrel = namedtuple("Qrel", ["query_id", "doc_id", "relevance", "iteration"])


def nested(frame: pl.DataFrame, value: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for qid, docid, v in frame.select("qid", "docid", value).iter_rows():
        out.setdefault(qid, {})[docid] = v
    return out


def test_dicts_namedtuples_and_generators_give_the_frames_numbers() -> None:
    want = rf.evaluate_run(RUN, QRELS, MEASURES)
    run_dict, qrels_dict = nested(RUN, "score"), nested(QRELS, "rel")
    run_tuples = [ScoredDoc(*row) for row in RUN.iter_rows()]
    qrels_tuples = (Qrel(*row, "0") for row in QRELS.iter_rows())  # a generator
    assert_frame_equal(rf.evaluate_run(run_dict, qrels_dict, MEASURES), want)
    assert_frame_equal(rf.evaluate_run(run_tuples, qrels_tuples, MEASURES), want)
    assert_frame_equal(rf.evaluate_run(run_dict, QRELS, MEASURES), want)
    assert_frame_equal(rf.judge(run_dict, qrels_dict), rf.judge(RUN, QRELS))
    assert rf.unjudged_run_queries(run_dict, qrels_dict).height == 0
    stacked = rf.evaluate_runs({"one": run_dict}, qrels_dict, MEASURES, all_queries=True)
    assert_frame_equal(stacked.drop("system"), want)


def test_dicts_take_the_callers_column_names() -> None:
    got = rf.evaluate_run(nested(RUN, "score"), nested(QRELS, "rel"), ["map"], query="user",
                          doc="item", score="s", rel="g")
    assert got.columns == ["user", "map"]
    assert got["map"].to_list() == rf.evaluate_run(RUN, QRELS, ["map"])["map"].to_list()


def test_rel_none_reads_a_dicts_pairs_as_relevant() -> None:
    qrels = {"a": {"y": 0, "z": 5}}
    got = rf.evaluate_run(nested(RUN, "score"), qrels, ["num_rel"], rel=None)
    assert got.filter(pl.col("qid") == "a")["num_rel"].to_list() == [2]


def test_arrays_with_indexes_are_rows_of_queries() -> None:
    indexes = [0, 0, 0, 1, 1]
    preds = [0.2, 0.5, 0.3, 0.9, 0.1]
    target = [True, False, True, False, True]
    got = rf.evaluate_run((preds, indexes), (target, indexes), ["P@1", "mrr"])
    assert got.rows() == [(0, 0.0, 0.5), (1, 0.0, 0.5)]
    with pytest.raises(InputError, match="same length"):
        rf.evaluate_run((preds, indexes[:4]), (target, indexes), ["map"])
    with pytest.raises(InputError, match="indexes differ"):
        rf.evaluate_run((preds, indexes), (target, [0, 0, 1, 1, 1]), ["map"])
    with pytest.raises(InputError, match="the other must be too"):
        rf.evaluate_run((preds, indexes), QRELS, ["map"])


def test_empty_dicts() -> None:
    got = rf.evaluate_run({}, nested(QRELS, "rel"), ["P@1"])
    assert got["P@1"].to_list() == [0.0, 0.0, 0.0]
    assert rf.evaluate_run({"a": {}}, {"a": {"y": 1}}, ["P@1"]).rows() == [("a", 0.0)]


@pytest.mark.parametrize(("run", "error", "message"), [
    ({"a": [1, 2]}, TypeError, r"evaluate_run: the run: a dict whose value for 'a' is a list"),
    ({"a": {"x": "high"}}, InputError, r"the run's scores must be numbers, got 'high'"),
    ({"a": {"x": 1.0}, 7: {"y": 1.0}}, InputError, r"the run's query ids mix types"),
    ([("a", "x", 1.0)], TypeError, r"expected a polars DataFrame .* got list"),
    ([Qrel("a", "x", 1, "0")], TypeError, r"expected namedtuples with fields query_id, "
                                          r"doc_id, score \(ir_measures' ScoredDoc\)"),
    (iter([1, 2]), TypeError, r"the run is an iterator of int"),
])
def test_malformed_peer_forms_are_named(run: object, error: type[Exception],
                                        message: str) -> None:
    with pytest.raises(error, match=message):
        rf.evaluate_run(run, QRELS, ["map"])

"""The peers' conventions that differ from rankframe's defaults, each a documented
parameter: which queries are averaged (``all_queries``), TorchMetrics'
``empty_target_action`` (``no_relevant``), ranx's graded RBP (``rbp(graded=true,
max_grade=1, clip=false)``), RecBole's MAP@k (``map(divisor=min)@k``)."""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankframe as rf
from rankframe.errors import InputError
from tests.peers.test_readme_examples import quietly
from tests.support import needs
from tests.support.peers import peer

RUN = {"a": {"x": 3.0, "y": 2.0}, "b": {"x": 1.0}, "d": {"x": 1.0}}
QRELS = {"a": {"y": 1}, "b": {"z": 0}, "c": {"x": 2}}


def test_one_averaging_rule_with_one_parameter() -> None:
    every = rf.evaluate_run(RUN, QRELS, ["P@1", "map"])
    assert every["qid"].to_list() == ["a", "b", "c"]  # every qrels query; d has none
    answered = rf.evaluate_run(RUN, QRELS, ["P@1", "map"], all_queries=False)
    assert answered["qid"].to_list() == ["a", "b"]
    for flag, want in ((True, every), (False, answered)):
        stacked = rf.evaluate_runs({"r": RUN}, QRELS, ["P@1", "map"], all_queries=flag)
        assert_frame_equal(stacked.drop("system"), want)
    assert_frame_equal(rf.evaluate_runs({"r": RUN}, QRELS, ["P@1", "map"]).drop("system"),
                       every)  # the same default


@pytest.mark.parametrize(("action", "rows"), [
    ("keep", [("a", 0.5), ("b", 0.0), ("c", 0.0)]),
    ("neg", [("a", 0.5), ("b", 0.0), ("c", 0.0)]),
    ("pos", [("a", 0.5), ("b", 1.0), ("c", 0.0)]),
    ("skip", [("a", 0.5), ("c", 0.0)]),
])
def test_no_relevant_actions(action: str, rows: list[tuple[str, float]]) -> None:
    got = rf.evaluate_run(RUN, QRELS, ["map"], no_relevant=action)  # type: ignore[arg-type]
    assert got.rows() == rows


def test_no_relevant_error_names_the_query() -> None:
    with pytest.raises(InputError, match=r"query 'b' has no relevant row"):
        rf.evaluate_run(RUN, QRELS, ["map"], no_relevant="error")
    with pytest.raises(ValueError, match="no_relevant must be one of"):
        rf.evaluate_run(RUN, QRELS, ["map"], no_relevant="zero")  # type: ignore[arg-type]


@needs.mark("torchmetrics")
@pytest.mark.parametrize("action", ["neg", "pos", "skip"])
def test_no_relevant_is_torchmetrics_empty_target_action(action: str) -> None:
    retrieval = peer("torchmetrics").retrieval
    import torch

    indexes = torch.tensor([0, 0, 0, 1, 1, 2, 2, 2])
    preds = torch.tensor([0.2, 0.3, 0.5, 0.1, 0.3, 0.5, 0.2, 0.9])
    target = torch.tensor([0, 0, 1, 0, 0, 1, 0, 1])  # query 1: no positive target
    got = rf.summarize(rf.evaluate_run((preds, indexes), (target, indexes), ["map", "ndcg"],
                                       no_relevant=action))  # type: ignore[arg-type]
    for name, metric in (("map", "RetrievalMAP"), ("ndcg", "RetrievalNormalizedDCG")):
        want = quietly(lambda metric=metric: getattr(retrieval, metric)(
            empty_target_action=action)(preds, target, indexes=indexes).item())
        assert got[name].item() == pytest.approx(want, abs=1e-6), (name, action)


def test_ranx_graded_rbp_is_the_grade_as_gain() -> None:
    judged = pl.DataFrame({"qid": ["a"] * 3, "rank": [1, 2, 3], "rel": [3, 0, 2]})
    got = rf.evaluate(judged, ["rbp(graded=true, max_grade=1, clip=false)@0.5",
                               "rbp(graded=true, max_grade=1)@0.5"])
    assert got.row(0)[1:] == (0.5 * (3 + 2 * 0.25), 0.5 * (1 + 1 * 0.25))


def test_recbole_map_at_k_divides_by_min_of_k_and_relevant() -> None:
    judged = pl.DataFrame({"qid": ["a"] * 4, "rank": [1, 2, 3, None],
                           "rel": [1, 0, 1, 1]})
    got = rf.evaluate(judged, ["map(divisor=min)@2", "map@2"])
    assert got.row(0)[1:] == (1.0 / 2, 1.0 / 3)  # RecBole: / min(k, R); trec_eval: / R

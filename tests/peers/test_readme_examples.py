"""Each peer's own README (or documentation) example, run through rankframe from the peer's
own input objects and measure syntax, gives the peer's numbers: the peer's printed numbers,
and the installed peer's on the same inputs (skipped, with what to install, where the peer
is missing; a failure under CI, which installs the ``peers`` extra)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest

import rankframe as rf
from tests.support import needs
from tests.support.peers import peer


def quietly(call: Callable[[], Any]) -> Any:
    """A peer's call, its own warnings (numba's casts, deprecations) not ours to raise."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


# pytrec_eval's README: dicts in, {'map', 'ndcg'} (a set), per-query dicts out.
PYTREC_QREL = {"q1": {"d1": 0, "d2": 1, "d3": 0}, "q2": {"d2": 1, "d3": 1}}
PYTREC_RUN = {"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {"d1": 1.5, "d2": 0.2, "d3": 0.5}}
PYTREC_PRINTED = {"q1": {"ndcg": 0.5, "map": 0.3333333333333333},
                  "q2": {"ndcg": 0.6934264036172708, "map": 0.5833333333333333}}


@needs.mark("pytrec_eval")
def test_pytrec_eval_readme() -> None:
    per_query = rf.evaluate_run(PYTREC_RUN, PYTREC_QREL, {"map", "ndcg"})
    got = {row["qid"]: {"map": row["map"], "ndcg": row["ndcg"]}
           for row in per_query.iter_rows(named=True)}
    for qid, values in PYTREC_PRINTED.items():
        assert got[qid] == pytest.approx(values, abs=1e-12)
    pytrec_eval = peer("pytrec_eval")
    evaluator = pytrec_eval.RelevanceEvaluator(PYTREC_QREL, {"map", "ndcg"})
    assert got == evaluator.evaluate(PYTREC_RUN)  # the very doubles


# ranx's README: Qrels and Run objects, "ndcg@5", ["map@5", "mrr"].
RANX_QRELS = {"q_1": {"d_12": 5, "d_25": 3}, "q_2": {"d_11": 6, "d_22": 1}}
RANX_RUN = {"q_1": {"d_12": 0.9, "d_23": 0.8, "d_25": 0.7, "d_36": 0.6, "d_32": 0.5, "d_35": 0.4},
            "q_2": {"d_12": 0.9, "d_11": 0.8, "d_25": 0.7, "d_36": 0.6, "d_22": 0.5, "d_35": 0.4}}


@needs.mark("ranx")
def test_ranx_readme() -> None:
    ranx = peer("ranx")
    qrels, run = ranx.Qrels(RANX_QRELS), ranx.Run(RANX_RUN)
    summary = rf.summarize(rf.evaluate_run(run, qrels, ["ndcg@5", "map@5", "mrr"]))
    got = summary.row(0, named=True)
    printed = {"ndcg@5": 0.7861, "map@5": 0.6416, "mrr": 0.75}  # ranx's README (cut at 4)
    assert got == pytest.approx(printed, abs=1e-4)
    want = quietly(lambda: ranx.evaluate(qrels, run, ["ndcg@5", "map@5", "mrr"]))
    assert got == pytest.approx(dict(want), abs=1e-12)


# ir_measures' README: its measure objects, dicts or namedtuples in.
@needs.mark("ir_measures")
def test_ir_measures_readme() -> None:
    ir_measures = peer("ir_measures")
    m = ir_measures.measures
    measures = [m.AP, m.nDCG, m.RR, m.nDCG @ 10, m.P(rel=2) @ 10]
    qrels = {"Q0": {"D0": 0, "D1": 1}, "Q1": {"D0": 0, "D3": 2}}
    run = {"Q0": {"D0": 1.2, "D1": 1.0}, "Q1": {"D0": 2.4, "D3": 3.6}}
    printed = {"AP": 0.75, "nDCG": 0.8154648767857288, "RR": 0.75,
               "nDCG@10": 0.8154648767857288, "P(rel=2)@10": 0.05}
    tuples = ([ir_measures.Qrel(q, d, r) for q, docs in qrels.items() for d, r in docs.items()],
              [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()])
    want = {str(k): v for k, v in quietly(
        lambda: ir_measures.calc_aggregate(measures, qrels, run)).items()}
    for qrels_in, run_in in ((qrels, run), tuples):
        got = rf.summarize(rf.evaluate_run(run_in, qrels_in, measures)).row(0, named=True)
        assert got == pytest.approx(printed, abs=1e-12)
        assert got == pytest.approx(want, abs=1e-12)
    per_query = rf.evaluate_run(run, qrels, measures)
    want_rows = {(r.query_id, str(r.measure)): r.value
                 for r in quietly(lambda: list(ir_measures.iter_calc(measures, qrels, run)))}
    got_rows = {(row["qid"], name): value for row in per_query.iter_rows(named=True)
                for name, value in row.items() if name != "qid"}
    assert got_rows == pytest.approx(want_rows, abs=1e-12)


# TorchMetrics' retrieval documentation: (preds, target, indexes) tensors, one metric each.
TORCH_EXAMPLES = [  # metric class, its arguments, rankframe's measure, printed value
    ("RetrievalMAP", {}, "map", 0.7917),
    ("RetrievalMRR", {}, "mrr", 0.75),
    ("RetrievalNormalizedDCG", {}, "ndcg", 0.8467),
    ("RetrievalPrecision", {"top_k": 2}, "P@2", 0.5),
    ("RetrievalRecall", {"top_k": 2}, "recall@2", 0.75),
    ("RetrievalRPrecision", {}, "Rprec", 0.75),
]


@needs.mark("torchmetrics")
@pytest.mark.parametrize(("metric", "kwargs", "measure", "printed"), TORCH_EXAMPLES,
                         ids=[m for m, *_ in TORCH_EXAMPLES])
def test_torchmetrics_retrieval_docs(metric: str, kwargs: dict[str, Any], measure: str,
                                     printed: float) -> None:
    retrieval = peer("torchmetrics").retrieval
    import torch

    indexes = torch.tensor([0, 0, 0, 1, 1, 1, 1])
    preds = torch.tensor([0.2, 0.3, 0.5, 0.1, 0.3, 0.5, 0.2])
    target = torch.tensor([False, False, True, False, True, False, True])
    got = rf.summarize(rf.evaluate_run((preds, indexes), (target, indexes), measure))
    assert round(got[measure].item(), 4) == printed
    want = quietly(lambda: getattr(retrieval, metric)(**kwargs)(preds, target,
                                                                  indexes=indexes).item())
    assert got[measure].item() == pytest.approx(want, abs=1e-6)  # float32 tensors


@needs.mark("torchmetrics")
def test_torchmetrics_hit_rate_docs() -> None:
    retrieval = peer("torchmetrics").retrieval
    import torch

    indexes = torch.tensor([0, 0, 0, 1, 1, 1, 1])
    preds = torch.tensor([0.2, 0.3, 0.5, 0.1, 0.3, 0.5, 0.2])
    target = torch.tensor([True, False, False, False, True, False, True])
    got = rf.summarize(rf.evaluate_run((preds, indexes), (target, indexes), "success@2"))
    want = quietly(lambda: retrieval.RetrievalHitRate(top_k=2)(preds, target, indexes=indexes))
    assert got["success@2"].item() == 0.5 == pytest.approx(want.item())

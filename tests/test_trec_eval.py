"""judge() + evaluate() reproduce trec_eval (pytrec_eval, trec_eval 9.x) query by query.

pytrec_eval evaluates the queries that are in the run and in the qrels, so the comparison
covers exactly those; rankframe's extra qrels-only queries are checked to score 0.
"""

from __future__ import annotations

import math

import duckdb
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankframe as rf
from tests.trec_data import TrecCase, trec_cases

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTOFFS = (1, 3, 5, 10, 20)
ELEVEN = tuple(i / 10 for i in range(11))
LEVELS = (*ELEVEN, 0.05, 0.25, 0.55)
PYTREC_MEASURES = {
    f"P.{','.join(map(str, CUTOFFS))}", f"recall.{','.join(map(str, CUTOFFS))}",
    f"map_cut.{','.join(map(str, CUTOFFS))}", f"ndcg_cut.{','.join(map(str, CUTOFFS))}",
    "success.1,5,10", "map", "ndcg", "recip_rank", "Rprec", "bpref", "num_ret", "num_rel",
    "num_rel_ret", f"iprec_at_recall.{','.join(map(str, LEVELS))}", "set_P", "set_recall",
    "set_F", "11pt_avg",
}
# trec_eval's printed name -> rankframe measure string (trec names parse directly, except
# iprec, whose trec_eval 9 recall-level rounding is a parameter).
LABELS = {
    **{f"{m}_{k}": f"{m}_{k}" for m in ("P", "recall", "map_cut", "ndcg_cut") for k in CUTOFFS},
    **{f"success_{k}": f"success_{k}" for k in (1, 5, 10)},
    **{n: n for n in ("map", "ndcg", "recip_rank", "Rprec", "bpref", "num_ret", "num_rel",
                      "num_rel_ret", "set_P", "set_recall", "set_F")},
    **{f"iprec_at_recall_{x:.2f}": f"iprec(rounding=trec_eval9)@{x}" for x in LEVELS},
}


def pytrec(case: TrecCase, level: int) -> dict[str, dict[str, float]]:
    # pytrec_eval-terrier 0.5.x segfaults when bpref shares an evaluator with other
    # measures on a query whose only judgments are negative; so bpref gets its own.
    out: dict[str, dict[str, float]] = {}
    for measures in (PYTREC_MEASURES - {"bpref"}, {"bpref"}):
        evaluator = pytrec_eval.RelevanceEvaluator(case.qrels, measures, relevance_level=level)
        for qid, values in evaluator.evaluate(case.run).items():
            out.setdefault(qid, {}).update(values)
    return out


def rankframe_values(case: TrecCase, level: int, engine: str,
                     con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    judged = rf.judge(case.run_frame(), case.qrels_frame())
    per_query = rf.evaluate(judged, list(LABELS.values()), engine=engine,  # type: ignore[arg-type]
                            threshold=level, con=con)
    return per_query.rename({v: k for k, v in LABELS.items()})


@given(case=trec_cases(), level=st.sampled_from([1, 1, 2]),
       engine=st.sampled_from(["polars", "duckdb"]))
def test_per_query_values_equal_pytrec_eval(case: TrecCase, level: int, engine: str,
                                            con: duckdb.DuckDBPyConnection) -> None:
    expected = pytrec(case, level)
    ours = {row["qid"]: row for row in rankframe_values(case, level, engine, con).to_dicts()}
    both = set(case.run) & set(case.qrels)
    assert set(expected) == both
    assert set(ours) == set(case.qrels), "every qrels query is kept, nothing else"
    for qid in both:
        for name, value in expected[qid].items():
            if name == "11pt_avg":
                mine = sum(ours[qid][f"iprec_at_recall_{x:.2f}"] for x in ELEVEN) / 11
            else:
                mine = ours[qid][name]
            assert mine == pytest.approx(value, abs=1e-9), (qid, name)
    for qid in set(case.qrels) - set(case.run):
        row = ours[qid]
        assert all(row[n] == 0 for n in LABELS if n != "num_rel"), row
        relevant = sum(1 for g in case.qrels[qid].values() if g >= level)
        assert row["num_rel"] == relevant


def test_ndcg_uses_graded_gains_and_unretrieved_ideal() -> None:
    case = TrecCase(run={"q": {"a": 3.0, "b": 2.0, "c": 1.0}},
                    qrels={"q": {"a": 0, "b": 2, "c": 1, "z": 3}})
    expected = pytrec(case, 1)["q"]["ndcg"]
    judged = rf.judge(case.run_frame(), case.qrels_frame())
    ours = rf.evaluate(judged, ["ndcg"])["ndcg"][0]
    assert math.isclose(ours, expected, abs_tol=1e-12)

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
from rankframe import trec_eval
from rankframe.errors import RankframeError
from tests.support import needs
from tests.support.trec_data import TrecCase, trec_cases

pytrec_eval = needs.load("pytrec_eval")

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


# --------------------------------------------------------------------------- rankframe.trec_eval


def test_measure_strings_for_printed_names() -> None:
    selected = trec_eval.select(["P.5", "ndcg_cut.10", "map_cut.5", "recip_rank", "num_ret",
                                 "rbp", "set_F.0.5", "iprec_at_recall.0.1", "runid"])
    assert trec_eval.measure_strings(selected) == {
        "num_ret": "num_ret", "recip_rank": "recip_rank",
        "iprec_at_recall_0.10": "iprec_at_recall_0.10", "P_5": "P_5",
        "ndcg_cut_10": "ndcg_cut_10", "map_cut_5": "map_cut_5", "set_F_0.5": "set_F@0.5",
        "rbp": "rbp_graded@0.9",
    }
    nine = trec_eval.measure_strings(trec_eval.select(["11pt_avg"]), trec_eval9=True)
    assert list(nine) == list(trec_eval.ELEVEN_POINTS)
    assert nine["iprec_at_recall_0.50"] == "iprec(rounding=trec_eval9)@0.50"
    ties = trec_eval.measure_strings(trec_eval.select(["P.5", "ndcg", "ndcg_cut.10",
                                                      "map_cut.5", "recip_rank", "num_rel"]),
                                     ties="average")
    assert ties == {"num_rel": "num_rel", "recip_rank": "mrr_ties", "P_5": "P_ties@5",
                    "ndcg": "ndcg_ties", "ndcg_cut_10": "ndcg_ties@10",
                    "map_cut_5": "map_ties@5"}
    with pytest.raises(RankframeError, match="bpref has no tie-aware form; those with one: map"):
        trec_eval.measure_strings(trec_eval.select(["bpref"]), ties="average")


def test_summaries_as_trec_eval_computes_them() -> None:
    by_name = {m.name: m for m in trec_eval.TREC_MEASURES}
    tenths = [0.1] * 10
    # left to right: 0.1 added ten times is 0.9999999999999999, not fsum's 1.0
    assert trec_eval.summary(by_name["map"], tenths) == 0.9999999999999999 / 10
    assert trec_eval.summary(by_name["map"], tenths) != math.fsum(tenths) / 10
    assert trec_eval.summary(by_name["num_ret"], [3, 4]) == 7
    assert isinstance(trec_eval.summary(by_name["num_ret"], [3, 4]), int)
    gm = trec_eval.summary(by_name["gm_map"], [0.0, 1.0])  # 0 floored at 1e-5
    assert gm == pytest.approx(math.sqrt(trec_eval.GEOMETRIC_MEAN_FLOOR), rel=1e-12)


def test_lines_order_11pt_avg_and_format() -> None:
    selected = trec_eval.select(["P.5", "map", "num_ret", "gm_map", "runid", "num_q",
                                 "11pt_avg"])
    eleven = {name: [0.5, 0.0] for name in trec_eval.ELEVEN_POINTS}
    per_query = pl.DataFrame({"qid": ["b", "a"], "num_ret": [3, 4], "map": [0.5, 0.25],
                              "gm_map": [0.5, 0.25], "P_5": [0.2, 0.4], **eleven})
    lines = trec_eval.lines(per_query, selected, "sys", per_query_lines=True)
    assert [(line.name, line.query) for line in lines] == [
        *[(n, q) for q in ("b", "a") for n in ("num_ret", "map", "P_5", "11pt_avg")],
        *[(n, "all") for n in ("runid", "num_q", "num_ret", "map", "gm_map", "P_5",
                               "11pt_avg")],
    ]
    text = [trec_eval.format_line(line) for line in lines]
    assert text[0] == "num_ret               \tb\t3"
    assert text[3] == "11pt_avg              \tb\t0.5000"
    assert text[8] == "runid                 \tall\tsys"
    assert text[9] == "num_q                 \tall\t2"
    assert text[-1] == "11pt_avg              \tall\t0.2500"
    assert [line.name for line in trec_eval.lines(per_query, selected, "sys",
                                                  summaries=False)] == []


def test_query_selection() -> None:
    run = pl.DataFrame({"qid": ["q1", "q1", "q3"], "docid": ["a", "b", "c"],
                        "score": [2.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["q1", "q2"], "docid": ["a", "z"], "rel": [1, 1]})
    judged = rf.judge(run, qrels)  # q1 and q2 (qrels only); q3 has no qrels
    assert trec_eval.unjudged_count(run, qrels) == 1
    kept = trec_eval.select_queries(judged, run, complete=False)
    assert kept["qid"].unique().to_list() == ["q1"]
    everything = trec_eval.select_queries(judged, run, complete=True)
    assert sorted(everything["qid"].unique().to_list()) == ["q1", "q2"]
    with pytest.raises(RankframeError, match=r"^run x: no queries with both"):
        trec_eval.select_queries(judged, run.filter(pl.col("qid") == "q3"), complete=False,
                                 name="run x")
    assert trec_eval.unjudged_note(1) == "1 run query has no qrels and was not evaluated"
    assert trec_eval.unjudged_note(3, "run r") == \
        "run r: 3 run queries have no qrels and were not evaluated"


def test_all_trec_is_trec_eval_set_and_all_adds_rankframe_measures() -> None:
    # yaap, dcg, ideal_dcg: trec_eval's, outside its all_trec
    ours = {"err", "err_cut", "judged", "ndcg_p", "yaap", "dcg", "ideal_dcg"}
    assert not ours & set(trec_eval.NICKNAMES["all_trec"])
    assert set(trec_eval.NICKNAMES["all"]) == set(trec_eval.NICKNAMES["all_trec"]) | ours
    assert [m.name for m, _ in trec_eval.select(["all"])][-3:] == ["err", "err_cut", "judged"]


def test_specs_expand_and_map_back() -> None:
    assert trec_eval.expand(" P.10,5") == ["P_5", "P_10"]
    assert trec_eval.expand("set_F.0.5") == ["set_F_0.5"]
    for spec in ("ndcg_cut.10", "P", "all_trec", "infAP", "rbp.0.5"):
        assert trec_eval.is_spec(spec), spec
    for string in ("ndcg@10", "iprec@0.5", "mrr@10", "p", "map(threshold=1.5)"):
        assert not trec_eval.is_spec(string), string
    names = [n for m, params in trec_eval.select(["all"]) for n in m.names(params)]
    for name in names:
        assert trec_eval.expand(trec_eval.spec_of(name)) == [name], name
    with pytest.raises(RankframeError, match="not a printed"):
        trec_eval.spec_of("ndcg@10")
    assert trec_eval.select([]) == []
    extra = trec_eval.rankframe_measure("mrr@10", "mean")
    assert extra.names(None) == ["mrr@10"] and extra.summary == "mean" and not extra.trec

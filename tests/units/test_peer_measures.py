"""The peers' measure syntax read by rankframe's grammar: ir_measures' names and parameters,
lists of cutoffs for every measure, pytrec_eval's sets of measures, and one short "did you
mean" for the API, the command line and ``-h -m``."""

from __future__ import annotations

import polars as pl
import pytest

import rankframe as rf
from rankframe.cli import main
from rankframe.errors import MeasureError
from rankframe.measures import canonical, expand, parse, split_cutoffs

JUDGED = pl.DataFrame({"qid": ["a"] * 4 + ["b"] * 3, "rank": [1, 2, 3, 4, 1, 2, 3],
                       "rel": [0, 2, 1, None, 1, 0, 3]})


@pytest.mark.parametrize(("peer", "ours"), [
    ("nDCG@10", "ndcg@10"), ("NDCG@10", "ndcg@10"), ("AP", "map"), ("MAP@5", "map@5"),
    ("RR", "mrr"), ("RR@10", "mrr@10"), ("P(rel=2)@5", "P(threshold=2)@5"),
    ("AP(rel=2)", "map(threshold=2)"), ("R@10", "recall@10"), ("Recall@10", "recall@10"),
    ("Success@1", "success@1"), ("Judged@10", "judged@10"), ("Rprec", "Rprec"),
    ("RPrec", "Rprec"), ("BPref", "bpref"), ("Bpref", "bpref"), ("infAP", "infAP"),
    ("IPrec@0.5", "iprec@0.5"), ("nDCG(dcg=exp-log2)@10", "ndcg(gain=exponential)@10"),
    ("nDCG(dcg=log2)", "ndcg(gain=linear)"), ("nDCG(gains={0:0,1:1,2:3})@5",
                                              "ndcg(gains=0:0;1:1;2:3)@5"),
    ("P(cutoff=5)", "P@5"), ("SetP", "set_P"), ("SetR", "set_recall"), ("SetF", "set_F"),
    ("SetAP", "set_map"), ("SetP(relative=True)", "set_relative_P"), ("NumRel", "num_rel"),
    ("NumRet", "num_ret"), ("NumRet(rel=1)", "num_rel_ret(threshold=1)"),
    ("NumRelRet", "num_rel_ret"),
    ("ERR@20", "err@20"), ("RBP(p=0.5)", "rbp@0.5"),
])
def test_ir_measures_names_and_parameters(peer: str, ours: str) -> None:
    got, want = parse(peer), parse(ours)
    assert (got.metric, got.values, got.summary) == (want.metric, want.values, want.summary)
    assert got.label == peer  # the column is named as written


def test_ir_measures_judged_only_points_to_the_evaluation_option() -> None:
    with pytest.raises(MeasureError, match=r"judged_only=True"):
        parse("AP(judged_only=True)")
    assert parse("AP(judged_only=False)").values == parse("map").values


def test_ir_measures_measure_objects_are_read_as_their_strings() -> None:
    ir_measures = pytest.importorskip("ir_measures", reason="pip install ir-measures")
    measures = [ir_measures.nDCG @ 10, ir_measures.P(rel=2) @ 5, ir_measures.AP]
    got = rf.evaluate(JUDGED, measures)
    assert got.columns == ["qid", "nDCG@10", "P(rel=2)@5", "AP"]
    assert got.rows() == rf.evaluate(JUDGED, ["ndcg@10", "P(threshold=2)@5", "map"]).rows()
    assert rf.evaluate(JUDGED, ir_measures.nDCG @ 10).columns == ["qid", "nDCG@10"]


@pytest.mark.parametrize(("label", "labels"), [
    ("ndcg@5,10", ["ndcg@5", "ndcg@10"]), ("P@[1,5,10]", ["P@1", "P@5", "P@10"]),
    ("AP@[5, 10]", ["AP@5", "AP@10"]), ("P(rel=2)@[5,10]", ["P(rel=2)@5", "P(rel=2)@10"]),
    ("iprec@0.2,0.5", ["iprec@0.2", "iprec@0.5"]), ("mrr@[10]", ["mrr@10"]),
    ("map", ["map"]), ("ndcg(gain=exponential)@10", ["ndcg(gain=exponential)@10"]),
])
def test_cutoff_lists_for_every_measure(label: str, labels: list[str]) -> None:
    assert split_cutoffs(label) == labels
    assert expand([label]) == labels
    assert rf.evaluate(JUDGED, [label]).columns == ["qid", *labels]


@pytest.mark.parametrize("label", ["ndcg@5,,10", "ndcg@[]", "ndcg@[5,]"])
def test_a_broken_cutoff_list_is_named(label: str) -> None:
    with pytest.raises(MeasureError, match="a list of cutoffs is @5,10 or @"):
        rf.evaluate(JUDGED, [label])


def test_pytrec_eval_sets_of_measures_are_evaluated_in_a_fixed_order() -> None:
    got = rf.evaluate(JUDGED, {"ndcg", "map", "P.5,1"})
    assert got.columns == ["qid", "P_1", "P_5", "map", "ndcg"]


@pytest.mark.parametrize(("label", "guess"), [
    ("ndgc@10", "ndcg@10"), ("p.5", "P.5"), ("ndcg_cut_10@3", "ndcg@3"), ("mapp", "map"),
    ("NDCG_CUT.5", "ndcg_cut.5"),
])
def test_the_api_gets_the_short_did_you_mean(label: str, guess: str) -> None:
    with pytest.raises(MeasureError) as caught:
        rf.evaluate(JUDGED, [label])
    message = str(caught.value)
    assert message.startswith(f"unknown measure {label!r}; did you mean ")
    suggested = message.partition("did you mean ")[2].partition("?")[0].split(", ")
    assert guess in suggested and len(suggested) <= 4, message
    assert len(message) < 400, message


def test_cutoffs_after_at_are_ascii_digits() -> None:
    for label in ("ndcg@\u0663", "ndcg@1_0", "P@\uff15"):
        with pytest.raises(MeasureError, match="expected a positive integer cutoff"):
            parse(label)


def test_canonical_spells_peer_forms_as_rankframe_does() -> None:
    assert canonical("nDCG@10") == "ndcg@10"
    assert canonical("P(rel=2)@5") == "P(threshold=2)@5"


@pytest.mark.parametrize(("spec", "first"), [
    ("P@10", "P@10 (trec_eval's P_10)\n"), ("mrr", "mrr (trec_eval's recip_rank)\n"),
    ("nDCG@10", "nDCG@10 (trec_eval's ndcg_cut_10)\n"), ("mrr@10", "mrr@10\n"),
    ("map", "map\n"),
])
def test_help_describes_measure_strings(spec: str, first: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "-h", "-m", spec]) == 0
    out = capsys.readouterr().out
    assert out.startswith(first) and len(out.splitlines()) >= 2, out


def test_help_describes_each_cutoff_of_a_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "-h", "-m", "ndcg@5,10"]) == 0
    out = capsys.readouterr().out
    assert "ndcg@5 (trec_eval's ndcg_cut_5)" in out and "ndcg@10 (trec_eval's ndcg_cut_10)" in out

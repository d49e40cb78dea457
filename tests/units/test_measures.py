"""Measure strings: rankframe's grammar and trec_eval's names resolve to the right metric
and parameters, bad strings are refused with the valid options, and evaluate() computes
each on both engines with the values of the metric's own expression."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import rankframe as rf
from rankframe.errors import MeasureError
from rankframe.faces.polars.face import expression
from rankframe.measures import canonical, expand, parse, trec_eval_name
from rankframe.registry import METRICS
from rankframe.trec_eval import (
    CUTOFF_NAMES,
    PRINTED_NAMES,
    TREC_MEASURES,
    measure_strings,
    select,
)

CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("ndcg@10", "ndcg", {"k": 10}),
    ("nDCG@10", "ndcg", {"k": 10}),
    ("ndcg_cut_10", "ndcg", {"k": 10}),
    ("ndcg_exp@5", "ndcg", {"k": 5, "gain": "exponential"}),
    ("ndcg(gain=exponential,ideal=retrieved)@3", "ndcg",
     {"k": 3, "gain": "exponential", "ideal": "retrieved"}),
    ("P@10", "precision", {"k": 10, "threshold": 1}),
    ("P_5", "precision", {"k": 5, "threshold": 1}),
    ("set_P", "precision", {"k": None, "threshold": 1}),
    ("P(divisor=min)@10", "precision", {"k": 10, "divisor": "min", "threshold": 1}),
    ("recall@100", "recall", {"k": 100, "threshold": 1}),
    ("recall_100", "recall", {"k": 100, "threshold": 1}),
    ("map", "average_precision", {"k": None, "threshold": 1}),
    ("map@100", "average_precision", {"k": 100, "threshold": 1}),
    ("map_cut_100", "average_precision", {"k": 100, "threshold": 1}),
    ("gm_map", "average_precision", {"k": None, "threshold": 1}),
    ("mrr", "reciprocal_rank", {"k": None, "threshold": 1}),
    ("mrr@10", "reciprocal_rank", {"k": 10, "threshold": 1}),
    ("recip_rank", "reciprocal_rank", {"k": None, "threshold": 1}),
    ("Rprec", "r_precision", {"threshold": 1}),
    ("bpref", "bpref", {"threshold": 1}),
    ("success_5", "hit_rate", {"k": 5, "threshold": 1}),
    ("iprec_at_recall_0.10", "iprec_at_recall", {"recall": 0.1, "threshold": 1}),
    ("iprec(rounding=trec_eval9)@0.5", "iprec_at_recall",
     {"recall": 0.5, "rounding": "trec_eval9", "threshold": 1}),
    ("num_ret", "num_ret", {"k": None}),
    ("rbp@0.9", "rbp", {"p": 0.9, "threshold": 1}),
    ("rbp_graded@0.8", "rbp", {"p": 0.8, "graded": True, "threshold": 1}),
    ("rbp_0.5", "rbp", {"p": 0.5, "graded": True, "threshold": 1}),  # trec_eval 10's rbp
    ("rbp_residual@0.8", "rbp_residual", {"p": 0.8}),
    ("err@20", "err", {"k": 20}),
    ("err_cut_20", "err", {"k": 20}),
    ("judged@10", "judged", {"k": 10}),
    ("set_F", "f1", {"k": None, "threshold": 1}),
    ("set_F_0.25", "f1", {"k": None, "recall_weight": 0.25, "threshold": 1}),
    ("set_F@4", "f1", {"k": None, "recall_weight": 4.0, "threshold": 1}),
    ("set_F@0.5", "f1", {"k": None, "recall_weight": 0.5, "threshold": 1}),
    ("f1(beta=2)@5", "f1", {"k": 5, "beta": 2, "threshold": 1}),
    ("P_ties@10", "precision_ties", {"k": 10, "threshold": 1}),
    ("map_ties", "average_precision_ties", {"k": None, "threshold": 1}),
]


@pytest.mark.parametrize(("text", "metric", "values"), CASES, ids=[c[0] for c in CASES])
def test_parse(text: str, metric: str, values: dict[str, Any]) -> None:
    measure = parse(text, threshold=1)
    assert measure.metric.name == metric
    assert measure.values == values


@pytest.mark.parametrize(("text", "named"), [
    ("nonsense", "unknown measure"), ("P@0", "cutoff"), ("P@x", "cutoff"),
    ("bpref@10", "takes no cutoff"), ("ndcg(foo=1)@3", "accepts: gain, gains, ideal"),
    ("ndcg(gain=log)@3", "'linear', 'exponential'"), ("iprec", "recall level"),
    ("rbp@1.5", "p"),
])
def test_bad_measure_strings(text: str, named: str) -> None:
    with pytest.raises(MeasureError, match=named):
        parse(text)


def test_summary_kind() -> None:
    assert parse("gm_map").summary == "gmean"
    assert parse("num_rel").summary == "sum"
    assert parse("map").summary == "mean"


JUDGED = pl.DataFrame({
    "qid": ["a"] * 6 + ["b"] * 3 + ["c"],
    "rank": [1, 2, 3, 4, 5, None, 1, 2, 3, None],
    "rel": [2, None, 0, 1, -1, 3, 0, 0, 1, 1],
    "score": [5.0, 4.0, 4.0, 4.0, 1.0, None, 2.0, 2.0, 1.0, None],
})


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_evaluate_matches_the_expressions(engine: str) -> None:
    labels = [c[0] for c in CASES if "ties" not in c[0]]
    got = rf.evaluate(JUDGED, labels, engine=engine)  # type: ignore[arg-type]
    assert got.columns == ["qid", *labels]
    for label in labels:
        m = parse(label, threshold=1)
        expected = JUDGED.group_by("qid").agg(
            expression(m.metric, {"rel": "rel", "rank": "rank"}, m.values).alias("v")
        ).sort("qid")["v"]
        assert got[label].to_list() == pytest.approx(expected.to_list(), abs=1e-12), label


def test_tie_aware_measures_need_judge_ties() -> None:
    run = pl.DataFrame({"qid": ["q"] * 3, "docid": ["x", "y", "z"], "score": [1.0, 1.0, 0.0]})
    qrels = pl.DataFrame({"qid": ["q", "q"], "docid": ["x", "z"], "rel": [1, 1]})
    judged = rf.judge(run, qrels, ties="average")
    for engine in ("polars", "duckdb"):
        got = rf.evaluate(judged, ["P@1", "P_ties@1", "mrr_ties"], engine=engine)  # type: ignore[arg-type]
        # docid order puts y (unjudged) first; over both orders P@1 is 1/2, RR is 3/4.
        assert got.row(0) == ("q", 0.0, 0.5, 0.75)


def test_trec_select_order_and_union() -> None:
    chosen = select(["map", "P.10", "P.5", "ndcg_cut.10", "rbp", "rbp.0.5"])
    names = [n for m, params in chosen for n in m.names(params)]
    assert names == ["map", "P_5", "P_10", "ndcg_cut_10", "rbp_0.5", "rbp_0.9"]
    pair = select(["rbp.p=0.80", "rbp_resid.p=0.5"])
    assert [n for m, params in pair for n in m.names(params)] == ["rbp_p=0.80",
                                                                  "rbp_resid_p=0.5"]
    with pytest.raises(MeasureError, match="only p=VALUE"):
        select(["rbp.1=0.5"])
    assert [m.names(p) for m, p in select(["ideal_dcg.1=3,2=9"])] == [["ideal_dcg_1=3,2=9"]]
    with pytest.raises(MeasureError, match="duplicate"):
        select(["P.5,5"])


@pytest.mark.parametrize("trec", [m for m in TREC_MEASURES if m.measure is not None],
                         ids=lambda m: m.name)
def test_printed_trec_eval_names_parse_from_the_one_table(trec: Any) -> None:
    """Every name trec_eval prints for a measure (default parameters, and one given) parses
    as a measure string, to the metric the command line computes it with."""
    params = ([None, (3,) if trec.kind in ("cut_int", "relstring") else (0.5,)] if trec.defaults
              else [None])
    for chosen in params:
        strings = measure_strings([(trec, chosen)])
        for name in trec.names(chosen):
            assert parse(name).metric.name == parse(strings[name]).metric.name, name
    table = CUTOFF_NAMES if trec.defaults else PRINTED_NAMES
    assert table[trec.name] == trec.measure


def test_names_without_a_single_measure_do_not_parse() -> None:
    for name in ("11pt_avg", "runid", "num_q", "map_cut", "ndcg_cut"):
        with pytest.raises(MeasureError, match="unknown measure"):
            parse(name)


@pytest.mark.parametrize(("text", "trec", "canon"), [
    ("ndcg@10", "ndcg_cut_10", "ndcg@10"),
    ("P@10", "P_10", "P@10"),
    ("precision@10", "P_10", "P@10"),
    ("map", "map", "map"),
    ("average_precision@100", "map_cut_100", "map@100"),
    ("gm_map", "gm_map", "gm_map"),
    ("p", "set_P", "P"),
    ("rr", "recip_rank", "mrr"),
    ("mrr@10", None, "mrr@10"),
    ("hit_rate@5", "success_5", "success@5"),
    ("iprec@0.5", "iprec_at_recall_0.50", "iprec@0.5"),
    ("iprec@0.125", None, "iprec@0.125"),
    ("rbp@0.5", None, "rbp@0.5"),  # binary: not trec_eval 10's rbp
    ("rbp_graded@0.5", "rbp_0.5", "rbp_graded@0.5"),
    ("set_F@0.5", "set_F_0.5", "set_F@0.5"),
    ("err@20", "err_cut_20", "err@20"),
    ("ndcg(gain=exponential)@10", None, "ndcg(gain=exponential)@10"),
    ("P( threshold = 2 )@010", None, "P(threshold=2)@10"),
    ("dcg@10", None, "dcg@10"),
])
def test_trec_eval_name_and_canonical(text: str, trec: str | None, canon: str) -> None:
    assert trec_eval_name(text) == trec
    assert canonical(text) == canon
    if trec is not None:  # the two forms are one measure
        assert canonical(trec) == canon


@pytest.mark.parametrize(("expr", "name"), [
    (rf.average_precision("rel"), "map"),
    (rf.average_precision("rel", 100), "map@100"),
    (rf.reciprocal_rank("rel", 10), "mrr@10"),
    (rf.hit_rate("rel", 5), "success@5"),
    (rf.iprec_at_recall("rel", 0.5), "iprec@0.5"),
    (rf.r_precision("rel"), "rprec"),
    (rf.precision("rel", 10), "P@10"),
    (rf.precision_ties("rel", 10), "P_ties@10"),
    (rf.average_precision_ties("rel"), "map_ties"),
    (rf.ndcg("rel", 10, gain="exponential"), "ndcg@10"),
    (rf.kendall_tau("x", y="y"), "kendall_tau"),
])
def test_a_builders_default_name_is_its_canonical_string(expr: pl.Expr, name: str) -> None:
    assert expr.meta.output_name() == name


@pytest.mark.parametrize("metric", sorted(METRICS))
def test_every_builders_default_name_is_canonical(metric: str) -> None:
    spec = METRICS[metric]
    sample = {"k": 7, "recall": 0.25, "multiple": 0.4}
    values = {p.name: sample[p.name] for p in spec.required}
    sizes = {p.name: 5 for p in spec.optional if p.kind == "size"}  # evaluate fills them
    args, kwargs = spec.arguments({c: c for c in spec.columns}, values | sizes)
    text = metric + "".join(f"@{v}" for v in values.values())
    try:
        expected = canonical(text)
    except MeasureError:  # no measure string (rank correlations, rbo)
        expected = text
    assert getattr(rf, metric)(*args, **kwargs).meta.output_name() == expected


def test_every_printed_name_round_trips() -> None:
    """Each name ``-m all`` prints that is a measure string maps to its rankframe form and
    back to itself (the one mapping, both ways)."""
    names = [n for m, params in select(["all"]) if m.measure is not None
             for n in m.names(params)]
    assert len(names) > 40
    for name in names:
        if name in ("rbp", "rbp_resid"):  # the bare names stay rankframe's (p = 0.8)
            assert trec_eval_name(canonical(name)) is None, name
            continue
        assert trec_eval_name(canonical(name)) == name, name
        assert parse(canonical(name)).values == parse(name).values, name


def test_evaluate_takes_trec_eval_forms() -> None:
    """``evaluate`` reads trec_eval's ``-m`` forms; ``P.5,10`` makes a column per cutoff,
    under trec_eval's printed names."""
    got = rf.evaluate(JUDGED, ["ndcg_cut.10", "P.5,1", "map"])
    assert got.columns == ["qid", "ndcg_cut_10", "P_1", "P_5", "map"]
    same = rf.evaluate(JUDGED, ["ndcg@10", "P@1", "P@5", "map"])
    assert got.rows() == same.rows()
    assert expand(["iprec@0.5", "map(threshold=1.5)", "set_F.0.5"]) == [
        "iprec@0.5", "map(threshold=1.5)", "set_F_0.5"]
    with pytest.raises(MeasureError, match="integer cutoffs"):
        rf.evaluate(JUDGED, ["P.x"])
    with pytest.raises(MeasureError, match="twice"):
        rf.evaluate(JUDGED, ["P.5", "P_5"])

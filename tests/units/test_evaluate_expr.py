"""``rf.evaluate_expr``, many measures sharing one gather and one rank check, against the
builders it shares its work for: the very same doubles, NULL for the same groups, in
eager and lazy group-bys and in ``select``."""

from __future__ import annotations

import math
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankframe as rf
from rankframe.errors import InputError
from rankframe.faces.polars.face import expression
from rankframe.measures import parse_all
from tests.support.faces import examples
from tests.support.strategies import judged_tables

#: Measures of every family reading (rel, rank): positive-rows measures alone (the cut
#: applies), then with others (it does not).
POSITIVE_ONLY = ["ndcg@10", "map", "P@10", "mrr", "recall@100", "ndcg", "dcg@5",
                 "ndcg(gain=exponential)@5", "idcg@3", "cg@4", "Rprec", "map@5",
                 "map(divisor=min)@3", "map(divisor=found)@4", "cg(gain=exponential)",
                 "idcg(ideal=retrieved)@4", "dcg(gains=1:3;2:9)@5"]
OTHERS = ["bpref", "num_ret", "infAP", "rbp@0.8", "err@5", "judged@10", "relstring@5",
          "P(divisor=min)@5", "rbp_residual@0.5", "f1@5", "utility", "ndcg_rel", "rndcg",
          "ndcg(gains=0:1;2:9)@3"]
ALL = POSITIVE_ONLY + OTHERS


def builders(measures: list[str]) -> list[pl.Expr]:
    """Each measure's guarded builder, as a user writes them one by one."""
    columns = {"rel": "rel", "rank": "rank"}
    return [expression(m.metric, columns, m.values).alias(m.label)
            for m in parse_all(measures)]


def same(a: Any, b: Any) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, float)
                      and math.isnan(a) and math.isnan(b))


def assert_equal(got: pl.DataFrame, want: pl.DataFrame) -> None:
    assert got.columns == want.columns
    for a, b in zip(got.iter_rows(), want.iter_rows(), strict=True):
        assert all(same(x, y) for x, y in zip(a, b, strict=True)), (a, b)


def with_invalid_groups(table: pl.DataFrame) -> pl.DataFrame:
    """``table`` and three queries whose ranks the guard refuses: repeated, 0, below 0."""
    bad = pl.DataFrame({"qid": ["dup", "dup", "zero", "zero", "neg"],
                        "rel": [1.0, 2.0, 1.0, 0.0, 3.0], "rank": [1, 1, 0, 1, -4000]},
                       schema=table.schema)
    return pl.concat([table, bad])


@settings(max_examples=examples(share=0.5), deadline=None)
@given(table=judged_tables(max_queries=6), measures=st.sampled_from([POSITIVE_ONLY, ALL]),
       seed=st.integers(0, 2**16))
def test_the_builders_values_in_a_group_by(table: pl.DataFrame, measures: list[str],
                                           seed: int) -> None:
    table = with_invalid_groups(table).sample(fraction=1.0, shuffle=True, seed=seed)
    want = table.group_by("qid").agg(builders(measures)).sort("qid")
    got = table.group_by("qid").agg(rf.evaluate_expr(measures)).unnest("measures")
    assert_equal(got.sort("qid"), want)
    lazy = table.lazy().group_by("qid").agg(rf.evaluate_expr(measures)).collect()
    assert_equal(lazy.unnest("measures").sort("qid"), want)
    assert got.filter(pl.col("qid").is_in(["dup", "zero", "neg"])).drop("qid").null_count(
    ).row(0) == (3,) * len(measures)


@settings(max_examples=examples(share=0.25), deadline=None)
@given(table=judged_tables(max_queries=1))
def test_a_single_query_in_select(table: pl.DataFrame) -> None:
    want = table.select(builders(ALL))
    assert_equal(table.select(rf.evaluate_expr(ALL)).unnest("measures"), want)


@settings(max_examples=examples(share=0.5), deadline=None)
@given(table=judged_tables(max_queries=6), measures=st.sampled_from([POSITIVE_ONLY, ALL]))
def test_evaluate_over_sorted_rows_gives_the_builders_values(table: pl.DataFrame,
                                                             measures: list[str]) -> None:
    """``evaluate`` on rows sorted by the query runs the measures with a row form (nDCG, AP
    ...) over the rows as they lie (``faces/polars/many.py``, ``evaluate_sorted``): the
    builders' doubles in a group-by, in any row order of the input."""
    want = table.group_by("qid").agg(builders(measures)).sort("qid")
    for ordered in (table.sort("qid", "rank", nulls_last=True), table):
        assert_equal(rf.evaluate(ordered, measures), want)


def test_no_rows_gives_the_builders_values() -> None:
    empty = pl.DataFrame(schema={"rank": pl.Int64, "rel": pl.Float64})
    assert_equal(empty.select(rf.evaluate_expr(ALL)).unnest("measures"),
                 empty.select(builders(ALL)))


def test_expressions_and_names() -> None:
    table = pl.DataFrame({"q": ["a", "a", "b"], "pos": [0, 1, 0], "grade": [1, 0, 2]})
    out = table.group_by("q", maintain_order=True).agg(
        rf.evaluate_expr(["P@1", "ndcg"], rel="grade", rank=pl.col("pos") + 1, name="m"))
    assert out.unnest("m").rows() == [("a", 1.0, 1.0), ("b", 1.0, 1.0)]


def test_a_grade_too_large_nulls_the_exponential_measures_only() -> None:
    table = pl.DataFrame({"qid": ["a", "a", "b"], "rank": [1, 2, 1], "rel": [961, 0, 2]})
    out = (table.group_by("qid", maintain_order=True)
           .agg(rf.evaluate_expr(["ndcg(gain=exponential)", "ndcg"])).unnest("measures"))
    assert out.rows() == [("a", None, 1.0), ("b", 1.0, 1.0)]


@pytest.mark.parametrize("rank", [pl.lit(1), pl.col("rank").first()])
def test_a_rank_per_group_is_refused(rank: pl.Expr) -> None:
    table = pl.DataFrame({"qid": ["a", "a"], "rank": [1, 2], "rel": [0, 1]})
    with pytest.raises(InputError, match="one value per group, not one per row"):
        table.group_by("qid").agg(rf.evaluate_expr(["ndcg"], rank=rank))
    with pytest.raises(InputError, match="one value per group, not one per row"):
        table.group_by("qid").agg(rf.ndcg("rel", rank=rank))


def test_tie_aware_measures_read_the_tie_columns() -> None:
    run = pl.DataFrame({"qid": ["a"] * 3, "docid": ["x", "y", "z"], "score": [1.0, 1.0, 0.5]})
    qrels = pl.DataFrame({"qid": ["a", "a"], "docid": ["y", "z"], "rel": [1, 2]})
    judged = rf.judge(run, qrels, ties="average")
    measures = ["ndcg_ties@2", "P_ties@1", "ndcg@2"]
    got = judged.group_by("qid").agg(rf.evaluate_expr(measures)).unnest("measures")
    want = rf.evaluate(judged, measures)
    assert_equal(got, want)


def test_unknown_measure_is_a_measure_error() -> None:
    with pytest.raises(rf.MeasureError):
        rf.evaluate_expr(["ndgc@10"])

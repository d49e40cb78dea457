"""The Polars face's rank-order forms (rankframe.metrics.expr.RankOrderForm), used when each
query's rows come in rank order, must give the very doubles of the builders on rows in any
order; ``in_rank_order`` must accept only such tables."""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import polars as pl
from hypothesis import given
from hypothesis import strategies as st

import rankframe as rf
from rankframe.faces.polars import FACE
from rankframe.measures import parse_all
from rankframe.metrics.expr import (
    forms_pay,
    group_start,
    in_rank_order,
    rank_order_form,
    sequential_sum,
    unguarded,
)

LABELS = ["ndcg@10", "ndcg", "ndcg@1", "ndcg(gain=exponential)@5", "ndcg(ideal=retrieved)@3",
          "dcg@3", "dcg", "idcg@4", "idcg(ideal=retrieved)", "cg@5", "cg", "map", "map@2",
          "map(divisor=min)@3", "map(divisor=found)@2", "map(threshold=2)", "mrr", "P@5",
          "recall@5", "recall", "P", "P(divisor=min)@4", "mrr@2"]
COLUMNS = {"rel": "rel", "rank": "rank"}
GRADES = st.one_of(st.none(), st.integers(-1, 4))


@st.composite
def ordered_tables(draw: st.DrawFn) -> pl.DataFrame:
    """Queries in ascending order; in each, ranked rows (ranks ascending, gaps allowed, the
    grade NULL or any) then unretrieved rows (rank NULL, a grade)."""
    rows: list[tuple[str, int | None, int | None]] = []
    for q in range(draw(st.integers(1, 6))):
        steps = draw(st.lists(st.integers(1, 4), max_size=7))
        unretrieved = draw(st.lists(st.integers(-1, 4), max_size=3))
        if not steps and not unretrieved:
            unretrieved = [draw(st.integers(-1, 4))]
        rank = 0
        for step in steps:
            rank += step
            rows.append((f"q{q}", rank, draw(GRADES)))
        rows += [(f"q{q}", None, grade) for grade in unretrieved]
    return pl.DataFrame(rows, schema={"qid": pl.String, "rank": pl.Int64, "rel": pl.Int64},
                        orient="row")


def doubles(frame: pl.DataFrame) -> list[tuple[Any, ...]]:
    """The rows with each float as its 8 bytes: -0.0 and 0.0 differ, so do the last bits."""
    return [tuple(struct.pack("<d", v) if isinstance(v, float) else v for v in row)
            for row in frame.rows()]


def shuffled(table: pl.DataFrame, seed: int) -> pl.DataFrame:
    """The rows in another order."""
    return table.with_row_index("i").sample(fraction=1.0, shuffle=True, seed=seed).drop("i")


@given(table=ordered_tables(), labels=st.lists(st.sampled_from(LABELS), min_size=1,
                                               max_size=5, unique=True), seed=st.integers(0, 9))
def test_forms_give_the_doubles_of_the_builders(table: pl.DataFrame, labels: list[str],
                                                seed: int) -> None:
    assert in_rank_order(table, ["qid"], "rank")
    measures = parse_all(labels)
    got = FACE.evaluate(table, measures, ["qid"], COLUMNS)
    other = shuffled(table, seed)
    if in_rank_order(other, ["qid"], "rank"):  # a shuffle that changed nothing
        other = other.reverse()
    if not in_rank_order(other, ["qid"], "rank"):
        assert doubles(got) == doubles(FACE.evaluate(other, measures, ["qid"], COLUMNS))
    assert doubles(got) == doubles(rf.evaluate(table.reverse(), labels))


def by_form(table: pl.DataFrame, builder: Callable[..., pl.Expr], **kwargs: Any) -> list[Any]:
    """The builder's rank-order form, as the face evaluates it, per query."""
    form = rank_order_form(builder)("rel", prefix="p_", **kwargs)
    lazy = table.lazy().with_columns(group_start("qid"))
    for name, row in form.columns.items():
        lazy = lazy.with_columns(row.alias(name))
    out = lazy.group_by("qid").agg(form.value.alias("v")).sort("qid").collect()
    return doubles(out)


def by_builder(table: pl.DataFrame, builder: Callable[..., pl.Expr], **kwargs: Any
               ) -> list[Any]:
    expr = unguarded(builder)("rel", **kwargs).alias("v")
    return doubles(table.group_by("qid").agg(expr).sort("qid"))


@given(table=ordered_tables(), k=st.one_of(st.none(), st.integers(1, 8)),
       gains=st.dictionaries(st.integers(0, 4), st.sampled_from([-3.0, -0.0, 0.0, 2.0, 9.5]),
                             max_size=3))
def test_forms_with_gains_per_grade(table: pl.DataFrame, k: int | None,
                                    gains: dict[int, float]) -> None:
    for builder in (rf.ndcg, rf.dcg, rf.idcg):
        for ideal in (("all", "retrieved") if builder is not rf.dcg else ("all",)):
            kwargs: dict[str, Any] = {"k": k, "gains": gains}
            if builder is not rf.dcg:
                kwargs["ideal"] = ideal
            assert by_form(table, builder, **kwargs) == by_builder(table, builder, **kwargs)


def test_in_rank_order_accepts_only_groups_in_rank_order() -> None:
    table = pl.DataFrame({"qid": ["a", "a", "a", "b", "b"], "rank": [1, 3, None, None, None],
                          "rel": [1, 0, 2, 1, 3]})
    assert in_rank_order(table, ["qid"], "rank")
    assert in_rank_order(table.slice(3), ["qid"], "rank")  # only unretrieved rows
    assert in_rank_order(table.slice(2), ["qid"], "rank")
    swapped = pl.DataFrame({"qid": ["a", "a", "a"], "rank": [3, 1, None], "rel": [1, 0, 2]})
    assert not in_rank_order(swapped, ["qid"], "rank")
    null_first = pl.DataFrame({"qid": ["a", "a"], "rank": [None, 1], "rel": [1, 0]})
    assert not in_rank_order(null_first, ["qid"], "rank")
    apart = pl.DataFrame({"qid": ["b", "a"], "rank": [1, 1], "rel": [1, 0]})
    assert not in_rank_order(apart, ["qid"], "rank")  # queries not ascending
    assert not in_rank_order(table, ["qid", "rel"], "rank")  # several keys
    assert not in_rank_order(table.clear(), ["qid"], "rank")
    assert not in_rank_order(table.with_columns(qid=pl.lit(None, pl.String)), ["qid"], "rank")


def test_sequential_sum_of_nothing_or_negative_zeros_is_positive_zero() -> None:
    frame = pl.DataFrame({"g": ["a", "b", "b", "c"], "x": [1.0, -0.0, -0.0, -0.5]})
    out = frame.group_by("g").agg(sequential_sum(pl.col("x").filter(pl.col("x") <= 0))
                                  .alias("s")).sort("g")
    assert doubles(out) == doubles(pl.DataFrame({"g": ["a", "b", "c"], "s": [0.0, 0.0, -0.5]}))


def test_forms_are_taken_for_small_groups_only() -> None:
    small = pl.DataFrame({"qid": [f"q{i:05d}" for i in range(5000)], "rank": [1] * 5000,
                          "rel": [1] * 5000})
    assert forms_pay(small, ["qid"], "rank")
    large = pl.DataFrame({"qid": ["a"] * 5000, "rank": list(range(1, 5001)), "rel": [1] * 5000})
    assert in_rank_order(large, ["qid"], "rank") and not forms_pay(large, ["qid"], "rank")
    longer = pl.DataFrame({"qid": ["z"] * 100_000, "rank": list(range(1, 100_001)),
                           "rel": [1] * 100_000})
    late = pl.concat([small, longer])  # 21 rows per group on average, after the head
    assert not forms_pay(late, ["qid"], "rank")
    assert not forms_pay(small.reverse(), ["qid"], "rank")

"""evaluate_run(run, qrels, measures) must return exactly evaluate(judge(run, qrels), measures):
on its own path (measures that read only positive rows, DataFrames) and on the fallback."""

from __future__ import annotations

import importlib
from typing import Any

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankframe as rf
from rankframe import faces
from rankframe.errors import InputError
from rankframe.measures import parse_all
from tests.units.test_judge import (
    LAYOUTS,
    QRELS,
    RUN,
    Row,
    cases,
    frames,
    in_chunks,
    laid_out,
)

# Between them, every metric that declares it reads only positive rows.
POSITIVE = ["ndcg@10", "ndcg", "ndcg(gain=exponential)@5", "dcg@3", "idcg@4", "cg@5", "map",
            "map@5", "map(divisor=min)@3", "mrr", "mrr@3", "P@5", "P_3", "recall@5", "recall",
            "Rprec", "success@3", "iprec_at_recall_0.50", "num_rel", "num_rel_ret", "rbp@0.8",
            "err@5", "F@5"]
OTHERS = ["bpref", "num_ret", "set_P", "set_F", "judged@5", "rbp_residual@0.8"]


def test_the_measure_lists_are_what_they_say() -> None:
    assert all(m.metric.reads_positive_rows_only(m.values) for m in parse_all(POSITIVE))
    assert not any(m.metric.reads_positive_rows_only(m.values) for m in parse_all(OTHERS))


def assert_same(got: pl.DataFrame, want: pl.DataFrame) -> None:
    """Same keys, columns and dtypes; values equal to 1e-12."""
    assert got.schema == want.schema
    assert got.get_column("qid").to_list() == want.get_column("qid").to_list()
    for name in got.columns[1:]:
        for a, b in zip(got.get_column(name), want.get_column(name), strict=True):
            assert abs(a - b) <= 1e-12, (name, a, b)


def expected(run: pl.DataFrame | pl.LazyFrame, qrels: pl.DataFrame | pl.LazyFrame,
             labels: list[str], depth: int | None, engine: str) -> pl.DataFrame:
    judged = rf.judge(run, qrels, depth=depth)
    return rf.evaluate(judged, labels, engine=engine)  # type: ignore[arg-type]


def skipping_the_judged_table(patch: pytest.MonkeyPatch) -> list[str]:
    """Make evaluate_run's path observable: the names of the judges it calls, in order
    (``judge``, which builds the whole judged table, or ``judge_positive_rows``)."""
    module = importlib.import_module("rankframe.evaluate")
    calls: list[str] = []

    def recording(name: str) -> Any:
        real = getattr(module, name)

        def recorded(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return real(*args, **kwargs)
        return recorded

    for name in ("judge", "judge_positive_rows"):
        patch.setattr(module, name, recording(name))
    return calls


@given(case=cases(), depth=st.one_of(st.none(), st.integers(1, 6)),
       labels=st.lists(st.sampled_from(POSITIVE), min_size=1, max_size=6, unique=True),
       engine=st.sampled_from(faces.ENGINES), layout=st.sampled_from(LAYOUTS),
       block_rows=st.integers(1, 9), data=st.data())
def test_positive_measures_skip_the_judged_table(
        case: tuple[list[Row], list[Row]], depth: int | None, labels: list[str], engine: str,
        layout: str, block_rows: int, data: st.DataObject) -> None:
    run_df, qrels_df = frames(*case)
    run_df = laid_out(run_df, layout, data)
    cuts = st.lists(st.integers(0, 40), max_size=3)
    run_df, qrels_df = in_chunks(run_df, data.draw(cuts)), in_chunks(qrels_df, data.draw(cuts))
    want = expected(run_df, qrels_df, labels, depth, engine)
    module = importlib.import_module("rankframe.table.blocks")
    with pytest.MonkeyPatch.context() as patch:  # tiny blocks, on the thread pool
        patch.setattr(module, "BLOCK_ROWS", block_rows)
        patch.setattr(module, "_HEAD", 2)  # the early look at a block's first rows
        calls = skipping_the_judged_table(patch)
        got = rf.evaluate_run(run_df, qrels_df, labels, depth=depth,
                              engine=engine)  # type: ignore[arg-type]
    assert calls == ["judge_positive_rows"]  # the judged table was never built
    assert_same(got, want)


@given(case=cases(), labels=st.lists(st.sampled_from(POSITIVE + OTHERS), min_size=1,
                                     max_size=4, unique=True),
       lazy=st.booleans(), engine=st.sampled_from(faces.ENGINES))
def test_other_measures_and_lazy_frames_take_judge_then_evaluate(
        case: tuple[list[Row], list[Row]], labels: list[str], lazy: bool, engine: str) -> None:
    run_df, qrels_df = frames(*case)
    run: pl.DataFrame | pl.LazyFrame = run_df.lazy() if lazy else run_df
    want = expected(run_df, qrels_df, labels, None, engine)
    with pytest.MonkeyPatch.context() as patch:
        calls = skipping_the_judged_table(patch)
        got = rf.evaluate_run(run, qrels_df, labels, engine=engine)  # type: ignore[arg-type]
    positive = not lazy and all(label in POSITIVE for label in labels)
    assert calls == (["judge_positive_rows"] if positive else ["judge"])
    assert_same(got, want)


def test_column_names_and_threshold_are_passed_on() -> None:
    run = RUN.rename({"qid": "q", "docid": "d", "score": "s"})
    qrels = QRELS.rename({"qid": "q", "docid": "d", "rel": "grade"})
    got = rf.evaluate_run(run, qrels, ["P@2", "map"], query="q", doc="d", score="s",
                          rel="grade", threshold=2)
    assert got.rows() == [("q", 0.0, 0.0)]
    assert rf.evaluate_run(RUN, QRELS, ["P@2", "map"]).rows() == [("q", 0.5, 0.5)]


def test_bad_input_is_named() -> None:
    with pytest.raises(InputError, match="evaluate_run: duplicate"):
        rf.evaluate_run(pl.concat([RUN, RUN.head(1)]), QRELS, ["map"])
    with pytest.raises(InputError, match="evaluate_run: column 'score' of the run is NaN"):
        rf.evaluate_run(RUN.with_columns(score=pl.Series([1.0, float("nan")])), QRELS, ["map"])
    with pytest.raises(InputError, match="evaluate_run: the qrels has no column 'rel'"):
        rf.evaluate_run(RUN, QRELS.drop("rel"), ["map"])
    with pytest.raises(ValueError, match="evaluate_run: engine must be 'polars' or 'duckdb'"):
        rf.evaluate_run(RUN, QRELS, ["map"], engine="spark")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="evaluate_run: depth"):
        rf.evaluate_run(RUN, QRELS, ["map"], depth=0)

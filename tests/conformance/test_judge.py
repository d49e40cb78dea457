"""Every registered face's ``judge`` gives the oracle face's judged table
(docs/semantics.md#from-a-run-and-qrels-to-the-judged-table): the same rows, and for the
in-process engines the same row order, on runs full of tied scores with numeric-looking
ids, with and without a depth cut, and with the tie columns where the face has them."""

from __future__ import annotations

from typing import Any

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from rankframe import faces
from rankframe.faces.base import Face, JudgeOptions
from tests.support.faces import examples
from tests.support.strategies import Qrels, Run, runs_and_qrels


def frames(run: Run, qrels: Qrels, integer_ids: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    ids = pl.Int32 if integer_ids else pl.String
    return (
        pl.DataFrame(run, schema={"qid": ids, "docid": ids, "score": pl.Float64}, orient="row"),
        pl.DataFrame(qrels, schema={"qid": ids, "docid": ids, "rel": pl.Int32}, orient="row"),
    )


def rows(table: pl.DataFrame) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in table.rows()]


def test_judge_agrees_with_the_oracle(checked_face: Face) -> None:
    oracle = faces.get("oracle")
    ties = sorted(checked_face.judge_ties)

    @settings(max_examples=examples(checked_face))
    @given(case=runs_and_qrels(), depth=st.one_of(st.none(), st.integers(1, 6)),
           tie_mode=st.sampled_from(ties), judged_only=st.booleans())
    def check(case: tuple[Run, Qrels, bool], depth: int | None, tie_mode: Any,
              judged_only: bool) -> None:
        run, qrels = frames(*case)
        options = JudgeOptions(depth=depth, ties=tie_mode, judged_only=judged_only)
        expected = oracle.judge(run, qrels, options)
        got = checked_face.to_polars(checked_face.judge(
            checked_face.native(run), checked_face.native(qrels), options))
        assert got.columns == expected.columns
        assert got.schema["rank"] == pl.Int64 and got.schema["score"] == pl.Float64
        if checked_face.role == "engine":
            assert rows(got) == rows(expected)
        else:  # a distributed table has no row order
            assert sorted(map(repr, rows(got))) == sorted(map(repr, rows(expected)))

    check()


def test_oracle_judged_only_worked_example() -> None:
    """-J by hand: the unjudged z leaves the ranking, the negative e becomes unretrieved,
    c (rank 5 before) ranks 3; the depth cut of 4 comes first and leaves c out."""
    run = pl.DataFrame({"qid": ["q1"] * 5, "docid": ["a", "z", "b", "e", "c"],
                        "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["q1"] * 4, "docid": ["a", "b", "c", "e"], "rel": [1, 0, 2, -1]})
    oracle = faces.get("oracle")
    assert rows(oracle.judge(run, qrels, JudgeOptions(judged_only=True))) == [
        ("q1", "a", 1, 1, 5.0), ("q1", "b", 2, 0, 3.0), ("q1", "c", 3, 2, 1.0),
        ("q1", "e", None, -1, None),
    ]
    assert rows(oracle.judge(run, qrels, JudgeOptions(judged_only=True, depth=4)))[2:] == [
        ("q1", "c", None, 2, None), ("q1", "e", None, -1, None),
    ]


def test_oracle_judge_worked_example() -> None:
    """The docstring example of ``rankframe.judge``, by hand: d2 first (score 3), then the
    tie d9 > d10 by text, then the unretrieved d5; the run-only query q3 is dropped."""
    run = pl.DataFrame({"qid": ["q1", "q1", "q1", "q3"], "docid": ["d9", "d10", "d2", "x"],
                        "score": [1.0, 1.0, 3.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["q1", "q1"], "docid": ["d2", "d5"], "rel": [1, 2]})
    judged = faces.get("oracle").judge(run, qrels, JudgeOptions(ties="average"))
    assert rows(judged) == [
        ("q1", "d2", 1, 1, 3.0, 1, 1),
        ("q1", "d9", 2, None, 1.0, 2, 2),
        ("q1", "d10", 3, None, 1.0, 2, 2),
        ("q1", "d5", None, 2, None, None, None),
    ]

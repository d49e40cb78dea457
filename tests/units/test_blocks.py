"""The judge core's blocks (rankframe.table.blocks): a query longer than the block size is
one block of its own; what judging returns, and every error it raises, does not depend on
the block size."""

from __future__ import annotations

import importlib
from typing import Any

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from rankframe.errors import InputError
from rankframe.table.judge import Ties, judge, judge_positive_rows
from tests.units.test_judge import GRADES, SCORES, in_chunks

BLOCKS = importlib.import_module("rankframe.table.blocks")


def positive_rows(run: pl.DataFrame, qrels: pl.DataFrame, depth: int | None,
                  judged_only: bool, block_rows: int) -> pl.DataFrame | str:
    """``judge_positive_rows`` with blocks of ``block_rows`` rows, or its error message."""
    return judged(run, qrels, depth, judged_only, block_rows, None)


def judged(run: pl.DataFrame, qrels: pl.DataFrame, depth: int | None, judged_only: bool,
           block_rows: int, ties: Ties | None) -> pl.DataFrame | str:
    """``judge`` (``judge_positive_rows`` if ``ties`` is None) with blocks of ``block_rows``
    rows, or its error message."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(BLOCKS, "BLOCK_ROWS", block_rows)
        patch.setattr(BLOCKS, "_HEAD", 2)  # the early look at a block's first rows
        try:
            if ties is not None:
                return judge(run, qrels, depth=depth, ties=ties, judged_only=judged_only)
            return judge_positive_rows("judge", run, qrels, query="qid", doc="docid",
                                       score="score", rel="rel", depth=depth,
                                       judged_only=judged_only)
        except InputError as error:
            return str(error)


@st.composite
def long_queries(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run whose query 2 is long (query 1 and 3 short, maybe absent), in rank order or
    not, maybe with a repeated document; qrels for some of its documents (or none), for
    documents it does not retrieve and for queries without results."""
    ints = draw(st.booleans())
    ids = pl.Int64 if ints else pl.String

    def doc(i: int) -> Any:
        return i if ints else f"d{i}"

    def query(i: int) -> Any:
        return i if ints else f"q{i}"

    docs = draw(st.lists(st.integers(0, 60), min_size=2, max_size=40, unique=True))
    run = [(query(2), doc(d), draw(SCORES)) for d in docs]
    if draw(st.integers(0, 3)) == 0:  # a repeated document, with the same score or another
        at = draw(st.integers(0, len(run) - 1))
        repeat = run[draw(st.integers(0, len(run) - 1))]
        run.insert(at, repeat if draw(st.booleans()) else (*repeat[:2], draw(SCORES)))
    for q in draw(st.sets(st.sampled_from([1, 3]))):
        run += [(query(q), doc(d), draw(SCORES)) for d in range(draw(st.integers(1, 3)))]
    judged = draw(st.lists(st.integers(0, 70), max_size=25, unique=True))
    qrels = [(query(2), doc(d), draw(GRADES)) for d in judged]
    qrels += [(query(q), doc(0), draw(GRADES)) for q in (0, 1, 3, 4)]
    run_df = pl.DataFrame(run, schema={"qid": ids, "docid": ids, "score": pl.Float64},
                          orient="row")
    if draw(st.integers(0, 3)) > 0:  # mostly in rank order
        run_df = run_df.sort(["qid", "score", pl.col("docid").cast(pl.String)],
                             descending=[False, True, True], maintain_order=True)
    else:
        run_df = run_df.sort("qid", maintain_order=True)
    qrels_df = pl.DataFrame(qrels, schema={"qid": ids, "docid": ids, "rel": pl.Int64},
                            orient="row")
    cuts = st.lists(st.integers(0, 45), max_size=4)
    return in_chunks(run_df, draw(cuts)), in_chunks(qrels_df, draw(cuts))


@given(case=long_queries(), depth=st.one_of(st.none(), st.integers(1, 8)),
       judged_only=st.booleans(), block_rows=st.integers(1, 6),
       ties=st.sampled_from([None, "docid", "average"]))
def test_a_long_query_is_judged_alike_at_any_block_size(
        case: tuple[pl.DataFrame, pl.DataFrame], depth: int | None, judged_only: bool,
        block_rows: int, ties: Ties | None) -> None:
    """The positive rows (``ties`` None) or the whole judged table."""
    run, qrels = case
    want = judged(run, qrels, depth, judged_only, 1 << 20, ties)
    got = judged(run, qrels, depth, judged_only, block_rows, ties)
    if isinstance(want, str) or isinstance(got, str):
        assert got == want
    else:
        assert_frame_equal(got, want)

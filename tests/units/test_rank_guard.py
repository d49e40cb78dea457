"""The builders' rank guard (``rankframe.faces.polars.expr.valid_ranks``) on float rank columns:
a rank that is not a whole number, NaN or infinite makes the group NULL, as a rank below 1
or a repeated one does; whole float ranks are valid."""

from __future__ import annotations

import math

import polars as pl
import pytest

import rankframe as rf


@pytest.mark.parametrize("bad", [2.5, math.nan, math.inf, 0.0, 1.0])
def test_a_group_with_an_invalid_float_rank_is_null(bad: float) -> None:
    table = pl.DataFrame({"qid": ["a", "a", "b", "b"], "rank": [1.0, bad, 1.0, 2.0],
                          "rel": [1, 1, 0, 1]})
    got = (table.group_by("qid", maintain_order=True)
           .agg(rf.precision("rel", k=2), rf.ndcg("rel", k=2), rf.average_precision("rel")))
    assert got.row(0)[1:] == (None, None, None)  # rank 1.0 twice is a repeat too
    assert got.row(1)[1:] == (0.5, pytest.approx(1 / math.log2(3)), 0.5)


def test_whole_float_ranks_are_valid() -> None:
    table = pl.DataFrame({"rank": [1.0, 2.0, None], "rel": [0, 1, 1]})
    assert table.select(rf.recall("rel", k=2)).item() == 0.5


@pytest.mark.parametrize("bad", [-5000, -1, 0])
def test_a_group_with_a_rank_below_one_is_null_for_the_ordered_sums(bad: int) -> None:
    """The ordered kernels compute every group before its guard masks it: a rank far below
    1 must neither crash them (a discount looked up out of the log2 table) nor leak."""
    table = pl.DataFrame({"qid": ["a", "a", "b"], "rank": [bad, 1, 1], "rel": [1, 2, 2]})
    got = (table.group_by("qid", maintain_order=True)
           .agg(rf.ndcg("rel"), rf.dcg("rel"), rf.cg("rel"), rf.idcg("rel"),
                rf.average_precision("rel")))
    assert got.row(0)[1:] == (None,) * 5
    assert got.row(1)[1:] == (1.0, 2.0, 2.0, 2.0, 1.0)

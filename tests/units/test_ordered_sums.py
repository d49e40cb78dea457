"""The ordered kernels' two layouts (``rankframe.faces.polars.ordered._in_order_sums``): the
dense matrix of queries x positions, added row by row, and the sorted lists it falls back to
when that matrix would be sparse, give the same doubles for every ordered sum (CG, DCG, the
ideal DCG, nDCG, AP), at and without cutoffs, on integer and whole float ranks."""

from __future__ import annotations

from unittest import mock

import polars as pl
from hypothesis import given, settings

import rankframe as rf
from rankframe.faces.polars import ordered
from tests.support.faces import examples
from tests.support.strategies import judged_tables


def sums(table: pl.DataFrame) -> pl.DataFrame:
    exprs = [rf.ndcg("rel", k=5).alias("ndcg5"), rf.ndcg("rel").alias("ndcg"),
             rf.dcg("rel", k=3).alias("dcg3"), rf.idcg("rel", k=2).alias("idcg2"),
             rf.cg("rel").alias("cg"), rf.average_precision("rel").alias("ap"),
             rf.ndcg("rel", k=4, gains={1: -2.5, 0: 0.25}).alias("mapped"),
             rf.ndcg("rel", gain="exponential", ideal="retrieved").alias("exp")]
    return table.group_by("qid").agg(exprs).sort("qid")


@settings(max_examples=examples(share=0.5), deadline=None)
@given(table=judged_tables(max_queries=6))
def test_the_dense_layout_and_the_lists_agree(table: pl.DataFrame) -> None:
    dense = sums(table)
    with mock.patch.multiple(ordered, _DENSE_FACTOR=0, _DENSE_SLOTS=0):
        lists = sums(table)
    assert dense.equals(lists)
    floats = table.with_columns(pl.col("rank").cast(pl.Float64))
    assert sums(floats).equals(dense)

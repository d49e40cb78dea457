"""``rf.evaluate`` on a table in any row order: the same numbers and the same errors as on
the table grouped by query.

A table not sorted by its query key fails the linear proof of validity
(``valid_in_order``) and takes the exact checks of ``locate_problem``; measures that read
only positive rows then keep one row per query (``first_of_query``), not one per run of
equal keys. Both paths are held here to the grouped table's answers.
"""

from __future__ import annotations

import random

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankframe as rf
from rankframe.errors import InputError
from tests.support.strategies import judged_tables

#: Measures reading only positive rows (the cut applies) and others (it does not).
POSITIVE_ONLY = ["ndcg_cut.10", "map", "P.5", "recip_rank", "recall.10", "ndcg"]
OTHERS = ["bpref", "num_ret", "infAP"]


def shuffled(table: pl.DataFrame, seed: int) -> pl.DataFrame:
    return table.sample(fraction=1.0, shuffle=True, seed=seed)


@settings(max_examples=60, deadline=None)
@given(judged_tables(max_queries=6), st.integers(0, 2**32 - 1))
def test_a_shuffled_table_gives_the_grouped_tables_numbers(table: pl.DataFrame,
                                                             seed: int) -> None:
    rows = shuffled(table, seed)
    for measures in (POSITIVE_ONLY, POSITIVE_ONLY + OTHERS):
        expected = rf.evaluate(table, measures)
        got = rf.evaluate(rows, measures)
        assert got.equals(expected), (measures, rows)


@settings(max_examples=30, deadline=None)
@given(judged_tables(max_queries=4).filter(lambda t: t["rank"].is_not_null().any()),
       st.integers(0, 2**32 - 1))
def test_a_repeated_rank_in_a_shuffled_table_is_named(table: pl.DataFrame, seed: int) -> None:
    ranked = table.filter(pl.col("rank").is_not_null())
    twin = ranked.head(1).with_columns(pl.lit(0.0).alias("rel"))
    rows = shuffled(pl.concat([table, twin]), seed)
    qid, rank = twin["qid"][0], twin["rank"][0]
    with pytest.raises(InputError, match=rf"query '{qid}' has rank {rank} twice \(rows "):
        rf.evaluate(rows, POSITIVE_ONLY)


def test_each_problem_of_a_shuffled_table_is_named_in_order() -> None:
    """The first problem in check order (rank < 1, repeat, NaN, infinite) is the one named,
    wherever the rows are."""
    order = list(range(8))
    random.Random(7).shuffle(order)
    base = pl.DataFrame({"qid": [f"q{i % 3}" for i in order], "rank": [i + 1 for i in order],
                         "rel": [1.0] * 8})
    assert not base["qid"].is_sorted()
    low = base.with_columns(pl.when(pl.int_range(pl.len()) == 5).then(0)
                            .otherwise(pl.col("rank")).alias("rank"))
    nan = base.with_columns(pl.when(pl.int_range(pl.len()) == 2).then(float("nan"))
                            .otherwise(pl.col("rel")).alias("rel"))
    both = nan.with_columns(low["rank"])
    with pytest.raises(InputError, match="has rank 0 at row 5"):
        rf.evaluate(low, ["map"])
    with pytest.raises(InputError, match="NaN grade in 'rel' at row 2"):
        rf.evaluate(nan, ["map"])
    with pytest.raises(InputError, match="has rank 0 at row 5"):
        rf.evaluate(both, ["map"])
    infinite = base.with_columns(pl.when(pl.int_range(pl.len()) == 4).then(float("inf"))
                                 .otherwise(pl.col("rel")).alias("rel"))
    with pytest.raises(InputError, match="infinite grade in 'rel' at row 4"):
        rf.evaluate(infinite, ["map"])
    high = base.with_columns(pl.when(pl.int_range(pl.len()) == 3).then(1000.0)
                             .otherwise(pl.col("rel")).alias("rel"))
    with pytest.raises(InputError, match=r"grade 1000.0 in 'rel' at row 3 .* <= 960"):
        rf.evaluate(high, ["ndcg(gain=exponential)"])
    rf.evaluate(high, ["map"])  # the linear gain has no bound

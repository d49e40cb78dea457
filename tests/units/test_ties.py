"""Tie-aware evaluation: annotate() on scored tables, the *_ties metrics against their plain
counterparts when nothing is tied, and worked examples from the closed forms. Parity of
the three faces (the oracle averages over every ordering) is in test_parity.py."""

from __future__ import annotations

import itertools

import duckdb
import polars as pl
import pytest
from hypothesis import given

import rankframe as rf
from rankframe.errors import InputError
from rankframe.faces import oracle as reference
from rankframe.registry import METRICS
from rankframe.table.ties import annotate
from tests.support.faces import duckdb_values, polars_face
from tests.support.strategies import judged_tables, metric_params

PAIRS = {
    "precision_ties": "precision",
    "recall_ties": "recall",
    "dcg_ties": "dcg",
    "ndcg_ties": "ndcg",
    "reciprocal_rank_ties": "reciprocal_rank",
    "average_precision_ties": "average_precision",
}


def test_annotate_marks_tie_groups() -> None:
    run = pl.DataFrame({
        "qid": ["a", "a", "a", "a", "a", "b", "b"],
        "score": [9.0, 5.0, 5.0, 5.0, 1.0, 5.0, None],
        "rank": [1, 2, 3, 4, 5, 1, None],
    })
    out = annotate(run)
    assert out.select("tie_first", "tie_size").rows() == [
        (1, 1), (2, 3), (2, 3), (2, 3), (5, 1), (1, 1), (None, None)]
    lazy = annotate(run.lazy()).collect()
    assert lazy.equals(out)


def test_annotate_keeps_other_columns_and_accepts_several_keys() -> None:
    run = pl.DataFrame({"system": ["s", "t"], "qid": ["q", "q"], "score": [1.0, 1.0],
                        "rank": [1, 1], "note": ["x", "y"]})
    out = annotate(run, by=["system", "qid"])
    assert out.columns == [*run.columns, "tie_first", "tie_size"]
    assert out["tie_size"].to_list() == [1, 1]


def test_annotate_null_scores_are_singletons() -> None:
    run = pl.DataFrame({"qid": ["q"] * 3, "score": [None, None, 2.0], "rank": [2, 3, 1]})
    assert annotate(run).select("tie_first", "tie_size").rows() == [(2, 1), (3, 1), (1, 1)]


def test_annotate_rejects_split_tie_groups() -> None:
    run = pl.DataFrame({"qid": ["q"] * 3, "score": [1.0, 2.0, 1.0], "rank": [1, 2, 3]})
    with pytest.raises(InputError, match=r"qid='q'.*score=1\.0 spans ranks 1"):
        annotate(run)


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_without_ties_equals_the_plain_metric(name: str) -> None:
    """Every tie group of size 1 (tie_first = rank): the expectation is the plain value."""
    tied, plain = METRICS[name], METRICS[PAIRS[name]]

    @given(judged=judged_tables(), values=metric_params(tied))
    def check(judged: pl.DataFrame, values: dict[str, object]) -> None:
        table = judged.with_columns(
            pl.col("rank").alias("tie_first"),
            pl.when(pl.col("rank").is_not_null()).then(pl.lit(1, pl.Int64)).alias("tie_size"))
        assert polars_face(tied, table, values) == pytest.approx(
            polars_face(plain, table, values), abs=1e-12)

    check()


# One query: a relevant document alone at rank 1, then a tie of four at ranks 2-5 holding
# two relevant (grade 2 and 1) and two non-relevant documents, and one relevant unretrieved.
SCORED = pl.DataFrame({
    "qid": ["q"] * 6,
    "score": [3.0, 1.0, 1.0, 1.0, 1.0, None],
    "rank": [1, 2, 3, 4, 5, None],
    "rel": [1.0, 2.0, 0.0, 1.0, 0.0, 1.0],
})


def _by_enumeration(metric: str, **params: object) -> float:
    """The plain metric averaged over the 24 orders of ranks 2-5, written out directly."""
    tied = [2.0, 0.0, 1.0, 0.0]
    plain = getattr(reference, metric)
    values = []
    for order in itertools.permutations(tied):
        rows = [(1.0, 1), *((g, r) for g, r in zip(order, range(2, 6), strict=True)), (1.0, None)]
        values.append(plain(rows, **params))
    return sum(values) / len(values)


@pytest.mark.parametrize(("name", "params", "closed_form"), [
    ("precision_ties", {"k": 3}, (1 + 2 * 2 / 4) / 3),
    ("recall_ties", {"k": 3}, (1 + 2 * 2 / 4) / 4),
    ("reciprocal_rank_ties", {"k": None}, 1.0),
    ("average_precision_ties", {"k": None},
     (1 + 2 * sum((2 + (j - 1) / 3) / (1 + j) for j in range(1, 5)) / 4) / 4),
    ("dcg_ties", {"k": 3}, 1 + 3 / 4 * (1 / 1.584962500721156 + 1 / 2)),
])
def test_worked_examples(name: str, params: dict[str, object], closed_form: float,
                         con: duckdb.DuckDBPyConnection) -> None:
    table = annotate(SCORED)
    metric = METRICS[name]
    expected = _by_enumeration(PAIRS[name], **params)
    assert closed_form == pytest.approx(expected, abs=1e-12)
    assert polars_face(metric, table, params)["q"] == pytest.approx(expected, abs=1e-12)
    assert duckdb_values(metric, table, params, con)["q"] == pytest.approx(expected, abs=1e-12)


def test_reciprocal_rank_of_a_tie_at_the_top() -> None:
    """Two relevant among four tied at ranks 1-4: E[1/first] = 1/2 + 1/3 * 1/2 + 1/6 * 1/3."""
    table = pl.DataFrame({"rel": [1, 0, 1, 0], "tie_first": [1] * 4, "tie_size": [4] * 4})
    expected = 0.5 * 1 + (1 / 3) / 2 + (1 / 6) / 3
    assert table.select(rf.reciprocal_rank_ties("rel")).item() == pytest.approx(expected)
    assert table.select(rf.reciprocal_rank_ties("rel", k=1)).item() == pytest.approx(0.5)


def test_ndcg_ideal_ignores_ties() -> None:
    table = annotate(SCORED)
    dcg = table.select(rf.dcg_ties("rel", k=5)).item()
    ideal = SCORED.select(rf.idcg("rel", k=5)).item()
    assert table.select(rf.ndcg_ties("rel", k=5)).item() == pytest.approx(dcg / ideal)

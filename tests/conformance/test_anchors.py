"""The beyond-accuracy metrics reproduce the numbers of the tools they are anchored to, on
every face: each case is one of those tools' own test fixtures (or reference code run on a
small example), with the expected numbers those tests assert, and the parameters of
rankframe that match the tool's conventions.

- Microsoft Recommenders (``tests/unit/recommenders/evaluation``: the ``diversity_data``
  fixture; ``python_evaluation.py`` and ``spark_evaluation.py`` assert the same numbers,
  with ``TOL = 0.0001`` relative). The digits below are those the peer's functions return
  (recommenders 1.2.1, run once by hand), which its tests round.
- RecBole (``tests/metrics/test_topk_metrics.py``: ``item_matrix``, ``num_items = 8``,
  ``item_count``; ``tail_ratio`` 0.1); exact there, so here within 1e-12.
- TREC Fair Ranking 2022 (``wptrec/metrics/awrf.py``, ``AWRFMetric.qr_awrf``): three
  rankings over six pages of one dimension (one page of fractional alignment, unknown pages
  left out), run through the track's code by hand; it computes its discounts in 32-bit
  floats, so within 1e-8.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl
import pytest

from rankframe import run_metrics
from rankframe.beyond.catalog import Catalog, with_items
from rankframe.evaluate import summarize
from rankframe.faces.base import Face, parse_for, supports
from rankframe.measures import parse_all
from tests.support.faces import COLUMNS


def evaluate_on(face: Face, table: pl.DataFrame, measures: Sequence[str], *,
                query: str | list[str], catalog: Catalog, rel: str = "rel") -> pl.DataFrame:
    """``rf.evaluate(table, measures, catalog=...)`` through any face: the catalog joined in
    Polars, the measures computed by the face."""
    keys = [query] if isinstance(query, str) else query
    for m in parse_all(list(measures)):
        if not supports(face, m.metric):
            pytest.skip(f"{face.name} has no {m.metric.name}")
    parsed = parse_for(face, list(measures), keys, 1)
    columns = COLUMNS | {"rel": rel}
    judged, parsed, columns = with_items("evaluate", table, parsed, keys, columns, catalog)
    return run_metrics.evaluate(face, judged, parsed, keys, columns)


def close(got: Sequence[Any], want: Sequence[Any], rel: float = 0.0, abs_: float = 0.0
          ) -> bool:
    return len(got) == len(want) and all(
        (g is None and w is None) or (g is not None and w is not None
                                      and g == pytest.approx(w, rel=rel, abs=abs_))
        for g, w in zip(got, want, strict=True))


# --- Microsoft Recommenders: the diversity_data fixture -------------------------------------

MS_TOL = 1e-4  # pytest.approx(x, TOL): relative
TRAIN = pl.DataFrame({"UserId": [1, 1, 1, 2, 2, 3, 3, 3], "ItemId": [1, 2, 4, 3, 4, 3, 4, 5]})
RECO = pl.DataFrame({"UserId": [1, 1, 2, 2, 3, 3], "ItemId": [3, 5, 2, 5, 1, 2],
                     "Relevance": [1, 0, 1, 1, 1, 0]}).with_columns(
    rank=pl.int_range(pl.len()).over("UserId") + 1)
FEATURES = pl.DataFrame({"ItemId": [1, 2, 3, 4, 5], "features": [
    [0.0, 1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0, 0.0],
    [0.0, 0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0, 1.0]]})
COOCCURRENCE = Catalog(train=TRAIN, item="ItemId", user="UserId")
FEATURE_VECTOR = Catalog(train=TRAIN, items=FEATURES, item="ItemId", user="UserId",
                         similarity="features")


def test_ms_recommenders_catalog_and_novelty(face: Face) -> None:
    per_user = evaluate_on(face, RECO, ["catalog_coverage", "distributional_coverage",
                                        "novelty"], query="UserId", catalog=COOCCURRENCE)
    summary = summarize(per_user, query="UserId").row(0)
    assert close(summary, [0.8, 1.9182958340544896, 2.8333333333333335], rel=MS_TOL)


def test_ms_recommenders_historical_item_novelty(face: Face) -> None:
    """Each item's novelty: a list of that one item; then the fixture with only item 3."""
    items = pl.DataFrame({"ItemId": [1, 2, 3, 4, 5], "rank": [1] * 5})
    per_item = evaluate_on(face, items, ["novelty"], query="ItemId", catalog=COOCCURRENCE)
    assert close(per_item["novelty"].to_list(), [3.0, 3.0, 2.0, 1.415037499278844, 3.0],
                 rel=MS_TOL)
    only_3 = Catalog(train=TRAIN.filter(pl.col("ItemId") == 3), item="ItemId", user="UserId")
    per_user = evaluate_on(face, RECO.filter(pl.col("ItemId") == 3), ["novelty"],
                           query="UserId", catalog=only_3)
    assert per_user["novelty"].to_list() == [0.0]


@pytest.mark.parametrize(("catalog", "per_user", "mean"), [
    (COOCCURRENCE, [0.29289321881345254, 1.0, 0.0], 0.43096440627115085),
    (FEATURE_VECTOR, [0.5, 0.5, 0.5], 0.5),
], ids=["item_cooccurrence_count", "item_feature_vector"])
def test_ms_recommenders_diversity(face: Face, catalog: Catalog, per_user: list[float],
                                   mean: float) -> None:
    table = evaluate_on(face, RECO, ["diversity"], query="UserId", catalog=catalog)
    assert close(table["diversity"].to_list(), per_user, rel=MS_TOL, abs_=1e-12)
    assert close(summarize(table, query="UserId").row(0), [mean], rel=MS_TOL)


def test_ms_recommenders_feature_diversity_without_pairs(face: Face) -> None:
    """``ild_features``, the closed form, gives the pairwise ``item_feature_vector`` number."""
    table = evaluate_on(face, RECO, ["ild_features"], query="UserId", catalog=FEATURE_VECTOR)
    assert close(table["ild_features"].to_list(), [0.5, 0.5, 0.5], abs_=1e-12)


@pytest.mark.parametrize(("catalog", "per_item", "per_user", "mean"), [
    (COOCCURRENCE,
     [0.7278344730240913, 0.0, 0.7113248654051871, 0.3577714748119134, 0.8075499102701247, 0.0],
     [0.36391723651204566, 0.5345481701085503, 0.40377495513506234], 0.4340801205852194),
    (FEATURE_VECTOR, [0.5, 0.0, 0.75, 0.5, 0.6666666666666667, 0.0],
     [0.25, 0.625, 0.33333333333333337], 0.40277777777777785),
], ids=["item_cooccurrence_count", "item_feature_vector"])
def test_ms_recommenders_serendipity(face: Face, catalog: Catalog, per_item: list[float],
                                     per_user: list[float], mean: float) -> None:
    items = evaluate_on(face, RECO, ["serendipity"], query=["UserId", "ItemId"],
                        catalog=catalog, rel="Relevance")
    assert close(items["serendipity"].to_list(), per_item, rel=MS_TOL, abs_=1e-12)
    users = evaluate_on(face, RECO, ["serendipity"], query="UserId", catalog=catalog,
                        rel="Relevance")
    assert close(users["serendipity"].to_list(), per_user, rel=MS_TOL)
    assert close(summarize(users, query="UserId").row(0), [mean], rel=MS_TOL)


# --- RecBole: tests/metrics/test_topk_metrics.py ---------------------------------------------

ITEM_MATRIX = [[5, 7, 3], [4, 5, 2], [2, 3, 5], [1, 4, 6], [5, 3, 7]]
RECBOLE_LISTS = pl.DataFrame(
    [(u, item, r) for u, row in enumerate(ITEM_MATRIX) for r, item in enumerate(row, start=1)],
    schema={"user": pl.Int64, "docid": pl.Int64, "rank": pl.Int64}, orient="row")
ITEM_COUNT = pl.DataFrame({"docid": [1, 2, 3, 4, 5, 6], "count": [0, 1, 2, 3, 4, 5]})
RECBOLE = Catalog(items=ITEM_COUNT, pop="count", long_tail=0.1)


def test_recbole_item_coverage_gini_and_entropy(face: Face) -> None:
    table = evaluate_on(face, RECBOLE_LISTS, [
        "itemcoverage(catalog=8)", "giniindex(catalog=8)",
        "shannonentropy(log=ln, divisor=items)"], query="user", catalog=Catalog())
    gini = (-7 * 0 + -5 * 1 + -3 * 1 + -1 * 2 + 1 * 2 + 3 * 2 + 5 * 3 + 7 * 4) / (8 * (3 * 5))
    assert close(summarize(table, query="user").row(0),
                 [7 / 8, gini, 0.26305576783513895], abs_=1e-12)


def test_recbole_average_popularity_and_tail_percentage(face: Face) -> None:
    """RecBole's per-user values at each cutoff (its ``metric_info`` matrices)."""
    measures = [f"{name}@{k}" for name in ("averagepopularity", "tailpercentage")
                for k in (1, 2, 3)]
    table = evaluate_on(face, RECBOLE_LISTS, measures, query="user", catalog=RECBOLE)
    popularity = [[4 / 1, 4 / 2, 6 / 3], [3 / 1, 7 / 2, 8 / 3], [1 / 1, 3 / 2, 7 / 3],
                  [0 / 1, 3 / 2, 8 / 3], [4 / 1, 6 / 2, 6 / 3]]
    tail = [[0, 0, 0], [0, 0, 0], [0, 0, 0], [1 / 1, 1 / 2, 1 / 3], [0, 0, 0]]
    got = table.select(measures).rows()
    assert all(close(row[:3], p, abs_=1e-12) and close(row[3:], t, abs_=1e-12)
               for row, p, t in zip(got, popularity, tail, strict=True))


# --- TREC Fair Ranking 2022: AWRFMetric.qr_awrf ---------------------------------------------

PAGES = pl.DataFrame({"docid": [1, 2, 3, 4, 5, 6], "group": [
    [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0],
    [0.5, 0.5, 0.0]]})
RANKINGS = pl.DataFrame({"qid": ["a"] * 6 + ["b"] * 4 + ["c"] * 3 + ["d"] * 2,
                         "docid": [1, 2, 3, 4, 5, 6, 4, 1, 99, 5, 2, 6, 3, 99, 98]}).with_columns(
    rank=pl.int_range(pl.len()).over("qid") + 1)
#: The target of each ranking's topic (female, male, non-binary), and qr_awrf's value; a
#: ranking of unknown pages only is NaN there, NULL here.
TREC_FAIR = {"a": ([0.495, 0.495, 0.01], 0.9570465711134364),
             "b": ([0.495, 0.495, 0.01], 0.9460868838318743),
             "c": ([0.2, 0.3, 0.5], 0.9552460811511883),
             "d": ([0.2, 0.3, 0.5], None)}


@pytest.mark.parametrize("ranking", sorted(TREC_FAIR))
def test_trec_fair_2022_awrf(face: Face, ranking: str) -> None:
    target, expected = TREC_FAIR[ranking]
    table = evaluate_on(face, RANKINGS.filter(pl.col("qid") == ranking), ["awrf"], query="qid",
                        catalog=Catalog(items=PAGES, target=target))
    assert close(table["awrf"].to_list(), [expected], abs_=1e-8)


def test_trec_fair_2022_awrf_with_group_labels_and_a_target_per_topic(face: Face) -> None:
    labelled = pl.DataFrame({"docid": [1, 2, 3, 4, 5],
                             "group": ["female", "male", "NB", "female", "male"]})
    targets = pl.DataFrame({"qid": [q for q in "abcd" for _ in range(3)],
                            "group": ["female", "male", "NB"] * 4,
                            "weight": [w for q in "abcd" for w in TREC_FAIR[q][0]]})
    table = evaluate_on(face, RANKINGS.filter(pl.col("qid").is_in(["b", "d"])), ["awrf"],
                        query="qid", catalog=Catalog(items=labelled, target=targets))
    assert close(table["awrf"].to_list(), [TREC_FAIR["b"][1], None], abs_=1e-8)

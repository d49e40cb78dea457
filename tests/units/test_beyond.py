"""rf.Catalog's joins and evaluate's run metrics and cut (rankframe/beyond/): the joined
inputs equal the plain statement of :mod:`rankframe.beyond.reference`; a run metric's value
is its run's; the rows cut before a top-k measure change no value; and every missing or
inconsistent input is one clear error."""

from __future__ import annotations

import math
import random
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankframe as rf
from rankframe.beyond import reference as ref
from rankframe.errors import InputError
from tests.support.faces import examples

ITEMS = [f"i{n}" for n in range(8)]


@st.composite
def catalogue_cases(draw: st.DrawFn) -> dict[str, Any]:
    """Training interactions (duplicates too), recommendations of some of their users and of
    new ones, and feature vectors for some items."""
    users = [f"u{n}" for n in range(5)]
    train = draw(st.lists(st.tuples(st.sampled_from(users), st.sampled_from(ITEMS)),
                          min_size=1, max_size=25))
    recs: list[tuple[str, str, int]] = []
    for user in [*users, "new"]:
        picked = draw(st.lists(st.sampled_from(ITEMS), unique=True, max_size=5))
        recs += [(user, item, rank) for rank, item in enumerate(picked, start=1)]
    vectors = {item: draw(st.one_of(st.none(), st.lists(
        st.sampled_from([0.0, 1.0, 2.0, -1.0]), min_size=3, max_size=3))) for item in ITEMS}
    return {"train": train, "recs": recs or [("u0", "i0", 1)], "vectors": vectors}


def _frames(case: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    recs = pl.DataFrame(case["recs"], schema={"user": pl.String, "docid": pl.String,
                                              "rank": pl.Int64}, orient="row")
    train = pl.DataFrame(case["train"], schema={"user": pl.String, "docid": pl.String},
                         orient="row")
    items = pl.DataFrame({"docid": ITEMS, "features": [case["vectors"][i] for i in ITEMS]},
                         schema={"docid": pl.String, "features": pl.List(pl.Float64)})
    return recs, train, items


def _close(got: Any, want: Any) -> bool:
    return (got is None and want is None) or (
        got is not None and want is not None and math.isclose(got, want, abs_tol=1e-9))


@settings(max_examples=examples(share=0.5))
@given(case=catalogue_cases(), popularity=st.sampled_from(["interactions", "users"]),
       similarity=st.sampled_from(["cooccurrence", "features"]),
       long_tail=st.sampled_from([0.1, 0.5, 1.0, 2, 3]))
def test_catalog_joins_state_the_reference(case: dict[str, Any], popularity: str,
                                           similarity: str, long_tail: float) -> None:
    """popularity, its total, the long tail, the history similarity and the pair similarity
    the Catalog joins are the reference's, row by row."""
    from rankframe.beyond.catalog import attach

    recs, train, items = _frames(case)
    catalog = rf.Catalog(train=train, items=items, popularity=popularity,  # type: ignore[arg-type]
                         similarity=similarity, long_tail=long_tail)  # type: ignore[arg-type]
    from rankframe.measures import parse_all

    measures = parse_all(["novelty", "tail_share", "serendipity(relevance=ignore)", "diversity"])
    joined, filled, _ = attach("t", recs.with_columns(rel=pl.lit(None, pl.Float64)), measures,
                               ["user"], {"rel": "rel", "rank": "rank"}, catalog)
    pop, total = ref.item_popularity(case["train"], popularity)
    assert filled[0].values["total"] == total
    tail = ref.long_tail_items(pop, long_tail)
    sim = (ref.cooccurrence_similarity(case["train"]) if similarity == "cooccurrence"
           else ref.feature_similarity(case["vectors"]))
    history: dict[str, list[str]] = {}
    for user, item in case["train"]:
        history.setdefault(user, []).append(item)
    lists: dict[str, list[str]] = {}
    for user, item, _ in case["recs"]:
        lists.setdefault(user, []).append(item)
    for row in joined.iter_rows(named=True):
        assert row["pop"] == pop.get(row["docid"], 0)
        assert row["tail"] == (row["docid"] in tail)
        assert _close(row["similarity"], ref.history_similarity(
            row["docid"], history.get(row["user"], []), sim))
        mine = lists[row["user"]]
        expected = ref.pair_similarity(mine, sim)[mine.index(row["docid"])]
        assert _close(row["pair_similarity"], expected)


def _runs(seed: int) -> pl.DataFrame:
    draw = random.Random(seed)
    rows = [(system, f"u{u}", f"i{draw.randint(0, 9)}", rank, draw.choice([0, 1, 5, None]))
            for system in ("a", "b") for u in range(6)
            for rank in range(1, draw.randint(0, 15) + 1)]
    rows += [("a", "u9", None, None, None)]  # a user with nothing recommended
    return pl.DataFrame(rows, schema={"system": pl.String, "user": pl.String, "item": pl.String,
                                      "rank": pl.Int64, "pop": pl.Int64}, orient="row")


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("seed", [1, 2])
def test_run_metrics_take_their_runs_value_and_the_cut_changes_nothing(engine: str,
                                                                        seed: int) -> None:
    """coverage and gini per system (the query key's leading column) on every user's row;
    novelty per user; each as the builders give them over the whole table (no cut)."""
    table = _runs(seed)
    measures = ["coverage(catalog=10)@5", "gini(catalog=10)@5", "novelty(total=50)@5"]
    got = rf.evaluate(table, measures, query=["system", "user"], engine=engine)
    runs = table.group_by("system").agg(rf.coverage("item", 5, catalog=10).alias("c"),
                                        rf.gini("item", 5, catalog=10).alias("g"))
    lists = table.group_by("system", "user").agg(rf.novelty("pop", 5, total=50).alias("n"))
    want = lists.join(runs, on="system").sort("system", "user")
    assert got.height == want.height == table.select("system", "user").unique().height
    for row, expected in zip(got.iter_rows(), want.select(
            "system", "user", "c", "g", "n").iter_rows(), strict=True):
        assert row[:2] == expected[:2]
        assert all(_close(a, b) for a, b in zip(row[2:], expected[2:], strict=True)), (
            row, expected)
    summary = rf.summarize(got.filter(pl.col("system") == "a"), query=["system", "user"])
    assert summary["coverage(catalog=10)@5"].item() == runs.filter(
        pl.col("system") == "a")["c"].item()


def test_a_run_measure_over_one_query_column_is_the_whole_tables() -> None:
    table = _runs(3).filter(pl.col("system") == "a")
    got = rf.evaluate(table, ["coverage(catalog=10)"], query="user")
    whole = table.select(rf.coverage("item", catalog=10)).item()
    assert got["coverage(catalog=10)"].unique().to_list() == [whole]


@settings(max_examples=examples(share=0.5))
@given(items=st.lists(st.tuples(st.one_of(st.none(), st.integers(0, 6)),
                                st.one_of(st.none(), st.integers(1, 4))), min_size=1,
                      max_size=30),
       strings=st.booleans(), k=st.sampled_from([None, 1, 2, 3]))
def test_one_runs_run_metrics_in_a_select_are_the_group_bys(
        items: list[tuple[int | None, int | None]], strings: bool, k: int | None) -> None:
    """The Polars face evaluates one run's run metrics in a select (faces/polars/face.py,
    _one_run), with the items counted from their sorted runs: exactly the builders' values
    in a group-by of the run, for integer and string items, NULL items and ranks."""
    from rankframe.faces.polars.expr import unguarded
    from rankframe.faces.polars.face import FACE, _one_value
    from rankframe.measures import parse_all

    table = pl.DataFrame(items, schema={"item": pl.Int64, "rank": pl.UInt8}, orient="row")
    if strings:
        table = table.with_columns(pl.col("item").cast(pl.String))
    table = table.with_columns(pl.lit(0, dtype=pl.Int8).alias("run"))
    at = "" if k is None else f"@{k}"
    measures = parse_all([f"coverage(catalog=9){at}", f"gini(catalog=9){at}",
                          f"gini(over=recommended){at}", f"entropy{at}",
                          f"entropy(log=ln,divisor=items){at}"])
    assert _one_value(table.get_column("run"))
    columns = {"item": "item", "rank": "rank"}
    got = FACE.evaluate(table, measures, ["run"], columns)
    builders = [unguarded(rf.coverage)("item", k, catalog=9),
                unguarded(rf.gini)("item", k, catalog=9),
                unguarded(rf.gini)("item", k, over="recommended"),
                unguarded(rf.entropy)("item", k),
                unguarded(rf.entropy)("item", k, log="ln", divisor="items")]
    want = table.with_columns(pl.col("rank").cast(pl.Int64)).group_by("run").agg(
        b.alias(m.label) for b, m in zip(builders, measures, strict=True))
    assert got.rows() == want.rows()


# --- errors ------------------------------------------------------------------------------

RECS = pl.DataFrame({"user": ["u1", "u1"], "docid": ["a", "b"], "rank": [1, 2]})


@pytest.mark.parametrize(("measure", "catalog", "message"), [
    ("novelty@10", None, "reads each row's pop, which the table lacks; it needs the training"),
    ("ild_category", rf.Catalog(), "needs an items table with the category column"),
    ("coverage", rf.Catalog(), "needs the size of the catalogue"),
    ("awrf", rf.Catalog(items=pl.DataFrame({"docid": ["a", "b"], "group": ["x", "y"]})),
     "reads a target distribution"),
    ("awrf", rf.Catalog(items=pl.DataFrame({"docid": ["a", "b"], "group": ["x", "z"]}),
                        target={"x": 1.0, "y": 1.0}), "group 'z' of item 'b' is not in"),
    ("coverage", rf.Catalog(items=pl.DataFrame({"docid": ["a"]})),
     "item 'b' is recommended but not in the items table"),
    ("ild_category", rf.Catalog(items=pl.DataFrame({"docid": ["a", "a"], "category": [1, 2]})),
     "item 'a' has several rows in the items table"),
    ("ild_features", rf.Catalog(items=pl.DataFrame({"docid": ["a", "b"],
                                                    "features": [[1.0], [1.0, 2.0]]})),
     "have several lengths (1, 2)"),
    ("novelty", rf.Catalog(train=pl.DataFrame({"who": ["u1"], "docid": ["a"]})),
     "the training interactions table has no column 'user'"),
    ("coverage", rf.Catalog(item="sku"), "joins item attributes on the item column 'sku'"),
])
def test_a_missing_or_inconsistent_input_is_one_clear_error(measure: str, catalog: Any,
                                                            message: str) -> None:
    with pytest.raises(InputError, match=r"^evaluate: ") as caught:
        rf.evaluate(RECS, [measure], query="user", catalog=catalog)
    assert message in str(caught.value)


def test_catalog_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="popularity must be"):
        rf.Catalog(popularity="clicks")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="long_tail must be"):
        rf.Catalog(long_tail=0)


def test_side_tables_take_the_recommendations_key_types() -> None:
    """Integer ids in the training data and text ids in the run (a CSV read) still join;
    ids that do not convert are an error naming both types."""
    recs = pl.DataFrame({"user": ["1", "1"], "docid": ["3", "4"], "rank": [1, 2]})
    train = pl.DataFrame({"user": [1, 2, 2], "docid": [3, 3, 4]})
    got = rf.evaluate(recs, ["popularity"], query="user", catalog=rf.Catalog(train=train))
    assert got["popularity"].to_list() == [1.5]
    numbered = recs.with_columns(pl.col("docid").cast(pl.Int64))
    named = pl.DataFrame({"user": ["1"], "docid": ["x"]})
    with pytest.raises(InputError, match="the training interactions table's 'docid' is String, "
                                         "the recommendations' item column Int64"):
        rf.evaluate(numbered, ["popularity"], query="user", catalog=rf.Catalog(train=named))


@st.composite
def sorted_category_tables(draw: st.DrawFn) -> pl.DataFrame:
    """Lists sorted by their query (a gap in the ids, one query without a rank), ranks with
    NULLs and repeats, integer categories with NULLs over a range that may start below 0."""
    dtype = draw(st.sampled_from([pl.Int8, pl.Int64, pl.UInt16]))
    low = 0 if dtype == pl.UInt16 else draw(st.integers(-3, 2))
    category = st.one_of(st.none(), st.integers(low, low + draw(st.integers(0, 4))))
    rank = st.one_of(st.none(), st.integers(1, 6))
    rows = [(query, draw(rank), draw(category))
            for query in draw(st.lists(st.integers(0, 9), min_size=1, max_size=5, unique=True))
            for _ in range(draw(st.integers(1, 7)))]
    table = pl.DataFrame(rows, schema={"user": pl.Int32, "rank": pl.Int64, "category": dtype},
                         orient="row", strict=False)
    return table.sort("user").with_columns(pl.col("user").set_sorted())


@settings(max_examples=examples(share=0.5))
@given(table=sorted_category_tables(), k=st.sampled_from([None, 1, 2, 3, 5]))
def test_the_sorted_category_ild_is_the_builders(table: pl.DataFrame, k: int | None) -> None:
    """The Polars face's path for ild_category over a table sorted by its query gives the
    builder's values exactly, query by query, and rankframe.evaluate takes it."""
    from rankframe.faces.polars.diversity import ild_category_sorted
    from rankframe.faces.polars.expr import unguarded
    from rankframe.faces.polars.face import _sorted_paths
    from rankframe.measures import parse_all

    want = table.group_by("user").agg(unguarded(rf.ild_category)("category", k).alias("v"))
    got = ild_category_sorted(table, "user", "category", "rank", k)
    assert got is not None
    assert got.to_list() == want.sort("user").get_column("v").to_list()
    measure = "ild_category" if k is None else f"ild_category@{k}"
    parsed = parse_all([measure])
    columns = {"category": "category", "rank": "rank"}
    assert list(_sorted_paths(table, parsed, ["user"], columns)) == [parsed[0].label]
    unsorted = table.with_columns(pl.col("user").cast(pl.String))  # no sorted flag
    if unsorted.height > 1:  # (one row is flagged sorted)
        assert _sorted_paths(unsorted, parsed, ["user"], columns) == {}
    strings = table.with_columns(pl.col("category").cast(pl.String))
    assert ild_category_sorted(strings, "user", "category", "rank", k) is None

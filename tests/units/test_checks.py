"""check_judged(): schema errors at once (DataFrame and LazyFrame), data errors at once for
a DataFrame and on collection for a LazyFrame, and agreement with a plain-Python validity
rule on generated tables."""

from __future__ import annotations

import math
from collections import Counter

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from rankframe.errors import InputError
from rankframe.table.checks import check_frame, check_judged, locate_problem, valid_in_order
from tests.support.strategies import judged_tables

GOOD = pl.DataFrame({"qid": ["a", "a", "a", "b", "b"], "rank": [1, 2, None, 1, None],
                     "rel": [0.0, None, 2.0, -1.0, 1.0], "extra": [1, 2, 3, 4, 5]})


def test_valid_table_is_returned_unchanged() -> None:
    assert check_judged(GOOD) is GOOD
    lazy = check_judged(GOOD.lazy())
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), GOOD)
    assert_frame_equal(lazy.group_by("qid").agg(pl.len()).sort("qid").collect(),
                       GOOD.group_by("qid").agg(pl.len()).sort("qid"))


def test_null_dtypes_and_other_integer_widths_are_accepted() -> None:
    frame = pl.DataFrame({"qid": ["a", "a"], "rank": pl.Series([None, None], dtype=pl.Null),
                          "rel": pl.Series([1, 0], dtype=pl.Int8)})
    assert check_judged(frame) is frame
    frame = pl.DataFrame({"qid": ["a"], "rank": pl.Series([1], dtype=pl.UInt16),
                          "rel": pl.Series([None], dtype=pl.Null)})
    assert check_judged(frame) is frame


@pytest.mark.parametrize(("frame", "kwargs", "message"), [
    (GOOD.drop("rank"), {},
     "check_judged: missing column(s) 'rank'; the table has: 'qid', 'rel', 'extra'"),
    (GOOD, {"query": ("system", "qid"), "rel": "grade"}, "missing column(s) 'system', 'grade'"),
    (GOOD.with_columns(pl.col("rank").cast(pl.Float64)), {},
     "column 'rank' must hold integer ranks, got Float64"),
    (GOOD.with_columns(pl.col("rank").cast(pl.String)), {},
     "column 'rank' must hold integer ranks, got String"),
    (GOOD.with_columns(pl.col("rel").cast(pl.String)), {},
     "column 'rel' must hold numeric grades, got String"),
])
def test_schema_errors_at_once_for_both_kinds(frame: pl.DataFrame, kwargs: dict[str, str],
                                              message: str) -> None:
    for candidate in (frame, frame.lazy()):
        with pytest.raises(InputError) as info:
            check_judged(candidate, **kwargs)  # type: ignore[arg-type]
        assert message in str(info.value)


@pytest.mark.parametrize(("frame", "message"), [
    (GOOD.with_columns(rank=pl.Series([1, 2, None, 0, None])),
     "check_judged: query 'b' has rank 0 at row 3 (0-based); ranks start at 1"),
    (GOOD.with_columns(rank=pl.Series([1, -2, None, 1, None])), "query 'a' has rank -2 at row 1"),
    (GOOD.with_columns(rank=pl.Series([2, 2, None, 1, None])),
     "query 'a' has rank 2 twice (rows 0 and 1, 0-based); ranks must be unique within a query"),
    (pl.concat([GOOD, GOOD.tail(2)]), "query 'b' has rank 1 twice (rows 3 and 5, 0-based)"),
    (GOOD.with_columns(rel=pl.Series([0.0, float("nan"), 2.0, -1.0, 1.0])),
     "query 'a' has a NaN grade in 'rel' at row 1 (0-based)"),
])
def test_data_errors_eager_at_once_lazy_on_collect(frame: pl.DataFrame, message: str) -> None:
    with pytest.raises(InputError) as info:
        check_judged(frame)
    assert message in str(info.value)
    lazy = check_judged(frame.lazy())
    with pytest.raises(InputError) as info:
        lazy.collect()
    assert message in str(info.value)


def test_composite_query_key() -> None:
    frame = pl.DataFrame({"system": ["A", "B", "B"], "qid": [1, 1, 1], "rank": [1, 1, 1],
                          "rel": [1, 0, 1]})
    assert check_judged(frame.head(2), query=["system", "qid"]).height == 2
    with pytest.raises(InputError, match=r"query \('B', 1\) has rank 1 twice \(rows 1 and 2"):
        check_judged(frame, query=("system", "qid"))
    with pytest.raises(InputError, match="query 1 has rank 1 twice"):
        check_judged(frame, query="qid")


def test_null_query_key_is_named() -> None:
    frame = pl.DataFrame({"qid": [None, None], "rank": [1, 1], "rel": [1, 0]},
                         schema_overrides={"qid": pl.String})
    with pytest.raises(InputError, match="the query column 'qid' is NULL at row 0"):
        check_judged(frame)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="query must name at least one column"):
        check_judged(GOOD, query=[])
    with pytest.raises(TypeError, match="expected a polars DataFrame or LazyFrame, got dict"):
        check_judged({"qid": []})  # type: ignore[call-overload]


def is_valid(frame: pl.DataFrame) -> bool:
    """§1 as a loop: query ids not NULL, ranks >= 1 and unique per query, finite grades."""
    if frame["qid"].null_count():
        return False
    ranks = Counter((q, r) for q, r in zip(frame["qid"], frame["rank"], strict=True)
                    if r is not None)
    if any(r < 1 for _, r in ranks) or any(n > 1 for n in ranks.values()):
        return False
    return not any(g is not None and not math.isfinite(g) for g in frame["rel"])


@st.composite
def damaged_tables(draw: st.DrawFn) -> pl.DataFrame:
    """A generated judged table, sometimes with a rank or a grade spoiled."""
    frame = draw(judged_tables())
    damage = draw(st.sampled_from(["none", "rank", "nan"]))
    if damage == "none" or frame.height == 0:
        return frame
    row = draw(st.integers(0, frame.height - 1))
    if damage == "rank":
        ranks = frame["rank"].to_list()
        ranks[row] = draw(st.integers(-1, 4))
        return frame.with_columns(rank=pl.Series(ranks, dtype=pl.Int64))
    grades = frame["rel"].to_list()
    grades[row] = float("nan")
    return frame.with_columns(rel=pl.Series(grades, dtype=pl.Float64))


@given(frame=damaged_tables())
def test_generated_tables_against_the_rule(frame: pl.DataFrame) -> None:
    if is_valid(frame):
        assert check_judged(frame) is frame
        assert_frame_equal(check_judged(frame.lazy()).collect(), frame)
    else:
        with pytest.raises(InputError):
            check_judged(frame)
        with pytest.raises(InputError):
            check_judged(frame.lazy()).collect()


LAYOUTS = {
    # Sorted by query; each query's unranked rows after its ranked ones.
    "by query": lambda f: f.sort("qid", "rank", nulls_last=True, maintain_order=True),
    # judge()'s order: every ranked row by (query, rank), then the unranked rows.
    "ranked first": lambda f: f.sort(pl.col("rank").is_null(), "qid", "rank",
                                     maintain_order=True),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_ordered_tables_take_the_linear_path_with_the_same_verdict(layout: str) -> None:
    """In either layout a valid table is proven valid by comparing neighbours (and whether
    it is sorted by query is reported right); an invalid one still fails, with the exact
    checks' message."""

    @given(frame=damaged_tables())
    def check(frame: pl.DataFrame) -> None:
        ordered = LAYOUTS[layout](frame)
        if is_valid(ordered):
            assert check_judged(ordered) is ordered
            checked = valid_in_order(ordered, ["qid"], "rel", "rank")
            assert checked is not None, "a valid table missed the linear path"
            assert checked.grouped == ordered["qid"].is_sorted()
            starts = ordered.select(pl.col("qid").ne_missing(pl.col("qid").shift(1)))
            assert checked.new_key is not None
            assert checked.new_key.to_list() == starts.to_series().to_list()
            again = check_frame(ordered, ["qid"], "rel", "rank")
            assert again.grouped == checked.grouped
            assert again.new_key is not None and again.new_key.equals(checked.new_key)
        else:
            with pytest.raises(InputError) as fast:
                check_judged(ordered)
            with pytest.raises(InputError) as exact:
                locate_problem(ordered, ["qid"], "rel", "rank")
            assert str(fast.value) == str(exact.value)

    check()


def test_sorted_composite_keys() -> None:
    frame = pl.DataFrame({"system": ["A", "A", "B", "B"], "qid": [1, 1, 1, 2],
                          "rank": [1, 2, 1, 1], "rel": [1, 0, 1, 0]})
    assert check_frame(frame, ["system", "qid"], "rel", "rank").grouped is True
    assert check_frame(frame.reverse(), ["system", "qid"], "rel", "rank").grouped is False
    with pytest.raises(InputError, match=r"query \('A', 1\) has rank 1 twice"):
        check_judged(frame.with_columns(rank=pl.Series([1, 1, 1, 1])), query=["system", "qid"])

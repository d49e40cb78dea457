"""The linear rank checks (``rankframe.table.ranks``) against a plain-Python statement of the
rule: a group is invalid when it holds a rank below 1, a rank that is not whole (NaN and
infinity included), or the same rank twice; NULL ranks are valid. Every path is reached:
pairs in order (neighbours compared), the dense scatter, the sort for sparse or repeated
pairs, integer and float ranks."""

from __future__ import annotations

import math
from contextlib import nullcontext
from unittest import mock

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from rankframe.table import ranks as checks
from tests.support.faces import examples

Rows = list[tuple[int, float | int | None]]


def invalid_by_rule(rows: Rows, groups: int) -> list[bool]:
    seen: list[set[float]] = [set() for _ in range(groups)]
    bad = [False] * groups
    for group, rank in rows:
        if rank is None:
            continue
        whole = not (math.isnan(rank) or math.isinf(rank)) and rank == math.floor(rank)
        if not whole or rank < 1 or rank in seen[group]:
            bad[group] = True
        else:
            seen[group].add(rank)
    return bad


rank_values = st.one_of(st.none(), st.integers(-2, 12), st.sampled_from([10**6, 2**40]))
float_values = st.one_of(rank_values.map(lambda r: None if r is None else float(r)),
                         st.sampled_from([1.5, math.nan, math.inf, -math.inf]))


@st.composite
def grouped_rows(draw: st.DrawFn, floats: bool) -> tuple[Rows, int]:
    groups = draw(st.integers(1, 6))
    sizes = draw(st.lists(st.integers(0, 8), min_size=groups, max_size=groups))
    rows: Rows = []
    for group, size in enumerate(sizes):
        for _ in range(size):
            rows.append((group, draw(float_values if floats else rank_values)))
    if draw(st.booleans()):  # sorted within groups: the neighbours' path
        rows.sort(key=lambda r: (r[0], -math.inf if r[1] is None else r[1]))
    return rows, groups


def sparse() -> mock._patch[int]:
    """Every key space too sparse for the scatter: the sort decides."""
    return mock.patch.multiple(checks, DENSE_FACTOR=0, _DENSE_SLACK=0)


@settings(max_examples=examples())
@given(case=grouped_rows(floats=False), floats=st.booleans(), dense=st.booleans())
def test_invalid_groups_follow_the_rule(case: tuple[Rows, int], floats: bool,
                                        dense: bool) -> None:
    rows, groups = case
    with nullcontext() if dense else sparse():
        check_rule(rows, groups, floats)


def check_rule(rows: Rows, groups: int, floats: bool) -> None:
    dtype = pl.Float64 if floats else pl.Int64
    group = pl.Series([g for g, _ in rows], dtype=pl.UInt32)
    rank = pl.Series([None if r is None else (float(r) if floats else r) for _, r in rows],
                     dtype=dtype)
    got = checks.invalid_in_rows(group, rank, groups).to_list()
    assert got == invalid_by_rule(rows, groups), rows
    lists = pl.DataFrame({"g": group, "rank": rank}).group_by("g").agg("rank")
    lists = pl.DataFrame({"g": pl.int_range(groups, eager=True, dtype=pl.UInt32)}).join(
        lists, on="g", how="left", maintain_order="left").get_column("rank").fill_null([])
    assert checks.invalid_groups(lists, groups).to_list() == got


@settings(max_examples=examples())
@given(case=grouped_rows(floats=True))
def test_float_ranks_follow_the_rule(case: tuple[Rows, int]) -> None:
    rows, groups = case
    group = pl.Series([g for g, _ in rows], dtype=pl.UInt32)
    rank = pl.Series([r for _, r in rows], dtype=pl.Float64)
    assert checks.invalid_in_rows(group, rank, groups).to_list() == invalid_by_rule(
        rows, groups)


def test_a_repeat_is_found_in_each_path() -> None:
    group = pl.Series([0, 1, 1, 2, 2], dtype=pl.UInt32)
    shuffled = pl.Series([3, 2, 1, 5, 5])
    in_order = pl.Series([3, 1, 2, 5, 5])
    assert checks.repeated_groups(group, in_order, 3).to_list() == [2]
    assert checks.repeated_groups(group, shuffled, 3).to_list() == [2]
    with sparse():
        assert checks.repeated_groups(group, shuffled, 3).to_list() == [2]


def test_ranks_beyond_int64_and_huge_floats() -> None:
    group = pl.Series([0, 0, 1], dtype=pl.UInt32)
    big = pl.Series([2**64 - 1, 2**64 - 1, 2**64 - 1], dtype=pl.UInt64)
    assert checks.repeated_groups(group, big, 2).to_list() == [0]
    floats = pl.Series([1e300, 1e300, 2.0])
    assert checks.invalid_in_rows(group, floats, 2).to_list() == [True, False]

"""Column names are matched exactly on every face: a grade column ``Rank`` beside ``rank``,
query keys ``["Qid", "QID"]``, an empty name. A face whose engine cannot tell two names
apart refuses them with one error naming the columns; every face gives rows in one order,
an Enum key's by its text."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import rankframe as rf
from rankframe.errors import InputError
from rankframe.faces.base import Face
from rankframe.measures import parse

# Grades in "Rank", positions in "rank": P@1 0 and MRR 1/3 (the relevant row is third).
SHADOWED = pl.DataFrame({"qid": ["a", "a", "a"], "rank": [1, 2, 3], "Rank": [0, 0, 1]})
# Two keys that differ only in case: four groups.
TWINS = pl.DataFrame({"Qid": ["a", "a", "b", "b"], "QID": ["x", "y", "x", "y"],
                      "rank": [1, 1, 1, 1], "rel": [1, 0, 1, 0]})
TWIN_GROUPS = [("a", "x", 1.0), ("a", "y", 0.0), ("b", "x", 1.0), ("b", "y", 0.0)]
# An Enum whose categories are not in text order.
ENUM_KEYED = pl.DataFrame({"qid": ["a", "b", "z", "a"], "rank": [1, 1, 1, 2],
                           "rel": [1, 0, 1, 0]}).with_columns(
    pl.col("qid").cast(pl.Enum(["z", "b", "a"])))

# The faces whose engine matches names without regard to case (a table cannot hold both).
CASE_BLIND = {"ibis-duckdb", "ibis-sqlite"}


def _rows(face: Face, judged: pl.DataFrame, measures: list[str], keys: list[str],
          columns: dict[str, str]) -> list[tuple[Any, ...]]:
    table = face.native(judged)
    result = face.to_polars(face.evaluate(table, [parse(m) for m in measures], keys, columns))
    return result.rows()


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_grade_column_named_like_rank(engine: str) -> None:
    got = rf.evaluate(SHADOWED, ["P@1", "mrr"], rel="Rank", engine=engine)
    assert got.rows() == [("a", 0.0, pytest.approx(1 / 3))]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_keys_that_differ_only_in_case(engine: str) -> None:
    got = rf.evaluate(TWINS, ["P@1"], query=["Qid", "QID"], engine=engine)
    assert got.rows() == TWIN_GROUPS
    assert got.columns == ["Qid", "QID", "P@1"]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_empty_column_name(engine: str) -> None:
    judged = pl.DataFrame({"qid": ["a", "a", "b"], "": [1, 2, 1], "rel": [0, 1, 1]})
    got = rf.evaluate(judged, ["P@1", "map"], rank="", engine=engine)
    assert got.rows() == [("a", 0.0, 0.5), ("b", 1.0, 1.0)]


def test_every_face_keeps_case_twins_apart_or_refuses(checked_face: Face) -> None:
    columns = {"rel": "rel", "rank": "rank"}
    if checked_face.name in CASE_BLIND:
        with pytest.raises(InputError, match=r"'Qid' and 'QID' .* differ only in case"):
            _rows(checked_face, TWINS, ["P@1"], ["Qid", "QID"], columns)
        return
    assert _rows(checked_face, TWINS, ["P@1"], ["Qid", "QID"], columns) == TWIN_GROUPS
    got = _rows(checked_face, SHADOWED, ["P@1", "mrr"], ["qid"], {"rel": "Rank", "rank": "rank"})
    assert got == [("a", 0.0, pytest.approx(1 / 3))]


def test_enum_key_rows_in_text_order_on_every_face(checked_face: Face) -> None:
    got = _rows(checked_face, ENUM_KEYED, ["P@1"], ["qid"], {"rel": "rel", "rank": "rank"})
    assert [str(row[0]) for row in got] == ["a", "b", "z"]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_enum_key_keeps_its_dtype(engine: str) -> None:
    got = rf.evaluate(ENUM_KEYED, ["P@1"], engine=engine)
    assert got.schema["qid"] == ENUM_KEYED.schema["qid"]
    assert got.rows() == [("a", 1.0), ("b", 0.0), ("z", 1.0)]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_object_query_column_is_refused(engine: str) -> None:
    judged = pl.DataFrame({"qid": pl.Series(["a", "a", "b"], dtype=pl.Object),
                           "rank": [1, 2, 1], "rel": [0, 1, 1]})
    with pytest.raises(InputError, match=r"query column 'qid' holds Python objects"):
        rf.evaluate(judged, ["P@1"], engine=engine)

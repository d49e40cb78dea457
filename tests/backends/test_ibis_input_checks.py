"""The judge's input checks are written once (:mod:`rankframe.table.input_checks`): the
Polars and Ibis judges (and Spark's, ``test_spark_input_checks.py``) word a bad schema the
same way, each face supplying only how it reads a column's type."""
# ruff: noqa: E402  (imports after the check of what the module needs)

from __future__ import annotations

import re

import polars as pl
import pytest

from tests.support import needs

pytestmark = needs.module_level("ibis")

import ibis

import rankframe as rf
import rankframe.ibis as rfi
from rankframe.errors import InputError
from tests.support import REPO

#: Words of the checks' messages, each to be written in one module of the package only.
MESSAGES = ("must hold string or integer", "must be numeric", "ids must be strings on both sides",
            "must be distinct column names", "in the {side}: {pairs}")

RUN = {"qid": ["q1", "q1"], "docid": ["a", "b"], "score": [2.0, 1.0]}
QRELS = {"qid": ["q1"], "docid": ["b"], "rel": [1]}


def test_each_message_is_written_in_one_module() -> None:
    sources = {path.relative_to(REPO).as_posix(): path.read_text(encoding="utf-8")
               for path in (REPO / "rankframe").rglob("*.py")}
    found = {words: sorted(name for name, text in sources.items() if words in text)
             for words in MESSAGES}
    assert found == {words: ["rankframe/table/input_checks.py"] for words in MESSAGES}


def _errors(run: dict[str, list[object]], qrels: dict[str, list[object]],
            **names: str) -> tuple[str, str]:
    """The messages of the Polars judge and of the Ibis (DuckDB) judge for these inputs."""
    messages = []
    for judge in (lambda r, q: rf.judge(pl.DataFrame(r), pl.DataFrame(q), **names),
                  lambda r, q: rfi.judge(ibis.memtable(r), ibis.memtable(q), **names)):
        with pytest.raises((InputError, ValueError)) as error:
            judge(run, qrels)
        messages.append(str(error.value))
    return messages[0], messages[1]


def test_a_missing_column_is_named_alike() -> None:
    polars, ibis_ = _errors({"qid": ["q1"], "docid": ["b"], "points": [1.0]}, QRELS)
    assert polars == ibis_ == ("judge: the run has no column 'score'; its columns are: 'qid', "
                               "'docid', 'points'")


def test_names_that_are_not_distinct_are_refused_alike() -> None:
    polars, ibis_ = _errors(RUN, QRELS, doc="qid")
    assert polars == ibis_
    assert "must be distinct column names other than 'rank'" in polars


@pytest.mark.parametrize(("run", "qrels", "pattern"), [
    (RUN | {"score": ["x", "y"]}, QRELS,
     r"judge: column 'score' of the run must be numeric, got (String|string)"),
    (RUN | {"docid": [1.5, 2.5]}, QRELS,
     r"judge: column 'docid' of the run must hold string or integer ids, got (Float64|float64)"),
    (RUN, QRELS | {"docid": [7]},
     r"judge: column 'docid' is (String|string) in the run but (Int64|int64) in the qrels; ids "
     r"must be strings on both sides or integers on both sides \(cast one"),
])
def test_a_wrong_type_is_worded_alike(run: dict[str, list[object]],
                                      qrels: dict[str, list[object]], pattern: str) -> None:
    for message in _errors(run, qrels):
        assert re.match(pattern, message), message

"""The Spark judge words its input errors as the Ibis and Polars judges do: the checks and
their messages are written once (:mod:`rankframe.table.input_checks`), Spark supplying only
how it reads a column's type. Runs when the spark face is selected."""
# ruff: noqa: E402  (imports after the check of what the module needs)

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from tests.support import needs

pytestmark = [needs.module_level("pyspark", "ibis"), pytest.mark.face("spark")]

import ibis
from pyspark.sql import SparkSession

import rankframe as rf
import rankframe.ibis as rfi
import rankframe.spark as rfs
from rankframe.errors import InputError

Rows = list[tuple[Any, ...]]
RUN_SCHEMA = "qid string, docid string, score double"
QRELS_SCHEMA = "qid string, docid string, rel int"


def _columns(rows: Rows, names: tuple[str, ...]) -> dict[str, list[Any]]:
    return {name: [row[i] for row in rows] for i, name in enumerate(names)}


def _spark_error(spark: SparkSession, run: Rows, qrels: Rows, **names: str) -> str:
    with pytest.raises((InputError, ValueError)) as error:
        rfs.judge(spark.createDataFrame(run, RUN_SCHEMA),
                  spark.createDataFrame(qrels, QRELS_SCHEMA), **names)
    return str(error.value)


@pytest.mark.parametrize(("run", "qrels"), [
    ([("q1", "a", 1.0), ("q1", "a", 2.0), ("q2", "b", 1.0), ("q2", "b", 1.0)],
     [("q1", "a", 1)]),
    ([("q1", "a", 1.0)], [("q1", "b", 1), ("q1", "b", 0), ("q1", "b", 2)]),
    ([("q1", "a", None)], [("q1", "a", 1)]),
    ([("q1", None, 1.0)], [("q1", "a", 1)]),
    ([("q1", "a", 1.0)], [(None, "a", 1)]),
], ids=["run-duplicates", "qrels-duplicate", "null-score", "null-doc", "null-qid"])
def test_bad_data_is_worded_as_by_the_ibis_judge(spark_session: SparkSession, run: Rows,
                                                 qrels: Rows) -> None:
    spark_message = _spark_error(spark_session, run, qrels)
    run_t = ibis.memtable(_columns(run, ("qid", "docid", "score")),
                          schema={"qid": "string", "docid": "string", "score": "float64"})
    qrels_t = ibis.memtable(_columns(qrels, ("qid", "docid", "rel")),
                            schema={"qid": "string", "docid": "string", "rel": "int32"})
    with pytest.raises(InputError) as error:
        rfi.judge(run_t, qrels_t)
    assert spark_message == str(error.value)


def test_bad_schemas_are_worded_as_by_the_polars_judge(spark_session: SparkSession) -> None:
    run, qrels = [("q1", "a", 1.0)], [("q1", "a", 1)]
    polars_run = pl.DataFrame(_columns(run, ("qid", "docid", "score")))
    polars_qrels = pl.DataFrame(_columns(qrels, ("qid", "docid", "rel")))
    for names in ({"score": "points"}, {"doc": "qid"}, {"score": "rank"}):
        with pytest.raises((InputError, ValueError)) as error:
            rf.judge(polars_run, polars_qrels, **names)
        assert _spark_error(spark_session, run, qrels, **names) == str(error.value)

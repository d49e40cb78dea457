"""Hostile input to the Ibis faces (issue 37): two columns whose names differ only in case
(a grade column ``Rank`` beside the rank column ``rank``) give the right numbers where the
backend tells them apart, and a clear error wherever it may not (DuckDB and SQLite match
names without regard to case; an unbound table runs on DuckDB), from ``rfi.evaluate``,
``rfi.evaluate_run``, ``rfi.judge`` and ``rfi.to_sql`` alike: never a wrong number."""

from __future__ import annotations

import polars as pl
import pytest

pytest.importorskip("ibis", reason="Ibis is not installed (pip install 'rankframe[ibis]')")

import ibis

import rankframe as rf
import rankframe.ibis as rfi
from rankframe.errors import InputError

#: A judged table whose grades are in ``Rank``, beside its ranks in ``rank``.
TWINS = pl.DataFrame({"qid": ["a"] * 3 + ["b"] * 3, "doc": list("xyzxyz"),
                      "rank": [1, 2, 3, 1, 2, 3], "Rank": [0, 0, 1, 0, 1, 1]})
MEASURES = ["P@1", "mrr", "ndcg"]
TWIN_ERROR = r"columns 'rank' and 'Rank' of the judged table differ only in case"


def expected() -> list[tuple[object, ...]]:
    rows = rf.evaluate(TWINS, MEASURES, rel="Rank").rows()
    assert rows == rf.evaluate(TWINS, MEASURES, rel="Rank", engine="duckdb").rows()
    assert [row[1:3] for row in rows] == [(0.0, 1 / 3), (0.0, 0.5)]
    return rows


@pytest.mark.face("ibis-duckdb")
def test_an_unbound_table_with_case_twins_is_refused() -> None:
    """An unbound table runs on Ibis's default backend, DuckDB, whatever the caller meant:
    refused rather than P@1 1.0 for every query."""
    expected()
    with pytest.raises(InputError, match=TWIN_ERROR + r".*Ibis's default backend \(DuckDB\)"):
        rfi.evaluate(ibis.memtable(TWINS.to_arrow()), MEASURES, rel="Rank")


@pytest.mark.face("ibis-duckdb")
# ibis 12's DuckDB backend fetches results with a method duckdb 2.0 deprecates.
@pytest.mark.filterwarnings("ignore:fetch_arrow_table:DeprecationWarning")
def test_a_duckdb_table_keeps_no_case_twins_and_a_missing_column_is_named() -> None:
    """DuckDB renames the second twin as it binds the table (Rank_1): the grade column the
    caller names is missing, which is said, not read from ``rank`` as DuckDB would."""
    con = ibis.duckdb.connect()
    table = con.create_view("judged", ibis.memtable(TWINS.to_arrow()))
    assert table.columns == ("qid", "doc", "rank", "Rank_1")
    with pytest.raises(InputError, match=r"evaluate: missing column\(s\) 'Rank'; the table "
                                         "has: 'qid', 'doc', 'rank', 'Rank_1'"):
        rfi.evaluate(table, MEASURES, rel="Rank")
    renamed = con.create_view("renamed", ibis.memtable(
        TWINS.rename({"rank": "position"}).to_arrow()))
    assert con.to_polars(rfi.evaluate(renamed, MEASURES, rel="Rank", rank="position")
                         ).rows() == expected()


@pytest.mark.face("ibis-datafusion")
def test_a_case_exact_backend_gives_the_right_numbers() -> None:
    con = ibis.datafusion.connect()
    table = con.create_table("judged", TWINS.to_arrow())
    result = con.to_polars(rfi.evaluate(table, MEASURES, rel="Rank"))
    assert result.rows() == expected()


@pytest.mark.face("ibis-duckdb")
def test_evaluate_run_and_judge_refuse_case_twins_in_their_inputs() -> None:
    run = ibis.memtable({"qid": ["a"], "docid": ["x"], "score": [1.0], "Score": [2.0]})
    qrels = ibis.memtable({"qid": ["a"], "docid": ["x"], "rel": [1]})
    with pytest.raises(InputError, match="columns 'score' and 'Score' of the run differ only"):
        rfi.evaluate_run(run, qrels, ["P@1"])
    with pytest.raises(InputError, match="columns 'score' and 'Score' of the run differ only"):
        rfi.judge(run, qrels)


@pytest.mark.parametrize("dialect", ["duckdb", "sqlite", "mysql", "bigquery"])
def test_to_sql_refuses_case_twins_where_the_dialect_may_not_tell_them_apart(
        dialect: str) -> None:
    with pytest.raises(InputError, match=r"to_sql: columns 'Rank' and 'rank' of the table "
                                         r"'judged' differ only in case"):
        rfi.to_sql(MEASURES, dialect=dialect, rel="Rank", rank="rank")
    with pytest.raises(InputError, match="'qid' and 'QID'"):
        rfi.to_sql(MEASURES, dialect=dialect, query=["qid", "QID"])


@pytest.mark.parametrize("dialect", ["postgres", "datafusion"])
def test_to_sql_keeps_case_twins_where_the_dialect_tells_them_apart(dialect: str) -> None:
    sql = rfi.to_sql(MEASURES, dialect=dialect, rel="Rank", rank="rank")
    assert '"Rank"' in sql and '"rank"' in sql

"""The DuckDB face with the caller's connection: per-call names (threads sharing a
connection, a user object named like rankframe's), the macro check cached per connection
and re-run after a change, macros stored by another DuckDB version, and one rankframe
error for a connection or key it cannot use."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankframe as rf
import rankframe.duckdb
from rankframe.errors import EngineError
from rankframe.faces import macros

MEASURES = ["map", "ndcg@10", "P@5"]


def _judged(seed: int, queries: int = 30) -> pl.DataFrame:
    rng = random.Random(seed)
    rows = [(f"q{q}", r, rng.randint(0, 2)) for q in range(queries) for r in range(1, 21)]
    return pl.DataFrame(rows, schema=["qid", "rank", "rel"], orient="row")


def test_threads_sharing_a_connection_see_their_own_tables() -> None:
    con = duckdb.connect()
    tables = [_judged(seed) for seed in range(4)]
    expected = [rf.evaluate(t, MEASURES) for t in tables]
    failures: list[str] = []

    def work(i: int) -> None:
        for _ in range(8):
            got = rf.evaluate(tables[i], MEASURES, engine="duckdb", con=con)
            if not got.equals(expected[i]):
                failures.append(f"thread {i} read another table")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(tables))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


@pytest.mark.parametrize("kind", ["TABLE", "VIEW", "TEMP TABLE"])
def test_a_user_object_named_like_rankframes_is_left_alone(kind: str) -> None:
    con = duckdb.connect()
    con.execute(f"CREATE {kind} __rankframe_judged AS SELECT 42 AS answer")
    judged = _judged(1)
    got = rf.evaluate(judged, MEASURES, engine="duckdb", con=con)
    assert got.equals(rf.evaluate(judged, MEASURES))
    assert con.sql("SELECT * FROM __rankframe_judged").fetchall() == [(42,)]


def _counted_checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    check = macros.ensure_macros

    def counting(*args: object, **kwargs: object) -> bool:
        calls.append(1)
        return check(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(macros, "ensure_macros", counting)
    return calls


def test_the_macro_check_is_cached_per_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counted_checks(monkeypatch)
    con = rankframe.duckdb.register(duckdb.connect())
    judged = _judged(2)
    for _ in range(5):
        rf.evaluate(judged, MEASURES, engine="duckdb", con=con)
    assert len(calls) == 1  # the first call's; then nothing that binds a name changed
    rf.evaluate(judged, ["bpref"], engine="duckdb", con=con)
    assert len(calls) == 2  # a metric not checked yet


def test_a_macro_redefined_after_the_check_is_refused() -> None:
    con = duckdb.connect()
    judged = _judged(3)
    rf.evaluate(judged, MEASURES, engine="duckdb", con=con)
    rf.evaluate(judged, MEASURES, engine="duckdb", con=con)
    con.execute("CREATE OR REPLACE TEMP MACRO rf_ndcg(rel, rank, k := NULL, gain := 'linear', "
                "ideal := 'all', gains := NULL) AS 0.5")
    with pytest.raises(EngineError, match="rf_ndcg"):
        rf.evaluate(judged, MEASURES, engine="duckdb", con=con)
    con.execute("CREATE OR REPLACE TEMP MACRO rf__ratio(numerator, denominator) AS 1.0")
    with pytest.raises(EngineError, match="rf__ratio"):
        rf.evaluate(judged, ["P@5"], engine="duckdb", con=con)


def test_stored_macros_are_recognised_by_their_marker(tmp_path: Path) -> None:
    """Macros stored with this version's marker are rankframe's own whatever DuckDB printed
    them; the marker goes with the definition (replacing the macro drops it)."""
    path = str(tmp_path / "kept.duckdb")
    con = duckdb.connect(path)
    con.execute(rankframe.duckdb.sql_text(persistent=True))
    # As another DuckDB version prints a stored macro: the same macro, other text.
    con.execute("CREATE OR REPLACE MACRO rf__ratio(numerator, denominator) AS "
                "(CASE WHEN denominator > 0 THEN numerator / denominator "
                "ELSE CAST(0 AS DOUBLE) END)")
    con.execute("COMMENT ON MACRO rf__ratio IS " + _marker(con, "rf__k"))
    judged = _judged(4)
    got = rf.evaluate(judged, MEASURES, engine="duckdb", con=con)
    assert_frame_equal(got, rf.evaluate(judged, MEASURES))
    con.execute("CREATE OR REPLACE MACRO rf__ratio(numerator, denominator) AS 0.0")
    with pytest.raises(EngineError, match=r"rf__ratio .*no marker of this rankframe"):
        rf.evaluate(judged, MEASURES, engine="duckdb", con=duckdb.connect(path))


def _marker(con: duckdb.DuckDBPyConnection, name: str) -> str:
    [(comment,)] = con.sql("SELECT comment FROM duckdb_functions() WHERE function_name = ?",
                           params=[name]).fetchall()
    assert comment.startswith("rankframe ")
    return "'" + comment + "'"


def test_another_rankframes_stored_macros_are_named_by_version(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "old.duckdb"))
    con.execute(rankframe.duckdb.sql_text(persistent=True))
    con.execute("CREATE OR REPLACE MACRO rf__ratio(numerator, denominator) AS 0.0")
    con.execute("COMMENT ON MACRO rf__ratio IS 'rankframe 0.0.1 sha256:0123456789abcdef'")
    with pytest.raises(EngineError, match=r"rf__ratio .*stored by rankframe 0\.0\.1"):
        rf.evaluate(_judged(5), ["P@5"], engine="duckdb", con=con)


@pytest.mark.parametrize("con", ["file.db", 5, pl.DataFrame()])
def test_a_connection_that_is_not_one(con: object) -> None:
    with pytest.raises(EngineError, match=r"con must be a DuckDB connection"):
        rf.evaluate(_judged(6), ["P@5"], engine="duckdb", con=con)


def test_a_closed_connection() -> None:
    con = duckdb.connect()
    rf.evaluate(_judged(7), ["P@5"], engine="duckdb", con=con)  # checked and cached
    con.close()
    with pytest.raises(EngineError, match=r"connection given as con cannot be used.*closed"):
        rf.evaluate(_judged(7), ["P@5"], engine="duckdb", con=con)


def test_unsigned_run_ids_beside_signed_qrels_ids() -> None:
    """judge widens UInt64 beside Int64 to Int128, which DuckDB does not read from Polars:
    the face groups and sorts by the ids' rank and gives the ids back."""
    run = pl.DataFrame({"qid": pl.Series([1, 2**63 + 5, 2, 2], dtype=pl.UInt64),
                        "docid": ["a", "b", "c", "d"], "score": [1.0, 2.0, 3.0, 1.0]})
    qrels = pl.DataFrame({"qid": [1, 2, 3, -4], "docid": ["a", "d", "x", "y"],
                          "rel": [1, 1, 1, 0]})
    for measures in (["P@1", "map"], ["P@1", "bpref"]):  # the pruned path, then the other
        expected = rf.evaluate_run(run, qrels, measures)
        got = rf.evaluate_run(run, qrels, measures, engine="duckdb")
        assert got.schema["qid"] == pl.Int128
        assert_frame_equal(got, expected)

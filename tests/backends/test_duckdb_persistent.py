"""SQL without Python: the cutoff ``k`` of every macro may be left out (the whole list, as
NULL), and ``register(con, persistent=True)`` (``rankframe sql --persistent``) stores the
macros in the database file, where a later connection finds them, ``evaluate`` accepts
them as this version's, and registering again replaces an older version's."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankframe as rf
import rankframe.duckdb
from rankframe.cli.main import main
from rankframe.errors import EngineError
from rankframe.registry import METRICS
from tests.support import SQL_DIR

WITH_K = sorted(name for name, m in METRICS.items() if any(p.name == "k" for p in m.params))
# rank 1..5 with grades, one judged but unretrieved row; tie columns of untied ranks.
ROWS = ("FROM (VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1), (NULL, 2)) t(rank, rel) "
        "SELECT rel, rank, rank AS tie_first, CASE WHEN rank IS NOT NULL THEN 1 END AS tie_size, "
        # the item columns of the beyond-accuracy metrics
        "'i' || rel AS item, rel AS pop, rel > 1 AS tail, rel % 2 AS category, "
        "[rel, 1.0] AS features, 0.5 AS pair_similarity, 0.25 AS similarity, "
        "[1.0, rel] AS alignment, [1.0, 1.0] AS target")
JUDGED = pl.DataFrame({"qid": ["a", "a", "a", "b"], "rank": [1, 2, None, 1],
                       "rel": [1, 0, 2, 1]})
MEASURES = ["ndcg@3", "P@1", "map", "ndcg"]


def rf_macros(con: duckdb.DuckDBPyConnection) -> dict[str, set[str]]:
    """Each database of ``con`` holding ``rf_*`` macros, with their names."""
    found: dict[str, set[str]] = {}
    for database, name in con.sql(
            "SELECT database_name, function_name FROM duckdb_functions() "
            "WHERE function_name LIKE 'rf\\_%' ESCAPE '\\'").fetchall():
        found.setdefault(database, set()).add(name)
    return found


def test_every_cutoff_metric_is_checked() -> None:
    assert {"ndcg", "precision", "average_precision", "num_ret", "ndcg_ties"} <= set(WITH_K)


@pytest.mark.parametrize("name", WITH_K)
def test_k_may_be_left_out(name: str, con: duckdb.DuckDBPyConnection) -> None:
    """``rf_<name>(cols)`` is ``rf_<name>(cols, NULL)``, for the public macro and its
    unguarded body alike; a positional k still counts."""
    metric = METRICS[name]
    columns = ", ".join(metric.columns)
    macros = [metric.macro]
    if "rank" in metric.columns:
        macros.append(f"rf__unchecked_{name}")
    # A size (a catalogue's, a total) has no default a macro can run with: given here.
    sizes = "".join(f", {p.name} := 5" for p in metric.optional if p.kind == "size")
    for macro in macros:
        left_out, null, three = con.sql(
            f"SELECT {macro}({columns}{sizes}), {macro}({columns}, NULL{sizes}), "
            f"{macro}({columns}, 3{sizes}) FROM ({ROWS})").fetchall()[0]
        assert left_out == null, macro
        assert three is not None, macro
    header = (SQL_DIR / f"{metric.macro}.sql").read_text(encoding="utf-8").splitlines()[0]
    assert ", k := NULL" in header, f"{metric.macro}'s header signature"


def test_ndcg_without_k_is_the_whole_list(con: duckdb.DuckDBPyConnection) -> None:
    got = con.sql(f"SELECT rf_ndcg(rel, rank), rf_ndcg(rel, rank, 2) FROM ({ROWS})").fetchall()
    expected = pl.DataFrame({"rank": [1, 2, 3, 4, 5, None], "rel": [3, 2, 3, 0, 1, 2]}).select(
        rf.ndcg("rel", None, rank="rank"), rf.ndcg("rel", 2, rank="rank").alias("at2")).row(0)
    assert got[0] == pytest.approx(expected, abs=1e-12)
    assert got[0][0] != got[0][1]


def test_temp_by_default_persistent_on_request(tmp_path: Path) -> None:
    """The default writes nothing to the file; ``persistent=True`` stores every macro."""
    path = str(tmp_path / "temp.duckdb")
    rankframe.duckdb.register(duckdb.connect(path)).close()
    assert rf_macros(duckdb.connect(path)) == {}
    path = str(tmp_path / "kept.duckdb")
    con = rankframe.duckdb.register(duckdb.connect(path), persistent=True)
    assert "temp" not in rf_macros(con)
    con.close()
    reopened = duckdb.connect(path, read_only=True)  # as a BI tool opens it
    stored = rf_macros(reopened)
    assert list(stored) == ["kept"] and {"rf_ndcg", "rf_judge", "rf__k"} <= stored["kept"]
    rows = reopened.sql("SELECT round(rf_ndcg(rel, rank, 5), 4), rf_num_ret(rel, rank) FROM "
                        "(VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1)) t(rank, rel)").fetchall()
    assert rows == [(0.9724, 5)]


def test_evaluate_accepts_persistent_macros_of_this_version(tmp_path: Path) -> None:
    """``ensure_macros`` takes the stored macros as rankframe's own: nothing is reloaded."""
    path = str(tmp_path / "kept.duckdb")
    rankframe.duckdb.register(duckdb.connect(path), persistent=True).close()
    con = duckdb.connect(path)
    got = rf.evaluate(JUDGED, MEASURES, engine="duckdb", con=con)
    assert_frame_equal(got, rf.evaluate(JUDGED, MEASURES), abs_tol=1e-12)
    assert "temp" not in rf_macros(con), "persistent macros were shadowed by TEMP ones"


def test_register_persistent_again_upgrades(tmp_path: Path) -> None:
    """A file holding another version's macro is refused by ``evaluate``; registering with
    ``persistent=True`` again replaces it in the file."""
    path = str(tmp_path / "old.duckdb")
    con = rankframe.duckdb.register(duckdb.connect(path), persistent=True)
    con.execute("CREATE OR REPLACE MACRO rf_ndcg(rel, rank, k, gain := 'linear', "
                "ideal := 'all') AS 0.5")  # as an older rankframe's might differ
    con.close()
    con = duckdb.connect(path)
    with pytest.raises(EngineError, match="rf_ndcg"):
        rf.evaluate(JUDGED, MEASURES, engine="duckdb", con=con)
    rankframe.duckdb.register(con, persistent=True)
    con.close()
    con = duckdb.connect(path)
    got = rf.evaluate(JUDGED, MEASURES, engine="duckdb", con=con)
    assert_frame_equal(got, rf.evaluate(JUDGED, MEASURES), abs_tol=1e-12)


def test_cli_prints_persistent_macros(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    """``rankframe sql --persistent`` run in a database file leaves the macros in it."""
    assert main(["sql", "--persistent"]) == 0
    script = capsys.readouterr().out
    assert "TEMP MACRO" not in script
    path = str(tmp_path / "cli.duckdb")
    con = duckdb.connect(path)
    con.execute(script)
    con.close()
    rows = duckdb.connect(path).sql("SELECT rf_precision(rel, rank) FROM (VALUES (1, 1), "
                                    "(2, 0)) t(rank, rel)").fetchall()
    assert rows == [(0.5,)]
    assert main(["sql", "--persistent", "--dialect", "postgres", "-m", "map"]) == 1
    assert "--persistent" in capsys.readouterr().err

"""What only the Ibis faces have: ``rankframe.ibis.to_sql`` for warehouse dialects (it
compiles for each; where the engine runs here, its SQL gives the Polars face's numbers),
the unsupported metrics as data and as a clear error, ``judge``'s input errors, PostgreSQL's
byte order of ids under any collation, and the PostgreSQL example.

Parity, golden cases and ``judge`` against the oracle run for every Ibis face in the
conformance kit (``tests/conformance``).
"""
# ruff: noqa: E402  (imports after the check of what the module needs)

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

from tests.support import needs

#: What every Ibis face shares runs with the first of them; a test of another backend says so.
pytestmark = [needs.module_level("ibis"), pytest.mark.face("ibis-duckdb")]

import ibis
import sqlglot

import rankframe as rf
import rankframe.ibis as rfi
from rankframe import faces
from rankframe.errors import InputError, MeasureError
from rankframe.faces.base import JudgeOptions, require_support
from rankframe.faces.ibis import WINDOWED, IbisFace, unsupported_metrics
from rankframe.measures import parse_all
from rankframe.registry import METRICS
from tests.conftest import provide, skip_unless_runnable
from tests.support import REPO

DATA = REPO / "examples" / "data"
#: One measure string per metric the SQL engines compute (correlations take no string).
MEASURES = [
    "P@10", "P(divisor=min)@20", "recall@10", "f1@10", "set_F@0.5", "success@5", "mrr",
    "mrr@3", "map", "map(divisor=min)@10", "map(divisor=found)@10", "Rprec", "rprec_mult@0.6",
    "bpref", "iprec@0.3", "iprec(rounding=trec_eval9)@0.7", "cg@5", "dcg@5", "dcg_exp@10", "idcg@5",
    "ndcg@10", "ndcg(ideal=retrieved)@10", "ndcg_exp", "num_ret", "num_rel", "num_rel_ret",
    "rbp@0.8", "rbp_graded@0.9", "rbp_graded(max_grade=2)@0.5", "rbp_residual@0.8", "err@20",
    "err(max_grade=2)", "judged@10", "P_ties@10", "recall_ties@10", "dcg_ties@10",
    "ndcg_ties@10", "mrr_ties", "map_ties", "map_ties(divisor=min)@10",
    # trec_eval 10's further measures that Ibis expresses
    "binG", "infAP", "ndcg_p", "num_nonrel_judged_ret", "relative_P@5", "set_relative_P",
    "set_map", "unj@10", "utility", "yaap",
]
WAREHOUSES = ["bigquery", "snowflake", "trino", "clickhouse", "postgres", "duckdb", "sqlite",
              "datafusion", "mysql", "databricks"]


#: The families of the beyond-accuracy metrics.
BEYOND_FAMILIES = {"catalog", "popularity_bias", "diversity", "fairness"}


def test_every_sql_metric_has_a_measure_here() -> None:
    covered = {m.metric.name for m in parse_all(MEASURES)}
    # The correlations of two columns take no measure string; the beyond-accuracy metrics
    # (item columns) are measured from a Catalog, in the conformance kit's tables.
    correlations = {"spearman_rho", "kendall_tau", "kendall_distance", "rbo"}
    beyond = {n for n, m in METRICS.items() if m.family in BEYOND_FAMILIES}
    expected = set(METRICS) - set(unsupported_metrics("duckdb")) - correlations - beyond
    assert covered == expected


@pytest.mark.parametrize("dialect", WAREHOUSES)
def test_to_sql_compiles_for_the_warehouses(dialect: str) -> None:
    sql = rfi.to_sql(MEASURES, dialect=dialect, table="judged")
    parsed = sqlglot.parse_one(sql, read=dialect)  # SQL of that dialect, in one statement
    assert parsed is not None and '"judged"' in sql.replace("`", '"')
    assert "_ibis_" not in sql  # no function of Ibis's own (Python UDFs on SQLite)


@pytest.fixture(scope="module")
def judged() -> pl.DataFrame:
    """The example collection judged with tie groups (40 queries, three systems stacked)."""
    qrels = rf.read_qrels(DATA / "qrels.txt")
    tables = []
    for system in ("bm25", "dense", "hybrid"):
        run = rf.read_run(DATA / f"run.{system}.txt")
        # Coarse scores make ties, so the tie-aware metrics have groups to average over.
        run = run.with_columns(pl.col("score").round(0))
        table = rf.judge(run, qrels, ties="average")
        tables.append(table.with_columns(qid=pl.col("qid") + f"/{system}"))
    return pl.concat(tables).select("qid", "rank", "rel", "tie_first", "tie_size")


def _duckdb(sql: str, frame: pl.DataFrame, request: pytest.FixtureRequest) -> pl.DataFrame:
    import duckdb

    con = duckdb.connect()
    con.register("judged", frame.to_arrow())
    return con.sql(sql).pl()


def _sqlite(sql: str, frame: pl.DataFrame, request: pytest.FixtureRequest) -> pl.DataFrame:
    # The standard library's SQLite, with no function registered: only SQLite's own.
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE judged (qid TEXT, rank INTEGER, rel REAL, tie_first INTEGER, "
                "tie_size INTEGER)")
    con.executemany("INSERT INTO judged VALUES (?, ?, ?, ?, ?)", frame.rows())
    cursor = con.execute(sql)
    names = [c[0] for c in cursor.description]
    return pl.DataFrame(cursor.fetchall(), schema=names, orient="row", infer_schema_length=None)


def _datafusion(sql: str, frame: pl.DataFrame, request: pytest.FixtureRequest) -> pl.DataFrame:
    datafusion = needs.require("datafusion")
    ctx = datafusion.SessionContext()
    ctx.register_record_batches("judged", [frame.to_arrow().to_batches()])
    return pl.from_arrow(ctx.sql(sql).to_arrow_table())  # type: ignore[return-value]


def _postgres(sql: str, frame: pl.DataFrame, request: pytest.FixtureRequest) -> pl.DataFrame:
    con = request.getfixturevalue("postgres_server")
    con.create_table("judged", frame.to_arrow(), overwrite=True)
    with con.raw_sql(sql) as cursor:
        names = [c[0] for c in cursor.description]
        rows = [tuple(float(v) if v is not None and not isinstance(v, (int, str)) else v
                      for v in row) for row in cursor.fetchall()]
    return pl.DataFrame(rows, schema=names, orient="row", infer_schema_length=None)


RUNNERS: dict[str, Callable[[str, pl.DataFrame, pytest.FixtureRequest], pl.DataFrame]] = {
    "duckdb": _duckdb, "sqlite": _sqlite, "datafusion": _datafusion, "postgres": _postgres,
}


@pytest.mark.parametrize("dialect", sorted(RUNNERS))
def test_to_sql_runs_with_the_polars_numbers(dialect: str, judged: pl.DataFrame,
                                             request: pytest.FixtureRequest) -> None:
    """The SQL a user pastes gives rankframe's numbers, query by query, to 1e-9."""
    if dialect in ("sqlite", "datafusion", "postgres"):
        provide(request, f"ibis-{dialect}")
        skip_unless_runnable(request.config, f"ibis-{dialect}")
    sql = rfi.to_sql(MEASURES, dialect=dialect, table="judged")
    got = RUNNERS[dialect](sql, judged, request).sort("qid")
    expected = rf.evaluate(judged, MEASURES)
    assert got.columns == expected.columns
    assert got["qid"].to_list() == expected["qid"].to_list()
    for label in MEASURES:
        for qid, a, b in zip(expected["qid"], got[label], expected[label], strict=True):
            assert a is not None and math.isclose(a, b, rel_tol=0, abs_tol=1e-9), \
                f"{dialect} {label} {qid}: {a} != {b}"


def test_unsupported_metrics_are_data_and_a_clear_error() -> None:
    polars_face = faces.get("ibis-polars")
    assert set(polars_face.unsupported) >= WINDOWED | {"rbo"}
    assert all("window" in polars_face.unsupported[m] for m in WINDOWED)
    # Not expressed on any Ibis backend, each with its reason: G's positional ideal, the
    # positional nDCG variants, relstring's ordered string aggregate.
    # And the beyond-accuracy metrics of feature vectors and group alignments.
    everywhere = {"g", "ndcg_rel", "rndcg", "relstring", "ild_features", "awrf"}
    # RBO's series per query: an unnested range everywhere but SQLite (no arrays).
    assert set(faces.get("ibis-sqlite").unsupported) == everywhere | {"rbo"}
    assert "series" in faces.get("ibis-sqlite").unsupported["rbo"]
    for backend in ("duckdb", "datafusion", "postgres"):
        assert set(faces.get(f"ibis-{backend}").unsupported) == everywhere, backend
    with pytest.raises(MeasureError, match=r"ibis-polars face has no ndcg .*window"):
        require_support(polars_face, parse_all(["P@10", "ndcg@10"]))
    table = ibis.memtable({"qid": ["a"], "rank": [1], "rel": [1.0]})
    with pytest.raises(MeasureError, match="clash"):
        rfi.evaluate(table.rename(mrr="qid"), ["P@1", "mrr"], query="mrr")


def test_public_evaluate_on_a_backend_table() -> None:
    # SQLite: ibis 12's DuckDB backend reads a table's schema with a method duckdb 2.0
    # deprecates (a DeprecationWarning, an error in this suite).
    con = ibis.sqlite.connect()
    table = con.create_table("t", pl.DataFrame(
        {"qid": ["a", "a", "b"], "rank": [1, 2, 1], "rel": [0.0, 1.0, 1.0]}).to_arrow())
    result = con.to_polars(rfi.evaluate(table, ["P@1", "mrr", "num_rel"]))
    assert result.rows() == [("a", 0.0, 0.5, 1), ("b", 1.0, 1.0, 1)]
    assert result.schema["num_rel"] == pl.Int64


# --- judge's input errors -------------------------------------------------------------------


def _face(name: str, request: pytest.FixtureRequest) -> IbisFace:
    provide(request, name)
    skip_unless_runnable(request.config, name)
    face = faces.get(name)
    assert isinstance(face, IbisFace)
    return face


RUN = {"qid": ["q1", "q1", "q2"], "docid": ["d1", "d2", "d1"], "score": [1.0, 2.0, 3.0]}
QRELS = {"qid": ["q1", "q2"], "docid": ["d1", "d9"], "rel": [1, 2]}


@pytest.mark.parametrize("name", ["ibis-duckdb", "ibis-polars", "ibis-postgres"])
@pytest.mark.parametrize(("side", "change", "message"), [
    ("run", {"docid": ["d1", "d1", "d1"]}, r"duplicate \(qid, docid\) in the run: query 'q1', "
                                           r"document 'd1' \(2 rows\)"),
    ("qrels", {"docid": ["d9", "d9"], "qid": ["q2", "q2"]},
     r"duplicate \(qid, docid\) in the qrels: query 'q2', document 'd9'"),
    ("run", {"score": [1.0, None, 3.0]}, r"column 'score' of the run is NULL \(query 'q1', "
                                         r"document 'd2'\)"),
    ("run", {"score": [1.0, float("nan"), 3.0]}, "column 'score' of the run is NaN"),
    ("qrels", {"qid": [1, 2]}, "column 'qid' is string in the run but int64 in the qrels"),
    ("qrels", {"grade": [1, 2]}, "the qrels has no column 'rel'"),
])
def test_judge_refuses_bad_input(name: str, side: str, change: dict[str, Any], message: str,
                                 request: pytest.FixtureRequest) -> None:
    face = _face(name, request)
    run, qrels = dict(RUN), dict(QRELS)
    target = run if side == "run" else qrels
    if "grade" in change:
        target["grade"] = target.pop("rel")
    else:
        target.update(change)
    with pytest.raises(InputError, match=message):
        face.judge(face.native(pl.DataFrame(run)), face.native(pl.DataFrame(qrels)),
                   JudgeOptions())


def test_judge_orders_ids_by_bytes_under_any_collation(request: pytest.FixtureRequest) -> None:
    """PostgreSQL compares text by collation; judge compares the ids' bytes (trec_eval)."""
    face = _face("ibis-postgres", request)
    con = face.connection()
    collations = {row[0] for row in con.raw_sql(
        "SELECT collname FROM pg_collation").fetchall()}
    collation = next((c for c in ("und-x-icu", "en_US.utf8", "en-x-icu") if c in collations),
                     None)
    if collation is None:
        pytest.skip("this PostgreSQL has no collation other than C/POSIX")
    con.raw_sql(f'DROP TABLE IF EXISTS rf_run; CREATE TABLE rf_run (qid text, '
                f'docid text COLLATE "{collation}", score float8)')
    con.raw_sql("INSERT INTO rf_run VALUES ('q', 'b', 1), ('q', 'B', 1), ('q', 'a', 1), "
                "('q', '_', 1), ('q', 'é', 1)")
    qrels = face.native(pl.DataFrame({"qid": ["q"], "docid": ["a"], "rel": [1]}))
    judged = face.to_polars(face.judge(con.table("rf_run"), qrels, JudgeOptions()))
    ranked = judged.filter(pl.col("rank").is_not_null()).sort("rank")["docid"].to_list()
    assert ranked == sorted(ranked, key=lambda d: d.encode(), reverse=True)


def test_the_postgres_example_gives_the_polars_numbers(request: pytest.FixtureRequest) -> None:
    import importlib.util

    face = _face("ibis-postgres", request)
    server = face.connection()
    spec = importlib.util.spec_from_file_location(
        "warehouse_postgres", REPO / "examples" / "warehouse_postgres.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    runs, qrels = module.logged_results()
    warehouse, local = module.in_postgres(server, runs, qrels), module.in_polars(runs, qrels)
    assert warehouse["system"].to_list() == local["system"].to_list()
    for m in module.MEASURES:
        assert all(math.isclose(a, b, abs_tol=1e-9)
                   for a, b in zip(warehouse[m], local[m], strict=True))

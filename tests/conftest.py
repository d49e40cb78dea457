"""Shared fixtures: hypothesis profiles, the registered faces (each test that takes ``face``
runs once per face, skipped with the reason where a face cannot run here), a DuckDB
connection with the repo's macros, a local Spark session, and a record of parity results
printed at the end of the run."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, settings

import rankframe.duckdb
from rankframe import faces
from rankframe.faces.base import Face
from tests.postgres import postgres_server  # noqa: F401  (a fixture)

REPO = Path(__file__).resolve().parent.parent
SQL_DIR = REPO / "sql"

settings.register_profile(
    "ci", max_examples=200, deadline=None, print_blob=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "dev", max_examples=60, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough", max_examples=2000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(scope="session")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    """A DuckDB connection with every macro of the repository's sql/ loaded."""
    connection = rankframe.duckdb.register(duckdb.connect(), sql_dir=SQL_DIR)
    yield connection
    connection.close()


@pytest.fixture(scope="session")
def spark_session() -> Iterator[object]:
    """A small local Spark: 2 cores, 2 shuffle partitions, no UI, errors-only logging. The
    Spark face's ``native`` tables are made in it."""
    pytest.importorskip("pyspark", reason="PySpark is not installed (rankframe[spark])")
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("rankframe-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


#: The session fixture a face needs before it runs: a Spark session, a PostgreSQL server.
FACE_FIXTURES = {"spark": "spark_session", "ibis-postgres": "postgres_server"}


def _face(request: pytest.FixtureRequest, name: str) -> Face:
    reason = faces.unavailable(name)
    if reason is not None:
        pytest.skip(f"the {name} face cannot run here: {reason}")
    if name in FACE_FIXTURES:
        request.getfixturevalue(FACE_FIXTURES[name])
    return faces.get(name)


@pytest.fixture(params=sorted(faces.REGISTERED))
def face(request: pytest.FixtureRequest) -> Face:
    """Every registered face, the oracle included."""
    return _face(request, request.param)


@pytest.fixture(params=sorted(n for n in faces.REGISTERED if n != "oracle"))
def checked_face(request: pytest.FixtureRequest) -> Face:
    """Every registered face that the oracle checks."""
    return _face(request, request.param)


class ParityLog:
    """Generated cases and the largest difference seen, per metric and face pair."""

    def __init__(self) -> None:
        self.cases: dict[str, int] = defaultdict(int)
        self.queries: dict[str, int] = defaultdict(int)
        self.max_diff: dict[str, float] = defaultdict(float)

    def record(self, name: str, queries: int, diff: float) -> None:
        self.cases[name] += 1
        self.queries[name] += queries
        self.max_diff[name] = max(self.max_diff[name], diff)


PARITY_LOG = ParityLog()


@pytest.fixture(scope="session")
def parity_log() -> ParityLog:
    return PARITY_LOG


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not PARITY_LOG.cases:
        return
    write = terminalreporter.write_line
    terminalreporter.section("parity: generated cases per metric (all faces)")
    write(f"{'metric':<28}{'cases':>8}{'queries':>10}{'max |diff|':>14}")
    for name in sorted(PARITY_LOG.cases):
        write(f"{name:<28}{PARITY_LOG.cases[name]:>8}{PARITY_LOG.queries[name]:>10}"
              f"{PARITY_LOG.max_diff[name]:>14.3g}")

"""What every test shares: the faces to run (``--faces``), hypothesis profiles and example
budgets, a DuckDB connection with the repository's macros, a local Spark session, a
PostgreSQL server, the trec_eval 10 binary, and the summary printed at the end.

Faces. ``python -m pytest`` runs the light faces (:data:`LIGHT_FACES`: Polars, DuckDB and
the oracle); ``--faces all`` runs every registered face, ``--faces spark,ibis-postgres``
those two, ``--faces light,spark`` the light ones and Spark. A test of a face not
selected, or of a face that cannot run here, is skipped with the reason; under ``CI`` a
selected face that cannot run, or a trec_eval binary that cannot be built, fails instead.

Needs. A test that needs an optional extra or a program says so through
:mod:`tests.support.needs` (the ``needs`` mark, checked here before it runs): skipped with
one line naming what to install, or, under ``CI`` where the environment's extras provide
it, a failure. ``--extra-tests-only`` runs only the tests needing more than the ``test``
extra (CI runs the README's command with only that extra, then these in ``dev``).

Profiles (``HYPOTHESIS_PROFILE``; ``ci`` when ``CI`` is set, else ``dev``): ``dev`` for the
default run, ``ci`` with twice its examples, ``thorough`` (twenty times) by hand before a
release. A test takes its share of the profile's budget with
:func:`tests.support.faces.examples`.
"""

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
from tests.support import SQL_DIR, needs
from tests.support import trec_eval as trec_eval_build
from tests.support.postgres import postgres_server  # noqa: F401  (a fixture)

IN_CI = bool(os.environ.get("CI"))

#: The faces of the default run: the in-process engines and the oracle.
LIGHT_FACES = ("polars", "duckdb", "oracle")

_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large]
settings.register_profile("dev", max_examples=50, deadline=None, suppress_health_check=_HEALTH)
settings.register_profile("ci", max_examples=100, deadline=None, print_blob=True,
                          database=None, suppress_health_check=_HEALTH)
settings.register_profile("thorough", max_examples=1000, deadline=None,
                          suppress_health_check=_HEALTH)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci" if IN_CI else "dev")
settings.load_profile(PROFILE)

# --------------------------------------------------------------------------- faces


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--faces", default="light", metavar="FACES",
        help="the faces to test, comma-separated: registered face names, 'light' (the "
             "default: " + ", ".join(LIGHT_FACES) + ") and 'all'")
    parser.addoption(
        "--face-tests-only", action="store_true",
        help="run only the tests of the selected faces (CI runs the other faces so, after the "
             "default run)")
    parser.addoption(
        "--extra-tests-only", action="store_true",
        help="run only the tests that need more than the test extra (the 'needs' mark: "
             "tests/support/needs.py); with --face-tests-only, those and the selected faces' "
             "tests")


def selected_faces(config: pytest.Config) -> tuple[str, ...]:
    """The faces ``--faces`` selects, in registration order: a comma-separated list of
    registered faces and the words ``light`` (:data:`LIGHT_FACES`) and ``all``."""
    asked = {name.strip() for name in str(config.getoption("--faces")).split(",")}
    if "all" in asked:
        return tuple(faces.REGISTERED)
    if "light" in asked:
        asked = (asked - {"light"}) | set(LIGHT_FACES)
    unknown = asked - set(faces.REGISTERED) - {""}
    if unknown:
        raise pytest.UsageError(f"--faces: unknown face(s) {', '.join(sorted(unknown))}; "
                                f"registered: {', '.join(faces.REGISTERED)}")
    return tuple(n for n in faces.REGISTERED if n in asked)


def face_of(item: pytest.Item) -> str | None:
    """The face a test is about: its ``face`` marker, or the face it is parametrised with."""
    marker = item.get_closest_marker("face")
    if marker is not None:
        return str(marker.args[0])
    params = getattr(getattr(item, "callspec", None), "params", {})
    return next((params[f] for f in FACE_PARAMETERS if f in params), None)


def needs_beyond_test(item: pytest.Item) -> bool:
    """Whether the test needs something the ``test`` extra does not hold."""
    return any(needs.beyond_test(name) for marker in item.iter_markers("needs")
               for name in marker.args)


#: The order the test folders run in: every face against the oracle first (the worked
#: examples and the ideal orderings before the hypothesis loops), so that a wrong number
#: fails a run with ``-x`` in its first seconds; then trec_eval's bytes, the units, the
#: command line, the documentation, what one face has.
FOLDER_ORDER = ("conformance", "trec_eval", "units", "cli", "docs", "backends")


def _folder_rank(item: pytest.Item) -> int:
    parts = item.nodeid.split("/")
    folder = parts[1] if len(parts) > 2 and parts[0] == "tests" else ""
    return FOLDER_ORDER.index(folder) if folder in FOLDER_ORDER else len(FOLDER_ORDER)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the folders in :data:`FOLDER_ORDER` (each file's tests in their own order). With
    ``--face-tests-only``, keep only the tests of the selected faces; with
    ``--extra-tests-only``, only those needing more than the test extra (both: either)."""
    items.sort(key=_folder_rank)  # stable: the same order on every xdist worker
    faces_only = config.getoption("--face-tests-only")
    extras_only = config.getoption("--extra-tests-only")
    if not (faces_only or extras_only):
        return
    chosen = set(selected_faces(config)) if faces_only else set()
    kept = [item for item in items
            if face_of(item) in chosen or (extras_only and needs_beyond_test(item))]
    config.hook.pytest_deselected(items=[item for item in items if item not in kept])
    items[:] = kept


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "face(name): a test of what only that face has; it runs when the face is "
                   "selected (--faces)")
    config.addinivalue_line(
        "markers", "needs(name, ...): what the test needs beyond the core dependencies "
                   "(tests/support/needs.py): skipped without it, a failure under CI")


def skip_unless_runnable(config: pytest.Config, name: str) -> None:
    """Skip (or, under CI, fail) a test of the face ``name`` that is not selected or cannot
    run here."""
    if name not in selected_faces(config):
        pytest.skip(f"the {name} face is not selected (add it: --faces {name}, or --faces all)")
    reason = faces.unavailable(name)
    if reason is not None:
        message = f"the {name} face cannot run here: {reason}"
        if IN_CI:
            pytest.fail(message + " (CI runs every selected face)")
        pytest.skip(message)


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker in item.iter_markers("needs"):
        for name in marker.args:
            needs.require(name)
    for marker in item.iter_markers("face"):
        skip_unless_runnable(item.config, marker.args[0])


#: The fixtures that parametrise a test over faces.
FACE_PARAMETERS = ("face", "checked_face", "engine_face", "pruning_face")

#: The session fixture a face needs before it runs: a Spark session, a PostgreSQL server.
FACE_FIXTURES = {"spark": "spark_session", "ibis-postgres": "postgres_server"}
#: Of those, the ones that give the face what it runs on (the suite's PostgreSQL server): set
#: up before the face says whether it can run.
PROVIDING_FIXTURES = frozenset({"ibis-postgres"})


def provide(request: pytest.FixtureRequest, name: str) -> None:
    """Set up what a selected face of :data:`PROVIDING_FIXTURES` runs on (the fixture skips,
    with the reason, where it cannot)."""
    if name in PROVIDING_FIXTURES and name in selected_faces(request.config):
        request.getfixturevalue(FACE_FIXTURES[name])


def _face(request: pytest.FixtureRequest, name: str) -> Face:
    provide(request, name)
    skip_unless_runnable(request.config, name)
    if name in FACE_FIXTURES:
        request.getfixturevalue(FACE_FIXTURES[name])
    return faces.get(name)


@pytest.fixture(params=list(faces.REGISTERED))
def face(request: pytest.FixtureRequest) -> Face:
    """Every registered face, the oracle included (skipped unless selected)."""
    return _face(request, request.param)


@pytest.fixture(params=[n for n in faces.REGISTERED if n != "oracle"])
def checked_face(request: pytest.FixtureRequest) -> Face:
    """Every registered face that the oracle checks (skipped unless selected)."""
    return _face(request, request.param)


@pytest.fixture(params=list(faces.ENGINES))
def engine_face(request: pytest.FixtureRequest) -> Face:
    """The in-process engines (``evaluate(..., engine=...)``)."""
    return _face(request, request.param)


# --------------------------------------------------------------------------- resources


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
    needs.require("pyspark")
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


@pytest.fixture(scope="session")
def trec_eval_bin() -> Path:
    """The trec_eval 10 binary (:mod:`tests.support.trec_eval`), built once; skipped with the
    reason where it cannot be had, a failure under CI."""
    return trec_eval_build.required()


@pytest.fixture(scope="session")
def trec_eval_tests(trec_eval_bin: Path) -> Path:
    """trec_eval's own test folder (qrels, results, expected outputs)."""
    return trec_eval_build.test_files()


# --------------------------------------------------------------------------- summary


class ParityLog:
    """Generated cases and the largest difference seen, per metric and face."""

    def __init__(self) -> None:
        self.cases: dict[str, int] = defaultdict(int)
        self.queries: dict[str, int] = defaultdict(int)
        self.max_diff: dict[str, float] = defaultdict(float)

    def record(self, name: str, queries: int, diff: float, cases: int = 1) -> None:
        self.cases[name] += cases
        self.queries[name] += queries
        self.max_diff[name] = max(self.max_diff[name], diff)

    def rows(self) -> list[tuple[str, int, int, float]]:
        return [(n, self.cases[n], self.queries[n], self.max_diff[n]) for n in self.cases]


PARITY_LOG = ParityLog()


@pytest.fixture(scope="session")
def parity_log() -> ParityLog:
    return PARITY_LOG


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A pytest-xdist worker hands its parity log to the controller."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["rankframe_parity"] = PARITY_LOG.rows()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    """The controller of pytest-xdist merges a finished worker's parity log."""
    for name, cases, queries, diff in getattr(node, "workeroutput", {}).get(
            "rankframe_parity", []):
        PARITY_LOG.record(name, queries, diff, cases)


def pytest_report_header(config: pytest.Config) -> str:
    chosen = selected_faces(config)
    left = [n for n in faces.REGISTERED if n not in chosen]
    return (f"rankframe faces: {', '.join(chosen)}"
            + (f" (not selected: {', '.join(left)}; --faces all runs them)" if left else "")
            + f"; hypothesis profile {PROFILE} ({settings().max_examples} examples)")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter,
                            config: pytest.Config) -> None:
    chosen = selected_faces(config)
    left = [n for n in faces.REGISTERED if n not in chosen]
    write = terminalreporter.write_line
    terminalreporter.section("rankframe faces")
    write(f"selected: {', '.join(chosen)}")
    if left:
        write(f"not selected (their tests skipped): {', '.join(left)}; "
              "run them with --faces all or --faces NAME")
    if not PARITY_LOG.cases:
        return
    terminalreporter.section("conformance: generated cases per face and metric")
    write(f"{'face:metric':<40}{'cases':>8}{'queries':>10}{'max |diff|':>14}")
    for name in sorted(PARITY_LOG.cases):
        write(f"{name:<40}{PARITY_LOG.cases[name]:>8}{PARITY_LOG.queries[name]:>10}"
              f"{PARITY_LOG.max_diff[name]:>14.3g}")

"""The DuckDB face: load the ``rf_*`` SQL macros into a connection.

The macros live as plain ``.sql`` files (one public macro per file, plus ``_helpers.sql``)
that ship inside the wheel as ``rankframe/sql`` and sit at ``sql/`` in a source checkout.
They are ``CREATE OR REPLACE TEMP MACRO`` statements: loading twice is harmless and
nothing is written into a database file. :func:`connection_for` hands ``evaluate`` a
connection: the caller's, or one shared by the process, loaded macro by macro on demand.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import duckdb

HELPERS_FILE = "_helpers.sql"


def default_sql_dir() -> Path:
    """Where the macros are: ``rankframe/sql`` when installed, else the checkout's ``sql/``."""
    packaged = resources.files("rankframe") / "sql"
    if packaged.is_dir():
        return Path(str(packaged))
    checkout = Path(__file__).resolve().parents[2] / "sql"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        "rankframe: SQL macros not found (looked in the installed package and the source "
        "checkout); reinstall rankframe or pass sql_dir="
    )


def _root(sql_dir: str | Path | None) -> Path:
    return Path(sql_dir) if sql_dir is not None else default_sql_dir()


def sql_files(sql_dir: str | Path | None = None) -> list[Path]:
    """The macro files in load order: the helpers first, then every ``rf_*.sql`` by name."""
    root = _root(sql_dir)
    helpers = root / HELPERS_FILE
    if not helpers.is_file():
        raise FileNotFoundError(f"rankframe: {helpers} is missing; it must load first")
    return [helpers, *sorted(root.glob("rf_*.sql"))]


def sql_text(sql_dir: str | Path | None = None) -> str:
    """All macro definitions as one SQL script, in load order."""
    return "\n".join(path.read_text(encoding="utf-8") for path in sql_files(sql_dir))


def register(
    con: duckdb.DuckDBPyConnection | None = None, *, sql_dir: str | Path | None = None
) -> duckdb.DuckDBPyConnection:
    """Define every ``rf_*`` macro in ``con`` (a new in-memory connection if None) and return it.

    Examples
    --------
    >>> import rankframe.duckdb
    >>> con = rankframe.duckdb.register()
    >>> con.sql("SELECT rf_ndcg(rel, rank, 5) FROM (VALUES (1, 3), (2, 2), (3, 3), "
    ...         "(4, 0), (5, 1)) t(rank, rel)").fetchone()[0].__round__(4)
    0.9724
    """
    connection = con if con is not None else duckdb.connect()
    for path in sql_files(sql_dir):
        connection.execute(path.read_text(encoding="utf-8"))
    return connection


def register_helpers(con: duckdb.DuckDBPyConnection, *, sql_dir: str | Path | None = None) -> None:
    """Define only the shared ``rf__*`` helpers (what every metric macro calls)."""
    root = _root(sql_dir)
    con.execute((root / HELPERS_FILE).read_text(encoding="utf-8"))


def register_metric(
    con: duckdb.DuckDBPyConnection, name: str, *, sql_dir: str | Path | None = None
) -> None:
    """Define the macro ``rf_<name>`` alone; the helpers must be loaded already."""
    root = _root(sql_dir)
    path = root / f"rf_{name}.sql"
    if not path.is_file():
        raise FileNotFoundError(f"rankframe: no macro file {path}")
    con.execute(path.read_text(encoding="utf-8"))


def has_macros(con: duckdb.DuckDBPyConnection) -> bool:
    """True if ``con`` has the rankframe macros (``rf_ndcg`` stands for them all)."""
    found = con.sql(
        "SELECT count(*) FROM duckdb_functions() WHERE function_name = 'rf_ndcg'"
    ).fetchall()
    return bool(found[0][0])


class _SharedConnection:
    """An in-memory connection made once per process and reused (by ``evaluate(engine=
    "duckdb")`` when no ``con`` is given), into which each metric's macro is loaded the first
    time a measure needs it (loading all of them into a fresh connection costs more than
    evaluating a small table). One block at a time holds it; a forked child makes its own."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._con: duckdb.DuckDBPyConnection | None = None
        self._pid = 0
        self._loaded: set[str] = set()

    @contextmanager
    def __call__(self, metrics: set[str]) -> Iterator[duckdb.DuckDBPyConnection]:
        with self._lock:
            if self._con is None or self._pid != os.getpid():
                self._con, self._pid, self._loaded = duckdb.connect(), os.getpid(), set()
                register_helpers(self._con)
            for name in sorted(metrics - self._loaded):
                register_metric(self._con, name)
                self._loaded.add(name)
            yield self._con


_shared = _SharedConnection()


def preload(con: duckdb.DuckDBPyConnection | None, metrics: set[str]) -> None:
    """Do now what :func:`connection_for` would do first (connect, load the macros), so that
    it can overlap other work: ``evaluate`` and ``evaluate_run`` call it on a thread while
    they check or judge in Polars."""
    with connection_for(con, metrics):
        pass


@contextmanager
def connection_for(con: duckdb.DuckDBPyConnection | None, metrics: set[str]
                   ) -> Iterator[duckdb.DuckDBPyConnection]:
    """``con`` with every macro loaded (if it has none yet), or, when ``con`` is None, the
    process's shared connection with the macros of ``metrics`` loaded, held for the block."""
    if con is None:
        with _shared(metrics) as shared:
            yield shared
        return
    if not has_macros(con):
        register(con)
    yield con

"""The DuckDB face: the ``rf_*`` SQL macros, loaded into a connection and called on a frame.

The macros live as plain ``.sql`` files (one public macro per file, plus ``_helpers.sql``)
that ship inside the wheel as ``rankframe/sql`` and sit at ``sql/`` in a source checkout.
They are ``CREATE OR REPLACE TEMP MACRO`` statements: loading twice is harmless and
nothing is written into a database file, unless asked (``register(con, persistent=True)``
stores them in the connection's database, for tools that reopen the file).
:func:`connection_for` hands ``evaluate`` a connection: the caller's, its macros checked
against this version's by :func:`ensure_macros` (stored or ``TEMP``), or one shared by the
process, loaded macro by macro on demand.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from rankframe.errors import EngineError
from rankframe.faces.base import Face, JudgeOptions, PolarsNative, Role, Ties, result_dtypes
from rankframe.measures import Measure
from rankframe.metrics.registry import Metric

if TYPE_CHECKING:  # imported where a connection is made: DuckDB is not needed before
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
    """The macro files in load order: the helpers first, then every ``rf_*.sql`` by name.

    Parameters
    ----------
    sql_dir
        Folder holding ``_helpers.sql`` and the ``rf_*.sql`` files; None (default): the
        macros installed with rankframe (or the checkout's ``sql/``).
    """
    root = _root(sql_dir)
    helpers = root / HELPERS_FILE
    if not helpers.is_file():
        raise FileNotFoundError(f"rankframe: {helpers} is missing; it must load first")
    return [helpers, *sorted(root.glob("rf_*.sql"))]


_TEMP = re.compile(r"(CREATE\s+OR\s+REPLACE\s+)TEMP\s+(MACRO\b)", re.IGNORECASE)


def _statements(path: Path, persistent: bool) -> str:
    """The macro file's text; with ``persistent``, its macros made non-``TEMP``."""
    text = path.read_text(encoding="utf-8")
    return _TEMP.sub(r"\1\2", text) if persistent else text


def sql_text(sql_dir: str | Path | None = None, *, persistent: bool = False) -> str:
    """All macro definitions as one SQL script, in load order (what ``rankframe sql`` prints).

    Parameters
    ----------
    sql_dir
        Folder holding ``_helpers.sql`` and the ``rf_*.sql`` files; None (default): the
        macros installed with rankframe (or the checkout's ``sql/``).
    persistent
        False (default): ``CREATE OR REPLACE TEMP MACRO``, gone when the session ends.
        True: ``CREATE OR REPLACE MACRO``, stored in the database the script runs in.

    Examples
    --------
    >>> import rankframe.duckdb
    >>> "CREATE OR REPLACE TEMP MACRO rf_ndcg(" in rankframe.duckdb.sql_text()
    True
    >>> "CREATE OR REPLACE MACRO rf_ndcg(" in rankframe.duckdb.sql_text(persistent=True)
    True
    """
    return "\n".join(_statements(path, persistent) for path in sql_files(sql_dir))


def register(
    con: duckdb.DuckDBPyConnection | None = None, *, sql_dir: str | Path | None = None,
    persistent: bool = False,
) -> duckdb.DuckDBPyConnection:
    """Define every ``rf_*`` macro in ``con`` (a new in-memory connection if None) and return it.

    Parameters
    ----------
    con
        A DuckDB connection; None (default): a new in-memory one.
    sql_dir
        Folder holding ``_helpers.sql`` and the ``rf_*.sql`` files; None (default): the
        macros installed with rankframe (or the checkout's ``sql/``).
    persistent
        False (default): the macros are ``TEMP``: defining them twice is harmless and
        nothing is written to a database file. True: they are stored in the connection's
        current database (``CREATE OR REPLACE MACRO``), so a BI tool or a later session
        that opens the file has them; calling it again (with a newer rankframe) replaces
        them. Needs a connection that may write.

    Examples
    --------
    >>> import rankframe.duckdb
    >>> con = rankframe.duckdb.register()
    >>> con.sql("SELECT round(rf_ndcg(rel, rank, 5), 4) FROM (VALUES (1, 3), (2, 2), (3, 3), "
    ...         "(4, 0), (5, 1)) t(rank, rel)").fetchall()
    [(0.9724,)]
    """
    import duckdb

    connection = con if con is not None else duckdb.connect()
    for path in sql_files(sql_dir):
        connection.execute(_statements(path, persistent))
    return connection


def register_helpers(con: duckdb.DuckDBPyConnection, *, sql_dir: str | Path | None = None) -> None:
    """Define only the shared ``rf__*`` helpers (what every metric macro calls).

    Parameters
    ----------
    con
        An open DuckDB connection; the macros are defined in it as ``TEMP`` macros.
    sql_dir
        Folder holding ``_helpers.sql`` and the ``rf_*.sql`` files; None (default): the
        macros installed with rankframe (or the checkout's ``sql/``).
    """
    root = _root(sql_dir)
    con.execute((root / HELPERS_FILE).read_text(encoding="utf-8"))


def register_metric(
    con: duckdb.DuckDBPyConnection, name: str, *, sql_dir: str | Path | None = None
) -> None:
    """Define the macro ``rf_<name>`` alone; the helpers must be loaded already.

    Parameters
    ----------
    con
        An open DuckDB connection; the macros are defined in it as ``TEMP`` macros.
    name
        The metric's registry name (``"ndcg"`` loads ``rf_ndcg``).
    sql_dir
        Folder holding ``_helpers.sql`` and the ``rf_*.sql`` files; None (default): the
        macros installed with rankframe (or the checkout's ``sql/``).
    """
    root = _root(sql_dir)
    path = root / f"rf_{name}.sql"
    if not path.is_file():
        raise FileNotFoundError(f"rankframe: no macro file {path}")
    con.execute(path.read_text(encoding="utf-8"))


_MACRO = re.compile(r"CREATE\s+OR\s+REPLACE\s+TEMP\s+MACRO\s+(\w+)", re.IGNORECASE)
_DEFINITIONS = (
    "SELECT function_name, database_name, parameters, macro_definition FROM duckdb_functions() "
    "WHERE function_name LIKE 'rf\\_%' ESCAPE '\\' AND function_type IN ('macro', 'table_macro')"
)
Definition = tuple[tuple[str, ...], str]  # (parameters, body as DuckDB prints it)


def _definitions(con: duckdb.DuckDBPyConnection) -> dict[str, Definition]:
    """Every ``rf_*`` macro of ``con`` as DuckDB resolves it (a TEMP macro shadows one of the
    database; an overloaded name keeps its definitions in one sorted string)."""
    found: dict[str, dict[str, list[tuple[tuple[str, ...], str]]]] = {}
    for name, database, params, body in con.sql(_DEFINITIONS).fetchall():
        found.setdefault(name, {}).setdefault(database, []).append((tuple(params), body or ""))
    resolved = {}
    for name, by_database in found.items():
        rows = by_database.get("temp") or next(iter(by_database.values()))
        resolved[name] = (rows[0][0], "\n".join(sorted(repr(r) for r in rows)))
    return resolved


@functools.cache
def _own(sql_dir: str | None) -> dict[str, Definition]:
    """rankframe's own macros of this version, as DuckDB prints them: the bundle loaded once
    per process into a private connection."""
    return _definitions(register(sql_dir=sql_dir))


def _macros_of(path: Path) -> list[str]:
    return _MACRO.findall(path.read_text(encoding="utf-8"))


def ensure_macros(con: duckdb.DuckDBPyConnection, metrics: set[str], *,
                  sql_dir: str | Path | None = None) -> None:
    """Make sure ``con`` runs rankframe's own macros for ``metrics`` (and the helpers): a
    connection with no ``rf_*`` macro gets them all, missing ones are loaded, and a macro
    that differs from this version's (another definition under the name) is refused.

    Raises
    ------
    EngineError
        Naming the macros whose definitions are not rankframe's, and how to replace them.
    """
    root = _root(sql_dir)
    have = _definitions(con)
    if not have:
        register(con, sql_dir=root)
        return
    own = _own(str(root))
    helpers = _macros_of(root / HELPERS_FILE)
    files = {name: _macros_of(root / f"rf_{name}.sql") for name in sorted(metrics)}
    needed = [*helpers, *(m for names in files.values() for m in names)]
    foreign = [m for m in needed if m in have and have[m] != own[m]]
    if foreign:
        raise EngineError(
            f"rankframe: the connection's macro(s) {', '.join(foreign)} are not this "
            f"rankframe's own (their definitions differ from those in {root}); call "
            "rankframe.duckdb.register(con) to replace the rf_* macros with rankframe's, or "
            "pass another connection"
        )
    if any(m not in have for m in helpers):
        register_helpers(con, sql_dir=root)
    for name, names in files.items():
        if any(m not in have for m in names):
            register_metric(con, name, sql_dir=root)


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
                import duckdb

                self._con, self._pid, self._loaded = duckdb.connect(), os.getpid(), set()
                register_helpers(self._con)
            for name in sorted(metrics - self._loaded):
                register_metric(self._con, name)
                self._loaded.add(name)
            yield self._con


_shared = _SharedConnection()


@contextmanager
def connection_for(con: duckdb.DuckDBPyConnection | None, metrics: set[str]
                   ) -> Iterator[duckdb.DuckDBPyConnection]:
    """``con`` with rankframe's macros for ``metrics`` (:func:`ensure_macros`), or, when
    ``con`` is None, the process's shared connection with them loaded, held for the block."""
    if con is None:
        with _shared(metrics) as shared:
            yield shared
        return
    ensure_macros(con, metrics)
    yield con


def sql_literal(value: object) -> str:
    """A Python parameter value as a SQL literal."""
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (Mapping, tuple)):  # a gain per grade: (grade, gain) pairs
        pairs = dict(value).items()
        if not pairs:
            return "NULL"
        return "MAP {" + ", ".join(f"CAST({float(k)!r} AS DOUBLE): CAST({float(v)!r} AS DOUBLE)"
                                   for k, v in pairs) + "}"
    raise TypeError(f"no SQL literal for {value!r}")


def quote(identifier: str) -> str:
    """``identifier`` as a quoted SQL identifier."""
    return '"' + identifier.replace('"', '""') + '"'


def call(metric: Metric, columns: Mapping[str, str], values: Mapping[str, Any], *,
         checked: bool = False) -> str:
    """The metric's macro call, e.g. ``rf_ndcg(rel, rank, 10, gain := 'linear')``:
    ``rf_name(c1, c2, *required, optional := value ...)``. With ``checked`` (the table has
    passed ``check_judged``), a macro reading ``rank`` is called without its rank guard,
    as ``rf__unchecked_<name>``: the guard's distinct count would repeat that check."""
    args = [columns[c] for c in metric.columns]
    args += [sql_literal(values[p.name]) for p in metric.required]
    args += [f"{p.name} := {sql_literal(values[p.name])}" for p in metric.optional
             if p.name in values]
    macro = f"rf__unchecked_{metric.name}" if checked and "rank" in metric.columns else metric.macro
    return f"{macro}({', '.join(args)})"


class _ArrowStream:
    """A Polars frame offered to DuckDB through the Arrow C stream interface alone: DuckDB
    then scans it without importing pyarrow (which it does for a Polars frame)."""

    def __init__(self, frame: pl.DataFrame) -> None:
        self._frame = frame

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self._frame.__arrow_c_stream__(requested_schema)


@contextmanager
def _registered(connection: duckdb.DuckDBPyConnection, frames: Mapping[str, pl.DataFrame]
                ) -> Iterator[None]:
    """The frames as views of ``connection`` for the block."""
    for view, frame in frames.items():
        connection.register(view, _ArrowStream(frame))
    try:
        yield
    finally:
        for view in frames:
            connection.unregister(view)


def _frame(rows: list[tuple[Any, ...]], schema: Mapping[str, pl.DataType]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=list(schema), orient="row").cast(pl.Schema(schema))


class DuckDBFace(PolarsNative):
    name = "duckdb"
    role: Role = "engine"
    judge_ties: frozenset[Ties] = frozenset({"docid", "average"})

    def prepare(self, metrics: set[str], connection: Any = None) -> None:
        with connection_for(connection, metrics):
            pass

    def evaluate(self, judged: pl.DataFrame | pl.LazyFrame, measures: Sequence[Measure],
                 keys: Sequence[str], columns: Mapping[str, str], *,
                 connection: duckdb.DuckDBPyConnection | None = None) -> pl.DataFrame:
        quoted = {name: quote(column) for name, column in columns.items()}
        select = ", ".join(
            [quote(k) for k in keys]
            # Positional aliases: DuckDB's identifiers are case-insensitive ("nDCG@10" would
            # clash with "ndcg@10"); the labels come back with the schema.
            + [f"{call(m.metric, quoted, m.values, checked=True)} AS __m{i}"
               for i, m in enumerate(measures)]
        )
        group = ", ".join(quote(k) for k in keys)
        order = ", ".join(f"{quote(k)} NULLS FIRST" for k in keys)  # as the Polars face
        frame = judged.lazy().collect()
        # An all-NULL column (dtype Null) reaches DuckDB without a validity bitmap, which it
        # refuses: give it a type (its values stay NULL; the result keeps the key's dtype).
        typed = frame.with_columns(pl.col(c).cast(pl.Int64) for c, dtype in frame.schema.items()
                                   if dtype == pl.Null)
        view = "__rankframe_judged"
        with connection_for(connection, {m.metric.name for m in measures}) as con, \
                _registered(con, {view: typed}):
            rows = con.sql(f"SELECT {select} FROM {view} GROUP BY {group} ORDER BY {order}"
                           ).fetchall()
        return _frame(rows, result_dtypes({k: frame.schema[k] for k in keys}, measures))

    def judge(self, run: pl.DataFrame, qrels: pl.DataFrame, options: JudgeOptions
              ) -> pl.DataFrame:
        """``rf_judge`` (``rf_judge_ties`` for ``ties="average"``) over the two frames
        (columns renamed to and from its fixed names)."""
        macro = "rf_judge_ties" if options.ties == "average" else "rf_judge"
        names = {options.query: "qid", options.doc: "docid", options.score: "score",
                 options.rel: "rel"}
        run = run.select(options.query, options.doc, options.score).rename(names)
        qrels = qrels.select(options.query, options.doc, options.rel).rename(names)
        depth = sql_literal(options.depth)
        with connection_for(None, set()) as con, \
                _registered(con, {"__rankframe_run": run, "__rankframe_qrels": qrels}):
            for name in dict.fromkeys(("rf_judge", macro)):
                con.execute((_root(None) / f"{name}.sql").read_text(encoding="utf-8"))
            relation = con.sql(f"SELECT * FROM {macro}('__rankframe_run', '__rankframe_qrels', "
                               f"depth := {depth})")
            judged: pl.DataFrame = relation.pl()
        return judged.rename({new: old for old, new in names.items()})


FACE: Face = DuckDBFace()

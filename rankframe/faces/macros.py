"""The ``sql/`` macro files: where they are, loading them into a DuckDB connection, and
checking that a connection's ``rf_*`` macros are rankframe's own.

The macros live as plain ``.sql`` files (one public macro per file, plus ``_helpers.sql``)
that ship inside the wheel as ``rankframe/sql`` and sit at ``sql/`` in a source checkout.
They are ``CREATE OR REPLACE TEMP MACRO`` statements: loading twice is harmless and
nothing is written into a database file, unless asked (``register(con, persistent=True)``,
``rankframe sql --persistent``): stored macros then carry a marker, a comment naming
rankframe's version and a digest of their file, by which a later rankframe recognises them
whatever DuckDB version printed them.

:func:`ensure_macros` checks the macros a caller's connection would run against this
version's (docs/semantics.md#input-checks); :func:`checked` remembers, per connection, the
DuckDB catalog version at which that check passed, so that it runs again only when
something that may change what a name binds to (a ``CREATE``, a ``DROP`` ...) has run on
the connection since.
"""

from __future__ import annotations

import functools
import hashlib
import re
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from rankframe.errors import EngineError

if TYPE_CHECKING:  # imported where a connection is made: DuckDB is not needed before
    import duckdb

__all__ = ["HELPERS_FILE", "checked", "default_sql_dir", "ensure_macros", "register",
           "register_helpers", "register_metric", "sql_files", "sql_text"]

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


def root(sql_dir: str | Path | None) -> Path:
    """The folder of the macro files: ``sql_dir``, or :func:`default_sql_dir`."""
    return Path(sql_dir) if sql_dir is not None else default_sql_dir()


def sql_files(sql_dir: str | Path | None = None) -> list[Path]:
    """The macro files in load order: the helpers first, then every ``rf_*.sql`` by name.

    Parameters
    ----------
    sql_dir
        Folder holding ``_helpers.sql`` and the ``rf_*.sql`` files; None (default): the
        macros installed with rankframe (or the checkout's ``sql/``).
    """
    folder = root(sql_dir)
    helpers = folder / HELPERS_FILE
    if not helpers.is_file():
        raise FileNotFoundError(f"rankframe: {helpers} is missing; it must load first")
    return [helpers, *sorted(folder.glob("rf_*.sql"))]


_TEMP = re.compile(r"(CREATE\s+OR\s+REPLACE\s+)TEMP\s+(MACRO\b)", re.IGNORECASE)
# A macro's name, and TABLE for a table macro (its parameters may hold one level of
# parentheses, as a default value's).
_MACRO = re.compile(r"CREATE\s+OR\s+REPLACE\s+TEMP\s+MACRO\s+(\w+)\s*\((?:[^()]|\([^()]*\))*\)"
                    r"\s*AS\s+(TABLE\b)?", re.IGNORECASE)
#: The comment of a stored macro: rankframe's version and the digest of the file's text.
_MARKER = re.compile(r"rankframe (\S+) sha256:([0-9a-f]{16})")


class _File(NamedTuple):
    """One macro file: its text (the TEMP form) and the macros it defines, with their kind."""

    text: str
    macros: tuple[tuple[str, bool], ...]  # (name, is a table macro)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:16]

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.macros]


@functools.lru_cache(maxsize=512)
def _file(path: Path) -> _File:
    text = path.read_text(encoding="utf-8")
    return _File(text, tuple((m.group(1), m.group(2) is not None) for m in _MACRO.finditer(text)))


def _version() -> str:
    from rankframe import __version__

    return __version__


def _statements(path: Path, persistent: bool) -> str:
    """The macro file's text; with ``persistent``, its macros made non-``TEMP`` and each
    given the marker comment by which :func:`ensure_macros` knows it as rankframe's own."""
    found = _file(path)
    if not persistent:
        return found.text
    marker = f"rankframe {_version()} sha256:{found.digest}"
    comments = "".join(f"\nCOMMENT ON MACRO {'TABLE ' if table else ''}{name} IS '{marker}';"
                       for name, table in found.macros)
    return _TEMP.sub(r"\1\2", found.text).rstrip() + "\n" + comments.lstrip("\n") + "\n"


def sql_text(sql_dir: str | Path | None = None, *, persistent: bool = False) -> str:
    """All macro definitions as one SQL script, in load order (what ``rankframe sql`` prints).

    Parameters
    ----------
    sql_dir
        Folder holding ``_helpers.sql`` and the ``rf_*.sql`` files; None (default): the
        macros installed with rankframe (or the checkout's ``sql/``).
    persistent
        False (default): ``CREATE OR REPLACE TEMP MACRO``, gone when the session ends.
        True: ``CREATE OR REPLACE MACRO``, stored in the database the script runs in, each
        followed by a ``COMMENT ON MACRO`` marker naming rankframe's version and its file's
        digest (how a later ``evaluate(con=...)`` recognises them).

    Examples
    --------
    >>> import rankframe.duckdb
    >>> "CREATE OR REPLACE TEMP MACRO rf_ndcg(" in rankframe.duckdb.sql_text()
    True
    >>> "CREATE OR REPLACE MACRO rf_ndcg(" in rankframe.duckdb.sql_text(persistent=True)
    True
    """
    commit = _GUARD_TRANSACTION[1]
    helpers, *metrics = (_statements(path, persistent) for path in sql_files(sql_dir))
    # The version check's transaction spans the whole script: on a DuckDB too old, its
    # error aborts it and every later statement fails, so no macro is defined at all.
    return "\n".join([helpers.replace(commit, "\n", 1), *metrics]) + (
        "\n-- The end of the version check's transaction (the top of _helpers.sql)." + commit)


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
        current database (``CREATE OR REPLACE MACRO``, with a marker comment), so a BI tool
        or a later session that opens the file has them; calling it again (with a newer
        rankframe) replaces them. Needs a connection that may write.

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
        text = _statements(path, persistent)
        connection.execute(helpers_statements(text) if path.name == HELPERS_FILE else text)
    return connection


#: The transaction around ``_helpers.sql`` (its version check's guard for the command-line
#: tool): Python loads the helpers without it, so that a caller's own transaction stays open.
_GUARD_TRANSACTION = ("BEGIN TRANSACTION;\n", "\nCOMMIT;\n")


def helpers_statements(text: str) -> str:
    """``_helpers.sql``'s text without the transaction its version check opens and closes
    (Python's duckdb is always new enough; the transaction would clash with a caller's)."""
    begin, commit = _GUARD_TRANSACTION
    return text.replace(begin, "", 1).replace(commit, "\n", 1)


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
    con.execute(helpers_statements(_file(root(sql_dir) / HELPERS_FILE).text))


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
    path = root(sql_dir) / f"rf_{name}.sql"
    if not path.is_file():
        raise FileNotFoundError(f"rankframe: no macro file {path}")
    con.execute(_file(path).text)


_DEFINITIONS = (
    "SELECT function_name, database_name, parameters, macro_definition, comment "
    "FROM duckdb_functions() "
    "WHERE function_name LIKE 'rf\\_%' ESCAPE '\\' AND function_type IN ('macro', 'table_macro')"
)
Definition = tuple[tuple[str, ...], str]  # (parameters, body as DuckDB prints it)


class _Found(NamedTuple):
    """A macro of a connection as DuckDB resolves it, and its comment (a marker, or None)."""

    definition: Definition
    comment: str | None


def _definitions(con: duckdb.DuckDBPyConnection) -> dict[str, _Found]:
    """Every ``rf_*`` macro of ``con`` as DuckDB resolves it (a TEMP macro shadows one of the
    database; an overloaded name keeps its definitions in one sorted string)."""
    found: dict[str, dict[str, list[tuple[tuple[str, ...], str, str | None]]]] = {}
    for name, database, params, body, comment in con.sql(_DEFINITIONS).fetchall():
        found.setdefault(name, {}).setdefault(database, []).append(
            (tuple(params), body or "", comment))
    resolved = {}
    for name, by_database in found.items():
        rows = by_database.get("temp") or next(iter(by_database.values()))
        body = "\n".join(sorted(repr(r[:2]) for r in rows))
        resolved[name] = _Found((rows[0][0], body), rows[0][2])
    return resolved


@functools.cache
def _own(sql_dir: str | None) -> dict[str, Definition]:
    """rankframe's own macros of this version, as DuckDB prints them: the bundle loaded once
    per process into a private connection."""
    found = _definitions(register(sql_dir=sql_dir))
    return {name: macro.definition for name, macro in found.items()}


def _foreign(found: _Found, own: Definition, digest: str) -> str | None:
    """Why a connection's macro is not this version's (its marker's rankframe version, or
    ""), or None when it is: the same definition, or stored with this file's marker."""
    if found.definition == own:
        return None
    marker = _MARKER.fullmatch(found.comment or "")
    if marker is None:
        return ""
    return None if marker.group(2) == digest else marker.group(1)


def ensure_macros(con: duckdb.DuckDBPyConnection, metrics: set[str], *,
                  sql_dir: str | Path | None = None) -> bool:
    """Make sure ``con`` runs rankframe's own macros for ``metrics`` (and the helpers): a
    connection with no ``rf_*`` macro gets them all, missing ones are loaded, and a macro
    that differs from this version's (another definition under the name, without this
    version's marker) is refused. Returns True if it loaded any macro.

    Raises
    ------
    EngineError
        Naming the macros whose definitions are not rankframe's, and how to replace them.
    """
    folder = root(sql_dir)
    have = _definitions(con)
    if not have:
        register(con, sql_dir=folder)
        return True
    own = _own(str(folder))
    files = {name: _file(folder / f"rf_{name}.sql") for name in sorted(metrics)}
    helpers = _file(folder / HELPERS_FILE)
    foreign: dict[str, str] = {}
    for source in (helpers, *files.values()):
        for name in source.names:
            if name in have:
                why = _foreign(have[name], own[name], source.digest)
                if why is not None:
                    foreign[name] = why
    if foreign:
        raise EngineError(_foreign_message(foreign, folder))
    loaded = False
    if any(m not in have for m in helpers.names):
        register_helpers(con, sql_dir=folder)
        loaded = True
    for name, source in files.items():
        if any(m not in have for m in source.names):
            register_metric(con, name, sql_dir=folder)
            loaded = True
    return loaded


def _foreign_message(foreign: dict[str, str], folder: Path) -> str:
    import duckdb

    names = ", ".join(foreign)
    versions = sorted({v for v in foreign.values() if v})
    if versions and all(foreign.values()):
        why = (f"they were stored by rankframe {', '.join(versions)}, and differ from this "
               f"rankframe's ({_version()})")
    else:
        why = (f"their definitions differ from those in {folder} as DuckDB "
               f"{duckdb.__version__} prints them, and they carry no marker of this "
               f"rankframe ({_version()}): another rankframe's, or macros stored without "
               "a marker by another DuckDB version, or your own")
    return (f"rankframe: the connection's macro(s) {names} are not this rankframe's own ({why}); "
            "call rankframe.duckdb.register(con) to replace the rf_* macros with rankframe's "
            "(persistent=True to store them in the database file), or pass another connection")


def catalog_version(con: duckdb.DuckDBPyConnection) -> int | None:
    """How many statements that may change what a name binds to have run on ``con``'s
    database (DuckDB's catalog version), or None where DuckDB does not tell."""
    version = getattr(con, "_catalog_version", None)
    if version is None:
        return None
    value = version()
    return value if isinstance(value, int) else None


class _Checks:
    """Per connection and macro folder: the catalog version at which the connection's macros
    for a set of metrics were last found to be rankframe's own."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: weakref.WeakKeyDictionary[object, dict[str, tuple[int, frozenset[str]]]] = (
            weakref.WeakKeyDictionary())

    def holds(self, con: object, folder: str, metrics: set[str], version: int) -> bool:
        with self._lock:
            seen = self._seen.get(con, {}).get(folder)
        return seen is not None and seen[0] == version and metrics <= seen[1]

    def record(self, con: object, folder: str, metrics: set[str], verified: int,
               now: int) -> None:
        """The check of ``metrics`` held at version ``verified``, and ``now`` is that
        version plus only rankframe's own statements since."""
        with self._lock:
            by_folder = self._seen.setdefault(con, {})
            before = by_folder.get(folder)
            kept = before[1] if before is not None and before[0] == verified else frozenset()
            by_folder[folder] = (now, kept | metrics)

    def forget(self, con: object) -> None:
        with self._lock:
            self._seen.pop(con, None)


_checks = _Checks()


@contextmanager
def checked(con: duckdb.DuckDBPyConnection, metrics: set[str], *, statements: int = 0,
            sql_dir: str | Path | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """``con`` with its macros for ``metrics`` checked (:func:`ensure_macros`), unless
    nothing that may change a name's binding ran on it since they were last checked. The
    block runs ``statements`` such statements of its own (registering a frame and dropping
    it again: two): when the catalog version moved by exactly those, the check is known to
    still hold; any other change makes the next call check again."""
    folder = str(root(sql_dir))
    start = catalog_version(con)
    verified: int | None = start
    if start is None or not _checks.holds(con, folder, metrics, start):
        loaded = ensure_macros(con, metrics, sql_dir=sql_dir)
        verified = None if loaded else start
    yield con
    if verified is None:
        return
    now = catalog_version(con)
    if now == verified + statements:
        _checks.record(con, folder, metrics, verified, now)
    else:
        _checks.forget(con)

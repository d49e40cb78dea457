"""The DuckDB face: the ``rf_*`` SQL macros, loaded into a connection and called on a frame.

The macro files and their loading are :mod:`rankframe.faces.macros` (re-exported here).
:func:`connection_for` hands ``evaluate`` a connection: the caller's, its macros checked
against this version's (:func:`rankframe.faces.macros.checked`: stored or ``TEMP``, the
check cached per connection), or one shared by the process, loaded macro by macro on
demand. A frame reaches DuckDB under a name of its own for the call, its columns renamed
by position, so that DuckDB, which matches names without regard to case, reads exactly
the columns named (``Rank`` beside ``rank``, a query key ``["Qid", "QID"]``).
"""

from __future__ import annotations

import os
import threading
import uuid
import weakref
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import polars as pl

from rankframe.errors import EngineError, InputError
from rankframe.faces.base import Face, JudgeOptions, PolarsNative, result_dtypes
from rankframe.faces.macros import (
    HELPERS_FILE,
    checked,
    default_sql_dir,
    ensure_macros,
    register,
    register_helpers,
    register_metric,
    root,
    sql_files,
    sql_text,
)
from rankframe.measures import Measure
from rankframe.registry import Metric

if TYPE_CHECKING:  # imported where a connection is made: DuckDB is not needed before
    import duckdb

__all__ = ["FACE", "HELPERS_FILE", "DuckDBFace", "call", "connection_for", "default_sql_dir",
           "ensure_macros", "evaluate_prefs", "quote", "register", "register_helpers",
           "register_metric", "sql_files", "sql_literal", "sql_text"]


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

                # No progress bar: DuckDB would print it into the caller's output.
                self._con, self._pid, self._loaded = duckdb.connect(), os.getpid(), set()
                self._con.execute("SET enable_progress_bar = false")
                register_helpers(self._con)
            for name in sorted(metrics - self._loaded):
                register_metric(self._con, name)
                self._loaded.add(name)
            yield self._con


_shared = _SharedConnection()


def _caller_connection(con: object) -> duckdb.DuckDBPyConnection:
    """``con`` if it is a DuckDB connection, else an :class:`EngineError` saying what it is."""
    import duckdb

    if not isinstance(con, duckdb.DuckDBPyConnection):
        raise EngineError(f"con must be a DuckDB connection (duckdb.connect(...)) or None, "
                          f"got {con!r} of type {type(con).__name__}")
    return con


class _Locks:
    """A lock per caller's connection: rankframe's calls on one connection take turns (DuckDB
    refuses a call on a connection busy with another, and a frame registered by one call
    must stay until its query has run)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._locks: weakref.WeakKeyDictionary[object, threading.Lock] = (
            weakref.WeakKeyDictionary())

    def __call__(self, con: object) -> threading.Lock:
        with self._lock:
            lock = self._locks.get(con)
            if lock is None:
                lock = self._locks[con] = threading.Lock()
            return lock


_locks = _Locks()


@contextmanager
def connection_for(con: duckdb.DuckDBPyConnection | None, metrics: set[str], *,
                   statements: int = 0) -> Iterator[duckdb.DuckDBPyConnection]:
    """``con`` with rankframe's macros for ``metrics`` (checked, :func:`checked`; the block
    runs ``statements`` catalog statements of its own), or, when ``con`` is None, the
    process's shared connection with them loaded, held for the block (one rankframe call at
    a time on a connection). A ``con`` that is not a DuckDB connection, or is closed, is an
    :class:`EngineError`."""
    if con is None:
        with _shared(metrics) as shared:
            yield shared
        return
    import duckdb

    connection = _caller_connection(con)
    try:
        with _locks(connection), checked(connection, metrics,
                                         statements=statements) as ready:
            yield ready
    except duckdb.ConnectionException as exc:
        raise EngineError(f"the DuckDB connection given as con cannot be used ({exc}); pass "
                          "an open connection") from None


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


def _fetched(relation: duckdb.DuckDBPyRelation) -> pl.DataFrame:
    """A query's result as a Polars frame, column by column through the Arrow C stream
    interface (no Python object per value, and no pyarrow)."""
    return pl.DataFrame(relation)


#: Key dtypes DuckDB cannot read from Polars: they go as their dense rank (same groups, same
#: order) and come back through it.
_RANKED_KEYS = (pl.Int128, pl.UInt128)


def _positional(frame: pl.DataFrame, keys: Sequence[str], read: Sequence[str]
                ) -> tuple[pl.DataFrame, dict[str, str]]:
    """The frame DuckDB reads: the key columns as ``k0, k1 ...`` and the columns the
    measures read as ``c0, c1 ...`` (names DuckDB cannot confuse, whatever the case or
    spelling of the originals, even ""), with the column -> name map of the latter. An
    all-NULL column (dtype Null) reaches DuckDB without a validity bitmap, which it refuses:
    it is given a type (its values stay NULL; the result keeps the key's dtype). Integer
    columns the measures read go as BIGINT, in which no valid rank overflows when a macro
    adds to it (UTINYINT 255 + 1 is an error in its own type)."""

    def typed(name: str) -> pl.Expr:
        dtype = frame.schema[name]
        if dtype == pl.Null or (name not in keys and dtype.is_integer() and dtype != pl.UInt64):
            return pl.col(name).cast(pl.Int64)
        if dtype in _RANKED_KEYS and name in keys:
            return pl.col(name).rank("dense")
        return pl.col(name)

    names = {column: f"c{i}" for i, column in enumerate(read)}
    return frame.select([*(typed(k).alias(f"k{i}") for i, k in enumerate(keys)),
                         *(typed(c).alias(names[c]) for c in read)]), names


def _with_keys(result: pl.DataFrame, frame: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """``result`` with its key columns ``k0, k1 ...`` named and typed as ``frame``'s keys (a
    dense rank back to its value)."""
    columns = []
    for i, key in enumerate(keys):
        values = result.get_column(f"k{i}")
        dtype = frame.schema[key]
        if dtype in _RANKED_KEYS:
            distinct = frame.get_column(key).drop_nulls().unique().sort()
            values = distinct.gather(values - 1)
        columns.append(values.cast(dtype).alias(key))
    return pl.DataFrame([*columns, *result.get_columns()[len(keys):]])


def evaluate_prefs(prefs: pl.DataFrame, run: pl.DataFrame, *, depth: int | None = None,
                   complete: bool = False, connection: duckdb.DuckDBPyConnection | None = None
                   ) -> pl.DataFrame:
    """trec_eval's preference measures per query by the ``rf_prefs`` table macro: the same
    table as :func:`rankframe.faces.polars.prefs.prefs_evaluate` (docs/semantics.md#preferences).

    Parameters
    ----------
    prefs : pl.DataFrame
        ``qid, jg, jsg, docid, level``, as :func:`rankframe.io.read_prefs` returns it.
    run : pl.DataFrame
        ``qid, docid, score``.
    depth : int, optional
        Keep the first ``depth`` results of each query (trec_eval's ``-M``).
    complete : bool
        Evaluate every query of ``prefs``, those without results too (``-c``).
    connection : duckdb.DuckDBPyConnection, optional
        An open connection (the macro is defined in it); None: a new in-memory one.

    Returns
    -------
    pl.DataFrame
        ``qid`` and one column per measure of
        :data:`rankframe.faces.polars.prefs.PREFS_MEASURES`, queries by id.
    """
    import duckdb

    con = _caller_connection(connection) if connection is not None else duckdb.connect()
    register_metric(con, "prefs")
    suffix = uuid.uuid4().hex  # this call's names: threads may share a connection
    names = (f"rf__prefs_input_{suffix}", f"rf__prefs_run_{suffix}")
    frames = {names[0]: prefs.select("qid", "jg", "jsg", "docid", "level"),
              names[1]: run.select("qid", "docid", "score")}
    with _registered(con, frames):
        query = (f"SELECT * FROM rf_prefs('{names[0]}', '{names[1]}', depth := "
                 f"{sql_literal(depth)}, complete := {sql_literal(complete)})")
        try:
            table: pl.DataFrame = con.sql(query).pl()
        except duckdb.InvalidInputException as exc:  # error() in the macro: a cycle
            raise InputError(str(exc).removeprefix("Invalid Input Error: ")) from None
    counts = ["prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret"]
    return table.with_columns(pl.col(counts).cast(pl.Int64), pl.col("qid").cast(pl.String))


class DuckDBFace(PolarsNative):
    name = "duckdb"

    def prepare(self, metrics: set[str], connection: Any = None) -> None:
        with connection_for(connection, metrics):
            pass

    def evaluate(self, judged: pl.DataFrame | pl.LazyFrame, measures: Sequence[Measure],
                 keys: Sequence[str], columns: Mapping[str, str], *,
                 connection: duckdb.DuckDBPyConnection | None = None) -> pl.DataFrame:
        frame = judged.lazy().collect()
        read = list(dict.fromkeys(columns[c] for m in measures for c in m.metric.columns))
        table, names = _positional(frame, keys, read)
        by_role = {role: names[column] for role, column in columns.items() if column in names}
        key_names = [f"k{i}" for i in range(len(keys))]
        select = ", ".join(
            key_names
            # Positional aliases: DuckDB's identifiers are case-insensitive ("nDCG@10" would
            # clash with "ndcg@10"); the labels come back with the schema.
            + [f"{call(m.metric, by_role, m.values, checked=True)} AS __m{i}"
               for i, m in enumerate(measures)]
        )
        group = ", ".join(key_names)
        order = ", ".join(f"{k} NULLS FIRST" for k in key_names)  # as the Polars face
        view = f"__rankframe_judged_{uuid.uuid4().hex}"  # this call's: threads share a con
        with connection_for(connection, {m.metric.name for m in measures},
                            statements=2) as con, _registered(con, {view: table}):
            relation = con.sql(f"SELECT {select} FROM {view} GROUP BY {group} ORDER BY {order}")
            fetched = _fetched(relation)
        dtypes = {name: table.schema[name] for name in key_names}
        schema = result_dtypes(dtypes, measures)
        result = fetched.rename(dict(zip(fetched.columns, schema, strict=True))).cast(
            pl.Schema(schema))
        return _with_keys(result, frame, keys)

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
                con.execute((root(None) / f"{name}.sql").read_text(encoding="utf-8"))
            judged_only = "true" if options.judged_only else "false"
            relation = con.sql(f"SELECT * FROM {macro}('__rankframe_run', '__rankframe_qrels', "
                               f"depth := {depth}, judged_only := {judged_only})")
            judged: pl.DataFrame = relation.pl()
        return judged.rename({new: old for old, new in names.items()})


FACE: Face = DuckDBFace()

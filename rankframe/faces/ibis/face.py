"""The Ibis face objects (``FACES``, one per backend) and :func:`evaluate_table`: every
measure's plan over one table, one grouped aggregate. What each backend cannot express is
:mod:`rankframe.faces.ibis_gaps`."""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ibis
import polars as pl

from rankframe.errors import RankframeError
from rankframe.faces.base import Face, Role, Ties, signed_integers
from rankframe.faces.ibis import (
    catalog,
    correlation,
    counts,
    diversity,
    gains,
    popularity_bias,
    ranked,
    tied,
    trec,
    user,
)
from rankframe.faces.ibis import columns as cols
from rankframe.faces.ibis.columns import Final, Table
from rankframe.faces.ibis.correlation import with_pair_counts
from rankframe.faces.ibis.judge import IbisJudge, case_distinct
from rankframe.faces.ibis.plan import Plan, with_joined
from rankframe.faces.ibis_gaps import BACKENDS, JUDGE_TIES, unsupported_metrics
from rankframe.measures import Measure
from rankframe.registry import METRICS
from rankframe.validation import MAX_GRADE

#: The module each backend's driver lives in (what ``pip install 'ibis-framework[x]'`` adds).
_DRIVERS = {"duckdb": "duckdb", "polars": "polars", "sqlite": "sqlite3",
            "datafusion": "datafusion", "postgres": "psycopg"}


#: Environment variable holding a PostgreSQL URL for the ``ibis-postgres`` face.
POSTGRES_URL_ENV = "RANKFRAME_POSTGRES_URL"
_NO_SERVER = (f"no PostgreSQL server: no connection given (use_connection) and "
              f"{POSTGRES_URL_ENV} unset")


#: The Ibis builder of every metric it computes, by name (from its family module).
_BUILDERS: dict[str, Callable[..., Final]] = {
    name: getattr(module, name)
    for module in (counts, ranked, gains, tied, trec, user, correlation, catalog,
                   popularity_bias, diversity)
    for name in METRICS if hasattr(module, name)
}


def _grades_fit(plan: Plan, values: Mapping[str, Any], final: Final) -> Final:
    """``final``, NULL for a group with a grade above 960 when the gain is exponential
    (2^rel - 1 would overflow its sums; docs/semantics.md#input-checks)."""
    if values.get("gain") != "exponential":
        return final
    top = plan.agg(lambda t: cols.as_float(plan.rel(t)).max())
    return lambda a: ibis.ifelse((a[top] > MAX_GRADE).fill_null(False), ibis.null(cols.F64),
                                 final(a))


def evaluate_table(table: Table, measures: Sequence[Measure], keys: Sequence[str],
                   columns: Mapping[str, str], backend: str | None = None) -> Table:
    """One row per query key of ``table`` (sorted, NULL first), one column per measure named
    by its label: float64, int64 for counts. Nothing is executed. ``backend`` (an Ibis
    backend name) adapts what differs between engines (SQLite has no NaN)."""
    plan = Plan(table, keys, columns, backend)
    finals: list[tuple[Measure, Final]] = []
    for m in measures:
        build = _BUILDERS[m.metric.name]
        values = {p.name: m.values.get(p.name, p.default) for p in m.metric.params}
        finals.append((m, _grades_fit(plan, values, build(plan, **values))))
    source = plan.table()
    grouped = source.group_by(list(keys)).aggregate(
        **{name: build(source) for name, build in plan.aggregates.items()})
    if plan.pairs:
        grouped = with_pair_counts(plan, grouped, source)
    for build_joined in plan.joined:
        grouped = with_joined(grouped, build_joined(source))
    result = grouped.select(*keys, **{
        m.label: final(grouped).cast(cols.I64 if m.metric.is_count else cols.F64)
        for m, final in finals})
    return result.order_by([ibis.asc(k, nulls_first=True) for k in keys])


class IbisFace(IbisJudge):
    """The face of one Ibis backend (``ibis-<backend>``)."""

    role: Role = "cluster"

    def __init__(self, backend: str) -> None:
        self.backend = backend
        self.name = f"ibis-{backend}"
        self.unsupported: Mapping[str, str] = unsupported_metrics(backend)
        self.windows = backend != "polars"
        self.judge_ties: frozenset[Ties] = JUDGE_TIES
        # Each backend's SUM adds in its own order (SQLite has no array to fold): within
        # 1e-9 of the oracle only (docs/semantics.md#exactness).
        self.exact: frozenset[str] = frozenset()
        self.inexact_values: Mapping[str, str] = {}
        self._connection: Any = None
        self._lock = threading.Lock()

    # Connections -----------------------------------------------------------------------

    def prepare(self, metrics: set[str], connection: Any = None) -> None:
        return None

    def unavailable(self) -> str | None:
        driver = _DRIVERS[self.backend]
        try:
            importlib.import_module(driver)
            importlib.import_module(f"ibis.backends.{self.backend}")
        except ImportError as exc:
            return (f"the Ibis {self.backend} backend cannot load ({exc}); "
                    f"pip install 'ibis-framework[{self.backend}]'")
        if self.backend == "postgres":
            if self._connection is not None or os.environ.get(POSTGRES_URL_ENV):
                return None
            return _NO_SERVER
        if self.backend == "datafusion":
            try:
                self.connection()
            except TypeError as exc:  # ibis 12 against datafusion >= 52
                return f"the Ibis datafusion backend cannot connect: {exc}"
        return None

    def use_connection(self, connection: Any) -> None:
        """Evaluate and judge with ``connection`` (an Ibis backend of this face's kind);
        None forgets it (a new default connection is made when next needed)."""
        with self._lock:
            self._connection = connection

    def connection(self) -> Any:
        """The backend connection: the one given, else a new in-memory one (for PostgreSQL,
        the URL in ``RANKFRAME_POSTGRES_URL``; without one, a RankframeError)."""
        with self._lock:
            if self._connection is None:
                self._connection = self._connect()
            return self._connection

    def _connect(self) -> Any:
        if self.backend != "postgres":
            return getattr(ibis, self.backend).connect()
        url = os.environ.get(POSTGRES_URL_ENV)
        if not url:
            raise RankframeError(f"the ibis-postgres face: {_NO_SERVER}")
        return ibis.connect(url)

    # Tables ----------------------------------------------------------------------------

    def native(self, frame: pl.DataFrame) -> Table:
        """``frame`` as an Ibis table (an in-memory table, uploaded when executed).

        Ibis 12 uploads an in-memory table to SQLite through pandas, which turns an integer
        column with NULLs into floats (2^62 + 1 becomes 2^62); such frames go as Python
        objects under the frame's own schema instead. Unsigned integers go as signed ones
        (PostgreSQL has no unsigned type)."""
        frame = signed_integers(frame)
        if self.backend == "sqlite" and any(
                dtype.is_integer() and frame[name].null_count()
                for name, dtype in frame.schema.items()):
            import pandas as pd  # type: ignore[import-untyped]

            objects = pd.DataFrame({c: pd.Series(frame[c].to_list(), dtype=object)
                                    for c in frame.columns})
            return ibis.memtable(objects, schema=ibis.Schema.from_pyarrow(
                frame.to_arrow().schema))
        return ibis.memtable(frame.to_arrow())

    def to_polars(self, table: Table) -> pl.DataFrame:
        result: pl.DataFrame = self.connection().to_polars(table)
        return result

    def evaluate(self, judged: Table, measures: Sequence[Measure], keys: Sequence[str],
                 columns: Mapping[str, str], *, connection: Any = None) -> Table:
        case_distinct("evaluate", "judged table", judged.columns, self.backend)
        return evaluate_table(judged, measures, keys, columns, self.backend)


#: One face per backend, registered in :mod:`rankframe.faces` as ``ibis-<backend>``.
FACES: dict[str, Face] = {backend: IbisFace(backend) for backend in BACKENDS}

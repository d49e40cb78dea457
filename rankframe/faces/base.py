"""The protocol every face implements, and the pieces faces share.

A face is one backend's implementation of the whole registry: it evaluates measures over a
judged table in its own native table type, judges a run against qrels, converts between its
native tables and Polars (for the tests and the command line), and says as data which
metrics and judge options it supports. ``rankframe.evaluate``, the command line and the
test-suite reach every backend through this protocol; :mod:`rankframe.faces` registers the
faces by name.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

import polars as pl

from rankframe.errors import InputError, MeasureError
from rankframe.measures import Measure, parse_all
from rankframe.registry import METRICS
from rankframe.table.judge import Ties

if TYPE_CHECKING:
    from rankframe.registry import Metric

__all__ = ["Face", "JudgeOptions", "PolarsNative", "Role", "Ties", "exact_metrics", "parse_for",
           "preparing", "require_support", "result_dtypes", "signed_integers", "supports"]

#: ``engine``: evaluates Polars frames in process (``evaluate(..., engine=name)``);
#: ``cluster``: evaluates its own distributed tables; ``oracle``: the slow reference.
Role = Literal["engine", "cluster", "oracle"]


@dataclass(frozen=True)
class JudgeOptions:
    """Column names and options of a ``judge`` call, as every face receives them."""

    query: str = "qid"
    doc: str = "docid"
    score: str = "score"
    rel: str = "rel"
    depth: int | None = None
    ties: Ties = "docid"
    judged_only: bool = False


class Face(Protocol):
    """One backend. ``native`` tables are what its ``evaluate`` and ``judge`` take and give:
    Polars frames for the in-process engines, Spark DataFrames for Spark."""

    @property
    def name(self) -> str:
        """The name it is registered and selected under (``engine="duckdb"``)."""
        ...

    @property
    def role(self) -> Role: ...

    @property
    def unsupported(self) -> Mapping[str, str]:
        """Registered metrics it does not implement, each with the reason."""
        ...

    @property
    def judge_ties(self) -> frozenset[Ties]:
        """The ``ties`` options its ``judge`` implements."""
        ...

    @property
    def exact(self) -> frozenset[str]:
        """The metrics whose values are the oracle's very doubles (docs/semantics.md#exactness);
        the others agree with the oracle within 1e-9. The conformance kit compares so."""
        ...

    @property
    def inexact_values(self) -> Mapping[str, str]:
        """Parameter values (``"gain=exponential"``) under which even an :attr:`exact` metric
        only agrees within 1e-9, each with the reason."""
        ...

    def unavailable(self) -> str | None:
        """Why it cannot run here (a missing extra, no Java runtime), or None."""
        ...

    def native(self, frame: pl.DataFrame) -> Any:
        """``frame`` as a native table of this face."""
        ...

    def prepare(self, metrics: set[str], connection: Any = None) -> None:
        """Do now the set-up ``evaluate`` would do first for these metrics (connect, load
        code), so that it can overlap other work (see :func:`preparing`); optional."""
        ...

    def to_polars(self, table: Any) -> pl.DataFrame:
        """A native table as a Polars frame (one collect for a distributed table)."""
        ...

    def evaluate(self, judged: Any, measures: Sequence[Measure], keys: Sequence[str],
                 columns: Mapping[str, str], *, connection: Any = None) -> Any:
        """One row per query key of ``judged`` (keys sorted, NULL first), one column per
        measure, named by its label: Float64, Int64 for counts. ``columns`` maps each
        column name a metric reads (``rel``, ``rank`` ...) to the table's column;
        ``connection`` is the face's session or connection, if it takes one. The input is
        trusted: callers check it first (:func:`rankframe.table.checks.check_judged`)."""
        ...

    def judge(self, run: Any, qrels: Any, options: JudgeOptions) -> Any:
        """The judged long table of ``run`` against ``qrels`` (docs/semantics.md, "From a
        run and qrels to the judged table")."""
        ...


def exact_metrics() -> frozenset[str]:
    """The registered metrics whose arithmetic the contract fixes (``Metric.exact``): a face
    that follows docs/semantics.md#exactness gives the oracle's doubles for all of them."""
    return frozenset(name for name, metric in METRICS.items() if metric.exact)


class PolarsNative:
    """What the faces whose native tables are Polars frames share (the in-process engines
    and the oracle): the engine role unless a face says otherwise, nothing to convert,
    nothing missing, both ``ties`` rules judged, every exact metric exact."""

    role: Role = "engine"
    unsupported: Mapping[str, str] = {}
    judge_ties: frozenset[Ties] = frozenset({"docid", "average"})
    exact: frozenset[str] = exact_metrics()
    inexact_values: Mapping[str, str] = {}

    def unavailable(self) -> str | None:
        return None

    def native(self, frame: pl.DataFrame) -> pl.DataFrame:
        return frame

    def prepare(self, metrics: set[str], connection: Any = None) -> None:
        return None

    def to_polars(self, table: pl.DataFrame) -> pl.DataFrame:
        return table


@contextmanager
def preparing(face: Face, measures: Sequence[Measure], connection: Any = None
              ) -> Iterator[None]:
    """Run ``face.prepare`` for the measures on a thread while the ``with`` block works (in
    ``evaluate_run`` while the run is judged, in ``evaluate`` while the table is checked:
    Polars releases the GIL): the DuckDB face connects and loads its macros meanwhile
    instead of after."""
    metrics = {m.metric.name for m in measures}

    def prepare() -> None:
        with suppress(Exception):  # evaluate does the set-up again, and reports its errors
            face.prepare(metrics, connection)

    thread = threading.Thread(target=prepare, daemon=True)
    thread.start()
    try:
        yield
    finally:
        thread.join()


#: Each unsigned integer dtype and a signed one that holds its values (UInt64: Int64, which
#: holds every valid rank; a larger value is refused by name); a column without a value
#: (dtype Null) as Int64, which every engine has.
_SIGNED: dict[type[pl.DataType], pl.DataType] = {
    pl.UInt8: pl.Int16(), pl.UInt16: pl.Int32(), pl.UInt32: pl.Int64(), pl.UInt64: pl.Int64(),
    pl.Null: pl.Int64()}


def signed_integers(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with each unsigned integer column as a signed one holding the same values,
    and each column of dtype Null as Int64, for the engines that have neither (Spark,
    PostgreSQL); an InputError names a column holding a value above 2^63 - 1."""
    casts = {name: _SIGNED[type(dtype)] for name, dtype in frame.schema.items()
             if type(dtype) in _SIGNED}
    for name in casts:
        top = frame.get_column(name).max()
        if isinstance(top, int) and top > 2**63 - 1:
            raise InputError(f"column {name!r} holds {top}, above 2^63 - 1, the largest "
                             f"integer this engine holds")
    return frame.with_columns(pl.col(n).cast(d) for n, d in casts.items()) if casts else frame


def supports(face: Face, metric: Metric) -> bool:
    """True if ``face`` implements ``metric``."""
    return metric.name not in face.unsupported


def require_support(face: Face, measures: Sequence[Measure]) -> None:
    """Raise a clear error for the first measure ``face`` cannot compute."""
    for measure in measures:
        reason = face.unsupported.get(measure.metric.name)
        if reason is not None:
            raise MeasureError(
                f"measure {measure.label!r}: the {face.name} face has no "
                f"{measure.metric.name} ({reason})"
            )


def parse_for(face: Face, measures: str | Sequence[str], keys: Sequence[str],
              threshold: float) -> list[Measure]:
    """Measure strings parsed for ``face``: each one a metric it has (see
    :func:`require_support`), no label the name of a query column (labels become columns
    beside the keys)."""
    parsed = parse_all(measures, threshold=threshold)
    require_support(face, parsed)
    clash = {m.label for m in parsed} & set(keys)
    if clash:
        raise MeasureError(f"measure label(s) {sorted(clash)} clash with the query column(s)")
    return parsed


def result_dtypes(keys: Mapping[str, pl.DataType], measures: Sequence[Measure]
                  ) -> dict[str, pl.DataType]:
    """The schema of an ``evaluate`` result: the key columns, then Float64 per measure, Int64
    for counts, String for a string measure (relstring)."""
    return dict(keys) | {
        m.label: pl.Int64() if m.metric.is_count else pl.String() if m.metric.is_string
        else pl.Float64() for m in measures
    }

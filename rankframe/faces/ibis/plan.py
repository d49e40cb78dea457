"""A measure's plan over one Ibis table: row-level columns (window functions partitioned by
the query key), grouped aggregates per query, and the per-query tables joined to them.
Several measures share one ``mutate`` chain and one ``group_by().aggregate()``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ibis

from rankframe.faces.ibis import columns as cols
from rankframe.faces.ibis.columns import Table, Value


class Plan:
    """Accumulates what several measures need over one table: row-level columns and
    per-query aggregates. A row-level column names the row-level columns it reads
    (``needs``); columns are computed in stages, one ``mutate`` per stage, so the SQL
    nests only as deep as the longest chain of window columns."""

    def __init__(self, table: Table, keys: Sequence[str], columns: Mapping[str, str],
                 backend: str | None = None) -> None:
        self.source = table
        self.backend = backend
        self.keys = list(keys)
        self.columns = columns
        self.rows: list[tuple[int, str, Callable[[Table], Value]]] = []
        self.stages: dict[str, int] = {}
        self.aggregates: dict[str, Callable[[Table], Value]] = {}
        self.pairs = False  # the Kendall pair counts are joined to the aggregates
        self.numbered = False  # the queries are numbered (column __rf_group)
        #: Per-query tables (column ``__rf_group`` and float64 values) built from the
        #: row-level table, joined to the aggregates (a value is 0 where a query has none).
        self.joined: list[Callable[[Table], Table]] = []
        self._count = 0

    def _name(self, kind: str) -> str:
        self._count += 1
        return f"__rf_{kind}{self._count}"

    def col(self, t: Table, name: str) -> Value:
        """The metric column ``name`` (rel, rank, ...) of ``t``."""
        return t[self.columns[name]]

    def partition(self, t: Table, *extra: Value) -> list[Value]:
        return [t[k] for k in self.keys] + list(extra)

    def row(self, build: Callable[[Table], Value], needs: Sequence[str] = ()) -> str:
        """Add a row-level column computed by ``build(table)``, which reads the row-level
        columns ``needs``; returns its name."""
        name = self._name("r")
        stage = 1 + max((self.stages[n] for n in needs if n in self.stages), default=0)
        self.stages[name] = stage
        self.rows.append((stage, name, build))
        return name

    def agg(self, build: Callable[[Table], Value]) -> str:
        """Add a per-query aggregate computed by ``build(table)``; returns its name."""
        name = self._name("a")
        self.aggregates[name] = build
        return name

    def table(self) -> Table:
        """The source table with every row-level column."""
        t = self.source
        for stage in sorted(set(self.stages.values())):
            t = t.mutate(**{name: build(t) for s, name, build in self.rows if s == stage})
        return t

    # Shared pieces -------------------------------------------------------------------

    def rel(self, t: Table) -> Value:
        if self.backend == "datafusion":  # it orders -0.0 below 0.0 (a judged grade)
            return cols.no_negative_zero(self.col(t, "rel"))
        return cols.as_float(self.col(t, "rel"))

    def rank(self, t: Table) -> Value:
        return self.col(t, "rank").cast(cols.I64)

    def count_where(self, condition: Callable[[Table], Value]) -> str:
        return self.agg(lambda t: cols.flag(condition(t)).sum().fill_null(0))

    def hits(self, k: int | None, threshold: float) -> str:
        return self.count_where(
            lambda t: cols.relevant(self.rel(t), threshold) & cols.retrieved(self.rank(t), k))

    def num_relevant(self, threshold: float) -> str:
        return self.count_where(lambda t: cols.relevant(self.rel(t), threshold))

    def num_retrieved(self, k: int | None = None, rank: str = "rank") -> str:
        return self.count_where(lambda t: cols.retrieved(self.col(t, rank), k))

    def total(self, build: Callable[[Table], Value], *extra: str,
              needs: Sequence[str] = ()) -> str:
        """A per-query total of ``build`` as a row-level column (a window over the query,
        and over the columns ``extra`` too)."""
        return self.row(lambda t: build(t).sum().over(
            ibis.window(group_by=self.partition(t, *(t[e] for e in extra)))).fill_null(0),
            needs=[*needs, *extra])

    def running(self, build: Callable[[Table], Value], order: Callable[[Table], Any],
                *extra: str, needs: Sequence[str] = ()) -> str:
        """The running total of ``build`` in ``order`` within the query (rows frame, the
        current row included)."""
        return self.row(lambda t: build(t).sum().over(ibis.cumulative_window(
            group_by=self.partition(t, *(t[e] for e in extra)), order_by=order(t))),
            needs=[*needs, *extra])

    def relevant_running(self, threshold: float) -> str:
        """Per row: relevant retrieved rows ranked at or above it (j of the j-th relevant)."""
        return self.running(
            lambda t: cols.flag(cols.relevant(self.rel(t), threshold) & self.rank(t).notnull()),
            lambda t: self.rank(t))

    def dcg(self, k: int | None, gain: str, rank: str = "rank", gains: Any = None) -> str:
        return self.agg(lambda t: cols.sum_where(
            cols.gain_of(self.rel(t), gain, gains) / cols.discount(self.col(t, rank), self.backend),
            cols.retrieved(self.col(t, rank), k)))

    def idcg(self, k: int | None, gain: str, ideal: str, rank: str = "rank",
             gains: Any = None) -> str:
        def pool(t: Table) -> Value:
            positive = cols.gain_of(self.rel(t), gain, gains) > 0
            return positive if ideal == "all" else positive & self.col(t, rank).notnull()

        # Pool rows first, by gain descending: their row numbers are the ideal positions.
        position = self.row(lambda t: ibis.row_number().over(ibis.window(
            group_by=self.partition(t),
            order_by=[ibis.desc(cols.flag(pool(t))),
                      ibis.desc(cols.gain_of(self.rel(t), gain, gains))])) + 1)
        return self.agg(lambda t: cols.sum_where(
            cols.gain_of(self.rel(t), gain, gains) / cols.discount(t[position], self.backend),
            pool(t) & (True if k is None else t[position] <= k)))


GROUP = "__rf_group"


def with_joined(grouped: Table, values: Table) -> Table:
    """``grouped`` with the value columns of ``values`` (per ``__rf_group``), 0.0 where a
    query has no row in ``values``."""
    names = [c for c in values.columns if c != GROUP]
    values = values.rename(__rf_group_j=GROUP)
    joined = grouped.left_join(values, grouped[GROUP] == values["__rf_group_j"])
    return joined.select(*[joined[c] for c in grouped.columns],
                         **{c: joined[c].fill_null(0.0) for c in names})

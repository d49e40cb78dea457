"""The Ibis faces: every metric as Ibis expressions over an Ibis table of the judged long
table, run where the table lives (DuckDB, Polars, SQLite, DataFusion, PostgreSQL, and any
SQL dialect Ibis compiles to).

One module serves several registered faces, one per Ibis backend (``ibis-duckdb``,
``ibis-polars``, ``ibis-sqlite``, ``ibis-datafusion``, ``ibis-postgres``): :data:`FACES`
maps each backend to its :class:`IbisFace`.

How a measure is computed. Each metric is built from row-level columns (window functions
partitioned by the query key: running counts ordered by rank, per-query totals, row
numbers of the ideal ordering), then one grouped aggregate per query, then a scalar
expression over the aggregates. Several measures share one ``mutate`` chain and one
``group_by().aggregate()``; nothing runs in Python (no UDF), so the whole evaluation is
one SQL statement on the SQL backends. The running product of ERR and of the tie-aware
reciprocal rank is carried as a running sum of logarithms (every factor is > 0).

Kendall's statistics count pairs of rows: the kept rows of each query are joined to
themselves (each unordered pair once) and the pair counts joined back to the aggregates.

What an engine cannot express is data: :attr:`IbisFace.unsupported` (metric -> reason).
The Ibis Polars backend compiles no window function (Ibis 12), so the metrics that need
one are unsupported there; its ``judge`` ranks with an equality self-join instead.
RBO sums over every depth 1..l of a ranking: a generated series per query (an unnested
integer range) joined to the overlap counts and summed with a running window. SQLite has
no array to unnest and the Polars backend no window, so RBO is unsupported there.

Ibis is the optional extra ``rankframe[ibis]``; :mod:`rankframe.ibis` is the public entry
point (``evaluate``, ``judge``, ``to_sql``).
"""

from __future__ import annotations

try:
    import ibis
    import ibis.expr.datatypes as dt
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "rankframe.ibis needs Ibis; install the optional extra: pip install 'rankframe[ibis]'"
    ) from exc

import atexit
import glob
import importlib
import math
import os
import pwd
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import polars as pl

from rankframe.errors import InputError
from rankframe.faces.base import Face, JudgeOptions, Role, Ties
from rankframe.measures import Measure
from rankframe.registry import METRICS
from rankframe.validation import MAX_GRADE

# Ibis ships no type information: its tables and expressions are typed as Any here.
Table = Any
Value = Any
Final = Callable[[Table], Value]

BACKENDS: tuple[str, ...] = ("duckdb", "polars", "sqlite", "datafusion", "postgres")
#: The module each backend's driver lives in (what ``pip install 'ibis-framework[x]'`` adds).
_DRIVERS = {"duckdb": "duckdb", "polars": "polars", "sqlite": "sqlite3",
            "datafusion": "datafusion", "postgres": "psycopg"}
#: Environment variable holding a PostgreSQL URL for the ``ibis-postgres`` face.
POSTGRES_URL_ENV = "RANKFRAME_POSTGRES_URL"

F64 = dt.float64
I64 = dt.int64

# --------------------------------------------------------------------------------------
# What each engine cannot express
# --------------------------------------------------------------------------------------

_NO_SERIES = ("the sum over every depth 1..l of a ranking needs a generated series per "
              "query; Ibis 12 unnests no array on SQLite (it has no array type) and "
              "expresses no recursive CTE")
_NO_WINDOWS = "needs a window function, which the Ibis Polars backend (Ibis 12) does not compile"
#: Metrics that need a window function (running counts, per-query totals, row numbers).
WINDOWED = frozenset({
    "average_precision", "r_precision", "bpref", "iprec_at_recall", "idcg", "ndcg", "err",
    "r_precision_mult",
    "spearman_rho", "dcg_ties", "ndcg_ties", "reciprocal_rank_ties",
    "average_precision_ties", "kendall_tau", "kendall_distance", "bin_g", "infap", "yaap",
    "ndcg_p",
})
#: trec_eval's experimental nDCG variants: DCG and IDCG read at chosen positions of the
#: ranking and of the ideal ranking (R-levels, each relevant row), each a running sum
#: joined back to those positions; not written for Ibis yet.
_POSITIONAL_NDCG = ("reads DCG and the ideal DCG at positions chosen per query (R-levels, "
                    "relevant rows), running sums joined to positions: not expressed in Ibis yet")
POSITIONAL = frozenset({"ndcg_rel", "rndcg"})
_STRING = ("a string per query built in rank order: Ibis's string aggregate (group_concat) "
           "takes no order on every backend")
#: Metrics that need a generated series per query (an unnested integer range).
SERIES = frozenset({"rbo"})
_NO_POSITIONAL_IDEAL = ("G's cost C_i pairs the i-th retrieved row with the first i ideal "
                        "gains: a positional non-equi join per query that this face's "
                        "single-table plan does not express (use the Polars, DuckDB or "
                        "Spark face)")
#: Metrics no Ibis backend computes here, with the reason.
NOT_EXPRESSED = {"g": _NO_POSITIONAL_IDEAL}


#: Measure families outside the registry that the Ibis faces lack, with the reason (as
#: data: tests/trec_eval/test_prefs.py checks that every face computes them or says why not).
UNSUPPORTED_FAMILIES: dict[str, str] = {
    "prefs": "trec_eval's preference measures (-R prefs) need a recursive transitive closure "
             "and sums in a fixed order (DuckDB's list_reduce), which Ibis cannot express on "
             "all its backends; use the DuckDB face's rf_prefs macro or the Polars face",
}


def unsupported_metrics(backend: str) -> dict[str, str]:
    """The registered metrics the ``ibis-<backend>`` face does not compute, with reasons.

    Parameters
    ----------
    backend
        An Ibis backend of :data:`BACKENDS` (``"duckdb"``, ``"polars"`` ...).
    """
    out: dict[str, str] = (dict(NOT_EXPRESSED) | dict.fromkeys(POSITIONAL, _POSITIONAL_NDCG)
                           | {"relstring": _STRING})
    if backend == "sqlite":
        out |= dict.fromkeys(SERIES, _NO_SERIES)
    if backend == "polars":
        out |= dict.fromkeys(WINDOWED | SERIES, _NO_WINDOWS)
    return {name: out[name] for name in sorted(out) if name in METRICS}


# --------------------------------------------------------------------------------------
# Row predicates and arithmetic (Ibis values)
# --------------------------------------------------------------------------------------


def _flag(condition: Value) -> Value:
    """1 where ``condition`` holds, else 0 (NULL counts as false), as int64."""
    return ibis.ifelse(condition.fill_null(False), 1, 0).cast(I64)


def _f(value: Value) -> Value:
    return value.cast(F64)


def _no_negative_zero(value: Value) -> Value:
    """``value`` as float64 with -0.0 made 0.0. Not ``x + 0.0``, which optimizers simplify
    away; and DataFusion compares floats by total order (-0.0 < 0.0), so |x| is tested."""
    x = _f(value)
    return ibis.ifelse(x.abs() == 0.0, x.abs(), x)


def _ratio(numerator: Value, denominator: Value) -> Value:
    """numerator / denominator as float64, 0 where the denominator is not > 0 (nothing is
    ever divided by zero: the engines differ on what that does)."""
    safe = ibis.ifelse(denominator > 0, _f(denominator), ibis.null(F64))
    return (_f(numerator) / safe).fill_null(0.0)


def _retrieved(rank: Value, k: int | None = None) -> Value:
    if k is None:
        return rank.notnull()
    return (rank <= k).fill_null(False)


def _relevant(rel: Value, threshold: float) -> Value:
    return (rel >= threshold).fill_null(False)


def _judged(rel: Value) -> Value:
    return (rel >= 0).fill_null(False)


def _gain(rel: Value, kind: str, gains: Any = None) -> Value:
    """g = rel (linear) or 2^rel - 1 (exponential); 0 for NULL or rel <= 0; a grade listed
    in ``gains`` ((grade, gain) pairs, trec_eval's ndcg.1=3,2=9) gains the number given."""
    grade = _f(rel)
    # Above 960 the group's value is NULL (_grades_fit): no pow, which PostgreSQL refuses
    # to overflow.
    value = grade if kind == "linear" else ibis.ifelse(
        grade <= MAX_GRADE, ibis.literal(2.0).pow(grade) - 1.0, 0.0)
    out = ibis.ifelse((grade > 0).fill_null(False), value, 0.0)
    for level, mapped in dict(gains or ()).items():
        out = ibis.ifelse((grade == float(level)).fill_null(False), float(mapped), out)
    return out


def _discount(position: Value, backend: str | None = None) -> Value:
    """log2(i + 1) of a 1-based position. Ibis gives PostgreSQL ``log(2, x)`` in NUMERIC,
    slow on a large table; ln(x) / ln(2) in float8 there instead (within an ulp or two)."""
    if backend == "postgres":
        return (_f(position) + 1.0).ln() / math.log(2.0)
    return (_f(position) + 1.0).log2()


def _sum(value: Value, where: Value) -> Value:
    """The sum over the rows where ``where`` holds, 0 when none does."""
    return ibis.ifelse(where.fill_null(False), value, ibis.null(value.type())).sum().fill_null(0)


# --------------------------------------------------------------------------------------
# A measure's plan: row-level columns, grouped aggregates, a final expression
# --------------------------------------------------------------------------------------


class _Plan:
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
            return _no_negative_zero(self.col(t, "rel"))
        return _f(self.col(t, "rel"))

    def rank(self, t: Table) -> Value:
        return self.col(t, "rank").cast(I64)

    def count_where(self, condition: Callable[[Table], Value]) -> str:
        return self.agg(lambda t: _flag(condition(t)).sum().fill_null(0))

    def hits(self, k: int | None, threshold: float) -> str:
        return self.count_where(
            lambda t: _relevant(self.rel(t), threshold) & _retrieved(self.rank(t), k))

    def num_relevant(self, threshold: float) -> str:
        return self.count_where(lambda t: _relevant(self.rel(t), threshold))

    def num_retrieved(self, k: int | None = None, rank: str = "rank") -> str:
        return self.count_where(lambda t: _retrieved(self.col(t, rank), k))

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
            lambda t: _flag(_relevant(self.rel(t), threshold) & self.rank(t).notnull()),
            lambda t: self.rank(t))

    def dcg(self, k: int | None, gain: str, rank: str = "rank", gains: Any = None) -> str:
        return self.agg(lambda t: _sum(
            _gain(self.rel(t), gain, gains) / _discount(self.col(t, rank), self.backend),
            _retrieved(self.col(t, rank), k)))

    def idcg(self, k: int | None, gain: str, ideal: str, rank: str = "rank",
             gains: Any = None) -> str:
        def pool(t: Table) -> Value:
            positive = _gain(self.rel(t), gain, gains) > 0
            return positive if ideal == "all" else positive & self.col(t, rank).notnull()

        # Pool rows first, by gain descending: their row numbers are the ideal positions.
        position = self.row(lambda t: ibis.row_number().over(ibis.window(
            group_by=self.partition(t),
            order_by=[ibis.desc(_flag(pool(t))),
                      ibis.desc(_gain(self.rel(t), gain, gains))])) + 1)
        return self.agg(lambda t: _sum(
            _gain(self.rel(t), gain, gains) / _discount(t[position], self.backend),
            pool(t) & (True if k is None else t[position] <= k)))


# --------------------------------------------------------------------------------------
# The metrics: each adds to the plan and returns the final expression of the aggregates
# (docs/semantics.md; same names and parameters as the registry)
# --------------------------------------------------------------------------------------


def _precision(plan: _Plan, k: int | None, threshold: float, divisor: str) -> Final:
    hits, n = plan.hits(k, threshold), plan.num_retrieved()
    if k is None:
        return lambda a: _ratio(a[hits], a[n])
    if divisor == "k":
        return lambda a: _f(a[hits]) / float(k)
    return lambda a: _ratio(a[hits], ibis.least(a[n], k))


def precision(plan: _Plan, k: int | None, threshold: float = 1, divisor: str = "k") -> Final:
    return _precision(plan, k, threshold, divisor)


def recall(plan: _Plan, k: int | None, threshold: float = 1) -> Final:
    hits, r = plan.hits(k, threshold), plan.num_relevant(threshold)
    return lambda a: _ratio(a[hits], a[r])


def f1(plan: _Plan, k: int | None, threshold: float = 1, beta: float = 1.0,
       recall_weight: float | None = None) -> Final:
    w = float(recall_weight) if recall_weight is not None else float(beta) ** 2
    p, r = _precision(plan, k, threshold, "k"), recall(plan, k, threshold)
    return lambda a: _ratio((1.0 + w) * p(a) * r(a), w * p(a) + r(a))


def hit_rate(plan: _Plan, k: int | None, threshold: float = 1) -> Final:
    hits = plan.hits(k, threshold)
    return lambda a: _f(_flag(a[hits] > 0))


def reciprocal_rank(plan: _Plan, k: int | None, threshold: float = 1) -> Final:
    first = plan.agg(lambda t: ibis.ifelse(
        _relevant(plan.rel(t), threshold) & _retrieved(plan.rank(t), k), plan.rank(t),
        ibis.null(I64)).min())
    return lambda a: (1.0 / _f(a[first])).fill_null(0.0)


def average_precision(plan: _Plan, k: int | None, threshold: float = 1,
                      divisor: str = "relevant") -> Final:
    j = plan.relevant_running(threshold)
    total = plan.agg(lambda t: _sum(
        _f(t[j]) / _f(plan.rank(t)),
        _relevant(plan.rel(t), threshold) & _retrieved(plan.rank(t), k)))
    if divisor == "found":
        d = plan.hits(k, threshold)
        return lambda a: _ratio(a[total], a[d])
    r = plan.num_relevant(threshold)
    if divisor == "min" and k is not None:
        return lambda a: _ratio(a[total], ibis.least(a[r], k))
    return lambda a: _ratio(a[total], a[r])


def r_precision(plan: _Plan, threshold: float = 1) -> Final:
    r_row = plan.total(lambda t: _flag(_relevant(plan.rel(t), threshold)))
    top = plan.count_where(lambda t: _relevant(plan.rel(t), threshold)
                           & (plan.rank(t) <= t[r_row]).fill_null(False))
    r = plan.num_relevant(threshold)
    return lambda a: _ratio(a[top], a[r])


def r_precision_mult(plan: _Plan, multiple: float, threshold: float = 1) -> Final:
    def cut(big_r: Value) -> Value:  # c = floor(x * R + 0.9), in float64 as trec_eval does
        return (_f(big_r) * float(multiple) + 0.9).floor()

    r_row = plan.total(lambda t: _flag(_relevant(plan.rel(t), threshold)))
    top = plan.count_where(lambda t: _relevant(plan.rel(t), threshold)
                           & (plan.rank(t) <= cut(t[r_row])).fill_null(False))
    r = plan.num_relevant(threshold)
    return lambda a: _ratio(a[top], cut(a[r]))


def bpref(plan: _Plan, threshold: float = 1) -> Final:
    def nonrelevant(t: Table) -> Value:
        rel = plan.rel(t)
        return ((rel >= 0) & (rel < threshold)).fill_null(False)

    r_row = plan.total(lambda t: _flag(_relevant(plan.rel(t), threshold)))
    n_row = plan.total(lambda t: _flag(nonrelevant(t)))
    above = plan.running(lambda t: _flag(nonrelevant(t) & plan.rank(t).notnull()),
                         lambda t: plan.rank(t))

    def term(t: Table) -> Value:
        nr, big_r, big_n = t[above], t[r_row], t[n_row]
        # nr > 0 implies N >= nr > 0, and a relevant row makes R >= 1.
        return ibis.ifelse(nr == 0, 1.0, 1.0 - _ratio(ibis.least(nr, big_r),
                                                      ibis.least(big_n, big_r)))

    total = plan.agg(lambda t: _sum(term(t), _relevant(plan.rel(t), threshold)
                                    & plan.rank(t).notnull()))
    r = plan.num_relevant(threshold)
    return lambda a: _ratio(a[total], a[r])


def ndcg_p(plan: _Plan, threshold: float = 1, gains: Any = None) -> Final:
    def first_free(position: Value) -> Value:  # 1 at position 1, else log2(position)
        return ibis.ifelse(position == 1, 1.0, _discount(position - 1, plan.backend))

    def g(t: Table) -> Value:
        return _gain(plan.rel(t), "linear", gains)

    top = plan.agg(lambda t: _sum(g(t) / first_free(plan.rank(t)), plan.rank(t).notnull()))
    position = plan.row(lambda t: ibis.row_number().over(ibis.window(
        group_by=plan.partition(t), order_by=[ibis.desc(_flag(g(t) > 0)), ibis.desc(g(t))])) + 1)
    best = plan.agg(lambda t: _sum(g(t) / first_free(t[position]), g(t) > 0))
    found = plan.count_where(lambda t: _relevant(plan.rel(t), threshold)
                             & plan.rank(t).notnull())
    return lambda a: ibis.ifelse(a[found] > 0, _ratio(a[top], a[best]), 0.0)


def infap(plan: _Plan, threshold: float = 1) -> Final:
    def ranked(flag: Callable[[Table], Value]) -> str:  # a running count in rank order
        return plan.running(lambda t: _flag(flag(t) & plan.rank(t).notnull()),
                            lambda t: plan.rank(t))

    found = plan.relevant_running(threshold)  # a + 1 at a relevant row
    nonrel = ranked(lambda t: ((plan.rel(t) >= 0) & (plan.rel(t) < threshold)).fill_null(False))
    unjudged = ranked(lambda t: (plan.rel(t) < 0).fill_null(False))

    def term(t: Table) -> Value:
        a, b, u = t[found] - 1, t[nonrel], t[unjudged]
        j = ibis.greatest(_f(plan.rank(t)) - 1.0, 1.0)  # rank 1 takes the first branch
        estimate = (_f(a) + 0.00001) / (_f(a + b) + 2 * 0.00001)
        return ibis.ifelse(plan.rank(t) == 1, 1.0,
                           1.0 / (j + 1.0) + (j / (j + 1.0)) * (_f(a + b + u) / j) * estimate)

    total = plan.agg(lambda t: _sum(term(t), _relevant(plan.rel(t), threshold)
                                    & plan.rank(t).notnull()))
    r = plan.num_relevant(threshold)
    return lambda a: _ratio(a[total], a[r])


def yaap(plan: _Plan, threshold: float = 1) -> Final:
    j = plan.relevant_running(threshold)
    total = plan.agg(lambda t: _sum(_f(t[j]) / _f(plan.rank(t)), _relevant(plan.rel(t), threshold)
                                    & plan.rank(t).notnull()))
    r = plan.num_relevant(threshold)
    return lambda a: ((1.0 + _f(a[total])) / ((1.0 + _f(a[r])) - _f(a[total]))).ln()


def iprec_at_recall(plan: _Plan, recall: float, threshold: float = 1,
                    rounding: str = "nearest") -> Final:
    offset = 0.5 if rounding == "nearest" else 0.9
    r_row = plan.total(lambda t: _flag(_relevant(plan.rel(t), threshold)))
    j = plan.relevant_running(threshold)

    def needed(t: Table) -> Value:  # c, computed in float64 as trec_eval does
        return ibis.greatest((_f(t[r_row]) * float(recall) + offset).floor(), 1)

    best = plan.agg(lambda t: ibis.ifelse(
        _relevant(plan.rel(t), threshold) & plan.rank(t).notnull() & (t[j] >= needed(t)),
        _f(t[j]) / _f(plan.rank(t)), ibis.null(F64)).max())
    return lambda a: a[best].fill_null(0.0)


def cg(plan: _Plan, k: int | None, gain: str = "linear") -> Final:
    total = plan.agg(lambda t: _sum(_gain(plan.rel(t), gain), _retrieved(plan.rank(t), k)))
    return lambda a: _f(a[total])


def dcg(plan: _Plan, k: int | None, gain: str = "linear", gains: Any = None) -> Final:
    total = plan.dcg(k, gain, gains=gains)
    return lambda a: _f(a[total])


def idcg(plan: _Plan, k: int | None, gain: str = "linear", ideal: str = "all",
         gains: Any = None) -> Final:
    total = plan.idcg(k, gain, ideal, gains=gains)
    return lambda a: _f(a[total])


def ndcg(plan: _Plan, k: int | None, gain: str = "linear", ideal: str = "all",
         gains: Any = None) -> Final:
    top, best = plan.dcg(k, gain, gains=gains), plan.idcg(k, gain, ideal, gains=gains)
    return lambda a: _ratio(a[top], a[best])


def num_ret(plan: _Plan, k: int | None) -> Final:
    n = plan.num_retrieved(k)
    return lambda a: a[n]


def num_rel(plan: _Plan, threshold: float = 1) -> Final:
    r = plan.num_relevant(threshold)
    return lambda a: a[r]


def num_rel_ret(plan: _Plan, k: int | None, threshold: float = 1) -> Final:
    hits = plan.hits(k, threshold)
    return lambda a: a[hits]


def _geometric(p: float, rank: Value) -> Value:
    """p^(rank - 1) by pow, 0 once it would leave the normal numbers (PostgreSQL's pow
    refuses to underflow; below 2^-1022 a weight changes no sum by 1e-9)."""
    exponent = _f(rank) - 1.0
    return ibis.ifelse(exponent < 1022 / -math.log2(p),
                       ibis.literal(float(p), type=F64).pow(exponent), 0.0)


def rbp(plan: _Plan, p: float = 0.8, threshold: float = 1, graded: bool = False,
        max_grade: float | None = None) -> Final:
    scale = 1.0 - float(p)
    if not graded:
        total = plan.agg(lambda t: _sum(_geometric(p, plan.rank(t)),
                                        plan.rank(t).notnull() & _relevant(plan.rel(t), threshold)))
        return lambda a: scale * _f(a[total])

    def positive(t: Table) -> Value:
        return plan.rank(t).notnull() & (plan.rel(t) > 0).fill_null(False)

    if max_grade is None:
        total = plan.agg(lambda t: _sum(plan.rel(t) * _geometric(p, plan.rank(t)), positive(t)))
        top = plan.agg(lambda t: plan.rel(t).max())
        return lambda a: scale * _ratio(a[total], a[top])
    m = float(max_grade)
    total = plan.agg(lambda t: _sum(ibis.least(plan.rel(t) / m, 1.0)
                                    * _geometric(p, plan.rank(t)), positive(t)))
    return lambda a: scale * _f(a[total])


def rbp_residual(plan: _Plan, p: float = 0.8) -> Final:
    total = plan.agg(lambda t: _sum(_geometric(p, plan.rank(t)),
                                    plan.rank(t).notnull() & _judged(plan.rel(t))))
    return lambda a: 1.0 - (1.0 - float(p)) * _f(a[total])


def err(plan: _Plan, k: int | None, max_grade: float = 4) -> Final:
    m = float(max_grade)

    def stop(t: Table) -> Value:  # (2^g - 1) / 2^max_grade, g = rel clipped to [0, max_grade]
        grade = ibis.least(ibis.greatest(plan.rel(t).fill_null(0.0), 0.0), m)
        return (ibis.literal(2.0).pow(grade) - 1.0) / 2.0 ** m

    # ln(1 - s) > -inf: s <= 1 - 2^-max_grade < 1. The product over the rows above a row
    # is exp(running sum of the logarithms, the row itself taken out).
    log_stay = plan.row(lambda t: ibis.ifelse(_retrieved(plan.rank(t), k),
                                              (1.0 - stop(t)).ln(), 0.0))
    above = plan.running(lambda t: t[log_stay], lambda t: plan.rank(t), needs=[log_stay])
    total = plan.agg(lambda t: _sum(
        stop(t) * (t[above] - t[log_stay]).exp() / _f(plan.rank(t)),
        _retrieved(plan.rank(t), k)))
    return lambda a: _f(a[total])


def judged(plan: _Plan, k: int | None) -> Final:
    top = plan.count_where(lambda t: _retrieved(plan.rank(t), k) & _judged(plan.rel(t)))
    n = plan.num_retrieved()
    if k is None:
        return lambda a: _ratio(a[top], a[n])
    return lambda a: _ratio(a[top], ibis.least(a[n], k))


# --- trec_eval's contingency and gain measures -------------------------------------------


def relative_precision(plan: _Plan, k: int | None, threshold: float = 1) -> Final:
    hits, r, n = plan.hits(k, threshold), plan.num_relevant(threshold), plan.num_retrieved()
    if k is None:
        return lambda a: _ratio(a[hits], ibis.least(a[n], a[r]))
    return lambda a: _ratio(a[hits], ibis.least(a[r], k))


def set_map(plan: _Plan, threshold: float = 1) -> Final:
    hits, r, n = plan.hits(None, threshold), plan.num_relevant(threshold), plan.num_retrieved()
    return lambda a: _ratio(a[hits] * a[hits], a[n] * a[r])


def utility(plan: _Plan, threshold: float = 1, a: float = 1.0, b: float = -1.0,
            c: float = 0.0, d: float = 0.0, num_docs: int = 0, empty: str = "counts") -> Final:
    hits, r, n = plan.hits(None, threshold), plan.num_relevant(threshold), plan.num_retrieved()

    def value(t: Table) -> Value:
        h, big_r, size = t[hits], t[r], t[n]
        if empty == "placeholder":
            size = ibis.greatest(size, 1)
        total = (float(a) * _f(h) + float(b) * _f(size - h) + float(c) * _f(big_r - h)
                 + float(d) * _f(int(num_docs) + h - size - big_r))
        return total

    return value


def num_nonrel_judged_ret(plan: _Plan, k: int | None, threshold: float = 1) -> Final:
    count = plan.count_where(lambda t: _retrieved(plan.rank(t), k) & (
        (plan.rel(t) >= 0) & (plan.rel(t) < threshold)).fill_null(False))
    return lambda a: a[count]


def unjudged(plan: _Plan, k: int | None) -> Final:
    top = plan.count_where(lambda t: _retrieved(plan.rank(t), k) & ~_judged(plan.rel(t)))
    if k is None:
        n = plan.num_retrieved()
        return lambda a: _ratio(a[top], a[n])
    return lambda a: _f(a[top]) / float(k)


def bin_g(plan: _Plan, threshold: float = 1) -> Final:
    above = plan.running(lambda t: _flag(plan.rank(t).notnull()
                                         & ~_relevant(plan.rel(t), threshold)),
                         lambda t: plan.rank(t))
    total = plan.agg(lambda t: _sum(1.0 / _discount(_f(t[above]) + 1.0, plan.backend),
                                    _relevant(plan.rel(t), threshold) & plan.rank(t).notnull()))
    r = plan.num_relevant(threshold)
    return lambda a: _ratio(a[total], a[r])


# --- rank correlation ------------------------------------------------------------------


def _paired_value(value: Value) -> Value:
    """A correlation column in its own type (an int64 beyond 2^53 is not rounded into a
    tie); floats with -0.0 made 0.0 (DataFusion orders and partitions the two apart)."""
    return _no_negative_zero(value) if value.type().is_floating() else value


def _paired_kept(plan: _Plan, x: Value, y: Value) -> Value:
    """Neither value NULL nor NaN (SQLite has no NaN: it stores NULL)."""
    kept = x.notnull() & y.notnull()
    for value in (x, y):
        if value.type().is_floating() and plan.backend != "sqlite":
            kept = kept & ~value.isnan()
    return kept.fill_null(False)


def spearman_rho(plan: _Plan) -> Final:
    valid = plan.row(lambda t: _flag(_paired_kept(plan, plan.col(t, "x"), plan.col(t, "y"))))

    def normalised(column: str) -> Callable[[Table], Value]:
        return lambda t: _paired_value(plan.col(t, column))

    values = {c: plan.row(normalised(c)) for c in ("x", "y")}
    n = plan.total(lambda t: t[valid], valid, needs=[valid])

    def centred_rank(column: str) -> str:
        # Average rank (rank of the first of the tied values + (ties - 1) / 2, 1-based),
        # minus the mean rank (n + 1) / 2, among the kept rows of the query.
        value = values[column]
        first = plan.row(lambda t: ibis.rank().over(ibis.window(
            group_by=plan.partition(t, t[valid]), order_by=t[value])), needs=[valid, value])
        tied = plan.total(lambda t: t[valid], valid, value, needs=[valid, value])
        return plan.row(lambda t: _f(t[first]) + (_f(t[tied]) - 1.0) / 2.0 + 1.0
                        - (_f(t[n]) + 1.0) / 2.0, needs=[first, tied, n])

    a_, b_ = centred_rank("x"), centred_rank("y")
    sab = plan.agg(lambda t: _sum(t[a_] * t[b_], t[valid] == 1))
    saa = plan.agg(lambda t: _sum(t[a_] * t[a_], t[valid] == 1))
    sbb = plan.agg(lambda t: _sum(t[b_] * t[b_], t[valid] == 1))
    return lambda a: ibis.ifelse(_f(a[saa]) * _f(a[sbb]) > 0,
                                 _f(a[sab]) / (_f(a[saa]) * _f(a[sbb])).sqrt(), 0.0)


_PAIR_COUNTS = ("__rf_conc", "__rf_disc", "__rf_tie_x", "__rf_tie_y", "__rf_tie_xy", "__rf_n0")
_GROUP = "__rf_group"


def _pair_counts(plan: _Plan, table: Table) -> Table:
    """Per query (its number ``__rf_group``): the pairs of kept (x, y) rows that are
    concordant, discordant, tied in x only, in y only, in both, and all of them (a self-join
    of the query's kept rows, each unordered pair once)."""
    x, y = _paired_value(plan.col(table, "x")), _paired_value(plan.col(table, "y"))
    rows = table.filter(_paired_kept(plan, x, y)).select(
        table[_GROUP], x.name("__rf_x"), y.name("__rf_y"))
    rows = rows.mutate(__rf_id=ibis.row_number().over(ibis.window(
        group_by=rows[_GROUP], order_by=[rows["__rf_x"], rows["__rf_y"]])))
    other = rows.select(rows[_GROUP].name("__rf_group2"), rows["__rf_x"].name("__rf_x2"),
                        rows["__rf_y"].name("__rf_y2"), rows["__rf_id"].name("__rf_id2"))
    pairs = rows.join(other, rows[_GROUP] == other["__rf_group2"])
    pairs = pairs.filter(pairs["__rf_id"] < pairs["__rf_id2"])
    x1, y1, x2, y2 = pairs["__rf_x"], pairs["__rf_y"], pairs["__rf_x2"], pairs["__rf_y2"]
    return pairs.group_by(_GROUP).aggregate(
        __rf_conc=_flag(((x1 < x2) & (y1 < y2)) | ((x1 > x2) & (y1 > y2))).sum(),
        __rf_disc=_flag(((x1 < x2) & (y1 > y2)) | ((x1 > x2) & (y1 < y2))).sum(),
        __rf_tie_x=_flag((x1 == x2) & (y1 != y2)).sum(),
        __rf_tie_y=_flag((x1 != x2) & (y1 == y2)).sum(),
        __rf_tie_xy=_flag((x1 == x2) & (y1 == y2)).sum(),
        __rf_n0=_flag(x1.notnull()).sum())


def _with_pair_counts(plan: _Plan, grouped: Table, source: Table) -> Table:
    """``grouped`` with the pair counts of its queries (0 for a query without pairs),
    joined on the query's number (the query keys may be NULL; the number is not)."""
    counts = _pair_counts(plan, source).rename(__rf_group_c=_GROUP)
    joined = grouped.left_join(counts, grouped[_GROUP] == counts["__rf_group_c"])
    return joined.select(*[joined[c] for c in grouped.columns],
                         **{c: joined[c].fill_null(0) for c in _PAIR_COUNTS})


def _number_queries(plan: _Plan) -> None:
    """Number the queries (dense rank of the keys, NULL keys included), the key of what is
    joined to the aggregates."""
    if not plan.numbered:
        plan.numbered = True
        plan.stages[_GROUP] = 1
        plan.rows.append((1, _GROUP, lambda t: ibis.dense_rank().over(
            ibis.window(order_by=plan.partition(t)))))
        plan.aggregates[_GROUP] = lambda t: t[_GROUP].max()


def kendall_tau(plan: _Plan) -> Final:
    _number_queries(plan)
    plan.pairs = True

    def tau(a: Table) -> Value:
        n0 = _f(a["__rf_n0"])
        n1 = _f(a["__rf_tie_x"] + a["__rf_tie_xy"])
        n2 = _f(a["__rf_tie_y"] + a["__rf_tie_xy"])
        denominator = (n0 - n1) * (n0 - n2)
        return ibis.ifelse((n0 - n1 > 0) & (n0 - n2 > 0),
                           _f(a["__rf_conc"] - a["__rf_disc"])
                           / ibis.greatest(denominator, 1.0).sqrt(), 0.0)

    return tau


def kendall_distance(plan: _Plan, penalty: float = 0.0) -> Final:
    _number_queries(plan)
    plan.pairs = True
    return lambda a: _ratio(_f(a["__rf_disc"]) + float(penalty)
                            * _f(a["__rf_tie_x"] + a["__rf_tie_y"]), a["__rf_n0"])


def _with_joined(grouped: Table, values: Table) -> Table:
    """``grouped`` with the value columns of ``values`` (per ``__rf_group``), 0.0 where a
    query has no row in ``values``."""
    names = [c for c in values.columns if c != _GROUP]
    values = values.rename(__rf_group_j=_GROUP)
    joined = grouped.left_join(values, grouped[_GROUP] == values["__rf_group_j"])
    return joined.select(*[joined[c] for c in grouped.columns],
                         **{c: joined[c].fill_null(0.0) for c in names})


@ibis.udf.scalar.builtin(name="generate_series")  # type: ignore[untyped-decorator]
def _df_generate_series(start: int, stop: int) -> list[int]:  # type: ignore[empty-body]
    """DataFusion's own ``generate_series`` (start..stop inclusive, an array)."""


def _depths(length: Value, backend: str | None) -> Value:
    """The array 1, 2, ..., length. Ibis 12 compiles no integer range for DataFusion, whose
    own ``generate_series`` is called there."""
    if backend == "datafusion":
        return _df_generate_series(ibis.literal(1, type=I64), length)
    return ibis.range(1, length + 1)


def _power(p: float, exponent: Value) -> Value:
    """p^exponent (float64) for an integer exponent >= 0; 0 once it is below e^-700, so
    that no engine underflows (PostgreSQL raises on an underflow)."""
    most = math.floor(-700.0 / math.log(p))
    return ibis.ifelse(exponent <= most, ibis.literal(p, type=F64).pow(
        _f(ibis.least(exponent, most))), 0.0)


def rbo(plan: _Plan, p: float = 0.9, depth: int | None = None,
        extrapolated: bool = True) -> Final:
    """RBO_ext / RBO_min in the closed forms of docs/semantics.md#rbo, with w_d = p^d / d:
    ext = (1-p)/p (sum_d X_d w_d + X_s/s sum_{d>s} (d-s) w_d) + ((X_l-X_s)/l + X_s/s) p^l,
    min = (1-p)/p (sum_d (X_d - X_l) w_d - X_l ln(1-p)), d = 1..l; 0 when s = 0. One row
    per depth d (a generated series), X_d the running count of overlaps ending at d."""
    _number_queries(plan)
    name = plan._name("rbo")
    p = float(p)
    scale = (1.0 - p) / p

    def values(source: Table) -> Table:
        a, b = plan.col(source, "rank_a").cast(I64), plan.col(source, "rank_b").cast(I64)
        if depth is not None:
            a = ibis.ifelse(a <= depth, a, ibis.null(I64))
            b = ibis.ifelse(b <= depth, b, ibis.null(I64))
        rows = source.select(__rf_g=source[_GROUP], __rf_a=a, __rf_b=b,
                             __rf_m=ibis.greatest(a, b))
        both = (rows["__rf_a"].notnull() & rows["__rf_b"].notnull()).fill_null(False)
        lengths = rows.group_by("__rf_g").aggregate(
            __rf_la=rows["__rf_a"].max().fill_null(0), __rf_lb=rows["__rf_b"].max().fill_null(0),
            __rf_xl=_flag(both).sum().fill_null(0))
        lengths = lengths.select(
            "__rf_g", "__rf_xl", __rf_s=ibis.least(lengths["__rf_la"], lengths["__rf_lb"]),
            __rf_l=ibis.greatest(lengths["__rf_la"], lengths["__rf_lb"]))
        lengths = lengths.filter(lengths["__rf_s"] > 0)
        series = lengths.select(*lengths.columns, __rf_d=_depths(
            lengths["__rf_l"], plan.backend).unnest().cast(I64))
        ends = rows.filter(both).group_by(["__rf_g", "__rf_m"]).aggregate(
            __rf_n=rows["__rf_g"].count())
        ends = ends.select(__rf_g2=ends["__rf_g"], __rf_m=ends["__rf_m"], __rf_n=ends["__rf_n"])
        depths = series.left_join(ends, (series["__rf_g"] == ends["__rf_g2"])
                                  & (series["__rf_d"] == ends["__rf_m"]))
        depths = depths.select(*series.columns, __rf_n=depths["__rf_n"].fill_null(0))
        d = depths["__rf_d"]
        depths = depths.mutate(
            __rf_x=depths["__rf_n"].sum().over(ibis.cumulative_window(
                group_by=depths["__rf_g"], order_by=d)),
            __rf_w=_power(p, d) / _f(d))
        # The per-depth terms in their own projection, then plain sums (DataFusion 51
        # groups wrongly when the aggregates read the window column directly).
        d, s, l_ = depths["__rf_d"], depths["__rf_s"], depths["__rf_l"]
        x, w, xl = _f(depths["__rf_x"]), depths["__rf_w"], _f(depths["__rf_xl"])
        if extrapolated:
            terms = depths.select(
                "__rf_g", xl=xl, s=_f(s), l=_f(l_), body=x * w,
                tail=ibis.ifelse(d > s, _f(d - s) * w, 0.0), xs=ibis.ifelse(d == s, x, 0.0),
                pl=ibis.ifelse(d == l_, _power(p, l_), 0.0))
            per = terms.group_by("__rf_g").aggregate(
                body=terms["body"].sum(), tail=terms["tail"].sum(), xs=terms["xs"].sum(),
                pl=terms["pl"].sum(), xl=terms["xl"].max(), s=terms["s"].max(),
                l=terms["l"].max())
            rate = per["xs"] / per["s"]
            value = (scale * (per["body"] + rate * per["tail"])
                     + ((per["xl"] - per["xs"]) / per["l"] + rate) * per["pl"])
        else:
            terms = depths.select("__rf_g", xl=xl, body=(x - xl) * w)
            per = terms.group_by("__rf_g").aggregate(
                body=terms["body"].sum(), xl=terms["xl"].max())
            value = scale * (per["body"] - per["xl"] * math.log1p(-p))
        return per.select(**{_GROUP: per["__rf_g"], name: value})

    plan.joined.append(values)
    return lambda a: a[name]


# --- tie-aware (columns rel, tie_first, tie_size) ----------------------------------------


def _tie_positions(plan: _Plan, t: Table, k: int | None) -> Value:
    """c(k): the positions of the row's group inside the top k (tie_size when k is None)."""
    first, size = plan.col(t, "tie_first"), plan.col(t, "tie_size")
    if k is None:
        return size
    return ibis.least(ibis.greatest(k - first + 1, 0), size)


def _tie_hits(plan: _Plan, k: int | None, threshold: float) -> str:
    return plan.agg(lambda t: _sum(
        _f(_tie_positions(plan, t, k)) / _f(plan.col(t, "tie_size")),
        plan.col(t, "tie_first").notnull() & _relevant(plan.rel(t), threshold)))


def precision_ties(plan: _Plan, k: int | None, threshold: float = 1,
                   divisor: str = "k") -> Final:
    hits, n = _tie_hits(plan, k, threshold), plan.num_retrieved(rank="tie_first")
    if k is None:
        return lambda a: _ratio(a[hits], a[n])
    if divisor == "k":
        return lambda a: _f(a[hits]) / float(k)
    return lambda a: _ratio(a[hits], ibis.least(a[n], k))


def recall_ties(plan: _Plan, k: int | None, threshold: float = 1) -> Final:
    hits, r = _tie_hits(plan, k, threshold), plan.num_relevant(threshold)
    return lambda a: _ratio(a[hits], a[r])


def _offset(plan: _Plan) -> str:
    """j = 1, 2, ...: a distinct offset within its tie group for each row of the group."""
    return plan.row(lambda t: ibis.row_number().over(ibis.window(
        group_by=plan.partition(t, plan.col(t, "tie_first")),
        order_by=[plan.rel(t)])) + 1)


def _tie_dcg(plan: _Plan, k: int | None, gain: str) -> str:
    # The group's positions f .. f + t - 1 are its rows' f + j - 1; each row's gain is
    # spread over the group's discounts inside k.
    j = _offset(plan)

    def discount(t: Table) -> Value:
        position = plan.col(t, "tie_first") + t[j] - 1
        return ibis.ifelse(_retrieved(position, k), 1.0 / _discount(position, plan.backend), 0.0)

    group = plan.total(discount, plan.columns["tie_first"], needs=[j])
    return plan.agg(lambda t: _sum(
        _gain(plan.rel(t), gain) / _f(plan.col(t, "tie_size")) * t[group],
        plan.col(t, "tie_first").notnull()))


def dcg_ties(plan: _Plan, k: int | None, gain: str = "linear") -> Final:
    total = _tie_dcg(plan, k, gain)
    return lambda a: _f(a[total])


def ndcg_ties(plan: _Plan, k: int | None, gain: str = "linear", ideal: str = "all") -> Final:
    top, best = _tie_dcg(plan, k, gain), plan.idcg(k, gain, ideal, rank="tie_first")
    return lambda a: _ratio(a[top], a[best])


def reciprocal_rank_ties(plan: _Plan, k: int | None, threshold: float = 1) -> Final:
    def hit(t: Table) -> Value:
        return _relevant(plan.rel(t), threshold) & _retrieved(plan.col(t, "tie_first"), k)

    # f: the first group holding a relevant row within k; r its relevant rows, t its size.
    first = plan.row(lambda t: ibis.ifelse(hit(t), plan.col(t, "tie_first"),
                                           ibis.null(I64)).min().over(
        ibis.window(group_by=plan.partition(t))))
    r_group = plan.total(lambda t: _flag(_relevant(plan.rel(t), threshold)),
                         plan.columns["tie_first"])
    j = _offset(plan)

    def in_first(t: Table) -> Value:
        return (plan.col(t, "tie_first") == t[first]).fill_null(False)

    # P_j = (r / t) * prod over i < j of (t - i - r + 1) / (t - i), for j <= t - r + 1:
    # the factor of step j (j <= t - r) is > 0; others are never used (logarithm 0).
    def log_factor(t: Table) -> Value:
        size, r, jj = _f(plan.col(t, "tie_size")), _f(t[r_group]), _f(t[j])
        usable = in_first(t) & (jj <= size - r)
        ratio = ibis.greatest(size - jj - r + 1.0, 1.0) / ibis.greatest(size - jj, 1.0)
        return ibis.ifelse(usable, ratio.ln(), 0.0)

    logs = plan.row(log_factor, needs=[first, r_group, j])
    before = plan.running(lambda t: t[logs], lambda t: t[j], plan.columns["tie_first"],
                          needs=[logs, j])

    def term(t: Table) -> Value:
        size, r, jj = _f(plan.col(t, "tie_size")), _f(t[r_group]), _f(t[j])
        chance = r / size * (t[before] - t[logs]).exp()
        return chance / (_f(plan.col(t, "tie_first")) + jj - 1.0)

    def counted(t: Table) -> Value:
        size, r, jj = _f(plan.col(t, "tie_size")), _f(t[r_group]), _f(t[j])
        within = jj <= size - r + 1.0
        if k is not None:
            within = within & (plan.col(t, "tie_first") + t[j] - 1 <= k)
        return in_first(t) & within

    total = plan.agg(lambda t: _sum(term(t), counted(t)))
    return lambda a: _f(a[total])


def average_precision_ties(plan: _Plan, k: int | None, threshold: float = 1,
                           divisor: str = "relevant") -> Final:
    def relevant_retrieved(t: Table) -> Value:
        return _relevant(plan.rel(t), threshold) & plan.col(t, "tie_first").notnull()

    r_group = plan.total(lambda t: _flag(relevant_retrieved(t)), plan.columns["tie_first"])
    j = _offset(plan)
    # h: relevant rows in earlier groups = running count in (tie_first, j) order minus the
    # running count within the group in j order.
    upto = plan.running(lambda t: _flag(relevant_retrieved(t)),
                        lambda t: [plan.col(t, "tie_first"), t[j]], needs=[j])
    in_group = plan.running(lambda t: _flag(relevant_retrieved(t)), lambda t: t[j],
                            plan.columns["tie_first"], needs=[j])

    def term(t: Table) -> Value:
        first, size = _f(plan.col(t, "tie_first")), _f(plan.col(t, "tie_size"))
        r, jj, h = _f(t[r_group]), _f(t[j]), _f(t[upto] - t[in_group])
        spread = ibis.ifelse(size > 1.0, (jj - 1.0) * (r - 1.0) / ibis.greatest(size - 1.0, 1.0),
                             0.0)
        return r / size * (h + 1.0 + spread) / (first + jj - 1.0)

    def counted(t: Table) -> Value:
        retrieved = plan.col(t, "tie_first").notnull() & (t[r_group] > 0)
        if k is not None:
            retrieved = retrieved & (plan.col(t, "tie_first") + t[j] - 1 <= k)
        return retrieved

    total = plan.agg(lambda t: _sum(term(t), counted(t)))
    r = plan.num_relevant(threshold)
    if divisor == "min" and k is not None:
        return lambda a: _ratio(a[total], ibis.least(a[r], k))
    return lambda a: _ratio(a[total], a[r])


_BUILDERS: dict[str, Callable[..., Final]] = {
    name: globals()[name] for name in METRICS
    if name in globals()
}


def _grades_fit(plan: _Plan, values: Mapping[str, Any], final: Final) -> Final:
    """``final``, NULL for a group with a grade above 960 when the gain is exponential
    (2^rel - 1 would overflow its sums; docs/semantics.md#input-checks)."""
    if values.get("gain") != "exponential":
        return final
    top = plan.agg(lambda t: _f(plan.rel(t)).max())
    return lambda a: ibis.ifelse((a[top] > MAX_GRADE).fill_null(False), ibis.null(F64), final(a))


def evaluate_table(table: Table, measures: Sequence[Measure], keys: Sequence[str],
                   columns: Mapping[str, str], backend: str | None = None) -> Table:
    """One row per query key of ``table`` (sorted, NULL first), one column per measure named
    by its label: float64, int64 for counts. Nothing is executed. ``backend`` (an Ibis
    backend name) adapts what differs between engines (SQLite has no NaN)."""
    plan = _Plan(table, keys, columns, backend)
    finals: list[tuple[Measure, Final]] = []
    for m in measures:
        build = _BUILDERS[m.metric.name]
        values = {p.name: m.values.get(p.name, p.default) for p in m.metric.params}
        finals.append((m, _grades_fit(plan, values, build(plan, **values))))
    source = plan.table()
    grouped = source.group_by(list(keys)).aggregate(
        **{name: build(source) for name, build in plan.aggregates.items()})
    if plan.pairs:
        grouped = _with_pair_counts(plan, grouped, source)
    for build_joined in plan.joined:
        grouped = _with_joined(grouped, build_joined(source))
    result = grouped.select(*keys, **{
        m.label: final(grouped).cast(I64 if m.metric.is_count else F64) for m, final in finals})
    return result.order_by([ibis.asc(k, nulls_first=True) for k in keys])


# --------------------------------------------------------------------------------------
# From a run and qrels to the judged long table
# --------------------------------------------------------------------------------------

#: How many offending (query, doc) pairs an input error names.
_NAMED_PROBLEMS = 3


@ibis.udf.scalar.builtin(name="convert_to")  # type: ignore[untyped-decorator]
def _pg_convert_to(text: str, encoding: str) -> bytes:  # type: ignore[empty-body]
    """PostgreSQL's own ``convert_to`` (the text's bytes): called in the engine, no UDF."""


def _text_bytes(text: Value, backend: str) -> Value:
    """An id as text, ordered by its bytes. DuckDB, SQLite, DataFusion and Polars compare
    strings byte by byte; PostgreSQL compares by collation, so its bytes are compared."""
    if backend == "postgres":
        return _pg_convert_to(text, "UTF8")
    return text


def _kind(dtype: Any) -> str:
    if dtype.is_string():
        return "text"
    if dtype.is_integer():
        return "integer"
    if dtype.is_numeric():
        return "numeric"
    return "other"


def _require(fn: str, side: str, table: Table, columns: Mapping[str, str]) -> None:
    schema = table.schema()
    missing = [c for c in columns if c not in schema]
    if missing:
        have = ", ".join(repr(c) for c in schema.names)
        raise InputError(f"{fn}: the {side} has no column {', '.join(map(repr, missing))}; "
                         f"its columns are: {have}")
    for name, kind in columns.items():
        found = _kind(schema[name])
        if kind == "id" and found not in ("text", "integer"):
            raise InputError(f"{fn}: column {name!r} of the {side} must hold string or integer "
                             f"ids, got {schema[name]}")
        if kind == "numeric" and found not in ("integer", "numeric"):
            raise InputError(f"{fn}: column {name!r} of the {side} must be numeric, "
                             f"got {schema[name]}")


def _id_type(fn: str, name: str, run: Table, qrels: Table) -> Any:
    a, b = run.schema()[name], qrels.schema()[name]
    if a.is_string() and b.is_string():
        return dt.string
    if a.is_integer() and b.is_integer():
        return a if a == b else I64
    raise InputError(
        f"{fn}: column {name!r} is {a} in the run but {b} in the qrels; ids must be strings "
        "on both sides or integers on both sides (cast one of them)")


#: Backends whose engine matches column names without regard to case: a table with two
#: names that differ only in case cannot reach them.
_CASE_BLIND = frozenset({"duckdb", "sqlite"})


def _case_distinct(fn: str, side: str, table: Table, backend: str) -> None:
    """Raise if two columns of ``table`` differ only in case and ``backend`` cannot tell
    them apart."""
    if backend not in _CASE_BLIND:
        return
    seen: dict[str, str] = {}
    for name in table.columns:
        twin = seen.setdefault(name.casefold(), name)
        if twin != name:
            raise InputError(
                f"{fn}: columns {twin!r} and {name!r} of the {side} differ only in case, which "
                f"the Ibis {backend} backend cannot tell apart (it matches names without "
                f"regard to case); rename one of them")


class IbisFace:
    """The face of one Ibis backend (``ibis-<backend>``)."""

    role: Role = "cluster"

    def __init__(self, backend: str) -> None:
        self.backend = backend
        self.name = f"ibis-{backend}"
        self.unsupported: Mapping[str, str] = unsupported_metrics(backend)
        self.windows = backend != "polars"
        self.judge_ties: frozenset[Ties] = frozenset({"docid", "average"})
        # Each backend's SUM adds in its own order (SQLite has no array to fold): within
        # 1e-9 of the oracle only (docs/semantics.md#exactness).
        self.exact: frozenset[str] = frozenset()
        self.inexact_values: Mapping[str, str] = {}
        self._connection: Any = None
        self._server: TemporaryPostgres | None = None
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
            if postgres_bin() is None:
                return (f"no PostgreSQL server: no connection given (use_connection or "
                        f"{POSTGRES_URL_ENV}) and no initdb to start a temporary one")
            return None
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
        the URL in ``RANKFRAME_POSTGRES_URL``, else a temporary local server)."""
        with self._lock:
            if self._connection is None:
                self._connection = self._connect()
            return self._connection

    def _connect(self) -> Any:
        if self.backend != "postgres":
            return getattr(ibis, self.backend).connect()
        url = os.environ.get(POSTGRES_URL_ENV)
        if url:
            return ibis.connect(url)
        self._server = TemporaryPostgres()
        atexit.register(self._server.stop)
        return self._server.start()

    # Tables ----------------------------------------------------------------------------

    def native(self, frame: pl.DataFrame) -> Table:
        """``frame`` as an Ibis table (an in-memory table, uploaded when executed).

        Ibis 12 uploads an in-memory table to SQLite through pandas, which turns an integer
        column with NULLs into floats (2^62 + 1 becomes 2^62); such frames go as Python
        objects under the frame's own schema instead."""
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
        _case_distinct("evaluate", "judged table", judged, self.backend)
        return evaluate_table(judged, measures, keys, columns, self.backend)

    # Judge -----------------------------------------------------------------------------

    def judge(self, run: Table, qrels: Table, options: JudgeOptions) -> Table:
        """The judged long table of ``run`` against ``qrels`` (Ibis tables): trec_eval's
        ranking (score descending, ties by the id's text descending, byte by byte), a
        full outer join, the depth cut, and ``tie_first`` / ``tie_size`` for
        ``ties="average"``. The inputs are checked at once (one query per side);
        the judged table is returned unexecuted."""
        from rankframe import validation

        o = options
        fn = "judge"
        depth = validation.cutoff(fn, o.depth, name="depth")
        ties = validation.choice(fn, "ties", o.ties, ("docid", "average"))
        q, d, s, r = o.query, o.doc, o.score, o.rel
        names = {"query": q, "doc": d, "score": s, "rel": r}
        if len(set(names.values()) | {"rank"}) != len(names) + 1:
            raise ValueError(f"{fn}: query, doc, score and rel must be distinct column names "
                             f"other than 'rank'; got {names}")
        _require(fn, "run", run, {q: "id", d: "id", s: "numeric"})
        _require(fn, "qrels", qrels, {q: "id", d: "id", r: "numeric"})
        _case_distinct(fn, "run", run, self.backend)
        _case_distinct(fn, "qrels", qrels, self.backend)
        qt, dtype = _id_type(fn, q, run, qrels), _id_type(fn, d, run, qrels)
        run_c = run.select(run[q].cast(qt).name(q), run[d].cast(dtype).name(d),
                           # -0.0 made 0.0: equal scores tie as such.
                           _no_negative_zero(run[s]).name(s))
        qrels_c = qrels.select(qrels[q].cast(qt).name(q), qrels[d].cast(dtype).name(d), r)
        self._check(fn, {"run": (run_c, s), "qrels": (qrels_c, r)}, q, d)

        judged_queries = qrels_c.select(q).distinct()
        candidates = run_c.semi_join(judged_queries, q)
        ranked = (self._rank_windows(candidates, q, d, s) if self.windows
                  else self._rank_joins(candidates, q, d, s))
        if depth is not None:
            ranked = ranked.filter(ranked["rank"] <= depth)
        if o.judged_only:  # -J: the documents graded >= 0 only, ranked again in order
            ranked = self._rerank(ranked.semi_join(qrels_c.filter(qrels_c[r] >= 0), [q, d]), q)
        extra: list[str] = []
        if ties == "average":
            ranked = self._tie_groups(ranked, q, s)
            extra = ["tie_first", "tie_size"]
        joined = ranked.outer_join(qrels_c, [q, d])
        out = joined.select(
            ibis.coalesce(joined[q], joined[f"{q}_right"]).name(q),
            ibis.coalesce(joined[d], joined[f"{d}_right"]).name(d),
            joined["rank"].cast(I64).name("rank"), joined[r], joined[s].cast(F64).name(s),
            *(joined[c].cast(I64).name(c) for c in extra))
        return out.order_by([out[q], ibis.asc(out["rank"], nulls_first=False), out[d]])

    def _rerank(self, ranked: Table, q: str) -> Table:
        """``rank`` made 1, 2, ... within each query, in the order of the old ranks."""
        if self.windows:
            position = ibis.row_number().over(ibis.window(group_by=ranked[q],
                                                          order_by=ranked["rank"])) + 1
            return ranked.mutate(rank=position.cast(I64))
        other = ranked.select(__rf_q=ranked[q], __rf_r=ranked["rank"])
        pairs = ranked.join(other, ranked[q] == other["__rf_q"])
        pairs = pairs.filter(pairs["__rf_r"] <= pairs["rank"])
        keys = [c for c in ranked.columns if c != "rank"]
        return pairs.group_by(keys).aggregate(rank=pairs[q].count().cast(I64))

    def _rank_windows(self, run: Table, q: str, d: str, s: str) -> Table:
        text = _text_bytes(run[d].cast(dt.string), self.backend)
        position = ibis.row_number().over(ibis.window(
            group_by=run[q], order_by=[ibis.desc(run[s]), ibis.desc(text)])) + 1
        return run.mutate(rank=position.cast(I64))

    def _rank_joins(self, run: Table, q: str, d: str, s: str) -> Table:
        """rank = the rows of the query that sort at or before the row (an equality
        self-join, for a backend without window functions)."""
        mine = run.mutate(__rf_text=run[d].cast(dt.string))
        other = mine.select(__rf_q=mine[q], __rf_s=mine[s], __rf_t=mine["__rf_text"])
        pairs = mine.join(other, mine[q] == other["__rf_q"])
        before = (pairs["__rf_s"] > pairs[s]) | ((pairs["__rf_s"] == pairs[s])
                                                & (pairs["__rf_t"] >= pairs["__rf_text"]))
        counted = pairs.filter(before).group_by([q, d, s]).aggregate(
            rank=pairs[q].count().cast(I64))
        return counted

    def _tie_groups(self, ranked: Table, q: str, s: str) -> Table:
        if self.windows:
            group = ibis.window(group_by=[ranked[q], ranked[s]])
            return ranked.mutate(tie_first=ranked["rank"].min().over(group).cast(I64),
                                 tie_size=ranked["rank"].count().over(group).cast(I64))
        groups = ranked.group_by([q, s]).aggregate(
            tie_first=ranked["rank"].min().cast(I64), tie_size=ranked["rank"].count().cast(I64))
        return ranked.join(groups, [q, s])

    def _check(self, fn: str, sides: Mapping[str, tuple[Table, str]], q: str, d: str) -> None:
        """Raise InputError for NULL ids, NULL or NaN values, or a repeated (query, doc)
        pair, naming the first few offending pairs (run before qrels)."""
        for side, (table, value) in sides.items():
            v = table[value]
            counts = {"rows": table[q].isnull().count(),  # count(*) of the group
                      "nulls": _flag(v.isnull()).sum()}
            # SQLite has no NaN (it stores NULL); integers have none.
            nan = v.type().is_floating() and self.backend != "sqlite"
            if nan:
                counts["nans"] = _flag(v.isnan()).sum()
            grouped = table.group_by([q, d]).aggregate(**counts)
            null_id = grouped[q].isnull() | grouped[d].isnull()
            bad = grouped["nulls"] > 0
            if nan:
                bad = bad | (grouped["nans"] > 0)
            kind = ibis.cases((null_id, 0), (bad, 1), (grouped["rows"] > 1, 2),
                              else_=ibis.null(I64))
            found = grouped.mutate(kind=kind).filter(lambda t: t["kind"].notnull())
            found = found.order_by(["kind", ibis.asc(q, nulls_first=True),
                                    ibis.asc(d, nulls_first=True)]).limit(_NAMED_PROBLEMS)
            rows = _executor(table, self).to_pyarrow(found).to_pylist()
            if rows:
                raise InputError(_problem_message(fn, side, value, q, d, rows))


def backend_of(table: Table) -> Any:
    """The Ibis backend ``table`` is bound to, or None (an in-memory table)."""
    try:
        return table._find_backend(use_default=False)
    except Exception:
        return None


def _executor(table: Table, face: IbisFace) -> Any:
    """What runs a query on ``table``: its own backend, else the face's connection."""
    found = backend_of(table)
    return found if found is not None else face.connection()


def _problem_message(fn: str, side: str, value: str, q: str, d: str,
                     rows: list[dict[str, Any]]) -> str:
    first = rows[0]
    where = f"query {first[q]!r}, document {first[d]!r}"
    if first["kind"] == 0:
        column = q if first[q] is None else d
        return f"{fn}: column {column!r} of the {side} is NULL ({where})"
    if first["kind"] == 1:
        what = "NULL" if first["nulls"] else "NaN"
        return f"{fn}: column {value!r} of the {side} is {what} ({where})"
    pairs = "; ".join(f"query {row[q]!r}, document {row[d]!r} ({row['rows']} rows)"
                      for row in rows if row["kind"] == 2)
    return f"{fn}: duplicate ({q}, {d}) in the {side}: {pairs}; each pair may appear only once"


# --------------------------------------------------------------------------------------
# A throwaway PostgreSQL server (tests, examples, trials)
# --------------------------------------------------------------------------------------


def postgres_bin() -> Path | None:
    """The directory of PostgreSQL's server programs (``initdb``, ``pg_ctl``), or None."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                      key=lambda p: int(Path(p).parent.parent.name)
                      if Path(p).parent.parent.name.isdigit() else 0)
    return Path(versions[-1]).parent if versions else None


class TemporaryPostgres:
    """A PostgreSQL server in a temporary directory, listening only on a Unix socket there
    (no TCP), started with ``initdb`` and ``pg_ctl`` and removed by :meth:`stop`. As root
    the server runs as the ``postgres`` user (``runuser``), which owns the directory."""

    def __init__(self, bin_dir: Path | None = None) -> None:
        self.bin_dir = bin_dir or postgres_bin()
        self.directory: Path | None = None
        self.connection: Any = None

    def _as_server_user(self, command: list[str]) -> list[str]:
        if os.geteuid() == 0:
            return ["runuser", "-u", "postgres", "--", *command]
        return command

    def _run(self, *command: str) -> None:
        assert self.bin_dir is not None
        args = self._as_server_user([str(self.bin_dir / command[0]), *command[1:]])
        done = subprocess.run(args, capture_output=True, text=True, check=False, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} failed ({done.returncode}): "
                               f"{(done.stderr or done.stdout).strip()[-2000:]}")

    @property
    def url(self) -> str:
        """A URL for ``ibis.connect`` (and psql) through the socket."""
        return f"postgres://postgres@/postgres?host={self.directory}"

    def start(self) -> Any:
        """Start the server; return an Ibis PostgreSQL connection to it."""
        if self.bin_dir is None:
            raise RuntimeError("PostgreSQL's initdb was not found (apt-get install postgresql)")
        self.directory = Path(tempfile.mkdtemp(prefix="rankframe-pg-"))
        try:
            if os.geteuid() == 0:
                user = pwd.getpwnam("postgres")
                os.chown(self.directory, user.pw_uid, user.pw_gid)
            data = self.directory / "data"
            self._run("initdb", "-D", str(data), "-U", "postgres", "--auth=trust",
                      "--encoding=UTF8", "--no-locale", "--no-sync")
            options = (f"-k {self.directory} -c listen_addresses='' -c fsync=off "
                       "-c synchronous_commit=off -c full_page_writes=off")
            self._run("pg_ctl", "-D", str(data), "-o", options, "-l",
                      str(self.directory / "server.log"), "-w", "-s", "start")
            self.connection = ibis.postgres.connect(host=str(self.directory), user="postgres",
                                                    database="postgres")
        except BaseException:
            self.stop()
            raise
        return self.connection

    def stop(self) -> None:
        """Stop the server (fast shutdown) and remove its directory; idempotent."""
        if self.directory is None:
            return
        if self.connection is not None:
            with suppress(Exception):  # the server may be gone already
                self.connection.disconnect()
            self.connection = None
        data = self.directory / "data"
        if (data / "postmaster.pid").exists():
            with suppress(RuntimeError, subprocess.TimeoutExpired):
                self._run("pg_ctl", "-D", str(data), "-m", "fast", "-w", "-s", "stop")
        shutil.rmtree(self.directory, ignore_errors=True)
        self.directory = None


@contextmanager
def temporary_postgres() -> Iterator[TemporaryPostgres]:
    """A :class:`TemporaryPostgres`, started for the block and removed after it."""
    server = TemporaryPostgres()
    server.start()
    try:
        yield server
    finally:
        server.stop()


#: One face per backend, registered in :mod:`rankframe.faces` as ``ibis-<backend>``.
FACES: dict[str, Face] = {backend: IbisFace(backend) for backend in BACKENDS}

"""The registry: every metric declared once, with its parameters and its three faces.

A :class:`Metric` ties together the Polars expression builder, the DuckDB macro
(``rf_<name>`` in ``sql/rf_<name>.sql``) and the pure-Python reference oracle. The
test-suite is driven from here: completeness (every metric has a macro with the same
parameters, every macro is registered) and parity (all faces agree on generated data).

Calling convention shared by the faces, for columns ``c1, c2`` (usually rel, rank),
required parameters ``a`` (e.g. ``k``) and optional parameters ``o`` (e.g. ``threshold``):

- Polars: ``builder(c1, *a, c2=..., **o)``  (``rf.ndcg("rel", 10, rank="rank", gain=...)``)
- SQL:    ``rf_name(c1, c2, *a, o := ...)`` (``rf_ndcg(rel, rank, 10, gain := ...)``)
- oracle: ``reference(rows, *a, **o)`` over one query's rows as tuples ordered like
  ``columns`` (``(rel, rank)`` for the classic metrics).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import polars as pl

from rankframe import metrics
from rankframe.faces import oracle as reference

ParamKind = Literal[
    "cutoff", "threshold", "recall_level", "choice", "persistence", "grade", "flag", "penalty",
    "weight",
]
Aggregate = Literal["mean", "sum"]


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Param:
    """One parameter of a metric, after its data columns."""

    name: str
    kind: ParamKind
    default: Any = REQUIRED
    choices: tuple[str, ...] = ()

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


def _never(values: Mapping[str, Any]) -> bool:
    return False


def _always(values: Mapping[str, Any]) -> bool:
    return True


def _at_cutoff(values: Mapping[str, Any]) -> bool:
    """Divides by the cutoff k, not by the number retrieved."""
    return values["k"] is not None and values.get("divisor", "k") == "k"


@dataclass(frozen=True)
class Metric:
    """A metric and its faces. ``columns`` are the data columns the faces read, in order.

    ``positive_rows`` says, for given parameter values, whether the metric reads only the
    rows with a grade > 0: dropping any rows whose rel is NULL or <= 0 leaves every query's
    value unchanged, as long as the query keeps one row. ``evaluate`` then drops those rows
    before grouping (most of a run is unjudged or non-relevant); the pruning test suite
    checks every such claim on generated tables.
    """

    name: str
    polars: Callable[..., pl.Expr]
    reference: Callable[..., float]
    params: tuple[Param, ...]
    columns: tuple[str, ...] = ("rel", "rank")
    aggregate: Aggregate = "mean"
    is_count: bool = False
    trec_eval: tuple[str, ...] = field(default=())
    #: Whether rankframe.spark has this metric (the optional fourth face).
    spark: bool = True
    positive_rows: Callable[[Mapping[str, Any]], bool] = _never

    @property
    def macro(self) -> str:
        return f"rf_{self.name}"

    @property
    def required(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.required)

    @property
    def optional(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if not p.required)

    def polars_expr(self, columns: Mapping[str, str], values: Mapping[str, Any]) -> pl.Expr:
        """The Polars face called with the given column names and parameter values."""
        first, *rest = self.columns
        args = [columns[first], *(values[p.name] for p in self.required)]
        kwargs = {c: columns[c] for c in rest}
        kwargs.update({p.name: values[p.name] for p in self.optional if p.name in values})
        return self.polars(*args, **kwargs)

    def sql_call(self, columns: Mapping[str, str], values: Mapping[str, Any]) -> str:
        """The SQL face as a call expression, e.g. ``rf_ndcg(rel, rank, 10, gain := 'linear')``."""
        args = [columns[c] for c in self.columns]
        args += [sql_literal(values[p.name]) for p in self.required]
        args += [f"{p.name} := {sql_literal(values[p.name])}" for p in self.optional
                 if p.name in values]
        return f"{self.macro}({', '.join(args)})"

    def reads_positive_rows_only(self, values: Mapping[str, Any]) -> bool:
        """``positive_rows`` for these values (defaults filled in)."""
        full = {p.name: values.get(p.name, p.default) for p in self.params}
        return self.positive_rows(full)

    def reference_value(self, rows: Any, values: Mapping[str, Any]) -> float:
        """The oracle over one query's rows."""
        args = [values[p.name] for p in self.required]
        kwargs = {p.name: values[p.name] for p in self.optional if p.name in values}
        return self.reference(rows, *args, **kwargs)


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
    raise TypeError(f"no SQL literal for {value!r}")


K = Param("k", "cutoff")
THRESHOLD = Param("threshold", "threshold", 1)
GAIN = Param("gain", "choice", "linear", ("linear", "exponential"))
IDEAL = Param("ideal", "choice", "all", ("all", "retrieved"))
PRECISION_DIVISOR = Param("divisor", "choice", "k", ("k", "min"))

# Columns read by the metrics beyond (rel, rank).
PAIRED = ("x", "y")
RANKINGS = ("rank_a", "rank_b")
TIED = ("rel", "tie_first", "tie_size")

_DECLARED = (
    Metric("precision", metrics.precision, reference.precision,
           (K, THRESHOLD, PRECISION_DIVISOR),
           trec_eval=("P_k", "set_P"), positive_rows=_at_cutoff),
    Metric("recall", metrics.recall, reference.recall, (K, THRESHOLD),
           trec_eval=("recall_k", "set_recall"), positive_rows=_always),
    Metric("f1", metrics.f1, reference.f1,
           (K, THRESHOLD, Param("beta", "weight", 1.0), Param("recall_weight", "weight", None)),
           trec_eval=("set_F",), positive_rows=_at_cutoff),
    Metric("hit_rate", metrics.hit_rate, reference.hit_rate, (K, THRESHOLD),
           trec_eval=("success_k",), positive_rows=_always),
    Metric("reciprocal_rank", metrics.reciprocal_rank, reference.reciprocal_rank,
           (K, THRESHOLD), trec_eval=("recip_rank",), positive_rows=_always),
    Metric("average_precision", metrics.average_precision, reference.average_precision,
           (K, THRESHOLD, Param("divisor", "choice", "relevant", ("relevant", "min", "found"))),
           trec_eval=("map", "map_cut_k"), positive_rows=_always),
    Metric("r_precision", metrics.r_precision, reference.r_precision, (THRESHOLD,),
           trec_eval=("Rprec",), positive_rows=_always),
    Metric("bpref", metrics.bpref, reference.bpref, (THRESHOLD,), trec_eval=("bpref",)),
    Metric("iprec_at_recall", metrics.iprec_at_recall, reference.iprec_at_recall,
           (Param("recall", "recall_level"), THRESHOLD,
            Param("rounding", "choice", "nearest", ("nearest", "trec_eval9"))),
           trec_eval=("iprec_at_recall_x",), positive_rows=_always),
    Metric("cg", metrics.cg, reference.cg, (K, GAIN), positive_rows=_always),
    Metric("dcg", metrics.dcg, reference.dcg, (K, GAIN), positive_rows=_always),
    Metric("idcg", metrics.idcg, reference.idcg, (K, GAIN, IDEAL), positive_rows=_always),
    Metric("ndcg", metrics.ndcg, reference.ndcg, (K, GAIN, IDEAL),
           trec_eval=("ndcg", "ndcg_cut_k"), positive_rows=_always),
    Metric("num_ret", metrics.num_ret, reference.num_ret, (K,), aggregate="sum",
           is_count=True, trec_eval=("num_ret",)),
    Metric("num_rel", metrics.num_rel, reference.num_rel, (THRESHOLD,), aggregate="sum",
           is_count=True, trec_eval=("num_rel",), positive_rows=_always),
    Metric("num_rel_ret", metrics.num_rel_ret, reference.num_rel_ret, (K, THRESHOLD),
           aggregate="sum", is_count=True, trec_eval=("num_rel_ret",), positive_rows=_always),
    # User models.
    Metric("rbp", metrics.rbp, reference.rbp,
           (Param("p", "persistence", 0.8), THRESHOLD, Param("graded", "flag", False),
            Param("max_grade", "grade", None)),
           trec_eval=("rbp",), positive_rows=_always),
    Metric("rbp_residual", metrics.rbp_residual, reference.rbp_residual,
           (Param("p", "persistence", 0.8),)),
    Metric("err", metrics.err, reference.err, (K, Param("max_grade", "grade", 4)),
           positive_rows=_always),
    Metric("judged", metrics.judged, reference.judged, (K,)),
    # Rank correlation and overlap.
    Metric("kendall_tau", metrics.kendall_tau, reference.kendall_tau, (), columns=PAIRED,
           spark=False),
    Metric("kendall_distance", metrics.kendall_distance, reference.kendall_distance,
           (Param("penalty", "penalty", 0.0),), columns=PAIRED, spark=False),
    Metric("spearman_rho", metrics.spearman_rho, reference.spearman_rho, (), columns=PAIRED,
           spark=False),
    Metric("rbo", metrics.rbo, reference.rbo,
           (Param("p", "persistence", 0.9), Param("depth", "cutoff", None),
            Param("extrapolated", "flag", True)),
           columns=RANKINGS, spark=False),
    # Tie-aware (McSherry & Najork 2008); columns from rankframe.table.ties.annotate.
    Metric("precision_ties", metrics.precision_ties, reference.precision_ties,
           (K, THRESHOLD, PRECISION_DIVISOR), columns=TIED, spark=False),
    Metric("recall_ties", metrics.recall_ties, reference.recall_ties, (K, THRESHOLD),
           columns=TIED, spark=False),
    Metric("dcg_ties", metrics.dcg_ties, reference.dcg_ties, (K, GAIN), columns=TIED,
           spark=False),
    Metric("ndcg_ties", metrics.ndcg_ties, reference.ndcg_ties, (K, GAIN, IDEAL), columns=TIED,
           spark=False),
    Metric("reciprocal_rank_ties", metrics.reciprocal_rank_ties, reference.reciprocal_rank_ties,
           (K, THRESHOLD), columns=TIED, spark=False),
    Metric("average_precision_ties", metrics.average_precision_ties,
           reference.average_precision_ties,
           (K, THRESHOLD, Param("divisor", "choice", "relevant", ("relevant", "min"))),
           columns=TIED, spark=False),
)

METRICS: dict[str, Metric] = {m.name: m for m in _DECLARED}


def get(name: str) -> Metric:
    """The registered metric called ``name``."""
    try:
        return METRICS[name]
    except KeyError:
        known = ", ".join(sorted(METRICS))
        raise KeyError(f"unknown metric {name!r}; registered metrics: {known}") from None

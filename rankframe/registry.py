"""The registry: every metric declared once, by name, with its columns and parameters.

A :class:`Metric` is a declaration only. Each face (:mod:`rankframe.faces`) finds its own
implementation by the metric's name: the Polars builder ``rankframe.<name>``, the DuckDB
macro ``rf_<name>`` in ``sql/rf_<name>.sql``, the oracle ``rankframe.faces.oracle.<name>``,
the Spark builder ``rankframe.spark.<name>``. The test-suite is driven from here and from
the registered faces: completeness, parity, golden cases, pruning, validation.

Calling convention shared by the faces, for columns ``c1, c2`` (usually rel, rank),
required parameters ``a`` (e.g. ``k``) and optional parameters ``o`` (e.g. ``threshold``):

- Polars, Spark: ``builder(c1, *a, c2=..., **o)``  (``rf.ndcg("rel", 10, rank="rank")``)
- SQL:           ``rf_name(c1, c2, *a, o := ...)`` (``rf_ndcg(rel, rank, 10, gain := ...)``)
- oracle:        ``oracle.name(rows, *a, **o)`` over one query's rows as tuples ordered
  like ``columns`` (``(rel, rank)`` for the classic metrics).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, ParamSpec, TypeVar

from rankframe import validation

ParamKind = Literal[
    "cutoff", "threshold", "recall_level", "choice", "persistence", "grade", "flag", "penalty",
    "weight", "gains", "coefficient", "count",
]
Aggregate = Literal["mean", "sum"]
Family = Literal["counts", "ranked", "gains", "trec", "user", "correlation", "overlap", "ties"]


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
P = ParamSpec("P")
R = TypeVar("R")


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

    def check(self, func: str, value: object) -> Any:
        """``value`` checked against this parameter's kind (see :mod:`rankframe.validation`)
        and converted; None is allowed where the default is None. Errors name ``func``."""
        return validation.check(func, self.name, self.kind, value, choices=self.choices,
                                optional=self.default is None)


def _never(values: Mapping[str, Any]) -> bool:
    return False


def _always(values: Mapping[str, Any]) -> bool:
    return True


def _no_gain_at_zero(values: Mapping[str, Any]) -> bool:
    """Rows with a grade <= 0 gain nothing: no gain mapping gives grade 0 a gain."""
    zero: float = dict(values.get("gains") or {}).get(0, 0)  # a mapping, or its pairs
    return zero == 0


def _at_cutoff(values: Mapping[str, Any]) -> bool:
    """Divides by the cutoff k, not by the number retrieved."""
    return values["k"] is not None and values.get("divisor", "k") == "k"


@dataclass(frozen=True)
class Metric:
    """A metric's declaration. ``columns`` are the data columns every face reads, in order.

    ``positive_rows`` says, for given parameter values, whether the metric reads only the
    rows with a grade > 0: dropping any rows whose rel is NULL or <= 0 leaves every query's
    value unchanged, as long as the query keeps one row. ``evaluate`` then drops those rows
    before grouping (most of a run is unjudged or non-relevant); the pruning test suite
    checks every such claim on generated tables.
    """

    name: str
    params: tuple[Param, ...]
    #: The metric family: the module of each face that implements it (``gains``: the
    #: Polars builders in ``rankframe.metrics.gains``), and one loop of the conformance kit.
    family: Family
    #: The contract fixes how the value is computed (counts, or trec_eval's order of
    #: floating-point operations: docs/semantics.md#exactness), so a face can give the
    #: oracle's very double; each face says which of these it does (``Face.exact``).
    exact: bool = False
    columns: tuple[str, ...] = ("rel", "rank")
    aggregate: Aggregate = "mean"
    is_count: bool = False
    positive_rows: Callable[[Mapping[str, Any]], bool] = _never
    #: A string per query (``relstring``), not a number: no summary over queries.
    is_string: bool = False

    @property
    def macro(self) -> str:
        return f"rf_{self.name}"

    @property
    def required(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.required)

    @property
    def optional(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if not p.required)

    def arguments(self, columns: Mapping[str, str], values: Mapping[str, Any]
                  ) -> tuple[list[Any], dict[str, Any]]:
        """The builder call of the Polars and Spark faces for these column names and values:
        ``(positional, keyword)`` arguments, i.e. ``builder(c1, *required, c2=..., **optional)``."""
        first, *rest = self.columns
        args = [columns[first], *(values[p.name] for p in self.required)]
        kwargs: dict[str, Any] = {c: columns[c] for c in rest}
        kwargs.update({p.name: values[p.name] for p in self.optional if p.name in values})
        return args, kwargs

    def validate(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Every parameter's value checked (:meth:`Param.check`), defaults filled in: the
        single argument check of every face and entry point. Raises ``TypeError`` or
        ``ValueError`` naming the metric, the argument, the value and what is allowed."""
        declared = {p.name for p in self.params}
        unknown = [name for name in values if name not in declared]
        if unknown:
            takes = ", ".join(sorted(declared)) or "none"
            raise TypeError(f"{self.name}: unexpected argument {unknown[0]!r} (takes: {takes})")
        missing = [p.name for p in self.required if p.name not in values]
        if missing:
            raise TypeError(f"{self.name}: missing required argument {missing[0]!r}")
        return {p.name: p.check(self.name, values.get(p.name, p.default)) for p in self.params}

    def reads_positive_rows_only(self, values: Mapping[str, Any]) -> bool:
        """``positive_rows`` for these values (defaults filled in)."""
        full = {p.name: values.get(p.name, p.default) for p in self.params}
        return self.positive_rows(full)


K = Param("k", "cutoff")
THRESHOLD = Param("threshold", "threshold", 1)
GAIN = Param("gain", "choice", "linear", ("linear", "exponential"))
IDEAL = Param("ideal", "choice", "all", ("all", "retrieved"))
#: trec_eval's gain per grade (``-m ndcg.1=3,2=9``): (grade, gain) pairs; other grades keep
#: the gain of ``gain``. Checked as a mapping, converted to pairs in grade order.
GAINS = Param("gains", "gains", None)
PRECISION_DIVISOR = Param("divisor", "choice", "k", ("k", "min"))

# Columns read by the metrics beyond (rel, rank).
PAIRED = ("x", "y")
RANKINGS = ("rank_a", "rank_b")
TIED = ("rel", "tie_first", "tie_size")

_DECLARED = (
    Metric("precision", (K, THRESHOLD, PRECISION_DIVISOR), family="counts", exact=True,
           positive_rows=_at_cutoff),
    Metric("recall", (K, THRESHOLD), family="counts", exact=True, positive_rows=_always),
    Metric("f1", (K, THRESHOLD, Param("beta", "weight", 1.0),
                  Param("recall_weight", "weight", None)),
           family="counts", exact=True, positive_rows=_at_cutoff),
    Metric("hit_rate", (K, THRESHOLD), family="counts", exact=True, positive_rows=_always),
    Metric("relative_precision", (K, THRESHOLD), family="trec", exact=True),
    Metric("set_map", (THRESHOLD,), family="trec", exact=True),
    Metric("utility", (THRESHOLD, Param("a", "coefficient", 1.0), Param("b", "coefficient", -1.0),
                       Param("c", "coefficient", 0.0), Param("d", "coefficient", 0.0),
                       Param("num_docs", "count", 0),
                       Param("empty", "choice", "counts", ("counts", "placeholder"))),
           family="trec", exact=True),
    Metric("reciprocal_rank", (K, THRESHOLD), family="ranked", exact=True,
           positive_rows=_always),
    Metric("average_precision",
           (K, THRESHOLD, Param("divisor", "choice", "relevant", ("relevant", "min", "found"))),
           family="ranked", exact=True, positive_rows=_always),
    Metric("r_precision", (THRESHOLD,), family="ranked", exact=True, positive_rows=_always),
    Metric("bpref", (THRESHOLD,), family="ranked", exact=True),
    Metric("infap", (THRESHOLD,), family="ranked", exact=True),
    Metric("relstring", (Param("length", "cutoff", 10),), family="ranked", exact=True,
           is_string=True),
    Metric("yaap", (THRESHOLD,), family="ranked", exact=True, positive_rows=_always),
    Metric("iprec_at_recall",
           (Param("recall", "recall_level"), THRESHOLD,
            Param("rounding", "choice", "nearest", ("nearest", "trec_eval9"))),
           family="ranked", exact=True, positive_rows=_always),
    Metric("r_precision_mult", (Param("multiple", "weight"), THRESHOLD), family="ranked",
           exact=True, positive_rows=_always),
    Metric("cg", (K, GAIN), family="gains", exact=True, positive_rows=_always),
    Metric("dcg", (K, GAIN, GAINS), family="gains", exact=True, positive_rows=_no_gain_at_zero),
    Metric("idcg", (K, GAIN, IDEAL, GAINS), family="gains", exact=True,
           positive_rows=_no_gain_at_zero),
    Metric("ndcg", (K, GAIN, IDEAL, GAINS), family="gains", exact=True,
           positive_rows=_no_gain_at_zero),
    Metric("ndcg_rel", (GAINS,), family="gains", exact=True, positive_rows=_no_gain_at_zero),
    Metric("rndcg", (THRESHOLD, GAINS), family="gains", exact=True),  # reads the last rank
    Metric("ndcg_p", (THRESHOLD, GAINS), family="gains", exact=True,
           positive_rows=_no_gain_at_zero),
    Metric("bin_g", (THRESHOLD,), family="trec", exact=True),
    Metric("g", (GAINS,), family="trec", exact=True),
    Metric("num_ret", (K,), family="counts", exact=True, aggregate="sum", is_count=True),
    Metric("num_rel", (THRESHOLD,), family="counts", exact=True, aggregate="sum",
           is_count=True, positive_rows=_always),
    Metric("num_rel_ret", (K, THRESHOLD), family="counts", exact=True, aggregate="sum",
           is_count=True, positive_rows=_always),
    Metric("num_nonrel_judged_ret", (K, THRESHOLD), family="trec", exact=True, aggregate="sum",
           is_count=True),
    # User models.
    Metric("rbp", (Param("p", "persistence", 0.8), THRESHOLD, Param("graded", "flag", False),
                   Param("max_grade", "grade", None)),
           family="user", exact=True, positive_rows=_always),
    Metric("rbp_residual", (Param("p", "persistence", 0.8),), family="user", exact=True),
    Metric("err", (K, Param("max_grade", "grade", 4)), family="user", positive_rows=_always),
    Metric("judged", (K,), family="user", exact=True),
    Metric("unjudged", (K,), family="trec", exact=True),
    # Rank correlation and overlap.
    Metric("kendall_tau", (), family="correlation", columns=PAIRED),
    Metric("kendall_distance", (Param("penalty", "penalty", 0.0),), family="correlation",
           columns=PAIRED),
    Metric("spearman_rho", (), family="correlation", columns=PAIRED),
    Metric("rbo", (Param("p", "persistence", 0.9), Param("depth", "cutoff", None),
                   Param("extrapolated", "flag", True)), family="overlap", columns=RANKINGS),
    # Tie-aware (McSherry & Najork 2008); columns from rankframe.table.ties.annotate.
    Metric("precision_ties", (K, THRESHOLD, PRECISION_DIVISOR), family="ties", columns=TIED),
    Metric("recall_ties", (K, THRESHOLD), family="ties", columns=TIED),
    Metric("dcg_ties", (K, GAIN), family="ties", columns=TIED),
    Metric("ndcg_ties", (K, GAIN, IDEAL), family="ties", columns=TIED),
    Metric("reciprocal_rank_ties", (K, THRESHOLD), family="ties", columns=TIED),
    Metric("average_precision_ties",
           (K, THRESHOLD, Param("divisor", "choice", "relevant", ("relevant", "min"))),
           family="ties", columns=TIED),
)

METRICS: dict[str, Metric] = {m.name: m for m in _DECLARED}

#: The preference measures, in trec_eval's order (``-m all_prefs``): frame functions of
#: :mod:`rankframe.metrics.prefs`, not registered metrics.
PREFS_MEASURES: tuple[str, ...] = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
    "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp",
)
#: The measures printed as integers (summed over queries in trec_eval's summary).
PREFS_COUNTS: frozenset[str] = frozenset(PREFS_MEASURES[:3])


def get(name: str) -> Metric:
    """The registered metric called ``name``."""
    try:
        return METRICS[name]
    except KeyError:
        known = ", ".join(sorted(METRICS))
        raise KeyError(f"unknown metric {name!r}; registered metrics: {known}") from None


def validated(metric: Metric) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate the builder of ``metric`` in any face (same name, the registry's calling
    convention): each call checks the metric's parameters with ``metric.validate`` and runs
    the builder with the checked values. Name, signature and docstring stay the builder's."""

    def decorate(builder: Callable[P, R]) -> Callable[P, R]:
        signature = inspect.signature(builder)
        names = [p.name for p in metric.params]
        if builder.__name__ != metric.name or not set(names) <= set(signature.parameters):
            raise TypeError(f"{builder.__name__}{signature} is not a builder of {metric.name} "
                            f"(parameters {', '.join(names) or 'none'})")

        @functools.wraps(builder)
        def checked(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(f"{metric.name}() {exc}") from None
            bound.apply_defaults()
            bound.arguments.update(metric.validate({n: bound.arguments[n] for n in names}))
            return builder(*bound.args, **bound.kwargs)

        return checked

    return decorate

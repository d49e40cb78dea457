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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, ParamSpec, TypeVar

from rankframe.docsections import complete_parameters
from rankframe.validation import check as check_value

ParamKind = Literal[
    "cutoff", "threshold", "recall_level", "choice", "persistence", "grade", "flag", "penalty",
    "weight", "gains", "coefficient", "count", "size",
]
#: How ``summarize`` reduces a metric's per-query values: their ``mean``, their ``sum``
#: (counts), or ``defined_mean``: the mean over the queries where the metric is defined (a
#: beyond-accuracy list metric is NULL for a list too short to have a value; the peers
#: average over the users that have one).
Aggregate = Literal["mean", "sum", "defined_mean"]
Family = Literal["counts", "ranked", "gains", "trec", "user", "correlation", "overlap", "ties",
                 "catalog", "popularity_bias", "diversity", "fairness"]
#: What one value of a metric describes: one ranked ``list`` (a query, a user), or a whole
#: ``run`` (every list of a system: catalogue coverage, concentration). A builder is an
#: aggregate over whatever group it is given; ``evaluate`` groups a run metric by the run
#: (docs/semantics.md#beyond-accuracy).
Scope = Literal["list", "run"]


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
    #: What the parameter does, written once for every metric and face that takes it: the
    #: builders' ``Parameters`` sections, the ``.sql`` headers' parameter lines and the
    #: measure reference are made from it. Values in ``double backticks`` as in Python.
    desc: str = field(default="", compare=False)

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def check(self, func: str, value: object) -> Any:
        """``value`` checked against this parameter's kind (see :mod:`rankframe.validation`)
        and converted; None is allowed where the default is None. Errors name ``func``."""
        return check_value(func, self.name, self.kind, value, choices=self.choices,
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
    #: Polars builders in ``rankframe.faces.polars.gains``), and one loop of the conformance kit.
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
    scope: Scope = "list"
    #: Its measure-string names, the first canonical (``"coverage catalog_coverage"``), and
    #: their one-line help; :mod:`rankframe.measures` registers them (a metric without
    #: ``names`` is named there by hand, with its trec_eval forms).
    names: str = field(default="", compare=False)
    help: str = field(default="", compare=False)
    #: Reads only the rows with ``rank <= k`` (its cutoff, when given): ``evaluate`` then
    #: drops the others first, keeping a row per query (the beyond-accuracy metrics).
    top_rows: bool = False

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

    def described(self) -> dict[tuple[str, ...], str]:
        """The shared description of each parameter and data column (columns that go together
        as one entry): what a builder's ``Parameters`` section says unless the builder says
        otherwise. ``rel`` is described for metrics of relevance (``threshold``) or of gains
        (``gain``); what the other metrics read in it is theirs to say."""
        out: dict[tuple[str, ...], str] = {(p.name,): p.desc for p in self.params}
        if GAIN in self.params:
            out[("rel",)] = _GRADES_AS_GAINS
        elif THRESHOLD in self.params:
            out[("rel",)] = _GRADES_AS_RELEVANCE
        out.update({names: desc for names, desc in COLUMNS.items()
                    if set(names) <= set(self.columns)})
        return out

    def reads_positive_rows_only(self, values: Mapping[str, Any]) -> bool:
        """``positive_rows`` for these values (defaults filled in)."""
        full = {p.name: values.get(p.name, p.default) for p in self.params}
        return self.positive_rows(full)


K = Param("k", "cutoff", desc="Cutoff: only rows with ``rank <= k`` count. ``None`` (the "
          "default): the whole list.")
THRESHOLD = Param("threshold", "threshold", 1,
                  desc="Relevance level: a row is relevant iff ``rel >= threshold`` (trec_eval "
                       "``-l``).")
GAIN = Param("gain", "choice", "linear", ("linear", "exponential"),
             desc="``\"linear\"``: g = rel, as trec_eval and Järvelin & Kekäläinen; "
                  "``\"exponential\"``: g = 2^rel - 1, as Burges et al. The relevance "
                  "``threshold`` does not apply to gains.")
IDEAL = Param("ideal", "choice", "all", ("all", "retrieved"),
              desc="``\"all\"``: the ideal ranking sorts the positive gains of every row of "
                   "the query, retrieved or not (trec_eval); ``\"retrieved\"``: of the "
                   "retrieved rows only.")
#: trec_eval's gain per grade (``-m ndcg.1=3,2=9``): (grade, gain) pairs; other grades keep
#: the gain of ``gain``. Checked as a mapping, converted to pairs in grade order.
GAINS = Param("gains", "gains", None,
              desc="A gain per grade, ``{grade: gain}`` (trec_eval's ``ndcg.1=3,2=9``): a "
                   "listed grade (an integer >= 0, grade 0 too) gains the number given, which "
                   "may be 0 or negative; the other grades keep the gain the ``gain`` "
                   "parameter gives them (linear where the metric has none). ``None``: none "
                   "listed.")
_PERSISTENCE = "Persistence, in (0, 1): the chance the reader goes on to the next rank."

_GRADES_AS_RELEVANCE = (
    "Grade column (a name or an expression). NULL: retrieved but unjudged, so not relevant; "
    "a negative grade: pooled but unjudged, not relevant and left out of R. A row is "
    "relevant iff ``rel >= threshold``.")
_GRADES_AS_GAINS = (
    "Grade column (a name or an expression), turned into gains by ``gain``. NULL (unjudged) "
    "and grades <= 0 (non-relevant, or negative: pooled but unjudged) give gain 0, in the "
    "list and in the ideal ranking.")
#: The data columns' descriptions (columns that go together as one entry), for the
#: builders' ``Parameters`` sections; ``rel`` depends on the metric (:meth:`Metric.described`).
COLUMNS: dict[tuple[str, ...], str] = {
    ("rank",): "Rank column (a name or an expression): 1 is the top, unique within a query; "
               "NULL: judged but not retrieved. Ranks start at 1: shift 0-based positions by "
               "one. :func:`rankframe.evaluate` checks the whole table first.",
    ("tie_first", "tie_size"): "The tie-group columns of ``rf.judge(..., ties=\"average\")``: "
                               "the first position of each retrieved row's group of tied "
                               "scores and the group's size (NULL for unretrieved rows).",
    ("x", "y"): "The two paired columns (names or expressions), e.g. two systems' scores for "
                "the same documents, or rank and grade. Rows where either is NULL or NaN are "
                "dropped.",
    ("rank_a", "rank_b"): "The rank of each document in ranking A and in ranking B (names or "
                          "expressions), one row per document of either; NULL: absent from "
                          "that ranking.",
    # Beyond accuracy (docs/semantics.md#beyond-accuracy): item attributes, one per row,
    # joined once from the items and the training interactions (rankframe.Catalog).
    ("item",): "Item column (a name or an expression): the item each row recommends. Rows "
               "with a NULL item are left out.",
    ("pop",): "Popularity column: the item's number of training interactions (or of users, "
              "``rankframe.Catalog(popularity=\"users\")``); NULL or 0: never seen in "
              "training.",
    ("tail",): "Long-tail column (boolean): true for an item of the long tail "
               "(``rankframe.Catalog(long_tail=...)`` decides which); NULL: not long-tail.",
    ("category",): "Category column: the item's category (any type); NULL: no category, "
                   "similar to no other item.",
    ("features",): "Feature column: the item's feature vector (a list or array of numbers, "
                   "one length within a group); NULL or all zeros: similar to no other item.",
    ("pair_similarity",): "The sum of the item's similarities to every other item of its "
                          "list (``rankframe.Catalog`` computes it: co-occurrence or feature "
                          "cosine); NULL: 0.",
    ("similarity",): "The item's mean similarity to the user's training items "
                     "(``rankframe.Catalog`` computes it); NULL: the row is left out (a user "
                     "with no training items).",
    ("alignment",): "Alignment column: the item's membership of each group, a vector of "
                    "weights >= 0 (one-hot for one group; fractions for several); NULL: an "
                    "item of unknown group, left out.",
    ("target",): "Target column: the target distribution over the same groups, a vector of "
                 "weights >= 0 (summing to more than 0), the same on every row of a group "
                 "(a literal, or a column per query).",
}

# Columns read by the metrics beyond (rel, rank).
PAIRED = ("x", "y")
RANKINGS = ("rank_a", "rank_b")
TIED = ("rel", "tie_first", "tie_size")
ITEMS = ("item", "rank")

_AP_DIVISOR = ("``\"relevant\"``: divide by R, every relevant row of the query (trec_eval, "
               "ranx); ``\"min\"``: by min(R, k), the recommender MAP@k (Spark)")
_RBP_P = Param("p", "persistence", 0.8, desc=_PERSISTENCE)
PRECISION_DIVISOR = Param("divisor", "choice", "k", ("k", "min"),
                          desc="``\"k\"``: divide by k, as trec_eval's ``P_k``; ``\"min\"``: "
                               "by min(k, n), n the rows retrieved. With ``k=None`` both "
                               "divide by n.")

# Beyond accuracy.
CATALOG = Param("catalog", "size", None,
                desc="The number of items in the catalogue (an integer >= 1). ``None``: "
                     "``rankframe.evaluate`` counts it from its ``rankframe.Catalog`` (the "
                     "items table, else the items of the training interactions); a builder "
                     "or macro needs it given.")
LOG = Param("log", "choice", "log2", ("log2", "ln"),
            desc="The logarithm: ``\"log2\"`` (bits; Microsoft Recommenders) or ``\"ln\"`` "
                 "(nats; RecBole).")
_TOTAL = Param("total", "size", None,
               desc="What popularity is a share of: the number of training interactions (or "
                    "of users, with ``popularity=\"users\"``), an integer >= 1. ``None``: "
                    "``rankframe.evaluate`` counts it from its ``rankframe.Catalog``; a builder "
                    "or macro needs it given.")
_UNSEEN = Param("unseen", "choice", "zero", ("zero", "skip"),
                desc="An item never seen in training (popularity NULL or 0): ``\"zero\"`` "
                     "counts it with self-information 0 (Microsoft Recommenders); "
                     "``\"skip\"`` leaves it out of the mean.")
_ENTROPY_DIVISOR = Param("divisor", "choice", "none", ("none", "items"),
                         desc="``\"none\"``: the entropy itself (Microsoft Recommenders' "
                              "distributional coverage); ``\"items\"``: divided by the number "
                              "of distinct items recommended (RecBole's ShannonEntropy).")
_GINI_OVER = Param("over", "choice", "catalog", ("catalog", "recommended"),
                   desc="``\"catalog\"``: over every item of the catalogue, those never "
                        "recommended counting 0 (RecBole); ``\"recommended\"``: over the "
                        "items recommended at least once.")
_RELEVANCE = Param("relevance", "choice", "binary", ("binary", "ignore"),
                   desc="``\"binary\"``: only relevant items (``rel >= threshold``) count as "
                        "serendipitous; ``\"ignore\"``: every item counts (unexpectedness "
                        "alone; Microsoft Recommenders without a relevance column).")

_DECLARED = (
    Metric("precision", (K, THRESHOLD, PRECISION_DIVISOR), family="counts", exact=True,
           positive_rows=_at_cutoff),
    Metric("recall", (K, THRESHOLD), family="counts", exact=True, positive_rows=_always),
    Metric("f1", (K, THRESHOLD,
                  Param("beta", "weight", 1.0,
                        desc="Recall is weighted w = beta^2 times; 1 is F1."),
                  Param("recall_weight", "weight", None,
                        desc="w itself, overriding ``beta``; trec_eval's ``set_F.x`` is "
                             "``recall_weight=x``. ``None``: use ``beta``.")),
           family="counts", exact=True, positive_rows=_at_cutoff),
    Metric("hit_rate", (K, THRESHOLD), family="counts", exact=True, positive_rows=_always),
    Metric("relative_precision", (K, THRESHOLD), family="trec", exact=True),
    Metric("set_map", (THRESHOLD,), family="trec", exact=True),
    Metric("utility", (THRESHOLD,
                       *(Param(name, "coefficient", default, desc=f"The weight of {cell} "
                               "documents (any finite number).")
                         for name, default, cell in (
                             ("a", 1.0, "relevant retrieved"),
                             ("b", -1.0, "non-relevant retrieved"),
                             ("c", 0.0, "relevant not retrieved"),
                             ("d", 0.0, "non-relevant not retrieved"))),
                       Param("num_docs", "count", 0,
                             desc="Documents in the collection (trec_eval ``-N``), for the "
                                  "last cell."),
                       Param("empty", "choice", "counts", ("counts", "placeholder"),
                             desc="A query with nothing retrieved: ``\"counts\"`` applies the "
                                  "formula with n = 0; ``\"placeholder\"`` scores it as if one "
                                  "unjudged document were retrieved (n = 1), as trec_eval 10 "
                                  "does under ``-c`` for ``utility`` with parameters.")),
           family="trec", exact=True),
    Metric("reciprocal_rank", (K, THRESHOLD), family="ranked", exact=True,
           positive_rows=_always),
    Metric("average_precision",
           (K, THRESHOLD, Param("divisor", "choice", "relevant", ("relevant", "min", "found"),
                                desc=_AP_DIVISOR + "; ``\"found\"``: by the relevant rows "
                                     "found in the top k.")),
           family="ranked", exact=True, positive_rows=_always),
    Metric("r_precision", (THRESHOLD,), family="ranked", exact=True, positive_rows=_always),
    Metric("bpref", (THRESHOLD,), family="ranked", exact=True),
    Metric("infap", (THRESHOLD,), family="ranked", exact=True),
    Metric("relstring", (Param("length", "cutoff", 10,
                               desc="How many positions to show (trec_eval's "
                                    "``relstring.20``); ``None``: every position up to the "
                                    "last rank."),),
           family="ranked", exact=True, is_string=True),
    Metric("yaap", (THRESHOLD,), family="ranked", exact=True, positive_rows=_always),
    Metric("iprec_at_recall",
           (Param("recall", "recall_level", desc="The recall level x, in [0, 1]."), THRESHOLD,
            Param("rounding", "choice", "nearest", ("nearest", "trec_eval9"),
                  desc="``\"nearest\"``: c = round(x * R) relevant rows, trec_eval 10; "
                       "``\"trec_eval9\"``: c = floor(x * R + 0.9), trec_eval 9.x and "
                       "pytrec_eval.")),
           family="ranked", exact=True, positive_rows=_always),
    Metric("r_precision_mult",
           (Param("multiple", "weight", desc="The multiple x of R, a finite number > 0 "
                  "(trec_eval's defaults: 0.2, 0.4, ..., 2.0)."), THRESHOLD),
           family="ranked", exact=True, positive_rows=_always),
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
    Metric("rbp", (_RBP_P, THRESHOLD,
                   Param("graded", "flag", False,
                         desc="``False``: binary gains, 1 for a relevant row; ``True``: graded "
                              "gains (``threshold`` is not read)."),
                   Param("max_grade", "grade", None,
                         desc="Graded mode: the grade of gain 1; ``None``: the query's "
                              "highest grade, retrieved or not."),
                   Param("clip", "flag", True,
                         desc="Graded mode: ``True``: the gain rel / max_grade is clipped to "
                              "1; ``False``: not clipped, so ``max_grade=1, clip=False`` "
                              "takes the grade itself as gain (ranx's graded RBP).")),
           family="user", exact=True, positive_rows=_always),
    Metric("rbp_residual", (_RBP_P,), family="user", exact=True),
    Metric("err", (K, Param("max_grade", "grade", 4,
                            desc="The highest grade: the stopping probability is (2^g - 1) / "
                                 "2^max_grade; 4 as in the TREC Web track.")),
           family="user", positive_rows=_always),
    Metric("judged", (K,), family="user", exact=True),
    Metric("unjudged", (K,), family="trec", exact=True),
    # Rank correlation and overlap.
    Metric("kendall_tau", (), family="correlation", columns=PAIRED),
    Metric("kendall_distance",
           (Param("penalty", "penalty", 0.0,
                  desc="The weight of a pair tied in exactly one column, in [0, 1]: 0 counts "
                       "strict inversions only, 0.5 is Fagin et al.'s neutral choice."),),
           family="correlation", columns=PAIRED),
    Metric("spearman_rho", (), family="correlation", columns=PAIRED),
    Metric("rbo", (Param("p", "persistence", 0.9, desc=_PERSISTENCE),
                   Param("depth", "cutoff", None,
                         desc="Keep only ranks <= depth of both rankings; ``None``: all."),
                   Param("extrapolated", "flag", True,
                         desc="``True``: RBO_ext, eq. 32 of Webber et al.; ``False``: the "
                              "lower bound RBO_min, eq. 11.")),
           family="overlap", columns=RANKINGS),
    # Beyond accuracy (docs/semantics.md#beyond-accuracy): the catalogue over a whole run,
    # and popularity, diversity and fairness per list.
    Metric("coverage", (K, CATALOG), family="catalog", columns=ITEMS, scope="run", exact=True,
           top_rows=True, names="coverage catalog_coverage item_coverage itemcoverage",
           help="share of the catalogue recommended (run)"),
    Metric("entropy", (K, LOG, _ENTROPY_DIVISOR), family="catalog", columns=ITEMS,
           scope="run", top_rows=True,
           names="entropy distributional_coverage shannon_entropy shannonentropy",
           help="Shannon entropy of the items' share of recommendations (run)"),
    Metric("gini", (K, _GINI_OVER, CATALOG), family="catalog", columns=ITEMS, scope="run",
           top_rows=True, names="gini gini_index giniindex",
           help="Gini index of the items' counts (run)"),
    Metric("novelty", (K, _TOTAL, _UNSEEN, LOG), family="popularity_bias",
           columns=("pop", "rank"), aggregate="defined_mean", top_rows=True, names="novelty",
           help="mean self-information -log2(popularity share) of the items"),
    Metric("popularity", (K,), family="popularity_bias", columns=("pop", "rank"),
           aggregate="defined_mean", top_rows=True,
           names="popularity arp average_popularity averagepopularity",
           help="mean training popularity of the items"),
    Metric("tail_share", (K,), family="popularity_bias", columns=("tail", "rank"),
           aggregate="defined_mean", exact=True, top_rows=True,
           names="tail_share tail_percentage tailpercentage",
           help="share of the items from the long tail"),
    Metric("ild_category", (K,), family="diversity", columns=("category", "rank"),
           aggregate="defined_mean", top_rows=True, names="ild_category",
           help="share of pairs of items in different categories"),
    Metric("ild_features", (K,), family="diversity", columns=("features", "rank"),
           aggregate="defined_mean", top_rows=True, names="ild_features",
           help="1 - mean cosine of the items' feature vectors"),
    Metric("ild_pairs", (), family="diversity", columns=("pair_similarity", "rank"),
           aggregate="defined_mean", names="ild_pairs diversity",
           help="1 - mean similarity of the list's pairs (co-occurrence by default)"),
    Metric("serendipity", (K, THRESHOLD, _RELEVANCE), family="diversity",
           columns=("similarity", "rank", "rel"), aggregate="defined_mean", top_rows=True,
           names="serendipity", help="mean relevance x (1 - similarity to the user's history)"),
    Metric("awrf", (K,), family="fairness", columns=("alignment", "rank", "target"),
           aggregate="defined_mean", top_rows=True, names="awrf",
           help="attention-weighted rank fairness against a target"),
    # Tie-aware (McSherry & Najork 2008); columns from rankframe.table.ties.annotate.
    Metric("precision_ties", (K, THRESHOLD, PRECISION_DIVISOR), family="ties", columns=TIED),
    Metric("recall_ties", (K, THRESHOLD), family="ties", columns=TIED),
    Metric("dcg_ties", (K, GAIN), family="ties", columns=TIED),
    Metric("ndcg_ties", (K, GAIN, IDEAL), family="ties", columns=TIED),
    Metric("reciprocal_rank_ties", (K, THRESHOLD), family="ties", columns=TIED),
    Metric("average_precision_ties",
           (K, THRESHOLD, Param("divisor", "choice", "relevant", ("relevant", "min"),
                                desc=_AP_DIVISOR + ".")),
           family="ties", columns=TIED),
)

METRICS: dict[str, Metric] = {m.name: m for m in _DECLARED}

#: The preference measures, in trec_eval's order (``-m all_prefs``): frame functions of
#: :mod:`rankframe.faces.polars.prefs`, not registered metrics.
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
    the builder with the checked values. Name and signature stay the builder's; its
    docstring's ``Parameters`` section is completed from the registry's descriptions
    (:meth:`Metric.described`), so the builder documents only what is its own."""

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

        checked.__doc__ = document(metric, builder.__doc__ or "", list(signature.parameters))
        return checked

    return decorate


def document(metric: Metric, doc: str, parameters: Sequence[str]) -> str:
    """The docstring ``doc`` of a builder of ``metric`` taking ``parameters``, with its
    ``Parameters`` section completed from :meth:`Metric.described`
    (:func:`rankframe.docsections.complete_parameters`)."""
    return complete_parameters(doc, parameters, metric.described())

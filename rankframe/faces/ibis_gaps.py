"""What the Ibis faces (:mod:`rankframe.faces.ibis`, one per backend) cannot express, as data
that imports without Ibis: the site's metric x face table (:mod:`rankframe.faces.table`) and
the tests read it where the ``ibis`` extra is not installed; the face objects read it too, so
it is said once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankframe.registry import METRICS

if TYPE_CHECKING:  # the protocol module imports Polars
    from rankframe.faces.base import Ties


BACKENDS: tuple[str, ...] = ("duckdb", "polars", "sqlite", "datafusion", "postgres")


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
    "ndcg_p", "entropy", "gini", "ild_category",
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


_NO_VECTORS = ("reads a vector per row (a list of numbers) and sums vectors position by "
               "position: arrays are not portable across the Ibis SQL engines (SQLite has "
               "none); use the Polars, DuckDB or Spark face")


#: Metrics no Ibis backend computes here, with the reason.
NOT_EXPRESSED = {"g": _NO_POSITIONAL_IDEAL, "ild_features": _NO_VECTORS, "awrf": _NO_VECTORS}


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


#: The ``ties`` choices of every Ibis face's ``judge``.
JUDGE_TIES: frozenset[Ties] = frozenset({"docid", "average"})

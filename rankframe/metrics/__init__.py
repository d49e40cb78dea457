"""Polars faces of the rankframe metrics, one ``pl.Expr`` builder per metric.

The builders load on first use (PEP 562), each with its module: importing
:mod:`rankframe.registry` (the declarations, no Polars) does not import them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rankframe.metrics.correlation import kendall_distance, kendall_tau, rbo, spearman_rho
    from rankframe.metrics.counts import (
        f1,
        hit_rate,
        num_rel,
        num_rel_ret,
        num_ret,
        precision,
        recall,
    )
    from rankframe.metrics.gains import cg, dcg, idcg, ndcg, ndcg_p, ndcg_rel, rndcg
    from rankframe.metrics.ranked import (
        average_precision,
        bpref,
        infap,
        iprec_at_recall,
        r_precision,
        r_precision_mult,
        reciprocal_rank,
        relstring,
        yaap,
    )
    from rankframe.metrics.tied import (
        average_precision_ties,
        dcg_ties,
        ndcg_ties,
        precision_ties,
        recall_ties,
        reciprocal_rank_ties,
    )
    from rankframe.metrics.trec import (
        bin_g,
        g,
        num_nonrel_judged_ret,
        relative_precision,
        set_map,
        unjudged,
        utility,
    )
    from rankframe.metrics.user import err, judged, rbp, rbp_residual

#: Builder name -> the module of ``rankframe.metrics`` that defines it.
_MODULES: dict[str, str] = {
    "average_precision": "ranked",
    "average_precision_ties": "tied",
    "bin_g": "trec",
    "bpref": "ranked",
    "cg": "gains",
    "dcg": "gains",
    "dcg_ties": "tied",
    "err": "user",
    "f1": "counts",
    "g": "trec",
    "hit_rate": "counts",
    "idcg": "gains",
    "infap": "ranked",
    "iprec_at_recall": "ranked",
    "judged": "user",
    "kendall_distance": "correlation",
    "kendall_tau": "correlation",
    "ndcg": "gains",
    "ndcg_p": "gains",
    "ndcg_rel": "gains",
    "ndcg_ties": "tied",
    "num_nonrel_judged_ret": "trec",
    "num_rel": "counts",
    "num_rel_ret": "counts",
    "num_ret": "counts",
    "precision": "counts",
    "precision_ties": "tied",
    "r_precision": "ranked",
    "r_precision_mult": "ranked",
    "rbo": "correlation",
    "rbp": "user",
    "rbp_residual": "user",
    "recall": "counts",
    "recall_ties": "tied",
    "reciprocal_rank": "ranked",
    "reciprocal_rank_ties": "tied",
    "relative_precision": "trec",
    "relstring": "ranked",
    "rndcg": "gains",
    "set_map": "trec",
    "spearman_rho": "correlation",
    "unjudged": "trec",
    "utility": "trec",
    "yaap": "ranked",
}

__all__ = [
    "average_precision",
    "average_precision_ties",
    "bin_g",
    "bpref",
    "cg",
    "dcg",
    "dcg_ties",
    "err",
    "f1",
    "g",
    "hit_rate",
    "idcg",
    "infap",
    "iprec_at_recall",
    "judged",
    "kendall_distance",
    "kendall_tau",
    "ndcg",
    "ndcg_p",
    "ndcg_rel",
    "ndcg_ties",
    "num_nonrel_judged_ret",
    "num_rel",
    "num_rel_ret",
    "num_ret",
    "precision",
    "precision_ties",
    "r_precision",
    "r_precision_mult",
    "rbo",
    "rbp",
    "rbp_residual",
    "recall",
    "recall_ties",
    "reciprocal_rank",
    "reciprocal_rank_ties",
    "relative_precision",
    "relstring",
    "rndcg",
    "set_map",
    "spearman_rho",
    "unjudged",
    "utility",
    "yaap",
]


def __getattr__(name: str) -> Any:
    """A builder, imported from its module on first use."""
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'rankframe.metrics' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"rankframe.metrics.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

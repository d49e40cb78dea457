"""Polars faces of the rankframe metrics, one ``pl.Expr`` builder per metric."""

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
from rankframe.metrics.user import err, judged, rbp, rbp_residual

__all__ = [
    "average_precision",
    "average_precision_ties",
    "bpref",
    "cg",
    "dcg",
    "dcg_ties",
    "err",
    "f1",
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
    "num_rel",
    "num_rel_ret",
    "num_ret",
    "precision",
    "precision_ties",
    "r_precision",
    "rbo",
    "rbp",
    "rbp_residual",
    "recall",
    "recall_ties",
    "reciprocal_rank",
    "reciprocal_rank_ties",
    "relstring",
    "rndcg",
    "spearman_rho",
    "yaap",
]

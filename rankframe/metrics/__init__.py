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
from rankframe.metrics.gains import cg, dcg, idcg, ndcg
from rankframe.metrics.ranked import (
    average_precision,
    bpref,
    iprec_at_recall,
    r_precision,
    r_precision_mult,
    reciprocal_rank,
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
    "iprec_at_recall",
    "judged",
    "kendall_distance",
    "kendall_tau",
    "ndcg",
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
    "set_map",
    "spearman_rho",
    "unjudged",
    "utility",
]

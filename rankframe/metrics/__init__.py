"""Polars faces of the rankframe metrics, one ``pl.Expr`` builder per metric."""

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
    reciprocal_rank,
)

__all__ = [
    "average_precision",
    "bpref",
    "cg",
    "dcg",
    "f1",
    "hit_rate",
    "idcg",
    "iprec_at_recall",
    "ndcg",
    "num_rel",
    "num_rel_ret",
    "num_ret",
    "precision",
    "r_precision",
    "recall",
    "reciprocal_rank",
]

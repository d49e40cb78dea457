"""rankframe: ranking metrics where the data lives, as Polars expressions and DuckDB macros."""

from rankframe.metrics import (
    average_precision,
    bpref,
    cg,
    dcg,
    f1,
    hit_rate,
    idcg,
    iprec_at_recall,
    ndcg,
    num_rel,
    num_rel_ret,
    num_ret,
    precision,
    r_precision,
    recall,
    reciprocal_rank,
)

__version__ = "0.1.0"

__all__ = [
    "__version__",
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

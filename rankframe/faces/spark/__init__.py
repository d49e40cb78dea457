"""The Spark face: every rankframe metric as a PySpark aggregate ``Column``, and ``judge``.

Each function has the name, parameters, defaults and argument checks of the Polars
builder in :mod:`rankframe.metrics`, and returns an aggregate column with the same alias,
to be used inside ``groupBy(...).agg(...)``::

    import rankframe.spark as rfs
    judged.groupBy("qid").agg(rfs.ndcg("rel", k=10), rfs.average_precision("rel"))

Only Spark's own aggregates and higher-order functions are used (``count_if``, ``sum``,
``min``, ``collect_list``, ``array_sort``, ``transform``, ``filter``, ``aggregate``,
``slice``, ``sequence``), never a Python UDF, so the work stays in the JVM. Rank-dependent
metrics (average precision, bpref, interpolated precision, CG, DCG and ideal DCG) collect
one small array per query: the ranks of its relevant retrieved rows, its positive gains
(with their ranks), or the relevance flags of its judged retrieved rows; float sums fold
over such an array in rank order, as trec_eval adds (docs/semantics.md#exactness). The
rank correlations collect the group's (x, y) pairs and compare every pair (O(n^2),
values in their own type); RBO folds once over the depths 1..l; the tie-aware metrics
(columns ``rel``, ``tie_first``, ``tie_size``) evaluate the closed forms of
:mod:`rankframe.faces.polars.tied`. Every score is ``DoubleType``; the ``num_*`` counts are
``LongType``.

Conventions of the judged long table (docs/semantics.md#the-judged-long-table): ``rank``
NULL = judged but not retrieved; ``rel`` NULL = retrieved but unjudged; negative ``rel`` =
pooled but unjudged; a row is relevant iff ``rel >= threshold``.

``evaluate(judged, ["ndcg@10", "map"])`` takes measure strings, as ``rankframe.evaluate``
does; the face object ``FACE`` is what ``rankframe.faces`` registers.

PySpark is the optional extra ``rankframe[spark]``: ``import rankframe`` never needs it.
"""

# ruff: noqa: F401  (the builders are public through __all__, built from SUPPORTED_METRICS)
from __future__ import annotations

try:
    import pyspark.sql  # the optional dependency, checked first
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "rankframe.spark needs PySpark; install the optional extra: "
        "pip install 'rankframe[spark]'"
    ) from exc

from rankframe.faces.spark.catalog import (
    coverage,
    entropy,
    gini,
)
from rankframe.faces.spark.columns import EXACT_LOG2_POSITIONS, IntoColumn
from rankframe.faces.spark.correlation import (
    kendall_distance,
    kendall_tau,
    rbo,
    spearman_rho,
)
from rankframe.faces.spark.counts import (
    f1,
    hit_rate,
    num_rel,
    num_rel_ret,
    num_ret,
    precision,
    recall,
)
from rankframe.faces.spark.diversity import (
    ild_category,
    ild_features,
    ild_pairs,
    serendipity,
)
from rankframe.faces.spark.face import (
    FACE,
    SUPPORTED_METRICS,
    UNSUPPORTED,
    UNSUPPORTED_FAMILIES,
    SparkFace,
    column,
    evaluate,
)
from rankframe.faces.spark.fairness import (
    awrf,
)
from rankframe.faces.spark.gains import (
    cg,
    dcg,
    idcg,
    ndcg,
    ndcg_p,
    ndcg_rel,
    rndcg,
)
from rankframe.faces.spark.judge import judge, unjudged_run_queries
from rankframe.faces.spark.popularity_bias import (
    novelty,
    popularity,
    tail_share,
)
from rankframe.faces.spark.ranked import (
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
from rankframe.faces.spark.tied import (
    average_precision_ties,
    dcg_ties,
    ndcg_ties,
    precision_ties,
    recall_ties,
    reciprocal_rank_ties,
)
from rankframe.faces.spark.trec import (
    bin_g,
    g,
    num_nonrel_judged_ret,
    relative_precision,
    set_map,
    unjudged,
    utility,
)
from rankframe.faces.spark.user import (
    err,
    judged,
    rbp,
    rbp_residual,
)

__all__ = [
    *SUPPORTED_METRICS,  # the builders, imported above
    "SUPPORTED_METRICS",
    "UNSUPPORTED",
    "UNSUPPORTED_FAMILIES",
    "evaluate",
    "judge",
    "unjudged_run_queries",
]

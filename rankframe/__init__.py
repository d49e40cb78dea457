"""rankframe: ranking metrics where the data lives, as Polars expressions and DuckDB macros.

Every metric in :mod:`rankframe.metrics` is re-exported here (``rf.ndcg``, ``rf.precision``
...); the DuckDB face is loaded with :func:`rankframe.duckdb.register`. Comparing systems:
``rf.evaluate_runs`` (several runs -> one per-query table with a ``system`` column) and
``rf.compare`` (paired tests against a baseline; needs the extra ``stats``, imported only
when called).
"""

from rankframe import metrics as _metrics
from rankframe.analysis.compare import adjust_pvalues, compare
from rankframe.analysis.runs import evaluate_runs, read_runs
from rankframe.errors import EngineError, InputError, InputWarning, MeasureError, RankframeError
from rankframe.evaluate import evaluate, evaluate_run, summarize
from rankframe.groups import average_groups, evaluate_groups, judge_groups
from rankframe.io import read_qrels, read_qrels_jg, read_run, read_zscores
from rankframe.metrics import *  # noqa: F403  (the metric builders are the public API)
from rankframe.table.checks import check_judged
from rankframe.table.judge import judge, unjudged_run_queries

__version__ = "0.1.0"

__all__ = [
    "EngineError",
    "InputError",
    "InputWarning",
    "MeasureError",
    "RankframeError",
    "__version__",
    "adjust_pvalues",
    "average_groups",
    "check_judged",
    "compare",
    "evaluate",
    "evaluate_groups",
    "evaluate_run",
    "evaluate_runs",
    "judge",
    "judge_groups",
    "read_qrels",
    "read_qrels_jg",
    "read_run",
    "read_runs",
    "read_zscores",
    "summarize",
    "unjudged_run_queries",
    *_metrics.__all__,
]

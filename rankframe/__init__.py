"""rankframe: ranking metrics where the data lives, as Polars expressions and DuckDB macros.

Every metric in :mod:`rankframe.metrics` is re-exported here (``rf.ndcg``, ``rf.precision``
...); the DuckDB face is loaded with :func:`rankframe.duckdb.register`.
"""

from rankframe import metrics as _metrics
from rankframe.errors import InputError, MeasureError, RankframeError
from rankframe.metrics import *  # noqa: F403  (the metric builders are the public API)

__version__ = "0.1.0"

__all__ = [
    "InputError",
    "MeasureError",
    "RankframeError",
    "__version__",
    *_metrics.__all__,
]

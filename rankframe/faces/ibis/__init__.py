"""The Ibis faces: every metric as Ibis expressions over an Ibis table of the judged long
table, run where the table lives (DuckDB, Polars, SQLite, DataFusion, PostgreSQL, and any
SQL dialect Ibis compiles to).

One module serves several registered faces, one per Ibis backend (``ibis-duckdb``,
``ibis-polars``, ``ibis-sqlite``, ``ibis-datafusion``, ``ibis-postgres``): :data:`FACES`
maps each backend to its :class:`IbisFace`.

How a measure is computed (:mod:`~rankframe.faces.ibis.plan`). Each metric is built from
row-level columns (window functions partitioned by the query key: running counts ordered
by rank, per-query totals, row numbers of the ideal ordering), then one grouped aggregate
per query, then a scalar expression over the aggregates. Several measures share one
``mutate`` chain and one ``group_by().aggregate()``; nothing runs in Python (no UDF), so
the whole evaluation is one SQL statement on the SQL backends. The running
product of ERR and of the tie-aware reciprocal rank is carried as a running sum of
logarithms (every factor is > 0).

Kendall's statistics count pairs of rows: the kept rows of each query are joined to
themselves (each unordered pair once) and the pair counts joined back to the aggregates.

What an engine cannot express is data: :attr:`IbisFace.unsupported` (metric -> reason), from
:mod:`rankframe.faces.ibis_gaps` (which imports without Ibis).
The Ibis Polars backend compiles no window function (Ibis 12), so the metrics that need
one are unsupported there; its ``judge`` ranks with an equality self-join instead.
RBO sums over every depth 1..l of a ranking: a generated series per query (an unnested
integer range) joined to the overlap counts and summed with a running window. SQLite has
no array to unnest and the Polars backend no window, so RBO is unsupported there.

The package mirrors the Polars face: one module per metric family (``counts``, ``ranked``,
``gains``, ``tied``, ``trec``, ``user``, ``correlation``), the shared pieces in ``columns``
and ``plan``, the judge in ``judge``, the face objects in ``face``. Ibis is the optional
extra ``rankframe[ibis]``; :mod:`rankframe.ibis` is the public entry point (``evaluate``,
``judge``, ``to_sql``).
"""

from __future__ import annotations

try:
    import ibis  # noqa: F401  (the optional dependency, checked first)
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "rankframe.ibis needs Ibis; install the optional extra: pip install 'rankframe[ibis]'"
    ) from exc

from rankframe.faces.ibis.face import FACES, POSTGRES_URL_ENV, IbisFace, evaluate_table
from rankframe.faces.ibis.judge import CASE_EXACT, backend_of, case_distinct
from rankframe.faces.ibis_gaps import (
    BACKENDS,
    NOT_EXPRESSED,
    POSITIONAL,
    SERIES,
    UNSUPPORTED_FAMILIES,
    WINDOWED,
    unsupported_metrics,
)

__all__ = ["BACKENDS", "CASE_EXACT", "FACES", "NOT_EXPRESSED", "POSITIONAL", "POSTGRES_URL_ENV",
           "SERIES", "UNSUPPORTED_FAMILIES", "WINDOWED", "IbisFace", "backend_of",
           "case_distinct", "evaluate_table", "unsupported_metrics"]

"""Public entry point of the DuckDB face (``import rankframe.duckdb``); the face itself is
:mod:`rankframe.faces.duckdb`."""

from rankframe.faces.duckdb import (
    default_sql_dir,
    evaluate_prefs,
    register,
    register_helpers,
    register_metric,
    sql_files,
    sql_text,
)

__all__ = [
    "default_sql_dir",
    "evaluate_prefs",
    "register",
    "register_helpers",
    "register_metric",
    "sql_files",
    "sql_text",
]

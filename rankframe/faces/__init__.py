"""The faces of the metrics: one module per backend (Polars, DuckDB, Spark, the oracle)."""

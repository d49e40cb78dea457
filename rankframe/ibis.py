"""Public entry point of the Ibis faces (``import rankframe.ibis as rfi``): evaluate measure
strings over an Ibis table where it lives (DuckDB, PostgreSQL, BigQuery, Snowflake, ...),
judge a run against qrels there, or get the SQL to paste into a warehouse.

    import ibis, rankframe.ibis as rfi
    con = ibis.postgres.connect(...)
    per_query = rfi.evaluate(con.table("judged"), ["ndcg@10", "mrr", "P@10"])  # an Ibis table
    print(rfi.to_sql(["ndcg@10", "mrr", "P@10"], dialect="bigquery"))

Everything is Ibis expressions (window functions and grouped aggregates, no Python UDF), so
the work runs in the engine; nothing executes until the result is. The faces themselves are
:mod:`rankframe.faces.ibis` (registered as ``ibis-duckdb``, ``ibis-postgres``, ...).
Ibis is the optional extra ``rankframe[ibis]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any, Final

from rankframe.docsections import described_by
from rankframe.errors import InputError, RankframeError
from rankframe.faces.base import JudgeOptions, Ties, parse_for
from rankframe.faces.ibis import (
    BACKENDS,
    FACES,
    POSTGRES_URL_ENV,
    IbisFace,
    backend_of,
    case_distinct,
    evaluate_table,
    unsupported_metrics,
)
from rankframe.measures import Measure

__all__ = ["BACKENDS", "FACES", "POSTGRES_URL_ENV", "evaluate", "evaluate_run", "judge",
           "to_sql", "unsupported_metrics"]

#: Ibis compilers that compile only inside a live backend (PySpark's reads its session's
#: options): not dialects for to_sql.
_SESSION_DIALECTS = {"pyspark": "for Spark SQL use dialect='databricks'; for PySpark "
                                "DataFrames, rankframe.spark"}

#: The columns a metric may read beyond the query key, with the type ``to_sql`` assumes.
_COLUMN_TYPES = {"rel": "float64", "rank": "int64", "tie_first": "int64", "tie_size": "int64",
                 "x": "float64", "y": "float64", "rank_a": "int64", "rank_b": "int64"}


#: The parameters these functions share, described once (the docstrings are completed from
#: it: :func:`rankframe.docsections.described_by`).
SHARED_PARAMETERS: Final[Mapping[tuple[str, ...], str]] = {
    ("measures",): 'Measure strings (``"ndcg@10"``, ``"map"``, ``"P_10"`` ...), as for '
                   ":func:`rankframe.evaluate`; each becomes a column so named.",
    ("query",): 'Query column name(s); default ``"qid"``.',
    ("rel", "rank"): 'Names of the grade and rank columns (``"rel"``, ``"rank"``).',
    ("threshold",): "Relevance level: rel >= threshold is relevant (trec_eval ``-l``); "
                    "default 1.",
    ("columns",): "Other metric columns (``tie_first``, ``tie_size``, ``x``, ``y``, "
                  "``rank_a``, ``rank_b``) mapped to the table's names, where they differ.",
    ("run", "qrels"): "Ibis tables of one backend: the run (query, doc, score) and the qrels "
                      "(query, doc, rel).",
    ("query", "doc", "score", "rel"): "Column names (``qid``, ``docid``, ``score``, ``rel``).",
    ("depth",): "Keep the top ``depth`` ranks of each query (trec_eval ``-M``); None: all.",
}


def _measures(measures: str | Sequence[str], keys: Sequence[str], threshold: float,
              backend: str | None) -> list[Measure]:
    """The measures parsed for the Ibis face of ``backend``; for another engine (None), for
    what every Ibis face with window functions computes (the DuckDB face's set)."""
    face = FACES.get(backend or "duckdb", FACES["duckdb"])
    return parse_for(face, measures, keys, threshold)


def _columns(rel: str, rank: str, extra: Mapping[str, str] | None) -> dict[str, str]:
    return {c: c for c in _COLUMN_TYPES} | {"rel": rel, "rank": rank} | dict(extra or {})


@described_by(SHARED_PARAMETERS)
def evaluate(table: Any, measures: str | Sequence[str], *, query: str | Sequence[str] = "qid",
             rel: str = "rel", rank: str = "rank", threshold: float = 1,
             columns: Mapping[str, str] | None = None) -> Any:
    """Per-query values of measure strings (``"ndcg@10"``, ``"map"``, ``"P_10"`` ...) over a
    judged Ibis table, as an unexecuted Ibis table: one row per query (sorted by the query
    columns, NULL first), one column per measure named as written (float64; int64 for the
    ``num_*`` counts). ``columns`` maps other metric columns (``tie_first``, ``x`` ...) to
    the table's names. The table is trusted: check it first if it may be malformed
    (docs/semantics.md, "Input checks"); but two columns whose names differ only in case
    are an :class:`~rankframe.errors.InputError` on a backend that may match names without
    regard to case (every one but PostgreSQL, DataFusion and Polars; an unbound table runs
    on DuckDB), as they are for :func:`to_sql`'s dialect.

    Parameters
    ----------
    table
        The judged long table, an Ibis table (columns query, rank, rel).

    Examples
    --------
    >>> import ibis, rankframe.ibis as rfi
    >>> t = ibis.memtable({"qid": ["a", "a", "b"], "rank": [1, 2, 1], "rel": [0.0, 1.0, 1.0]})
    >>> rfi.evaluate(t, ["P@1", "mrr"]).to_polars().rows()
    [('a', 0.0, 0.5), ('b', 1.0, 1.0)]
    """
    keys = [query] if isinstance(query, str) else list(query)
    found = backend_of(table)
    backend = getattr(found, "name", None)
    case_distinct("evaluate", "judged table", table.columns, backend)
    parsed = _measures(measures, keys, threshold, backend)
    names = _columns(rel, rank, columns)
    read = dict.fromkeys([*keys, *(names[c] for m in parsed for c in m.metric.columns)])
    missing = [name for name in read if name not in table.columns]
    if missing:
        raise InputError(f"evaluate: missing column(s) {', '.join(map(repr, missing))}; the "
                         f"table has: {', '.join(map(repr, table.columns))}")
    return evaluate_table(table, parsed, keys, names, backend)


@described_by(SHARED_PARAMETERS)
def judge(run: Any, qrels: Any, *, query: str = "qid", doc: str = "docid",
          score: str = "score", rel: str = "rel", depth: int | None = None,
          ties: Ties = "docid", judged_only: bool = False) -> Any:
    """The judged long table of a run against qrels (Ibis tables of one backend), unexecuted:
    rank by score descending, ties by the doc id's text descending byte by byte (trec_eval),
    a full outer join on (query, doc), the top ``depth`` ranks, and ``tie_first`` /
    ``tie_size`` with ``ties="average"``. The inputs are checked at once in their backend
    (missing or mistyped columns, NULL or NaN values, a repeated (query, doc) pair:
    :class:`~rankframe.errors.InputError` naming the query and document).

    Parameters
    ----------
    ties
        ``"docid"`` (default): trec_eval's tie-break; ``"average"``: also the ``tie_first``
        and ``tie_size`` columns of the tie-aware metrics.
    judged_only
        trec_eval ``-J``: after the depth cut, only the documents graded >= 0 keep a rank,
        1, 2, ... in the same order (as :func:`rankframe.judge`).
    """
    found = backend_of(run) or backend_of(qrels)
    name = getattr(found, "name", "duckdb")
    face = FACES.get(name, FACES["duckdb"])
    assert isinstance(face, IbisFace)
    options = JudgeOptions(query=query, doc=doc, score=score, rel=rel, depth=depth, ties=ties,
                           judged_only=judged_only)
    return face.judge(run, qrels, options)


@described_by(SHARED_PARAMETERS)
def evaluate_run(run: Any, qrels: Any, measures: str | Sequence[str], *, query: str = "qid",
                 doc: str = "docid", score: str = "score", rel: str = "rel",
                 depth: int | None = None, threshold: float = 1) -> Any:
    """Per-query values of ``measures`` for a run against its qrels (Ibis tables of one
    backend), unexecuted: ``evaluate(judge(run, qrels, depth=depth), measures)``, one plan
    that the engine runs as a whole.

    Examples
    --------
    >>> import ibis, rankframe.ibis as rfi
    >>> run = ibis.memtable({"qid": ["a", "a"], "docid": ["x", "y"], "score": [2.0, 1.0]})
    >>> qrels = ibis.memtable({"qid": ["a"], "docid": ["y"], "rel": [1]})
    >>> rfi.evaluate_run(run, qrels, ["P@1", "mrr"]).to_polars().rows()
    [('a', 0.0, 0.5)]
    """
    judged = judge(run, qrels, query=query, doc=doc, score=score, rel=rel, depth=depth)
    return evaluate(judged, measures, query=query, rel=rel, threshold=threshold)


@described_by(SHARED_PARAMETERS)
def to_sql(measures: str | Sequence[str], *, dialect: str, table: str = "judged",
           query: str | Sequence[str] = "qid", rel: str = "rel", rank: str = "rank",
           threshold: float = 1, schema: Mapping[str, str] | None = None,
           columns: Mapping[str, str] | None = None) -> str:
    """The SQL that computes ``measures`` per query over the judged table ``table``, in
    ``dialect`` (any SQL dialect Ibis compiles to: ``"bigquery"``, ``"snowflake"``,
    ``"trino"``, ``"clickhouse"``, ``"postgres"``, ``"duckdb"``, ``"sqlite"`` ...).

    ``schema`` gives column types (Ibis type names) where the defaults do not fit: query
    columns ``string``, ``rel`` ``float64``, ``rank`` ``int64``.

    Parameters
    ----------
    dialect
        The SQL dialect (``"bigquery"``, ``"snowflake"``, ``"postgres"`` ...).
    table
        Name of the judged table in that database; default ``"judged"``.
    schema
        Column name -> Ibis type name, where the defaults (query ``string``, rel
        ``float64``, rank ``int64``) do not fit.

    Examples
    --------
    >>> sql = to_sql(["ndcg@10", "mrr"], dialect="postgres")
    >>> sql.startswith("WITH") or sql.startswith("SELECT")
    True
    """
    import ibis

    backend = _dialect(dialect)
    keys = [query] if isinstance(query, str) else list(query)
    parsed = _measures(measures, keys, threshold,
                       backend if backend in BACKENDS and backend != "polars" else None)
    names = _columns(rel, rank, columns)
    types = {k: "string" for k in keys}
    for m in parsed:
        for c in m.metric.columns:
            types[names[c]] = _COLUMN_TYPES[c]
    types |= dict(schema or {})
    case_distinct("to_sql", f"table {table!r}", types, backend)
    source = ibis.table(types, name=table)
    expr = evaluate_table(source, parsed, keys, names,
                          backend if backend in BACKENDS else None)
    sql: str = ibis.to_sql(expr, dialect=backend)
    return sql


def _dialect(dialect: str) -> str:
    """``dialect`` as Ibis names its compiler (lower case), or a RankframeError listing the
    dialects."""
    import ibis.backends.sql.compilers as compilers

    known = sorted(name for name, module in vars(compilers).items()
                   if isinstance(module, ModuleType) and getattr(module, "compiler", None)
                   and name not in _SESSION_DIALECTS)
    name = dialect.lower() if isinstance(dialect, str) else dialect
    if name in known:
        return str(name)
    why = (f"Ibis compiles {name!r} only in a live session ({_SESSION_DIALECTS[name]})"
           if name in _SESSION_DIALECTS else f"unknown SQL dialect {dialect!r}")
    raise RankframeError(f"to_sql: {why}; dialects: {', '.join(known)}")

"""The ``rankframe sql`` subcommand: SQL to run without Python.

``rankframe sql`` prints every DuckDB macro (``rf_*``) as one script, to load with
``duckdb my.db -init rankframe.sql`` or ``.read`` (``--persistent``: stored in the database
file, for tools that reopen it); ``rankframe sql --dialect bigquery -m
ndcg@10 -m map`` prints the query that computes those measures per query over a judged
table, in any dialect Ibis compiles to (needs the extra ``rankframe[ibis]``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rankframe.errors import RankframeError

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``sql`` subcommand; its ``handler`` default is :func:`run`."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "sql",
        help="print SQL: the DuckDB macros, or a warehouse query for some measures",
        description="Without --dialect: print every rf_* DuckDB macro as one script "
        "(duckdb my.db -init rankframe.sql). With --dialect: print the query computing the "
        "-m measures per query over a judged table (columns qid, rank, rel), in that SQL "
        "dialect (bigquery, snowflake, trino, clickhouse, postgres, duckdb, ...).",
    )
    parser.add_argument("--dialect", metavar="NAME",
                        help="SQL dialect of the query (needs rankframe[ibis])")
    parser.add_argument("--persistent", action="store_true",
                        help="without --dialect: CREATE OR REPLACE MACRO (stored in the "
                        "database file the script runs in) instead of TEMP macros")
    parser.add_argument("-m", "--measure", action="append", dest="measures",
                        metavar="MEASURE", help="measure string (ndcg@10, map, P_10, ...); "
                        "repeatable; with --dialect")
    parser.add_argument("--table", default="judged", help="the judged table (default judged)")
    parser.add_argument("--query", default="qid", help="the query column (default qid)")
    parser.add_argument("-l", type=float, default=1, metavar="N",
                        help="relevance level: rel >= N is relevant (default 1)")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Print the macro script, or the query for ``--dialect``; return 0."""
    if args.dialect is None:
        if args.measures:
            raise RankframeError("sql: -m needs --dialect (without it, every macro is printed)")
        from rankframe.faces.duckdb import sql_text  # only this subcommand reads the macros

        sys.stdout.write(sql_text(persistent=args.persistent))
        return 0
    if args.persistent:
        raise RankframeError("sql: --persistent is for the macros (without --dialect)")
    if not args.measures:
        raise RankframeError("sql --dialect: name the measures with -m (e.g. -m ndcg@10)")
    from rankframe.cli.measure_option import check_measure_option

    for spec in args.measures:
        check_measure_option(spec)
    try:
        from rankframe.ibis import to_sql
    except ImportError as exc:
        raise RankframeError(f"sql --dialect needs Ibis: pip install 'rankframe[ibis]' ({exc})"
                             ) from exc
    try:
        query = to_sql(args.measures, dialect=args.dialect, table=args.table, query=args.query,
                       threshold=args.l)
    except (ValueError, TypeError) as exc:  # RankframeError included: named as an option
        message = str(exc).removeprefix("to_sql: ")
        raise RankframeError(f"sql --dialect {args.dialect}: {message}") from None
    sys.stdout.write(query.rstrip() + ";\n")
    return 0

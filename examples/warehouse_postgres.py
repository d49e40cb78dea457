"""Evaluate where the data lives: per-system nDCG@10, MRR and P@10 computed inside
PostgreSQL, over a table of logged results, with the same numbers from Polars beside them.

The logged results (system, qid, docid, score) and the relevance judgements (qid, docid,
rel) are tables in PostgreSQL; ``rankframe.ibis`` judges and evaluates them there as Ibis
expressions, one SQL statement per step (nothing is pulled into Python but the summary).

    python examples/warehouse_postgres.py                       # a throwaway local server
    python examples/warehouse_postgres.py postgres://user@host/db   # your server

Without a URL (or ``RANKFRAME_POSTGRES_URL``) the script starts a temporary server with
``initdb`` and ``pg_ctl`` in a temporary directory, on a Unix socket only, and removes it
at the end (as root it runs the server as the ``postgres`` user): the test suite's launcher,
``tests/support/postgres.py``, so that needs a checkout of the repository. Needs the extra
``rankframe[ibis]`` and, for the local server, PostgreSQL's server programs.
"""

from __future__ import annotations

import os
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import ibis
import polars as pl

import rankframe as rf
import rankframe.ibis as rfi

DATA = Path(__file__).resolve().parent / "data"
REPO = DATA.parent.parent
SYSTEMS = ("bm25", "dense", "hybrid")
MEASURES = ["ndcg@10", "mrr", "P@10"]


def logged_results() -> tuple[pl.DataFrame, pl.DataFrame]:
    """The example runs as one table of logged results, and the qrels."""
    runs = pl.concat([
        rf.read_run(DATA / f"run.{system}.txt").select(
            pl.lit(system).alias("system"), "qid", "docid", "score")
        for system in SYSTEMS
    ])
    return runs, rf.read_qrels(DATA / "qrels.txt")


def in_postgres(con: Any, runs: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    """Per-system means of MEASURES computed by PostgreSQL."""
    con.create_table("logged_results", runs.to_arrow(), overwrite=True)
    con.create_table("qrels", qrels.to_arrow(), overwrite=True)
    logs, judgements = con.table("logged_results"), con.table("qrels")
    judged = ibis.union(*[
        rfi.judge(logs.filter(logs.system == system), judgements)
        .mutate(system=ibis.literal(system))
        for system in SYSTEMS
    ])
    per_query = rfi.evaluate(judged, MEASURES, query=["system", "qid"])
    summary = per_query.group_by("system").aggregate(
        **{m: per_query[m].mean() for m in MEASURES}).order_by("system")
    result: pl.DataFrame = con.to_polars(summary)
    return result


def in_polars(runs: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    """The same summary from rankframe's Polars face."""
    rows = []
    for system in SYSTEMS:
        per_query = rf.evaluate_run(runs.filter(pl.col("system") == system), qrels, MEASURES)
        rows.append(rf.summarize(per_query, MEASURES).with_columns(system=pl.lit(system)))
    return pl.concat(rows).select("system", *MEASURES).sort("system")


def main(url: str | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Print both summaries side by side; return (PostgreSQL's, Polars')."""
    runs, qrels = logged_results()
    url = url or os.environ.get(rfi.POSTGRES_URL_ENV)
    with ExitStack() as stack:
        if url:
            con = ibis.connect(url)
            stack.callback(con.disconnect)
        else:  # the test suite's throwaway server (tests/ of this checkout)
            sys.path.insert(0, str(REPO))
            from tests.support.postgres import temporary_postgres

            con = stack.enter_context(temporary_postgres()).connection
        warehouse = in_postgres(con, runs, qrels)
    local = in_polars(runs, qrels)
    print(f"{'system':<8}" + "".join(f"{m + ' (pg)':>14}{m + ' (polars)':>18}" for m in MEASURES))
    for pg_row, pl_row in zip(warehouse.iter_rows(named=True), local.iter_rows(named=True),
                              strict=True):
        print(f"{pg_row['system']:<8}"
              + "".join(f"{pg_row[m]:>14.4f}{pl_row[m]:>18.4f}" for m in MEASURES))
    return warehouse, local


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)

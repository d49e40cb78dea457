"""Evaluate the example run with rankframe's Polars face and print the mean of each measure.

    python examples/evaluate_polars.py [RUN]

Prints the same numbers as examples/evaluate.sql (DuckDB macros) and as
`rankframe eval -c -m ndcg_cut.10 -m map -m recip_rank -m P.10 -m recall.100 ...`: all
average over the 40 qrels queries. Without -c, trec_eval and `rankframe eval` average over
the 38 queries the run answered and has qrels for, so their means are higher.
"""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl

import rankframe as rf

DATA = Path(__file__).resolve().parent / "data"


def main(run_path: Path = DATA / "run.bm25.txt") -> pl.DataFrame:
    run = rf.read_run(run_path)
    qrels = rf.read_qrels(DATA / "qrels.txt")
    judged = rf.judge(run, qrels)
    # Metrics are plain expressions: one value per query inside group_by().agg().
    per_query = judged.group_by("qid").agg(
        rf.ndcg("rel", 10),
        rf.average_precision("rel"),
        rf.reciprocal_rank("rel"),
        rf.precision("rel", 10),
        rf.recall("rel", 100),
    )
    summary = per_query.drop("qid").mean()
    with pl.Config(float_precision=4, tbl_hide_dataframe_shape=True):
        print(f"{per_query.height} queries (qrels queries without results score 0)")
        print(summary)
    return summary


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA / "run.bm25.txt")

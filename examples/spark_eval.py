# %% [markdown]
# # Evaluating a run with Spark
#
# Read a run and its qrels from parquet, join them into the judged long table with
# `rankframe.spark.judge`, compute per-query metrics in one `groupBy("qid").agg(...)`
# and print their means: nDCG@10, MAP and P@10.
#
#     python examples/spark_eval.py RUN.parquet QRELS.parquet
#
# The run needs columns qid, docid, score; the qrels qid, docid, rel. Without arguments
# the script writes a small synthetic run and qrels (seeded) to a temporary folder and
# evaluates those. Needs the extra `spark` and a Java runtime.

# %%
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
import polars as pl
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import rankframe.spark as rfs


def synthetic_parquet(folder: Path, n_queries: int = 200, depth: int = 100,
                      seed: int = 11) -> tuple[Path, Path]:
    """A run (``depth`` scored documents per query) and graded qrels (0-3) in parquet.

    A third of each query's judged documents are not in the run, and a few run queries
    have no qrels at all (they are dropped by ``judge`` and counted below).
    """
    rng = np.random.default_rng(seed)
    pool = int(depth * 1.5)
    qid = np.repeat([f"q{q}" for q in range(n_queries)], pool)
    docid = np.tile([f"d{d}" for d in range(pool)], n_queries)
    grade = rng.choice(4, size=qid.size, p=[0.6, 0.2, 0.12, 0.08])
    judged = rng.random(qid.size) < 0.5
    score = np.round(grade * 0.8 + rng.normal(0.0, 1.0, qid.size), 2)  # rounded: ties happen
    in_run = np.tile(np.arange(pool) < depth, n_queries)
    rng.shuffle(in_run.reshape(n_queries, pool).T)  # per query, a random subset of the pool
    unjudged_query = np.isin(qid, [f"q{q}" for q in range(0, n_queries, 40)])
    run = pl.DataFrame({"qid": qid[in_run], "docid": docid[in_run], "score": score[in_run]})
    keep = judged & ~unjudged_query
    qrels = pl.DataFrame({"qid": qid[keep], "docid": docid[keep],
                          "rel": grade[keep].astype(np.int32)})
    run_path, qrels_path = folder / "run.parquet", folder / "qrels.parquet"
    run.write_parquet(run_path)
    qrels.write_parquet(qrels_path)
    return run_path, qrels_path


# %%
def main(argv: list[str]) -> None:
    if len(argv) == 2:
        run_path, qrels_path = Path(argv[0]), Path(argv[1])
    elif not argv:
        run_path, qrels_path = synthetic_parquet(Path(tempfile.mkdtemp(prefix="rankframe-spark-")))
        print(f"no run given: evaluating the synthetic {run_path} and {qrels_path}")
    else:
        raise SystemExit("usage: python examples/spark_eval.py [RUN.parquet QRELS.parquet]")

    spark = (
        SparkSession.builder.master("local[*]")
        .appName("rankframe-spark-eval")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        run = spark.read.parquet(str(run_path))
        qrels = spark.read.parquet(str(qrels_path))
        judged = rfs.judge(run, qrels)
        per_query = judged.groupBy("qid").agg(
            rfs.ndcg("rel", k=10),
            rfs.average_precision("rel"),
            rfs.precision("rel", k=10),
        )
        means = per_query.agg(
            F.count("*").alias("queries"),
            F.mean("`ndcg@10`").alias("ndcg@10"),
            F.mean("map").alias("map"),
            F.mean("`P@10`").alias("P@10"),
        ).first()
        dropped = rfs.unjudged_run_queries(run, qrels).count()
    finally:
        spark.stop()

    assert means is not None
    print(f"queries evaluated: {means['queries']} (run queries without qrels, left out: {dropped})")
    for name in ("ndcg@10", "map", "P@10"):
        print(f"{name:<10}{means[name]:.4f}")


if __name__ == "__main__":
    main(sys.argv[1:])

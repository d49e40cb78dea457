"""Could the Spark face be built from the Ibis plan, through Ibis's PySpark backend?

    python benchmarks/spark_via_ibis.py [--users 2000] [--repeat 3]

One local Spark session; one generated table of recommendations (``--users`` users, top 20,
grades and item attributes, as ``benchmarks/beyond.py`` makes them, with ``qid``); a set of
measures the Ibis plan expresses (accuracy and beyond accuracy), computed (a) by the
hand-written Spark face (``rankframe.faces.spark``) and (b) by the Ibis plan
(``rankframe.faces.ibis.face.evaluate_table``) compiled for the PySpark backend. Printed:
whether (b) runs, the largest difference from (a) per measure, and the seconds of each
(best of ``--repeat``, the table cached in Spark first). Quote the load beside them.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# This folder after the standard library: its profile.py would hide the one PySpark imports.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE] + [str(HERE)]

MEASURES = ["ndcg@10", "map", "P@10", "recall@20", "mrr", "coverage(catalog=100000)@10",
            "novelty(total=100000000)@10", "popularity@10", "ild_category@10",
            "gini(catalog=100000)@10"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import importlib

    import ibis
    import polars as pl
    from pyspark.sql import SparkSession

    from rankframe.faces import spark as spark_face
    from rankframe.faces.ibis.face import evaluate_table
    from rankframe.measures import parse_all

    # Imported after PySpark: beyond.py puts this folder first on sys.path again.
    table = importlib.import_module("beyond").table
    print(f"load before: {os.getloadavg()[0]:.2f}")
    data = (table(args.users).filter(pl.col("rank") <= 20)
            .select(pl.col("user").cast(pl.String).alias("qid"), pl.col("rank").cast(pl.Int64),
                    pl.col("rel").cast(pl.Float64), pl.col("item").cast(pl.Int64),
                    pl.col("pop").cast(pl.Int64), pl.col("category").cast(pl.Int64)))
    spark = (SparkSession.builder.master("local[2]")
             .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    frame = spark.createDataFrame(data.to_pandas()).cache()
    frame.count()
    measures = parse_all(MEASURES)
    columns = {c: c for c in ("rel", "rank", "item", "pop", "category")}

    def hand() -> pl.DataFrame:
        return spark_face.FACE.to_polars(spark_face.FACE.evaluate(frame, measures, ["qid"],
                                                                  columns))

    con = ibis.pyspark.connect(spark)
    frame.createOrReplaceTempView("recs")

    def via_ibis() -> pl.DataFrame:
        expr = evaluate_table(con.table("recs"), measures, ["qid"], columns, "pyspark")
        return pl.from_arrow(con.to_pyarrow(expr))  # type: ignore[return-value]

    def best(run: object) -> tuple[float, pl.DataFrame]:
        times, out = [], None
        for _ in range(args.repeat):
            start = time.perf_counter()
            out = run()  # type: ignore[operator]
            times.append(time.perf_counter() - start)
        assert out is not None
        return min(times), out

    seconds_hand, want = best(hand)
    print(f"{data.height:,} rows, {args.users:,} queries")
    print(f"hand-written Spark face: {seconds_hand:.2f} s")
    try:
        seconds_ibis, got = best(via_ibis)
    except Exception as exc:
        print(f"Ibis plan on PySpark: fails: {type(exc).__name__}: {str(exc)[:400]}")
        spark.stop()
        return
    print(f"Ibis plan on PySpark:    {seconds_ibis:.2f} s ({seconds_ibis / seconds_hand:.2f}x)")
    joined = want.join(got, on="qid", suffix="_ibis")
    for m in measures:
        diff = joined.select((pl.col(m.label) - pl.col(f"{m.label}_ibis")).abs().max()).item()
        nulls = joined.select(pl.col(m.label).is_null().ne(
            pl.col(f"{m.label}_ibis").is_null()).sum()).item()
        print(f"  {m.label:32s} max |diff| {diff!s:>10}  NULL on one side {nulls}")
    print(f"load after: {os.getloadavg()[0]:.2f}")
    spark.stop()


if __name__ == "__main__":
    main()

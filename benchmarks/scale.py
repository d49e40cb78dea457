"""Time and peak memory per million rows, with bounded-memory recipes.

    python benchmarks/scale.py --rows 1M,7M [--memory-limit 2GB]
    python benchmarks/scale.py --rows 100M --engines duckdb_sql,duckdb_judge_write,polars_judged

For each size, in a fresh process each (peak RSS from os.wait4):
  duckdb_sql          read_parquet → rank (window) → full join → 5 rf_* macros, all in
                      DuckDB, with ``SET memory_limit`` and a temp directory to spill to;
  polars_stream       scan_parquet → rf.judge(LazyFrame) → rf.evaluate (collects with
                      ``engine="streaming"``); the table to beat is the judged table's size;
  duckdb_judge_write  the same DuckDB judge step (same limits), written once with COPY to
                      <data>/judged.parquet (qid, docid, rank, rel, score), for the next one;
  polars_judged       pl.scan_parquet(judged.parquet).group_by("qid").agg(5 rf.* exprs)
                      .collect(engine="streaming"); ``--chunk-size`` sets
                      pl.Config.set_streaming_chunk_size, ``--polars-threads`` POLARS_MAX_THREADS.
                      (The group-by with these aggregations runs as Polars' in-memory fallback
                      inside the streaming engine, so its peak grows with the table.)
  duckdb_judge_buckets  the DuckDB judge step written once as hive-partitioned parquet,
                      <data>/judged_buckets/bucket=<hash(qid) % --buckets>/...
  polars_buckets      the polars_judged query once per bucket directory, results concatenated:
                      each query's rows are in one bucket, so peak memory is about 1/buckets.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import spawn  # noqa: E402

ENGINES = (
    "duckdb_sql",
    "polars_stream",
    "duckdb_judge_write",
    "polars_judged",
    "duckdb_judge_buckets",
    "polars_buckets",
)


def polars_measures(source: object):  # type: ignore[no-untyped-def]
    import polars as pl

    import rankframe as rf

    return (
        pl.scan_parquet(source)
        .group_by("qid")
        .agg(
            rf.ndcg("rel", 10).alias("ndcg@10"),
            rf.average_precision("rel").alias("map"),
            rf.reciprocal_rank("rel").alias("mrr"),
            rf.precision("rel", 10).alias("P@10"),
            rf.recall("rel", 100).alias("recall@100"),
        )
        .collect(engine="streaming")
    )


def child(kind: str, data: Path, limit: str, tmp: str, chunk_size: int, buckets: int) -> None:
    sys.path.insert(0, str(HERE.parent))
    import tasks

    t0 = time.perf_counter()
    if kind in ("duckdb_sql", "duckdb_judge_write", "duckdb_judge_buckets"):
        import duckdb

        import rankframe.duckdb as rfdb

        con = rfdb.register(duckdb.connect())
        con.execute(f"SET memory_limit='{limit}'")
        con.execute(f"SET temp_directory='{tmp}'")
        con.execute("SET preserve_insertion_order=false")
        sql = tasks.SQL_JUDGE.format(run=data / "run.parquet", qrels=data / "qrels.parquet")
        if kind == "duckdb_judge_write":
            n = con.execute(
                f"COPY ({sql}) TO '{data / 'judged.parquet'}' (FORMAT parquet, COMPRESSION zstd)"
            ).fetchone()
            print(
                json.dumps(
                    {"seconds": time.perf_counter() - t0, "rows_written": n[0] if n else None}
                )
            )
            return
        if kind == "duckdb_judge_buckets":
            out_dir = data / "judged_buckets"
            n = con.execute(
                f"COPY (SELECT *, hash(qid) % {buckets} AS bucket FROM ({sql})) TO '{out_dir}'"
                " (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (bucket), OVERWRITE_OR_IGNORE)"
            ).fetchone()
            print(
                json.dumps(
                    {"seconds": time.perf_counter() - t0, "rows_written": n[0] if n else None}
                )
            )
            return
        out = con.sql(f"SELECT qid, {tasks.SQL_MEASURES} FROM ({sql}) GROUP BY qid").pl()
    elif kind in ("polars_judged", "polars_buckets"):
        import polars as pl

        if chunk_size:
            pl.Config.set_streaming_chunk_size(chunk_size)
        if kind == "polars_judged":
            out = polars_measures(data / "judged.parquet")
        else:
            parts = sorted((data / "judged_buckets").glob("bucket=*"))
            out = pl.concat([polars_measures(list(d.glob("*.parquet"))) for d in parts])
    else:
        import polars as pl

        import rankframe as rf

        judged = rf.judge(
            pl.scan_parquet(data / "run.parquet"), pl.scan_parquet(data / "qrels.parquet")
        )
        out = rf.evaluate(judged, tasks.MEASURES, engine="polars")
    print(
        json.dumps(
            {
                "seconds": time.perf_counter() - t0,
                "queries": out.height,
                **tasks.means(out),
            }
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rows", default="1M,7M")
    ap.add_argument("--memory-limit", default="2GB")
    ap.add_argument(
        "--engines", default="duckdb_sql,polars_stream", help=f"comma list of {', '.join(ENGINES)}"
    )
    ap.add_argument("--chunk-size", type=int, default=0, help="polars_judged: streaming chunk size")
    ap.add_argument(
        "--polars-threads", type=int, default=0, help="polars_judged: POLARS_MAX_THREADS"
    )
    ap.add_argument(
        "--buckets", type=int, default=32, help="duckdb_judge_buckets: qid hash buckets"
    )
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, data, tmp = args.child
        child(kind, Path(data), args.memory_limit, tmp, args.chunk_size, args.buckets)
        return
    engines = args.engines.split(",")
    assert all(e in ENGINES for e in engines), engines
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    opts = f" --engines {args.engines}" if args.engines != "duckdb_sql,polars_stream" else ""
    opts += f" --chunk-size {args.chunk_size}" if args.chunk_size else ""
    opts += f" --polars-threads {args.polars_threads}" if args.polars_threads else ""
    opts += f" --buckets {args.buckets}" if "duckdb_judge_buckets" in engines else ""
    lines = [
        f"`python benchmarks/scale.py --rows {args.rows} --memory-limit {args.memory_limit}{opts}`"
        f" — {time.strftime('%Y-%m-%d %H:%M')}, load average at start {load}",
        "",
        "| rows | engine | seconds | s per M rows | peak RSS MiB | process wall s |"
        " parquet MiB (run+qrels) | map |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for rows in args.rows.split(","):
        data = HERE / "data" / rows
        meta = json.loads((data / "meta.json").read_text())
        size = sum(os.path.getsize(data / f) for f in ("run.parquet", "qrels.parquet")) / 2**20
        for kind in engines:
            env = dict(os.environ, PYTHONPATH=str(HERE.parent))
            if args.polars_threads:
                env["POLARS_MAX_THREADS"] = str(args.polars_threads)
            with tempfile.TemporaryDirectory(dir=HERE / "data") as tmp:
                wall, rss, out = spawn(
                    [
                        sys.executable,
                        __file__,
                        "--memory-limit",
                        args.memory_limit,
                        "--chunk-size",
                        str(args.chunk_size),
                        "--buckets",
                        str(args.buckets),
                        "--child",
                        kind,
                        str(data),
                        tmp,
                    ],
                    env,
                )
            r = json.loads(out.strip().splitlines()[-1])
            m = meta["rows"] / 1e6
            mp = f"{r['map']:.6f}" if "map" in r else ""
            if kind == "duckdb_judge_write":
                mp = f"({os.path.getsize(data / 'judged.parquet') / 2**20:.0f} MiB written)"
            elif kind == "duckdb_judge_buckets":
                written = sum(
                    f.stat().st_size for f in (data / "judged_buckets").rglob("*.parquet")
                )
                mp = f"({written / 2**20:.0f} MiB written)"
            line = (
                f"| {meta['rows']:,} | {kind} | {r['seconds']:.2f} | {r['seconds'] / m:.3f} | "
                f"{rss:.0f} | {wall:.2f} | {size:.0f} | {mp} |"
            )
            print(line, json.dumps(r), flush=True)
            lines.append(line)
    res = HERE / "results"
    res.mkdir(exist_ok=True)
    name = f"scale-{args.rows.replace(',', '_')}-{args.memory_limit}-{'_'.join(engines)}"
    name += f"-chunk{args.chunk_size}" if args.chunk_size else ""
    name += f"-threads{args.polars_threads}" if args.polars_threads else ""
    (res / f"{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

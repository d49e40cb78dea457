"""Generate an MS MARCO-like ranking workload for the benchmarks (deterministic, streamed).

Per query: 1,000 retrieved passages with float64 scores (rounded, so some scores tie
within a query) and about 100 judged passages with grades 0-3, of which about a third
were not retrieved. Written in chunks of queries, so 100M rows never exist as Python
objects:

    <out>/run.parquet     qid, docid (strings), score (float64)
    <out>/qrels.parquet   qid, docid (strings), rel (int32)
    <out>/run.trec        qid Q0 docid rank score tag   (rank = position by score desc, docid desc)
    <out>/qrels.trec      qid 0 docid rel

Usage::

    python benchmarks/generate.py --rows 1M          # -> benchmarks/data/1M/
    python benchmarks/generate.py --rows 7M --no-trec
    python benchmarks/generate.py --rows 2M --depth 1 --out benchmarks/data/2M-onedoc
    python benchmarks/generate.py --rows 10M --depth 10000000 --out benchmarks/data/10M-onequery
    python benchmarks/generate.py --rows 2M --unsorted --out benchmarks/data/2M-unsorted
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

DEPTH = 1000  # retrieved passages per query
CORPUS = 8_841_823  # MS MARCO v1 passage collection size
QID_BASE = 1_000_000
GRADE_P = (0.45, 0.30, 0.17, 0.08)  # grades 0..3 among judged passages
HERE = Path(__file__).resolve().parent


def parse_rows(text: str) -> int:
    """'1M' -> 1_000_000, '250k' -> 250_000, '7000000' -> 7_000_000."""
    t = text.strip().lower().replace("_", "")
    mult = {"k": 1_000, "m": 1_000_000, "g": 1_000_000_000}.get(t[-1:], 1)
    return int(float(t[:-1] if mult != 1 else t) * mult)


def _distinct_ids(rng: np.random.Generator, nq: int, need: int) -> np.ndarray:
    """``need`` distinct passage ids per query (rows), from a corpus of at least CORPUS."""
    if need <= 1200:
        ids = np.empty((nq, need), dtype=np.int64)
        for i in range(nq):
            ids[i] = rng.choice(CORPUS, size=need, replace=False, shuffle=False)
        return ids
    # Many ids per query: strictly increasing offsets from a random start (no Python loop).
    corpus = max(CORPUS, 4 * need)
    gaps = rng.integers(1, corpus // need, size=(nq, need))
    start = rng.integers(0, corpus, size=(nq, 1))
    ids = (start + np.cumsum(gaps, axis=1)) % corpus
    perm = rng.permuted(ids, axis=1)
    return np.asarray(perm, dtype=np.int64)


def chunk(rng: np.random.Generator, q0: int, nq: int, depth: int = DEPTH
          ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Run rows (sorted per query by score desc, docid desc) and qrels for queries q0..q0+nq,
    ``depth`` retrieved passages each (about depth/10 judged, at least one)."""
    if depth == DEPTH:
        n_judged = rng.integers(80, 121, size=nq)  # about 100 judged per query
    else:
        n_judged = rng.integers(max(1, depth // 12), max(1, depth // 12) + depth // 25 + 1,
                                size=nq)
    n_unret = rng.binomial(n_judged, 1 / 3)  # about a third not retrieved
    n_jret = np.minimum(n_judged - n_unret, depth)
    # Distinct passage ids per query: the retrieved + the judged-but-unretrieved ones.
    need = depth + int(n_unret.max())
    if depth == 1:  # one-document queries: any two distinct ids, vectorised
        first = rng.integers(0, CORPUS, size=(nq, 1))
        ids = np.concatenate([first, (first + rng.integers(1, CORPUS, size=(nq, 1))) % CORPUS],
                             axis=1)[:, :need]
    else:
        ids = _distinct_ids(rng, nq, need)
    ret_ids = ids[:, :depth]

    # Judged retrieved: a random subset of the retrieved positions; grades 0..3.
    judged_pos = np.argsort(rng.random((nq, depth)), axis=1)
    grades_ret = np.zeros((nq, depth), dtype=np.int32)
    is_judged = np.zeros((nq, depth), dtype=bool)
    cols = np.arange(depth)
    mask = cols[None, :] < n_jret[:, None]
    rows_i = np.repeat(np.arange(nq), depth).reshape(nq, depth)[mask]
    pos = judged_pos[mask]
    is_judged[rows_i, pos] = True
    grades_ret[rows_i, pos] = rng.choice(4, size=pos.size, p=GRADE_P).astype(np.int32)

    # Scores: noise plus a boost for relevant passages, rounded to 3 decimals -> ties.
    scores = rng.normal(0.0, 1.0, size=(nq, depth)) + 0.6 * grades_ret
    scores = np.round(scores * 4 + 20, 3)

    qid_num = QID_BASE + np.arange(q0, q0 + nq, dtype=np.int64)
    run = pl.DataFrame(
        {
            "qid": np.repeat(qid_num, depth).astype(str),
            "docid": ret_ids.reshape(-1).astype(str),
            "score": scores.reshape(-1),
        }
    )
    # trec_eval order: score descending, docid descending (as text).
    run = run.sort(["qid", "score", "docid"], descending=[False, True, True])

    # qrels: judged retrieved + judged unretrieved.
    jr_q = np.repeat(qid_num, depth).reshape(nq, depth)[is_judged]
    jr_d = ret_ids[is_judged]
    jr_g = grades_ret[is_judged]
    umask = cols[None, : need - depth] < n_unret[:, None]
    ju_q = np.repeat(qid_num, need - depth).reshape(nq, need - depth)[umask]
    ju_d = ids[:, depth:][umask]
    ju_g = rng.choice(4, size=ju_d.size, p=GRADE_P).astype(np.int32)
    qrels = pl.DataFrame(
        {
            "qid": np.concatenate([jr_q, ju_q]).astype(str),
            "docid": np.concatenate([jr_d, ju_d]).astype(str),
            "rel": np.concatenate([jr_g, ju_g]),
        }
    ).sort(["qid", "docid"])
    return run, qrels


def generate(rows: int, out: Path, seed: int, trec: bool, chunk_queries: int | None = None,
             depth: int = DEPTH, unsorted: bool = False) -> dict[str, object]:
    n_queries = max(1, rows // depth)
    chunk_queries = chunk_queries or max(1, 2_000_000 // depth)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    run_schema = pa.schema([("qid", pa.string()), ("docid", pa.string()), ("score", pa.float64())])
    qrels_schema = pa.schema([("qid", pa.string()), ("docid", pa.string()), ("rel", pa.int32())])
    run_w = pq.ParquetWriter(out / "run.parquet", run_schema, compression="zstd")
    qrels_w = pq.ParquetWriter(out / "qrels.parquet", qrels_schema, compression="zstd")
    run_t = open(out / "run.trec", "w") if trec else None  # noqa: SIM115
    qrels_t = open(out / "qrels.trec", "w") if trec else None  # noqa: SIM115
    n_run = n_qrels = 0
    t0 = time.perf_counter()
    try:
        for q0 in range(0, n_queries, chunk_queries):
            nq = min(chunk_queries, n_queries - q0)
            run, qrels = chunk(rng, q0, nq, depth)
            run = run.with_columns(pl.int_range(1, pl.len() + 1).over("qid").alias("rank"))
            if unsorted:  # each query's rows in random order (queries stay contiguous)
                run = run.sample(fraction=1.0, shuffle=True, seed=seed + q0).sort(
                    "qid", maintain_order=True)
            run_w.write_table(run.drop("rank").to_arrow().cast(run_schema),
                              row_group_size=1_000_000)
            qrels_w.write_table(qrels.to_arrow().cast(qrels_schema), row_group_size=1_000_000)
            n_run += run.height
            n_qrels += qrels.height
            if run_t is not None and qrels_t is not None:
                run.select(
                    "qid",
                    pl.lit("Q0").alias("q0"),
                    "docid",
                    "rank",
                    pl.col("score").round(3),
                    pl.lit("rfbench").alias("tag"),
                ).write_csv(run_t, separator=" ", include_header=False)
                qrels.select("qid", pl.lit(0).alias("iter"), "docid", "rel").write_csv(
                    qrels_t, separator=" ", include_header=False
                )
    finally:
        run_w.close()
        qrels_w.close()
        if run_t is not None and qrels_t is not None:
            run_t.close()
            qrels_t.close()
    meta: dict[str, object] = {
        "rows": n_run,
        "queries": n_queries,
        "qrels_rows": n_qrels,
        "depth": depth,
        "unsorted": unsorted,
        "seed": seed,
        "trec_files": trec,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    (out / "meta.json").write_text(json.dumps(meta, indent=1))
    return meta


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rows", default="1M", help="run rows: 1M, 7M, 100M ... (default 1M)")
    ap.add_argument("--out", type=Path, default=None, help="default benchmarks/data/<rows>")
    ap.add_argument("--seed", type=int, default=20240501)
    ap.add_argument("--no-trec", action="store_true", help="parquet only (skip the text files)")
    ap.add_argument("--chunk-queries", type=int, default=None,
                    help="queries per written chunk (default: about 2M rows' worth)")
    ap.add_argument("--depth", type=int, default=DEPTH,
                    help="retrieved passages per query (1: one-document queries; 10000000 "
                    "with --rows 10M: one huge query)")
    ap.add_argument("--unsorted", action="store_true",
                    help="each query's rows in random order, not by score")
    args = ap.parse_args()
    rows = parse_rows(args.rows)
    out = args.out or HERE / "data" / args.rows
    meta = generate(rows, out, args.seed, not args.no_trec, args.chunk_queries, args.depth,
                    args.unsorted)
    print(json.dumps({"out": str(out), **meta}))


if __name__ == "__main__":
    main()

"""One benchmark task per fresh process: ``python benchmarks/tasks.py TASK DATA_DIR``.

Prints one JSON line: phase timings in seconds (``perf_counter`` after imports), the
mean of each measure (to cross-check the tools against each other) and which rankframe
implementation ran. ``run.py`` starts each task in a fresh subprocess and reads its peak
RSS with ``os.wait4``.

Measures everywhere: ndcg@10 (linear gain), AP (full list, divisor R), RR (full list),
P@10, recall@100 — trec_eval's ndcg_cut.10 map recip_rank P.10 recall.100.
"""

from __future__ import annotations

import json
import os
import sys
import time
from itertools import pairwise
from pathlib import Path

_t_start = time.perf_counter()
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

MEASURES = ["ndcg@10", "map", "mrr", "P@10", "recall@100"]
TREC_MEASURES = ["ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"]
# pytrec_eval result keys, in the order of MEASURES
PYTREC_KEYS = ["ndcg_cut_10", "map", "recip_rank", "P_10", "recall_100"]


class Clock:
    def __init__(self) -> None:
        self.phases: dict[str, float] = {}
        self._t = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.phases[name] = now - self._t
        self._t = now


def has_api() -> bool:
    """True once rankframe.table.judge / rankframe.evaluate (issue: Python API) exist."""
    import rankframe as rf

    return all(hasattr(rf, n) for n in ("judge", "evaluate"))


# --------------------------------------------------------------------------------------
# rankframe, before the Python API exists: metric expressions / macros over a judged
# table built with a plain join (rank by score desc, docid desc; full outer join).


def polars_exprs():  # type: ignore[no-untyped-def]
    import rankframe as rf

    return [
        rf.ndcg("rel", 10).alias("ndcg@10"),
        rf.average_precision("rel").alias("map"),
        rf.reciprocal_rank("rel").alias("mrr"),
        rf.precision("rel", 10).alias("P@10"),
        rf.recall("rel", 100).alias("recall@100"),
    ]


def polars_judge(run, qrels):  # type: ignore[no-untyped-def]
    import polars as pl

    ranked = run.sort(["qid", "score", "docid"], descending=[False, True, True]).with_columns(
        rank=pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("qid")
    )
    judged = ranked.join(qrels, on=["qid", "docid"], how="full", coalesce=True)
    # queries with qrels are kept; run-only queries are excluded
    return judged.filter(pl.col("qid").is_in(qrels.get_column("qid").unique().implode()))


SQL_MEASURES = """
    rf_ndcg(rel, rank, 10) AS "ndcg@10",
    rf_average_precision(rel, rank, NULL) AS "map",
    rf_reciprocal_rank(rel, rank, NULL) AS "mrr",
    rf_precision(rel, rank, 10) AS "P@10",
    rf_recall(rel, rank, 100) AS "recall@100"
"""

SQL_JUDGE = """
    WITH r AS (
        SELECT qid, docid, score,
               row_number() OVER (PARTITION BY qid ORDER BY score DESC, docid DESC) AS rank
        FROM read_parquet('{run}')),
    q AS (SELECT qid, docid, rel FROM read_parquet('{qrels}'))
    SELECT qid, docid, rank, rel, score
    FROM r FULL OUTER JOIN q USING (qid, docid)
    WHERE qid IN (SELECT qid FROM q)
"""


def means(df) -> dict[str, float]:  # type: ignore[no-untyped-def]
    return {m: float(df.get_column(m).mean()) for m in MEASURES}


def _paths(data: Path) -> tuple[str, str]:
    return str(data / "run.parquet"), str(data / "qrels.parquet")


def task_rf_polars(data: Path, c: Clock) -> dict[str, object]:
    """parquet -> judged -> per-query table, Polars engine."""
    import polars as pl

    import rankframe as rf

    run_p, qrels_p = _paths(data)
    c.lap("setup")
    if has_api():
        run, qrels = pl.read_parquet(run_p), pl.read_parquet(qrels_p)
        c.lap("read")
        judged = rf.judge(run, qrels)
        c.lap("judge")
        out = rf.evaluate(judged, MEASURES, engine="polars")
        c.lap("evaluate")
        impl = "api"
    else:
        run, qrels = pl.read_parquet(run_p), pl.read_parquet(qrels_p)
        c.lap("read")
        judged = polars_judge(run, qrels)
        c.lap("judge")
        out = judged.group_by("qid").agg(polars_exprs())
        c.lap("evaluate")
        impl = "exprs"
    c.phases["total"] = c.phases["read"] + c.phases["judge"] + c.phases["evaluate"]
    # evaluation alone on the already judged table, a second time (warm caches)
    t = time.perf_counter()
    if impl == "api":
        rf.evaluate(judged, MEASURES, engine="polars")
    else:
        judged.group_by("qid").agg(polars_exprs())
    c.phases["evaluate_again"] = time.perf_counter() - t
    return {"impl": impl, "means": means(out), "queries": out.height}


def task_rf_duckdb(data: Path, c: Clock) -> dict[str, object]:
    """parquet -> judged -> per-query table, DuckDB engine (one query, fetched to Polars)."""
    import duckdb
    import polars as pl

    import rankframe as rf
    import rankframe.duckdb as rfdb

    run_p, qrels_p = _paths(data)
    if has_api() and not os.environ.get("RF_BENCH_SQL"):
        c.lap("setup")
        run, qrels = pl.read_parquet(run_p), pl.read_parquet(qrels_p)
        c.lap("read")
        judged = rf.judge(run, qrels)
        c.lap("judge")
        out = rf.evaluate(judged, MEASURES, engine="duckdb")
        c.lap("evaluate")
        c.phases["total"] = c.phases["read"] + c.phases["judge"] + c.phases["evaluate"]
        return {
            "impl": "api (Polars judge, DuckDB evaluate)",
            "means": means(out),
            "queries": out.height,
        }
    con = rfdb.register(duckdb.connect())
    c.lap("setup")
    judge_sql = SQL_JUDGE.format(run=run_p, qrels=qrels_p)
    sql = f"SELECT qid, {SQL_MEASURES} FROM ({judge_sql}) GROUP BY qid"
    out = con.sql(sql).pl()
    c.lap("total")
    return {
        "impl": "SQL only: macros over read_parquet",
        "means": means(out),
        "queries": out.height,
    }


def _evaluate_run(data: Path, c: Clock, engine: str) -> dict[str, object]:
    """parquet -> per-query table in one call, ``rf.evaluate_run`` (no judged table)."""
    import polars as pl

    import rankframe as rf

    run_p, qrels_p = _paths(data)
    c.lap("setup")
    run, qrels = pl.read_parquet(run_p), pl.read_parquet(qrels_p)
    c.lap("read")
    out = rf.evaluate_run(run, qrels, MEASURES, engine=engine)  # type: ignore[arg-type]
    c.lap("evaluate_run")
    c.phases["total"] = c.phases["read"] + c.phases["evaluate_run"]
    return {"impl": f"evaluate_run (engine={engine})", "means": means(out), "queries": out.height}


def task_rf_polars_run(data: Path, c: Clock) -> dict[str, object]:
    return _evaluate_run(data, c, "polars")


def task_rf_duckdb_run(data: Path, c: Clock) -> dict[str, object]:
    return _evaluate_run(data, c, "duckdb")


def task_rf_polars_eval(data: Path, c: Clock) -> dict[str, object]:
    """Evaluation alone on an already judged in-memory table (Polars)."""
    import polars as pl

    import rankframe as rf

    run, qrels = (
        pl.read_parquet(str(data / "run.parquet")),
        pl.read_parquet(str(data / "qrels.parquet")),
    )
    judged = rf.judge(run, qrels) if has_api() else polars_judge(run, qrels)
    judged = judged.rechunk()
    c.lap("prepare")
    if has_api():
        out = rf.evaluate(judged, MEASURES, engine="polars")
        impl = "api"
    else:
        out = judged.group_by("qid").agg(polars_exprs())
        impl = "exprs"
    c.lap("evaluate")
    return {"impl": impl, "means": means(out), "queries": out.height}


def task_rf_duckdb_eval(data: Path, c: Clock) -> dict[str, object]:
    """Evaluation alone on an already judged table (DuckDB)."""
    import duckdb
    import polars as pl

    import rankframe as rf
    import rankframe.duckdb as rfdb

    run_p, qrels_p = _paths(data)
    if has_api() and not os.environ.get("RF_BENCH_SQL"):
        judged = rf.judge(pl.read_parquet(run_p), pl.read_parquet(qrels_p)).rechunk()
        c.lap("prepare")
        out = rf.evaluate(judged, MEASURES, engine="duckdb")
        c.lap("evaluate")
        return {"impl": "api (judged Polars frame)", "means": means(out), "queries": out.height}
    con = rfdb.register(duckdb.connect())
    con.execute(f"CREATE TEMP TABLE judged AS {SQL_JUDGE.format(run=run_p, qrels=qrels_p)}")
    c.lap("prepare")
    out = con.sql(f"SELECT qid, {SQL_MEASURES} FROM judged GROUP BY qid").pl()
    c.lap("evaluate")
    return {"impl": "macros (judged DuckDB table)", "means": means(out), "queries": out.height}


def task_rf_trec(data: Path, c: Clock) -> dict[str, object]:
    """Stand-in for ``rankframe eval`` until the CLI exists: TREC text -> per-query table."""
    import polars as pl

    c.lap("setup")
    run = pl.read_csv(
        data / "run.trec",
        separator=" ",
        has_header=False,
        new_columns=["qid", "q0", "docid", "rank", "score", "tag"],
        schema_overrides={"qid": pl.String, "docid": pl.String, "score": pl.Float64},
        columns=[0, 2, 4],
    )
    qrels = pl.read_csv(
        data / "qrels.trec",
        separator=" ",
        has_header=False,
        new_columns=["qid", "iter", "docid", "rel"],
        schema_overrides={"qid": pl.String, "docid": pl.String, "rel": pl.Int32},
        columns=[0, 2, 3],
    )
    c.lap("read")
    out = polars_judge(run, qrels).group_by("qid").agg(polars_exprs())
    c.lap("judge+evaluate")
    c.phases["total"] = c.phases["read"] + c.phases["judge+evaluate"]
    return {"impl": "exprs (CLI stand-in)", "means": means(out), "queries": out.height}


def _split(df, key: str, val: str) -> dict[str, dict[str, object]]:  # type: ignore[no-untyped-def]
    """{qid: {docid: value}} from a frame sorted by qid, without a Python loop over rows."""
    import numpy as np

    df = df.sort(key, maintain_order=True)
    q = df.get_column(key).to_list()
    d = df.get_column("docid").to_list()
    v = df.get_column(val).to_list()
    qarr = df.get_column(key).to_numpy()
    cuts = np.flatnonzero(qarr[1:] != qarr[:-1]) + 1
    bounds = [0, *cuts.tolist(), len(q)]
    return {q[s]: dict(zip(d[s:e], v[s:e], strict=True)) for s, e in pairwise(bounds)}


def task_pytrec_eval(data: Path, c: Clock) -> dict[str, object]:
    """pytrec_eval from the same parquet: read, build dicts, evaluator, evaluate."""
    import polars as pl
    import pytrec_eval

    c.lap("setup")
    run_df = pl.read_parquet(str(data / "run.parquet"))
    qrels_df = pl.read_parquet(str(data / "qrels.parquet"))
    c.lap("read")
    run = _split(run_df, "qid", "score")
    qrels = _split(qrels_df, "qid", "rel")
    c.lap("dicts")
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_MEASURES))
    c.lap("evaluator")
    res = ev.evaluate(run)
    c.lap("evaluate")
    c.phases["total"] = sum(c.phases[p] for p in ("read", "dicts", "evaluator", "evaluate"))
    n = len(res)
    pairs = zip(MEASURES, PYTREC_KEYS, strict=True)
    m = {name: sum(r[key] for r in res.values()) / n for name, key in pairs}
    return {"means": m, "queries": n}


def task_polars_floor(data: Path, c: Clock) -> dict[str, object]:
    """A floor, not an evaluator: Polars reading the two Parquet files, which every
    evaluator of them built on Polars pays before anything else."""
    import polars as pl

    run_p, qrels_p = _paths(data)
    c.lap("setup")
    run, qrels = pl.read_parquet(run_p), pl.read_parquet(qrels_p)
    c.lap("read")
    c.phases["total"] = c.phases["read"]
    return {"rows": run.height + qrels.height}


def task_ranx(data: Path, c: Clock) -> dict[str, object]:
    """ranx from the same parquet; the first evaluate compiles (cold), the second is warm."""
    import pandas as pd
    from ranx import Qrels, Run, evaluate

    c.lap("import")
    # Run/Qrels.from_parquet reject pandas' Arrow-backed string columns; read with pandas
    # and hand ranx object-dtype ids, which is what from_parquet does internally.
    ids = {"qid": object, "docid": object}
    run_df = pd.read_parquet(data / "run.parquet").astype(ids)
    qrels_df = pd.read_parquet(data / "qrels.parquet").astype({**ids, "rel": "int64"})
    run = Run.from_df(run_df, q_id_col="qid", doc_id_col="docid", score_col="score")
    qrels = Qrels.from_df(qrels_df, q_id_col="qid", doc_id_col="docid", score_col="rel")
    del run_df, qrels_df
    c.lap("read")
    metrics = ["ndcg@10", "map", "mrr", "precision@10", "recall@100"]
    evaluate(qrels, run, metrics, make_comparable=True)
    c.lap("evaluate_cold")
    res = evaluate(qrels, run, metrics, make_comparable=True)
    c.lap("evaluate_warm")
    c.phases["total_cold"] = c.phases["read"] + c.phases["evaluate_cold"]
    c.phases["total_warm"] = c.phases["read"] + c.phases["evaluate_warm"]
    return {"means": {name: float(res[m]) for name, m in zip(MEASURES, metrics, strict=True)}}


def task_ir_measures(data: Path, c: Clock) -> dict[str, object]:
    """ir_measures on the TREC files (per-query values, materialised)."""
    import ir_measures
    from ir_measures import AP, RR, P, R, nDCG

    c.lap("setup")
    qrels = list(ir_measures.read_trec_qrels(str(data / "qrels.trec")))
    run = list(ir_measures.read_trec_run(str(data / "run.trec")))
    c.lap("read")
    ms = [nDCG @ 10, AP, RR, P @ 10, R @ 100]
    rows = list(ir_measures.iter_calc(ms, qrels, run))
    c.lap("evaluate")
    c.phases["total"] = c.phases["read"] + c.phases["evaluate"]
    sums: dict[str, float] = {str(m): 0.0 for m in ms}
    qids = set()
    for r in rows:
        sums[str(r.measure)] += r.value
        qids.add(r.query_id)
    return {"means": {name: sums[str(m)] / len(qids) for name, m in zip(MEASURES, ms, strict=True)}}


def numpy_prepare(data: Path):  # type: ignore[no-untyped-def]
    """Arrays for the NumPy bound: grades at ranks 1..1000 (nq, 1000), qrels grades padded."""
    import numpy as np
    import polars as pl

    run = pl.read_parquet(str(data / "run.parquet"))
    qrels = pl.read_parquet(str(data / "qrels.parquet"))
    judged = polars_judge(run, qrels)
    ret = judged.filter(pl.col("rank").is_not_null()).sort("qid", "rank")
    nq = ret.get_column("qid").n_unique()
    depth = ret.height // nq
    assert nq * depth == ret.height, "NumPy bound needs the same depth for every query"
    grades = ret.get_column("rel").fill_null(0).to_numpy().astype(np.int8).reshape(nq, depth)
    q = qrels.sort("qid", "rel", descending=[False, True]).with_columns(
        pos=pl.int_range(pl.len()).over("qid")
    )
    width = int(q.get_column("pos").max()) + 1
    pool = np.zeros((nq, width), dtype=np.int8)
    qidx = q.get_column("qid").rank("dense").to_numpy().astype(np.int64) - 1
    pool[qidx, q.get_column("pos").to_numpy()] = q.get_column("rel").to_numpy()
    return grades, pool


def numpy_measures(grades, pool):  # type: ignore[no-untyped-def]
    """The five measures over prepared arrays; ``pool`` = each query's qrels grades."""
    import numpy as np

    depth = grades.shape[1]
    disc = 1.0 / np.log2(np.arange(2, 12, dtype=np.float64))
    dcg = grades[:, :10].clip(0) @ disc
    ideal = -np.partition(-pool, 9, axis=1)[:, :10] if pool.shape[1] > 10 else pool
    ideal = -np.sort(-ideal, axis=1)
    idcg = ideal.clip(0)[:, :10] @ disc[: ideal.shape[1]]
    rel = grades >= 1
    big_r = (pool >= 1).sum(axis=1)
    cum = np.cumsum(rel, axis=1, dtype=np.int32)
    prec_at = cum / np.arange(1, depth + 1, dtype=np.float64)
    ap_sum = np.where(rel, prec_at, 0.0).sum(axis=1)
    safe_r = np.maximum(big_r, 1)
    first = rel.argmax(axis=1)
    return {
        "ndcg@10": np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1), 0.0),
        "map": np.where(big_r > 0, ap_sum / safe_r, 0.0),
        "mrr": np.where(rel.any(axis=1), 1.0 / (first + 1), 0.0),
        "P@10": cum[:, 9] / 10.0,
        "recall@100": np.where(big_r > 0, cum[:, 99] / safe_r, 0.0),
    }


def task_numpy(data: Path, c: Clock) -> dict[str, object]:
    """NumPy lower bound over prepared (nq, 1000) arrays."""
    c.lap("setup")
    grades, pool = numpy_prepare(data)
    c.lap("prepare")
    res = numpy_measures(grades, pool)
    c.lap("evaluate")
    return {"means": {m: float(v.mean()) for m, v in res.items()}, "queries": len(grades)}


TASKS = {
    "rf_polars": task_rf_polars,
    "rf_duckdb": task_rf_duckdb,
    "rf_polars_run": task_rf_polars_run,
    "rf_duckdb_run": task_rf_duckdb_run,
    "rf_polars_eval": task_rf_polars_eval,
    "rf_duckdb_eval": task_rf_duckdb_eval,
    "rf_trec": task_rf_trec,
    "pytrec_eval": task_pytrec_eval,
    "ranx": task_ranx,
    "polars_floor": task_polars_floor,
    "ir_measures": task_ir_measures,
    "numpy": task_numpy,
}


def main() -> None:
    name, data = sys.argv[1], Path(sys.argv[2])
    c = Clock()
    result = TASKS[name](data, c)
    result = {"task": name, "phases": c.phases, "startup": c.phases.get("setup", 0.0), **result}
    print(json.dumps(result))


if __name__ == "__main__":
    main()

"""Measures evaluated where the judged table already sits: DuckDB macros, Ibis on DuckDB,
Ibis on PostgreSQL, and the Polars engine as a reference.

The five measures of ``run.py`` (ndcg@10, map, mrr, P@10, recall@100), per query, over a
judged table loaded into each engine before the clock starts:

- ``duckdb_sql``      the native macros over a DuckDB table:
                      ``SELECT qid, rf_ndcg(rel, rank, 10), ... FROM judged GROUP BY qid
                      ORDER BY qid`` (``rankframe.duckdb.register``), fetched with ``.pl()``;
                      the reference of the ratios;
- ``rf_duckdb``       ``rf.evaluate(judged, measures, engine="duckdb")`` over the judged
                      Polars frame (DuckDB scans it through Arrow; for context);
- ``ibis_duckdb``     ``rankframe.ibis.evaluate`` over the same DuckDB table in an Ibis
                      DuckDB connection, executed with ``con.to_polars``;
- ``ibis_postgres``   the same over the table in a temporary PostgreSQL server
                      (``tests.support.postgres.TemporaryPostgres``: initdb + pg_ctl on a Unix
                      socket), started and loaded (COPY, ANALYZE) once by this driver;
- ``rf_polars``       ``rf.evaluate(judged, measures)`` over the judged Polars frame.

Each times a first call and a second one in the same process; after them, the macros and
the Ibis tools also time the parts of a call: building the Ibis
expression and compiling it to SQL, that SQL run by the engine's own driver, and the call
over the rows with ``rel > 0`` only (which is all these five measures read, and what
``rf.evaluate`` hands its engines).

and, as a second group, ``judge`` inside each engine (run + qrels tables in the engine →
judged table in the engine; untimed afterwards: the measures over it, to check it):

- ``judge_duckdb_sql``     ``CREATE TEMP TABLE j AS SELECT * FROM rf_judge('run', 'qrels')``;
- ``judge_ibis_duckdb``    ``con.create_table("j", rankframe.ibis.judge(run, qrels), temp=True)``;
- ``judge_ibis_postgres``  the same in the PostgreSQL server (checks, rank window, full join);
- ``judge_polars``         ``rf.judge(run, qrels)`` (a Polars frame).

Every tool runs in a fresh process per repetition, the tools interleaved (round 1: each tool
once, round 2: ...); the ratio against the reference is the median over rounds of the
ratio within the round, so a slow spell of the shared machine hits both sides alike. The
PostgreSQL server lives for the whole benchmark (a warehouse is a running server; its
caches are warm after the load, as a DuckDB table in memory is).

Memory: "process peak" is the child's peak RSS (``VmHWM``, the table held in memory
included; not ``os.wait4``'s, which a child started by this driver inherits from the
driver's own peak, the tables it loads). "eval +peak" is how far the peak rose above the
resident size during the timed call (``/proc/<pid>/clear_refs`` reset, then ``VmHWM`` minus
``VmRSS`` before); for PostgreSQL it is taken on the server backend serving the connection
(parallel workers not counted).

    python benchmarks/warehouse.py                      # 1M rows, 5 repetitions
    python benchmarks/warehouse.py --repeat 7 --tools duckdb_sql,ibis_duckdb,ibis_postgres
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import suppress
from importlib.metadata import version
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PY = sys.executable
MEASURES = ["ndcg@10", "map", "mrr", "P@10", "recall@100"]
SQL_MEASURES = """
    rf_ndcg(rel, rank, 10) AS "ndcg@10",
    rf_average_precision(rel, rank, NULL) AS "map",
    rf_reciprocal_rank(rel, rank, NULL) AS "mrr",
    rf_precision(rel, rank, 10) AS "P@10",
    rf_recall(rel, rank, 100) AS "recall@100"
"""
EVALUATE_TOOLS = ["duckdb_sql", "rf_duckdb", "ibis_duckdb", "ibis_postgres", "rf_polars"]
JUDGE_TOOLS = ["judge_duckdb_sql", "judge_ibis_duckdb", "judge_ibis_postgres", "judge_polars"]
REFERENCE = {"evaluate": "duckdb_sql", "judge": "judge_duckdb_sql"}
PG_TYPES = {"String": "text", "Int64": "bigint", "Int32": "integer", "Float64": "double precision"}

# --------------------------------------------------------------------------------------
# Memory of a process (Linux /proc; None elsewhere)


def _status(pid: int | str) -> dict[str, float]:
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(rest.split()[0]) / 1024  # kB -> MiB
    return out


#: This process's peak RSS (MiB) before a PeakRise reset it.
SEEN_PEAK = [0.0]


class PeakRise:
    """How far a process's peak RSS rises above its resident size during a block."""

    def __init__(self, pid: int | str = "self") -> None:
        self.pid = pid
        self.rise: float | None = None

    def __enter__(self) -> PeakRise:
        try:
            if self.pid == "self":
                SEEN_PEAK[0] = max(SEEN_PEAK[0], _status("self")["VmHWM"])
            with open(f"/proc/{self.pid}/clear_refs", "w") as f:
                f.write("5")  # resets VmHWM to the current VmRSS
            self._before: float | None = _status(self.pid)["VmRSS"]
        except OSError:
            self._before = None
        return self

    def __exit__(self, *exc: object) -> None:
        if self._before is not None:
            try:
                self.rise = _status(self.pid)["VmHWM"] - self._before
            except OSError:
                self.rise = None


# --------------------------------------------------------------------------------------
# One task per fresh process: python benchmarks/warehouse.py --task TOOL ...


class Clock:
    def __init__(self) -> None:
        self.phases: dict[str, float] = {}
        self._t = time.perf_counter()

    def start(self) -> None:
        self._t = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.phases[name] = now - self._t
        self._t = now


def _values(df: Any) -> dict[str, list[Any]]:
    """Per-query values (a Polars frame), sorted by qid, as lists for JSON."""
    df = df.sort("qid")
    return {c: df.get_column(c).to_list() for c in ["qid", *MEASURES]}


def _duckdb_tables(con: Any, names: dict[str, Path]) -> None:
    for name, path in names.items():
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM read_parquet('{path}')")


def _ibis_postgres(socket: str) -> Any:
    import ibis

    return ibis.postgres.connect(host=socket, user="postgres", database="postgres")


def _backend_pid(con: Any) -> int:
    return int(con.con.execute("SELECT pg_backend_pid()").fetchone()[0])


def task_duckdb_sql(a: argparse.Namespace, c: Clock) -> dict[str, Any]:
    import duckdb

    import rankframe.duckdb as rfdb

    con = rfdb.register(duckdb.connect())
    _duckdb_tables(con, {"judged": a.judged})
    sql = f"SELECT qid, {SQL_MEASURES} FROM judged GROUP BY qid ORDER BY qid"
    c.start()
    with PeakRise() as mem:
        out = con.sql(sql).pl()
    c.lap("evaluate")
    con.sql(sql).pl()
    c.lap("evaluate_again")
    positive = con.sql(sql.replace("GROUP BY", "WHERE rel > 0 GROUP BY")).pl()
    c.lap("positive_rows")
    return {"values": _values(out), "rise": mem.rise, "values_positive": _values(positive)}


def _rf_engine(a: argparse.Namespace, c: Clock, engine: str) -> dict[str, Any]:
    """``rf.evaluate`` of a judged Polars frame on one of rankframe's engines."""
    import polars as pl

    import rankframe as rf

    judged = pl.read_parquet(a.judged)
    c.start()
    with PeakRise() as mem:
        out = rf.evaluate(judged, MEASURES, engine=engine)
    c.lap("evaluate")
    rf.evaluate(judged, MEASURES, engine=engine)
    c.lap("evaluate_again")
    return {"values": _values(out), "rise": mem.rise}


def task_rf_duckdb(a: argparse.Namespace, c: Clock) -> dict[str, Any]:
    return _rf_engine(a, c, "duckdb")


def task_rf_polars(a: argparse.Namespace, c: Clock) -> dict[str, Any]:
    return _rf_engine(a, c, "polars")


def _ibis_evaluate(con: Any, c: Clock, server_pid: int | None,
                   run_sql: Callable[[str], object]) -> dict[str, Any]:
    """First and second call, then the parts of a call: building the expression and
    compiling it to SQL, and that SQL run by the engine's own driver (no Ibis); last, the
    call over the rows with rel > 0 only (all these five measures read; what rf.evaluate
    hands its engines)."""
    import rankframe.ibis as rfi

    table = con.table("judged")
    c.start()
    with PeakRise(server_pid or "self") as mem:
        out = con.to_polars(rfi.evaluate(table, MEASURES))
    c.lap("evaluate")
    con.to_polars(rfi.evaluate(table, MEASURES))
    c.lap("evaluate_again")
    sql = str(con.compile(rfi.evaluate(table, MEASURES)))
    c.lap("build+compile")
    run_sql(sql)
    c.lap("sql_direct")
    positive = con.to_polars(rfi.evaluate(table.filter(table["rel"] > 0), MEASURES))
    c.lap("positive_rows")
    return {"values": _values(out), "rise": mem.rise, "values_positive": _values(positive)}


def task_ibis_duckdb(a: argparse.Namespace, c: Clock) -> dict[str, Any]:
    import ibis

    con = ibis.duckdb.connect()
    _duckdb_tables(con.con, {"judged": a.judged})
    return _ibis_evaluate(con, c, None, lambda sql: con.con.sql(sql).pl())


def task_ibis_postgres(a: argparse.Namespace, c: Clock) -> dict[str, Any]:
    con = _ibis_postgres(a.pg)
    return _ibis_evaluate(con, c, _backend_pid(con),
                          lambda sql: con.con.execute(sql).fetchall())


def task_judge_duckdb_sql(a: argparse.Namespace, c: Clock) -> dict[str, Any]:
    import duckdb

    import rankframe.duckdb as rfdb

    con = rfdb.register(duckdb.connect())
    _duckdb_tables(con, {"run": a.data / "run.parquet", "qrels": a.data / "qrels.parquet"})
    c.start()
    with PeakRise() as mem:
        con.execute("CREATE TEMP TABLE j AS SELECT * FROM rf_judge('run', 'qrels')")
    c.lap("judge")
    out = con.sql(f"SELECT qid, {SQL_MEASURES} FROM j GROUP BY qid").pl()
    rows = con.sql("SELECT count(*) FROM j").fetchall()[0][0]
    return {"values": _values(out), "rise": mem.rise, "rows": rows}


def _ibis_judge(con: Any, c: Clock, server_pid: int | None) -> dict[str, Any]:
    import rankframe.ibis as rfi

    run, qrels = con.table("run"), con.table("qrels")
    c.start()
    with PeakRise(server_pid or "self") as mem:
        con.create_table("j", rfi.judge(run, qrels), temp=True)
    c.lap("judge")
    judged = con.table("j")
    out = con.to_polars(rfi.evaluate(judged, MEASURES))
    return {"values": _values(out), "rise": mem.rise, "rows": int(judged.count().execute())}


def task_judge_ibis_duckdb(a: argparse.Namespace, c: Clock) -> dict[str, Any]:
    import ibis

    con = ibis.duckdb.connect()
    _duckdb_tables(con.con, {"run": a.data / "run.parquet", "qrels": a.data / "qrels.parquet"})
    return _ibis_judge(con, c, None)


def task_judge_ibis_postgres(a: argparse.Namespace, c: Clock) -> dict[str, Any]:
    con = _ibis_postgres(a.pg)
    return _ibis_judge(con, c, _backend_pid(con))


def task_judge_polars(a: argparse.Namespace, c: Clock) -> dict[str, Any]:
    import polars as pl

    import rankframe as rf

    run, qrels = pl.read_parquet(a.data / "run.parquet"), pl.read_parquet(a.data / "qrels.parquet")
    c.start()
    with PeakRise() as mem:
        judged = rf.judge(run, qrels)
    c.lap("judge")
    assert isinstance(judged, pl.DataFrame)
    out = rf.evaluate(judged, MEASURES)
    return {"values": _values(out), "rise": mem.rise, "rows": judged.height}


TASKS: dict[str, Callable[[argparse.Namespace, Clock], dict[str, Any]]] = {
    "duckdb_sql": task_duckdb_sql,
    "rf_duckdb": task_rf_duckdb,
    "ibis_duckdb": task_ibis_duckdb,
    "ibis_postgres": task_ibis_postgres,
    "rf_polars": task_rf_polars,
    "judge_duckdb_sql": task_judge_duckdb_sql,
    "judge_ibis_duckdb": task_judge_ibis_duckdb,
    "judge_ibis_postgres": task_judge_ibis_postgres,
    "judge_polars": task_judge_polars,
}
IMPL = {
    "duckdb_sql": "`rf_*` macros, SQL over a DuckDB table, `.pl()`",
    "rf_duckdb": '`rf.evaluate(engine="duckdb")` over the judged Polars frame',
    "ibis_duckdb": "`rankframe.ibis.evaluate` over the DuckDB table, `to_polars`",
    "ibis_postgres": "`rankframe.ibis.evaluate` over the PostgreSQL table, `to_polars`",
    "rf_polars": '`rf.evaluate(engine="polars")` over the judged Polars frame',
    "judge_duckdb_sql": "`CREATE TEMP TABLE j AS SELECT * FROM rf_judge('run', 'qrels')`",
    "judge_ibis_duckdb": '`create_table("j", rankframe.ibis.judge(run, qrels), temp=True)`',
    "judge_ibis_postgres": "the same in PostgreSQL",
    "judge_polars": "`rf.judge(run, qrels)` → Polars frame",
}


def child(a: argparse.Namespace) -> None:
    sys.path.insert(0, str(REPO))
    c = Clock()
    result = TASKS[a.task](a, c)
    try:
        result["peak"] = max(SEEN_PEAK[0], _status("self")["VmHWM"])
    except OSError:
        result["peak"] = None
    print(json.dumps({"phases": c.phases, **result}))


# --------------------------------------------------------------------------------------
# The driver


def spawn(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Run argv in a fresh process: (wall seconds, peak RSS MiB, stdout), as run.py does."""
    with tempfile.TemporaryFile("w+") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE, cwd=REPO, env=env,
                                text=True)
        assert proc.stderr is not None
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            raise RuntimeError(f"{' '.join(argv)} failed ({code}):\n{err[-3000:]}")
        out.seek(0)
        return wall, usage.ru_maxrss / 1024, out.read()


def load_postgres(server_con: Any, tables: dict[str, Any]) -> None:
    """Polars frames as tables of the server (COPY of CSV text, then ANALYZE)."""
    pg = server_con.con
    for name, frame in tables.items():
        cols = ", ".join(f'"{c}" {PG_TYPES[str(t)]}' for c, t in frame.schema.items())
        with pg.transaction(), pg.cursor() as cur:
            cur.execute(f'CREATE TABLE "{name}" ({cols})')
            with cur.copy(f'COPY "{name}" FROM STDIN (FORMAT csv, HEADER true)') as copy:
                copy.write(frame.write_csv().encode())
        pg.execute(f'ANALYZE "{name}"')


def machine(pg_version: str | None) -> str:
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    vers = [f"python {platform.python_version()}"]
    for dist in ("polars", "duckdb", "ibis-framework", "sqlglot", "psycopg"):
        with suppress(Exception):
            vers.append(f"{dist} {version(dist)}")
    if pg_version:
        vers.append(f"PostgreSQL {pg_version}")
    return f"{platform.machine()}, nproc {os.cpu_count()}, {mem:.0f} GiB; " + ", ".join(vers)


def max_diff(a: dict[str, list[Any]], b: dict[str, list[Any]]) -> tuple[float, float]:
    """(max |Δ| over queries and measures, max |Δ mean| over measures); inf if the queries
    differ."""
    if a["qid"] != b["qid"]:
        return float("inf"), float("inf")
    per_query, means = 0.0, 0.0
    for m in MEASURES:
        per_query = max(per_query, *(abs(x - y) for x, y in zip(a[m], b[m], strict=True)))
        means = max(means, abs(statistics.fmean(a[m]) - statistics.fmean(b[m])))
    return per_query, means


def _fmt(x: float | None, spec: str) -> str:
    return "" if x is None else format(x, spec)


def _median(runs: list[dict[str, Any]], phase: str) -> float | None:
    got = [r["phases"][phase] for r in runs if phase in r["phases"]]
    return statistics.median(got) if got else None


def _ratio(num: list[dict[str, Any]], phase: str, den: list[dict[str, Any]] | None,
           den_phase: str) -> float | None:
    """Median over rounds of num's phase ÷ den's phase in the same round."""
    if not den or phase not in num[0]["phases"] or den_phase not in den[0]["phases"]:
        return None
    return statistics.median(r["phases"][phase] / b["phases"][den_phase]
                             for r, b in zip(num, den, strict=True))


def _memory(tool: str, rs: list[dict[str, Any]]) -> str:
    """'process peak | eval +peak' cells (medians)."""
    peak = statistics.median(r["rss"] if r.get("peak") is None else r["peak"] for r in rs)
    rises = [r["rise"] for r in rs if r.get("rise") is not None]
    server = tool.endswith("postgres")
    rise = (f"{statistics.median(rises):.0f}{' (server backend)' if server else ''}"
            if rises else "")
    return f"{peak:.0f}{' (client)' if server else ''} | {rise}"


def report(runs: dict[str, list[dict[str, Any]]], meta: dict[str, Any], args: argparse.Namespace,
           pg_version: str | None, load: float) -> str:
    n = args.repeat
    ref_eval, ref_judge = runs.get(REFERENCE["evaluate"]), runs.get(REFERENCE["judge"])
    ref_values = (ref_eval or next(iter(runs.values())))[0]["values"]

    def agree(rs: list[dict[str, Any]]) -> str:
        diffs = [max_diff(r["values"], ref_values) for r in rs]
        return f"{max(d[0] for d in diffs):.1e} | {max(d[1] for d in diffs):.1e}"

    default = ",".join(EVALUATE_TOOLS + JUDGE_TOOLS)
    tools = "" if args.tools == default else f" --tools {args.tools}"
    lines = [
        f"### {meta['rows']:,} run rows · {meta['queries']:,} queries · "
        f"{meta['qrels_rows']:,} qrels rows · judged table {args.judged_rows:,} rows",
        "",
        f"`python benchmarks/warehouse.py --rows {args.rows} --repeat {n}{tools}` — "
        f"{time.strftime('%Y-%m-%d %H:%M')}, medians of {n} interleaved fresh processes, "
        f"ratios = median of the per-round ratios; {machine(pg_version)}; load average at "
        f"start {load:.1f}",
    ]
    evaluated = [t for t in EVALUATE_TOOLS if t in runs]
    if evaluated:
        lines += [
            "",
            "Evaluate: five measures per query over the judged table already in the engine, "
            "result fetched as a Polars frame.",
            "",
            "| tool | what is timed | 1st call s | ÷ macros | 2nd call s | ÷ macros "
            "| process peak MiB | eval +peak MiB | max abs Δ per query | max abs Δ of means |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for tool in evaluated:
            rs = runs[tool]
            lines.append(
                f"| {tool} | {IMPL[tool]} | {_fmt(_median(rs, 'evaluate'), '.3f')} "
                f"| {_fmt(_ratio(rs, 'evaluate', ref_eval, 'evaluate'), '.2f')} "
                f"| {_fmt(_median(rs, 'evaluate_again'), '.3f')} "
                f"| {_fmt(_ratio(rs, 'evaluate_again', ref_eval, 'evaluate_again'), '.2f')} "
                f"| {_memory(tool, rs)} | {agree(rs)} |")
    split = [t for t in evaluated if "positive_rows" in runs[t][0]["phases"]]
    if split:
        lines += [
            "",
            "The parts of a call (after the two above, same process): building the Ibis "
            "expression and compiling it to SQL; that SQL run by the engine's own driver "
            "without Ibis (DuckDB `.pl()`, psycopg `fetchall`); and the same call over the "
            "rows with `rel > 0` only (`table.filter(table.rel > 0)`, `WHERE rel > 0`), all "
            "these five measures read — what `rf.evaluate` hands its engines.",
            "",
            "| tool | build + compile s | compiled SQL direct s | ÷ macros 2nd call "
            "| over `rel > 0` s | ÷ macros over `rel > 0` | max abs Δ per query |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for tool in split:
            rs = runs[tool]
            d = max(max_diff(r["values_positive"], ref_values)[0] for r in rs)
            lines.append(
                f"| {tool} | {_fmt(_median(rs, 'build+compile'), '.3f')} "
                f"| {_fmt(_median(rs, 'sql_direct'), '.3f')} "
                f"| {_fmt(_ratio(rs, 'sql_direct', ref_eval, 'evaluate_again'), '.2f')} "
                f"| {_fmt(_median(rs, 'positive_rows'), '.3f')} "
                f"| {_fmt(_ratio(rs, 'positive_rows', ref_eval, 'positive_rows'), '.2f')} "
                f"| {d:.1e} |")
    judged = [t for t in JUDGE_TOOLS if t in runs]
    if judged:
        lines += [
            "",
            "Judge: run + qrels tables in the engine → judged table in the engine (the "
            "measures over it, untimed, checked against the macros' values above).",
            "",
            "| tool | what is timed | judge s | ÷ `rf_judge` macro | process peak MiB "
            "| judge +peak MiB | judged rows | max abs Δ per query | max abs Δ of means |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for tool in judged:
            rs = runs[tool]
            lines.append(
                f"| {tool} | {IMPL[tool]} | {_fmt(_median(rs, 'judge'), '.3f')} "
                f"| {_fmt(_ratio(rs, 'judge', ref_judge, 'judge'), '.2f')} "
                f"| {_memory(tool, rs)} | {rs[0]['rows']:,} | {agree(rs)} |")
    return "\n".join(lines) + "\n"


def driver(args: argparse.Namespace) -> None:
    import polars as pl

    sys.path.insert(0, str(REPO))
    import rankframe as rf
    from tests.support.postgres import TemporaryPostgres

    data = HERE / "data" / args.rows
    if not (data / "meta.json").is_file():
        print(f"generating {data} ...", flush=True)
        subprocess.run([PY, str(HERE / "generate.py"), "--rows", args.rows, "--out", str(data)],
                       check=True)
    meta = json.loads((data / "meta.json").read_text())
    tools = args.tools.split(",")
    unknown = [t for t in tools if t not in TASKS]
    if unknown:
        raise SystemExit(f"unknown tools: {unknown}; choose from {list(TASKS)}")
    load = os.getloadavg()[0]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    run, qrels = pl.read_parquet(data / "run.parquet"), pl.read_parquet(data / "qrels.parquet")
    judged = rf.judge(run, qrels)
    assert isinstance(judged, pl.DataFrame)
    args.judged_rows = judged.height
    server, pg_version = None, None
    with tempfile.TemporaryDirectory(prefix="rankframe-warehouse-") as tmp:
        judged_path = Path(tmp) / "judged.parquet"
        judged.write_parquet(judged_path)
        try:
            if any(t.endswith("postgres") for t in tools):
                server = TemporaryPostgres()
                con = server.start()
                t0 = time.perf_counter()
                load_postgres(con, {"judged": judged, "run": run, "qrels": qrels})
                pg_version = con.con.execute("SHOW server_version").fetchone()[0].split()[0]
                print(f"PostgreSQL {pg_version} at {server.directory}: judged, run, qrels "
                      f"loaded in {time.perf_counter() - t0:.1f}s", flush=True)
            del run, qrels, judged
            print(f"{meta['rows']:,} rows, {meta['queries']:,} queries; repeat={args.repeat}",
                  flush=True)
            runs: dict[str, list[dict[str, Any]]] = {t: [] for t in tools}
            for round_ in range(1, args.repeat + 1):
                for tool in tools:
                    argv = [PY, str(Path(__file__).resolve()), "--task", tool, "--data", str(data),
                            "--judged", str(judged_path),
                            "--pg", str(server.directory if server else "")]
                    wall, rss, out = spawn(argv, env)
                    res = json.loads(out.strip().splitlines()[-1])
                    res.update(wall=wall, rss=rss)
                    runs[tool].append(res)
                    ph = ", ".join(f"{k}={v:.3f}s" for k, v in res["phases"].items())
                    print(f"  round {round_} {tool}: {ph}; peak {res['peak'] or rss:.0f} MiB, "
                          f"eval +peak {res['rise'] or 0:.0f} MiB", flush=True)
        finally:
            if server is not None:
                server.stop()
    md = report(runs, meta, args, pg_version, load)
    print()
    print(md)
    if args.out:
        args.out.write_text(md)
        args.out.with_suffix(".json").write_text(json.dumps(runs))
        print(f"written: {args.out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rows", default="1M", help="workload size (benchmarks/data/<rows>)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tools", default=",".join(EVALUATE_TOOLS + JUDGE_TOOLS))
    ap.add_argument("--out", type=Path, default=None, help="also write the table (and .json)")
    ap.add_argument("--task", help=argparse.SUPPRESS)
    ap.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--judged", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--pg", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.task:
        child(args)
    else:
        driver(args)


if __name__ == "__main__":
    main()

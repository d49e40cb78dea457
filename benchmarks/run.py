"""rankframe against trec_eval-style tools, measured side by side in one run.

Every tool runs in a fresh subprocess (``benchmarks/tasks.py``) ``--repeat`` times, the
tools interleaved; we report the median of each phase and the median peak RSS of the child
(``os.wait4``).
Ratios are rankframe ÷ peer, so < 1 means rankframe is faster. The machine is shared and
noisy: read medians and ratios, not absolute numbers.

    python benchmarks/run.py                 # 1M rows, 3 repetitions (a few minutes)
    python benchmarks/run.py --rows 7M       # generates benchmarks/data/7M first if missing
    python benchmarks/run.py --tools rf_polars,pytrec_eval --repeat 5
    python benchmarks/run.py --baseline ../old-checkout   # this tree vs another, interleaved

With ``--baseline DIR`` every rankframe tool also runs from the checkout DIR (its own
``benchmarks/tasks.py``, its package first on ``PYTHONPATH``), interleaved with this tree's,
and a before/after table gives this tree ÷ DIR per phase.
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
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PY = sys.executable
TASKS = HERE / "tasks.py"
MEASURES = ["-m", "ndcg_cut.10", "-m", "map", "-m", "recip_rank", "-m", "P.10", "-m", "recall.100"]

ALL_TOOLS = [
    "rf_polars",
    "rf_duckdb",
    "rf_polars_run",
    "rf_duckdb_run",
    "rf_duckdb_sql",
    "rf_polars_eval",
    "rf_duckdb_eval",
    "rf_duckdb_sql_eval",
    "rf_cli",
    "pytrec_eval",
    "ranx",
    "ir_measures",
    "numpy",
]
# tool -> (task in tasks.py, extra environment)
ALIASES = {
    "rf_duckdb_sql": ("rf_duckdb", {"RF_BENCH_SQL": "1"}),
    "rf_duckdb_sql_eval": ("rf_duckdb_eval", {"RF_BENCH_SQL": "1"}),
}
TARGETS = {
    "e2e_pytrec": 0.10,
    "e2e_ranx_cold": 0.02,
    "eval_pytrec": 0.05,
    "eval_numpy": 3.0,
}


def cli_available() -> bool:
    return (REPO / "rankframe" / "cli.py").is_file() or (
        REPO / "rankframe" / "__main__.py"
    ).is_file()


LAST_CPU: list[float] = [0.0]  # user + system CPU seconds of the last spawned process


def spawn(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Run argv in a fresh process: (wall seconds, peak RSS MiB, stdout)."""
    with tempfile.TemporaryFile("w+") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            argv, stdout=out, stderr=subprocess.PIPE, cwd=REPO, env=env, text=True
        )
        assert proc.stderr is not None
        err = proc.stderr.read()  # drain, then reap with wait4 to get this child's rusage
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        LAST_CPU[0] = usage.ru_utime + usage.ru_stime
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}):\n{err[-3000:]}")
        out.seek(0)
        return wall, usage.ru_maxrss / 1024, out.read()


BASELINE_SUFFIX = "@baseline"


def run_task(task: str, data: Path, env: dict[str, str] | None = None,
             tasks: Path = TASKS) -> dict[str, Any]:
    if task == "rf_cli":
        argv = [
            PY,
            "-m",
            "rankframe",
            "eval",
            *MEASURES,
            str(data / "qrels.trec"),
            str(data / "run.trec"),
        ]
        wall, rss, _ = spawn(argv, env)
        return {
            "task": task,
            "impl": "CLI",
            "phases": {},
            "wall": wall,
            "rss": rss,
            "cpu": LAST_CPU[0],
        }
    name, extra = ALIASES.get(task, (task, {}))
    if extra:
        env = dict(env or os.environ, **extra)
    wall, rss, out = spawn([PY, str(tasks), name, str(data)], env)
    res = json.loads(out.strip().splitlines()[-1])
    res.update(task=task, wall=wall, rss=rss, cpu=LAST_CPU[0])
    return res


def median_result(runs: list[dict[str, Any]]) -> dict[str, Any]:
    first = runs[0]
    phases = {p: statistics.median(r["phases"][p] for r in runs) for p in first["phases"]}
    return {
        **first,
        "phases": phases,
        "wall": statistics.median(r["wall"] for r in runs),
        "rss": statistics.median(r["rss"] for r in runs),
        "cpu": statistics.median(r.get("cpu", 0.0) for r in runs),
        "n": len(runs),
    }


def measure(tools: list[str], data: Path, repeat: int, baseline: Path | None = None
            ) -> dict[str, dict[str, Any]]:
    """Every tool ``repeat`` times, interleaved (round 1: each tool once, round 2: each tool
    again, ...), so that a slow spell of the shared machine hits every tool alike. With a
    ``baseline`` checkout, each rankframe tool runs right after its twin from there."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    tools = ["rf_trec" if t == "rf_cli" and not cli_available() else t for t in tools]
    if baseline is not None:
        tools = [x for t in tools
                 for x in ((t, t + BASELINE_SUFFIX) if t.startswith("rf_") else (t,))]
    base_env = dict(os.environ, PYTHONPATH=str(baseline))
    base_tasks = (baseline or REPO) / "benchmarks" / "tasks.py"
    results: dict[str, dict[str, Any]] = {}
    runs: dict[str, list[dict[str, Any]]] = {tool: [] for tool in tools}
    with tempfile.TemporaryDirectory() as cache:
        # ranx's JIT compile: an empty numba cache (a user's very first call) — once; the
        # later ranx runs reuse the cache it fills.
        ranx_env = dict(env, NUMBA_CACHE_DIR=cache)
        if "ranx" in tools:
            results["ranx_compile"] = median_result([run_task("ranx", data, ranx_env)])
            print(f"  ranx (empty numba cache): {fmt_phases(results['ranx_compile'])}",
                  flush=True)
        for round_ in range(1, repeat + 1):
            for tool in tools:
                if tool.endswith(BASELINE_SUFFIX):
                    task = tool.removesuffix(BASELINE_SUFFIX)
                    runs[tool].append(run_task(task, data, base_env, base_tasks))
                else:
                    runs[tool].append(run_task(tool, data, ranx_env if tool == "ranx" else env))
                print(f"  round {round_} {tool}: {fmt_phases(runs[tool][-1])}", flush=True)
    for tool in tools:
        results[tool] = median_result(runs[tool])
    return results


def fmt_phases(r: dict[str, Any]) -> str:
    ph = ", ".join(f"{k}={v:.3f}s" for k, v in r["phases"].items())
    return f"{ph}; process {r['wall']:.2f}s, peak {r['rss']:.0f} MiB"


def ratio_rows(res: dict[str, dict[str, Any]]) -> list[tuple[str, str, float, float | None]]:
    """(comparison, definition, ratio, target) rankframe ÷ peer."""
    rows: list[tuple[str, str, float, float | None]] = []

    def ph(tool: str, phase: str) -> float | None:
        r = res.get(tool)
        return None if r is None else r["phases"].get(phase)

    def add(
        name: str, how: str, num: float | None, den: float | None, target: float | None = None
    ) -> None:
        if num is not None and den:
            rows.append((name, how, num / den, target))

    pipelines = [
        (f"rf_{eng}", eng, "read+judge+evaluate") for eng in ("polars", "duckdb", "duckdb_sql")
    ] + [(f"rf_{eng}_run", f"{eng}, evaluate_run", "read+evaluate_run")
         for eng in ("polars", "duckdb")]
    for tool, eng, steps in pipelines:
        rf_total = ph(tool, "total")
        add(
            f"rf[{eng}] ÷ pytrec_eval, parquet → per-query",
            f"{steps} ÷ read+dicts+evaluator+evaluate",
            rf_total,
            ph("pytrec_eval", "total"),
            TARGETS["e2e_pytrec"],
        )
        add(
            f"rf[{eng}] ÷ ranx cold (JIT compile), parquet → per-query",
            "÷ read+evaluate, empty numba cache",
            rf_total,
            ph("ranx_compile", "total_cold"),
            TARGETS["e2e_ranx_cold"],
        )
        add(
            f"rf[{eng}] ÷ ranx cold (numba cache on disk)",
            "÷ read+first evaluate, fresh process",
            rf_total,
            ph("ranx", "total_cold"),
        )
        add(f"rf[{eng}] ÷ ranx warm", "÷ read+second evaluate", rf_total, ph("ranx", "total_warm"))
    for eng in ("polars", "duckdb", "duckdb_sql"):
        ev = ph(f"rf_{eng}_eval", "evaluate")
        add(
            f"rf[{eng}] evaluate ÷ pytrec_eval evaluate",
            "judged table ÷ prepared dicts",
            ev,
            ph("pytrec_eval", "evaluate"),
            TARGETS["eval_pytrec"],
        )
        add(
            f"rf[{eng}] evaluate ÷ ranx warm evaluate",
            "judged table ÷ prepared Run/Qrels",
            ev,
            ph("ranx", "evaluate_warm"),
        )
        add(
            f"rf[{eng}] evaluate ÷ NumPy bound",
            "judged table ÷ prepared (nq, 1000) arrays",
            ev,
            ph("numpy", "evaluate"),
            TARGETS["eval_numpy"],
        )
    if "rf_cli" in res:
        add(
            "rankframe eval (CLI) ÷ ir_measures, TREC files",
            "process wall ÷ process wall",
            res["rf_cli"]["wall"],
            res.get("ir_measures", {}).get("wall"),
        )
    if "rf_trec" in res:
        add(
            "rf TREC stand-in ÷ ir_measures, TREC files",
            "read+judge+evaluate ÷ read+iter_calc",
            ph("rf_trec", "total"),
            ph("ir_measures", "total"),
        )
        add(
            "  same, whole process",
            "process wall ÷ process wall",
            res["rf_trec"]["wall"],
            res.get("ir_measures", {}).get("wall"),
        )
    return rows


def before_after(res: dict[str, dict[str, Any]]) -> list[str]:
    """Markdown rows: each rankframe tool of this tree ÷ its twin from the baseline."""
    lines = []
    for tool, r in res.items():
        base = res.get(tool + BASELINE_SUFFIX)
        if base is None:
            continue
        phases = [p for p in r["phases"] if p != "setup" and base["phases"].get(p)]
        shown = ", ".join(f"{p} {r['phases'][p] / base['phases'][p]:.2f}" for p in phases)
        lines.append(f"| {tool} | {shown} | {r['wall'] / base['wall']:.2f} "
                     f"| {r['rss'] / base['rss']:.2f} |")
    return lines


def agreement(res: dict[str, dict[str, Any]]) -> dict[str, float]:
    ref = res.get("pytrec_eval", {}).get("means")
    if not ref:
        return {}
    out = {}
    for tool, r in res.items():
        if "means" in r:
            out[tool] = max(abs(r["means"][m] - ref[m]) for m in ref)
    return out


def machine() -> str:
    import duckdb
    import numpy
    import polars

    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    vers = [
        f"python {platform.python_version()}",
        f"polars {polars.__version__}",
        f"duckdb {duckdb.__version__}",
        f"numpy {numpy.__version__}",
    ]
    for mod in ("pytrec_eval", "ranx", "ir_measures", "numba"):
        try:
            from importlib.metadata import version

            vers.append(f"{mod} {version(mod if mod != 'pytrec_eval' else 'pytrec_eval-terrier')}")
        except Exception:
            pass
    return f"{platform.machine()}, nproc {os.cpu_count()}, {mem:.0f} GiB; " + ", ".join(vers)


def markdown(res: dict[str, dict[str, Any]], meta: dict[str, Any], args: argparse.Namespace) -> str:
    lines = [
        f"### {meta['rows']:,} run rows · {meta['queries']:,} queries · "
        f"{meta['qrels_rows']:,} qrels rows",
        "",
        f"`python benchmarks/run.py --rows {args.rows} --repeat {args.repeat}` — "
        f"{time.strftime('%Y-%m-%d %H:%M')}, "
        f"median of {args.repeat}; {machine()}; load average at start {os.getloadavg()[0]:.1f}",
        "",
        "| comparison (rankframe ÷ peer) | how | ratio | target |",
        "|---|---|---:|---:|",
    ]
    for name, how, r, target in ratio_rows(res):
        t = "" if target is None else f"≤ {target:g} {'✅' if r <= target else '❌'}"
        lines.append(f"| {name} | {how} | {r:.3f} | {t} |")
    lines += [
        "",
        "| tool | implementation | phases (median s) | process wall s | process CPU s "
        "| peak RSS MiB | max abs Δ mean vs pytrec_eval |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    agree = agreement(res)
    for tool, r in res.items():
        ph = ", ".join(f"{k} {v:.3f}" for k, v in r["phases"].items() if k not in ("setup",))
        d = agree.get(tool)
        lines.append(
            f"| {tool} | {r.get('impl', '')} | {ph} | {r['wall']:.2f} | {r.get('cpu', 0):.2f} "
            f"| {r['rss']:.0f} | "
            f"{'' if d is None else f'{d:.1e}'} |"
        )
    changed = before_after(res)
    if changed:
        lines += [
            "",
            f"This tree ÷ the baseline `{args.baseline}` (< 1: faster now), medians of "
            "interleaved runs:",
            "",
            "| tool | phases (ratio) | process wall | peak RSS |",
            "|---|---|---:|---:|",
            *changed,
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rows", default="1M", help="workload size (benchmarks/data/<rows>)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tools", default=",".join(ALL_TOOLS))
    ap.add_argument("--baseline", type=Path, default=None,
                    help="another checkout whose rankframe tools run interleaved with these")
    ap.add_argument(
        "--out", type=Path, default=None, help="markdown (default benchmarks/results/<rows>.md)"
    )
    args = ap.parse_args()
    data = HERE / "data" / args.rows
    if not (data / "meta.json").is_file():
        print(f"generating {data} ...", flush=True)
        subprocess.run(
            [PY, str(HERE / "generate.py"), "--rows", args.rows, "--out", str(data)], check=True
        )
    meta = json.loads((data / "meta.json").read_text())
    print(f"{meta['rows']:,} rows, {meta['queries']:,} queries; repeat={args.repeat}", flush=True)
    res = measure(args.tools.split(","), data, args.repeat, args.baseline)
    md = markdown(res, meta, args)
    out = args.out or HERE / "results" / f"{args.rows}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(md)
    (out.with_suffix(".json")).write_text(json.dumps(res, indent=1))
    print()
    print(md)
    print(f"written: {out}")


if __name__ == "__main__":
    main()

"""The command line against trec_eval 10, whole processes: start-up and many runs per call.

Three workloads, each a pair of commands run in fresh processes, interleaved round by
round (trec_eval first in odd rounds, rankframe first in even ones), on TREC text files:

- ``small``: one run of 50 queries x 100 results (the first 50 queries of the 200k data,
  top 100 each; their qrels);
- ``200k``: one run of 200 queries x 1,000 (``benchmarks/data/200k``, made by
  ``generate.py --rows 200k`` when missing);
- ``runs``: ``--runs`` runs of 200 x 1,000 (the 200k run's scores plus Gaussian noise,
  one seed per run), as ``rankframe eval QRELS RUN...`` against a shell loop
  ``for f in RUN...; do trec_eval QRELS $f; done``.

Five measures everywhere (``-m ndcg_cut.10 -m map -m recip_rank -m P.10 -m recall.100``).
Wall time is ``perf_counter`` around spawn and ``os.wait4``; CPU time (user + system) and
peak RSS are that call's ``ru_utime + ru_stime`` and ``ru_maxrss`` (for the shell loop, the
sum of its processes' CPU and the largest one's RSS). Every round checks that
rankframe's stdout is byte-identical to trec_eval's (the loop's concatenated output).
rankframe runs as ``python -m rankframe`` from this tree, with byte-compiled modules (as
an installed package has them: ``PYTHONPYCACHEPREFIX`` in a temporary directory, one
warm-up call first). trec_eval is ``--trec-eval`` (default ``/tmp/te/trec_eval``), built
from ``../shared/reference/trec_eval`` when missing.

With ``--baseline DIR``, rankframe from the checkout DIR runs too, in the same rounds (its
order rotated with the others'), as a third column: this tree's time over the baseline's,
wall and CPU, and its output checked against trec_eval's as well.

Usage::

    python benchmarks/cli.py --repeat 9
    python benchmarks/cli.py --repeat 5 --only runs --threads 1,2
    python benchmarks/cli.py --repeat 11 --only small --baseline ../rankframe-e9c0b1c
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data"
REFERENCE = ROOT.parent / "shared" / "reference" / "trec_eval"
MEASURES = ["-m", "ndcg_cut.10", "-m", "map", "-m", "recip_rank", "-m", "P.10", "-m",
            "recall.100"]


def trec_eval_binary(path: Path) -> Path:
    """``path`` if it is there, else trec_eval built from the reference source."""
    if path.exists():
        return path
    build = Path(tempfile.mkdtemp(prefix="trec_eval-"))
    shutil.copytree(REFERENCE, build, dirs_exist_ok=True)
    subprocess.run(["make", "-C", str(build)], check=True, capture_output=True)
    return build / "trec_eval"


def base_data() -> Path:
    """``data/200k`` (200 queries x 1,000), generated when missing."""
    folder = DATA / "200k"
    if not (folder / "run.trec").exists():
        subprocess.run([sys.executable, str(HERE / "generate.py"), "--rows", "200k"],
                       check=True)
    return folder


def small_data(base: Path) -> Path:
    """``data/cli-50x100``: the first 50 queries of ``base``, top 100 results each."""
    folder = DATA / "cli-50x100"
    if (folder / "run.trec").exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    kept: dict[str, int] = {}
    with (base / "run.trec").open() as src, (folder / "run.trec").open("w") as out:
        for line in src:
            qid = line.split(" ", 1)[0]
            if qid not in kept:
                if len(kept) == 50:
                    break
                kept[qid] = 0
            if kept[qid] < 100:
                kept[qid] += 1
                out.write(line)
    with (base / "qrels.trec").open() as src, (folder / "qrels.trec").open("w") as out:
        out.writelines(line for line in src if line.split(" ", 1)[0] in kept)
    return folder


def many_runs(base: Path, count: int) -> list[Path]:
    """``count`` runs: ``base``'s scores plus N(0, 0.5) noise (seed i), tag ``run<i>``,
    each query's rows in rank order;
    written by a child process, so that this one stays small (a child's peak RSS starts
    at its parent's size)."""
    folder = DATA / "cli-runs"
    paths = [folder / f"run{i:03d}.trec" for i in range(count)]
    if not all(p.exists() for p in paths):
        subprocess.run([sys.executable, __file__, "--write-runs", str(count)], check=True)
    return paths


def write_runs(base: Path, count: int) -> None:
    """The files of :func:`many_runs`."""
    import numpy as np
    import polars as pl

    folder = DATA / "cli-runs"
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"run{i:03d}.trec" for i in range(count)]
    missing = [(i, p) for i, p in enumerate(paths) if not p.exists()]
    if missing:
        run = pl.read_csv(base / "run.trec", separator=" ", has_header=False,
                          new_columns=["qid", "Q0", "docid", "rank", "score", "tag"],
                          schema_overrides={"qid": pl.String, "docid": pl.String})
        for i, path in missing:
            noise = np.random.default_rng(i).normal(0.0, 0.5, run.height)
            # Written as systems write runs: each query's rows by score descending (docid
            # descending on ties: trec_eval's order), ranks 1, 2, ...
            (run.with_columns((pl.col("score") + noise).round(3).alias("score"),
                              pl.lit(f"run{i:03d}").alias("tag"))
             .sort(["qid", "score", "docid"], descending=[False, True, True])
             .with_columns(pl.int_range(1, pl.len() + 1).over("qid").alias("rank"))
             .write_csv(path, separator=" ", include_header=False))


@dataclass
class Task:
    name: str
    command: list[str]
    env: dict[str, str] | None = None
    walls: list[float] = field(default_factory=list)
    peaks: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)


def measure(task: Task, out: Path) -> bytes:
    """Run ``task`` once, record wall time and peak RSS; return its stdout."""
    with out.open("wb") as sink:
        start = time.perf_counter()
        child = subprocess.Popen(task.command, stdout=sink, env=task.env)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{task.name} failed ({child.returncode}): {' '.join(task.command)}")
    task.walls.append(wall)
    task.peaks.append(usage.ru_maxrss / 1024)
    task.cpus.append(usage.ru_utime + usage.ru_stime)
    return out.read_bytes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--trec-eval", type=Path, default=Path("/tmp/te/trec_eval"))
    parser.add_argument("--only", default="small,200k,runs",
                        help="workloads, comma-separated (small, 200k, runs)")
    parser.add_argument("--threads", default="",
                        help="also time `rankframe eval --threads N` on the runs, per N")
    parser.add_argument("--baseline", type=Path,
                        help="also run rankframe from this checkout, in the same rounds")
    parser.add_argument("--write-runs", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write_runs:
        write_runs(base_data(), args.write_runs)
        return

    trec_eval = str(trec_eval_binary(args.trec_eval))
    base = base_data()
    small = small_data(base)
    runs = many_runs(base, args.runs)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="rankframe-pyc-")
    rankframe = [sys.executable, "-m", "rankframe", "eval", *MEASURES]
    baseline_env = None
    if args.baseline:
        baseline_env = env | {"PYTHONPATH": str(args.baseline.resolve()),
                              "PYTHONPYCACHEPREFIX": tempfile.mkdtemp(prefix="baseline-pyc-")}

    pairs: list[tuple[str, Task, Task]] = []
    baselines: dict[str, Task] = {}
    workloads = args.only.split(",")
    for name, folder in (("small", small), ("200k", base)):
        if name in workloads:
            files = [str(folder / "qrels.trec"), str(folder / "run.trec")]
            pairs.append((name, Task(f"trec_eval {name}", [trec_eval, *MEASURES, *files]),
                          Task(f"rankframe {name}", [*rankframe, *files], env)))
            if baseline_env is not None:
                baselines[name] = Task(f"baseline {name}", [*rankframe, *files], baseline_env)
    # What a start-up is made of: the interpreter, Polars' import, the command line's.
    floors = [Task(name, [sys.executable, "-c", code], env) for name, code in (
        ("python -c pass", "pass"), ("python -c 'import polars'", "import polars"),
        ("python -c 'import rankframe.cli.main'", "import rankframe.cli.main"))
    ] if "small" in workloads or "200k" in workloads else []
    if "runs" in workloads:
        qrels, files = str(base / "qrels.trec"), [str(p) for p in runs]
        # A floor: Polars reading the runs' used columns, nothing evaluated.
        read = ("import polars as pl, sys\nfor f in sys.argv[1:]: pl.read_csv(f, separator=' ', "
                "has_header=False, quote_char=None, columns=[0, 2, 4])")
        floors.append(Task(f"Polars reads the {len(runs)} runs", [sys.executable, "-c", read,
                                                                  *files], env))
        loop = f'for f in "$@"; do {trec_eval} {" ".join(MEASURES)} {qrels} "$f"; done'
        label = f"{len(runs)} runs"
        pairs.append((label, Task(f"trec_eval loop, {label}", ["sh", "-c", loop, "sh", *files]),
                      Task(f"rankframe, {label}", [*rankframe, qrels, *files], env)))
        for n in filter(None, args.threads.split(",")):
            pairs.append((f"{label}, --threads {n}",
                          Task(f"trec_eval loop, {label}", ["sh", "-c", loop, "sh", *files]),
                          Task(f"rankframe --threads {n}, {label}",
                               [*rankframe, "--threads", n, qrels, *files], env)))

    scratch = Path(tempfile.mkdtemp(prefix="rankframe-cli-bench-"))
    warm = Task("warm-up", [*rankframe, str(small / "qrels.trec"), str(small / "run.trec")], env)
    measure(warm, scratch / "warm")
    for task in baselines.values():
        measure(task, scratch / "warm")  # its byte-compiled modules
    load = os.getloadavg()[0]
    for round_ in range(args.repeat):
        for label, reference, ours in pairs:
            tasks = [reference, ours, *([baselines[label]] if label in baselines else [])]
            turn = round_ % len(tasks)
            order = tasks[turn:] + tasks[:turn]
            outputs = {task.name: measure(task, scratch / "out") for task in order}
            for task in tasks[1:]:
                if outputs[task.name] != outputs[reference.name]:
                    raise SystemExit(f"{label}: {task.name}'s output differs from trec_eval's")
        for task in floors:
            measure(task, scratch / "out")
        print(f"round {round_ + 1}/{args.repeat} done", file=sys.stderr)

    from importlib.metadata import version

    stamp = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    print(f"`python benchmarks/cli.py --repeat {args.repeat}` — {stamp} UTC, medians of "
          f"{args.repeat} interleaved rounds, outputs byte-identical to trec_eval's in every "
          f"round; {platform.machine()}, nproc {os.cpu_count()}, python "
          f"{platform.python_version()}, polars {version('polars')}; load average at start "
          f"{load:.1f}\n")
    print(f"(a child's peak RSS may include this driver's size: "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB)\n")
    print("| workload | rankframe s | trec_eval s | ratio (wall) | rankframe CPU s | "
          "trec_eval CPU s | ratio (CPU) | rankframe peak MiB | trec_eval peak MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    med = statistics.median
    for label, reference, ours in pairs:
        a, b = med(ours.walls), med(reference.walls)
        c, d = med(ours.cpus), med(reference.cpus)
        print(f"| {label} | {a:.3f} | {b:.3f} | {a / b:.3f} | {c:.3f} | {d:.3f} | {c / d:.3f} | "
              f"{med(ours.peaks):.0f} | {med(reference.peaks):.0f} |")
    if baselines:
        print("\n| workload | this tree s | baseline s | ratio (wall) | this tree CPU s | "
              "baseline CPU s | ratio (CPU) |\n|---|---:|---:|---:|---:|---:|---:|")
        for label, _, ours in pairs:
            if label in baselines:
                then = baselines[label]
                a, b = med(ours.walls), med(then.walls)
                c, d = med(ours.cpus), med(then.cpus)
                print(f"| {label} | {a:.3f} | {b:.3f} | {a / b:.3f} | {c:.3f} | {d:.3f} | "
                      f"{c / d:.3f} |")
        print(f"\nbaseline: {args.baseline}")
    if floors:
        print("\n| floors: start-up, Polars reading (same rounds) | median s | CPU s | peak MiB |\n"
              "|---|---:|---:|---:|")
        for task in floors:
            print(f"| `{task.name}` | {med(task.walls):.3f} | {med(task.cpus):.3f} | "
                  f"{med(task.peaks):.0f} |")


if __name__ == "__main__":
    main()

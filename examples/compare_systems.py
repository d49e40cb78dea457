# %% [markdown]
# # Comparing retrieval systems with rankframe
#
# Evaluate several runs on the same qrels, test each against a baseline query by query,
# print the comparison as a paper-ready table, and draw three plots: nDCG@k curves, the
# per-query difference between two systems, and interpolated precision-recall curves.
#
# The script uses the run and qrels files in `examples/data/` when that folder has them;
# otherwise it writes a small synthetic collection (one qrels file, three runs of
# increasing quality) to a temporary folder. It runs as a notebook (percent format, e.g.
# with Jupytext or VS Code) or headless: `python examples/compare_systems.py`.
# Needs the extras `stats` and `plot`.

# %%
from __future__ import annotations

import os
import random
import tempfile
from pathlib import Path

import polars as pl

import rankframe as rf
from rankframe.analysis import plots, report

DATA = Path(__file__).resolve().parent / "data"
OUT = Path(os.environ.get("RANKFRAME_PLOT_DIR") or tempfile.mkdtemp(prefix="rankframe-compare-"))


def synthetic_collection(folder: Path, n_queries: int = 40, seed: int = 7) -> tuple[Path,
                                                                                    list[Path]]:
    """Qrels with graded judgements (0-3) and three runs whose scores track the grades
    more or less closely: bm25 (noisy), bm25_rm3 (a bit better), dense (best)."""
    rng = random.Random(seed)
    grades: dict[tuple[int, int], int] = {}
    lines = []
    for q in range(1, n_queries + 1):
        for d in range(1, 51):
            if rng.random() < 0.7:  # judged pool: 70% of the documents
                grade = rng.choices([0, 1, 2, 3], weights=[70, 15, 10, 5])[0]
                grades[(q, d)] = grade
                lines.append(f"{q} 0 D{q}-{d} {grade}")
    qrels = folder / "qrels.txt"
    qrels.write_text("\n".join(lines) + "\n")
    runs = []
    for tag, signal in (("bm25", 0.8), ("bm25_rm3", 1.0), ("dense", 1.5)):
        lines = []
        for q in range(1, n_queries + 1):
            hardness = rng.uniform(0.3, 1.2)  # some queries are hard for every system
            scores = {d: signal * hardness * grades.get((q, d), 0) + rng.gauss(0, 1.2)
                      for d in range(1, 51)}
            ranked = sorted(scores, key=lambda d: -scores[d])[:30]
            lines += [f"{q} Q0 D{q}-{d} {r} {scores[d]:.5f} {tag}"
                      for r, d in enumerate(ranked, 1)]
        run = folder / f"{tag}.run"
        run.write_text("\n".join(lines) + "\n")
        runs.append(run)
    return qrels, runs


qrels_files = sorted(DATA.glob("*qrels*")) if DATA.is_dir() else []
run_files = sorted(DATA.glob("run.*.txt")) if DATA.is_dir() else []
if qrels_files and len(run_files) >= 2:
    qrels_path, run_paths = qrels_files[0], run_files[:3]
else:
    qrels_path, run_paths = synthetic_collection(OUT)
print("qrels:", qrels_path)
print("runs: ", ", ".join(str(p) for p in run_paths))

# %% [markdown]
# ## Per-query values
#
# `rf.evaluate_runs` reads, judges and evaluates each run and stacks the per-query tables
# with a `system` column: what `rf.evaluate_run` gives for one run, on the queries that run
# retrieved for (as trec_eval; `all_queries=True` is its `-c`). Systems are named by run tag.

# %%
cutoffs = [1, 3, 5, 10, 20]
eleven = [f"iprec_at_recall_{i / 10:.2f}" for i in range(11)]
measures = ["ndcg@10", "map", "P@10", *(f"ndcg@{k}" for k in cutoffs if k != 10), *eleven]
per_query = rf.evaluate_runs(run_paths, qrels_path, measures)
print(per_query.select("system", "qid", "ndcg@10", "map", "P@10").head(6))

# %% [markdown]
# ## Compare against the baseline
#
# The first run is the baseline. A paired randomization test on each (system, measure),
# Holm-corrected over the whole family, with t and bootstrap confidence intervals.

# %%
result = rf.compare(per_query, measures=["ndcg@10", "map", "P@10"], test="randomization",
                 correction="holm", n_resamples=5_000, seed=1)
with pl.Config(tbl_cols=-1, tbl_width_chars=160, float_precision=4):
    print(result.select("system", "measure", "mean", "ci_low", "ci_high", "delta",
                        "p_value", "p_adjusted", "significant", "wins", "ties", "losses",
                        "effect_size"))

# %%
note = "Paired randomization test, Holm correction, alpha 0.05."
print(report.to_text(result, note=note))
print(report.to_markdown(result, note=note))
print(report.to_latex(result, caption="Runs compared with the first as baseline",
                      label="tab:compare", note=note))

# %% [markdown]
# ## Plots
#
# Each function returns a Matplotlib figure (shown inline in Jupyter); `plots.save`
# writes PNG, SVG or PDF.

# %%
systems = per_query["system"].unique(maintain_order=True).to_list()
at_k = plots.metric_at_k(per_query, measure="ndcg", title="nDCG at increasing cutoffs")
diff = plots.per_query_difference(per_query, "ndcg@10", a=systems[0], b=systems[-1])
pr = plots.precision_recall(per_query, title="11-point interpolated precision")
for name, figure in (("ndcg_at_k", at_k), ("difference", diff), ("precision_recall", pr)):
    for suffix in ("png", "svg"):
        path = plots.save(figure, OUT / f"{name}.{suffix}")
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")

# %%
at_k  # noqa: B018  (the last expression of a notebook cell is displayed)

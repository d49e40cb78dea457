# %% [markdown]
# # Comparing retrieval systems with rankframe
#
# Three runs of `examples/data/` (bm25, dense, hybrid) on the same qrels: test each against
# the first query by query, print the comparison as a paper-ready table, and draw three
# plots: nDCG at increasing cutoffs, the per-query difference between two systems, and
# interpolated precision-recall curves.
#
# `examples/compare_systems.py` is the source of `examples/compare_systems.ipynb`
# (`python examples/make_notebook.py` writes the notebook from it). Open the notebook in
# Jupyter (which runs it from `examples/`) or run
# `jupyter nbconvert --to notebook --execute examples/compare_systems.ipynb` from the
# repository root; the script runs headless from either: `python
# examples/compare_systems.py`. Needs the extras `stats` and `plot`.

# %%
# %matplotlib inline
import os
import tempfile
from pathlib import Path

import polars as pl

import rankframe as rf
from rankframe.analysis import plots, report

# The example data from examples/ (where Jupyter runs a notebook) or from the root.
DATA = next((p for p in (Path("data"), Path("examples", "data")) if (p / "qrels.txt").is_file()),
            None)
if DATA is None:
    raise FileNotFoundError("examples/data/qrels.txt not found: run this from the repository "
                            "root or from examples/")
qrels_path = DATA / "qrels.txt"
run_paths = [DATA / f"run.{name}.txt" for name in ("bm25", "dense", "hybrid")]

# %% [markdown]
# ## Compare against the baseline
#
# `rf.compare` takes the runs and the qrels directly: it evaluates every run (here on the
# qrels queries it retrieved for, as trec_eval without `-c`: `all_queries=False`; by
# default every qrels query, a missing one scoring 0; `rf.evaluate_runs` does this step on
# its own) and tests each system against the first run, the baseline, on every measure.
# Here a paired randomization test, Holm-corrected over the whole family, with t and
# bootstrap intervals.

# %%
result = rf.compare(run_paths, qrels=qrels_path, measures=["ndcg@10", "map", "P@10"],
                    test="randomization", correction="holm", n_resamples=5_000, seed=1,
                    all_queries=False)
with pl.Config(tbl_cols=-1, tbl_width_chars=160, float_precision=4):
    print(result.select("system", "measure", "mean", "ci_low", "ci_high", "delta",
                        "p_value", "p_adjusted", "significant", "wins", "ties", "losses",
                        "effect_size"))

# %% [markdown]
# ## A table for the paper
#
# Superscript letters name the systems a value is significantly better than.

# %%
note = "Paired randomization test, Holm correction, alpha 0.05."
print(report.to_text(result, note=note))
print(report.to_markdown(result, note=note))
print(report.to_latex(result, caption="Runs compared with bm25 as baseline",
                      label="tab:compare", note=note))

# %% [markdown]
# ## Per-query values for the plots
#
# The plots read the per-query table, one row per (system, query): `rf.evaluate_runs`
# names each system by its run tag.

# %%
cutoffs = [1, 3, 5, 10, 20]
eleven = [f"iprec_at_recall_{i / 10:.2f}" for i in range(11)]
per_query = rf.evaluate_runs(run_paths, qrels_path,
                             [*(f"ndcg@{k}" for k in cutoffs), *eleven], all_queries=False)
systems = per_query["system"].unique(maintain_order=True).to_list()
print(per_query.select("system", "qid", "ndcg@10").head(6))

# %% [markdown]
# ## Plots
#
# Each function returns a Matplotlib figure, shown inline in Jupyter; `plots.save` writes
# PNG, SVG or PDF.

# %%
at_k = plots.metric_at_k(per_query, measure="ndcg", title="nDCG at increasing cutoffs")
at_k  # noqa: B018  (a cell's last expression is displayed)

# %%
diff = plots.per_query_difference(per_query, "ndcg@10", a=systems[0], b=systems[-1])
diff  # noqa: B018

# %%
pr = plots.precision_recall(per_query, title="11-point interpolated precision")
pr  # noqa: B018

# %%
out = Path(os.environ.get("RANKFRAME_PLOT_DIR") or tempfile.mkdtemp(prefix="rankframe-"))
out.mkdir(parents=True, exist_ok=True)
for name, figure in (("ndcg_at_k", at_k), ("difference", diff), ("precision_recall", pr)):
    path = plots.save(figure, out / f"{name}.png")
    print(f"wrote {path} ({path.stat().st_size:,} bytes)")

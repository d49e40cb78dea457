"""``examples/compare_systems.ipynb`` is what ``examples/make_notebook.py`` writes from
``examples/compare_systems.py``, is committed without outputs, and runs in a Jupyter kernel
from the repository root without an error, showing its three plots inline."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import rankframe as rf
from tests.support import REPO, needs
from tests.support.notebook import NOTEBOOK, execute

nbformat = needs.load("notebook")

EXAMPLES = REPO / "examples"
PLOTS = ("plots.metric_at_k", "plots.per_query_difference", "plots.precision_recall")


def _make_notebook():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("make_notebook", EXAMPLES / "make_notebook.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_notebook_is_generated_from_the_script_without_outputs() -> None:
    committed = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(committed)
    built = _make_notebook().build((EXAMPLES / "compare_systems.py").read_text())
    assert [(c.cell_type, c.source) for c in committed.cells] == \
        [(c.cell_type, c.source) for c in built.cells], \
        "stale notebook: run python examples/make_notebook.py"
    code = [c for c in committed.cells if c.cell_type == "code"]
    assert all(c.outputs == [] and c.execution_count is None for c in code)
    assert code[0].source.startswith("%matplotlib inline\n")
    assert "rf.compare(run_paths, qrels=qrels_path" in "".join(c.source for c in code)


def test_build_rejects_text_before_the_first_cell() -> None:
    with pytest.raises(ValueError, match="before the first"):
        _make_notebook().build("import os\n# %%\nx = 1\n")


def test_notebook_executes_and_shows_its_plots(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    notebook = execute(REPO, tmp_path, monkeypatch)  # an error in a cell raises

    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code)
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert errors == []
    for call in PLOTS:
        cell = next(c for c in code if call in c.source)
        images = [o for o in cell.outputs
                  if o.output_type in ("execute_result", "display_data")
                  and "image/png" in o.get("data", {})]
        assert len(images) == 1, f"{call}: no inline PNG, outputs {cell.outputs}"
    text = "".join(o.get("text", "") for c in code for o in c.outputs)
    data = EXAMPLES / "data"
    per_query = rf.evaluate_runs([data / "run.hybrid.txt"], data / "qrels.txt", "ndcg@10",
                                 all_queries=False)  # as the notebook evaluates them
    assert f"(c)  hybrid  {per_query['ndcg@10'].mean():.4f}^a" in text  # the report table
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "difference.png", "ndcg_at_k.png", "precision_recall.png"]

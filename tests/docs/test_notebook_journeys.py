"""``examples/compare_systems.ipynb`` runs where Jupyter runs it, its own folder
``examples/``, and from the repository root (``jupyter nbconvert --execute
examples/compare_systems.ipynb``), with no file left behind in the checkout."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support import REPO

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("matplotlib")
pytest.importorskip("scipy")

NOTEBOOK = REPO / "examples" / "compare_systems.ipynb"


def _untracked() -> set[str]:
    done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                          cwd=REPO, capture_output=True, text=True, check=False)
    return {line[3:] for line in done.stdout.splitlines() if line.startswith("??")}


@pytest.mark.parametrize("folder", ["examples"])  # from the root: test_notebook.py
def test_the_notebook_runs_from(folder: str, tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    kernelspec = pytest.importorskip("jupyter_client.kernelspec")
    try:
        kernelspec.KernelSpecManager().get_kernel_spec("python3")
    except kernelspec.NoSuchKernel:
        pytest.skip("no python3 Jupyter kernel (pip install ipykernel)")
    path = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), path])))
    monkeypatch.setenv("RANKFRAME_PLOT_DIR", str(tmp_path))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    before = _untracked()
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(notebook, kernel_name="python3", timeout=300,
                                     resources={"metadata": {"path": str(REPO / folder)}})
    client.execute()  # raises CellExecutionError naming the cell on any error
    outputs = "".join(o.get("text", "") for c in notebook.cells if c.cell_type == "code"
                      for o in c.outputs)
    assert "(c)  hybrid  0.6462^a" in outputs
    assert len(list(tmp_path.iterdir())) == 3
    assert _untracked() == before

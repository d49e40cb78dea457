"""``examples/compare_systems.ipynb`` runs where Jupyter runs it, its own folder
``examples/``, and from the repository root (``jupyter nbconvert --execute
examples/compare_systems.ipynb``), with no file left behind in the checkout."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support import REPO
from tests.support.notebook import execute


def _untracked() -> set[str]:
    done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                          cwd=REPO, capture_output=True, text=True, check=False)
    return {line[3:] for line in done.stdout.splitlines() if line.startswith("??")}


@pytest.mark.parametrize("folder", ["examples"])  # from the root: test_notebook.py
def test_the_notebook_runs_from(folder: str, tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    before = _untracked()
    notebook = execute(REPO / folder, tmp_path, monkeypatch)  # an error in a cell raises
    outputs = "".join(o.get("text", "") for c in notebook.cells if c.cell_type == "code"
                      for o in c.outputs)
    assert "(c)  hybrid  0.6462^a" in outputs
    assert len(list(tmp_path.iterdir())) == 3
    assert _untracked() == before

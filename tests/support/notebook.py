"""Executing ``examples/compare_systems.ipynb`` in a Jupyter kernel, as a test does: skipped
without nbformat, nbclient, matplotlib, scipy or a python3 kernel."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.support import REPO, needs

NOTEBOOK = REPO / "examples" / "compare_systems.ipynb"


def execute(folder: Path, plot_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The notebook run in a kernel whose working directory is ``folder``, importing this
    checkout's rankframe and writing its plots to ``plot_dir``; its cells with outputs.
    An error in a cell raises nbclient's ``CellExecutionError`` naming the cell."""
    nbformat = needs.load("notebook", "nbformat")
    nbclient = needs.load("notebook", "nbclient")
    needs.require("matplotlib")
    needs.require("scipy")
    kernelspec = needs.load("notebook", "jupyter_client.kernelspec")
    try:
        kernelspec.KernelSpecManager().get_kernel_spec("python3")
    except kernelspec.NoSuchKernel:
        needs.not_met("notebook", "no python3 Jupyter kernel (pip install ipykernel)")
    # the kernel inherits the environment: this checkout's rankframe, plots to plot_dir
    path = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), path])))
    monkeypatch.setenv("RANKFRAME_PLOT_DIR", str(plot_dir))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(notebook, kernel_name="python3", timeout=300,
                                     resources={"metadata": {"path": str(folder)}})
    client.execute()
    return notebook

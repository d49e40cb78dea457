"""What a test needs beyond rankframe's core dependencies, checked in one place: the modules
of an optional extra (``pyproject.toml``), or a program.

A test that lacks what it needs is skipped with one line naming what to install. Under
``CI`` the environment holds the extras named by ``RANKFRAME_TEST_EXTRAS`` (default ``dev``,
what ``.ci/run`` installs for its main steps; ``test`` for its run of the README's command in
an environment with only that extra): a need those extras provide fails instead of skipping,
as a missing trec_eval binary does.

Three ways to say it:

- ``needs.require("duckdb-cli")`` in a test, a fixture or at a module's top (returns the
  program's path, or the first module), ``needs.load("scipy", "scipy.stats")`` (a module);
- ``@needs.mark("docs")`` on a test, ``pytestmark = needs.mark("ibis")`` on a module, or a
  ``pytest.param(..., marks=needs.mark(...))``: checked by ``tests/conftest.py`` before the
  test runs;
- ``pytestmark = needs.module_level("ibis")`` at the top of a module whose own imports need
  it (before them): the module is skipped whole, and its tests carry the mark.

The mark is what ``--extra-tests-only`` selects: the tests that need more than the ``test``
extra, which CI runs in its ``dev`` environment.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import sys
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support import REPO

IN_CI = bool(os.environ.get("CI"))
#: The extras the CI environment holds (comma-separated; ``dev`` unless said).
EXTRAS_VARIABLE = "RANKFRAME_TEST_EXTRAS"


@dataclass(frozen=True)
class Need:
    """Something a test needs: modules to import or programs on the PATH (the
    environment's own scripts first), and the extra that provides it."""

    what: str  # said in the skip line
    extra: str  # the extra of pyproject.toml that provides it
    modules: tuple[str, ...] = ()
    programs: tuple[str, ...] = ()
    install: str = ""  # what to run to have it; default: the extra

    @property
    def how(self) -> str:
        return self.install or f"pip install -e '.[{self.extra}]'"


NEEDS: dict[str, Need] = {
    "scipy": Need("SciPy", "stats", modules=("scipy", "numpy")),
    "matplotlib": Need("Matplotlib", "plot", modules=("matplotlib",)),
    "pytrec_eval": Need("pytrec_eval", "test", modules=("pytrec_eval",)),
    "ranx": Need("ranx", "peers", modules=("ranx",)),
    "ir_measures": Need("ir_measures", "peers", modules=("ir_measures",)),
    "torchmetrics": Need("TorchMetrics", "peers", modules=("torchmetrics", "torch"),
                         install="pip install torch==2.13.0 -e '.[peers]'"),
    "notebook": Need("Jupyter's nbformat, nbclient and ipykernel", "test",
                     modules=("nbformat", "nbclient", "jupyter_client.kernelspec", "ipykernel")),
    "pandas": Need("pandas", "dev", modules=("pandas",), install="pip install pandas"),
    "pyspark": Need("PySpark", "spark", modules=("pyspark",)),
    "ibis": Need("Ibis", "ibis", modules=("ibis",)),
    "datafusion": Need("DataFusion", "ibis", modules=("datafusion",)),
    "docs": Need("the documentation tools (MkDocs, mkdocstrings, griffe, latex2mathml)",
                 "docs", modules=("mkdocs", "mkdocstrings_handlers.python", "griffe",
                                  "latex2mathml")),
    "duckdb-cli": Need("the DuckDB command-line tool", "dev", programs=("duckdb",),
                       install="pip install duckdb-cli"),
}


@cache
def extras_of(names: str) -> frozenset[str]:
    """The extras ``names`` (comma-separated) stand for, those they include
    (``rankframe[test,spark]``) included."""
    declared = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"]["optional-dependencies"]
    found: set[str] = set()
    todo = [n.strip() for n in names.split(",") if n.strip()]
    while todo:
        extra = todo.pop()
        if extra in found:
            continue
        if extra not in declared:
            raise ValueError(f"{EXTRAS_VARIABLE}: no extra {extra!r} in pyproject.toml")
        found.add(extra)
        for requirement in declared[extra]:
            if requirement.startswith("rankframe["):
                todo += requirement[len("rankframe["):].partition("]")[0].split(",")
    return frozenset(found)


def installed_extras() -> frozenset[str]:
    """The extras this environment is meant to hold: under CI, ``RANKFRAME_TEST_EXTRAS``
    (default ``dev``); elsewhere none is promised."""
    if not IN_CI:
        return frozenset()
    return extras_of(os.environ.get(EXTRAS_VARIABLE) or "dev")


def beyond_test(name: str) -> bool:
    """Whether the need ``name`` takes more than the ``test`` extra."""
    return NEEDS[name].extra not in extras_of("test")


def program(name: str) -> str | None:
    """The path of ``name`` on the PATH, this environment's scripts first."""
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return shutil.which(name, path=path)


def missing(name: str) -> str | None:
    """Why the need ``name`` is not met here (the skip line), or None."""
    need = NEEDS[name]
    absent = [m for m in need.modules if not _importable(m)]
    absent += [p for p in need.programs if program(p) is None]
    if not absent:
        return None
    return f"needs {need.what} ({', '.join(absent)} missing): {need.how}"


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a dotted name whose package is missing
        return False


def not_met(name: str, message: str) -> None:
    """Skip with ``message`` what lacks the need ``name`` (a test, or a whole module from its
    top); under CI, when CI's extras provide it, fail instead."""
    if NEEDS[name].extra in installed_extras():
        pytest.fail(f"{message} (CI's environment has the {NEEDS[name].extra!r} extra: "
                    f"{EXTRAS_VARIABLE}={os.environ.get(EXTRAS_VARIABLE) or 'dev'})",
                    pytrace=False)
    pytest.skip(message, allow_module_level=True)


def require(name: str) -> Any:
    """Skip (see :func:`not_met`) unless the need ``name`` is met; the first program's
    path, else the first module."""
    if name not in NEEDS:
        raise KeyError(f"unknown need {name!r}; known: {', '.join(NEEDS)}")
    message = missing(name)
    if message is not None:
        not_met(name, message)
    need = NEEDS[name]
    if need.programs:
        return program(need.programs[0])
    return importlib.import_module(need.modules[0]) if need.modules else None


def load(name: str, module: str | None = None) -> ModuleType:
    """The module ``module`` (default: the need's first) once the need ``name`` is met."""
    require(name)
    return importlib.import_module(module or NEEDS[name].modules[0])


def mark(*names: str) -> pytest.MarkDecorator:
    """The ``needs`` mark: conftest checks each need before the test runs."""
    unknown = [n for n in names if n not in NEEDS]
    if unknown:
        raise KeyError(f"unknown need(s) {unknown}; known: {', '.join(NEEDS)}")
    return pytest.mark.needs(*names)


def module_level(*names: str) -> pytest.MarkDecorator:
    """For the top of a test module whose imports need ``names``: skip the whole module
    (fail under CI, as :func:`require`) unless each is met; the mark for ``pytestmark``."""
    for name in names:
        require(name)
    return mark(*names)

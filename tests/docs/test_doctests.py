"""The doctests of every module of the rankframe package, so a plain ``python -m pytest`` runs
them (one test per module)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import rankframe
from tests.support import needs

MODULES = sorted(info.name for info in pkgutil.walk_packages(rankframe.__path__, "rankframe."))
#: The package's modules needing an optional extra (their package's): what they need.
EXTRA_MODULES = {"rankframe.faces.spark": "pyspark", "rankframe.spark": "pyspark",
                 "rankframe.faces.ibis": "ibis", "rankframe.ibis": "ibis"}


def _need(name: str) -> str | None:
    return next((need for module, need in EXTRA_MODULES.items()
                 if name == module or name.startswith(module + ".")), None)


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=[needs.mark(need)] if (need := _need(n)) else []) for n in MODULES
    if not n.endswith(".__main__")])  # importing __main__ runs the command line
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    failed, _ = doctest.testmod(module, verbose=False,
                                optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failed == 0, f"{failed} doctest(s) of {name} failed (report in the captured stdout)"

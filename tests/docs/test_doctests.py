"""The doctests of every module of the rankframe package, so a plain ``python -m pytest`` runs
them (one test per module)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import rankframe

MODULES = sorted(info.name for info in pkgutil.walk_packages(rankframe.__path__, "rankframe."))
EXTRA_MODULES = {  # module -> the optional package it needs
    "rankframe.faces.spark": "pyspark", "rankframe.spark": "pyspark",
    "rankframe.faces.ibis": "ibis", "rankframe.ibis": "ibis",
}


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    if name.endswith(".__main__"):
        pytest.skip("importing __main__ runs the command line")
    if name in EXTRA_MODULES:
        package = EXTRA_MODULES[name]
        pytest.importorskip(package, reason=f"{package} is not installed (an optional extra)")
    module = importlib.import_module(name)
    failed, _ = doctest.testmod(module, verbose=False,
                                optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failed == 0, f"{failed} doctest(s) of {name} failed (report in the captured stdout)"

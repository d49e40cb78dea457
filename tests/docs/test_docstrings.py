"""Every public function documents each of its parameters in a numpy-style ``Parameters``
section (the API reference of the documentation site renders it), so ``help(rf.ndcg)``
says what ``rank``, ``gain`` or ``ideal`` do."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

import rankframe
import rankframe.analysis.plots
import rankframe.analysis.report
import rankframe.duckdb

MODULES: list[ModuleType] = [rankframe, rankframe.duckdb, rankframe.analysis.plots,
                             rankframe.analysis.report]
try:  # the optional extra; CI's main environment has it, the lowest-versions one not
    import rankframe.ibis
except ImportError:
    pass
else:
    MODULES.append(rankframe.ibis)


def _public_functions() -> list[tuple[str, Callable[..., Any]]]:
    found: dict[str, Callable[..., Any]] = {}
    for module in MODULES:
        names = getattr(module, "__all__", None) or [
            n for n, v in vars(module).items()
            if not n.startswith("_") and inspect.isfunction(v) and v.__module__ == module.__name__]
        for name in names:
            value = getattr(module, name)
            if inspect.isfunction(value):
                found[f"{module.__name__}.{name}"] = value
    return sorted(found.items())


FUNCTIONS = _public_functions()


def documented_parameters(doc: str) -> set[str]:
    """The names a numpy-style ``Parameters`` section of ``doc`` documents (``a, b : type``
    lines at the section's indentation)."""
    match = re.search(r"^Parameters\n-{3,}\n(.*?)(?=^\S[^\n]*\n-{3,}\n|\Z)", doc,
                      flags=re.MULTILINE | re.DOTALL)
    if not match:
        return set()
    names: set[str] = set()
    for line in match[1].splitlines():
        if line and not line[0].isspace():
            head = line.split(" : ")[0]
            names.update(part.strip().lstrip("*") for part in head.split(","))
    return names


def test_the_public_api_is_found() -> None:
    names = {n.rsplit(".", 1)[1] for n, _ in FUNCTIONS}
    assert {"ndcg", "judge", "evaluate", "register", "to_latex"} <= names
    assert ("to_sql" in names) == any(m.__name__ == "rankframe.ibis" for m in MODULES)


@pytest.mark.parametrize(("name", "function"), FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_every_parameter_is_documented(name: str, function: Callable[..., Any]) -> None:
    parameters = [p for p in inspect.signature(function).parameters
                  if p not in ("self", "args", "kwargs")]
    documented = documented_parameters(inspect.getdoc(function) or "")
    missing = [p for p in parameters if p not in documented]
    assert not missing, f"{name}: the Parameters section does not document {missing}"
    extra = documented - set(parameters)
    assert not extra, f"{name}: the Parameters section documents unknown {sorted(extra)}"


def test_documented_parameters_reads_numpy_sections() -> None:
    doc = ("Summary.\n\nParameters\n----------\nrel\n    Grades.\nsystem, query : str\n"
           "    Columns.\n\nReturns\n-------\nx\n    Not a parameter.\n")
    assert documented_parameters(doc) == {"rel", "system", "query"}
    assert documented_parameters("No section; mentions rel.") == set()

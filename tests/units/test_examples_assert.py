"""Every generated example asserts something: read from the test files with ``ast``, the
body of each hypothesis test (``@given``, nested ones too) has no ``return`` (an example
that returns early checks nothing: generate valid cases instead) and asserts (an
``assert``, ``pytest.raises``/``warns``, or a call of a helper named ``assert_...`` or
``check_...``); an ``assume`` (a rejected example) only where hypothesis's
``filter_too_much`` health check stays on to count them."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tests.support import TESTS

ASSERTING_CALLS = ("assert", "check_")


@dataclass(frozen=True)
class Problem:
    file: str
    line: int
    test: str
    what: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line} {self.test}: {self.what}"


def _name(node: ast.expr) -> str:
    """The called name: ``f`` of ``f(...)``, ``raises`` of ``pytest.raises(...)``."""
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _is_given(decorator: ast.expr) -> bool:
    return _name(decorator.func if isinstance(decorator, ast.Call) else decorator) == "given"


def _own_nodes(function: ast.FunctionDef) -> list[ast.AST]:
    """The nodes of the function's body, not those of functions or classes defined in it."""
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    found: list[ast.AST] = []
    stack: list[ast.AST] = [n for n in function.body if not isinstance(n, nested)]
    while stack:
        node = stack.pop()
        found.append(node)
        stack += [c for c in ast.iter_child_nodes(node) if not isinstance(c, nested)]
    return found


def _counts_rejections(function: ast.FunctionDef) -> bool:
    """Whether hypothesis's filter_too_much health check is on for the test (not suppressed
    by its ``@settings``: a list of every check, or that one)."""
    for decorator in function.decorator_list:
        if not (isinstance(decorator, ast.Call) and _name(decorator.func) == "settings"):
            continue
        for keyword in decorator.keywords:
            if keyword.arg == "suppress_health_check":
                text = ast.unparse(keyword.value)
                if "filter_too_much" in text or text.replace(" ", "") == "list(HealthCheck)":
                    return False
    return True


def problems(source: str, file: str = "<test>") -> list[Problem]:
    """What keeps an example of a hypothesis test in ``source`` from asserting."""
    found: list[Problem] = []
    for function in ast.walk(ast.parse(source)):
        if not (isinstance(function, ast.FunctionDef)
                and any(_is_given(d) for d in function.decorator_list)):
            continue
        nodes = _own_nodes(function)
        calls = [_name(n.func) for n in nodes if isinstance(n, ast.Call)]
        for node in nodes:
            if isinstance(node, ast.Return):
                found.append(Problem(file, node.lineno, function.name,
                                     "returns early: the example asserts nothing"))
        asserts = any(isinstance(n, ast.Assert) for n in nodes) or any(
            c in ("raises", "warns") or c.startswith(ASSERTING_CALLS) for c in calls)
        if not asserts:
            found.append(Problem(file, function.lineno, function.name, "asserts nothing"))
        if "assume" in calls and not _counts_rejections(function):
            found.append(Problem(file, function.lineno, function.name,
                                 "assume() with filter_too_much suppressed: rejected examples "
                                 "are not counted"))
    return found


def test_every_hypothesis_test_asserts_in_every_example() -> None:
    files = sorted(TESTS.rglob("*.py"))
    found = [p for f in files
             for p in problems(f.read_text(encoding="utf-8"), str(f.relative_to(TESTS.parent)))]
    assert [str(p) for p in found] == []
    assert sum(f.read_text(encoding="utf-8").count("@given(") for f in files) > 30


def test_the_check_finds_an_early_return_and_a_test_without_assertion() -> None:
    source = '''
@given(st.integers())
def test_returns(x):
    if x < 0:
        return
    assert x >= 0

@settings(suppress_health_check=list(HealthCheck))
@given(st.integers())
def test_quiet(x):
    assume(x > 0)
    compute(x)

def test_outer():
    @given(st.integers())
    def check(x):
        def inner():
            return 1
        check_against_oracle(x, inner())
    check()
'''
    assert [(p.line, p.test, p.what.split(":")[0]) for p in problems(source)] == [
        (5, "test_returns", "returns early"),
        (10, "test_quiet", "asserts nothing"),
        (10, "test_quiet", "assume() with filter_too_much suppressed"),
    ]

"""The package's import graph, read from the source with ``ast``: no cycles, between modules
or between the package's parts (``trec_eval/``, ``faces/``, ``measures.py`` ...), every kind of
import counted: at module level, inside functions (lazy), under ``TYPE_CHECKING`` and by name
(``importlib.import_module("rankframe.x")``, the lazy tables of ``__getattr__`` loaders); the
command line on top (library modules never import it; its modules import each other only from
``cli.main`` to the subcommands, and its shared parts import none), no module reaching into
another's ``_private`` names, and ``import rankframe`` staying light (no NumPy, SciPy,
Matplotlib or command line)."""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support import REPO

PACKAGE = REPO / "rankframe"

# Private names imported across modules in code outside this change's files, each to be
# removed by its owner: (importer, module, name).
KNOWN_PRIVATE_IMPORTS: set[tuple[str, str, str]] = set()


@dataclass
class Module:
    name: str
    path: Path
    imports: set[str] = field(default_factory=set)
    #: (module, name) for every ``_name`` read from another rankframe module.
    private: set[tuple[str, str]] = field(default_factory=set)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _ancestors(name: str) -> set[str]:
    """The packages Python has imported before the module ``name`` runs."""
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def read_graph() -> dict[str, Module]:
    """Every module of the package with the rankframe modules it imports (at any depth of
    the file: function-level imports count, and a string naming a module, as lazy loaders
    pass to ``importlib.import_module``) and the private names it takes from them. An
    import of one of its own packages is left out: those are loaded before it runs."""
    modules = {_module_name(p): Module(_module_name(p), p) for p in PACKAGE.rglob("*.py")}
    for module in modules.values():
        is_package = module.path.name == "__init__.py"
        package = module.name if is_package else module.name.rpartition(".")[0]
        tree = ast.parse(module.path.read_text(), filename=str(module.path))
        bound: dict[str, str] = {}  # local name -> rankframe module it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "rankframe":
                        module.imports.add(alias.name)
                        if alias.asname:
                            bound[alias.asname] = alias.name
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parent, base] if base else parent)
                if base.split(".")[0] != "rankframe":
                    continue
                for alias in node.names:
                    target = f"{base}.{alias.name}"
                    if target in modules:  # a submodule
                        module.imports.add(target)
                        bound[alias.asname or alias.name] = target
                    else:
                        module.imports.add(base)
                        if _is_private(alias.name):
                            module.private.add((base, alias.name))
            elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and node.value in modules):  # imported by name, on first use
                module.imports.add(node.value)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in bound and _is_private(node.attr)):
                module.private.add((bound[node.value.id], node.attr))
        module.imports = {m for m in module.imports
                          if m in modules and m != module.name and m not in _ancestors(module.name)}
    return modules


GRAPH = read_graph()


def _cycle(graph: dict[str, Module]) -> list[str] | None:
    """One import cycle as a path of module names, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        path.append(name)
        for target in sorted(graph[name].imports):
            if state.get(target) == 1:
                return [*path[path.index(target):], target]
            if target not in state and (found := visit(target)):
                return found
        state[name] = 2
        path.pop()
        return None

    for name in sorted(graph):
        if name not in state and (found := visit(name)):
            return found
    return None


def part_of(name: str) -> str:
    """The part of the package a module belongs to: its top-level subpackage
    (``rankframe.trec_eval.grammar`` -> ``rankframe.trec_eval``) or itself."""
    return ".".join(name.split(".")[:2])


def parts_graph(graph: dict[str, Module]) -> dict[str, Module]:
    """The graph between the package's parts: a part imports another if any of its modules
    imports any of the other's. The package's ``__init__`` (the public names, loaded before
    every other module) is no part."""
    parts: dict[str, Module] = {}
    for name, module in graph.items():
        if name == "rankframe":
            continue
        part = parts.setdefault(part_of(name), Module(part_of(name), module.path))
        part.imports |= {part_of(t) for t in module.imports
                         if t != "rankframe" and part_of(t) != part.name}
    return parts


def _is_cli(name: str) -> bool:
    return name == "rankframe.cli" or name.startswith("rankframe.cli.")


def test_the_graph_is_read() -> None:
    assert GRAPH["rankframe.cli.main"].imports >= {"rankframe.cli.eval", "rankframe.cli.compare"}
    assert "rankframe.trec_eval" in GRAPH["rankframe.measures"].imports
    assert "rankframe.registry" in GRAPH["rankframe.measures"].imports
    # inside a function (lazy), and by name (the lazy table of the package's __getattr__)
    assert "rankframe.cli.measure_option" in GRAPH["rankframe.cli.sql"].imports
    assert "rankframe.evaluate" in GRAPH["rankframe"].imports
    assert "rankframe.faces.polars" in GRAPH["rankframe.faces"].imports  # a registration
    # a module's own packages are loaded before it: no edge
    assert "rankframe.faces" not in GRAPH["rankframe.faces.polars.gains"].imports


def test_read_graph_sees_lazy_imports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Function-level and by-name imports are edges: a loop through them is found."""
    package = tmp_path / "rankframe"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from rankframe import top\n")
    (package / "sub" / "low.py").write_text(
        "def f():\n    from rankframe import top\n    return top\n")
    (package / "top.py").write_text(
        "import importlib\n\ndef g():\n    return importlib.import_module('rankframe.sub.low')\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", package)
    graph = read_graph()
    assert graph["rankframe.sub.low"].imports == {"rankframe.top"}
    assert graph["rankframe.top"].imports == {"rankframe.sub.low"}
    assert graph["rankframe.sub"].imports == {"rankframe.top"}
    assert _cycle(graph) == ["rankframe.top", "rankframe.sub.low", "rankframe.top"]


def test_no_import_cycles() -> None:
    cycle = _cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_cycles_between_the_parts_of_the_package() -> None:
    """Dependencies point one way between ``measures.py``, ``trec_eval/``, ``faces/`` ...:
    no part imports a part that imports it back, through any of their modules."""
    cycle = _cycle(parts_graph(GRAPH))
    assert cycle is None, "import cycle between parts of the package: " + " -> ".join(
        cycle or [])


def test_the_parts_graph_finds_a_loop_through_a_package_member() -> None:
    """measures -> trec_eval (the package) and trec_eval.option -> measures is a loop."""
    graph = {"rankframe.measures": Module("rankframe.measures", PACKAGE, {"rankframe.trec_eval"}),
             "rankframe.trec_eval": Module("rankframe.trec_eval", PACKAGE, set()),
             "rankframe.trec_eval.option": Module("rankframe.trec_eval.option", PACKAGE,
                                                  {"rankframe.measures"})}
    assert _cycle(graph) is None  # module by module, no loop
    assert _cycle(parts_graph(graph)) == [
        "rankframe.measures", "rankframe.trec_eval", "rankframe.measures"]


def test_cycle_finder_finds_a_cycle() -> None:
    a, b = Module("a", PACKAGE, {"b"}), Module("b", PACKAGE, {"c"})
    c = Module("c", PACKAGE, {"a"})
    assert _cycle({"a": a, "b": b, "c": c}) == ["a", "b", "c", "a"]
    c.imports = set()
    assert _cycle({"a": a, "b": b, "c": c}) is None


def test_library_modules_never_import_the_command_line() -> None:
    entry_points = {"rankframe.__main__"}  # `python -m rankframe` runs the command line
    offenders = {name: sorted(filter(_is_cli, m.imports)) for name, m in GRAPH.items()
                 if not _is_cli(name) and name not in entry_points}
    assert {k: v for k, v in offenders.items() if v} == {}


#: Modules of the command line that every subcommand may use; they import no other.
CLI_SHARED = {"rankframe.cli.measure_option"}


def test_command_line_modules_import_each_other_only_from_main() -> None:
    # eval's own parts (rankframe.cli.eval_*) are imported by eval and by each other.
    parts = {name for name in GRAPH if name.startswith("rankframe.cli.eval_")}
    allowed = {("rankframe.cli", "rankframe.cli.main")} | {
        ("rankframe.cli.main", name) for name in GRAPH
        if _is_cli(name) and name not in ("rankframe.cli", "rankframe.cli.main", *parts,
                                          *CLI_SHARED)
    } | {(source, part) for part in parts
         for source in ("rankframe.cli.eval", *parts) if source != part} | {
        (source, shared) for shared in CLI_SHARED for source in GRAPH
        if _is_cli(source) and source not in CLI_SHARED}
    edges = {(name, target) for name, m in GRAPH.items() if _is_cli(name)
             for target in m.imports if _is_cli(target)}
    assert edges - allowed == set()
    assert ("rankframe.cli.main", "rankframe.cli.eval") in edges


def test_no_module_uses_another_modules_private_names() -> None:
    used = {(name, module, private) for name, m in GRAPH.items()
            for module, private in m.private if module != name}
    assert used - KNOWN_PRIVATE_IMPORTS == set()


@pytest.mark.parametrize("statement", ["import rankframe", "import rankframe.trec_eval",
                                       "import rankframe.measures"])
def test_importing_the_library_stays_light(statement: str) -> None:
    code = (f"{statement}, sys; heavy = ('numpy', 'scipy', 'matplotlib', 'rankframe.cli', "
            "'argparse'); print(sorted(m for m in sys.modules if m.split('.')[0] in heavy "
            "or m.startswith('rankframe.cli')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"

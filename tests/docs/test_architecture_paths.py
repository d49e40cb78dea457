"""Every path ``docs/architecture.md`` names exists in the repository: each entry of its file
tree (the first fenced block of "## Layers"), each path in backticks (``faces/base.py``,
``sql/rf_<name>.sql``'s folder, ``rankframe/reference.py::<name>``'s file) and each relative
link. Dotted module names (``rankframe.faces.polars.expr``) are not paths and are not read here.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import REPO

DOC = REPO / "docs" / "architecture.md"
#: Paths the page names outside the repository, on purpose (the trec_eval sources the
#: tests build from live beside the checkout).
OUTSIDE = {"../shared/reference/trec_eval"}
#: The roots a path on the page is relative to: the repository, or the package (the page
#: writes ``faces/base.py`` for ``rankframe/faces/base.py``).
ROOTS = (REPO, REPO / "rankframe")
#: What a template's ``<name>`` stands for: the page's example metric, its example face;
#: ``<family>``: the example metric's family.
EXAMPLES = ("ndcg", "polars")
FAMILY = "gains"
#: A tree entry: one name (a folder ends with ``/``) or several separated by ", ", an
#: optional " ..." (more files like it), then two blanks before its description, or nothing.
ENTRY = re.compile(r"(?P<names>[\w.-]+/?(?:, [\w.-]+/?)*)(?: \.\.\.)?(?: {2,}\S.*)?")
#: A path in backticks: it has a folder or a file extension (``::name`` after a file).
PATHLIKE = re.compile(r"^(?:[\w.<>-]*/[\w.<>/-]*|[\w<>-]+\.(?:py|sql|md|toml|yml|json|ipynb))"
                      r"(?:::[\w<>]+)?$")


@dataclass(frozen=True)
class Named:
    """A path the page names, and where (line, as written)."""

    path: str
    line: int
    text: str


def tree_paths(text: str) -> list[Named]:
    """The paths of the file tree: two blanks of indentation a level. A line indented
    deeper than the folders open above it (or by an odd number of blanks) goes on with a
    description; any other line must be an entry (the test reads the whole tree)."""
    lines = text.splitlines()
    start = lines.index("## Layers")
    opening = next(i for i in range(start, len(lines)) if lines[i].startswith("```"))
    closing = next(i for i in range(opening + 1, len(lines)) if lines[i].startswith("```"))
    folders: list[str] = []  # the folders open at this line, outermost first
    found: list[Named] = []
    for number in range(opening + 1, closing):
        line = lines[number]
        depth, odd = divmod(len(line) - len(line.lstrip(" ")), 2)
        if not line.strip() or odd or depth > len(folders):
            continue
        match = ENTRY.fullmatch(line.strip())
        if match is None:
            raise AssertionError(f"architecture.md, line {number + 1}: not a tree entry: "
                                 f"{line!r}")
        del folders[depth:]
        names = match["names"].split(", ")
        found.extend(Named("/".join([*folders, name.rstrip("/")]), number + 1, line.strip())
                     for name in names)
        if len(names) == 1 and names[0].endswith("/"):
            folders.append(names[0].rstrip("/"))
    return found


def backticked_paths(text: str) -> list[Named]:
    """Each path-like word in backticks outside fenced blocks (a bare file name in a table
    row about a folder: in that folder), and each relative link (from ``docs/``)."""
    found: list[Named] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        # In a table row about a folder (| `tests/units/` | ...), a bare file name is in it.
        row = re.match(r"^\| `([\w/.-]+/)` \|", line)
        for span in re.findall(r"`([^`]+)`", line):
            found.extend(Named(f"{row[1]}{word}" if row and "/" not in word else word,
                               number, span)
                         for word in span.split() if PATHLIKE.match(word))
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", line):
            if not re.match(r"^[a-z]+:", target):
                found.append(Named(f"docs/{target}", number, target))
    return found


def missing(named: Named) -> str | None:
    """Why ``named`` does not exist (None: it does). A template's ``<name>`` stands for the
    page's example metric or face (:data:`EXAMPLES`): one of them must make it exist."""
    if named.path in OUTSIDE:
        return None
    if "<" in named.path:
        unknown = set(re.findall(r"<[^>]*>", named.path)) - {"<name>", "<family>"}
        if unknown:
            return f"line {named.line}: {named.path}: unknown template {sorted(unknown)}"
        path = named.path.replace("<family>", FAMILY)
        tries = [_absent(path.replace("<name>", example)) for example in EXAMPLES]
        if all(tries):
            return f"line {named.line}: {named.path} (in {named.text!r}): {tries[0]}"
        return None
    why = _absent(named.path)
    return None if why is None else f"line {named.line}: {why}" + (
        f" (in {named.text!r})" if why.endswith("does not exist") else "")


def _absent(written: str) -> str | None:
    """Why the path ``written`` (``file::name`` too) is not in the repository."""
    path, _, name = written.partition("::")
    file = next((root / path for root in ROOTS if (root / path).exists()), None)
    if file is None:
        return f"{path} does not exist"
    if name and name not in defined(file):
        return f"{path} defines no {name}"
    return None


def defined(file: Path) -> set[str]:
    """The names a Python file defines at its top level (by ``def``, ``class`` or an
    assignment: an imported name is defined elsewhere)."""
    tree = ast.parse(file.read_text())
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


TEXT = DOC.read_text()


def test_the_tree_is_read_whole() -> None:
    paths = {n.path for n in tree_paths(TEXT)}
    assert {"rankframe/__init__.py", "rankframe/io/lines.py", "rankframe/trec_eval/grammar.py",
            "rankframe/cli/eval_small.py", "rankframe/duckdb.py", "rankframe/ibis.py",
            "sql", "tests", "benchmarks"} <= paths
    assert "rankframe/faces/polars/counts.py" in paths


@pytest.mark.parametrize("kind", ["tree", "backticks"])
def test_every_named_path_exists(kind: str) -> None:
    named = tree_paths(TEXT) if kind == "tree" else backticked_paths(TEXT)
    assert len(named) > 20
    if kind == "backticks":
        assert "tests/conformance/test_pruning.py" in {n.path for n in named}
    problems = [p for p in map(missing, named) if p is not None]
    assert problems == []


def test_a_wrong_path_is_caught() -> None:
    tree = TEXT.replace("    lines.py ", "    liens.py ", 1)
    assert [missing(n) for n in tree_paths(tree) if missing(n)] == [
        next(f"line {n.line}: rankframe/io/liens.py does not exist (in {n.text!r})"
             for n in tree_paths(tree) if n.path.endswith("liens.py"))]
    prose = "See `faces/oracle.py::nothing_here` and [the contract](semantic.md).\n"
    assert [missing(n) for n in backticked_paths(prose)] == [
        "line 1: faces/oracle.py defines no nothing_here",
        "line 1: docs/semantic.md does not exist (in 'semantic.md')"]
    template = "Write it in `rankframe/faces/oracle.py::<name>` and `sql/rf_<name>.sql`.\n"
    assert [missing(n) for n in backticked_paths(template)] == [
        "line 1: rankframe/faces/oracle.py::<name> (in 'rankframe/faces/oracle.py::<name>'): "
        "rankframe/faces/oracle.py defines no ndcg", None]
    with pytest.raises(AssertionError, match="not a tree entry"):
        tree_paths(TEXT.replace("    lines.py ", "    lines py ", 1))

"""Parameter prose from the registry (``Param.desc``) where the sources are read as text.

- The ``.sql`` files are a product of their own (read by DuckDB users without the Python
  package), so their headers hold the parameter lines as text: ``python -m docsgen.params
  --write`` rewrites each macro file's block after its ``Contract:`` line, and ``--check``
  (a test runs it) fails while a file is out of date. Only those header lines are touched.
- The API reference reads docstrings statically (griffe): :func:`complete_docstring` gives a
  builder's docstring the ``Parameters`` section its ``__doc__`` gets at import time from
  :func:`rankframe.registry.validated`, and a function decorated with
  :func:`rankframe.docsections.described_by` the section completed from its module's mapping.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rankframe.docsections import complete_parameters, wrap
from rankframe.registry import METRICS, Param, document

if TYPE_CHECKING:
    import griffe

SQL_DIR = Path(__file__).resolve().parent.parent / "sql"
HEADING = "--   Parameters:"
_ENTRY = "--     "
_MORE = "--       "
_WIDTH = 96
#: A parameter's first line in the block (``--     k: Cutoff ...``).
_ENTRY_LINE = re.compile(r"--     \w+: ")
_VALIDATED = re.compile(r"""validated\(METRICS\[['"](?P<name>\w+)['"]\]\)""")
#: ``described_by(NAME)``: the module-level mapping ``NAME`` describes shared parameters.
_DESCRIBED_BY = re.compile(r"(?:\w+\.)*described_by\((?P<mapping>\w+)\)")


def complete_docstring(obj: griffe.Object) -> None:
    """A function's docstring completed as its ``__doc__`` is at import: a metric builder's
    (``@validated(METRICS[name])``) from the registry, as :func:`rankframe.registry.validated`
    does, one decorated ``@described_by(NAME)`` from its module's mapping ``NAME``."""
    import griffe  # the docs extra's: writing the .sql headers needs none of it

    if not isinstance(obj, griffe.Function) or obj.docstring is None:
        return
    names = [p.name for p in obj.parameters]
    for decorator in obj.decorators:
        text = str(decorator.value)
        if (found := _VALIDATED.fullmatch(text)) and found["name"] in METRICS:
            obj.docstring.value = document(METRICS[found["name"]], obj.docstring.value, names)
        elif found := _DESCRIBED_BY.fullmatch(text):
            described = module_mapping(Path(str(obj.module.filepath)), found["mapping"])
            obj.docstring.value = complete_parameters(obj.docstring.value, names, described)


def module_mapping(path: Path, name: str) -> dict[tuple[str, ...], str]:
    """The literal value of the module-level mapping ``name`` in the source ``path``, read
    without importing the module (the docs build has no optional extra: rankframe.ibis
    needs Ibis)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            mapping: dict[tuple[str, ...], str] = ast.literal_eval(value)
            return mapping
    raise LookupError(f"{path}: no module-level literal {name}")


def sql_text(desc: str) -> str:
    """A description written for Python (``None``, ``"linear"``, ``k=None``) as SQL reads it
    (NULL, 'linear', k := NULL), its code marks dropped."""
    def code(match: re.Match[str]) -> str:
        text = match[1]
        text = re.sub(r'"([^"]*)"', r"'\1'", text)
        text = re.sub(r"\bNone\b", "NULL", text)
        text = re.sub(r"\b(True|False)\b", lambda m: m[1].lower(), text)
        text = re.sub(r"^(\w+)=(\S+)$", r"\1 := \2", text)
        return re.sub(r"^\{(.*)\}$", r"MAP {\1}", text)

    text = re.sub(r":\w+:`([^`]+)`", r"\1", desc)
    return re.sub(r"``(.+?)``", code, text)


def _lines(param: Param) -> list[str]:
    return wrap(f"{param.name}: {sql_text(param.desc)}", _WIDTH, _ENTRY, _MORE)


def sql_header_block(name: str) -> list[str]:
    """The parameter lines of ``sql/rf_<name>.sql``'s header (none for a metric without
    parameters)."""
    params = METRICS[name].params
    return [HEADING, *(line for p in params for line in _lines(p))] if params else []


def rewritten(text: str, name: str) -> str:
    """The text of ``rf_<name>.sql`` with its parameter lines as the registry says: the
    block after the header's ``Contract:`` line replaced (or added there)."""
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("--   Contract:")) + 1
    end = at
    if end < len(lines) and lines[end] == HEADING:
        end += 1
        while end < len(lines) and (lines[end].startswith(_MORE)
                                    or _ENTRY_LINE.match(lines[end])):
            end += 1
    return "\n".join(lines[:at] + sql_header_block(name) + lines[end:])


def stale(directory: Path = SQL_DIR) -> list[Path]:
    """The macro files whose parameter lines differ from the registry's."""
    return [path for name in METRICS
            if (path := directory / f"rf_{name}.sql").read_text(encoding="utf-8")
            != rewritten(path.read_text(encoding="utf-8"), name)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m docsgen.params", description=__doc__)
    parser.add_argument("--write", action="store_true",
                        help="rewrite the out-of-date .sql headers (default: only list them)")
    args = parser.parse_args(argv)
    paths = stale()
    for path in paths:
        if args.write:
            name = path.stem.removeprefix("rf_")
            path.write_text(rewritten(path.read_text(encoding="utf-8"), name),
                            encoding="utf-8")
        print(f"{'rewrote' if args.write else 'out of date'}: {path.relative_to(SQL_DIR.parent)}")
    return 0 if args.write or not paths else 1


if __name__ == "__main__":
    sys.exit(main())

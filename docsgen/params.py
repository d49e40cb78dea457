"""Parameter prose from the registry (``Param.desc``) where the sources are read as text.

- The ``.sql`` files are a product of their own (read by DuckDB users without the Python
  package), so their headers hold the parameter lines as text: ``python -m docsgen.params
  --write`` rewrites each macro file's block after its ``Contract:`` line, and ``--check``
  (a test runs it) fails while a file is out of date. Only those header lines are touched.
- The API reference reads docstrings statically (griffe): :func:`complete_docstring` gives a
  builder's docstring the ``Parameters`` section its ``__doc__`` gets at import time from
  :func:`rankframe.registry.validated`.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rankframe.docsections import wrap
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


def complete_docstring(obj: griffe.Object) -> None:
    """A metric builder's docstring (``@validated(METRICS[name])``) completed from the
    registry, as :func:`rankframe.registry.validated` completes its ``__doc__``."""
    import griffe  # the docs extra's: writing the .sql headers needs none of it

    if not isinstance(obj, griffe.Function) or obj.docstring is None:
        return
    for decorator in obj.decorators:
        found = _VALIDATED.fullmatch(str(decorator.value))
        if found and found["name"] in METRICS:
            names = [p.name for p in obj.parameters]
            obj.docstring.value = document(METRICS[found["name"]], obj.docstring.value, names)


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

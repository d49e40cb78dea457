"""Write ``compare_systems.ipynb`` from ``compare_systems.py``, its percent-format source,
so the notebook and the script cannot drift apart (the tests check the committed notebook
is what this writes, then execute it).

``# %%`` starts a code cell, ``# %% [markdown]`` a Markdown cell whose lines lose their
``# `` prefix; a ``# %matplotlib inline`` line becomes that magic (as Jupytext writes it),
and ``# noqa: B018`` comments go (a notebook cell's last expression is its display).
Outputs are left empty: the notebook is committed without them.

Run from the repository root: ``python examples/make_notebook.py``. Needs ``nbformat``.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

EXAMPLES = Path(__file__).resolve().parent
SOURCE = EXAMPLES / "compare_systems.py"
NOTEBOOK = EXAMPLES / "compare_systems.ipynb"
_MARKER = re.compile(r"^# %%(?: \[(markdown)\])?\s*$")


def build(source: str) -> nbformat.NotebookNode:
    """The notebook of a percent-format script: one cell per ``# %%`` block."""
    cells: list[tuple[str, list[str]]] = []
    for line in source.splitlines():
        marker = _MARKER.match(line)
        if marker:
            cells.append(("markdown" if marker.group(1) else "code", []))
        elif cells:
            cells[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"text before the first '# %%' cell marker: {line!r}")
    notebook = nbformat.v4.new_notebook()
    notebook.metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    }
    for index, (kind, lines) in enumerate(cells):
        text = "\n".join(lines).strip("\n")
        if kind == "markdown":
            text = "\n".join(line.removeprefix("#").removeprefix(" ")
                             for line in text.splitlines())
            cell = nbformat.v4.new_markdown_cell(text)
        else:
            text = re.sub(r"^# (%matplotlib \w+)$", r"\1", text, flags=re.MULTILINE)
            text = re.sub(r"\s+# noqa: B018.*$", "", text, flags=re.MULTILINE)
            cell = nbformat.v4.new_code_cell(text)
        cell.id = f"cell-{index}"  # stable ids: the same script writes the same file
        notebook.cells.append(cell)
    nbformat.validate(notebook)
    return notebook


def main() -> Path:
    """Write the notebook beside its source and return its path."""
    nbformat.write(build(SOURCE.read_text()), NOTEBOOK)
    return NOTEBOOK


if __name__ == "__main__":
    print(f"wrote {main()}")

"""MkDocs hooks (``hooks:`` in mkdocs.yml): the generated pages and lists of the site.

``measures.md`` (the measure reference, :mod:`docsgen.measures`) and ``cli.md`` (the
command-line reference, :mod:`docsgen.cli`) are built from the code on every build, and on
every other page a line ``<!-- generated: NAME -->`` becomes that list
(:mod:`docsgen.lists`: the API reference's builders, the metrics table, the metric x face
table, the files of a new metric), so none can fall out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # mkdocs loads this file by path; import the tree it sits in
    sys.path.insert(0, str(ROOT))

from mkdocs.structure.files import File, Files  # noqa: E402

from docsgen import cli, lists, measures  # noqa: E402

GENERATED = {"measures.md": measures.page, "cli.md": cli.page}


def on_files(files: Files, config: Any) -> Files:
    for uri, make in GENERATED.items():
        files.append(File.generated(config, uri, content=make()))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    return lists.expand(markdown)

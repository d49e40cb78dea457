"""The snippets of the README and the site that write files write none into their working
directory: a user runs them from a checkout, which must stay clean (files go to a temporary
directory; scripts are piped). ``tests/docs/test_snippets.py`` checks what they print; this runs
again only the snippets that look like they write, and lists what they left behind.

Also: the README opens with an install section and the quick start's two commands, and
defines the words it uses before using them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO, needs
from tests.support.snippets import Snippet, extract

PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
#: What a snippet that writes a file contains (a redirection, a writer, a database file).
WRITES = re.compile(r"write_|to_csv|to_parquet|savefig|\bsave\(|open\(|>|mkdir|temp_directory"
                    r"|--output|\.duckdb|tempfile")
SNIPPETS = [s for page in PAGES for s in extract(page)
            if s.language in ("python", "sh") and not s.skip and WRITES.search(s.code)]
BIN = Path(sys.executable).parent


#: Snippets too slow to run twice (a Spark session takes a minute): read, not run, here.
HEAVY = {"pyspark"}


def _param(snippet: Snippet) -> object:
    heavy = bool(HEAVY & set(snippet.needs))
    marks = [needs.mark(*snippet.requirements)] if snippet.requirements and not heavy else []
    return pytest.param(snippet, id=snippet.id, marks=marks)


#: A write to a literal path: relative unless it starts with / (none does on these pages).
LITERAL_WRITE = re.compile(r"""(?:write_\w+|to_csv|to_parquet|savefig|save)\(\s*f?["'](?!/)""")


@pytest.mark.parametrize("snippet", [_param(s) for s in SNIPPETS if HEAVY & set(s.needs)])
def test_a_heavy_snippet_writes_to_no_relative_path(snippet: Snippet) -> None:
    found = LITERAL_WRITE.findall(snippet.code)
    assert not found, f"{snippet.id} writes to a relative path: {found}"


@pytest.mark.parametrize("snippet",
                         [_param(s) for s in SNIPPETS if not HEAVY & set(s.needs)])
def test_the_snippet_leaves_no_file_behind(snippet: Snippet, tmp_path: Path) -> None:
    for name in ("examples", "sql"):
        (tmp_path / name).symlink_to(REPO / name, target_is_directory=True)
    script = tmp_path.parent / f"{tmp_path.name}-snippet.py"
    env = {**os.environ, "PYTHONPATH": str(REPO), "MPLBACKEND": "Agg",
           "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    if snippet.language == "python":
        script.write_text(snippet.code, encoding="utf-8")
        cmd = [sys.executable, str(script)]
    else:
        cmd = ["bash", "-eu", "-o", "pipefail", "-c", snippet.code]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-3000:]
    left = sorted(p.name for p in tmp_path.iterdir() if p.name not in ("examples", "sql"))
    assert left == [], f"{snippet.id} wrote {left} into its working directory"


def test_the_writers_are_found() -> None:
    """The filter is not vacuous: the snippets that write parquet files are among them."""
    assert any("write_parquet" in s.code for s in SNIPPETS)
    assert any("rankframe sql" in s.code for s in SNIPPETS)


README = (REPO / "README.md").read_text(encoding="utf-8")


def test_the_readme_starts_with_install_and_the_quick_start_commands() -> None:
    """The README's first sections are the install and the quick start, whose commands are
    the ones CI runs (its length is a maintainer's check: ``python -m tests.layout``)."""
    lines = README.splitlines()
    headings = [line for line in lines if line.startswith("## ")]
    assert headings[:2] == ["## Install", "## Quick start"]
    quick = README[README.index("## Quick start"):README.index("\n## ", README.index(
        "## Quick start") + 1)]
    commands = [s.code.strip() for s in extract(REPO / "README.md", quick) if s.language == "sh"]
    assert commands[1:] == [
        "rankframe eval -c -m map -m ndcg_cut.10 -m P.10 examples/data/qrels.txt "
        "examples/data/run.bm25.txt",
        "python -m pytest"]


@pytest.mark.parametrize("word", ["faces", "oracle"])
def test_the_readme_defines_its_words_before_using_them(word: str) -> None:
    first = re.search(rf"\b{word}\b", README, flags=re.IGNORECASE)
    assert first is not None
    assert README[first.start() - 2:first.start()] == "**", (
        f"the first '{word}' of the README is not its definition (in bold)")


def test_every_number_of_a_run_is_explained() -> None:
    """nDCG@10 of bm25 appears as 0.3301 (40 queries) and 0.3475 (38 queries, trec_eval's
    choice); every page showing both says why."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        if "0.3301" in text and "0.3475" in text:
            assert "38" in text and "40" in text, f"{page.name} shows both without the counts"

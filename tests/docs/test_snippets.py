"""Every code block of the README and the documentation runs as printed, on the example
data, and prints what the page shows beside it (conventions: :mod:`tests.support.snippets`).

Each snippet runs alone in a fresh directory holding ``examples/`` and ``sql/`` of this
repository (as a user's checkout does): Python in a fresh interpreter, shell with
``bash -eu -o pipefail`` and this environment's scripts (``rankframe``, ``duckdb``) first
on the PATH, SQL in the DuckDB command-line tool after ``.read rankframe.sql`` (the macro
script ``rankframe sql`` prints).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import rankframe.duckdb
from tests.support import REPO, needs
from tests.support.snippets import Snippet, extract, normalise

PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
SNIPPETS = [s for page in PAGES for s in extract(page)]
BIN = Path(sys.executable).parent


def _run(snippet: Snippet, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "MPLBACKEND": "Agg", "COLUMNS": "100",
           "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    duckdb_cli = needs.program("duckdb")
    if snippet.language == "python":
        (cwd / "snippet.py").write_text(snippet.code)
        cmd = [sys.executable, "snippet.py"]
    elif snippet.language == "sh":
        cmd = ["bash", "-eu", "-o", "pipefail", "-c", snippet.code]
    else:
        assert duckdb_cli is not None
        if not (cwd / "rankframe.sql").exists():
            (cwd / "rankframe.sql").write_text(rankframe.duckdb.sql_text())
        (cwd / "snippet.sql").write_text(".read rankframe.sql\n" + snippet.code)
        cmd = [duckdb_cli, "-f", "snippet.sql"]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL)


#: A snippet that needs one of these runs with that face's tests (``--faces``).
FACE_NEEDS = {"pyspark": "spark", "java": "spark", "ibis": "ibis-duckdb"}


def _param(snippet: Snippet) -> object:
    faces = dict.fromkeys(FACE_NEEDS[n] for n in snippet.needs if n in FACE_NEEDS)
    marks = [pytest.mark.face(f) for f in faces]
    if snippet.requirements and not snippet.skip:
        marks.append(needs.mark(*snippet.requirements))
    return pytest.param(snippet, id=snippet.id, marks=marks)


@pytest.mark.parametrize("snippet", [_param(s) for s in SNIPPETS])
def test_snippet(snippet: Snippet, tmp_path: Path) -> None:
    if snippet.skip:
        pytest.skip(f"not run: {snippet.skip}")
    for name in ("examples", "sql"):
        (tmp_path / name).symlink_to(REPO / name, target_is_directory=True)
    done = _run(snippet, tmp_path)
    assert done.returncode == 0, (
        f"{snippet.id} ({snippet.language}) exited {done.returncode}\n--- code\n{snippet.code}"
        f"--- stdout\n{done.stdout}--- stderr\n{done.stderr}")
    if snippet.expected is not None:
        assert normalise(done.stdout) == normalise(snippet.expected), (
            f"{snippet.id} printed something else than the page shows\n--- stderr\n"
            f"{done.stderr}")


def test_the_pages_have_snippets() -> None:
    """The extractor finds the README's blocks (a broken fence pattern would find none)."""
    readme = [s for s in SNIPPETS if s.path.name == "README.md"]
    assert len(readme) >= 5
    assert {s.language for s in SNIPPETS} == {"python", "sh", "sql"}
    assert any(s.expected is not None for s in readme)


def test_extract_conventions(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    text = (
        "Intro\n\n```python\nprint(1)\n```\n\n```output\n1\n```\n\n"
        "<!-- snippet: skip needs a server -->\n```sql\nSELECT 1;\n```\n\n"
        "<!-- snippet: needs pyspark java -->\n```bash\necho hi\n```\n\n"
        "```text\nnot run\n```\n\n   ```sh\n   ls\n   ```\n"
    )
    found = extract(page, text)
    assert [(s.language, s.line) for s in found] == [
        ("python", 3), ("sql", 12), ("sh", 17), ("sh", 25)]
    assert found[0].expected == "1\n"
    assert found[1].skip == "needs a server"
    assert found[2].needs == ["pyspark", "java"]
    assert found[3].code == "ls\n"
    with pytest.raises(ValueError, match="output block must follow"):
        extract(page, "```text\nx\n```\n```output\n1\n```\n")
    with pytest.raises(ValueError, match="needs a reason"):
        extract(page, "<!-- snippet: skip -->\n```sh\nls\n```\n")


def test_what_a_snippet_needs_is_read() -> None:
    """SQL blocks and shell calls of the DuckDB command-line tool need it, piped or not;
    the other needs come from the page's ``snippet: needs`` line."""
    page = REPO / "page.md"
    text = ("```sh\nrankframe sql | cat - x.sql | duckdb\n```\n\n```sh\nduckdb -c 'SELECT 1'\n```"
            "\n\n```sh\npip install duckdb-cli\n```\n\n```sql\nSELECT 1;\n```\n\n"
            "```python\nimport duckdb; duckdb.sql('SELECT 1')\n```\n\n"
            "<!-- snippet: needs pyspark java -->\n```python\nprint(1)\n```\n")
    assert [s.requirements for s in extract(page, text)] == [
        ["duckdb-cli"], ["duckdb-cli"], [], ["duckdb-cli"], [], ["pyspark"]]
    with pytest.raises(ValueError, match="unknown kind"):
        extract(page, "<!-- snippet: needs pandsa -->\n```python\nprint(1)\n```\n")
    readme_pipe = next(s for s in SNIPPETS if "| duckdb" in s.code)
    assert "duckdb-cli" in readme_pipe.requirements


def test_output_is_compared_exactly() -> None:
    assert normalise("\n a  \nb\n\n") == " a\nb"
    assert normalise("0.3301") != normalise("0.3300")

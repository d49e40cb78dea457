"""The documentation site builds with the ``docs`` extra alone and renders what the
docstrings mean: cross-references as links, ``:math:`` as MathML, contract references as
links, grouped parameters with their own defaults, and nothing fetched from the network.

The build runs ``mkdocs build --strict`` with the modules of the other extras (Spark, Ibis,
pandas, SciPy, Matplotlib) made unimportable, as in a virtual environment holding only
``pip install -e '.[docs]'`` (the report of issue 28 gives the command that builds it in
a fresh such environment for real).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from docsgen.docstrings import to_markdown
from tests.support import REPO, needs

pytestmark = needs.module_level("docs")

#: Top-level modules of the other extras: the build must not need them.
OTHER_EXTRAS = ("pyspark", "ibis", "pandas", "scipy", "matplotlib", "sqlglot", "datafusion",
                "pytest", "hypothesis", "pytrec_eval", "nbclient")

BUILD = textwrap.dedent("""
    import sys
    from importlib.abc import MetaPathFinder

    class Blocked(MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in {blocked!r}:
                raise ModuleNotFoundError(f"No module named {{name!r}} (docs extra only)")
            return None

    sys.meta_path.insert(0, Blocked())
    from mkdocs.__main__ import cli
    sys.argv = ["mkdocs", "build", "--strict", "--site-dir", sys.argv[1]]
    cli()
""").format(blocked=set(OTHER_EXTRAS))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": path}
    done = subprocess.run([sys.executable, "-c", BUILD, str(out)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stderr[-4000:]}"
    return out


def test_the_api_reference_renders_roles_math_and_contract_links(site: Path) -> None:
    page = (site / "api" / "index.html").read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", "", page)
    for role in (":func:", ":class:", ":mod:", ":math:", ":data:", ":meth:", ":attr:"):
        assert role not in text, f"a literal {role} role on the API page"
    assert "docs/semantics.md#" not in text
    assert len(re.findall(r'<a class="autorefs autorefs-internal"[^>]*>', page)) >= 80
    assert page.count("<math") >= 25
    assert 'href="../semantics/#ndcg"' in page
    assert "\\frac" not in text and "\\sum" not in text


def test_grouped_parameters_show_their_own_defaults(site: Path) -> None:
    page = (site / "api" / "index.html").read_text(encoding="utf-8")
    start = page.index('id="rankframe.analysis.plots.metric_at_k"')
    table = page[start:page.index("Examples", start)]
    cells = re.sub(r"<[^>]+>", " ", table)
    cells = re.sub(r"\s+", " ", cells)
    for name in ("system", "k", "value"):
        assert f"{name} str Column names. &#39;{name}&#39;" in cells, name


def test_nothing_is_fetched_from_the_network(site: Path) -> None:
    remote = re.compile(r"""<(?:script|link|img)\b[^>]*\b(?:src|href)=["']?(?:https?:)?//""")
    for page in site.rglob("*.html"):
        found = remote.findall(page.read_text(encoding="utf-8"))
        assert not found, f"{page.relative_to(site)} loads {found[:3]}"


def test_the_measure_reference_has_no_face_table_and_every_metric(site: Path) -> None:
    page = (site / "measures" / "index.html").read_text(encoding="utf-8")
    assert page.count("<table>") == 1 and "<th>tool</th>" in page  # the peers' table only
    assert "<th>polars</th>" not in page and "How peers differ" in page
    assert page.count('class="doc') == 0 and page.count("<h2 ") >= 40
    faces = (site / "faces" / "index.html").read_text(encoding="utf-8")
    assert "<code>reciprocal_rank_ties</code>" in faces


def test_to_markdown_rewrites_each_kind() -> None:
    text = ("See :func:`rankframe.judge` and :class:`~rankframe.errors.InputError` "
            "(docs/semantics.md#ndcg); :math:`x^2` and ``docs/semantics.md``.")
    out = to_markdown(text, {"rankframe.judge": "rankframe.table.judge.judge"}.get,
                      "semantics.md")
    assert ('<autoref identifier="rankframe.table.judge.judge" optional>'
            "<code>rankframe.judge</code></autoref>") in out
    assert ('<autoref identifier="rankframe.errors.InputError" optional>'
            "<code>InputError</code></autoref>") in out
    assert "[metric contract § ndcg](semantics.md#ndcg)" in out
    assert "[metric contract](semantics.md)." in out
    assert "<math" in out and "<msup><mi>x</mi><mn>2</mn></msup>" in out

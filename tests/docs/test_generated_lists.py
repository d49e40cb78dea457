"""Every list a reader sees is generated from the registry when the site is built
(:mod:`docsgen.lists`), and holds every public builder and metric: the API reference, the
metrics page, the metric x face table and the files a new metric is written in. Any other
file that names every metric is one of those files or generated: no hand-kept list drifts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rankframe
from docsgen import lists
from rankframe.faces.table import support_table
from rankframe.registry import METRICS
from tests.support import REPO

DOCS = REPO / "docs"
#: Where each generated list is shown.
SHOWN_ON = {"api-metrics": "api.md", "metrics-table": "metrics.md", "faces-table": "faces.md",
            "new-metric-files": "architecture.md"}


def expanded(page: str) -> str:
    return lists.expand((DOCS / page).read_text(encoding="utf-8"))


def test_each_list_is_on_its_page_and_no_page_names_an_unknown_list() -> None:
    assert set(SHOWN_ON) == set(lists.GENERATORS)
    for name, page in SHOWN_ON.items():
        assert f"<!-- generated: {name} -->" in (DOCS / page).read_text(encoding="utf-8")
    for page in DOCS.rglob("*.md"):
        lists.expand(page.read_text(encoding="utf-8"))  # an unknown name raises
    with pytest.raises(KeyError, match="no such list"):
        lists.expand("<!-- generated: nosuch -->\n")


def documented(page: str) -> set[str]:
    """The names an API page's mkdocstrings blocks document: each block's ``members``, or
    every public name of a module shown whole."""
    names: set[str] = set()
    for module, members in re.findall(r"^::: ([\w.]+)\n((?:    .*\n)*)", page + "\n",
                                      flags=re.MULTILINE):
        listed = re.search(r"members: \[(.*)\]", members)
        if listed:
            names |= {n.strip() for n in listed[1].split(",")}
        else:
            names |= {n for n in dir(__import__(module, fromlist=["_"])) if not n.startswith("_")}
    return names


def test_the_api_reference_documents_every_public_name() -> None:
    public = set(rankframe.__all__) - {"__version__"}
    missing = public - documented(expanded("api.md"))
    assert missing == set(), f"docs/api.md does not document {sorted(missing)}"
    assert set(METRICS) <= public


def test_the_api_check_finds_a_missing_builder() -> None:
    page = expanded("api.md").replace(", infap,", ",", 1)
    assert "infap" in set(rankframe.__all__) - documented(page)


def metric_rows(page: str) -> list[str]:
    """The metrics of a metrics-table's rows, in order."""
    return re.findall(r"^\| \[`(\w+)\(", page, flags=re.MULTILINE)


def test_the_metrics_page_has_a_row_per_metric() -> None:
    assert metric_rows(expanded("metrics.md")) == list(METRICS)
    one_less = expanded("metrics.md").replace("| [`yaap(", "| yaap(", 1)
    assert "yaap" not in metric_rows(one_less)


def test_a_new_metric_appears_in_every_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lists take what the registry declares: a metric added to it (here a copy of
    ndcg under another name, with ndcg's builder) shows up without a hand edit."""
    monkeypatch.setitem(METRICS, "ndcg_copy", METRICS["ndcg"].__class__(
        "ndcg_copy", METRICS["ndcg"].params, family="gains"))
    monkeypatch.setattr(rankframe, "ndcg_copy", rankframe.ndcg, raising=False)
    assert "ndcg_copy" in metric_rows(lists.metrics_table())
    assert re.search(r"members: \[.*\bndcg_copy\b", lists.api_metrics())
    assert "| `ndcg_copy` |" in support_table()


def test_every_place_of_a_new_metric_holds_every_metric() -> None:
    """The files a new metric is written in (architecture.md) hold each registered metric,
    or the face's gaps module gives the reason it lacks it."""
    problems = []
    for place in lists.PLACES:
        if place.optional:
            continue
        for name in METRICS:
            file = place.file(name)
            if "{name}" in place.path:
                if not file.exists():
                    problems.append(f"{file.relative_to(REPO)} does not exist")
                continue
            reason = place.or_reason_in and lists.names(
                (REPO / place.or_reason_in).read_text(encoding="utf-8"), name)
            # A face may lack a whole family (its module absent) when the gaps say why.
            text = file.read_text(encoding="utf-8") if file.exists() else ""
            if not lists.names(text, name) and not reason:
                problems.append(f"{file.relative_to(REPO)} does not name {name}")
    assert problems == []


def _hand_written() -> list[Path]:
    files = [*REPO.joinpath("rankframe").rglob("*.py"), *REPO.joinpath("sql").glob("*.sql"),
             *REPO.joinpath("docsgen").rglob("*.py"), *DOCS.rglob("*.md"),
             *REPO.joinpath("tests").rglob("*.py"), REPO / "README.md"]
    return [f for f in files if f.suffix != ".md" or not lists.is_generated(f)]


def test_no_other_file_keeps_a_list_of_every_metric() -> None:
    """A file naming (nearly) every metric is a list a new metric must be added to: it is
    one of the places a new metric is written in, or it is generated."""
    places = {(REPO / p.path).resolve() for p in lists.PLACES if "{" not in p.path}
    listing = []
    for file in _hand_written():
        text = file.read_text(encoding="utf-8")
        if sum(lists.names(text, name) for name in METRICS) >= 0.9 * len(METRICS):
            listing.append(file)
    assert listing, "the scan finds the registry itself"
    others = sorted(str(f.relative_to(REPO)) for f in listing if f.resolve() not in places)
    assert others == [], (f"{others} name every metric by hand: generate the list "
                          "(docsgen/lists.py) or add the file to docsgen.lists.PLACES")

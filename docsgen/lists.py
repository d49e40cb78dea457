"""The lists a reader sees on hand-written pages, generated from the registry when the site is
built: a line ``<!-- generated: NAME -->`` on a page becomes :data:`GENERATORS` ``[NAME]()``
(:func:`expand`, called by :mod:`docsgen.hooks`).

- ``api-metrics`` (``docs/api.md``): the API reference's entries for every metric builder,
  one block per Polars family module;
- ``metrics-table`` (``docs/metrics.md``): one row per metric, from its builder's summary
  line, the measure strings naming it and its trec_eval names;
- ``faces-table`` (``docs/faces.md``): the metric x face table (:mod:`rankframe.faces.table`);
- ``new-metric-files`` (``docs/architecture.md``): the files a new metric is written in
  (:data:`PLACES`; a test holds every registered metric to them, and finds any other file
  listing every metric).

A metric the registry declares appears in each without a hand edit.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import rankframe
from docsgen.docstrings import to_markdown
from docsgen.measures import measure_strings, trec_names
from docsgen.peers import NOTES, PEERS
from rankframe.faces.table import support_table
from rankframe.registry import METRICS, Metric

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^<!-- generated: (?P<name>[\w-]+) -->$", flags=re.MULTILINE)


def builder_module(name: str) -> str:
    """The module of the Polars builder of the metric ``name``
    (``rankframe.faces.polars.gains``)."""
    return str(getattr(rankframe, name).__module__)


def api_metrics() -> str:
    """mkdocstrings blocks: each Polars family module with its builders, in registry order."""
    by_module: dict[str, list[str]] = {}
    for name in METRICS:
        by_module.setdefault(builder_module(name), []).append(name)
    return "\n\n".join(f"::: {module}\n    options:\n      members: [{', '.join(names)}]"
                       for module, names in by_module.items())


def signature(metric: Metric) -> str:
    """The Polars builder's call, defaults shown after the ``*``
    (``ndcg(rel, k, *, rank='rank', gain='linear', ...)``)."""
    shown: list[str] = []
    for param in inspect.signature(getattr(rankframe, metric.name)).parameters.values():
        if param.kind is param.KEYWORD_ONLY:
            if "*" not in shown:
                shown.append("*")
            shown.append(f"{param.name}={param.default!r}")
        else:
            shown.append(param.name)
    return f"{metric.name}({', '.join(shown)})"


def summary(metric: Metric) -> str:
    """The first paragraph of the Polars builder's docstring, as Markdown."""
    doc = inspect.getdoc(getattr(rankframe, metric.name)) or ""
    first = " ".join(doc.split("\n\n")[0].split())
    return to_markdown(first, lambda _: None, "semantics.md").replace("|", "\\|")


def metrics_table() -> str:
    """One row per registered metric: its Python builder and SQL macro, the measure strings
    naming it, its definition (the builder's summary) and the trec_eval names and peer tools
    the measure reference compares it with."""
    strings, trec = measure_strings(), trec_names()
    lines = ["| metric (Python `rf.…` / SQL) | measure strings | definition | trec_eval; peers |",
             "|---|---|---|---|"]
    for name, metric in METRICS.items():
        named = ", ".join(f"`{s}`" for s in strings.get(name, [])) or "— (expression, macro)"
        peers = [p for p in PEERS if p in NOTES.get(name, {}) and p != "trec_eval"]
        matches = "; ".join(filter(None, [", ".join(f"`{t}`" for t in trec.get(name, [])),
                                          ", ".join(peers)])) or "—"
        lines.append(f"| [`{signature(metric)}`](measures.md#{name}) / `{metric.macro}` | "
                     f"{named} | {summary(metric)} | {matches} |")
    return "\n".join(lines)


@dataclass(frozen=True)
class Place:
    """A file a new metric is written in. ``path`` may hold ``{name}`` (the metric's) and
    ``{module}`` (its Polars builder's module, whose name each face's family file takes)."""

    path: str
    holds: str
    #: Only for some metrics (``holds`` says which): not checked for every one.
    optional: bool = False
    #: Where a face that lacks the metric gives the reason instead (its gaps module).
    or_reason_in: str = ""

    def file(self, name: str) -> Path:
        module = builder_module(name).rpartition(".")[2]
        return ROOT / self.path.format(name=name, module=module)


PLACES: tuple[Place, ...] = (
    Place("rankframe/registry.py", "its declaration: name, family, parameters (each with its "
          "description), columns, aggregate, `positive_rows`"),
    Place("rankframe/faces/polars/{module}.py", "the Polars builder, in its family's module"),
    Place("rankframe/faces/polars/__init__.py", "the static import of the builder, for type "
          "checkers (a test keeps them equal to the registry)"),
    Place("sql/rf_{name}.sql", "the DuckDB macro, with its header (signature, returns, edge "
          "cases, an example); `python -m docsgen.params --write` writes its parameter lines"),
    Place("rankframe/reference.py", "the oracle, line by line from the contract"),
    Place("rankframe/faces/spark/{module}.py", "the Spark builder (or the reason it has "
          "none, in `rankframe/faces/spark_gaps.py`)",
          or_reason_in="rankframe/faces/spark_gaps.py"),
    Place("rankframe/faces/spark/__init__.py", "the Spark builder's import",
          or_reason_in="rankframe/faces/spark_gaps.py"),
    Place("rankframe/faces/ibis/{module}.py", "the Ibis builder (or the reason it has none, "
          "in `rankframe/faces/ibis_gaps.py`)", or_reason_in="rankframe/faces/ibis_gaps.py"),
    Place("docs/semantics.md", "its section: formula, parameters, edge cases, a worked "
          "example"),
    Place("rankframe/measures.py", "its measure-string names, if it has any", optional=True),
    Place("rankframe/trec_eval/measures.py", "its trec_eval name, if it has one",
          optional=True),
    Place("CHANGELOG.md", "an entry under `## [Unreleased]`", optional=True),
)


def names(text: str, name: str) -> bool:
    """Whether ``text`` names the metric ``name`` (as a word, not inside another name)."""
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text) is not None


def new_metric_files(example: str = "ndcg") -> str:
    """The files a new metric is written in, as a table, the ``example`` metric's shown."""
    lines = [f"| file (for `{example}`) | what it holds |", "|---|---|"]
    for place in PLACES:
        shown = place.file(example).relative_to(ROOT).as_posix()
        lines.append(f"| `{place.path}` (`{shown}`) | {place.holds} |"
                     if "{" in place.path else f"| `{place.path}` | {place.holds} |")
    return "\n".join(lines)


GENERATORS: dict[str, Callable[[], str]] = {
    "api-metrics": api_metrics,
    "metrics-table": metrics_table,
    "faces-table": support_table,
    "new-metric-files": new_metric_files,
}


def expand(markdown: str) -> str:
    """``markdown`` with each ``<!-- generated: NAME -->`` line replaced by its list."""

    def generated(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in GENERATORS:
            raise KeyError(f"<!-- generated: {name} -->: no such list; known: "
                           f"{', '.join(GENERATORS)}")
        return GENERATORS[name]()

    return MARKER.sub(generated, markdown)


def is_generated(path: Path) -> bool:
    """Whether the page ``path`` holds a generated list."""
    return MARKER.search(path.read_text(encoding="utf-8")) is not None


__all__ = ["GENERATORS", "PLACES", "Place", "api_metrics", "expand", "is_generated",
           "metrics_table", "names", "new_metric_files", "signature", "summary"]

"""The measure reference page, generated from the metric registry.

For each registered metric: the summary line of its Polars builder's docstring (the
formula), its parameters with their defaults and choices, the measure strings that name it,
the trec_eval names computing it, which registered faces evaluate it and how peer tools
define it differently (:mod:`docsgen.peers`).

Which faces have a metric is what each face declares it lacks (:func:`rankframe.faces.gaps`,
which imports no optional extra), so the site builds with the ``docs`` extra alone.
"""

from __future__ import annotations

import inspect
from collections import defaultdict

import rankframe
from docsgen.docstrings import to_markdown
from docsgen.peers import CONVENTIONS, NOTES, PEERS
from rankframe import faces, measures, trec_eval
from rankframe.errors import MeasureError
from rankframe.registry import METRICS, Metric, Param

#: ``rankframe eval -m`` names that trec_eval itself does not have.
INTRO = """\
Generated from the metric registry (`rankframe/registry.py`) when the site is
built; the definitions, edge cases and worked examples are in the
[metric contract](semantics.md). Calling conventions: Polars and Spark
`rf.<name>(rel, *required, rank=..., **options)`, SQL `rf_<name>(rel, rank, *required,
option := value)` (the cutoff `k` may be left out in both: the whole list), measure
strings `name[(option=value,...)][@cutoff]` in `rf.evaluate`.
Each metric lists the faces (engines) that lack it, with the reason; the whole
[metric x face table](faces.md#which-face-has-which-metric) is on its own page.
"""


def _summary(metric: Metric) -> str:
    doc = inspect.getdoc(getattr(rankframe, metric.name)) or ""
    return to_markdown(" ".join(doc.split("\n\n")[0].split()), lambda _: None,
                       "semantics.md")


def _default(param: Param) -> str:
    if param.required:
        # A cutoff may be left out everywhere (Python k=None, SQL k := NULL): the whole list.
        return "required" if param.kind != "cutoff" else "`None` (the whole list)"
    return f"`{param.default!r}`"


def _params(metric: Metric) -> list[str]:
    """The parameters as a nested list: kind, choices, default and what each does
    (``Param.desc``, the prose of the builders' docstrings and the .sql headers)."""
    out = []
    for p in metric.params:
        choices = f", one of {', '.join(f'`{c}`' for c in p.choices)}" if p.choices else ""
        desc = to_markdown(p.desc, lambda _: None, "semantics.md").replace("``", "`")
        out.append(f"    - `{p.name}` ({p.kind}{choices}): {_default(p)}. {desc}")
    return out


def measure_strings() -> dict[str, list[str]]:
    """Metric name -> the measure names (rankframe grammar) that compute it."""
    out: dict[str, list[str]] = defaultdict(list)
    for name in measures.measure_names():
        parsed = _parse(name)
        if parsed is not None:
            out[parsed].append(name)
    return out


def _parse(name: str) -> str | None:
    for label in (name, f"{name}@10", f"{name}@0.5"):
        try:
            return measures.parse(label).metric.name
        except MeasureError:
            continue
    return None


def trec_names() -> dict[str, list[str]]:
    """Metric name -> trec_eval root names (``P``, ``ndcg_cut`` ...) that it computes."""
    out: dict[str, list[str]] = defaultdict(list)
    for tm in trec_eval.TREC_MEASURES:
        if tm.measure is None:
            continue
        metric = _parse(tm.measure)
        if metric is not None:
            out[metric].append(tm.name + ("" if tm.trec else " (rankframe eval only)"))
    return out


def face_support() -> tuple[list[str], dict[str, dict[str, str | None]]]:
    """The registered faces, and metric -> face -> None (supported) or the reason not."""
    names = list(faces.REGISTERED)
    lacking = {name: faces.gaps(name).metrics for name in names}
    return names, {metric: {name: lacking[name].get(metric) for name in names}
                   for metric in METRICS}


def _peer_table() -> list[str]:
    """The "How peers differ" table: each tool's conventions and rankframe's way to them."""
    header = ("tool", "queries averaged", "tied scores", "measures", "in rankframe")
    rows = [header, ("---",) * len(header),
            *((f"**{row[0]}**", *row[1:]) for row in CONVENTIONS)]
    return ["", "## How peers differ", "",
            "Where the numbers of other evaluation tools differ from rankframe's defaults, "
            "and the parameter that gives theirs (each metric below adds its own notes):",
            "", *("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
                  for row in rows)]


#: How each ``Metric.aggregate`` reads on the page.
_AGGREGATES = {"mean": "mean", "sum": "sum",
               "defined_mean": "mean over the queries where it is defined (NULL left out)"}


def page() -> str:
    """The whole Markdown page."""
    strings, trec = measure_strings(), trec_names()
    _, support = face_support()
    lines = ["# Measure reference", "", INTRO, *_peer_table()]
    for name, metric in METRICS.items():
        lines += ["", f"## {name}", "", _summary(metric), ""]
        lines.append(f"- **Polars / Spark**: `rf.{name}`; **SQL**: `{metric.macro}`; "
                     f"columns read: {', '.join(f'`{c}`' for c in metric.columns)}; "
                     f"summarised by the {_AGGREGATES[metric.aggregate]}.")
        lines.append("- **Parameters**:" + ("" if metric.params else " none."))
        lines += _params(metric)
        lines.append("- **Measure strings**: "
                     + (", ".join(f"`{s}`" for s in strings.get(name, []))
                        or "none (an expression and a macro only)") + ".")
        lines.append("- **trec_eval** (`rankframe eval -m`): "
                     + (", ".join(f"`{t}`" for t in trec.get(name, [])) or "no counterpart")
                     + ".")
        missing = {f: r for f, r in support[name].items() if r is not None}
        lines.append("- **Faces**: " + ("all" if not missing else "all but " + ", ".join(
            f"`{f}`" for f in missing)) + ".")
        lines += [f"    - `{f}`: {reason}" for f, reason in missing.items()]
        lines.append(f"- **Contract**: [semantics § {name}](semantics.md#{name}).")
        notes = NOTES.get(name, {})
        if notes:
            lines += ["", "How peers differ:", ""]
            lines += [f"- **{peer}**: {notes[peer]}" for peer in PEERS if peer in notes]
    return "\n".join(lines) + "\n"

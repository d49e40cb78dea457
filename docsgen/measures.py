"""The measure reference page, generated from the metric registry.

For each registered metric: the summary line of its Polars builder's docstring (the
formula), its parameters with their defaults and choices, the measure strings that name it,
the trec_eval names computing it, which registered faces evaluate it (from each face's
``unsupported`` mapping) and how peer tools define it differently (:mod:`docsgen.peers`).
"""

from __future__ import annotations

import inspect
from collections import defaultdict

import rankframe
from docsgen.peers import NOTES, PEERS
from rankframe import faces, measures, trec_eval
from rankframe.errors import MeasureError, RankframeError
from rankframe.faces.table import support_table
from rankframe.metrics.registry import METRICS, Metric, Param

#: ``rankframe eval -m`` names that trec_eval itself does not have.
INTRO = """\
Generated from the metric registry (`rankframe/metrics/registry.py`) when the site is
built; the definitions, edge cases and worked examples are in the
[metric contract](semantics.md). Calling conventions: Polars and Spark
`rf.<name>(rel, *required, rank=..., **options)`, SQL `rf_<name>(rel, rank, *required,
option := value)` (the cutoff `k` may be left out in both: the whole list), measure
strings `name[(option=value,...)][@cutoff]` in `rf.evaluate`.
A face without ✓ raises a `MeasureError` with the reason numbered under the table.
"""


def _summary(metric: Metric) -> str:
    doc = inspect.getdoc(getattr(rankframe, metric.name)) or ""
    return " ".join(doc.split("\n\n")[0].split())


def _default(param: Param) -> str:
    if param.required:
        # A cutoff may be left out everywhere (Python k=None, SQL k := NULL): the whole list.
        return "required" if param.kind != "cutoff" else "`None` (the whole list)"
    return f"`{param.default!r}`"


def _params(metric: Metric) -> str:
    if not metric.params:
        return "none"
    out = []
    for p in metric.params:
        choices = f", one of {', '.join(f'`{c}`' for c in p.choices)}" if p.choices else ""
        out.append(f"`{p.name}` ({p.kind}{choices}): {_default(p)}")
    return "; ".join(out)


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
    names = [n for n, r in faces.REGISTERED.items() if r.role != "oracle"]
    table: dict[str, dict[str, str | None]] = {m: {} for m in METRICS}
    for name in names:
        try:
            unsupported = dict(faces.get(name).unsupported)
        except RankframeError as exc:  # a face whose extra is not installed
            unsupported = {m: f"unknown here: {exc}" for m in METRICS}
        for metric in METRICS:
            table[metric][name] = unsupported.get(metric)
    return names, table


def page() -> str:
    """The whole Markdown page."""
    strings, trec = measure_strings(), trec_names()
    _, support = face_support()
    lines = ["# Measure reference", "", INTRO, "## Faces", "", support_table()]
    for name, metric in METRICS.items():
        lines += ["", f"## {name}", "", _summary(metric), ""]
        lines.append(f"- **Polars / Spark**: `rf.{name}`; **SQL**: `{metric.macro}`; "
                     f"columns read: {', '.join(f'`{c}`' for c in metric.columns)}; "
                     f"summarised by the {metric.aggregate}.")
        lines.append(f"- **Parameters**: {_params(metric)}.")
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

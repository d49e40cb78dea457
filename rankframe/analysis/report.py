"""Render a comparison from :func:`rankframe.analysis.compare.compare` as a plain-text, Markdown or
LaTeX table of means with significance markers.

Layout: one row per system (order of the comparison), one column per measure, each cell
the mean over queries. Every system gets a letter, ``a``, ``b``, ... in row order (``z``
is followed by ``aa``, ``ab``, ...), printed before its name.

Marker convention (the one IR papers print): a superscript letter on a cell names a system
that this row is **significantly better than** on that measure, i.e. whose comparison has
``significant`` true and a difference of that sign. :func:`~rankframe.analysis.compare.compare`
tests every system against the baseline only, so a non-baseline row can carry only the
baseline's letter (it beats the baseline), and the baseline row carries the letters of
the systems it beats. The test, correction and level are the comparison's own. The best
mean per measure is set in bold in Markdown and LaTeX.

Plain text writes the superscript as ``^ab``, Markdown as ``<sup>ab</sup>`` and LaTeX as
``\\textsuperscript{ab}``. Nothing here needs NumPy or SciPy.

One comparison in the three renderings:

>>> import polars as pl
>>> from rankframe.analysis.report import to_latex, to_markdown, to_text
>>> cmp = pl.DataFrame({
...     "system": ["bm25", "dense"], "measure": ["map"] * 2, "baseline": ["bm25"] * 2,
...     "mean": [0.25, 0.375], "delta": [None, 0.125], "significant": [None, True]})
>>> print(to_text(cmp, legend=False), end="")
     system  map
(a)  bm25    0.2500
(b)  dense   0.3750^a
>>> print(to_markdown(cmp, legend=False), end="")
|  | system | map |
|---|---|---:|
| (a) | bm25 | 0.2500 |
| (b) | dense | **0.3750**<sup>a</sup> |
>>> print(to_latex(cmp, legend=False), end="")
\\begin{tabular}{llr}
\\toprule
 & System & map \\\\
\\midrule
(a) & bm25 & 0.2500 \\\\
(b) & dense & \\textbf{0.3750}\\textsuperscript{a} \\\\
\\bottomrule
\\end{tabular}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

import polars as pl

from rankframe import validation
from rankframe.docsections import described_by
from rankframe.errors import InputError

__all__ = ["significance_markers", "system_letters", "to_latex", "to_markdown", "to_text"]

#: A cell renderer: (formatted mean, marker letters, is the best mean) -> cell text.
_Render = Callable[[str, str, bool], str]

#: The parameters of this module's functions, described once (their docstrings are completed
#: from it: :func:`rankframe.docsections.described_by`).
PARAMETERS: Final[Mapping[tuple[str, ...], str]] = {
    ("cmp",): "The table :func:`rankframe.compare` returns (one row per system and measure).",
    ("digits",): "Decimal places of the means; default 4.",
    ("legend",): "Add a line explaining the superscript letters; default True.",
    ("note",): "Text appended to the legend (e.g. the test used); default None.",
}

_REQUIRED = ("system", "measure", "baseline", "mean", "delta", "significant")

_LEGEND = (
    "Superscript letters name the systems a value is significantly better than "
    "(tests against the baseline {baseline})."
)


@described_by(PARAMETERS)
def system_letters(cmp: pl.DataFrame) -> dict[str, str]:
    """The letter of each system, in row order: ``a``, ``b``, ..., ``z``, ``aa``, ...

    Examples
    --------
    >>> import polars as pl
    >>> system_letters(pl.DataFrame({"system": ["bm25", "bm25", "dense"]}))
    {'bm25': 'a', 'dense': 'b'}
    """
    systems = cmp["system"].unique(maintain_order=True).to_list()
    return {str(s): _letter(i) for i, s in enumerate(systems)}


def _letter(i: int) -> str:
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = chr(ord("a") + r) + out
    return out


@described_by(PARAMETERS)
def significance_markers(cmp: pl.DataFrame) -> dict[tuple[str, str], str]:
    """Letters to set as superscript on each (system, measure) cell.

    A significant comparison with ``delta > 0`` puts the baseline's letter on the
    system's cell; with ``delta < 0`` it puts the system's letter on the baseline's cell.
    Letters on one cell are in alphabetical order.

    Examples
    --------
    >>> import polars as pl
    >>> cmp = pl.DataFrame({
    ...     "system": ["a0", "b0", "c0"], "measure": ["map"] * 3, "baseline": ["a0"] * 3,
    ...     "mean": [0.3, 0.4, 0.1], "delta": [None, 0.1, -0.2],
    ...     "significant": [None, True, True]})
    >>> significance_markers(cmp)
    {('a0', 'map'): 'c', ('b0', 'map'): 'a', ('c0', 'map'): ''}
    """
    _check(cmp)
    letters = system_letters(cmp)
    marks: dict[tuple[str, str], set[str]] = {
        (str(r["system"]), str(r["measure"])): set() for r in cmp.iter_rows(named=True)
    }
    for r in cmp.iter_rows(named=True):
        if not r["significant"] or r["delta"] is None or r["delta"] == 0:
            continue
        system, baseline, measure = str(r["system"]), str(r["baseline"]), str(r["measure"])
        if r["delta"] > 0:
            marks[(system, measure)].add(letters[baseline])
        else:
            marks.setdefault((baseline, measure), set()).add(letters[system])
    return {key: "".join(sorted(v, key=lambda s: (len(s), s))) for key, v in marks.items()}


@described_by(PARAMETERS)
def to_text(
    cmp: pl.DataFrame, *, digits: int = 4, legend: bool = True, note: str | None = None
) -> str:
    """A plain-text table: letter, system, one column per measure; ``^ab`` marks.

    ``legend`` adds a line explaining the marks, and ``note`` (e.g. the test used) is
    appended to it.

    The module's example shows one comparison in the three renderings.
    """
    measures, cells = _cells(cmp, digits, lambda v, m, best: v + (f"^{m}" if m else ""))
    header = ["", "system", *measures]
    body = [[f"({letter})", name, *values] for name, letter, values in cells]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip()
             for line in [header, *body]]
    if legend:
        lines += ["", _legend(cmp, note)]
    return "\n".join(lines) + "\n"


@described_by(PARAMETERS)
def to_markdown(
    cmp: pl.DataFrame, *, digits: int = 4, legend: bool = True, note: str | None = None
) -> str:
    """A Markdown (GitHub) table; best mean per measure in bold, marks as ``<sup>``.
    ``legend`` and ``note`` as in :func:`to_text`.

    The module's example shows one comparison in the three renderings.
    """

    def cell(value: str, marks: str, best: bool) -> str:
        text = f"**{value}**" if best else value
        return text + (f"<sup>{marks}</sup>" if marks else "")

    measures, cells = _cells(cmp, digits, cell)
    lines = [
        "| " + " | ".join(["", "system", *(_md_escape(m) for m in measures)]) + " |",
        "|" + "|".join(["---", "---", *("---:" for _ in measures)]) + "|",
    ]
    lines += ["| " + " | ".join([f"({letter})", _md_escape(name), *values]) + " |"
              for name, letter, values in cells]
    if legend:
        lines += ["", _legend(cmp, note)]
    return "\n".join(lines) + "\n"


@described_by(PARAMETERS)
def to_latex(
    cmp: pl.DataFrame,
    *,
    digits: int = 4,
    caption: str | None = None,
    label: str | None = None,
    legend: bool = True,
    note: str | None = None,
) -> str:
    r"""A LaTeX ``tabular`` (booktabs rules); best mean per measure in ``\textbf``, marks
    as ``\textsuperscript``. With a ``caption`` (or ``label``) it is wrapped in a
    ``table`` environment and the legend ends the caption; without, the legend is a
    ``%`` comment above the tabular; ``note`` is appended to the legend. Needs
    ``\usepackage{booktabs}``.

    The module's example shows one comparison in the three renderings.

    Parameters
    ----------
    caption
        Caption; with it (or ``label``) the tabular is wrapped in a ``table`` environment.
    label
        LaTeX ``\label`` of that table.
    legend
        Add a line explaining the superscript letters; default True. In the caption, or a
        ``%`` comment without one.
    """

    def cell(value: str, marks: str, best: bool) -> str:
        text = rf"\textbf{{{value}}}" if best else value
        return text + (rf"\textsuperscript{{{marks}}}" if marks else "")

    measures, cells = _cells(cmp, digits, cell)
    tabular = [
        r"\begin{tabular}{ll" + "r" * len(measures) + "}",
        r"\toprule",
        " & ".join(["", "System", *(_tex_escape(m) for m in measures)]) + r" \\",
        r"\midrule",
        *(" & ".join([f"({letter})", _tex_escape(name), *values]) + r" \\"
          for name, letter, values in cells),
        r"\bottomrule",
        r"\end{tabular}",
    ]
    explained = _tex_escape(_legend(cmp, note)) if legend else ""
    if caption is None and label is None:
        head = [f"% {explained}"] if explained else []
        return "\n".join(head + tabular) + "\n"
    title = _tex_escape(caption or "").strip()
    if title and explained and not title.endswith((".", "!", "?")):
        title += "."
    text = " ".join(t for t in (title, explained) if t)
    lines = [r"\begin{table}", r"\centering"]
    if text:
        lines.append(rf"\caption{{{text}}}")
    if label is not None:
        lines.append(rf"\label{{{label}}}")
    lines += [*tabular, r"\end{table}"]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- helpers


def _check(cmp: pl.DataFrame) -> None:
    if not isinstance(cmp, pl.DataFrame):
        raise TypeError(f"report: expected the polars DataFrame of compare(), got "
                        f"{type(cmp).__name__}")
    absent = [c for c in _REQUIRED if c not in cmp.columns]
    if absent:
        raise InputError(
            f"report: the comparison lacks column(s) {', '.join(absent)}; pass the frame "
            "returned by rankframe.analysis.compare.compare"
        )
    if cmp.height == 0:
        raise InputError("report: the comparison is empty")
    dup = cmp.group_by("system", "measure", maintain_order=True).len().filter(pl.col("len") > 1)
    if dup.height:
        first = dup.row(0, named=True)
        raise InputError(
            f"report: system {first['system']!r} has {first['len']} rows for measure "
            f"{first['measure']!r}; expected one"
        )


def _cells(
    cmp: pl.DataFrame, digits: int, render: _Render
) -> tuple[list[str], list[tuple[str, str, list[str]]]]:
    digits = validation.integer("report", "digits", digits, 0)
    marks = significance_markers(cmp)
    letters = system_letters(cmp)
    systems = list(letters)
    measures = [str(m) for m in cmp["measure"].unique(maintain_order=True)]
    means = {(str(r["system"]), str(r["measure"])): r["mean"]
             for r in cmp.iter_rows(named=True)}
    best: dict[str, str] = {}
    for m in measures:
        values = [round(v, digits) for s in systems
                  if (v := means.get((s, m))) is not None]
        if values:
            best[m] = f"{max(values):.{digits}f}"
    cells = []
    for s in systems:
        row = []
        for m in measures:
            value = means.get((s, m))
            if value is None:
                row.append("-")
                continue
            text = f"{value:.{digits}f}"
            row.append(render(text, marks.get((s, m), ""), text == best.get(m)))
        cells.append((s, letters[s], row))
    return measures, cells


def _legend(cmp: pl.DataFrame, note: str | None) -> str:
    baselines = cmp["baseline"].drop_nulls().unique(maintain_order=True).to_list()
    names = ", ".join(str(b) for b in baselines) or "none"
    text = _LEGEND.format(baseline=names)
    return f"{text} {note.strip()}" if note and note.strip() else text


def _md_escape(text: str) -> str:
    return text.replace("|", r"\|").replace("*", r"\*").replace("_", r"\_")


_TEX = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
    "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}


def _tex_escape(text: str) -> str:
    return "".join(_TEX.get(c, c) for c in text)

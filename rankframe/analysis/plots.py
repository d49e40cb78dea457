"""Plots for comparing systems: metric@k curves, per-query differences and interpolated
precision-recall curves.

Each function returns a :class:`matplotlib.figure.Figure` built without ``pyplot`` (no GUI
backend, no global state), which Jupyter displays inline and :func:`save` writes to PNG,
SVG or PDF. Matplotlib is the optional extra ``plot``: ``pip install 'rankframe[plot]'``.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import polars as pl

from rankframe.errors import InputError, MeasureError
from rankframe.measures import canonical, parse

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["metric_at_k", "per_query_difference", "precision_recall", "save"]

#: Colour-blind-safe palette (Okabe & Ito), cycled over systems in order of appearance.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
           "#000000")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_MINUS = "\u2212"
_GAIN, _LOSS, _TIE = "#0072B2", "#D55E00", "#999999"


def _figure(width: float = 6.4, height: float = 4.0) -> tuple[Figure, Axes]:
    try:
        figure_module: ModuleType = importlib.import_module("matplotlib.figure")
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "rankframe.analysis.plots needs matplotlib; install the optional extra: "
            "pip install 'rankframe[plot]'"
        ) from exc
    fig: Figure = figure_module.Figure(figsize=(width, height), layout="constrained")
    ax = fig.add_subplot()
    ax.grid(True, color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig, ax


def save(figure: Figure, path: str | os.PathLike[str], *, dpi: int = 150) -> Path:
    """Write ``figure`` to ``path``; the suffix picks the format (``.png``, ``.svg``,
    ``.pdf``). Returns the path.

    Parameters
    ----------
    figure
        A Matplotlib figure, e.g. from :func:`metric_at_k`.
    path
        Output file; its suffix picks the format.
    dpi
        Resolution of raster formats; default 150.

    Examples
    --------
    >>> import polars as pl, tempfile, pathlib
    >>> curve = pl.DataFrame({"system": ["a", "a"], "k": [5, 10], "value": [0.3, 0.4]})
    >>> out = save(metric_at_k(curve), pathlib.Path(tempfile.mkdtemp()) / "k.svg")
    >>> out.stat().st_size > 1000
    True
    """
    target = Path(path)
    suffix = target.suffix.lower().lstrip(".")
    if suffix not in ("png", "svg", "pdf"):
        raise ValueError(f"save: {target.name!r} must end in .png, .svg or .pdf")
    figure.savefig(target, format=suffix, dpi=dpi)
    return target


def metric_at_k(
    data: pl.DataFrame,
    *,
    measure: str | None = None,
    system: str = "system",
    k: str = "k",
    value: str = "value",
    title: str | None = None,
) -> Figure:
    r"""Mean of a measure at several cutoffs, one line per system.

    ``data`` is either long, with columns ``system``, ``k`` and ``value`` (several rows per
    (system, k), e.g. one per query, are averaged), or a per-query table with one column
    per cutoff named ``f"{measure}@{k}"`` (``ndcg@5``, ``ndcg@10``...) or by trec_eval
    (``ndcg_cut_5``, ``P_10``: read as their measure strings). The plotted point
    is :math:`\bar v_{s,k} = \frac1{|Q|}\sum_q v_{s,q,k}`.

    Parameters
    ----------
    data
        The long frame, or the per-query frame.
    measure
        For the per-query form, the measure family (the part before ``@``); may be left
        out when the frame holds a single family. Used as the axis label in both forms.
    system, k, value
        Column names.
    title
        Plot title; default none.

    Examples
    --------
    >>> import polars as pl
    >>> pq = pl.DataFrame({"system": ["a", "b"], "qid": ["q1", "q1"],
    ...                    "ndcg@5": [0.2, 0.3], "ndcg@10": [0.25, 0.35]})
    >>> metric_at_k(pq).axes[0].get_ylabel()
    'ndcg'
    """
    _need(data, "metric_at_k", [system])
    if k in data.columns and value in data.columns:
        long = data.select(pl.col(system).cast(pl.String), pl.col(k).cast(pl.Int64),
                           pl.col(value).cast(pl.Float64))
        label = measure or value
    else:
        label, columns = _cutoff_columns(data, measure, system)
        long = data.unpivot(index=system, on=list(columns), variable_name=k,
                            value_name=value).select(
            pl.col(system).cast(pl.String),
            pl.col(k).replace_strict(columns, return_dtype=pl.Int64),
            pl.col(value).cast(pl.Float64),
        )
    curves = long.group_by(system, k, maintain_order=True).agg(pl.col(value).mean()).sort(
        k, maintain_order=True)
    fig, ax = _figure()
    for i, name in enumerate(_systems(long, system)):
        line = curves.filter(pl.col(system) == name)
        ax.plot(line[k].to_list(), line[value].to_list(), label=name,
                color=PALETTE[i % len(PALETTE)], marker=_MARKERS[i % len(_MARKERS)],
                linewidth=1.8, markersize=5)
    ks = sorted(set(curves[k].to_list()))
    ax.set_xticks(ks)
    if len(ks) > 1 and ks[-1] / max(ks[0], 1) >= 20:
        ax.set_xscale("log")
        ax.set_xticks(ks, [str(c) for c in ks])
        ax.minorticks_off()
    ax.set_xlabel("cutoff k")
    ax.set_ylabel(label)
    ax.legend(frameon=False)
    if title:
        ax.set_title(title)
    return fig


def per_query_difference(
    per_query: pl.DataFrame,
    measure: str,
    *,
    a: str,
    b: str,
    system: str = "system",
    query: str = "qid",
    labels: bool | None = None,
    title: str | None = None,
) -> Figure:
    r"""Per-query difference :math:`d_q = v_{b,q} - v_{a,q}` as bars sorted by size.

    Bars above zero are queries where ``b`` wins, below where it loses; the title gives
    the mean difference and the counts of wins, ties and losses. Both systems must have
    every query (use :func:`rankframe.analysis.compare.compare`'s ``missing`` policies first to
    decide what a missing query means).

    Parameters
    ----------
    per_query
        One row per (system, query) with a column ``measure``.
    measure
        The measure column.
    a, b
        The reference system and the one compared with it.
    system, query
        Column names.
    labels
        Write query ids under the bars; default when there are at most 40 queries.
    title
        Plot title; default ``"<b> - <a> on <measure>: ..."`` (a true minus sign) with the summary.

    Examples
    --------
    >>> import polars as pl
    >>> pq = pl.DataFrame({"system": ["x", "x", "y", "y"], "qid": [1, 2, 1, 2],
    ...                    "map": [0.5, 0.25, 0.75, 0.0]})
    >>> per_query_difference(pq, "map", a="x", b="y").axes[0].get_ylabel() == "map: y \u2212 x"
    True
    """
    _need(per_query, "per_query_difference", [system, query, measure])
    if not per_query.schema[measure].is_numeric():
        raise MeasureError(f"per_query_difference: column {measure!r} is not numeric")
    names = _systems(per_query, system)
    for name in (a, b):
        if name not in names:
            raise InputError(
                f"per_query_difference: system {name!r} not in column {system!r}; "
                f"systems: {', '.join(map(repr, names))}"
            )
    pick = per_query.select(pl.col(system).cast(pl.String), query,
                            pl.col(measure).cast(pl.Float64))
    left = pick.filter(pl.col(system) == a).drop(system).rename({measure: "a"})
    right = pick.filter(pl.col(system) == b).drop(system).rename({measure: "b"})
    both = left.join(right, on=query, how="full", coalesce=True)
    lacking = both.filter(pl.col("a").is_null() | pl.col("b").is_null())
    if lacking.height:
        shown = ", ".join(repr(q) for q in lacking[query].head(10).to_list())
        raise InputError(
            f"per_query_difference: {lacking.height} query(ies) lack a value of {measure!r} "
            f"for {a!r} or {b!r}: {shown}"
        )
    diffs = both.select(pl.col(query).cast(pl.String),
                        (pl.col("b") - pl.col("a")).alias("d")).sort("d", descending=True)
    d = diffs["d"].to_list()
    colors = [_GAIN if v > 0 else _LOSS if v < 0 else _TIE for v in d]
    fig, ax = _figure(width=max(6.4, min(12.0, 0.12 * len(d) + 3)))
    positions = list(range(len(d)))
    ax.bar(positions, d, color=colors, width=0.85 if len(d) < 200 else 1.0, linewidth=0)
    ax.axhline(0, color="#333333", linewidth=0.8)
    show = len(d) <= 40 if labels is None else labels
    if show:
        ax.set_xticks(positions, diffs[query].to_list(), rotation=90, fontsize=7)
    else:
        ax.set_xticks([])
    ax.grid(False, axis="x")
    ax.set_xlabel(f"queries ({len(d)}), sorted by difference")
    ax.set_ylabel(f"{measure}: {b} {_MINUS} {a}")
    wins = sum(v > 0 for v in d)
    losses = sum(v < 0 for v in d)
    mean = sum(d) / len(d) if d else 0.0
    ax.set_title(title or f"{b} {_MINUS} {a} on {measure}: mean {mean:+.4f}, "
                 f"{wins} wins / {len(d) - wins - losses} ties / {losses} losses",
                 fontsize=10)
    return fig


def precision_recall(
    per_query: pl.DataFrame,
    *,
    system: str = "system",
    prefix: str = "iprec_at_recall_",
    systems: Sequence[str] | None = None,
    title: str | None = None,
) -> Figure:
    r"""Interpolated precision-recall curves, one per system.

    Reads the columns ``f"{prefix}{x}"`` (trec_eval's ``iprec_at_recall_0.00`` ...
    ``iprec_at_recall_1.00``) or rankframe's ``iprec@x`` (``iprec@0.5``), averages them
    per system over queries and draws precision against recall level ``x``:
    :math:`\bar P_s(x) = \frac1{|Q|}\sum_q \max_{r \ge r_q(x)} P_q(r)`.

    Parameters
    ----------
    per_query
        Per-query table with a system column and the ``iprec_at_recall`` columns, e.g. from
        :func:`rankframe.evaluate_runs` with ``"iprec_at_recall_0.00"`` ...
        ``"iprec_at_recall_1.00"``.
    system
        Name of the system column; default ``"system"``.
    prefix
        Prefix of the precision columns, followed by the recall level.
    systems
        Systems to draw, in this order; None: all, in order of appearance.
    title
        Title of the axes; None: no title.

    Examples
    --------
    >>> import polars as pl
    >>> pq = pl.DataFrame({"system": ["a"], "iprec_at_recall_0.00": [1.0],
    ...                    "iprec_at_recall_0.50": [0.5], "iprec_at_recall_1.00": [0.2]})
    >>> precision_recall(pq).axes[0].get_xlabel()
    'recall'
    """
    _need(per_query, "precision_recall", [system])
    pattern = re.compile(re.escape(prefix) + r"(\d+(?:\.\d+)?)")
    levels = {c: float(m.group(1)) for c in per_query.columns
              if (m := pattern.fullmatch(c)) is not None
              or (m := re.fullmatch(r"iprec@(\d+(?:\.\d+)?)", _spelt(c))) is not None}
    if not levels:
        raise MeasureError(
            f"precision_recall: no column named {prefix}<recall level> "
            f"(e.g. {prefix}0.50); columns: {', '.join(per_query.columns)}"
        )
    columns = sorted(levels, key=lambda c: levels[c])
    means = per_query.group_by(pl.col(system).cast(pl.String), maintain_order=True).agg(
        pl.col(c).cast(pl.Float64).mean() for c in columns)
    order = list(systems) if systems is not None else _systems(per_query, system)
    fig, ax = _figure(width=5.6, height=4.4)
    xs = [levels[c] for c in columns]
    for i, name in enumerate(order):
        found = means.filter(pl.col(system) == name)
        if found.height == 0:
            raise InputError(f"precision_recall: no rows for system {name!r}")
        ax.plot(xs, list(found.select(columns).row(0)), label=name,
                color=PALETTE[i % len(PALETTE)], marker=_MARKERS[i % len(_MARKERS)],
                linewidth=1.8, markersize=4)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.legend(frameon=False)
    if title:
        ax.set_title(title)
    return fig


# --------------------------------------------------------------------------- helpers


def _need(df: Any, fn: str, columns: Sequence[str]) -> None:
    if not isinstance(df, pl.DataFrame):
        raise TypeError(f"{fn}: expected a polars DataFrame, got {type(df).__name__}")
    absent = [c for c in columns if c not in df.columns]
    if absent:
        raise InputError(
            f"{fn}: column(s) {', '.join(map(repr, absent))} not found; "
            f"columns: {', '.join(df.columns)}"
        )
    if df.height == 0:
        raise InputError(f"{fn}: the frame is empty")


def _spelt(column: str) -> str:
    """``column`` in rankframe's canonical measure spelling (``ndcg_cut_10`` -> ``ndcg@10``,
    ``iprec_at_recall_0.50`` -> ``iprec@0.5``); itself when it is not a measure."""
    try:
        return canonical(column)
    except MeasureError:
        return column


def _is_recall_level(column: str) -> bool:
    """True for a measure whose ``@x`` is a recall level, not a cutoff (``iprec@0.5``)."""
    try:
        return "recall" in parse(column).values
    except MeasureError:
        return False


def _systems(df: pl.DataFrame, system: str) -> list[str]:
    return [str(s) for s in df[system].cast(pl.String).unique(maintain_order=True)]


def _cutoff_columns(
    df: pl.DataFrame, measure: str | None, system: str
) -> tuple[str, dict[str, int]]:
    """The measure family and its ``name@k`` columns mapped to k, in increasing k."""
    found: dict[str, dict[str, int]] = {}
    for c in df.columns:
        m = re.fullmatch(r"(.+)@(\d+)", c) or re.fullmatch(r"(.+)@(\d+)", _spelt(c))
        if m and c != system and df.schema[c].is_numeric() and not _is_recall_level(c):
            found.setdefault(m.group(1), {})[c] = int(m.group(2))
    if measure is not None and measure not in found:
        # a family spelt another way (ndcg_cut, precision, P): its canonical name
        spellings = {_spelt(f"{measure}@1"), _spelt(f"{measure}_1")}
        measure = next((f for f in found if f"{f}@1" in spellings), measure)
    if measure is None:
        if len(found) != 1:
            families = ", ".join(sorted(found)) or "none"
            raise MeasureError(
                "metric_at_k: give measure= to pick the columns <measure>@<k>; "
                f"families found: {families} (or pass a long frame with columns k, value)"
            )
        measure = next(iter(found))
    if measure not in found:
        raise MeasureError(
            f"metric_at_k: no numeric column named {measure}@<k>; "
            f"columns: {', '.join(df.columns)}"
        )
    columns = dict(sorted(found[measure].items(), key=lambda kv: kv[1]))
    return measure, columns

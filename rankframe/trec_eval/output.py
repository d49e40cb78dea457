"""The lines trec_eval prints: per-query and summary lines in its order, summaries
accumulated as it accumulates them, 11pt_avg and rbp_resid derived as it derives them,
z-scores (``-Z``), and the ``%-22s\\t%s\\t%6.4f`` format."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from rankframe.trec_eval.measures import (
    GEOMETRIC_MEAN_FLOOR,
    RESIDUAL_HELPERS,
    Selection,
    TrecMeasure,
    level_names,
)

if TYPE_CHECKING:
    import polars as pl


class Line(NamedTuple):
    """One output line: measure, query (``all`` for a summary), value, printed as integer;
    ``zscore``: a z-score (``-Z``), printed after a ``Z`` before the name; ``summary``: an
    ``all`` line over the queries (a query may be named ``all`` too)."""

    name: str
    query: str
    value: float | int | str
    integer: bool
    zscore: bool = False
    summary: bool = False


#: What trec_eval prints for a z-score it cannot compute (``-Z``; MISSING_ZSCORE_VALUE).
MISSING_ZSCORE = -1000000.0
#: Per query, per printed measure name: (mean, standard deviation), from a z-score file.
ZScores = Mapping[str, Mapping[str, tuple[float, float]]]


def zscore(value: float, qid: str, name: str, zscores: ZScores) -> float:
    """The z-score ``(value - mean) / stddev`` of measure ``name`` on query ``qid``, as
    trec_eval's ``-Z`` computes it: :data:`MISSING_ZSCORE` when the file has no mean for
    the query and measure, and for stddev 0 unless the value equals the mean (then 0).

    Examples
    --------
    >>> z = {"301": {"map": (0.25, 0.5), "P_5": (0.2, 0.0)}}
    >>> zscore(0.5, "301", "map", z), zscore(0.2, "301", "P_5", z), zscore(0.5, "302", "map", z)
    (0.5, 0.0, -1000000.0)
    """
    known = zscores.get(qid, {}).get(name)
    if known is None:
        return MISSING_ZSCORE
    mean, stddev = known
    if stddev:
        return (value - mean) / stddev
    return 0.0 if value == mean else MISSING_ZSCORE


def summary(measure: TrecMeasure, values: Sequence[float | int]) -> float | int:
    """The ``all`` value of ``measure`` over per-query ``values``, as trec_eval computes it:
    the sum of counts, the geometric mean (values floored at :data:`GEOMETRIC_MEAN_FLOOR`)
    for ``gm_map``, else the mean; accumulated left to right, as trec_eval does.

    Examples
    --------
    >>> from rankframe.trec_eval.measures import BY_NAME
    >>> summary(BY_NAME["num_ret"], [3, 4]), summary(BY_NAME["map"], [0.5, 1.0])
    (7, 0.75)
    """
    kind = measure.summary  # read once: a property, and values may be millions long
    if kind == "sum":
        return sum(int(v) for v in values)
    total = 0.0
    if kind == "gmean":
        for v in values:  # left to right, as trec_eval accumulates
            total += math.log(max(v, GEOMETRIC_MEAN_FLOOR))
        return math.exp(total / len(values))
    for v in values:
        total += v
    return total / len(values)


class Columns:
    """Per-query values by column name (``qid`` and printed measure names), read one list
    at a time: a dict of lists here; a Polars table (:func:`frame_columns`) converts a column
    only when it is asked for, so a summary never holds more than one as Python objects."""

    def __init__(self, lists: Mapping[str, Sequence[Any]], height: int) -> None:
        self._lists, self.height = lists, height

    def __getitem__(self, name: str) -> Sequence[Any]:
        return self._lists[name]

    def names(self) -> list[str]:
        return list(self._lists)


class _FrameColumns(Columns):
    def __init__(self, frame: pl.DataFrame) -> None:
        super().__init__({}, frame.height)
        self._frame = frame

    def __getitem__(self, name: str) -> Sequence[Any]:
        return self._frame.get_column(name).to_list()

    def names(self) -> list[str]:
        return self._frame.columns


def frame_columns(per_query: pl.DataFrame, selected: Selection, *, judged_only: bool = False
                  ) -> Columns:
    """A per-query Polars table as :class:`Columns`, with the columns :func:`lines` derives:
    11pt_avg from the iprec_at_recall levels and rbp_resid's trec_eval quirks (see
    :func:`list_columns`, the same in Python)."""
    import polars as pl

    table = per_query
    for measure, params in selected:
        if measure.name != "11pt_avg":
            continue
        # As trec_eval: the levels added from the highest down, then one division by their
        # number (by a column: Polars divides by a scalar as a product with its reciprocal).
        levels = level_names(params)
        total = pl.lit(0.0)
        for name in reversed(levels):
            total = total + pl.col(name)
        count = total * 0.0 + float(len(levels))
        table = table.with_columns((total / count).alias(measure.names(params)[0]))
    residuals = _residual_names(selected)
    if residuals:
        num_ret, judged = (pl.col(c) for c in RESIDUAL_HELPERS)
        unjudged = (num_ret > 0) & (judged < 1)
        empty = 0.0 if judged_only else 1.0  # one unjudged document of p^0 + (1 - p) p^0
        table = table.with_columns(
            pl.when(unjudged).then(pl.col(n))
            .when((num_ret == 0) & pl.lit(n.startswith("rbp_resid_p="))).then(empty)
            .otherwise(0.0).alias(n)
            for n in residuals)
    return _FrameColumns(table)


def list_columns(per_query: dict[str, list[Any]], selected: Selection, *,
                 judged_only: bool = False) -> Columns:
    """Per-query lists (``qid`` and one list per printed name, as :func:`measure_strings`
    names them) as :class:`Columns`, with 11pt_avg computed from the eleven iprec_at_recall
    lists (added from the highest level down, then divided by their number, as trec_eval)
    and rbp_resid set to 0 where no retrieved document is unjudged (from the
    :data:`RESIDUAL_HELPERS` lists; under ``-c`` a query without results reads 1 for
    ``rbp_resid_p=x``, 0 for it with ``judged_only``)."""
    lists = dict(per_query)
    for measure, params in selected:
        if measure.name != "11pt_avg":
            continue
        levels = [lists[name] for name in reversed(level_names(params))]
        averaged = []
        for values in zip(*levels, strict=True):
            total = 0.0
            for v in values:
                total += v
            averaged.append(total / float(len(values)))
        lists[measure.names(params)[0]] = averaged
    residuals = _residual_names(selected)
    if residuals:
        num_ret, judged = (lists[c] for c in RESIDUAL_HELPERS)
        empty = 0.0 if judged_only else 1.0
        for n in residuals:
            placeholder = empty if n.startswith("rbp_resid_p=") else 0.0
            lists[n] = [v if r > 0 and j < 1 else placeholder if r == 0 else 0.0
                        for v, r, j in zip(lists[n], num_ret, judged, strict=True)]
    return Columns(lists, len(lists["qid"]))


def _residual_names(selected: Selection) -> list[str]:
    return [name for m, params in selected if m.name == "rbp_resid" for name in m.names(params)]


def lines(per_query: Columns | pl.DataFrame, selected: Selection, runid: str, *,
          per_query_lines: bool = False, summaries: bool = True, judged_only: bool = False,
          num_rel_all: int | None = None, printed: Sequence[bool] | None = None,
          zscores: ZScores | None = None) -> list[Line]:
    """The lines trec_eval prints, in its order.

    ``per_query`` has a ``qid`` column (queries in print order) and one column per printed
    name (:func:`measure_strings` names them): :class:`Columns` from :func:`list_columns`
    or :func:`frame_columns`, or a Polars table (read as :func:`frame_columns` reads it).
    ``per_query_lines`` is ``-q``; ``summaries`` False is ``-n``.

    trec_eval's quirks, reproduced: under ``-c`` it scores a query without results as one
    unjudged document, then zeroes ``rbp_resid`` but not ``rbp_resid_p=x`` (which so reads
    1 there, unless ``judged_only``, ``-J``, drops that document); ``num_rel_all`` (under
    ``-c``, the qrels' grades > 0 counted whatever ``-l``) replaces num_rel's sum.
    ``printed`` (booleans, one per query) says whose per-query lines are printed (all by
    default; ``--trec-eval9 -c -q`` leaves out the queries without results).
    ``zscores`` (``-Z``): every per-query value becomes its :func:`zscore` before it is
    printed and summarised (counts too: their z-scores are summed and printed as numbers).
    """
    table = (per_query if isinstance(per_query, Columns)
             else frame_columns(per_query, selected, judged_only=judged_only))
    # Python lists of every column only for -q and -Z; a summary reads one column at a time.
    lists = per_query_lines or zscores is not None
    queries = list(table["qid"]) if lists else []
    columns = {c: list(table[c]) for c in table.names()} if lists else {}
    printable = [(m, name) for m, params in selected
                 if m.kind not in ("runid", "num_q") for name in m.names(params)]
    z = zscores is not None
    if zscores is not None:
        for _, name in printable:
            columns[name] = [v if isinstance(v, str) else zscore(v, str(q), name, zscores)
                             for q, v in zip(queries, columns[name], strict=True)]
    out: list[Line] = []
    shown = [True] * len(queries) if printed is None else list(printed)
    if per_query_lines:
        for i, qid in enumerate(queries):
            if not shown[i]:
                continue
            for measure, name in printable:
                if measure.kind == "relstring":  # printed quoted, as trec_eval prints it
                    text = columns[name][i]
                    if not text and name != measure.name:
                        # -c: trec_eval ranks one made-up document (outside the pool) for a
                        # query without results and clears only a plain relstring's text.
                        text = "-"
                    out.append(Line(name, str(qid), f"'{text}'", False))
                elif measure.kind != "summary_only":
                    value = columns[name][i]
                    out.append(Line(name, str(qid), value, measure.kind == "count" and not z,
                                    z and not isinstance(value, str)))
    if summaries:
        for measure, params in selected:
            if measure.kind == "runid":
                out.append(Line("runid", "all", runid, False, summary=True))
            elif measure.kind == "num_q":
                out.append(Line("num_q", "all", table.height, not z, z, summary=True))
            elif measure.kind == "relstring":  # trec_eval prints no summary of it
                continue
            else:
                for name in measure.names(params):
                    values = columns[name] if lists else table[name]
                    value = (_float_sum(values) if z and measure.summary == "sum"
                             else summary(measure, values))
                    if name == "num_rel" and num_rel_all is not None and not z:
                        value = num_rel_all
                    out.append(Line(name, "all", value, measure.kind == "count" and not z, z,
                                    summary=True))
    return out


def _float_sum(values: Sequence[float | int]) -> float:
    """The sum of ``values`` as doubles, left to right (a count's z-scores under ``-Z``)."""
    total = 0.0
    for v in values:
        total += v
    return total


def format_line(line: Line) -> str:
    """One output line in trec_eval's format.

    Examples
    --------
    >>> format_line(Line("P_10", "all", 0.25, False))
    'P_10                  \\tall\\t0.2500'
    """
    if isinstance(line.value, str):
        shown = line.value
    elif line.integer:
        shown = str(int(line.value))
    else:
        shown = f"{line.value:6.4f}"
    return f"{'Z' if line.zscore else ''}{line.name:<22}\t{line.query}\t{shown}"

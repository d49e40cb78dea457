"""trec_eval compatibility: everything rankframe knows about trec_eval 9.x, in one place.

``rankframe eval`` prints what trec_eval 9.x prints for the measures rankframe supports:
each line is ``%-22s\\t%s\\t%6.4f`` (counts as integers), per-query lines (``-q``) come
query by query in byte order of the query id, then the ``all`` lines; measures appear in
trec_eval's own order, whatever order ``-m`` gave them in.

- Measures: :data:`TREC_MEASURES` (one row per trec_eval measure: its kind, default
  parameters, the rankframe measure its printed names parse as, its tie-aware form),
  :data:`UNSUPPORTED`, :data:`NICKNAMES`; :func:`select` reads ``-m`` specs,
  :func:`is_spec` tells them from rankframe measure strings, :func:`expand` lists the
  printed names one selects and :func:`spec_of` goes back; :func:`rankframe_measure`
  prints a measure trec_eval lacks (see :func:`rankframe.measures.trec_eval_name`).
- Names: :data:`PRINTED_NAMES` and :data:`CUTOFF_NAMES` (read by
  :mod:`rankframe.measures`, so ``"P_10"`` is a measure string), :func:`measure_strings`
  (printed name -> rankframe measure string, with ``--trec-eval9`` and ``--ties average``).
- Output: :func:`lines` (per-query and summary lines in trec_eval's order, 11pt_avg,
  summaries accumulated as trec_eval does), :func:`format_line`.
- Queries: :func:`select_queries` (run queries without qrels dropped; qrels queries without
  results dropped unless ``-c``), :func:`unjudged_count` and :func:`unjudged_note`.

Plain data and functions: no command-line parsing, no printing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

import polars as pl

from rankframe.errors import MeasureError, RankframeError
from rankframe.table.series import run_starts

__all__ = [
    "CUTOFF_NAMES",
    "ELEVEN_POINTS",
    "GEOMETRIC_MEAN_FLOOR",
    "NICKNAMES",
    "PRINTED_NAMES",
    "TREC_MEASURES",
    "UNSUPPORTED",
    "Line",
    "Selection",
    "TrecMeasure",
    "expand",
    "format_line",
    "is_spec",
    "lines",
    "measure_strings",
    "rankframe_measure",
    "select",
    "select_queries",
    "spec_of",
    "summary",
    "unjudged_count",
    "unjudged_note",
]

Kind = Literal["count", "value", "cut_int", "cut_float", "param_float", "summary_only", "runid",
               "num_q"]

#: Floor applied before the logarithm of geometric-mean measures (trec_eval's MIN_GEO_MEAN).
GEOMETRIC_MEAN_FLOOR = 1e-5

_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL_LEVELS = tuple(i / 10 for i in range(11))
_PARAMETRISED = ("cut_int", "cut_float", "param_float")


@dataclass(frozen=True)
class TrecMeasure:
    """A trec_eval measure (root name) and how rankframe computes it.

    ``measure`` is the rankframe measure name its printed names parse as (``"p"`` for
    ``P_10`` and ``set_P``), None when no single measure computes it; ``tie_aware`` the
    measure name of its expected value over tied scores (``--ties average``).
    """

    name: str
    kind: Kind
    measure: str | None = None
    defaults: tuple[float, ...] = ()
    tie_aware: str | None = None
    #: False for rankframe's additions (not in trec_eval, so not in ``all_trec``).
    trec: bool = True

    def names(self, params: tuple[float, ...] | None) -> list[str]:
        """The printed names, e.g. ``P_5``, ``P_10`` for ``P`` with cutoffs 5 and 10."""
        values = params if params is not None else self.defaults
        if self.kind == "cut_int":
            return [f"{self.name}_{int(v)}" for v in values]
        if self.kind == "cut_float":
            return [f"{self.name}_{v:3.2f}" for v in values]
        if self.kind == "param_float" and params is not None:
            return [f"{self.name}_{v:g}" for v in params]
        return [self.name]

    @property
    def summary(self) -> Literal["mean", "sum", "gmean"]:
        """How trec_eval summarises it over queries: sum of counts, geometric mean of
        ``gm_*``, else the mean."""
        if self.kind == "count":
            return "sum"
        return "gmean" if self.kind == "summary_only" else "mean"


#: Supported measures, in the order trec_eval computes and prints them.
TREC_MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure("runid", "runid"),
    TrecMeasure("num_q", "num_q"),
    TrecMeasure("num_ret", "count", "num_ret"),
    TrecMeasure("num_rel", "count", "num_rel"),
    TrecMeasure("num_rel_ret", "count", "num_rel_ret"),
    TrecMeasure("map", "value", "map", tie_aware="map_ties"),
    TrecMeasure("gm_map", "summary_only", "gm_map"),
    TrecMeasure("Rprec", "value", "rprec"),
    TrecMeasure("bpref", "value", "bpref"),
    TrecMeasure("recip_rank", "value", "recip_rank", tie_aware="mrr_ties"),
    TrecMeasure("iprec_at_recall", "cut_float", "iprec_at_recall", _RECALL_LEVELS),
    TrecMeasure("P", "cut_int", "p", _CUTOFFS, tie_aware="P_ties"),
    TrecMeasure("recall", "cut_int", "recall", _CUTOFFS, tie_aware="recall_ties"),
    TrecMeasure("11pt_avg", "value"),  # the mean of iprec_at_recall at 0.0, 0.1, ..., 1.0
    TrecMeasure("ndcg", "value", "ndcg", tie_aware="ndcg_ties"),
    TrecMeasure("ndcg_cut", "cut_int", "ndcg", _CUTOFFS, tie_aware="ndcg_ties"),
    TrecMeasure("map_cut", "cut_int", "map", _CUTOFFS, tie_aware="map_ties"),
    TrecMeasure("success", "cut_int", "success", (1, 5, 10)),
    TrecMeasure("set_P", "value", "p"),
    TrecMeasure("set_recall", "value", "recall"),
    TrecMeasure("set_F", "param_float", "set_f", (1.0,)),
    TrecMeasure("rbp", "param_float", "rbp", (0.8,)),
    TrecMeasure("rbp_resid", "param_float", "rbp_residual", (0.8,)),
    # rankframe's additions, after trec_eval's own measures:
    TrecMeasure("err", "value", "err", trec=False),
    TrecMeasure("err_cut", "cut_int", "err", (5, 10, 20), trec=False),
    TrecMeasure("judged", "cut_int", "judged", (10,), trec=False),
)
_BY_NAME = {m.name: m for m in TREC_MEASURES}

#: Printed names without a parameter (``set_P``, ``Rprec``) -> the rankframe measure name.
PRINTED_NAMES: dict[str, str] = {
    m.name: m.measure for m in TREC_MEASURES
    if m.measure is not None and m.kind not in ("cut_int", "cut_float")
}
#: Roots printed with a parameter after an underscore (``P_10``, ``set_F_0.5``) -> the
#: rankframe measure name that takes the parameter as its cutoff.
CUTOFF_NAMES: dict[str, str] = {
    m.name: m.measure for m in TREC_MEASURES if m.measure is not None and m.kind in _PARAMETRISED
}

#: trec_eval measures rankframe does not compute (named in errors rather than "unknown").
UNSUPPORTED = (
    "relstring", "infAP", "gm_bpref", "Rprec_mult", "utility", "binG", "G", "dcg",
    "ideal_dcg", "ndcg_rel", "Rndcg", "relative_P", "set_relative_P", "set_map",
    "num_nonrel_judged_ret", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap",
)

NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    "all_trec": tuple(m.name for m in TREC_MEASURES if m.trec),  # trec_eval's own set
    "all": tuple(m.name for m in TREC_MEASURES),  # all_trec and rankframe's additions
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "set_P", "set_recall",
            "set_F"),
}

#: The selected measures with their parameters (None: the defaults), in trec_eval's order.
Selection = list[tuple[TrecMeasure, tuple[float, ...] | None]]

#: The iprec_at_recall names 11pt_avg averages.
ELEVEN_POINTS: tuple[str, ...] = tuple(_BY_NAME["iprec_at_recall"].names(_RECALL_LEVELS))


# --------------------------------------------------------------------------- -m syntax


def _parse_params(spec: str, measure: TrecMeasure, text: str) -> tuple[float, ...]:
    if measure.kind not in _PARAMETRISED:
        raise MeasureError(f"-m {spec}: {measure.name} takes no parameters in rankframe")
    values: list[float] = []
    for item in text.split(","):
        try:
            value = int(item) if measure.kind == "cut_int" else float(item)
        except ValueError:
            kind = "integer cutoffs" if measure.kind == "cut_int" else "numbers"
            raise MeasureError(f"-m {spec}: {measure.name} takes {kind}, got {item!r}") from None
        if measure.kind == "cut_int" and value <= 0:
            raise MeasureError(f"-m {spec}: cutoffs must be positive, got {value}")
        if measure.kind == "cut_float" and not 0 <= value <= 1:
            raise MeasureError(f"-m {spec}: recall levels must lie in [0, 1], got {value}")
        if measure.kind == "param_float" and measure.name == "set_F" and not value > 0:
            raise MeasureError(f"-m {spec}: the recall weight must be > 0, got {value}")
        if measure.kind == "param_float" and measure.name != "set_F" and not 0 < value < 1:
            raise MeasureError(f"-m {spec}: persistence must lie in (0, 1), got {value}")
        values.append(value)
    if len(set(values)) != len(values):
        raise MeasureError(f"-m {spec}: duplicate parameters")
    return tuple(values)


def select(specs: Sequence[str] | None) -> Selection:
    """The measures that ``-m`` options select, in trec_eval's order.

    Each spec is ``name`` or ``name.p1,p2`` (a nickname such as ``official``,
    ``all_trec`` or ``all`` too). No specs (None) means ``official``. A measure selected
    with parameters several times gets the union of them (trec_eval would keep only the
    first ``-m``).

    Examples
    --------
    >>> [n for m, params in select(["map", "P.10,5"]) for n in m.names(params)]
    ['map', 'P_5', 'P_10']
    """
    chosen: dict[str, set[float] | None] = {}
    for spec in ["official"] if specs is None else specs:
        root, dot, params = spec.partition(".")
        if root in NICKNAMES and not dot:
            for name in NICKNAMES[root]:
                chosen.setdefault(name, None)
            continue
        measure = _BY_NAME.get(root)
        if measure is None:
            if root in UNSUPPORTED:
                raise MeasureError(
                    f"-m {spec}: trec_eval measure {root!r} is not supported by rankframe "
                    f"eval; supported: {', '.join(_BY_NAME)}"
                )
            raise MeasureError(
                f"-m {spec}: unknown measure {root!r}; supported: {', '.join(_BY_NAME)}, "
                f"or a nickname: {', '.join(NICKNAMES)}"
            )
        if dot:
            values = set(_parse_params(spec, measure, params))
            if root in chosen:  # also chosen before: with its defaults, or its own params
                values |= chosen[root] or set(measure.defaults)
            chosen[root] = values
        elif root in chosen and chosen[root] is not None:
            chosen[root] = (chosen[root] or set()) | set(measure.defaults)
        else:
            chosen[root] = None
    return [
        (m, None if chosen[m.name] is None else tuple(sorted(chosen[m.name] or ())))
        for m in TREC_MEASURES
        if m.name in chosen
    ]


def is_spec(spec: str) -> bool:
    """Whether ``spec`` is trec_eval's ``-m`` syntax (a trec_eval measure or nickname, with
    or without ``.params``) rather than a rankframe measure string such as ``ndcg@10``.

    Examples
    --------
    >>> is_spec("ndcg_cut.10"), is_spec("P"), is_spec("ndcg@10"), is_spec("iprec@0.5")
    (True, True, False, False)
    """
    root = spec.strip().partition(".")[0]
    return root in _BY_NAME or root in NICKNAMES or root in UNSUPPORTED


def expand(spec: str) -> list[str]:
    """The printed names one ``-m`` spec selects, in trec_eval's order; each is also a
    rankframe measure string.

    Examples
    --------
    >>> expand("P.10,5"), expand("ndcg_cut.10")
    (['P_5', 'P_10'], ['ndcg_cut_10'])
    """
    return [name for m, params in select([spec.strip()]) for name in m.names(params)]


def spec_of(name: str) -> str:
    """The ``-m`` spec that selects the printed name ``name`` alone (the inverse of
    :func:`expand` for one name).

    Examples
    --------
    >>> spec_of("ndcg_cut_10"), spec_of("rbp_resid_0.5"), spec_of("map")
    ('ndcg_cut.10', 'rbp_resid.0.5', 'map')
    """
    if name in _BY_NAME:
        return name
    for measure in sorted(TREC_MEASURES, key=lambda m: -len(m.name)):  # rbp_resid before rbp
        if measure.kind in _PARAMETRISED and name.startswith(measure.name + "_"):
            return f"{measure.name}.{name[len(measure.name) + 1:]}"
    raise MeasureError(f"{name!r} is not a printed trec_eval measure name")


def rankframe_measure(string: str, summary: Literal["mean", "sum", "gmean"]) -> TrecMeasure:
    """A rankframe measure trec_eval has no name for (``mrr@10``, ``err@5``), printed under
    ``string`` after trec_eval's measures and summarised by ``summary`` (as
    :attr:`rankframe.measures.Measure.summary`)."""
    kinds: dict[str, Kind] = {"mean": "value", "sum": "count", "gmean": "summary_only"}
    kind = kinds[summary]
    return TrecMeasure(string, kind, string, trec=False)


# --------------------------------------------------------------------------- names


def _measure_string(measure: TrecMeasure, name: str, *, trec_eval9: bool, ties: str) -> str:
    """The rankframe measure string behind one printed trec_eval name."""
    suffix = name[len(measure.name):].lstrip("_")
    if measure.kind == "param_float":  # set_F, rbp, rbp_resid: the parameter always given
        return f"{measure.name}@{suffix or measure.defaults[0]}"
    if ties == "average" and measure.kind != "count":
        if measure.tie_aware is None:
            with_form = ", ".join(m.name for m in TREC_MEASURES if m.tie_aware)
            raise RankframeError(f"--ties average: {measure.name} has no tie-aware form; "
                                 f"those with one: {with_form}")
        return measure.tie_aware + (f"@{suffix}" if suffix else "")
    if trec_eval9 and measure.name == "iprec_at_recall":
        return f"iprec(rounding=trec_eval9)@{suffix}"
    return name  # printed trec_eval names parse as rankframe measures


def measure_strings(selected: Selection, *, trec_eval9: bool = False,
                    ties: Literal["docid", "average"] = "docid") -> dict[str, str]:
    """Printed name -> rankframe measure string for every column ``selected`` needs.

    ``runid`` and ``num_q`` need none; 11pt_avg needs the eleven iprec_at_recall columns.
    ``trec_eval9`` gives iprec_at_recall trec_eval 9.x's recall-level rounding (see
    :func:`rankframe.iprec_at_recall`); ``ties="average"`` the tie-aware forms, an error for
    a measure without one (counts stay as they are).

    Examples
    --------
    >>> measure_strings(select(["P.5", "map"]), ties="average")
    {'map': 'map_ties', 'P_5': 'P_ties@5'}
    """
    strings: dict[str, str] = {}
    for measure, params in selected:
        if measure.kind in ("runid", "num_q"):
            continue
        if measure.name == "11pt_avg":
            measure, names = _BY_NAME["iprec_at_recall"], list(ELEVEN_POINTS)
        else:
            names = measure.names(params)
        for name in names:
            strings[name] = _measure_string(measure, name, trec_eval9=trec_eval9, ties=ties)
    return strings


# --------------------------------------------------------------------------- output


class Line(NamedTuple):
    """One output line: measure, query (``all`` for a summary), value, printed as integer."""

    name: str
    query: str
    value: float | int | str
    integer: bool


def summary(measure: TrecMeasure, values: Sequence[float | int]) -> float | int:
    """The ``all`` value of ``measure`` over per-query ``values``, as trec_eval computes it:
    the sum of counts, the geometric mean (values floored at :data:`GEOMETRIC_MEAN_FLOOR`)
    for ``gm_map``, else the mean; accumulated left to right, as trec_eval does.

    Examples
    --------
    >>> summary(TREC_MEASURES[2], [3, 4]), summary(TREC_MEASURES[5], [0.5, 1.0])
    (7, 0.75)
    """
    if measure.summary == "sum":
        return sum(int(v) for v in values)
    total = 0.0
    for v in values:  # left to right, as trec_eval accumulates
        total += math.log(max(v, GEOMETRIC_MEAN_FLOOR)) if measure.summary == "gmean" else v
    mean = total / len(values)
    return math.exp(mean) if measure.summary == "gmean" else mean


def lines(per_query: pl.DataFrame, selected: Selection, runid: str, *,
          per_query_lines: bool = False, summaries: bool = True) -> list[Line]:
    """The lines trec_eval prints, in its order.

    ``per_query`` has a ``qid`` column (queries in print order) and one column per printed
    name (:func:`measure_strings` names them); 11pt_avg is computed here from the eleven
    iprec_at_recall columns. ``per_query_lines`` is ``-q``; ``summaries`` False is ``-n``.
    """
    table = per_query
    if any(m.name == "11pt_avg" for m, _ in selected):
        # As trec_eval: the levels added from 1.0 down to 0.0, then one division by 11 (by a
        # column: Polars divides by a scalar as a product with its reciprocal).
        total = pl.lit(0.0)
        for name in reversed(ELEVEN_POINTS):
            total = total + pl.col(name)
        eleven = total * 0.0 + float(len(ELEVEN_POINTS))
        table = table.with_columns((total / eleven).alias("11pt_avg"))
    queries = table["qid"].to_list()
    columns = {c: table[c].to_list() for c in table.columns}
    printable = [(m, name) for m, params in selected
                 if m.kind not in ("runid", "num_q") for name in m.names(params)]
    out: list[Line] = []
    if per_query_lines:
        for i, qid in enumerate(queries):
            for measure, name in printable:
                if measure.kind != "summary_only":
                    out.append(Line(name, str(qid), columns[name][i], measure.kind == "count"))
    if summaries:
        for measure, params in selected:
            if measure.kind == "runid":
                out.append(Line("runid", "all", runid, False))
            elif measure.kind == "num_q":
                out.append(Line("num_q", "all", len(queries), True))
            else:
                for name in measure.names(params):
                    value = summary(measure, columns[name])
                    out.append(Line(name, "all", value, measure.kind == "count"))
    return out


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
    return f"{line.name:<22}\t{line.query}\t{shown}"


# --------------------------------------------------------------------------- queries


def _distinct(queries: pl.Series) -> pl.Series:
    """The distinct values of ``queries``: from the first row of each run of equal values
    when those are distinct already (a run file groups its queries), else by hashing."""
    heads = queries.gather(run_starts(queries))
    return heads if heads.n_unique() == heads.len() else queries.unique()


def unjudged_count(run: pl.DataFrame, qrels: pl.DataFrame) -> int:
    """How many queries of ``run`` have no qrels: trec_eval evaluates none of them."""
    queries = _distinct(run.get_column("qid"))
    unjudged: int = queries.filter(queries.is_in(qrels.get_column("qid").implode()).not_()).len()
    return unjudged


def unjudged_note(count: int, name: str = "") -> str:
    """The note saying that ``count`` run queries without qrels were not evaluated.

    Examples
    --------
    >>> unjudged_note(2, "run a.txt")
    'run a.txt: 2 run queries have no qrels and were not evaluated'
    """
    noun, verb = ("query has", "was") if count == 1 else ("queries have", "were")
    where = f"{name}: " if name else ""
    return f"{where}{count} run {noun} no qrels and {verb} not evaluated"


def select_queries(table: pl.DataFrame, run: pl.DataFrame, *, complete: bool,
                   name: str = "") -> pl.DataFrame:
    """``table`` (judged or per-query, from ``run`` and its qrels) on the queries trec_eval
    evaluates.

    ``judge`` has already left out the run queries without qrels (see
    :func:`unjudged_count`); qrels queries without results are dropped unless ``complete``
    (``-c``), when they stay and score 0. No query left is an error (``name`` starts its
    message).
    """
    if not complete:
        table = table.filter(pl.col("qid").is_in(_distinct(run.get_column("qid")).implode()))
    if table.height == 0:
        where = f"{name}: " if name else ""
        raise RankframeError(f"{where}no queries with both results and relevance info")
    return table

"""trec_eval compatibility: its measure names, ``-m`` syntax, ordering and output format.

``rankframe eval`` prints what trec_eval 9.x prints for the measures rankframe supports:
each line is ``%-22s\\t%s\\t%6.4f`` (counts as integers), per-query lines (``-q``) come
query by query in byte order of the query id, then the ``all`` lines; measures appear in
trec_eval's own order, whatever order ``-m`` gave them in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rankframe.errors import MeasureError

Kind = Literal["count", "value", "cut_int", "cut_float", "param_float", "summary_only", "runid",
               "num_q"]

_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL_LEVELS = tuple(i / 10 for i in range(11))


@dataclass(frozen=True)
class TrecMeasure:
    """A trec_eval measure (root name) and how rankframe computes it."""

    name: str
    kind: Kind
    defaults: tuple[float, ...] = ()
    params_name: str = ""

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


#: Supported measures, in the order trec_eval computes and prints them.
TREC_MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure("runid", "runid"),
    TrecMeasure("num_q", "num_q"),
    TrecMeasure("num_ret", "count"),
    TrecMeasure("num_rel", "count"),
    TrecMeasure("num_rel_ret", "count"),
    TrecMeasure("map", "value"),
    TrecMeasure("gm_map", "summary_only"),
    TrecMeasure("Rprec", "value"),
    TrecMeasure("bpref", "value"),
    TrecMeasure("recip_rank", "value"),
    TrecMeasure("iprec_at_recall", "cut_float", _RECALL_LEVELS),
    TrecMeasure("P", "cut_int", _CUTOFFS),
    TrecMeasure("recall", "cut_int", _CUTOFFS),
    TrecMeasure("11pt_avg", "value"),
    TrecMeasure("ndcg", "value"),
    TrecMeasure("ndcg_cut", "cut_int", _CUTOFFS),
    TrecMeasure("map_cut", "cut_int", _CUTOFFS),
    TrecMeasure("success", "cut_int", (1, 5, 10)),
    TrecMeasure("set_P", "value"),
    TrecMeasure("set_recall", "value"),
    TrecMeasure("set_F", "param_float", (1.0,)),
    TrecMeasure("rbp", "param_float", (0.8,)),
    TrecMeasure("rbp_resid", "param_float", (0.8,)),
    # rankframe's additions, after trec_eval's own measures:
    TrecMeasure("err", "value"),
    TrecMeasure("err_cut", "cut_int", (5, 10, 20)),
    TrecMeasure("judged", "cut_int", (10,)),
)
_BY_NAME = {m.name: m for m in TREC_MEASURES}

#: trec_eval measures rankframe does not compute (named in errors rather than "unknown").
UNSUPPORTED = (
    "relstring", "infAP", "gm_bpref", "Rprec_mult", "utility", "binG", "G", "dcg",
    "ideal_dcg", "ndcg_rel", "Rndcg", "relative_P", "set_relative_P", "set_map",
    "num_nonrel_judged_ret", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap",
)

NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    "all_trec": tuple(m.name for m in TREC_MEASURES),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "set_P", "set_recall",
            "set_F"),
}


def _parse_params(spec: str, measure: TrecMeasure, text: str) -> tuple[float, ...]:
    if measure.kind not in ("cut_int", "cut_float", "param_float"):
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


def select(specs: list[str] | None) -> list[tuple[TrecMeasure, tuple[float, ...] | None]]:
    """The measures that ``-m`` options select, in trec_eval's order.

    Each spec is ``name`` or ``name.p1,p2`` (a nickname such as ``official`` or
    ``all_trec`` too). No specs means ``official``. A measure selected with parameters
    several times gets the union of them (trec_eval would keep only the first ``-m``).
    """
    chosen: dict[str, set[float] | None] = {}
    for spec in specs or ["official"]:
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


def format_line(name: str, query: str, value: float | int | str, *, integer: bool) -> str:
    """One output line in trec_eval's format."""
    if isinstance(value, str):
        shown = value
    elif integer:
        shown = str(int(value))
    else:
        shown = f"{value:6.4f}"
    return f"{name:<22}\t{query}\t{shown}"

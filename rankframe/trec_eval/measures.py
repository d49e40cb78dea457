"""trec_eval's measures as rankframe knows them: one row per measure (its kind, default
parameters, the rankframe measure its printed names parse as, its tie-aware form), the
nicknames, and the maps from printed names to rankframe measure names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rankframe.registry import PREFS_COUNTS
from rankframe.registry import PREFS_MEASURES as PREFS_MEASURE_NAMES
from rankframe.trec_eval.cnumbers import c_atof

Kind = Literal["count", "value", "cut_int", "cut_float", "param_float", "summary_only", "runid",
               "num_q", "weights", "levels", "gain_pairs", "relstring"]
#: A measure's parameters as ``-m`` gives them: cutoffs or numbers; for ``gain_pairs``
#: (``ndcg.1=3,2=9``) the text after the dot, kept as written (trec_eval prints it).
Params = tuple[float | str, ...]

#: Floor applied before the logarithm of geometric-mean measures (trec_eval's MIN_GEO_MEAN).
GEOMETRIC_MEAN_FLOOR = 1e-5

_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL_LEVELS = tuple(i / 10 for i in range(11))
_R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
#: The largest multiple of R rankframe takes (trec_eval's printed name holds 8 characters).
MAX_R_MULTIPLE = 10000.0
PARAMETRISED = ("cut_int", "cut_float", "param_float")
#: Measures whose parameter may be written trec_eval 10's way, ``name.p=0.8`` (printed
#: ``name_p=0.8``), besides rankframe's ``name.0.8`` (printed ``name_0.8``).
PAIR_PARAMS = ("rbp", "rbp_resid")


class Spelled(float):
    """A parameter as ``-m`` wrote it: the number, and the text trec_eval prints after the
    measure's name (``rbp_p=0.80`` for ``rbp.p=0.80``, ``set_F_2.0`` for ``set_F.2.0``,
    ``relstring_05`` for ``relstring.05``)."""

    text: str

    def __new__(cls, value: float, text: str) -> Spelled:
        number = super().__new__(cls, value)
        number.text = text
        return number


def _spelt(value: float | str) -> str:
    """A parameter as printed after a measure's name: as written when it was
    (:class:`Spelled`), else the number in its shortest form."""
    return value.text if isinstance(value, Spelled) else f"{float(value):g}"


#: Kinds whose parameters are one text, printed verbatim after the name as trec_eval does
#: (``utility_2,-1,0,0``, ``11pt_avg_.25,.5,.75``): utility's four weights, 11pt_avg's
#: recall levels.
VERBATIM = ("weights", "levels")


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
    #: The relevance-information format (``-R``) it is computed from: ``"qrels"``, or
    #: ``"qrels_jg"`` for the judgment-group measures (``-m qrels_jg``), which are averaged
    #: over judgment groups of the per-group ``group_measure`` and are not in ``all_trec``.
    rel_format: str = "qrels"
    group_measure: str | None = None

    def names(self, params: Params | None) -> list[str]:
        """The printed names, e.g. ``P_5``, ``P_10`` for ``P`` with cutoffs 5 and 10."""
        values = params if params is not None else self.defaults
        if self.kind == "relstring":  # relstring, or relstring_20 when given a length
            return [self.name if params is None else f"{self.name}_{_spelt(params[0])}"]
        if self.kind == "gain_pairs":  # ndcg_1=3,2=9: the pairs as written
            return [f"{self.name}_{params[0]}" if params else self.name]
        if self.kind == "cut_int":
            return [f"{self.name}_{int(v)}" for v in values]
        if self.kind == "cut_float":
            return [f"{self.name}_{float(v):3.2f}" for v in values]
        if self.kind == "param_float" and params is not None:
            return [f"{self.name}_{_spelt(v)}" for v in params]
        if self.kind in VERBATIM and params is not None:
            return [f"{self.name}_{params[0]}"]
        return [self.name]

    @property
    def summary(self) -> Literal["mean", "sum", "gmean", "none"]:
        """How trec_eval summarises it over queries: sum of counts, geometric mean of
        ``gm_*``, none for relstring (per-query lines only), else the mean."""
        if self.kind == "relstring":
            return "none"
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
    TrecMeasure("relstring", "relstring", "relstring", (10,)),  # per-query lines only
    TrecMeasure("recall", "cut_int", "recall", _CUTOFFS, tie_aware="recall_ties"),
    TrecMeasure("infAP", "value", "infap"),
    TrecMeasure("gm_bpref", "summary_only", "gm_bpref"),
    TrecMeasure("Rprec_mult", "cut_float", "rprec_mult", _R_MULTIPLES),
    TrecMeasure("utility", "weights", "utility"),
    # The mean of iprec_at_recall at 0.0, 0.1, ..., 1.0, or at the levels given
    # (11pt_avg.0.2,0.5,0.8, printed 11pt_avg_0.2,0.5,0.8 as trec_eval prints it).
    TrecMeasure("11pt_avg", "levels"),
    TrecMeasure("binG", "value", "bing"),
    TrecMeasure("G", "gain_pairs", "g"),
    # trec_eval 10's dcg and ideal_dcg (m_ndcg.c): DCG and the ideal DCG of the whole
    # ranking, linear gains or ndcg's gain pairs (dcg.1=3,2=9); selectable by name, not in
    # its all_trec.
    TrecMeasure("dcg", "gain_pairs", "dcg", trec=False),
    TrecMeasure("ideal_dcg", "gain_pairs", "idcg", trec=False),
    TrecMeasure("ndcg", "gain_pairs", "ndcg", tie_aware="ndcg_ties"),
    TrecMeasure("ndcg_rel", "gain_pairs", "ndcg_rel"),
    TrecMeasure("Rndcg", "gain_pairs", "rndcg"),
    # trec_eval 10 has m_ndcg_p.c but registers no ndcg_p (its binary says "illegal
    # measure"): rankframe's addition, so outside all_trec.
    TrecMeasure("ndcg_p", "gain_pairs", "ndcg_p", trec=False),
    TrecMeasure("ndcg_cut", "cut_int", "ndcg", _CUTOFFS, tie_aware="ndcg_ties"),
    TrecMeasure("map_cut", "cut_int", "map", _CUTOFFS, tie_aware="map_ties"),
    TrecMeasure("relative_P", "cut_int", "relative_p", _CUTOFFS),
    TrecMeasure("success", "cut_int", "success", (1, 5, 10)),
    TrecMeasure("set_P", "value", "p"),
    TrecMeasure("set_relative_P", "value", "relative_p"),
    TrecMeasure("set_recall", "value", "recall"),
    TrecMeasure("set_map", "value", "set_map"),
    TrecMeasure("set_F", "param_float", "set_f", (1.0,)),
    TrecMeasure("num_nonrel_judged_ret", "count", "num_nonrel_judged_ret"),
    # Judgment groups (-R qrels_jg): the per-group measure, averaged over a query's groups.
    TrecMeasure("map_avgjg", "value", rel_format="qrels_jg", group_measure="map"),
    TrecMeasure("P_avgjg", "cut_int", defaults=_CUTOFFS, rel_format="qrels_jg",
                group_measure="P"),
    TrecMeasure("Rprec_mult_avgjg", "cut_float", defaults=_R_MULTIPLES,
                rel_format="qrels_jg", group_measure="rprec_mult"),
    TrecMeasure("yaap", "value", "yaap", trec=False),  # trec_eval's, not in its all_trec
    # trec_eval 10's rbp: graded gains rel / (the query's top grade, if above 1), -l ignored.
    TrecMeasure("rbp", "param_float", "rbp_graded", (0.9,)),
    # rbp_residual, but 0 when no unjudged document was retrieved (see lines()).
    TrecMeasure("rbp_resid", "param_float", "rbp_residual", (0.9,)),
    TrecMeasure("unj", "cut_int", "unj", (5, 10, 20)),
    # rankframe's additions, after trec_eval's own measures:
    TrecMeasure("err", "value", "err", trec=False),
    TrecMeasure("err_cut", "cut_int", "err", (5, 10, 20), trec=False),
    TrecMeasure("judged", "cut_int", "judged", (10,), trec=False),
)
BY_NAME = {m.name: m for m in TREC_MEASURES}

#: Printed names without a parameter (``set_P``, ``Rprec``) -> the rankframe measure name.
#: Not ``rbp`` and ``rbp_resid``: as measure strings they stay rankframe's (p = 0.8, rbp
#: binary); trec_eval 10's are ``rbp_graded@0.9`` and, on the CLI, ``rbp_resid``
#: (docs/semantics.md#rbp).
PRINTED_NAMES: dict[str, str] = {
    m.name: m.measure for m in TREC_MEASURES
    if m.measure is not None and m.kind not in ("cut_int", "cut_float")
    and m.name not in PAIR_PARAMS
}
#: Measures printed with their gain pairs (``ndcg_1=3,2=9``).
GAIN_PAIR_NAMES: tuple[str, ...] = tuple(m.name for m in TREC_MEASURES if m.kind == "gain_pairs")
#: Roots printed with a parameter after an underscore (``P_10``, ``set_F_0.5``) -> the
#: rankframe measure name that takes the parameter as its cutoff.
CUTOFF_NAMES: dict[str, str] = {
    m.name: m.measure for m in TREC_MEASURES
    if m.measure is not None and m.kind in (*PARAMETRISED, "relstring")
}

#: trec_eval measures rankframe does not compute (named in errors rather than "unknown").
UNSUPPORTED: tuple[str, ...] = ()

NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    # trec_eval's own set of measures computed from qrels:
    "all_trec": tuple(m.name for m in TREC_MEASURES if m.trec and m.rel_format == "qrels"),
    # all_trec and rankframe's additions:
    "all": tuple(m.name for m in TREC_MEASURES if m.rel_format == "qrels"),
    # trec_eval 10's set (measures.c): the measures of the retrieved set as a whole.
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}

#: trec_eval's preference measures (``-R prefs``, ``-R qrels_prefs``), in its order: the
#: counts are summed in the summary, the ratios averaged (docs/semantics.md#preferences).
PREFS_MEASURES: tuple[TrecMeasure, ...] = tuple(
    TrecMeasure(name, "count" if name in PREFS_COUNTS else "value")
    for name in PREFS_MEASURE_NAMES
)
#: trec_eval's nicknames for them; ``prefs`` is also the default under ``-R prefs``.
PREFS_NICKNAMES: dict[str, tuple[str, ...]] = {
    "all_prefs": ("runid", "num_q", *PREFS_MEASURE_NAMES),
    "prefs": ("runid", "num_q", *PREFS_MEASURE_NAMES[:6]),
}

#: The selected measures with their parameters (None: the defaults), in trec_eval's order.
Selection = list[tuple[TrecMeasure, Params | None]]

#: Helper columns of rbp_resid (printed name -> measure string): trec_eval's rbp_resid is
#: rankframe's rbp_residual when a retrieved document is unjudged, else 0 (m_rbp_resid.c).
RESIDUAL_HELPERS: dict[str, str] = {"__rf_num_ret": "num_ret", "__rf_judged": "judged"}

#: The iprec_at_recall names 11pt_avg averages.
ELEVEN_POINTS: tuple[str, ...] = tuple(BY_NAME["iprec_at_recall"].names(_RECALL_LEVELS))


def level_names(params: Params | None) -> list[str]:
    """The iprec_at_recall names 11pt_avg averages, lowest level first: the eleven points,
    or the levels of ``-m 11pt_avg.0.2,0.5,0.8`` (``params`` is the text after the dot)."""
    if params is None:
        return list(ELEVEN_POINTS)
    levels = sorted(c_atof(item)[0] for item in str(params[0]).split(","))
    return BY_NAME["iprec_at_recall"].names(tuple(levels))


def rankframe_measure(string: str, summary: Literal["mean", "sum", "gmean", "none", "run",
                                                   "defined_mean"]) -> TrecMeasure:
    """A rankframe measure trec_eval has no name for (``mrr@10``, ``err@5``), printed under
    ``string`` after trec_eval's measures and summarised by ``summary`` (as
    :attr:`rankframe.measures.Measure.summary`)."""
    kinds: dict[str, Kind] = {"mean": "value", "sum": "count", "gmean": "summary_only",
                              "none": "relstring", "run": "value",
                              "defined_mean": "value"}
    kind = kinds[summary]
    return TrecMeasure(string, kind, string, trec=False)

"""trec_eval compatibility: everything rankframe knows about trec_eval, in one place.

trec_eval 10 is the reference; ``--trec-eval9`` (``trec_eval9=True`` here) reproduces
trec_eval 9.x and pytrec_eval where they differ (iprec_at_recall's recall levels; no
per-query lines under ``-c -q`` for queries without results).

``rankframe eval`` prints what trec_eval prints for the measures rankframe supports:
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
  rbp_resid's zero without unjudged results, summaries accumulated as trec_eval does),
  :func:`format_line`; :func:`describe` (``-h -m NAME``).
- Queries: :func:`select_queries` (run queries without qrels dropped; qrels queries without
  results dropped unless ``-c``), :func:`unjudged_count` and :func:`unjudged_note`.

Plain data and functions: no command-line parsing, no printing.
"""

from __future__ import annotations

import difflib
import math
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from rankframe.errors import MeasureError, RankframeError
from rankframe.registry import PREFS_COUNTS
from rankframe.registry import PREFS_MEASURES as PREFS_MEASURE_NAMES

if TYPE_CHECKING:
    import polars as pl

__all__ = [
    "CUTOFF_NAMES",
    "ELEVEN_POINTS",
    "GEOMETRIC_MEAN_FLOOR",
    "MISSING_ZSCORE",
    "NICKNAMES",
    "PREFS_MEASURES",
    "PREFS_NICKNAMES",
    "PRINTED_NAMES",
    "TREC_MEASURES",
    "UNSUPPORTED",
    "Line",
    "Selection",
    "TrecMeasure",
    "ZScores",
    "describe",
    "expand",
    "format_line",
    "formats",
    "is_spec",
    "lines",
    "measure_strings",
    "rankframe_measure",
    "select",
    "select_prefs",
    "select_queries",
    "spec_of",
    "summary",
    "unjudged_count",
    "unjudged_note",
    "unknown_measure",
    "zscore",
]

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
_PARAMETRISED = ("cut_int", "cut_float", "param_float")
#: Measures whose parameter may be written trec_eval 10's way, ``name.p=0.8`` (printed
#: ``name_p=0.8``), besides rankframe's ``name.0.8`` (printed ``name_0.8``).
_PAIR_PARAMS = ("rbp", "rbp_resid")


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
_VERBATIM = ("weights", "levels")


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
        if self.kind in _VERBATIM and params is not None:
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
_BY_NAME = {m.name: m for m in TREC_MEASURES}

#: Printed names without a parameter (``set_P``, ``Rprec``) -> the rankframe measure name.
#: Not ``rbp`` and ``rbp_resid``: as measure strings they stay rankframe's (p = 0.8, rbp
#: binary); trec_eval 10's are ``rbp_graded@0.9`` and, on the CLI, ``rbp_resid``
#: (docs/semantics.md#rbp).
PRINTED_NAMES: dict[str, str] = {
    m.name: m.measure for m in TREC_MEASURES
    if m.measure is not None and m.kind not in ("cut_int", "cut_float")
    and m.name not in _PAIR_PARAMS
}
#: Measures printed with their gain pairs (``ndcg_1=3,2=9``).
GAIN_PAIR_NAMES: tuple[str, ...] = tuple(m.name for m in TREC_MEASURES if m.kind == "gain_pairs")
#: Roots printed with a parameter after an underscore (``P_10``, ``set_F_0.5``) -> the
#: rankframe measure name that takes the parameter as its cutoff.
CUTOFF_NAMES: dict[str, str] = {
    m.name: m.measure for m in TREC_MEASURES
    if m.measure is not None and m.kind in (*_PARAMETRISED, "relstring")
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
ELEVEN_POINTS: tuple[str, ...] = tuple(_BY_NAME["iprec_at_recall"].names(_RECALL_LEVELS))


def _level_names(params: Params | None) -> list[str]:
    """The iprec_at_recall names 11pt_avg averages, lowest level first: the eleven points,
    or the levels of ``-m 11pt_avg.0.2,0.5,0.8`` (``params`` is the text after the dot)."""
    if params is None:
        return list(ELEVEN_POINTS)
    levels = sorted(float(item) for item in str(params[0]).split(","))
    return _BY_NAME["iprec_at_recall"].names(tuple(levels))


#: One line per measure for ``rankframe eval -h -m NAME`` (rankframe's own wording; the
#: contract, docs/semantics.md, has the formulas and edge cases).
_DESCRIPTIONS: dict[str, str] = {
    "runid": "The run's tag: the last field of the run file's first line.",
    "num_q": "How many queries were evaluated.",
    "num_ret": "Documents retrieved (after -M and -J); summed over queries.",
    "num_rel": "Documents with a grade >= -l in the qrels; summed over queries (under -c the "
               "summary counts grades > 0, whatever -l, as trec_eval does).",
    "num_rel_ret": "Relevant documents retrieved; summed over queries.",
    "map": "Average precision: the mean, over the relevant documents, of the precision at "
           "each one's rank (0 for those not retrieved).",
    "gm_map": "Average precision summarised by the geometric mean over queries (values "
              "floored at 1e-5); no per-query line.",
    "Rprec": "Precision at rank R, R being the query's number of relevant documents.",
    "bpref": "Binary preference: for each relevant document retrieved, 1 minus the share of "
             "judged non-relevant documents ranked above it (at most R of them count), "
             "averaged over R.",
    "recip_rank": "1 / rank of the first relevant document (0 if none is retrieved).",
    "iprec_at_recall": "Interpolated precision at each recall level: the best precision at "
                       "any rank whose recall reaches the level.",
    "P": "Precision at each cutoff k: relevant documents in the top k, divided by k "
         "(missing ranks count as non-relevant).",
    "recall": "Recall at each cutoff k: relevant documents in the top k, divided by R.",
    "11pt_avg": "The mean of iprec_at_recall at 0.0, 0.1, ..., 1.0.",
    "ndcg": "Normalised discounted cumulative gain over the whole list: gain = grade, "
            "discount log2(rank + 1), divided by the ideal ordering of every judged document.",
    "ndcg_cut": "nDCG at each cutoff k (the ideal also cut at k).",
    "map_cut": "Average precision at each cutoff k: precision summed at the relevant ranks "
               "<= k, divided by R.",
    "success": "1 if a relevant document is in the top k, else 0, at each cutoff k.",
    "set_P": "Precision of the whole retrieved set.",
    "set_recall": "Recall of the whole retrieved set.",
    "set_F": "F measure of the whole retrieved set: (1 + b) P R / (b P + R), b the recall "
             "weight (parameter, b = beta squared).",
    "rbp": "Rank-biased precision (Moffat & Zobel 2008): (1 - p) times the sum of gain * "
           "p^(rank - 1); gain = grade, divided by the query's top grade when that is above "
           "1; -l is not used. Parameter p, the persistence: -m rbp.p=0.8.",
    "rbp_resid": "The RBP residual: (1 - p) times the sum of p^(rank - 1) over unjudged "
                 "retrieved documents, plus p^n (n documents retrieved); 0 when no retrieved "
                 "document is unjudged. Parameter p: -m rbp_resid.p=0.8.",
    "err": "rankframe's: expected reciprocal rank (Chapelle et al. 2009), grades 0 ... 4.",
    "err_cut": "rankframe's: expected reciprocal rank at each cutoff k.",
    "judged": "rankframe's: the share of the top k that has a grade >= 0.",
}


def describe(spec: str) -> str:
    """What ``rankframe eval -h -m spec`` prints: each measure ``spec`` names (one, or a
    nickname's) with its description and default parameters.

    Examples
    --------
    >>> print(describe("recip_rank"), end="")
    recip_rank
        1 / rank of the first relevant document (0 if none is retrieved).
    """
    root = spec.partition(".")[0]
    if root in NICKNAMES:
        return "".join(describe(name) for name in NICKNAMES[root])
    measure = _BY_NAME.get(root)
    if measure is None:
        select([spec])  # raises the error naming the measure
        raise AssertionError(spec)  # pragma: no cover
    body = textwrap.fill(_DESCRIPTIONS[measure.name], 84, initial_indent="    ",
                         subsequent_indent="    ")
    text = f"{measure.name}\n{body}\n"
    if measure.defaults:
        values = ",".join(str(int(v)) if measure.kind == "cut_int" else f"{v:g}"
                          for v in measure.defaults)
        pair = "p=" if measure.name in _PAIR_PARAMS else ""
        text += f"    Default param: -m {measure.name}.{pair}{values}\n"
    return text


# --------------------------------------------------------------------------- -m syntax


def _number(spec: str, text: str, *, number: str = "expected a number",
            finite: str = "expected a finite number") -> float:
    """``text`` as a finite float; else a MeasureError ``-m spec: <number|finite>, got text``."""
    try:
        value = float(text)
    except ValueError:
        raise MeasureError(f"-m {spec}: {number}, got {text!r}") from None
    if not math.isfinite(value):
        raise MeasureError(f"-m {spec}: {finite}, got {text!r}")
    return value


def _verbatim_params(spec: str, measure: TrecMeasure, text: str) -> tuple[str]:
    """utility's ``a,b,c,d`` or 11pt_avg's recall levels, checked, kept as written."""
    items = text.split(",")
    if measure.kind == "levels":
        levels = [_number(spec, item) for item in items]
        if not all(0 <= level <= 1 for level in levels) or len(set(levels)) != len(levels):
            raise MeasureError(f"-m {spec}: 11pt_avg takes distinct recall levels in [0, 1] "
                               f"(e.g. 11pt_avg.0.2,0.5,0.8), got {text!r}")
        return (text,)
    if len(items) != 4:
        raise MeasureError(f"-m {spec}: utility takes exactly 4 numbers a,b,c,d (the "
                           f"weights of rel_ret, nonrel_ret, rel_unret, nonrel_unret), "
                           f"got {len(items)}")
    for item in items:
        _number(spec, item)
    return (text,)


def _verbatim_measure(measure: TrecMeasure, text: str, num_docs: int, judged_only: bool
                      ) -> str:
    """The rankframe measure string of utility's ``-m`` parameter text (``num_docs``: the
    collection size, trec_eval's ``-N``)."""
    a, b, c, d = (float(item) for item in text.split(","))
    # trec_eval 10 scores a -c query without results on a placeholder document (unjudged,
    # so -J drops it), and zeroes it afterwards only under the plain name "utility".
    empty = "counts" if judged_only else "placeholder"
    return (f"utility(a={a!r}, b={b!r}, c={c!r}, d={d!r}, num_docs={num_docs}, "
            f"empty={empty})")


def gain_pairs(spec: str, text: str) -> dict[int, float]:
    """The gain per grade of ``-m ndcg.1=3,2=9`` (``text`` is ``1=3,2=9``): trec_eval's
    rel_level=gain pairs. A grade is an integer >= 0, each at most once; a gain a number.

    Examples
    --------
    >>> gain_pairs("ndcg.1=3,2=9.0,4=4.5", "1=3,2=9.0,4=4.5")
    {1: 3.0, 2: 9.0, 4: 4.5}
    """
    pairs: dict[int, float] = {}
    for item in text.split(","):
        level, sep, value = item.partition("=")
        if not sep:
            raise MeasureError(f"-m {spec}: expected grade=gain pairs (ndcg.1=3,2=9), "
                               f"got {item!r}")
        if not level.strip().isdigit():
            raise MeasureError(f"-m {spec}: a grade must be an integer >= 0, got {level!r} "
                               "(trec_eval ignores such a pair silently)")
        gain = _number(spec, value, number="a gain must be a number",
                       finite="a gain must be finite")
        if int(level) in pairs:
            raise MeasureError(f"-m {spec}: grade {int(level)} is given twice")
        pairs[int(level)] = gain
    return pairs


def _cutoff(text: str) -> int:
    """An integer cutoff; a decimal one is cut at its point, as trec_eval's ``atol`` reads
    it (``ndcg_cut.23.4`` is cutoff 23, printed ``ndcg_cut_23``)."""
    whole, point, fraction = text.partition(".")
    if point and whole.strip().isdigit() and (not fraction or fraction.isdigit()):
        return int(whole)
    return int(text)


def _parse_params(spec: str, measure: TrecMeasure, text: str) -> Params:
    if measure.kind == "gain_pairs":
        gain_pairs(spec, text)  # checked here; kept as written, as trec_eval prints it
        return (text,)
    if measure.kind == "relstring":  # a number, its whole part the length (trec_eval's cast)
        try:
            length = math.trunc(float(text))
        except (ValueError, OverflowError):
            length = 0
        if length < 1 or "," in text:
            raise MeasureError(f"-m {spec}: relstring takes a length, a number >= 1 (its "
                               f"whole part is used), got {text!r}")
        return (Spelled(length, text),)
    if measure.kind not in _PARAMETRISED:
        raise MeasureError(f"-m {spec}: {measure.name} takes no parameters in rankframe")
    values: list[float] = []
    for item in text.split(","):
        key, equals, number = item.rpartition("=")
        if equals and (measure.name not in _PAIR_PARAMS or key != "p"):
            raise MeasureError(
                f"-m {spec}: {measure.name} takes no {key!r}= parameter in rankframe"
                + (" (only p=VALUE, the persistence)" if measure.name in _PAIR_PARAMS else ""))
        try:
            value = _cutoff(number) if measure.kind == "cut_int" else float(number)
        except ValueError:
            kind = "integer cutoffs" if measure.kind == "cut_int" else "numbers"
            raise MeasureError(f"-m {spec}: {measure.name} takes {kind}, got {item!r}") from None
        if measure.kind == "cut_int" and value <= 0:
            raise MeasureError(f"-m {spec}: cutoffs must be positive, got {value}")
        if measure.name == "iprec_at_recall" and not 0 <= value <= 1:
            raise MeasureError(f"-m {spec}: recall levels must lie in [0, 1], got {value}")
        if measure.name.startswith("Rprec_mult") and not 0 < value <= MAX_R_MULTIPLE:
            raise MeasureError(f"-m {spec}: multiples of R must lie in (0, {MAX_R_MULTIPLE:g}], "
                               f"got {value}")
        if measure.kind == "param_float" and measure.name == "set_F" and not value > 0:
            raise MeasureError(f"-m {spec}: the recall weight must be > 0, got {value}")
        if measure.kind == "param_float" and measure.name != "set_F" and not 0 < value < 1:
            raise MeasureError(f"-m {spec}: persistence must lie in (0, 1), got {value}")
        # trec_eval prints these as typed (set_F_2.0, rbp_p=0.80); cutoffs as numbers.
        values.append(Spelled(value, item) if measure.kind == "param_float" else value)
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
    chosen: dict[str, set[float | str] | None] = {}
    for spec in ["official"] if specs is None else specs:
        root, dot, params = spec.partition(".")
        if root in NICKNAMES and not dot:
            for name in NICKNAMES[root]:
                chosen.setdefault(name, None)
            continue
        measure = _BY_NAME.get(root)
        if measure is None:
            if root in PREFS_NICKNAMES or root in PREFS_MEASURE_NAMES:
                raise MeasureError(f"-m {spec}: a preference measure; read the relevance file "
                                   "as preferences with -R prefs or -R qrels_prefs")
            if root in UNSUPPORTED:
                raise MeasureError(f"-m {spec}: trec_eval measure {root!r} is not supported "
                                   "by rankframe eval (rankframe eval -h lists the measures)")
            raise unknown_measure(spec, root)
        if dot and measure.kind in _VERBATIM:  # as trec_eval: the first -m with parameters
            if chosen.get(root) is None:
                chosen[root] = set(_verbatim_params(spec, measure, params))
            continue
        if dot and measure.kind in ("gain_pairs", "relstring"):  # the first wins (trec_eval)
            if not chosen.get(root):
                chosen[root] = set(_parse_params(spec, measure, params))
        elif measure.kind in ("gain_pairs", "relstring"):
            chosen.setdefault(root, None)
        elif dot:
            values = set(_parse_params(spec, measure, params))
            if root in chosen:  # also chosen before: with its defaults, or its own params
                values = _union(chosen[root] or set(measure.defaults), values)
            chosen[root] = values
        elif root in chosen and chosen[root] is not None:
            chosen[root] = _union(chosen[root] or set(), set(measure.defaults))
        else:
            chosen[root] = None
    return [
        (m, None if chosen[m.name] is None else tuple(sorted(chosen[m.name] or ())))
        for m in TREC_MEASURES
        if m.name in chosen
    ]


def _union(earlier: set[float | str], later: set[float | str]) -> set[float | str]:
    """Parameters of two ``-m`` options for one measure: each value once, spelt as the
    first option that wrote it out wrote it (a default only where none did)."""
    merged = {float(v): v for v in earlier}
    for value in later:
        known = merged.get(float(value))
        if known is None or (isinstance(value, Spelled) and not isinstance(known, Spelled)):
            merged[float(value)] = value
    return set(merged.values())


def unknown_measure(spec: str, name: str, others: Sequence[str] = ()) -> MeasureError:
    """The error for ``-m spec`` whose ``name`` is no measure: the few known names closest
    to it (trec_eval's, its nicknames, then ``others``), not every name.

    Examples
    --------
    >>> str(unknown_measure("ndcg_cutt.10", "ndcg_cutt")).partition(" (")[0]
    "-m ndcg_cutt.10: unknown measure 'ndcg_cutt'; did you mean ndcg_cut, ndcg_p, ndcg?"
    """
    name = re.split(r"[@(]", name, maxsplit=1)[0]  # a measure string's name
    known: dict[str, str] = {}
    for candidate in (*_BY_NAME, *NICKNAMES, *PREFS_NICKNAMES, *PREFS_MEASURE_NAMES, *others):
        known.setdefault(candidate.lower(), candidate)
    close = difflib.get_close_matches(name.lower(), list(known), n=4, cutoff=0.6)
    guess = f"; did you mean {', '.join(known[c] for c in close)}?" if close else ""
    return MeasureError(
        f"-m {spec}: unknown measure {name!r}{guess} (rankframe eval -h lists the measures: "
        "trec_eval's such as map, P.10 or ndcg_cut.10, nicknames such as official, measure "
        "strings such as ndcg@10)")


def select_prefs(specs: Sequence[str] | None) -> Selection:
    """The measures ``-m`` selects under ``-R prefs`` or ``-R qrels_prefs``, in trec_eval's
    order: :data:`PREFS_MEASURES`, ``runid``, ``num_q`` and the nicknames of
    :data:`PREFS_NICKNAMES`; None means ``prefs``. Other measures need qrels: an error.

    Examples
    --------
    >>> [m.name for m, _ in select_prefs(["prefs_pair", "num_q", "prefs_simp"])]
    ['num_q', 'prefs_simp', 'prefs_pair']
    """
    known = {m.name: m for m in (_BY_NAME["runid"], _BY_NAME["num_q"], *PREFS_MEASURES)}
    chosen: set[str] = set()
    for spec in ["prefs"] if specs is None else specs:
        root, dot, _ = spec.strip().partition(".")
        if root in PREFS_NICKNAMES and not dot:
            chosen.update(PREFS_NICKNAMES[root])
        elif root in known and not dot:
            chosen.add(root)
        elif root in known:
            raise MeasureError(f"-m {spec}: {root} takes no parameters")
        else:
            raise MeasureError(
                f"-m {spec}: not a preference measure; -R prefs and -R qrels_prefs compute "
                f"{', '.join(known)} (nicknames: {', '.join(PREFS_NICKNAMES)})")
    return [(m, None) for m in known.values() if m.name in chosen]


def is_spec(spec: str) -> bool:
    """Whether ``spec`` is trec_eval's ``-m`` syntax (a trec_eval measure or nickname, with
    or without ``.params``) rather than a rankframe measure string such as ``ndcg@10``.

    Examples
    --------
    >>> is_spec("ndcg_cut.10"), is_spec("P"), is_spec("ndcg@10"), is_spec("iprec@0.5")
    (True, True, False, False)
    """
    root = spec.strip().partition(".")[0]
    return (root in _BY_NAME or root in NICKNAMES or root in UNSUPPORTED
            or root in PREFS_NICKNAMES or root in PREFS_MEASURE_NAMES)


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
        if measure.kind == "gain_pairs" and name.startswith(measure.name + "_") and "=" in name:
            return f"{measure.name}.{name[len(measure.name) + 1:]}"
        if (measure.kind in (*_PARAMETRISED, "relstring", *_VERBATIM)
                and name.startswith(measure.name + "_")):
            return f"{measure.name}.{name[len(measure.name) + 1:]}"
    raise MeasureError(f"{name!r} is not a printed trec_eval measure name")


def rankframe_measure(string: str, summary: Literal["mean", "sum", "gmean", "none"]
                      ) -> TrecMeasure:
    """A rankframe measure trec_eval has no name for (``mrr@10``, ``err@5``), printed under
    ``string`` after trec_eval's measures and summarised by ``summary`` (as
    :attr:`rankframe.measures.Measure.summary`)."""
    kinds: dict[str, Kind] = {"mean": "value", "sum": "count", "gmean": "summary_only",
                              "none": "relstring"}
    kind = kinds[summary]
    return TrecMeasure(string, kind, string, trec=False)


# --------------------------------------------------------------------------- names


def _measure_string(measure: TrecMeasure, name: str, *, trec_eval9: bool, ties: str,
                    num_docs: int = 0, judged_only: bool = False) -> str:
    """The rankframe measure string behind one printed trec_eval name."""
    suffix = name[len(measure.name):].lstrip("_")
    if measure.kind in _VERBATIM and suffix and ties != "average":
        return _verbatim_measure(measure, suffix, num_docs, judged_only)
    if measure.kind == "gain_pairs" and suffix:  # ndcg_1=3,2=9 -> ndcg(gains=1:3;2:9)
        pairs = gain_pairs(spec_of(name), suffix)
        if ties == "average":
            raise RankframeError(f"--ties average: {measure.name} with gains has no tie-aware "
                                 "form")
        text = ";".join(f"{level}:{gain!r}" for level, gain in pairs.items())
        return f"{measure.measure}(gains={text})"
    if measure.kind == "relstring":  # relstring_5.0 is length 5, as trec_eval reads it
        return f"relstring@{math.trunc(float(suffix or measure.defaults[0]))}"
    if measure.kind == "param_float":  # set_F, rbp, rbp_resid: the parameter always given
        root = measure.name if measure.name in PRINTED_NAMES else measure.measure
        return f"{root}@{suffix.removeprefix('p=') or measure.defaults[0]}"
    if ties == "average" and measure.kind != "count":
        if measure.tie_aware is None:
            with_form = ", ".join(m.name for m in TREC_MEASURES if m.tie_aware)
            raise RankframeError(f"--ties average: {measure.name} has no tie-aware form; "
                                 f"those with one: {with_form}")
        return measure.tie_aware + (f"@{suffix}" if suffix else "")
    if trec_eval9 and measure.name == "iprec_at_recall":
        return f"iprec(rounding=trec_eval9)@{suffix}"
    return name  # printed trec_eval names parse as rankframe measures


def _group_strings(measure: TrecMeasure, params: Params | None) -> dict[str, str]:
    """Printed name -> the measure string evaluated per judgment group (``P_avgjg_5`` ->
    ``P@5``, ``map_avgjg`` -> ``map``, ``Rprec_mult_avgjg_0.20`` -> ``rprec_mult@0.2``)."""
    names = measure.names(params)
    if measure.kind == "value":
        return {names[0]: str(measure.group_measure)}
    values = params if params is not None else measure.defaults
    spelt = (int(v) if measure.kind == "cut_int" else v for v in values)
    return {name: f"{measure.group_measure}@{v!r}"
            for name, v in zip(names, spelt, strict=True)}


def formats(selected: Selection) -> dict[str, list[str]]:
    """The relevance-information formats (``-R``) the ``selected`` measures are computed
    from -> those measures' names (runid and num_q need none).

    Examples
    --------
    >>> formats(select(["map", "map_avgjg", "num_q"]))
    {'qrels': ['map'], 'qrels_jg': ['map_avgjg']}
    """
    out: dict[str, list[str]] = {}
    for measure, _ in selected:
        if measure.kind not in ("runid", "num_q"):
            out.setdefault(measure.rel_format, []).append(measure.name)
    return out


def measure_strings(selected: Selection, *, trec_eval9: bool = False,
                    ties: Literal["docid", "average"] = "docid", num_docs: int = 0,
                    judged_only: bool = False) -> dict[str, str]:
    """Printed name -> rankframe measure string for every column ``selected`` needs.

    ``runid`` and ``num_q`` need none; 11pt_avg needs the eleven iprec_at_recall columns.
    ``trec_eval9`` gives iprec_at_recall trec_eval 9.x's recall-level rounding (see
    :func:`rankframe.iprec_at_recall`); ``ties="average"`` the tie-aware forms, an error for
    a measure without one (counts stay as they are); ``num_docs`` is the collection size
    utility's weight d reads (trec_eval's ``-N``), ``judged_only`` is ``-J``.

    Examples
    --------
    >>> measure_strings(select(["P.5", "map"]), ties="average")
    {'map': 'map_ties', 'P_5': 'P_ties@5'}
    """
    strings: dict[str, str] = {}
    for measure, params in selected:
        if measure.kind in ("runid", "num_q"):
            continue
        if measure.group_measure is not None:
            strings.update(_group_strings(measure, params))
            continue
        if measure.name == "11pt_avg":
            measure, names = _BY_NAME["iprec_at_recall"], _level_names(params)
        else:
            names = measure.names(params)
        for name in names:
            strings[name] = _measure_string(measure, name, trec_eval9=trec_eval9, ties=ties,
                                            num_docs=num_docs, judged_only=judged_only)
        if measure.name == "rbp_resid":
            strings.update(RESIDUAL_HELPERS)
        if measure.name == "Rprec_mult" and ties != "average":
            # the multiple as given, not as printed (0.25 prints as 0.25, 0.125 as 0.13)
            values = params if params is not None else measure.defaults
            strings.update((name, f"rprec_mult@{value!r}")
                           for name, value in zip(names, values, strict=True))
    return strings


# --------------------------------------------------------------------------- output


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
    >>> summary(TREC_MEASURES[2], [3, 4]), summary(TREC_MEASURES[5], [0.5, 1.0])
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
        levels = _level_names(params)
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
        levels = [lists[name] for name in reversed(_level_names(params))]
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


# --------------------------------------------------------------------------- queries


def _distinct(queries: pl.Series) -> pl.Series:
    """The distinct values of ``queries``: from the first row of each run of equal values
    when those are distinct already (a run file groups its queries), else by hashing."""
    from rankframe.table.series import run_starts

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


def no_queries_error(name: str = "") -> RankframeError:
    """trec_eval's complaint when no query has both results and qrels (``name``: the run)."""
    where = f"{name}: " if name else ""
    return RankframeError(f"{where}no queries with both results and relevance info")


def no_query_error(level: str, qid: str) -> RankframeError:
    """The error of ``-D level.qid`` when that query is not evaluated."""
    return RankframeError(f"-D {level}.{qid}: no query {qid!r} with both results and "
                          "relevance info")


def select_queries(table: pl.DataFrame, run: pl.DataFrame, *, complete: bool,
                   name: str = "") -> pl.DataFrame:
    """``table`` (judged or per-query, from ``run`` and its qrels) on the queries trec_eval
    evaluates.

    ``judge`` has already left out the run queries without qrels (see
    :func:`unjudged_count`); qrels queries without results are dropped unless ``complete``
    (``-c``), when they stay and score 0. No query left is an error (``name`` starts its
    message).
    """
    import polars as pl

    if not complete:
        table = table.filter(pl.col("qid").is_in(_distinct(run.get_column("qid")).implode()))
    if table.height == 0:
        raise no_queries_error(name)
    return table

"""Measure strings: rankframe's grammar and trec_eval's names, parsed into registry calls.

rankframe's grammar is ``name[(param=value, ...)][@cutoff]``, e.g. ``"ndcg@10"``,
``"P@5"``, ``"map"``, ``"mrr@10"``, ``"ndcg(gain=exponential)@10"``, ``"map(divisor=min)@10"``.
trec_eval's per-value names are accepted as well (``"P_10"``, ``"ndcg_cut_10"``,
``"map_cut_100"``, ``"recip_rank"``, ``"Rprec"``, ``"success_10"``,
``"iprec_at_recall_0.10"``, ``"set_P"`` ...). User-model measures take their persistence
after the ``@`` (``"rbp@0.8"``, ``"rbp_residual@0.8"``) or a cutoff (``"err@20"``,
``"judged@10"``); tie-aware ones end in ``_ties`` (``"ndcg_ties@10"``, ``"map_ties"``) and
need the tie columns of ``judge(..., ties="average")``. Every measure resolves to one registered
metric, its parameter values, and how its per-query values are summarised (mean, sum or
geometric mean).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from rankframe import trec_eval
from rankframe.errors import MeasureError
from rankframe.registry import METRICS, Metric
from rankframe.trec_eval import CUTOFF_NAMES, PRINTED_NAMES
from rankframe.trec_eval import GEOMETRIC_MEAN_FLOOR as GEOMETRIC_MEAN_FLOOR

#: How per-query values are summarised; "none" for a string measure (relstring); "run" for a
#: run metric (each query holds its run's value: that value); "defined_mean" the mean over
#: the queries where the measure is defined (``Metric.aggregate``).
Summary = Literal["mean", "sum", "gmean", "none", "run", "defined_mean"]


@dataclass(frozen=True)
class Alias:
    """A measure name: the metric it computes, fixed parameter values, what the cutoff sets."""

    metric: str
    fixed: tuple[tuple[str, Any], ...] = ()
    cutoff: Literal["k", "recall", "p", "beta", "multiple", "length", None] = "k"
    summary: Summary | None = None
    help: str = ""


@dataclass(frozen=True)
class Measure:
    """A parsed measure: ``label`` as written, the metric, and its parameter values."""

    label: str
    metric: Metric
    values: dict[str, Any] = field(hash=False)
    summary: Summary

    @property
    def is_count(self) -> bool:
        return self.metric.is_count


_ALIASES: dict[str, Alias] = {}
#: Each alias's canonical name: the first one registered, as :func:`canonical` writes it.
_CANONICAL: dict[Alias, str] = {}
_SPELLING = {"p": "P", "p_ties": "P_ties", "set_f": "set_F", "relative_p": "relative_P",
             "bing": "binG", "g": "G", "unj": "unj"}


def _alias(names: str, alias: Alias) -> None:
    for name in names.split():
        _ALIASES[name.lower()] = alias
    first = names.split()[0]
    _CANONICAL[alias] = _SPELLING.get(first, first)


_alias("p precision", Alias("precision", help="precision@k (P@k); k absent = set precision"))
_alias("recall r", Alias("recall", help="recall@k; k absent = set recall"))
_alias("f1 f", Alias("f1", help="F1@k, harmonic mean of P@k and recall@k"))
_alias("set_f", Alias("f1", cutoff="beta",
                      help="set F of the whole list; set_F@x weighs recall x = beta^2 times"))
_alias("relative_p relative_precision",
       Alias("relative_precision",
             help="relative precision hits@k / min(k, R); k absent: hits / min(n, R)"))
_alias("set_map", Alias("set_map", cutoff=None, help="set precision x set recall"))
_alias("utility", Alias("utility", cutoff=None,
                        help="set utility a*hits + b*nonrel_ret + c*rel_unret + d*nonrel_unret"))
_alias("success hit_rate hits", Alias("hit_rate", help="1 if a relevant row is in the top k"))
_alias("mrr rr recip_rank reciprocal_rank",
       Alias("reciprocal_rank", help="reciprocal rank of the first relevant row (within k)"))
_alias("map ap average_precision", Alias("average_precision", help="average precision (@k)"))
_alias("gm_map", Alias("average_precision", summary="gmean",
                       help="average precision, summarised by geometric mean"))
_alias("rprec r_precision", Alias("r_precision", cutoff=None, help="precision at rank R"))
_alias("rprec_mult r_precision_mult",
       Alias("r_precision_mult", cutoff="multiple",
             help="precision at x times R relevant rows (rprec_mult@0.2)"))
_alias("bpref", Alias("bpref", cutoff=None, help="binary preference"))
_alias("gm_bpref", Alias("bpref", cutoff=None, summary="gmean",
                         help="bpref, summarised by geometric mean"))
_alias("infap infap", Alias("infap", cutoff=None,
                            help="inferred AP (negative grades: pooled but unjudged)"))
_alias("relstring", Alias("relstring", cutoff="length", summary="none",  # or (length=n)
                          help="the grades of the top 10 (relstring@20: 20) as a string"))
_alias("yaap", Alias("yaap", cutoff=None, help="yet another AP: ln((1 + S) / (1 + R - S))"))
_alias("ndcg", Alias("ndcg", help="normalised DCG (linear gain, trec_eval)"))
_alias("ndcg_rel", Alias("ndcg_rel", cutoff=None, help="nDCG averaged over relevant rows"))
_alias("rndcg", Alias("rndcg", cutoff=None, help="nDCG averaged at the ideal's R-levels"))
_alias("ndcg_p", Alias("ndcg_p", cutoff=None,
                       help="nDCG, rank 1 undiscounted, rank i by log2(i)"))
_alias("ndcg_exp", Alias("ndcg", (("gain", "exponential"),), help="nDCG with 2^rel - 1 gain"))
_alias("dcg", Alias("dcg", help="discounted cumulative gain (linear gain)"))
_alias("dcg_exp", Alias("dcg", (("gain", "exponential"),), help="DCG with 2^rel - 1 gain"))
_alias("idcg", Alias("idcg", help="ideal DCG"))
_alias("cg", Alias("cg", help="cumulative gain"))
_alias("bing bin_g", Alias("bin_g", cutoff=None,
                           help="binary G: relevant rows weighted 1/log2(2 + non-relevant above)"))
_alias("g", Alias("g", cutoff=None, help="G, trec_eval's normalised gain (G(gains=1:3;2:7))"))
_alias("num_ret", Alias("num_ret", help="rows retrieved (summed over queries)"))
_alias("num_rel", Alias("num_rel", cutoff=None, help="relevant rows (summed over queries)"))
_alias("num_rel_ret", Alias("num_rel_ret", help="relevant rows retrieved (summed)"))
_alias("num_nonrel_judged_ret",
       Alias("num_nonrel_judged_ret", help="judged non-relevant rows retrieved (summed)"))
_alias("rbp", Alias("rbp", cutoff="p",
                    help="rank-biased precision with persistence p (rbp@0.8); binary"))
_alias("rbp_graded", Alias("rbp", (("graded", True),), cutoff="p",
                           help="rank-biased precision, gain rel / max grade"))
_alias("rbp_residual rbp_resid", Alias("rbp_residual", cutoff="p",
                                       help="RBP residual: weight left to unjudged rows"))
_alias("err", Alias("err", help="expected reciprocal rank (@k), max grade 4"))
_alias("judged", Alias("judged", help="share of the top k that is judged"))
_alias("unj unjudged", Alias("unjudged", help="unjudged rows in the top k, divided by k"))
_alias("p_ties precision_ties", Alias("precision_ties", help="P@k, expected over tied scores"))
_alias("recall_ties", Alias("recall_ties", help="recall@k, expected over tied scores"))
_alias("dcg_ties", Alias("dcg_ties", help="DCG@k, expected over tied scores"))
_alias("ndcg_ties", Alias("ndcg_ties", help="nDCG@k, expected over tied scores"))
_alias("mrr_ties rr_ties reciprocal_rank_ties",
       Alias("reciprocal_rank_ties", help="reciprocal rank, expected over tied scores"))
_alias("map_ties ap_ties average_precision_ties",
       Alias("average_precision_ties", help="average precision, expected over tied scores"))
_alias("iprec iprec_at_recall",
       Alias("iprec_at_recall", cutoff="recall",
             help="interpolated precision at recall level x (iprec@0.1)"))

# Metrics that declare their names in the registry (the beyond-accuracy ones).
for _metric in METRICS.values():
    if _metric.names:
        _alias(_metric.names, Alias(_metric.name, cutoff="k" if any(
            p.name == "k" for p in _metric.params) else None, help=_metric.help))

_GRAMMAR = re.compile(
    r"^(?P<name>[A-Za-z][A-Za-z0-9_]*?)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>[^@()]+))?$"
)
_TREC_CUT = re.compile(r"^(?P<name>[A-Za-z_]+?)_(?P<cutoff>[0-9]+(?:\.[0-9]+)?)$")


def measure_names() -> dict[str, str]:
    """Every accepted measure name with a one-line description (for ``--help``)."""
    return {name: alias.help for name, alias in sorted(_ALIASES.items())}


def _number(label: str, text: str, *, integer: bool) -> int | float:
    """The number after the '@': ASCII digits only (Python's int() and float() also read
    other scripts' digits and underscores, which no peer does)."""
    try:
        if not re.fullmatch(r"\s*[+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?\s*|\s*[+-]?(inf|nan)\s*",
                            text, re.ASCII | re.IGNORECASE):
            raise ValueError(text)
        value: int | float = int(text) if integer else float(text)
    except ValueError:
        kind = "a positive integer cutoff" if integer else "a number"
        raise MeasureError(f"measure {label!r}: expected {kind} after '@', got {text!r}") from None
    if integer and value < 1:
        raise MeasureError(f"measure {label!r}: the cutoff must be >= 1, got {value}")
    return value


def _param_value(label: str, text: str) -> Any:
    text = text.strip()
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            continue
    if re.fullmatch(r"[0-9]+:[^;:]+(;[0-9]+:[^;:]+)*", text):  # a gain per grade: 1:3;2:7
        pairs = [item.split(":") for item in text.split(";")]
        gains: dict[int, Any] = {}
        for grade, gain in pairs:
            if int(grade) in gains:
                raise MeasureError(f"measure {label!r}: grade {grade} is given two gains")
            gains[int(grade)] = _param_value(label, gain)
        return gains
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text):
        raise MeasureError(f"measure {label!r}: cannot read parameter value {text!r}")
    return text


def _gain_map(label: str, text: str) -> dict[int, float]:
    """A ``gains`` value: ``1:3;2:9`` (a gain per grade, trec_eval's ``ndcg.1=3,2=9``)."""
    pairs: dict[int, float] = {}
    for item in filter(None, (part.strip() for part in text.split(";"))):
        level, sep, value = item.partition(":")
        try:
            if not sep:
                raise ValueError
            pairs[int(level)] = float(value)
        except ValueError:
            raise MeasureError(f"measure {label!r}: gains are grade:gain pairs separated by "
                               f"';' (gains=1:3;2:9), got {item!r}") from None
    return pairs


class UnknownMeasure(MeasureError):
    """A measure string whose name is no measure; the message holds the few closest names
    (:func:`rankframe.trec_eval.unknown_measure`, shared with the command line)."""

    def __init__(self, label: str, name: str) -> None:
        super().__init__(label, name)
        self.label, self.name = label, name
        self._message: str | None = None

    def __str__(self) -> str:  # made when read: is_measure's tries raise it unread
        if self._message is None:
            self._message = str(trec_eval.unknown_measure(
                None, self.name, label=self.label, others=known_names(), valid=is_measure,
                first=respellings(self.label, self.name)))
        return self._message


def respellings(written: str, name: str) -> list[str]:
    """What ``written`` may have meant when its ``name`` is a whole measure followed by a
    cutoff (``ndcg_cut_10@3``): that measure, and its rankframe name with the cutoff
    (``ndcg@3``)."""
    rest = written.strip()[len(name):]
    if not rest.startswith("@") or not is_measure(name):
        return []
    root = canonical(name).partition("@")[0].partition("(")[0]
    return [name, *([root + rest] if is_measure(root + rest) else [])]


def known_names() -> list[str]:
    """Every name a measure string may start with: rankframe's aliases, trec_eval's printed
    names without a parameter, ir_measures' names (for "did you mean")."""
    return [*(_CANONICAL.get(a, n) if n == _CANONICAL.get(a, n).lower() else n
              for n, a in sorted(_ALIASES.items())),
            *PRINTED_NAMES, *_PEER_SPELLINGS.values()]


def is_measure(label: str) -> bool:
    """Whether ``label`` reads as one measure string or a trec_eval ``-m`` form."""
    try:
        parse_all([label])
    except MeasureError:
        return False
    return True


def _split(label: str) -> tuple[str, str, str | None]:
    """A measure string's name, parameter text and cutoff text (trec_eval names mapped to
    the rankframe name: ``P_10`` -> ``p``, ``10``)."""
    text = label.strip()
    trec_cut = _TREC_CUT.match(text)
    if text in PRINTED_NAMES:  # trec_eval's names, from rankframe.trec_eval
        return PRINTED_NAMES[text], "", None
    if trec_cut and trec_cut["name"] in CUTOFF_NAMES:
        return CUTOFF_NAMES[trec_cut["name"]], "", trec_cut["cutoff"]
    match = _GRAMMAR.match(text)
    if match is None:
        name = re.split(r"[@(.]", text, maxsplit=1)[0]
        if "." not in text and (name.lower() in _ALIASES or name.lower() in _PEER_NAMES):
            raise MeasureError(f"measure {label!r}: cannot read it as name[(param=value, "
                               "...)][@cutoff], e.g. ndcg@10, P(rel=2)@5, map")
        raise UnknownMeasure(label, name)
    return _from_peers(label, match["name"], match["params"] or "", match["cutoff"])


# --- ir_measures' names and parameters -----------------------------------------------------
# ir_measures writes measures as Name(param=value)@cutoff (nDCG@10, P(rel=2)@5, AP(rel=2),
# nDCG(dcg=exp-log2)@10, RBP(p=0.8)); names are matched without regard to case, as
# rankframe's are. Its names that rankframe spells otherwise, lowercased -> rankframe's:
_PEER_NAMES = {"setp": "p", "setr": "recall", "setf": "set_f", "setap": "set_map",
               "setrelp": "relative_p", "numrel": "num_rel", "numret": "num_ret",
               "numrelret": "num_rel_ret"}
#: The same names as ir_measures spells them (for "did you mean").
_PEER_SPELLINGS = {"setp": "SetP", "setr": "SetR", "setf": "SetF", "setap": "SetAP",
                   "setrelp": "SetRelP", "numrel": "NumRel", "numret": "NumRet",
                   "numrelret": "NumRelRet"}
#: ir_measures' nDCG(dcg=...) -> rankframe's gain.
_PEER_DCG = {"log2": "linear", "exp-log2": "exponential"}


def _items(params: str) -> list[str]:
    """The ``key=value`` items of a parameter text, split at the commas outside braces and
    brackets (ir_measures' ``gains={0:0,1:1,2:3}`` is one item)."""
    items, depth, start = [], 0, 0
    for i, char in enumerate(params):
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(params[start:i])
            start = i + 1
    items.append(params[start:])
    return [item.strip() for item in items if item.strip()]


def _from_peers(label: str, name: str, params: str, cutoff: str | None
                ) -> tuple[str, str, str | None]:
    """ir_measures' spelling of a measure in rankframe's: its names (``SetP``, ``NumRet``),
    ``rel=`` (the relevance level: ``threshold=``), ``cutoff=`` (the ``@`` value),
    ``dcg=log2|exp-log2`` (``gain=linear|exponential``), ``gains={grade: gain, ...}``
    (``gains=grade:gain;...``), ``p=`` of RBP (its ``@`` value); rankframe's own
    spelling passes unchanged."""
    peer = name.lower()
    items = _items(params)
    if peer in _PEER_NAMES:
        name = _PEER_NAMES[peer]
    alias = _ALIASES.get(name.lower())
    if alias is None:
        return name, params, cutoff
    takes = {p.name for p in METRICS[alias.metric].params}
    kept: list[str] = []
    for item in items:
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep:
            kept.append(item)
        elif key == "rel" and peer == "numret":  # NumRet(rel=n): relevant rows retrieved
            name, alias = "num_rel_ret", _ALIASES["num_rel_ret"]
            kept.append(f"threshold={value}")
        elif key == "rel" and "threshold" in takes:
            kept.append(f"threshold={value}")
        elif cutoff is None and (key, alias.cutoff) in (("cutoff", "k"), ("p", "p")):
            cutoff = value
        elif key == "dcg" and "gain" in takes:
            if value.strip("'\"") not in _PEER_DCG:
                raise MeasureError(f"measure {label!r}: dcg is one of "
                                   f"{', '.join(_PEER_DCG)} (ir_measures), got {value!r}")
            kept.append(f"gain={_PEER_DCG[value.strip(chr(39) + chr(34))]}")
        elif key == "gains" and value.startswith("{") and value.endswith("}"):
            pairs = [pair.partition(":") for pair in _items(value[1:-1])]
            kept.append("gains=" + ";".join(f"{g.strip()}:{v.strip()}" for g, _, v in pairs))
        elif key == "beta" and peer == "setf" and cutoff is None:  # trec_eval's set_F.x
            cutoff = value
        elif key == "relative" and peer == "setp":
            if value.lower() == "true":
                name, alias = "relative_p", _ALIASES["relative_p"]
        elif key == "judged_only":
            if value.lower() == "true":
                raise MeasureError(
                    f"measure {label!r}: judged_only is an option of the evaluation, not of "
                    "one measure in rankframe: evaluate_run(..., judged_only=True), "
                    "judge(..., judged_only=True) or rankframe eval -J")
        else:
            kept.append(item)
    return name, ", ".join(kept), cutoff


#: Parameters given after the '@' of a measure string, never inside its parentheses.
_AFTER_AT = frozenset({"k", "recall", "p", "multiple"})


def parse(label: str, *, threshold: float | None = None) -> Measure:
    """Parse one measure string.

    ``threshold`` (the relevance level) is applied to every metric that takes one, unless
    the string sets it explicitly, e.g. ``"P(threshold=2)@10"``.

    Examples
    --------
    >>> m = parse("ndcg@10")
    >>> m.metric.name, m.values
    ('ndcg', {'k': 10})
    >>> parse("P_5").values
    {'k': 5}
    """
    name, params, cutoff = _split(label)
    alias = _ALIASES.get(name.lower())
    if alias is None:
        raise UnknownMeasure(label, name)
    metric = METRICS[alias.metric]
    names = {p.name for p in metric.params}
    values: dict[str, Any] = dict(alias.fixed)
    if alias.cutoff == "k":
        values["k"] = None if cutoff is None else _number(label, cutoff, integer=True)
    elif alias.cutoff == "recall":
        if cutoff is None:
            raise MeasureError(f"measure {label!r} needs a recall level, e.g. {name}@0.5")
        values["recall"] = _number(label, cutoff, integer=False)
    elif alias.cutoff == "multiple":
        if cutoff is None:
            raise MeasureError(f"measure {label!r} needs a multiple of R, e.g. {name}@0.2")
        values["multiple"] = _number(label, cutoff, integer=False)
    elif alias.cutoff == "p":
        if cutoff is not None:
            values["p"] = _number(label, cutoff, integer=False)
    elif alias.cutoff == "length":  # relstring@20, or relstring(length=20)
        if cutoff is not None:
            values["length"] = _number(label, cutoff, integer=True)
    elif alias.cutoff == "beta":
        # trec_eval's set_F.x weighs recall x times: F = (1 + x) P R / (x P + R), x = beta^2.
        values["k"] = None
        if cutoff is not None:  # given as is: beta = sqrt(x) would square back inexactly
            values["recall_weight"] = _number(label, cutoff, integer=False)
    elif cutoff is not None:
        raise MeasureError(f"measure {label!r}: {name} takes no cutoff")
    given: set[str] = set()
    for item in _items(params):
        key, sep, raw = item.partition("=")
        key = key.strip()
        if key in given:
            raise MeasureError(f"measure {label!r}: parameter {key!r} is given twice")
        given.add(key)
        if (not sep or key not in names or key in _AFTER_AT
                or key == alias.cutoff != "length"):
            allowed = ", ".join(sorted(names - _AFTER_AT)) or "none"
            raise MeasureError(
                f"measure {label!r}: bad parameter {item!r}; {metric.name} accepts: {allowed}"
            )
        kind = next(p.kind for p in metric.params if p.name == key)
        values[key] = _gain_map(label, raw) if kind == "gains" else _param_value(label, raw)
    if threshold is not None and "threshold" in names:
        values.setdefault("threshold", threshold)
    summary: Summary = alias.summary or (
        "run" if metric.scope == "run" else metric.aggregate)
    measure = Measure(label, metric, values, summary)
    try:  # validate the parameters now, with the messages of every face
        metric.validate(values)
    except (TypeError, ValueError) as exc:
        raise MeasureError(f"measure {label!r}: {exc}") from None
    return measure


def canonical(label: str) -> str:
    """``label`` in rankframe's grammar, spelt one way: the measure's first name, the
    parameters as given, the cutoff as a number (``P_10``, ``precision@10`` -> ``P@10``;
    ``reciprocal_rank@10`` -> ``mrr@10``; ``ndcg_cut_10`` -> ``ndcg@10``).

    Examples
    --------
    >>> canonical("ndcg_cut_10"), canonical("average_precision"), canonical("rr@010")
    ('ndcg@10', 'map', 'mrr@10')
    """
    measure = parse(label)  # validates
    name, params, cutoff = _split(label)
    text = _CANONICAL[_ALIASES[name.lower()]]
    given = [item.partition("=") for item in _items(params)]
    if given:
        text += "(" + ", ".join(f"{k.strip()}={v.strip()}" for k, _, v in given) + ")"
    if cutoff is not None:
        value = next((measure.values[key]
                      for key in ("k", "recall", "p", "recall_weight", "multiple", "length")
                      if measure.values.get(key) is not None), cutoff)
        text += f"@{value}" if isinstance(value, int) else f"@{value:g}"
    return text


def trec_eval_name(label: str) -> str | None:
    """trec_eval's printed name for exactly the measure ``label`` (same metric, parameters
    and summary), None when trec_eval has none; ``rankframe eval`` prints a rankframe
    measure string under this name, else under its :func:`canonical` form.

    Examples
    --------
    >>> trec_eval_name("ndcg@10"), trec_eval_name("P@10"), trec_eval_name("map")
    ('ndcg_cut_10', 'P_10', 'map')
    >>> trec_eval_name("mrr@10") is None
    True
    """
    measure = parse(label)
    keys = {"cut_int": ("k",), "cut_float": ("recall", "multiple"),
            "param_float": ("p", "recall_weight"), "relstring": ("length",)}
    for trec in trec_eval.TREC_MEASURES:
        if trec.measure is None or _ALIASES[trec.measure.lower()].metric != measure.metric.name:
            continue
        # The bare name, where it is a measure string for the same measure (not rbp).
        names = [trec.name] if trec.name in trec_eval.PRINTED_NAMES else []
        names += [name for key in keys.get(trec.kind, ()) if measure.values.get(key) is not None
                  for name in trec.names((measure.values[key],))]
        for name in names:
            other = parse(name)
            if (other.metric.name, other.values, other.summary) == (
                    measure.metric.name, measure.values, measure.summary):
                return name
    return None


def peer_label(label: object) -> object:
    """A measure object of ir_measures (``nDCG@10``, ``P(rel=2)@5``: its module is
    ``ir_measures``) as its string, which rankframe reads; anything else unchanged."""
    if type(label).__module__.partition(".")[0] == "ir_measures":
        return str(label)
    return label


def split_cutoffs(label: str) -> list[str]:
    """A measure string with a list of cutoffs as one string per cutoff, for every measure:
    ``"ndcg@5,10"`` and ir_measures-style ``"ndcg@[5,10]"`` -> ``"ndcg@5"``, ``"ndcg@10"``
    (``"P(rel=2)@[5,10]"`` -> ``"P(rel=2)@5"``, ``"P(rel=2)@10"``); any other string as it is.

    Examples
    --------
    >>> split_cutoffs("ndcg@5,10"), split_cutoffs("AP@[5, 10]"), split_cutoffs("map")
    (['ndcg@5', 'ndcg@10'], ['AP@5', 'AP@10'], ['map'])
    """
    head, at, tail = label.strip().rpartition("@")
    if not at or ")" in tail or "(" in tail:
        return [label]
    bracketed = tail.startswith("[") and tail.endswith("]")
    if not bracketed and "," not in tail:
        return [label]
    items = [item.strip() for item in (tail[1:-1] if bracketed else tail).split(",")]
    if not all(items):
        raise MeasureError(f"measure {label!r}: a list of cutoffs is @5,10 or @[5,10] "
                           f"(one number between each pair of commas), got {tail!r}")
    return [f"{head}@{item}" for item in items]


def expand(labels: Sequence[object]) -> list[str]:
    """``labels`` with each measure that stands for several replaced by those: trec_eval's
    ``-m`` forms with parameters by the measure strings they select
    (:func:`rankframe.trec_eval.expand`: ``"P.5,10"`` -> ``"P_5"``, ``"P_10"``;
    ``"ndcg_cut.10"`` -> ``"ndcg_cut_10"``), a list of cutoffs by one string per cutoff
    (:func:`split_cutoffs`: ``"ndcg@5,10"``, ``"P@[1,5]"``), an ir_measures measure object
    by its string; every other label unchanged.

    Examples
    --------
    >>> expand(["P.5,10", "ndcg@10", "iprec@0.5", "mrr@[5,10]"])
    ['P_5', 'P_10', 'ndcg@10', 'iprec@0.5', 'mrr@5', 'mrr@10']
    """
    out: list[str] = []
    for label in map(peer_label, labels):
        if not isinstance(label, str):
            raise MeasureError(f"a measure must be a string such as 'ndcg@10', got {label!r}")
        if "." in label and trec_eval.is_spec(label):
            out.extend(trec_eval.expand(label))
        else:
            out.extend(split_cutoffs(label))
    return out


def as_labels(measures: object) -> list[object]:
    """What the API takes as measures, as a list: one measure string (or ir_measures
    measure object), or a list or tuple of them, or a set (pytrec_eval's habit), sorted."""
    if isinstance(measures, set | frozenset):
        return sorted(measures, key=str)
    if isinstance(measures, list | tuple):
        return list(measures)
    if isinstance(measures, str) or peer_label(measures) is not measures:
        return [measures]
    raise MeasureError(f"measures must be a measure string or a list of them, got {measures!r}")


def parse_all(labels: object, *, threshold: float | None = None) -> list[Measure]:
    """Parse several measure strings (:func:`as_labels`), trec_eval's ``-m`` forms and
    lists of cutoffs expanded (:func:`expand`); labels must be distinct (they become column
    names)."""
    labels = expand(as_labels(labels))
    seen: set[str] = set()
    for label in labels:
        if label in seen:
            raise MeasureError(f"measure {label!r} is requested twice")
        seen.add(label)
    if not labels:
        raise MeasureError("no measures requested")
    return [parse(label, threshold=threshold) for label in labels]

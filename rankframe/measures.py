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
#: run metric (each query holds its run's value: that value).
Summary = Literal["mean", "sum", "gmean", "none", "run"]


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
    try:
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


def _unknown(label: str) -> MeasureError:
    known = ", ".join(sorted(_ALIASES))
    return MeasureError(
        f"unknown measure {label!r}; use name[@cutoff] with one of: {known} "
        "(or a trec_eval name such as P_10, ndcg_cut_10, map_cut_100, recip_rank)"
    )


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
        raise _unknown(label)
    return match["name"], match["params"] or "", match["cutoff"]


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
        raise _unknown(label)
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
    for item in filter(None, (part.strip() for part in params.split(","))):
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
        "sum" if metric.aggregate == "sum" else "run" if metric.scope == "run" else "mean")
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
    given = [item.partition("=") for item in filter(None, map(str.strip, params.split(",")))]
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


def expand(labels: Sequence[str]) -> list[str]:
    """``labels`` with trec_eval's ``-m`` forms with parameters replaced by the measure
    strings they select (:func:`rankframe.trec_eval.expand`): ``"P.5,10"`` -> ``"P_5"``,
    ``"P_10"``; ``"ndcg_cut.10"`` -> ``"ndcg_cut_10"``; every other label unchanged.

    Examples
    --------
    >>> expand(["P.5,10", "ndcg@10", "iprec@0.5"])
    ['P_5', 'P_10', 'ndcg@10', 'iprec@0.5']
    """
    out: list[str] = []
    for label in labels:
        if isinstance(label, str) and "." in label and trec_eval.is_spec(label):
            out.extend(trec_eval.expand(label))
        else:
            out.append(label)
    return out


def parse_all(labels: list[str] | tuple[str, ...], *, threshold: float | None = None
              ) -> list[Measure]:
    """Parse several measure strings, trec_eval's ``-m`` forms expanded (:func:`expand`);
    labels must be distinct (they become column names)."""
    if isinstance(labels, str):
        labels = [labels]
    if not isinstance(labels, Sequence):
        raise MeasureError(
            f"measures must be a measure string or a list of them, got {labels!r}")
    labels = expand(labels)
    seen: set[str] = set()
    for label in labels:
        if not isinstance(label, str):
            raise MeasureError(f"a measure must be a string such as 'ndcg@10', got {label!r}")
        if label in seen:
            raise MeasureError(f"measure {label!r} is requested twice")
        seen.add(label)
    if not labels:
        raise MeasureError("no measures requested")
    return [parse(label, threshold=threshold) for label in labels]

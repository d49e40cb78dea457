"""Printed trec_eval names -> the rankframe measure strings that compute them (with
``--trec-eval9``, ``--ties average``, utility's weights, gain pairs, judgment groups)."""

from __future__ import annotations

import math
from typing import Literal

from rankframe.errors import RankframeError
from rankframe.trec_eval.cnumbers import c_atof
from rankframe.trec_eval.grammar import gain_pairs, spec_of
from rankframe.trec_eval.measures import (
    BY_NAME,
    PRINTED_NAMES,
    RESIDUAL_HELPERS,
    TREC_MEASURES,
    VERBATIM,
    Params,
    Selection,
    TrecMeasure,
    level_names,
)


def _verbatim_measure(measure: TrecMeasure, text: str, num_docs: int, judged_only: bool
                      ) -> str:
    """The rankframe measure string of utility's ``-m`` parameter text (``num_docs``: the
    collection size, trec_eval's ``-N``)."""
    a, b, c, d = (c_atof(item)[0] for item in text.split(","))  # as grammar read them
    # trec_eval 10 scores a -c query without results on a placeholder document (unjudged,
    # so -J drops it), and zeroes it afterwards only under the plain name "utility".
    empty = "counts" if judged_only else "placeholder"
    return (f"utility(a={a!r}, b={b!r}, c={c!r}, d={d!r}, num_docs={num_docs}, "
            f"empty={empty})")


def _measure_string(measure: TrecMeasure, name: str, *, trec_eval9: bool, ties: str,
                    num_docs: int = 0, judged_only: bool = False) -> str:
    """The rankframe measure string behind one printed trec_eval name."""
    suffix = name[len(measure.name):].lstrip("_")
    if measure.kind in VERBATIM and suffix and ties != "average":
        return _verbatim_measure(measure, suffix, num_docs, judged_only)
    if measure.kind == "gain_pairs" and suffix:  # ndcg_1=3,2=9 -> ndcg(gains=1:3;2:9)
        pairs = gain_pairs(spec_of(name), suffix)
        if ties == "average":
            raise RankframeError(f"--ties average: {measure.name} with gains has no tie-aware "
                                 "form")
        text = ";".join(f"{level}:{gain!r}" for level, gain in pairs.items())
        return f"{measure.measure}(gains={text})"
    if measure.kind == "relstring":  # relstring_5.0 is length 5, as trec_eval reads it
        length = c_atof(suffix)[0] if suffix else measure.defaults[0]
        return f"relstring@{math.trunc(length)}"
    if measure.kind == "param_float":  # set_F, rbp, rbp_resid: the parameter always given
        root = measure.name if measure.name in PRINTED_NAMES else measure.measure
        # the number as trec_eval reads the text it prints (rbp_p=0.8x is p = 0.8)
        value = c_atof(suffix.removeprefix("p="))[0] if suffix else measure.defaults[0]
        return f"{root}@{value!r}"
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
    >>> from rankframe.trec_eval.grammar import select
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
    >>> from rankframe.trec_eval.grammar import select
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
            measure, names = BY_NAME["iprec_at_recall"], level_names(params)
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

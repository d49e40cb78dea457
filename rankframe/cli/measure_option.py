"""The ``-m`` option of every subcommand (``eval``, ``compare``, ``sql``): a trec_eval spec
(``ndcg_cut.10``) or a rankframe measure string (``ndcg@10``), checked before any file is
read; a problem is one short error naming the option: a known measure's wrong parameter,
or, for a name that is no measure, the few known names closest to it."""

from __future__ import annotations

import re

from rankframe.errors import MeasureError
from rankframe.measures import (
    UnknownMeasure,
    known_names,
    measure_names,
    parse,
    respellings,
    split_cutoffs,
    trec_eval_name,
)
from rankframe.trec_eval.describe import describe
from rankframe.trec_eval.grammar import is_spec, select, spec_of, unknown_measure

__all__ = ["check_measure_option", "describe_option", "is_known", "measure_option_error"]


def is_known(name: str) -> bool:
    """Whether ``name`` (a measure string without parameters or cutoff) names a measure."""
    if name.lower() in measure_names():
        return True
    try:
        trec_eval_name(name)
    except MeasureError:
        return False
    return True


def measure_option_error(spec: str, error: MeasureError) -> MeasureError:
    """The error of ``-m spec``, given the ``error`` reading ``spec`` as a measure string
    raised: that error for a known measure, else "unknown measure ...; did you mean"."""
    # the name: before a cutoff or parameters, or trec_eval's ".params"
    root = re.split(r"[@(]", spec.strip(), maxsplit=1)[0].partition(".")[0]
    if isinstance(error, UnknownMeasure):
        root = error.name.partition(".")[0]
    elif is_known(root):  # a known measure: its parameters or cutoff are wrong
        return MeasureError(f"-m {spec}: {error}")
    return unknown_measure(spec, root, known_names(), valid=_valid_option,
                           first=respellings(spec, root))


def _valid_option(spec: str) -> bool:
    """Whether ``-m spec`` reads (for "did you mean"; builds no error message)."""
    try:
        if is_spec(spec):
            select([spec.strip()])
        else:
            for one in split_cutoffs(spec):
                parse(one)
    except MeasureError:
        return False
    return True


def check_measure_option(spec: str) -> None:
    """Raise the error of ``-m spec`` (see the module) unless it reads as a measure.

    Examples
    --------
    >>> check_measure_option("ndcg@10"), check_measure_option("P.5,10")
    (None, None)
    >>> check_measure_option("mapp")
    Traceback (most recent call last):
    ...
    rankframe.errors.MeasureError: -m mapp: unknown measure 'mapp'; did you mean map, ...
    """
    if is_spec(spec):
        select([spec.strip()])
        return
    try:
        for one in split_cutoffs(spec):
            parse(one)
    except MeasureError as exc:
        raise measure_option_error(spec, exc) from None


def describe_option(spec: str) -> str:
    """What ``rankframe eval -h -m spec`` prints: trec_eval's description of each measure a
    trec_eval spec names (:func:`rankframe.trec_eval.describe`); for a measure string
    (``ndcg@10``, ``mrr``, ``P@5,10``), that of trec_eval's measure computing the same, or
    else rankframe's one line; an unknown name gets the command line's "did you mean".

    Examples
    --------
    >>> print(describe_option("mrr"), end="")
    mrr (trec_eval's recip_rank)
        1 / rank of the first relevant document (0 if none is retrieved).
    """
    if is_spec(spec):
        return describe(spec)
    check_measure_option(spec)
    text = ""
    for one in split_cutoffs(spec):
        name = trec_eval_name(one)
        if name is not None:
            body = "".join(line for line in describe(spec_of(name)).splitlines(True)[1:]
                           if not line.startswith("    Default param"))
            text += f"{one} (trec_eval's {name})\n{body}"
        else:
            root = re.split(r"[@(]", one.strip(), maxsplit=1)[0].lower()
            text += f"{one}\n    {measure_names().get(root, parse(one).metric.name)}\n"
    return text

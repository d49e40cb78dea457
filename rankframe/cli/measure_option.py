"""The ``-m`` option of every subcommand (``eval``, ``compare``, ``sql``): a trec_eval spec
(``ndcg_cut.10``) or a rankframe measure string (``ndcg@10``), checked before any file is
read; a problem is one short error naming the option: a known measure's wrong parameter,
or, for a name that is no measure, the few known names closest to it."""

from __future__ import annotations

import re

from rankframe.errors import MeasureError
from rankframe.measures import measure_names, parse, trec_eval_name
from rankframe.trec_eval.grammar import is_spec, select, unknown_measure

__all__ = ["check_measure_option", "is_known", "measure_option_error"]


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
    if is_known(root):  # a known measure: its parameters or cutoff are wrong
        return MeasureError(f"-m {spec}: {error}")
    return unknown_measure(spec, root, list(measure_names()))


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
        parse(spec)
    except MeasureError as exc:
        raise measure_option_error(spec, exc) from None

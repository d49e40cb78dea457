"""Argument checks shared by every metric face and entry point.

Each kind of parameter (:data:`rankframe.registry.ParamKind`) has one :class:`Rule`
here: what it allows, in words, and the test. :func:`check` applies the rule of a kind;
``Param.check`` and ``Metric.validate`` in the registry apply it to a metric's declared
parameters, and ``registry.validated`` makes a builder (of any face) check its arguments
that way before it runs. A bad value fails where the call is written, not deep inside Polars,
DuckDB or Spark, with one message per kind everywhere::

    {function}: {argument} must {what is allowed}, got {value!r}[ of type {type}]

a ``TypeError`` (with the type) when the value is not of the kind at all, a
:class:`~rankframe.errors.MeasureError` (a ``ValueError``) when it is but lies outside what
is allowed. Integers are whatever ``operator.index`` takes (``int``, NumPy integers), not
bools; a cutoff is at most ``2**63 - 1`` (Int64, what every engine counts ranks in), a
grade at most 960 and a mapped gain at most ``2**960`` in size (sums of ``2**grade`` and of
gains must stay finite).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from numbers import Real
from typing import Any, TypeVar

from rankframe.errors import MeasureError

__all__ = ["MAX_CUTOFF", "MAX_GAIN", "MAX_GRADE", "RULES", "Rule", "check", "choice", "cutoff",
           "integer"]

T = TypeVar("T", bound=str)


def _always(value: object) -> bool:
    return True


def _integer(value: object) -> bool:
    """An integer (anything ``operator.index`` takes: Python or NumPy), not a bool."""
    if isinstance(value, bool):
        return False
    try:
        operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return False
    return True


def _finite(value: object) -> bool:
    """A finite real number, not a bool."""
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)


def _boolean(value: object) -> bool:
    return isinstance(value, bool)


def _gain_levels(value: Mapping[Any, Any]) -> bool:
    """Every key an integer grade >= 0, every gain a finite number at most
    :data:`MAX_GAIN` in size."""
    return all(_integer(level) and operator.index(level) >= 0 and _finite(gain)
               and abs(gain) <= MAX_GAIN for level, gain in value.items())


def _gain_pairs(value: Mapping[Any, Any]) -> tuple[tuple[int, float], ...]:
    """A gain mapping as (grade, gain) pairs in grade order (hashable, one spelling)."""
    return tuple(sorted((operator.index(level), float(gain)) for level, gain in value.items()))


@dataclass(frozen=True)
class Rule:
    """How one kind of parameter is checked.

    ``allowed`` completes "<argument> must ..."; ``fits`` tells a value of the right type
    (else ``TypeError``), ``holds`` one in range (else ``ValueError``); ``convert`` gives
    the value the builders receive. ``takes_none``: None is always allowed (a cutoff's
    "whole list"); for the other kinds None is allowed where the declared default is None.
    """

    allowed: str
    fits: Callable[[Any], bool]
    holds: Callable[[Any], bool]
    convert: Callable[[Any], Any]
    takes_none: bool = False
    got: str = ", got"


#: The largest cutoff (Int64's maximum), and the largest grade: 2**960 summed over up to 2**63
#: rows stays below Float64's maximum 2**1024, so a sum of exponential gains never overflows.
MAX_CUTOFF = 2**63 - 1
MAX_GRADE = 960
#: The largest gain a gain map may give a grade, 2**960, for the same reason: the exponential
#: gain of the largest grade.
MAX_GAIN = 2.0**MAX_GRADE

_POSITIVE = Rule("be a finite number > 0", _finite, lambda v: v > 0, float)
_UNIT = Rule("lie in [0, 1]", _finite, lambda v: 0 <= v <= 1, float)

#: The rule of every parameter kind but ``choice``, whose rule comes from the choices.
RULES: dict[str, Rule] = {
    "cutoff": Rule("be a positive integer below 2**63 or None (whole list)", _integer,
                   lambda v: 1 <= operator.index(v) <= MAX_CUTOFF, operator.index,
                   takes_none=True),
    "threshold": _POSITIVE,
    "weight": _POSITIVE,
    "grade": Rule(f"be a finite number in (0, {MAX_GRADE}]", _finite,
                  lambda v: 0 < v <= MAX_GRADE, float),
    "recall_level": _UNIT,
    "penalty": _UNIT,
    "persistence": Rule("lie in (0, 1)", _finite, lambda v: 0 < v < 1, float),
    "flag": Rule("be True or False", _boolean, _always, bool),
    "coefficient": Rule("be a finite number", _finite, _always, float),
    "count": Rule("be an integer >= 0", _integer, lambda v: operator.index(v) >= 0,
                  operator.index),
    "size": Rule("be an integer >= 1", _integer, lambda v: operator.index(v) >= 1,
                 operator.index),
    # trec_eval's ndcg.1=3,2=9: a gain per grade; the grades left out keep their default gain.
    "gains": Rule("be a mapping of integer grades >= 0 to finite gains of at most 2**960 in "
                  "size, so that their sums stay finite (e.g. {1: 3, 2: 9})",
                  lambda v: isinstance(v, Mapping), _gain_levels, _gain_pairs),
}


def _choice_rule(choices: Collection[str]) -> Rule:
    options = ", ".join(repr(c) for c in choices)
    return Rule(f"be one of {options}", _always,
                lambda v: isinstance(v, str) and v in choices, str, got="; got")


def check(func: str, name: str, kind: str, value: object, *,
          choices: Collection[str] = (), optional: bool = False) -> Any:
    """``value`` of the argument ``name`` of ``func`` checked against the rule of ``kind``
    (``choices`` for the kind ``"choice"``) and converted; None passes when ``optional``."""
    rule = _choice_rule(choices) if kind == "choice" else RULES[kind]
    if value is None and (optional or rule.takes_none):
        return None
    allowed = rule.allowed if rule.takes_none or not optional else f"{rule.allowed} or None"
    if not rule.fits(value):
        raise TypeError(f"{func}: {name} must {allowed}{rule.got} {value!r} "
                        f"of type {type(value).__name__}")
    if not rule.holds(value):
        raise MeasureError(f"{func}: {name} must {allowed}{rule.got} {value!r}")
    return rule.convert(value)


def cutoff(func: str, k: object, *, name: str = "k") -> int | None:
    """Return ``k`` if it is a positive integer or ``None`` (the whole list)."""
    result: int | None = check(func, name, "cutoff", k)
    return result


def integer(func: str, name: str, value: object, minimum: int) -> int:
    """``value`` as an ``int`` if it is an integer (see :func:`_integer`) >= ``minimum``."""
    if not _integer(value) or operator.index(value) < minimum:  # type: ignore[arg-type]
        raise ValueError(f"{func}: {name} must be an integer >= {minimum}, got {value!r}")
    result: int = operator.index(value)  # type: ignore[arg-type]
    return result


def choice(func: str, name: str, value: object, allowed: Collection[T]) -> T:
    """Return ``value`` if it is one of ``allowed``."""
    result: T = check(func, name, "choice", value, choices=allowed)
    return result

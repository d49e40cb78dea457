"""Argument checks for the user-model, correlation and tie-aware metrics.

They complement :mod:`rankframe._validate` with the parameter kinds these metrics add
(a persistence in (0, 1), an optional maximum grade, a boolean flag); each raises
``TypeError``/``ValueError`` naming the function, the argument and what is allowed.
"""

from __future__ import annotations

from rankframe import _validate


def persistence(func: str, value: object, *, name: str = "p") -> float:
    """Return ``value`` if it lies in the open interval (0, 1)."""
    p = _validate.unit_interval(func, name, value, open_upper=True)
    if p <= 0:
        raise ValueError(f"{func}: {name} must lie in (0, 1), got {value!r}")
    return p


def optional_positive(func: str, name: str, value: object) -> float | None:
    """Return ``value`` if it is ``None`` or a finite number > 0."""
    if value is None:
        return None
    return _validate.positive_number(func, name, value)


def flag(func: str, name: str, value: object) -> bool:
    """Return ``value`` if it is a bool."""
    if not isinstance(value, bool):
        raise TypeError(f"{func}: {name} must be True or False, got {value!r}")
    return value


"""Argument checks shared by every metric face and entry point.

Each check raises ``ValueError``/``TypeError`` naming the function, the argument, what
was given and what is allowed, so that a bad call fails where it is written, not deep
inside Polars or DuckDB.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from numbers import Real
from typing import TypeVar

T = TypeVar("T", bound=str)


def cutoff(func: str, k: object, *, name: str = "k") -> int | None:
    """Return ``k`` if it is a positive integer or ``None`` (the whole list)."""
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(
            f"{func}: {name} must be a positive integer or None (whole list), "
            f"got {k!r} of type {type(k).__name__}"
        )
    if k < 1:
        raise ValueError(f"{func}: {name} must be a positive integer or None, got {k}")
    return k


def choice(func: str, name: str, value: object, allowed: Collection[T]) -> T:
    """Return ``value`` if it is one of ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        options = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"{func}: {name} must be one of {options}; got {value!r}")
    return value  # type: ignore[return-value]


def positive_number(func: str, name: str, value: object) -> float:
    """Return ``value`` if it is a finite real number > 0 (e.g. a relevance threshold)."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise TypeError(f"{func}: {name} must be a finite number > 0, got {value!r}")
    if value <= 0:
        raise ValueError(f"{func}: {name} must be > 0, got {value!r}")
    return float(value)


def unit_interval(func: str, name: str, value: object, *, open_upper: bool = False) -> float:
    """Return ``value`` if it lies in [0, 1] (or [0, 1) when ``open_upper``)."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise TypeError(f"{func}: {name} must be a number in [0, 1], got {value!r}")
    upper_ok = value < 1 if open_upper else value <= 1
    if value < 0 or not upper_ok:
        bound = "[0, 1)" if open_upper else "[0, 1]"
        raise ValueError(f"{func}: {name} must lie in {bound}, got {value!r}")
    return float(value)


def persistence(func: str, value: object, *, name: str = "p") -> float:
    """Return ``value`` if it lies in the open interval (0, 1)."""
    p = unit_interval(func, name, value, open_upper=True)
    if p <= 0:
        raise ValueError(f"{func}: {name} must lie in (0, 1), got {value!r}")
    return p


def optional_positive(func: str, name: str, value: object) -> float | None:
    """Return ``value`` if it is ``None`` or a finite number > 0."""
    if value is None:
        return None
    return positive_number(func, name, value)


def flag(func: str, name: str, value: object) -> bool:
    """Return ``value`` if it is a bool."""
    if not isinstance(value, bool):
        raise TypeError(f"{func}: {name} must be True or False, got {value!r}")
    return value


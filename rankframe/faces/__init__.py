"""The faces of the metrics, one module per backend, registered here by name.

A face module defines ``FACE``, an object of the :class:`~rankframe.faces.base.Face`
protocol; registering it is one line in ``REGISTERED``. ``evaluate``, ``evaluate_run``,
the command line and the test-suite find every backend through :func:`get`, so a new face
is usable and tested (completeness, parity, golden cases, pruning, judge) once it is here.
A face whose optional dependencies are missing stays registered and says why it cannot run.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rankframe.errors import RankframeError

if TYPE_CHECKING:  # the protocol module imports Polars: loaded on first use, below
    from rankframe.faces.base import Face, Role

__all__ = ["ENGINES", "REGISTERED", "Face", "Registration", "get", "unavailable"]


@dataclass(frozen=True)
class Registration:
    module: str
    role: Role
    extra: str = ""  # the optional dependency group that provides it, if any
    backend: str = ""  # a module serving several faces: the key of its FACES dict


REGISTERED: dict[str, Registration] = {
    "polars": Registration("rankframe.faces.polars", "engine"),
    "duckdb": Registration("rankframe.faces.duckdb", "engine"),
    "spark": Registration("rankframe.faces.spark", "cluster", extra="spark"),
    "oracle": Registration("rankframe.faces.oracle", "oracle"),
    **{f"ibis-{b}": Registration("rankframe.faces.ibis", "cluster", extra="ibis", backend=b)
       for b in ("duckdb", "polars", "sqlite", "datafusion", "postgres")},
}

#: The faces that evaluate a Polars frame in process: ``evaluate(..., engine=...)``.
ENGINES: tuple[str, ...] = tuple(n for n, r in REGISTERED.items() if r.role == "engine")


def get(name: str) -> Face:
    """The registered face called ``name``; a clear error if it is unknown or cannot load."""
    registration = REGISTERED.get(name)
    if registration is None:
        known = ", ".join(repr(n) for n in REGISTERED)
        raise ValueError(f"unknown face {name!r}; registered faces: {known}")
    try:
        module = importlib.import_module(registration.module)
    except ImportError as exc:
        hint = f" (pip install 'rankframe[{registration.extra}]')" if registration.extra else ""
        raise RankframeError(f"the {name} face cannot load: {exc}{hint}") from exc
    face: Face = module.FACES[registration.backend] if registration.backend else module.FACE
    return face


def unavailable(name: str) -> str | None:
    """Why the face ``name`` cannot run here, or None if it can."""
    try:
        return get(name).unavailable()
    except RankframeError as exc:
        return str(exc)


def __getattr__(name: str) -> Any:
    """``Face`` and ``Role``, from :mod:`rankframe.faces.base` on first use (it imports
    Polars, which the registrations above do not need)."""
    if name in ("Face", "Role"):
        from rankframe.faces import base

        return getattr(base, name)
    raise AttributeError(f"module 'rankframe.faces' has no attribute {name!r}")

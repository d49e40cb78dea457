"""The faces of the metrics, one module per backend, registered here by name.

A face module defines ``FACE``, an object of the :class:`~rankframe.faces.base.Face`
protocol; registering it is one line in ``REGISTERED``. ``evaluate``, ``evaluate_run``,
the command line and the test-suite find every backend through :func:`get`, so a new face
is usable and tested (completeness, parity, golden cases, pruning, judge) once it is here.
A face whose optional dependencies are missing stays registered and says why it cannot run.

What a face lacks (metrics, ``judge``'s tie handling, measure families outside the registry)
is data, :func:`gaps`: read from the face, or, for a face needing an optional extra, from its
``gaps`` module, which imports without the extra (the site's metric x face table is built
with the ``docs`` extra alone).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rankframe.errors import RankframeError

if TYPE_CHECKING:  # the protocol module imports Polars: loaded on first use, below
    from rankframe.faces.base import Face, Role

__all__ = ["ENGINES", "REGISTERED", "Face", "Gaps", "Registration", "gaps", "get",
           "unavailable"]


@dataclass(frozen=True)
class Registration:
    module: str
    role: Role
    extra: str = ""  # the optional dependency group that provides it, if any
    backend: str = ""  # a module serving several faces: the key of its FACES dict
    #: With an extra: the module saying what the face lacks, importable without the extra
    #: (``unsupported_metrics(backend)``, ``JUDGE_TIES``, ``UNSUPPORTED_FAMILIES``).
    gaps: str = ""


REGISTERED: dict[str, Registration] = {
    "polars": Registration("rankframe.faces.polars", "engine"),
    "duckdb": Registration("rankframe.faces.duckdb", "engine"),
    "spark": Registration("rankframe.faces.spark", "cluster", extra="spark",
                          gaps="rankframe.faces.spark_gaps"),
    "oracle": Registration("rankframe.faces.oracle", "oracle"),
    **{f"ibis-{b}": Registration("rankframe.faces.ibis", "cluster", extra="ibis", backend=b,
                                 gaps="rankframe.faces.ibis_gaps")
       for b in ("duckdb", "polars", "sqlite", "datafusion", "postgres")},
}


@dataclass(frozen=True)
class Gaps:
    """What a face lacks, each with the reason: registered metrics (``Face.unsupported``),
    measure families outside the registry (``prefs``), and the ``ties`` choices its
    ``judge`` has."""

    metrics: Mapping[str, str]
    families: Mapping[str, str]
    judge_ties: frozenset[str]

#: The faces that evaluate a Polars frame in process: ``evaluate(..., engine=...)``.
ENGINES: tuple[str, ...] = tuple(n for n, r in REGISTERED.items() if r.role == "engine")


def _registration(name: str) -> Registration:
    registration = REGISTERED.get(name)
    if registration is None:
        known = ", ".join(repr(n) for n in REGISTERED)
        raise ValueError(f"unknown face {name!r}; registered faces: {known}")
    return registration


def get(name: str) -> Face:
    """The registered face called ``name``; a clear error if it is unknown or cannot load."""
    registration = _registration(name)
    try:
        module = importlib.import_module(registration.module)
    except ImportError as exc:
        hint = f" (pip install 'rankframe[{registration.extra}]')" if registration.extra else ""
        raise RankframeError(f"the {name} face cannot load: {exc}{hint}") from exc
    face: Face = module.FACES[registration.backend] if registration.backend else module.FACE
    return face


def gaps(name: str) -> Gaps:
    """What the face ``name`` lacks: from its ``gaps`` module where it has one (no optional
    extra imported), else from the face and its module."""
    registration = _registration(name)
    if registration.gaps:
        declared = importlib.import_module(registration.gaps)
        return Gaps(declared.unsupported_metrics(registration.backend),
                    declared.UNSUPPORTED_FAMILIES, declared.JUDGE_TIES)
    face = get(name)
    module = importlib.import_module(registration.module)
    return Gaps(face.unsupported, getattr(module, "UNSUPPORTED_FAMILIES", {}),
                frozenset(face.judge_ties))


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

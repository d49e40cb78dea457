"""Public entry point of the Polars builders (``from rankframe.metrics import ndcg``, also
``rankframe.ndcg``); the face itself is :mod:`rankframe.faces.polars`. A builder is imported
on first use, with its module, as there."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rankframe.faces import polars as _face
from rankframe.faces.polars import __all__ as __all__

if TYPE_CHECKING:
    import polars as pl

    from rankframe.faces.polars import *  # noqa: F403


def __getattr__(name: str) -> Callable[..., pl.Expr]:
    """A builder, from :mod:`rankframe.faces.polars` on first use."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value: Callable[..., pl.Expr] = getattr(_face, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

"""The item columns of the beyond-accuracy metrics, by role (no Polars: the command line
reads them before it decides to load Polars)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rankframe.measures import Measure

__all__ = ["ROLES", "reads_items"]

#: The columns the beyond-accuracy metrics read besides rel and rank, by role: what a
#: table may carry itself and what a Catalog derives.
ROLES = ("item", "pop", "tail", "category", "features", "pair_similarity", "similarity",
         "alignment", "target")


def reads_items(measures: Sequence[Measure]) -> bool:
    """True if a measure reads a beyond-accuracy column (``item``, ``pop`` ...)."""
    return any(c in ROLES for m in measures for c in m.metric.columns)

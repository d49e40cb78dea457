"""Beyond accuracy: the inputs of the catalogue, popularity, diversity and fairness metrics.

The metrics themselves are declared in :mod:`rankframe.registry` (families ``catalog``,
``popularity_bias``, ``diversity``, ``fairness``) and have their faces like every other metric;
this package holds what they need besides: :mod:`~rankframe.beyond.reference` (their oracle
and the plain statement of how item inputs are derived), :mod:`~rankframe.beyond.roles`
(the item columns) and :mod:`~rankframe.beyond.catalog` (:class:`Catalog`: the items,
training interactions and target joined once to a table of recommendations).
``evaluate``'s run metrics (one value per run, beside the per-list ones) are
:mod:`rankframe.run_metrics`. Contract: docs/semantics.md#beyond-accuracy.

Importing this package loads no Polars; :class:`Catalog` loads on first use.
"""

from __future__ import annotations

from typing import Any

from rankframe.beyond.roles import ROLES, reads_items

__all__ = ["ROLES", "Catalog", "reads_items"]


def __getattr__(name: str) -> Any:
    if name == "Catalog":
        from rankframe.beyond.catalog import Catalog

        return Catalog
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""Readers of the files rankframe evaluates: TREC runs and qrels, trec_eval's prefs,
judgment-group qrels and z-score files.

The readers are imported on first use (PEP 562), so that a pure-Python module of this
package (:mod:`rankframe.io.lines`, the line grammar) imports no Polars.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rankframe.io.groups import read_qrels_jg as read_qrels_jg
    from rankframe.io.prefs import read_prefs as read_prefs
    from rankframe.io.prefs import read_qrels_prefs as read_qrels_prefs
    from rankframe.io.trec import read_qrels as read_qrels
    from rankframe.io.trec import read_run as read_run
    from rankframe.io.zscores import read_zscores as read_zscores

#: Public name -> the module defining it.
_READERS: dict[str, str] = {
    "read_prefs": "rankframe.io.prefs",
    "read_qrels": "rankframe.io.trec",
    "read_qrels_jg": "rankframe.io.groups",
    "read_qrels_prefs": "rankframe.io.prefs",
    "read_run": "rankframe.io.trec",
    "read_zscores": "rankframe.io.zscores",
}

__all__ = ["read_prefs", "read_qrels", "read_qrels_jg", "read_qrels_prefs", "read_run",
           "read_zscores"]


def __getattr__(name: str) -> Any:
    """A reader, imported from its module on first use."""
    module = _READERS.get(name)
    if module is None:
        raise AttributeError(f"module 'rankframe.io' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

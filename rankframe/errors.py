"""Exceptions rankframe raises for bad input.

Every message names the problem precisely: the file and line, the column, the query and
document, or the argument, and what would be accepted instead.
"""

from __future__ import annotations


class RankframeError(ValueError):
    """Base class: input rankframe cannot evaluate."""


class InputError(RankframeError):
    """A run, qrels or judged table is malformed (bad line, bad type, duplicate, missing column)."""


class MeasureError(RankframeError):
    """A measure name or parameter is not understood."""


class InputWarning(UserWarning):
    """Input that is read as trec_eval reads it, but perhaps not as meant (a query id that
    trec_eval takes for a comment)."""


class EngineError(RankframeError):
    """An engine cannot be used as given: e.g. a DuckDB connection whose ``rf_*`` macros are
    not rankframe's own, of this version."""

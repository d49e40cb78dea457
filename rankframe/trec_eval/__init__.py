"""trec_eval compatibility: everything rankframe knows about trec_eval, one module per concern.

trec_eval 10 is the reference; ``--trec-eval9`` (``trec_eval9=True`` here) reproduces
trec_eval 9.x and pytrec_eval where they differ (iprec_at_recall's recall levels; no
per-query lines under ``-c -q`` for queries without results).

``rankframe eval`` prints what trec_eval prints for the measures rankframe supports:
each line is ``%-22s\\t%s\\t%6.4f`` (counts as integers), per-query lines (``-q``) come
query by query in byte order of the query id, then the ``all`` lines; measures appear in
trec_eval's own order, whatever order ``-m`` gave them in.

- :mod:`~rankframe.trec_eval.measures`: :data:`TREC_MEASURES` (one row per trec_eval
  measure: its kind, default parameters, the rankframe measure its printed names parse
  as, its tie-aware form), :data:`UNSUPPORTED`, :data:`NICKNAMES`, :data:`PRINTED_NAMES`
  and :data:`CUTOFF_NAMES` (read by :mod:`rankframe.measures`, so ``"P_10"`` is a measure
  string); :func:`rankframe_measure` prints a measure trec_eval lacks.
- :mod:`~rankframe.trec_eval.grammar`: the ``-m`` grammar. :func:`select` reads specs,
  :func:`is_spec` tells them from rankframe measure strings, :func:`expand` lists the
  printed names one selects and :func:`spec_of` goes back; :func:`unknown_measure`.
- :mod:`~rankframe.trec_eval.names`: :func:`measure_strings` (printed name -> rankframe
  measure string, with ``--trec-eval9`` and ``--ties average``), :func:`formats`.
- :mod:`~rankframe.trec_eval.output`: :func:`lines` (per-query and summary lines in
  trec_eval's order, 11pt_avg, rbp_resid's zero without unjudged results, summaries
  accumulated as trec_eval does), :func:`format_line`, :func:`zscore`.
- :mod:`~rankframe.trec_eval.describe`: :func:`describe` (``-h -m NAME``).
- :mod:`~rankframe.trec_eval.queries`: :func:`select_queries` (run queries without qrels
  dropped; qrels queries without results dropped unless ``-c``), :func:`unjudged_count`
  and :func:`unjudged_note`.

Plain data and functions: no command-line parsing, no printing.
"""

from __future__ import annotations

from rankframe.trec_eval.describe import describe
from rankframe.trec_eval.grammar import (
    expand,
    is_spec,
    select,
    select_prefs,
    spec_of,
    unknown_measure,
)
from rankframe.trec_eval.grammar import gain_pairs as gain_pairs
from rankframe.trec_eval.measures import (
    CUTOFF_NAMES,
    ELEVEN_POINTS,
    GEOMETRIC_MEAN_FLOOR,
    NICKNAMES,
    PREFS_MEASURES,
    PREFS_NICKNAMES,
    PRINTED_NAMES,
    TREC_MEASURES,
    UNSUPPORTED,
    Selection,
    TrecMeasure,
    rankframe_measure,
)
from rankframe.trec_eval.measures import GAIN_PAIR_NAMES as GAIN_PAIR_NAMES
from rankframe.trec_eval.measures import MAX_R_MULTIPLE as MAX_R_MULTIPLE
from rankframe.trec_eval.measures import RESIDUAL_HELPERS as RESIDUAL_HELPERS
from rankframe.trec_eval.measures import Kind as Kind
from rankframe.trec_eval.measures import Params as Params
from rankframe.trec_eval.measures import Spelled as Spelled
from rankframe.trec_eval.names import formats, measure_strings
from rankframe.trec_eval.output import (
    MISSING_ZSCORE,
    Line,
    ZScores,
    format_line,
    lines,
    summary,
    zscore,
)
from rankframe.trec_eval.output import Columns as Columns
from rankframe.trec_eval.output import frame_columns as frame_columns
from rankframe.trec_eval.output import list_columns as list_columns
from rankframe.trec_eval.queries import no_queries_error as no_queries_error
from rankframe.trec_eval.queries import no_query_error as no_query_error
from rankframe.trec_eval.queries import select_queries, unjudged_count, unjudged_note

__all__ = [
    "CUTOFF_NAMES",
    "ELEVEN_POINTS",
    "GEOMETRIC_MEAN_FLOOR",
    "MISSING_ZSCORE",
    "NICKNAMES",
    "PREFS_MEASURES",
    "PREFS_NICKNAMES",
    "PRINTED_NAMES",
    "TREC_MEASURES",
    "UNSUPPORTED",
    "Line",
    "Selection",
    "TrecMeasure",
    "ZScores",
    "describe",
    "expand",
    "format_line",
    "formats",
    "is_spec",
    "lines",
    "measure_strings",
    "rankframe_measure",
    "select",
    "select_prefs",
    "select_queries",
    "spec_of",
    "summary",
    "unjudged_count",
    "unjudged_note",
    "unknown_measure",
    "zscore",
]

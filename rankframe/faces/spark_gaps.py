"""What the Spark face (:mod:`rankframe.faces.spark`) lacks, as data that imports without
PySpark: the site's metric x face table (:mod:`rankframe.faces.table`) and the tests read it
where the ``spark`` extra is not installed; the face object reads it too, so it is said once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankframe.registry import METRICS

if TYPE_CHECKING:  # the protocol module imports Polars
    from rankframe.faces.base import Ties

#: Registered metrics without a Spark function, each with the reason (as data: the
#: completeness tests check it against the registry and the face's functions). None today.
UNSUPPORTED: dict[str, str] = {}


#: Measure families outside the registry that this face lacks, with the reason (as data:
#: tests/trec_eval/test_prefs.py checks that every face computes them or says why not).
UNSUPPORTED_FAMILIES: dict[str, str] = {
    "prefs": "trec_eval's preference measures (-R prefs) need a transitive closure (joins "
             "repeated until nothing changes) and sums in trec_eval's order; not written for "
             "Spark yet: read the preferences on the driver and use the Polars or DuckDB face",
}


#: The ``ties`` choices of its ``judge``.
JUDGE_TIES: frozenset[Ties] = frozenset({"docid", "average"})


SUPPORTED_METRICS: tuple[str, ...] = tuple(
    name for name in sorted(METRICS) if name not in UNSUPPORTED)


def unsupported_metrics(backend: str = "") -> dict[str, str]:
    """The registered metrics the Spark face does not compute, with the reasons."""
    return dict(UNSUPPORTED)

"""Every face orders the ideal ranking as the oracle does, for every metric at once.

The hypothesis loops check this too, but late in a run and only where a drawn table puts
the best gains low; here fixed tables put them last (distinct grades below the top ranks,
the best unretrieved, tie groups holding the best grades), so a builder that sorts its
ideal gains ascending, or takes the ideal positions off by one, fails in seconds. Every
metric reading ``(rel, rank)`` or the tie columns is evaluated in one call per face and
table, with a cutoff below the number of relevant rows and none, both gains and both
ideals where the metric takes them, and compared with the oracle as the conformance kit
does (its very double where the face declares the metric exact, else within 1e-9).
"""

from __future__ import annotations

from itertools import product
from typing import Any

import polars as pl

from rankframe import faces
from rankframe.faces.base import Face, supports
from rankframe.measures import Measure
from rankframe.registry import METRICS, TIED, Metric
from tests.support.faces import disagreements, evaluate, measure

#: Per query, the grades at ranks 1, 2, ... then the grades of unretrieved rows (rank NULL):
#: the best grades come last, so every ideal ordering differs from the ranking.
PLAIN = {"rising": ([0, 1, 0, 2, 3, 0, 4], [5, 2]),
         "sparse": ([0, 0, 0, 0, 1, 0, 0, 3], []),
         "graded": ([2, 1, 3, 0, 1, 4], [4])}
#: Per query, tie groups (grades of one group share its positions), then unretrieved grades.
TIED_GROUPS = {"rising": ([[0, 1], [0, 2, 3], [4]], [5]),
               "one group": ([[1, 0, 3, 2]], [2])}


def plain_table() -> pl.DataFrame:
    rows = [(q, float(g), r) for q, (ranked, _) in PLAIN.items()
            for r, g in enumerate(ranked, start=1)]
    rows += [(q, float(g), None) for q, (_, missed) in PLAIN.items() for g in missed]
    return pl.DataFrame(rows, schema={"qid": pl.String, "rel": pl.Float64, "rank": pl.Int64},
                        orient="row")


def tied_table() -> pl.DataFrame:
    rows: list[tuple[str, float, int | None, int | None]] = []
    for q, (groups, missed) in TIED_GROUPS.items():
        first = 1
        for group in groups:
            rows += [(q, float(g), first, len(group)) for g in group]
            first += len(group)
        rows += [(q, float(g), None, None) for g in missed]
    return pl.DataFrame(rows, schema={"qid": pl.String, "rel": pl.Float64,
                                      "tie_first": pl.Int64, "tie_size": pl.Int64},
                        orient="row")



def value_sets(metric: Metric) -> list[dict[str, Any]]:
    """A cutoff below the number of relevant rows and none, and every choice of ``gain`` and
    ``ideal``; the other parameters at their defaults (required ones at a middle value)."""
    axes: list[list[tuple[str, Any]]] = []
    for p in metric.params:
        if p.kind == "cutoff":
            axes.append([(p.name, k) for k in ([3] if p.required else [3, None])])
        elif p.name in ("gain", "ideal"):
            axes.append([(p.name, c) for c in p.choices])
        elif p.required:
            axes.append([(p.name, {"recall_level": 0.5, "weight": 1.5}[p.kind])])
    return [dict(choice) for choice in product(*axes)]


def measures_for(face: Face, columns: tuple[str, ...]) -> list[Measure]:
    return [measure(m, values, f"m{i}_{j}")
            for i, m in enumerate(m for m in METRICS.values()
                                  if m.columns == columns and supports(face, m))
            for j, values in enumerate(value_sets(m))]


def check(face: Face, table: pl.DataFrame, measures: list[Measure]) -> None:
    got, want = evaluate(face, table, measures), evaluate(faces.get("oracle"), table, measures)
    faults = [f for m in measures for f in disagreements(face, m, got[m.label], want[m.label])[0]]
    assert faults == [], f"{face.name} orders an ideal unlike the oracle:\n" + "\n".join(
        faults[:12])


def test_every_ideal_ordering_is_the_oracles(checked_face: Face) -> None:
    check(checked_face, plain_table(), measures_for(checked_face, ("rel", "rank")))


def test_every_tie_aware_ideal_ordering_is_the_oracles(checked_face: Face) -> None:
    measures = measures_for(checked_face, TIED)
    assert any(m.metric.name == "ndcg_ties" for m in measures) or not supports(
        checked_face, METRICS["ndcg_ties"])
    check(checked_face, tied_table(), measures)


def test_the_tables_put_the_best_grades_last() -> None:
    """The ideal ordering of each query differs from its ranking (else the check above
    could not tell an ascending ideal from the right one)."""
    for ranked, missed in PLAIN.values():
        assert sorted(ranked + missed, reverse=True)[:len(ranked)] != ranked
    for groups, _ in TIED_GROUPS.values():
        flat = [g for group in groups for g in group]
        assert sorted(flat, reverse=True) != flat

"""The site's metric x face table (docs/faces.md) is generated from the registry and what each
face declares it lacks (:func:`rankframe.faces.gaps`), which imports no optional extra: the
table is checked in every environment, and where a face's extra is installed, its declared
gaps are the face object's own."""

from __future__ import annotations

import importlib

import pytest

from docsgen.lists import expand
from rankframe import faces
from rankframe.faces.table import NO_TIE_GROUPS, support_table
from rankframe.registry import METRICS
from tests.support import REPO, needs

PAGE = REPO / "docs" / "faces.md"
#: The need of each optional extra a face's module takes.
EXTRA_NEEDS = {"spark": "pyspark", "ibis": "ibis"}


def test_the_site_page_shows_the_generated_table() -> None:
    table = support_table()
    assert table in expand(PAGE.read_text(encoding="utf-8"))
    header, _, *rows = table.split("\n\n")[0].splitlines()
    assert header == "| metric | " + " | ".join(faces.REGISTERED) + " |"
    assert [row.split(" | ")[0] for row in rows] == [
        *(f"| `{m}`" for m in METRICS), '| `judge(ties="average")`']


def test_every_gap_carries_its_face_reason() -> None:
    table = support_table()
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert len(rows) == len(METRICS) + 1  # every metric, and judge(ties="average")
    notes = {}  # reason -> the faces the note names
    for line in table.split("\n\n")[-1].splitlines():
        _, _, rest = line.partition(". ")
        names, _, reason = rest.partition(": ")
        notes[reason.removesuffix(".")] = names.split(", ")
    gaps = sum(row.count("— (") for row in rows)
    explained = 0
    for name in faces.REGISTERED:
        for metric, reason in faces.gaps(name).metrics.items():
            assert metric in METRICS, f"{name} declares a gap for an unknown metric {metric}"
            assert name in notes.get(reason, []), f"{name} lacks {metric}; no note says why"
            explained += 1
        if "average" not in faces.gaps(name).judge_ties:
            assert name in notes[NO_TIE_GROUPS.removesuffix(".")]
    assert gaps == explained + sum(
        "average" not in faces.gaps(n).judge_ties for n in faces.REGISTERED)
    assert explained > 0  # the Ibis faces lack some metrics today


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=needs.mark(EXTRA_NEEDS[r.extra]))
    for n, r in faces.REGISTERED.items() if r.gaps])
def test_declared_gaps_are_the_faces_own(name: str) -> None:
    """A face's gaps module says what the face object says (its extra installed)."""
    face, declared = faces.get(name), faces.gaps(name)
    assert dict(face.unsupported) == dict(declared.metrics)
    assert frozenset(face.judge_ties) == declared.judge_ties
    module = importlib.import_module(faces.REGISTERED[name].module)
    assert dict(module.UNSUPPORTED_FAMILIES) == dict(declared.families)


def test_the_faces_of_the_core_dependencies_declare_through_the_face() -> None:
    for name, registration in faces.REGISTERED.items():
        if not registration.gaps:
            assert not registration.extra, f"{name} needs an extra but has no gaps module"
            assert dict(faces.gaps(name).metrics) == dict(faces.get(name).unsupported)

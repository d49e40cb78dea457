"""The site's metric x face table (docs/faces.md) is the one generated from the registry and
the faces (rankframe.faces.table), and the generator says every gap and its reason."""

from __future__ import annotations

import pytest

from rankframe import faces
from rankframe.errors import RankframeError
from rankframe.faces.table import BEGIN, END, replace_table, support_table
from rankframe.registry import METRICS
from tests.support import REPO

PAGE = REPO / "docs" / "faces.md"


def table_or_skip() -> str:
    try:
        return support_table()
    except RankframeError as exc:  # a face's optional extra is missing
        pytest.skip(f"the table needs every face's module: {exc}")


def test_the_table_is_up_to_date() -> None:
    text = PAGE.read_text(encoding="utf-8")
    expected = table_or_skip()
    assert replace_table(text, expected) == text, (
        "docs/faces.md's metric x face table is out of date: run "
        "`python -m rankframe.faces.table --write docs/faces.md`")


def test_every_gap_carries_its_face_reason() -> None:
    table = table_or_skip()
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
        for metric, reason in faces.get(name).unsupported.items():
            assert name in notes.get(reason, []), f"{name} lacks {metric}; no note says why"
            explained += 1
    assert gaps == explained + sum(
        "average" not in faces.get(n).judge_ties for n in faces.REGISTERED)


def test_replace_table_needs_the_markers() -> None:
    assert replace_table(f"a\n{BEGIN}\nold\n{END}\nb", "new") == f"a\n{BEGIN}\nnew\n{END}\nb"
    with pytest.raises(ValueError, match="markers"):
        replace_table("no markers here", "new")

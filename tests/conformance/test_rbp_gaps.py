"""rbp and rbp_residual do not depend on rank gaps: the running product p^(i - 1) reaches
its floor within ``floor_steps(p)`` multiplications, so a row at rank 10^8 (or 2^62) costs
what a row at rank 4000 does, on every face, with the same numbers as the oracle."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from typing import Any

import polars as pl
import pytest

from rankframe import reference
from rankframe.faces.base import Face
from rankframe.persistence import floor_steps, floor_weight
from rankframe.registry import METRICS
from tests.support import REPO
from tests.support.faces import measure

MEASURES = [("rbp", {}), ("rbp", {"p": 0.5}), ("rbp", {"p": 0.9}), ("rbp", {"graded": True}),
            ("rbp_residual", {}), ("rbp_residual", {"p": 0.9}), ("rbp_residual", {"p": 0.3})]
# Gaps before, across and far beyond the floor (3,526 steps for p = 0.8, 7,467 for 0.9).
ROWS: list[tuple[str, int | None, int | None]] = [
    ("a", 1, 0), ("a", 3, 1), ("a", 3600, 2), ("a", 10**8, 1), ("a", None, 1),
    ("b", 10**8, 1), ("c", 2, None), ("c", 10**6, 0), ("c", 10**6 + 1, -1),
    ("d", 5, 1), ("d", 2**62, 1),
    *(("e", r, [None, 0, 1, -1][r % 4]) for r in range(1, 4000)),
]


def _oracle() -> dict[str, list[float]]:
    by_query: dict[str, list[tuple[Any, Any]]] = defaultdict(list)
    for qid, rank, rel in ROWS:
        by_query[qid].append((rel, rank))
    return {q: [getattr(reference, name)(rows, **values) for name, values in MEASURES]
            for q, rows in sorted(by_query.items())}


def _judged() -> pl.DataFrame:
    return pl.DataFrame(ROWS, schema={"qid": pl.String, "rank": pl.Int64, "rel": pl.Int64},
                        orient="row")


def test_the_floor_is_reached_within_floor_steps() -> None:
    for p in (0.01, 0.3, 0.5, 0.75, 0.8, 0.9, 0.95, 0.99, 0.999):
        weight, steps = 1.0, 0
        while weight * p != weight:
            weight, steps = weight * p, steps + 1
        assert steps <= floor_steps(p), p
        assert weight == floor_weight(p), p


_SCRIPT = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1500 << 20, 1500 << 20))
import polars as pl
from rankframe import faces
from tests.support.faces import measure
from rankframe.registry import METRICS
rows, measures, engine = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
judged = pl.DataFrame(rows, schema={"qid": pl.String, "rank": pl.Int64, "rel": pl.Int64},
                      orient="row")
parsed = [measure(METRICS[n], v, f"m{i}") for i, (n, v) in enumerate(measures)]
face = faces.get(engine)
result = face.to_polars(face.evaluate(judged, parsed, ["qid"], {"rel": "rel", "rank": "rank"}))
print(json.dumps({r[0]: list(r[1:]) for r in result.rows()}))
"""


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_row_at_a_huge_rank_in_bounded_memory(engine: str) -> None:
    """In a process limited to 1.5 GB of address space, and within a minute."""
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, json.dumps(ROWS), json.dumps(MEASURES), engine],
        capture_output=True, text=True, timeout=120, cwd=REPO, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == _oracle()


def test_every_face_agrees_with_the_oracle(checked_face: Face) -> None:
    expected = _oracle()
    parsed = [measure(METRICS[n], v, f"m{i}") for i, (n, v) in enumerate(MEASURES)]
    table = checked_face.native(_judged())
    result = checked_face.to_polars(checked_face.evaluate(
        table, parsed, ["qid"], {"rel": "rel", "rank": "rank"}))
    got = {r[0]: list(r[1:]) for r in result.rows()}
    if checked_face.name.startswith("ibis-"):  # p^(rank - 1) by pow: within 1e-9
        assert got == {q: pytest.approx(v, rel=1e-9, abs=1e-12) for q, v in expected.items()}
    else:
        assert got == expected

"""DuckDB's infap, ndcg_rel and Rndcg on long queries: n log n per query (each list built once,
one fold over the sorted events), the same doubles as the Polars face and the oracle."""

from __future__ import annotations

import random
import subprocess
import sys

import polars as pl
import pytest

import rankframe as rf
from tests.support import REPO

MEASURES = ["infap", "ndcg_rel", "Rndcg", "ndcg_rel(gains=1:3;2:-1;4:0.5)",
            "Rndcg(gains=0:2;3:7)"]


def _judged(rows_per_query: int, seed: int) -> pl.DataFrame:
    rng = random.Random(seed)
    rows: list[tuple[str, int | None, int | None]] = []
    for q, n in (("long", rows_per_query), ("short", 7), ("none", 3)):
        grades = [None, -1, 0, 0, 1, 2, 3, 4] if q != "none" else [None, 0]
        rows += [(q, r, rng.choice(grades)) for r in range(1, n + 1)]
        rows += [(q, None, rng.choice([0, 1, 2, 4])) for _ in range(n // 10)]
    return pl.DataFrame(rows, schema={"qid": pl.String, "rank": pl.Int64, "rel": pl.Int64},
                        orient="row")


@pytest.mark.parametrize("seed", [1, 2])
def test_the_same_doubles_as_polars_and_the_oracle(seed: int) -> None:
    judged = _judged(2000, seed)
    duck = rf.evaluate(judged, MEASURES, engine="duckdb")
    assert duck.equals(rf.evaluate(judged, MEASURES))
    from rankframe import faces
    from rankframe.measures import parse

    oracle = faces.get("oracle")
    columns = {"rel": "rel", "rank": "rank"}
    expected = oracle.evaluate(judged, [parse(m) for m in MEASURES], ["qid"], columns)
    assert duck.rows() == expected.rows()


_SCRIPT = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
import rankframe as rf
from tests.backends.test_duckdb_long_queries import MEASURES, _judged
judged = _judged(50_000, 3)
assert rf.evaluate(judged, MEASURES, engine="duckdb").equals(rf.evaluate(judged, MEASURES))
print("ok")
"""


def test_a_query_of_50000_rows_in_bounded_memory() -> None:
    """Quadratic lists (2.5 GB of memory for infap alone) do not fit in 3 GB of address
    space (threads, libraries and arenas take their share of it)."""
    done = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                          cwd=REPO, check=False, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"

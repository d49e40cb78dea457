"""Generate the small example collection in examples/data/ (deterministic).

40 queries; three runs (bm25, dense, hybrid) of 100 results each with some tied scores;
qrels with grades 0-3 for about 20 documents per query, some judged documents never
retrieved, a few pooled-but-unjudged (-1) lines, two qrels queries missing from the runs
and one run query missing from the qrels. Rerun with `python examples/make_data.py`.
"""

from __future__ import annotations

import random
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
QUERIES = [str(301 + i) for i in range(40)]
DOCS = [f"DOC-{i:05d}" for i in range(3000)]


def main() -> None:
    rng = random.Random(20261121)
    DATA.mkdir(exist_ok=True)
    relevance: dict[str, dict[str, int]] = {}
    with (DATA / "qrels.txt").open("w") as qrels:
        for qid in QUERIES:
            judged = rng.sample(DOCS, 22)
            relevance[qid] = {}
            for doc in judged:
                grade = rng.choices([0, 1, 2, 3, -1], weights=[50, 25, 12, 6, 3])[0]
                relevance[qid][doc] = grade
                qrels.write(f"{qid} 0 {doc} {grade}\n")
    run_queries = [q for q in QUERIES if q not in ("312", "327")] + ["399"]
    skill = {"bm25": 0.9, "dense": 1.3, "hybrid": 1.6}
    for tag, strength in skill.items():
        with (DATA / f"run.{tag}.txt").open("w") as run:
            for qid in run_queries:
                judged = relevance.get(qid, {})
                pool = list(judged) + rng.sample(DOCS, 120)
                scored: dict[str, float] = {}
                for doc in pool:
                    signal = max(judged.get(doc, 0), 0) * strength
                    scored[doc] = round(signal + rng.gauss(0, 1.5), 1)  # rounding makes ties
                top = sorted(scored.items(), key=lambda item: -item[1])[:100]
                for rank, (doc, score) in enumerate(top, start=1):
                    run.write(f"{qid} Q0 {doc} {rank} {score} {tag}\n")


if __name__ == "__main__":
    main()

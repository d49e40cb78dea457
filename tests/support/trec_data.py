"""Generated TREC runs and qrels for the trec_eval cross-checks, as frames, dicts and files.

Scores are drawn from a small set so that ties are frequent; document ids mix lengths and
digit-only ids ("9" vs "10") so that the docid tie-break (descending byte order) matters.
Some qrels queries have no results and some run queries have no qrels.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl
from hypothesis import strategies as st

DOC_IDS = st.one_of(
    st.integers(1, 40).map(str),
    st.integers(1, 40).map(lambda i: f"d{i}"),
    st.integers(1, 40).map(lambda i: f"D-{i:03d}"),
)
SCORES = st.one_of(st.sampled_from([0.0, 1.0, 1.5, 2.0, 2.5]), st.floats(-5, 5, width=32))
GRADES = st.sampled_from([-1, 0, 0, 1, 1, 2, 3])

#: The engines of ``rankframe eval`` the tests hold to trec_eval: pure Python (small plain
#: inputs, --engine auto's choice for them), Polars and DuckDB.
ENGINES = ("python", "polars", "duckdb")


@dataclass
class TrecCase:
    run: dict[str, dict[str, float]]
    qrels: dict[str, dict[str, int]]

    def run_frame(self) -> pl.DataFrame:
        rows = [(q, d, s) for q, docs in self.run.items() for d, s in docs.items()]
        return pl.DataFrame(rows, schema={"qid": pl.String, "docid": pl.String,
                                          "score": pl.Float64}, orient="row")

    def qrels_frame(self) -> pl.DataFrame:
        rows = [(q, d, g) for q, docs in self.qrels.items() for d, g in docs.items()]
        return pl.DataFrame(rows, schema={"qid": pl.String, "docid": pl.String,
                                          "rel": pl.Int64}, orient="row")

    def write(self, directory: Path, tag: str = "sys") -> tuple[Path, Path]:
        """Write qrels and run as TREC text files (run lines in a shuffled-looking order)."""
        qrels_path, run_path = directory / "qrels.txt", directory / "run.txt"
        with qrels_path.open("w") as f:
            for q, docs in self.qrels.items():
                for d, g in docs.items():
                    f.write(f"{q} 0 {d} {g}\n")
        with run_path.open("w") as f:
            for q, docs in reversed(self.run.items()):
                for i, (d, s) in enumerate(docs.items(), start=1):
                    f.write(f"{q}\tQ0\t{d}\t{i}\t{s!r}\t{tag}\n")
        return qrels_path, run_path


@st.composite
def trec_cases(draw: st.DrawFn) -> TrecCase:
    qids = draw(st.lists(st.sampled_from([f"q{i}" for i in range(1, 13)] + ["7", "10"]),
                         min_size=1, max_size=6, unique=True))
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for i, q in enumerate(qids):
        in_run = i == 0 or draw(st.integers(0, 5)) > 0
        in_qrels = i == 0 or draw(st.integers(0, 5)) > 0
        if in_run:
            docs = draw(st.lists(DOC_IDS, min_size=1, max_size=30, unique=True))
            run[q] = {d: float(draw(SCORES)) for d in docs}
        if in_qrels:
            pool = list(run.get(q, {})) + draw(st.lists(DOC_IDS, max_size=10))
            judged = draw(st.lists(st.sampled_from(pool), min_size=1, unique=True)) if pool \
                else []
            grades = {d: draw(GRADES) for d in judged} or {"d0": draw(GRADES)}
            # pytrec_eval-terrier 0.5.x misreads (num_ret 0) and may crash on a query whose
            # only judgments are negative, so each query keeps one grade >= 0; rankframe's
            # handling of negative grades is covered by the parity suite.
            if all(g < 0 for g in grades.values()):
                grades[next(iter(grades))] = 0
            qrels[q] = grades
    return TrecCase(run, qrels)

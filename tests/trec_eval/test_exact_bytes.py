"""Exactness (docs/semantics.md#exactness) where it meets trec_eval: the bpref example's
double and bytes, the command line's bytes as trec_eval 10 prints them, the summaries' and
11pt_avg's order of additions, C's log2. Both engines printing the same bytes on generated
cases is checked beside trec_eval 10's (tests/trec_eval/test_trec_eval10.py). That every
face gives the oracle's doubles for the metrics it declares exact is the conformance kit's
(tests/conformance/test_metrics.py).
"""

from __future__ import annotations

import math
import random
import subprocess
from pathlib import Path

import polars as pl
import pytest

import rankframe as rf
from rankframe import faces, trec_eval
from rankframe.cli import main
from rankframe.faces.polars.expr import log2_discount
from rankframe.registry import METRICS
from tests.support.faces import per_query, printed


def bpref_example() -> pl.DataFrame:
    """Issue 13's bpref case: 32 relevant and 6 non-relevant documents, the run r0-r8, n0,
    n1, r9-r11; the other 20 relevant and 4 non-relevant are not retrieved."""
    grades = [1] * 9 + [0, 0] + [1] * 3
    rows: list[tuple[str, float, int | None]] = [
        ("q", float(g), rank) for rank, g in enumerate(grades, start=1)]
    rows += [("q", 1.0, None)] * 20 + [("q", 0.0, None)] * 4
    return pl.DataFrame(rows, schema={"qid": pl.String, "rel": pl.Float64, "rank": pl.Int64},
                        orient="row")


@pytest.mark.parametrize("face", ["polars", "duckdb", "oracle"])
def test_the_bpref_example_prints_as_trec_eval(face: str) -> None:
    """11/32 accumulated as trec_eval does is the double 0.34374999999999994: 0.3437."""
    value = per_query(faces.get(face), METRICS["bpref"], bpref_example(), {})["q"]
    assert value == 0.34374999999999994
    assert printed(value) == "0.3437"


# --------------------------------------------------------------------------- command line


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    status = main(args)
    out = capsys.readouterr().out
    assert status == 0
    return out


def write_example(directory: Path) -> tuple[Path, Path]:
    """The bpref example as TREC files: r0..r8, n0, n1, r9..r11 retrieved in that order."""
    qrels = directory / "qrels"
    run = directory / "run"
    relevant = [f"r{i}" for i in range(32)]
    nonrelevant = [f"n{i}" for i in range(6)]
    qrels.write_text("".join(f"1 0 {d} 1\n" for d in relevant)
                     + "".join(f"1 0 {d} 0\n" for d in nonrelevant))
    order = relevant[:9] + nonrelevant[:2] + relevant[9:12]
    run.write_text("".join(f"1 Q0 {d} {i} {100 - i} t\n" for i, d in enumerate(order)))
    return qrels, run


def test_the_bpref_example_on_the_command_line(tmp_path: Path, trec_eval_bin: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = write_example(tmp_path)
    outputs = [cli(["eval", "-q", "-m", "bpref", "--engine", engine, str(qrels), str(run)],
                   capsys) for engine in ("polars", "duckdb")]
    assert outputs[0] == outputs[1]
    assert "bpref                 \t1\t0.3437\n" in outputs[0]
    reference = subprocess.run([str(trec_eval_bin), "-q", "-m", "bpref", str(qrels), str(run)],
                               capture_output=True, text=True, check=True).stdout
    assert outputs[0] == reference


def random_case(draw: random.Random, directory: Path) -> tuple[Path, Path]:
    """Up to 10 queries of up to 300 documents, graded -1..3, scores with ties."""
    qrels, run = directory / "qrels", directory / "run"
    qrel_lines, run_lines = [], []
    for q in range(draw.randint(1, 10)):
        docs = [f"d{i}" for i in range(draw.randint(1, 300))]
        qrel_lines += [f"q{q} 0 {d} {draw.choice([0, 0, 0, 1, 1, 2, 3, -1])}\n"
                       for d in docs if draw.random() < 0.6]
        retrieved = draw.sample(docs, draw.randint(1, len(docs)))
        run_lines += [f"q{q} Q0 {d} {i} {draw.choice([1.0, 2.5, draw.random()])} sys\n"
                      for i, d in enumerate(retrieved)]
    qrels.write_text("".join(qrel_lines) or "q0 0 d0 1\n")
    run.write_text("".join(run_lines))
    return qrels, run


@pytest.mark.parametrize("seed", range(8))
def test_default_measures_are_trec_evals_bytes(seed: int, tmp_path: Path,
                                               trec_eval_bin: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = random_case(random.Random(seed), tmp_path)
    for flags in (["-q"], ["-q", "-c"]):
        reference = subprocess.run([str(trec_eval_bin), *flags, str(qrels), str(run)],
                                   capture_output=True, text=True, check=True).stdout
        for engine in ("polars", "duckdb"):
            out = cli(["eval", *flags, "--engine", engine, str(qrels), str(run)], capsys)
            assert out == reference, (engine, flags)


def test_11pt_avg_adds_as_trec_eval() -> None:
    """trec_eval adds the eleven interpolated precisions from recall 1.0 down to 0.0, then
    divides once by 11 (left to right and Polars' division by a scalar differ here)."""
    levels = [0.6, 0.5714285714285714, 0.46153846153846156, 0.3888888888888889, 0.3125,
              0.17142857142857143, 0.15384615384615385, 0.13333333333333333,
              0.10344827586206896, 0.05128205128205128, 0.038461538461538464]
    total = 0.0
    for value in reversed(levels):
        total += value
    expected = total / 11
    per_query = pl.DataFrame({"qid": ["1", "2"],
                              **{name: [v, v] for name, v in zip(trec_eval.ELEVEN_POINTS,
                                                                 levels, strict=True)}})
    lines = trec_eval.lines(per_query, trec_eval.select(["11pt_avg"]), "t", per_query_lines=True)
    assert [line.value for line in lines] == [expected, expected, expected]


def test_summarize_adds_in_query_order() -> None:
    """rf.summarize (and evaluate's summaries) add the per-query values in table order and
    divide once, as trec_eval: Polars' mean adds pairwise and differs in the last bits."""
    draw = random.Random(5)
    values = [draw.randint(0, 50) / draw.randint(1, 60) for _ in range(400)]
    per_query = pl.DataFrame({"qid": [f"q{i}" for i in range(400)], "map": values,
                              "system": ["a"] * 200 + ["b"] * 200})

    def mean(part: list[float]) -> float:
        total = 0.0
        for value in part:
            total += value
        return total / len(part)

    assert rf.summarize(per_query.drop("system"))["map"].item() == mean(values)
    by_system = rf.summarize(per_query, by="system")
    assert by_system["map"].to_list() == [mean(values[:200]), mean(values[200:])]


def test_the_polars_discount_is_cs_log2() -> None:
    """log2(i + 1) as C's log2 (trec_eval, DuckDB, math.log2) for every position up to 10^5
    and a few beyond the table; Polars' log(2) is ln(x) / ln(2), a bit off for many."""
    positions = [*range(1, 100_001), 5_000_000, 123_456_789]
    got = pl.DataFrame({"i": positions}).select(log2_discount(pl.col("i"))).to_series().to_list()
    assert got == [math.log2(i + 1) for i in positions]

"""Exactness (docs/semantics.md#exactness): every face computes each value with trec_eval's
order of floating-point operations, so the faces give the same doubles and print the same
``%6.4f`` bytes; a query's value does not depend on the other queries of its table; the
command line prints the same bytes on both engines, and trec_eval 10's where it is built.
"""

from __future__ import annotations

import math
import random
import subprocess
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankframe as rf
from rankframe import faces, trec_eval
from rankframe.cli import main
from rankframe.faces.base import Face, supports
from rankframe.metrics.expr import log2_discount
from rankframe.metrics.registry import METRICS
from tests.faces import examples, per_query, reference_face
from tests.strategies import judged_tables, metric_params, tables_for
from tests.trec_data import TrecCase, trec_cases

TREC_EVAL = Path("/tmp/te/trec_eval")

#: Metrics held to the oracle's doubles: those computed as trec_eval computes a measure
#: (docs/semantics.md#exactness), the counts, the judged share and relstring (compared as
#: strings). Not (yet) the rest: err, the rank correlations, RBO and the tie-aware closed
#: forms (the oracle averages orderings), nor Spark's g (Spark's log2 of a sum that need
#: not be whole); those agree to 1e-9 (tests/test_parity.py).
EXACT = ["average_precision", "bin_g", "bpref", "cg", "dcg", "f1", "g", "hit_rate", "idcg",
         "infap", "iprec_at_recall", "judged", "ndcg", "ndcg_p", "ndcg_rel",
         "num_nonrel_judged_ret", "num_rel", "num_rel_ret", "num_ret", "precision",
         "r_precision", "r_precision_mult", "rbp", "rbp_residual", "recall", "reciprocal_rank",
         "relative_precision", "relstring", "rndcg", "set_map", "unjudged", "utility", "yaap"]


def printed(value: Any) -> str:
    """A value as trec_eval prints it: counts as integers, strings (relstring) as they are,
    the rest as %6.4f."""
    return str(value) if isinstance(value, int | str) else f"{value:6.4f}"


def bpref_example() -> pl.DataFrame:
    """Issue 13's bpref case: 32 relevant and 6 non-relevant documents, the run r0-r8, n0,
    n1, r9-r11; the other 20 relevant and 4 non-relevant are not retrieved."""
    grades = [1] * 9 + [0, 0] + [1] * 3
    rows: list[tuple[str, float, int | None]] = [
        ("q", float(g), rank) for rank, g in enumerate(grades, start=1)]
    rows += [("q", 1.0, None)] * 20 + [("q", 0.0, None)] * 4
    return pl.DataFrame(rows, schema={"qid": pl.String, "rel": pl.Float64, "rank": pl.Int64},
                        orient="row")


def jvm_pow(judged: pl.DataFrame, values: dict[str, object]) -> bool:
    """Exponential gains of grades that are not whole: 2^rel by the JVM's pow, which may
    differ from C's in the last bit (docs/semantics.md#exactness)."""
    grades = judged["rel"].drop_nulls()
    return values.get("gain") == "exponential" and bool((grades != grades.floor()).any())


@pytest.mark.parametrize("name", EXACT)
def test_faces_give_the_oracles_doubles(name: str, checked_face: Face) -> None:
    """Every face's per-query value is the oracle's double, hence its %6.4f bytes."""
    metric = METRICS[name]
    if not supports(checked_face, metric):
        pytest.skip(f"{checked_face.name} has no {name}: {checked_face.unsupported[name]}")
    if checked_face.name == "spark" and name == "g":
        pytest.skip("Spark's G takes log2 of (2 + C) - S, not always whole, by Spark's log2 "
                    "(ln(x) / ln(2)): within 1e-9 only (docs/semantics.md#exactness)")
    if checked_face.name == "spark" and name == "yaap":
        pytest.skip("Spark's yaap takes its natural log by the JVM's Math.log, which may "
                    "differ from C's log in the last bit: within 1e-9 only "
                    "(docs/semantics.md#exactness)")
    if checked_face.name.startswith("ibis-"):
        pytest.skip("the Ibis faces add with each backend's SUM, in no set order (SQLite has no "
                    "arrays to fold): within 1e-9 only (docs/semantics.md#exactness)")

    @settings(max_examples=examples(checked_face, settings().max_examples))
    @given(judged=tables_for(metric), values=metric_params(metric))
    def check(judged: pl.DataFrame, values: dict[str, object]) -> None:
        oracle = reference_face(metric, judged, values)
        result = per_query(checked_face, metric, judged, values)
        assert set(result) == set(oracle)
        for qid, expected in oracle.items():
            got = result[qid]
            if checked_face.name == "spark" and jvm_pow(judged, values):
                assert got == pytest.approx(expected, rel=1e-14, abs=1e-14)
                continue
            assert printed(got) == printed(expected), (name, values, qid, got, expected)
            assert got == expected, f"{name}{values} {qid}: {checked_face.name}={got!r} " \
                                    f"oracle={expected!r}"

    check()


@pytest.mark.parametrize("face", ["polars", "duckdb", "oracle"])
def test_the_bpref_example_prints_as_trec_eval(face: str) -> None:
    """11/32 accumulated as trec_eval does is the double 0.34374999999999994: 0.3437."""
    value = per_query(faces.get(face), METRICS["bpref"], bpref_example(), {})["q"]
    assert value == 0.34374999999999994
    assert printed(value) == "0.3437"


def big_table(seed: int) -> pl.DataFrame:
    """Queries of 5 to 700 rows with mixed grades: long enough for a parallel or blocked
    float sum to add in another order than one at a time."""
    draw = random.Random(seed)
    rows: list[tuple[str, float | None, int | None]] = []
    for q in range(6):
        for rank in range(1, draw.choice([5, 40, 200, 700]) + 1):
            rel = draw.choice([0.0, 0.0, 1.0, 2.0, 3.0, 0.5, None, -1.0])
            rows.append((f"q{q}", rel, rank))
        rows += [(f"q{q}", draw.choice([0.0, 1.0, 4.0]), None) for _ in range(draw.randint(0, 9))]
    return pl.DataFrame(rows, schema={"qid": pl.String, "rel": pl.Float64, "rank": pl.Int64},
                        orient="row")


def default_values(name: str) -> dict[str, Any]:
    """Defaults, a cutoff of 100, recall level 0.3 and a weight (R-multiple) of 1.5 where a
    parameter is required."""
    required = {"cutoff": 100, "recall_level": 0.3, "weight": 1.5}
    return {p.name: required[p.kind] if p.required else p.default for p in METRICS[name].params}


@pytest.mark.parametrize("face", ["polars", "duckdb"])
@pytest.mark.parametrize("name", EXACT)
def test_a_querys_value_ignores_the_other_queries(name: str, face: str) -> None:
    """Each query of a table alone gives the double it gives among the others (Polars'
    blocked ``sum`` gave dcg 34.47935712924701 alone, ...006 in this table)."""
    engine = faces.get(face)
    values = default_values(name)
    for seed in (1, 2):
        table = big_table(seed)
        together = per_query(engine, METRICS[name], table, values)
        for qid in together:
            alone = per_query(engine, METRICS[name], table.filter(pl.col("qid") == qid), values)
            assert alone[qid] == together[qid], (name, qid, alone[qid], together[qid])


@settings(max_examples=20, deadline=None)
@given(judged=judged_tables(), data=st.data())
def test_generated_queries_alone_and_together(judged: pl.DataFrame, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(EXACT))
    values = data.draw(metric_params(METRICS[name]))
    engine = faces.get("polars")
    together = per_query(engine, METRICS[name], judged, values)
    for qid in together:
        alone = per_query(engine, METRICS[name], judged.filter(pl.col("qid") == qid), values)
        assert alone[qid] == together[qid], (name, values, qid)


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


def test_the_bpref_example_on_the_command_line(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = write_example(tmp_path)
    outputs = [cli(["eval", "-q", "-m", "bpref", "--engine", engine, str(qrels), str(run)],
                   capsys) for engine in ("polars", "duckdb")]
    assert outputs[0] == outputs[1]
    assert "bpref                 \t1\t0.3437\n" in outputs[0]
    if TREC_EVAL.exists():
        reference = subprocess.run([str(TREC_EVAL), "-q", "-m", "bpref", str(qrels), str(run)],
                                   capture_output=True, text=True, check=True).stdout
        assert outputs[0] == reference


MEASURE_SETS = [[], ["-m", "all_trec"], ["-m", "ndcg_cut.3,7", "-m", "map_cut.4", "-m", "bpref"]]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=trec_cases(), measures=st.sampled_from(MEASURE_SETS), complete=st.booleans())
def test_both_engines_print_the_same_bytes(case: TrecCase, measures: list[str], complete: bool,
                                           tmp_path_factory: pytest.TempPathFactory,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = case.write(tmp_path_factory.mktemp("exact"))
    args = ["eval", "-q", *(["-c"] * complete), *measures]
    polars_out, duckdb_out = (cli([*args, "--engine", engine, str(qrels), str(run)], capsys)
                              for engine in ("polars", "duckdb"))
    assert polars_out == duckdb_out


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


@pytest.mark.skipif(not TREC_EVAL.exists(),
                    reason=f"no trec_eval 10 binary at {TREC_EVAL} (build it from "
                           "shared/reference/trec_eval with make)")
@pytest.mark.parametrize("seed", range(8))
def test_default_measures_are_trec_evals_bytes(seed: int, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = random_case(random.Random(seed), tmp_path)
    for flags in (["-q"], ["-q", "-c"]):
        reference = subprocess.run([str(TREC_EVAL), *flags, str(qrels), str(run)],
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

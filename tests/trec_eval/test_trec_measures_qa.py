"""trec_eval 10's contingency and gain measures (utility, binG, G, relative_P,
set_relative_P, set_map, num_nonrel_judged_ret, unj) against the trec_eval 10 binary:
``rankframe eval`` prints exactly its lines, on both engines, on trec_eval's own test files
and on generated runs and qrels (ties, digit-only docids, negative grades, queries on one
side only). The binary is built once by :mod:`tests.support.trec_eval`."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankframe import trec_eval as te
from rankframe.cli import main
from rankframe.errors import MeasureError
from tests.support import trec_eval as te_binary
from tests.support.faces import examples
from tests.support.trec_data import TrecCase, trec_cases

needs_binary = pytest.mark.usefixtures("trec_eval_bin")

MEASURES = ["-m", "utility", "-m", "utility.2,-1,-0.5,0.25", "-m", "binG", "-m", "G",
            "-m", "G.1=3,2=7,0=1", "-m", "relative_P", "-m", "set_relative_P", "-m", "set_map",
            "-m", "num_nonrel_judged_ret", "-m", "unj.1,3,5,10,20,1000"]
OPTIONS = [["-q", "-c"], ["-q", "-c", "-l", "2"], ["-q", "-M", "30"], ["-c", "-l", "2", "-M", "5"]]


def trec_eval(args: list[str]) -> str | None:
    """trec_eval's output; None when it refuses the files (trec_eval 10 exits with "result
    qid not found" for a qrels query without results unless -c is given)."""
    done = te_binary.run(list(args), check=False)
    return done.stdout if done.returncode == 0 else None


def rankframe_eval(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    status = main(["eval", *args])
    out = capsys.readouterr().out
    assert status == 0, out
    return out


@pytest.mark.parametrize("options", OPTIONS, ids=" ".join)
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_trec_eval_test_files(options: list[str], engine: str, trec_eval_tests: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(trec_eval_tests / "qrels.test"), str(trec_eval_tests / "results.test")]
    expected = trec_eval([*options, *MEASURES, *files])
    assert expected is not None and expected.count("\n") > 20
    assert rankframe_eval(["--engine", engine, *options, *MEASURES, *files], capsys) == expected


@needs_binary
@settings(max_examples=examples(share=0.5), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=trec_cases(), on_duckdb=st.sampled_from(OPTIONS))
def test_generated_runs_and_qrels(case: TrecCase, on_duckdb: list[str],
                                  tmp_path_factory: pytest.TempPathFactory,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Every option set on Polars, one drawn on DuckDB (binding its macros costs most of an
    evaluation; the two engines' bytes are held equal in test_trec_eval10.py)."""
    qrels, run = case.write(tmp_path_factory.mktemp("case"))
    for options in OPTIONS:
        expected = trec_eval([*options, *MEASURES, str(qrels), str(run)])
        if expected is None:  # only where trec_eval 10 refuses: a qrels query without results
            assert "-c" not in options and set(case.qrels) - set(case.run), options
            continue
        for engine in ("polars", "duckdb") if options == on_duckdb else ("polars",):
            got = rankframe_eval(["--engine", engine, *options, *MEASURES, str(qrels), str(run)],
                                 capsys)
            assert got == expected, f"{engine} {' '.join(options)}"


def test_parameter_forms() -> None:
    """utility's four weights and G's grade=gain pairs are printed as written and become
    measure strings; the first -m with parameters wins; malformed ones are refused."""
    chosen = te.select(["G.1=3.5,2=9", "utility.2,-1,0,0", "G.1=1", "unj"])
    assert [n for m, p in chosen for n in m.names(p)] == [
        "utility_2,-1,0,0", "G_1=3.5,2=9", "unj_5", "unj_10", "unj_20"]
    assert te.measure_strings(chosen)["G_1=3.5,2=9"] == "g(gains=1:3.5;2:9.0)"
    assert te.measure_strings(chosen)["utility_2,-1,0,0"] == (
        "utility(a=2.0, b=-1.0, c=0.0, d=0.0, num_docs=0, empty=placeholder)")
    for bad, says in [("utility.2,-1", "exactly 4 numbers"), ("utility.a,b,c,d", "a number"),
                      ("G.x=3", "a grade must be an integer"), ("G.-1=2", "a grade must be"),
                      ("G.1=3,1=4", "given twice")]:
        with pytest.raises(MeasureError, match=says):
            te.select([bad])

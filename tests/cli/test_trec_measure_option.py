"""``-m`` with a name that is no measure gets the same short "did you mean" on every
subcommand (``eval``, ``compare``, ``sql``), before any file is read."""

from __future__ import annotations

import pytest

from rankframe.cli import main
from tests.support import REPO

DATA = REPO / "examples" / "data"
FILES = [str(DATA / "qrels.txt"), str(DATA / "run.bm25.txt"), str(DATA / "run.dense.txt")]
COMMANDS = {
    "eval": ["eval", "-m", "{}", *FILES[:2]],
    "compare": ["compare", "-m", "ndcg@10", "-m", "{}", *FILES],
    "sql": ["sql", "--dialect", "duckdb", "-m", "ndcg@10", "-m", "{}"],
}


def error_of(command: str, spec: str, capsys: pytest.CaptureFixture[str]) -> str:
    status = main([spec if arg == "{}" else arg for arg in COMMANDS[command]])
    captured = capsys.readouterr()
    assert status == 1 and captured.out == ""
    return captured.err


@pytest.mark.parametrize(("spec", "guess"), [
    ("ndgc@10", "ndcg@10"), ("ndcg_cutt.10", "ndcg_cut.10"), ("mapp", "map"),
    ("recip_rnak", "recip_rank"), ("p.5", "P.5"), ("ndcg_cut_10@3", "ndcg@3"),
])
@pytest.mark.parametrize("command", ["compare", "sql"])
def test_an_unknown_measure_gets_the_eval_message(command: str, spec: str, guess: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    err = error_of(command, spec, capsys)
    assert err == error_of("eval", spec, capsys)
    assert err.count("\n") == 1 and err.startswith(f"rankframe: error: -m {spec}: unknown ")
    suggested = err.partition("did you mean ")[2].partition("?")[0].split(", ")
    assert guess in suggested and len(suggested) <= 4, err
    assert len(err) < 400, err


@pytest.mark.parametrize("command", ["compare", "sql"])
def test_a_known_measure_with_a_wrong_cutoff_names_the_cutoff(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = error_of(command, "ndcg@x", capsys)
    assert err == ("rankframe: error: -m ndcg@x: measure 'ndcg@x': expected a positive "
                   "integer cutoff after '@', got 'x'\n")


def test_compare_checks_the_measures_before_reading_a_file(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "-m", "mapp", "missing-qrels", "missing-a", "missing-b"]) == 1
    err = capsys.readouterr().err
    assert "did you mean map" in err and "missing" not in err

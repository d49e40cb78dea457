"""``rankframe eval QRELS RUN1 RUN2 ...``: several runs (or a glob) against qrels read once.

The trec output is each run's single-run output, in the order given (what a shell loop
over trec_eval prints; checked against the trec_eval binary when it is there); csv, json
and parquet give one tidy table (run, qid, measure, value) holding the same numbers.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest

from rankframe.cli import main
from tests.support import REPO

DATA = REPO / "examples" / "data"
QRELS = str(DATA / "qrels.txt")
RUNS = [str(DATA / f"run.{name}.txt") for name in ("bm25", "dense", "hybrid")]
MEASURES = ["-m", "runid", "-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "num_q"]


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("per_query", [False, True])
def test_several_runs_print_what_one_call_per_run_prints(
        per_query: bool, capsys: pytest.CaptureFixture[str]) -> None:
    flags = [*MEASURES, *(["-q"] if per_query else [])]
    singles = []
    for path in [RUNS[2], RUNS[0], RUNS[1]]:
        status, out, _ = run_cli(["eval", *flags, QRELS, path], capsys)
        assert status == 0
        singles.append(out)
    status, out, _ = run_cli(["eval", *flags, QRELS, RUNS[2], RUNS[0], RUNS[1]], capsys)
    assert status == 0 and out == "".join(singles)
    assert [line.split("\t")[2] for line in out.splitlines() if line.startswith("runid")] == [
        "hybrid", "bm25", "dense"]


@pytest.mark.parametrize("threads", ["1", "3"])
def test_a_glob_pattern_is_the_sorted_files_it_matches(
        threads: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, expected, _ = run_cli(["eval", *MEASURES, QRELS, *sorted(RUNS)], capsys)
    status, out, _ = run_cli(["eval", *MEASURES, "--threads", threads, QRELS,
                              str(DATA / "run.*.txt")], capsys)
    assert status == 0 and out == expected
    status, _, err = run_cli(["eval", QRELS, str(DATA / "nothing.*.txt")], capsys)
    assert status == 1 and "nothing.*.txt: no run file matches" in err


def test_several_runs_equal_a_shell_loop_over_trec_eval(
        tmp_path: Path, trec_eval_bin: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # trec_eval 10 stops at a query in the qrels or the run alone: keep the shared ones
    texts = {path: Path(path).read_text().splitlines(keepends=True) for path in [QRELS, *RUNS]}
    shared = set.intersection(*({line.split()[0] for line in t} for t in texts.values()))
    kept = {path: str(tmp_path / Path(path).name) for path in texts}
    for path, text in texts.items():
        Path(kept[path]).write_text("".join(line for line in text if line.split()[0] in shared))
    qrels, runs = kept[QRELS], [kept[path] for path in RUNS]
    loop = b"".join(subprocess.run([trec_eval_bin, "-q", *MEASURES, qrels, path],
                                   capture_output=True, check=True).stdout for path in runs)
    status, out, _ = run_cli(["eval", "-q", *MEASURES, qrels, *runs], capsys)
    assert status == 0 and out.encode() == loop


def _lines(out: str) -> list[tuple[str, str, float]]:
    """(measure, qid, value) of trec_eval lines, runid left out."""
    rows = [line.split("\t") for line in out.splitlines()]
    return [(name.strip(), qid, float(value)) for name, qid, value in rows
            if name.strip() != "runid"]


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_tidy_table_holds_every_runs_numbers(fmt: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    expected = []
    for path in RUNS:
        _, out, _ = run_cli(["eval", "-q", *MEASURES, QRELS, path], capsys)
        # the summary rows have no qid (no query is named "all" here)
        expected += [(path, None if qid == "all" else qid, name, value)
                     for name, qid, value in _lines(out)]
    target = tmp_path / f"table.{fmt}"
    status, out, _ = run_cli(["eval", "-q", *MEASURES, "--format", fmt, "--output", str(target),
                              QRELS, *RUNS], capsys)
    assert status == 0 and out == ""
    if fmt == "csv":
        table = pl.read_csv(target, schema_overrides={"qid": pl.String})
    elif fmt == "json":
        table = pl.DataFrame(json.loads(target.read_text()))
    else:
        table = pl.read_parquet(target)
    assert table.columns == ["run", "qid", "measure", "value"]
    got = [(run, qid, measure, round(value, 4)) for run, qid, measure, value in table.rows()]
    assert got == [(run, qid, name, round(value, 4)) for run, qid, name, value in expected]


def test_parquet_of_one_run_goes_to_stdout_when_redirected(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    sink = io.BytesIO()

    class Stdout(io.StringIO):
        buffer = sink

        def isatty(self) -> bool:
            return False

    monkeypatch.setattr("sys.stdout", Stdout())
    assert main(["eval", "-m", "map", "--format", "parquet", QRELS, RUNS[0]]) == 0
    table = pl.read_parquet(io.BytesIO(sink.getvalue()))
    assert table.rows() == [(RUNS[0], None, "map", pytest.approx(table["value"][0]))]
    assert table.columns == ["run", "qid", "measure", "value"]


def test_bad_input_in_one_run_names_that_file_and_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.txt"
    shutil.copy(RUNS[0], good)
    bad = tmp_path / "bad.txt"
    lines = Path(RUNS[1]).read_text().splitlines(keepends=True)
    lines[6] = "301 Q0 DOC-99999 7 high dense\n"
    bad.write_text("".join(lines))
    status, _, err = run_cli(["eval", QRELS, str(good), str(bad), str(good)], capsys)
    assert status == 1
    assert err.splitlines()[-1] == (
        f"rankframe: error: {bad}, line 7: score 'high' is not a finite number")
    status, _, err = run_cli(["eval", "--threads", "0", QRELS, str(good)], capsys)
    assert status == 1 and "--threads" in err


def test_each_runs_note_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    extra = tmp_path / "extra.txt"
    extra.write_text(Path(RUNS[0]).read_text() + "999 Q0 DOC-1 1 1.0 bm25\n")
    status, _, err = run_cli(["eval", "-m", "map", QRELS, RUNS[1], str(extra)], capsys)
    assert status == 0
    assert err == (
        f"rankframe: run {RUNS[1]}: 1 run query has no qrels and was not evaluated\n"
        f"rankframe: run {extra}: 2 run queries have no qrels and were not evaluated\n")

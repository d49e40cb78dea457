"""What ``rankframe eval`` writes (issues 28 and 29): one tidy table in every format for any
number of runs, CSV quoted properly, a query named ``all`` kept apart from the summary,
UTF-8 whatever the locale, and ``--output`` files written whole or not at all, never over
an input, one whole file from concurrent writers.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from rankframe.cli import main
from tests.support import REPO

DATA = REPO / "examples" / "data"
QRELS = DATA / "qrels.txt"
RUNS = [DATA / "run.bm25.txt", DATA / "run.dense.txt"]


def run_cli(args: list[str | Path], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def rankframe(*args: str | Path, env: dict[str, str] | None = None
              ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "rankframe", *map(str, args)],
                          capture_output=True, cwd=REPO, timeout=300, check=False,
                          env={**os.environ, **(env or {})})


def trec_rows(out: str, run: str) -> list[tuple[str, str | None, str, float]]:
    """The trec lines' numbers as tidy rows (the example data has no query named all)."""
    rows = []
    for line in out.splitlines():
        name, qid, value = (field.strip() for field in line.split("\t"))
        if name != "runid":
            rows.append((run, None if qid == "all" else qid, name, float(value)))
    return rows


def read_table(data: bytes, fmt: str) -> pl.DataFrame:
    if fmt == "csv":
        return pl.read_csv(io.BytesIO(data), schema_overrides={"qid": pl.String})
    if fmt == "json":
        return pl.DataFrame(json.loads(data), schema={"run": pl.String, "qid": pl.String,
                                                      "measure": pl.String, "value": pl.Float64})
    return pl.read_parquet(io.BytesIO(data))


# --- one tidy schema ---------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
@pytest.mark.parametrize("runs", [1, 2])
def test_one_tidy_schema_in_every_format_for_any_number_of_runs(
        fmt: str, runs: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    measures = ["-q", "-m", "runid", "-m", "num_q", "-m", "map", "-m", "P.5"]
    expected = []
    for path in RUNS[:runs]:
        _, out, _ = run_cli(["eval", *measures, QRELS, path], capsys)
        expected += trec_rows(out, str(path))
    target = tmp_path / f"out.{fmt}"
    status, _, _ = run_cli(["eval", *measures, "--format", fmt, "--output", target, QRELS,
                            *RUNS[:runs]], capsys)
    assert status == 0
    table = read_table(target.read_bytes(), fmt)
    assert table.columns == ["run", "qid", "measure", "value"]
    assert [(r, q, m, round(v, 4)) for r, q, m, v in table.rows()] == expected


# --- csv ---------------------------------------------------------------------------------

ODD_IDS = ['1,5', '"q2', 'q"3"', '=HYPERLINK("http://x.example","y")', "-2+3", "@SUM(A1)"]


def test_csv_quotes_what_needs_it_and_keeps_the_data_exact(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "a,b.txt"  # a run name with a comma too
    qrels.write_text("".join(f"{q} 0 d{i} 1\n" for i, q in enumerate(ODD_IDS)))
    run.write_text("".join(f"{q} Q0 d{i} 1 1.0 t\n" for i, q in enumerate(ODD_IDS)))
    status, out, err = run_cli(["eval", "-q", "-m", "P.1", "--format", "csv", qrels, run],
                               capsys)
    assert status == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["run", "qid", "measure", "value"]
    assert all(len(row) == 4 for row in rows)
    assert {row[1] for row in rows[1:]} == {*ODD_IDS, ""}  # "": the summary row
    assert {row[0] for row in rows[1:]} == {str(run)}
    assert all(row[2:] == ["P_1", "1.0"] for row in rows[1:])
    # kept exactly, with one warning that a spreadsheet would run such ids as formulas
    assert err.count("warning") == 1 and "spreadsheet formula" in err


# --- a query named "all" -----------------------------------------------------------------


def all_case(folder: Path) -> tuple[Path, Path]:
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    qrels.write_text("all 0 a 1\nall 0 b 0\nq2 0 d 1\n")
    run.write_text("all Q0 a 1 3 t\nall Q0 b 2 2 t\nq2 Q0 x 1 5 t\nq2 Q0 d 2 4 t\n")
    return qrels, run


def test_a_query_named_all_stays_apart_from_the_summary(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = all_case(tmp_path)
    status, out, _ = run_cli(["eval", "-q", "-m", "map", "--format", "json", qrels, run], capsys)
    assert status == 0
    assert json.loads(out) == [
        {"run": str(run), "qid": "all", "measure": "map", "value": 1.0},
        {"run": str(run), "qid": "q2", "measure": "map", "value": 0.5},
        {"run": str(run), "qid": None, "measure": "map", "value": 0.75}]
    target = tmp_path / "two.csv"
    status, _, _ = run_cli(["eval", "-q", "-m", "map", "--format", "csv", "--output", target,
                            qrels, run, run], capsys)
    assert status == 0
    assert target.read_text().splitlines()[1:4] == [
        f"{run},all,map,1.0", f"{run},q2,map,0.5", f"{run},,map,0.75"]
    # the trec format prints both as "all", as trec_eval 10 does (per-query lines first)
    status, out, _ = run_cli(["eval", "-q", "-m", "map", qrels, run], capsys)
    assert out == ("map                   \tall\t1.0000\nmap                   \tq2\t0.5000\n"
                   "map                   \tall\t0.7500\n")


def test_a_query_named_all_as_trec_eval_prints_it(tmp_path: Path, trec_eval_bin: Path) -> None:
    binary = trec_eval_bin
    qrels, run = all_case(tmp_path)
    args = ["-q", "-m", "map", "-m", "num_q", "-m", "P.1", str(qrels), str(run)]
    expected = subprocess.run([binary, *args], capture_output=True, check=True).stdout
    assert rankframe("eval", *args).stdout == expected


# --- encodings ---------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
@pytest.mark.parametrize("fmt", ["trec", "csv"])
def test_non_ascii_ids_are_written_as_utf8_whatever_the_locale(
        encoding: str, fmt: str, tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("qü 0 a 1\nq2 0 d 1\n", encoding="utf-8")
    run.write_text("qü Q0 a 1 3 tü\nq2 Q0 d 1 4 tü\n", encoding="utf-8")
    args = ["eval", "-q", "-m", "runid", "-m", "P.1", "--format", fmt, qrels, run]
    expected = rankframe(*args, env={"PYTHONIOENCODING": "utf-8"}).stdout
    assert "qü".encode() in expected
    done = rankframe(*args, env={"PYTHONIOENCODING": encoding})
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
    assert done.stdout == expected


# --- --output: whole or not at all -------------------------------------------------------


def test_a_failing_run_leaves_the_previous_output_and_no_temporary_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("301 Q0 doc 1 high tag\n")
    for fmt in ("trec", "csv", "parquet"):
        target = tmp_path / f"results.{fmt}"
        target.write_bytes(b"the previous good file\n")
        before = sorted(os.listdir(tmp_path))
        status, _, err = run_cli(["eval", "--format", fmt, "--output", target, QRELS, RUNS[0],
                                  bad], capsys)
        assert status == 1 and "bad.txt, line 1" in err
        assert target.read_bytes() == b"the previous good file\n"
        assert sorted(os.listdir(tmp_path)) == before


def test_the_output_keeps_its_permissions(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "results.txt"
    target.write_text("old\n")
    target.chmod(0o640)
    assert run_cli(["eval", "-m", "map", "--output", target, QRELS, RUNS[0]], capsys)[0] == 0
    assert target.read_text().startswith("map") and (target.stat().st_mode & 0o777) == 0o640


def test_an_output_that_is_an_input_is_refused(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    run = runs / "a.txt"
    run.write_bytes(RUNS[0].read_bytes())
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(QRELS.read_bytes())
    (tmp_path / "link.txt").symlink_to(run)
    os.link(run, tmp_path / "hard.txt")
    cases = [
        (run, [run]),  # the same path
        (runs / ".." / "runs" / "a.txt", [run]),  # another path to it
        (tmp_path / "link.txt", [run]),  # a symbolic link
        (tmp_path / "hard.txt", [run]),  # a hard link
        (run, [runs / "*.txt"]),  # a glob that matches it
        (qrels, [run]),  # the qrels
    ]
    for output, given in cases:
        status, out, err = run_cli(["eval", "--format", "csv", "--output", output, qrels,
                                    *given], capsys)
        assert status == 1 and out == "" and err.count("\n") == 1, (output, err)
        assert err.startswith(f"rankframe: error: --output {output} is the ")
        assert run.read_bytes() == RUNS[0].read_bytes() and qrels.read_bytes() == QRELS.read_bytes()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_concurrent_writers_leave_one_whole_file(fmt: str, tmp_path: Path) -> None:
    """B starts first, evaluates one run and waits for its second (a named pipe); A writes
    the same --output whole meanwhile; then B finishes: the file is B's, whole (the last
    rename wins), never B's bytes over A's longer file."""
    target, fifo, copy = tmp_path / f"out.{fmt}", tmp_path / "run.fifo", tmp_path / "copy.run"
    os.mkfifo(fifo)
    copy.write_bytes(RUNS[1].read_bytes())
    short = ["eval", "-m", "map", "--engine", "polars", "--format", fmt]
    alone = tmp_path / f"alone.{fmt}"
    assert rankframe(*short, "--output", alone, QRELS, RUNS[1], copy).returncode == 0
    b = subprocess.Popen([sys.executable, "-m", "rankframe", *short, "--output", str(target),
                          str(QRELS), str(RUNS[1]), str(fifo)], cwd=REPO,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with open(fifo, "wb") as feed:  # opens once B reads the pipe
            a = rankframe("eval", "-q", "-m", "all_trec", "--format", fmt, "--output", target,
                          QRELS, RUNS[0])
            assert a.returncode == 0, a.stderr
            assert len(target.read_bytes()) > 4 * len(alone.read_bytes())
            feed.write(RUNS[1].read_bytes())
        _, err = b.communicate(timeout=300)
    finally:
        b.kill()
    assert b.returncode == 0, err
    if fmt == "csv":
        assert target.read_text() == alone.read_text().replace(str(copy), str(fifo))
    else:
        assert pl.read_parquet(target).drop("run").equals(pl.read_parquet(alone).drop("run"))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [target.name, fifo.name, alone.name, copy.name])

"""The examples run, and the Polars script, the SQL file and the CLI print the same numbers."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import polars as pl
import pytest

import rankframe.duckdb
from rankframe.cli import main
from tests.support import REPO, SQL_DIR, needs

EXAMPLES = REPO / "examples"


def load(name: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_polars_script_sql_file_and_cli_agree(capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    polars_summary = load("evaluate_polars").main()
    monkeypatch.chdir(REPO)
    con = rankframe.duckdb.register(duckdb.connect(), sql_dir=SQL_DIR)
    sql_row = con.execute((EXAMPLES / "evaluate.sql").read_text()).fetchall()[0]
    assert sql_row[0] == 40
    polars_row = [round(v, 4) for v in polars_summary.row(0)]
    assert list(sql_row[1:]) == polars_row
    capsys.readouterr()
    assert main(["eval", "-c", "-m", "ndcg_cut.10", "-m", "map", "-m", "recip_rank", "-m", "P.10",
                 "-m", "recall.100", str(EXAMPLES / "data/qrels.txt"),
                 str(EXAMPLES / "data/run.bm25.txt")]) == 0
    cli = {line.split("\t")[0].strip(): float(line.split("\t")[2])
           for line in capsys.readouterr().out.splitlines()}
    assert [cli[n] for n in ("ndcg_cut_10", "map", "recip_rank", "P_10", "recall_100")] == \
        polars_row


def test_example_data_is_what_make_data_writes(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    module = load("make_data")
    monkeypatch.setattr(module, "DATA", tmp_path)
    module.main()
    for path in tmp_path.iterdir():
        assert path.read_bytes() == (EXAMPLES / "data" / path.name).read_bytes(), path.name


def test_compare_notebook_runs_headless(tmp_path: Path) -> None:
    needs.require("matplotlib")
    needs.require("scipy")
    env = {**os.environ, "MPLBACKEND": "Agg", "RANKFRAME_PLOT_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, str(EXAMPLES / "compare_systems.py")], env=env,
                          capture_output=True, text=True, timeout=600, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert "ndcg" in done.stdout.lower()
    assert {p.name for p in tmp_path.iterdir()} == {
        "difference.png", "ndcg_at_k.png", "precision_recall.png"}


@pytest.mark.face("spark")
def test_spark_example_runs() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLES / "spark_eval.py")],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]


def test_frames_are_polars() -> None:
    assert isinstance(load("evaluate_polars").main(), pl.DataFrame)

"""One ``rankframe: error:`` line, naming the command line's own options, instead of a
traceback or the API's wording (issue 29): ``rankframe compare``'s options, running out of
memory (or of threads, or a Polars panic), and ``rankframe sql --dialect pyspark``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rankframe.cli import main
from rankframe.errors import RankframeError
from tests.support import REPO, needs

DATA = REPO / "examples" / "data"
QRELS, BM25, DENSE = (str(DATA / name) for name in ("qrels.txt", "run.bm25.txt",
                                                     "run.dense.txt"))


def error_line(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one error line ``rankframe args`` ends with (exit status 1)."""
    status = main(args)
    err = [line for line in capsys.readouterr().err.splitlines()
           if "no qrels and was not evaluated" not in line]
    assert status == 1 and len(err) == 1, err
    assert err[0].startswith("rankframe: error: ")
    return err[0]


# --- rankframe compare -------------------------------------------------------------------


@pytest.mark.parametrize(("option", "named"), [
    (["--seed", "-1"], "--seed must be a whole number >= 0"),
    (["--seed", "x"], "--seed must be a whole number >= 0"),
    (["--resamples", "1e11"], "--resamples must be a whole number from 1 to 100,000,000"),
    (["--resamples", "100000000000"], "--resamples must be a whole number from 1"),
    (["--resamples", "0"], "--resamples must be a whole number from 1"),
    (["--alpha", "2"], "--alpha must be a number in (0, 1)"),
    (["--alpha", "x"], "--alpha must be a number in (0, 1)"),
    (["--baseline", "nope"], "--baseline nope: not a run; give a run's name (bm25, dense)"),
])
def test_compare_options_out_of_bounds_are_one_line(option: list[str], named: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert named in error_line(["compare", *option, QRELS, BM25, DENSE], capsys)


def test_compare_resamples_in_scientific_notation(capsys: pytest.CaptureFixture[str]) -> None:
    needs.require("scipy")
    assert main(["compare", "--resamples", "1e3", "--test", "bootstrap", QRELS, BM25,
                 DENSE]) == 0
    assert "Paired bootstrap test" in capsys.readouterr().out


def test_compare_names_its_missing_option(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    needs.require("scipy")
    part = tmp_path / "part.txt"
    part.write_text("".join(Path(DENSE).read_text().splitlines(keepends=True)[:500]))
    line = error_line(["compare", QRELS, BM25, str(part)], capsys)
    assert "lacks" in line and "missing=" not in line
    assert line.endswith("Use --missing intersect to drop them, or --missing zero to score "
                         "them 0")
    assert main(["compare", "--missing", "intersect", QRELS, BM25, str(part)]) == 0


# --- running out of memory, threads ------------------------------------------------------


def _raising(error: BaseException):  # type: ignore[no-untyped-def]
    def prepare(*args: object, **kwargs: object) -> None:
        raise error
    return prepare


def test_out_of_memory_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    from rankframe.cli import eval_frames

    monkeypatch.setattr(eval_frames, "prepare", _raising(MemoryError()))
    line = error_line(["eval", "--engine", "polars", QRELS, BM25], capsys)
    assert line.startswith("rankframe: error: out of memory")


def test_a_polars_panic_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    from polars.exceptions import PanicException

    from rankframe.cli import eval_frames

    panic = PanicException("could not spawn threads: ThreadPoolBuildError\nmore detail")
    monkeypatch.setattr(eval_frames, "prepare", _raising(panic))
    line = error_line(["eval", "--engine", "polars", QRELS, BM25], capsys)
    assert line == "rankframe: error: Polars stopped: could not spawn threads: ThreadPoolBuildError"


def test_no_thread_to_start_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    from rankframe.cli import eval_frames

    monkeypatch.setattr(eval_frames, "prepare", _raising(RuntimeError("can't start new thread")))
    line = error_line(["eval", "--engine", "polars", QRELS, BM25], capsys)
    assert "cannot start a thread" in line
    monkeypatch.setattr(eval_frames, "prepare", _raising(RuntimeError("a bug")))
    with pytest.raises(RuntimeError, match="a bug"):  # other errors are not disguised
        main(["eval", "--engine", "polars", QRELS, BM25])


# --- rankframe sql --dialect ------------------------------------------------------------


@needs.mark("ibis")
def test_sql_dialect_pyspark_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    line = error_line(["sql", "--dialect", "pyspark", "-m", "map"], capsys)
    assert line.startswith("rankframe: error: sql --dialect pyspark: ")
    assert "databricks" in line and "postgres" in line
    line = error_line(["sql", "--dialect", "nosuch", "-m", "map"], capsys)
    assert "unknown SQL dialect 'nosuch'; dialects: " in line


@needs.mark("ibis")
def test_to_sql_names_the_dialects() -> None:
    import rankframe.ibis as rfi

    with pytest.raises(RankframeError, match=r"to_sql: .*'pyspark'.*dialects: .*postgres"):
        rfi.to_sql(["map"], dialect="pyspark")
    with pytest.raises(RankframeError, match="unknown SQL dialect 'spark'"):
        rfi.to_sql(["map"], dialect="spark")
    assert rfi.to_sql(["map"], dialect="Postgres") == rfi.to_sql(["map"], dialect="postgres")


def test_compare_writes_utf8_whatever_the_locale(tmp_path: Path) -> None:
    """A run tag outside ASCII, on a stdout whose locale is ASCII: written as read."""
    import os
    import subprocess
    import sys

    needs.require("scipy")
    run = tmp_path / "run.txt"
    run.write_text(Path(BM25).read_text().replace(" bm25\n", " bm25ü\n"), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "rankframe", "compare", QRELS, str(run), DENSE],
                          capture_output=True, cwd=REPO, timeout=300, check=False,
                          env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
    assert "(a)  bm25ü".encode() in done.stdout

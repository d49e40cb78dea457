"""Ctrl-C and SIGTERM end ``rankframe eval`` at once, whatever the engine is busy with
(issue 29): exit status 130 (SIGINT) or 143 (SIGTERM), no traceback, and an ``--output``
file left as it was, with no temporary file beside it.

A run that never arrives stands for a run in progress that cannot be interrupted (a DuckDB
query runs on until it ends): the second run is a named pipe that the test opens but never
writes, so the thread reading it stays blocked. Waiting for that thread would never end;
the test gives the command a generous bound to exit.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import REPO

DATA = REPO / "examples" / "data"

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")


def _writer_end(fifo: Path, process: subprocess.Popen[bytes]) -> int:
    """The pipe's write end, opened once the command reads the pipe (so its signal handling
    and evaluation have started)."""
    deadline = time.monotonic() + 120
    while True:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # no reader yet
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the command never read the pipe: "
                                     f"{process.communicate()[1].decode()}") from None
            time.sleep(0.05)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupt_ends_a_multi_run_eval_at_once(engine: str, signum: int, status: int,
                                                    tmp_path: Path) -> None:
    fifo, target = tmp_path / "slow.run", tmp_path / "results.csv"
    os.mkfifo(fifo)
    target.write_text("the previous good file\n")
    argv = [sys.executable, "-m", "rankframe", "eval", "--engine", engine, "-m", "map",
            "--format", "csv", "--output", str(target), str(DATA / "qrels.txt"),
            str(DATA / "run.bm25.txt"), str(fifo)]
    process = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    writer = _writer_end(fifo, process)
    try:
        process.send_signal(signum)
        try:
            out, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            raise AssertionError("the command waited for the run in progress") from None
    finally:
        os.close(writer)
        process.kill()
    assert process.returncode == status, err
    assert out == b"" and b"Traceback" not in err, err
    assert target.read_text() == "the previous good file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.csv", "slow.run"]

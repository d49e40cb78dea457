"""Hostile input to the command line (issue 37): no file the user did not name as the output
is written (a file the shell opened for ``/dev/stdout``, the run read from standard input),
every legal output name is taken, every failing write and every interrupt (Ctrl-C while
the command is still loading) ends in one line or the interrupt's status, and running out
of memory, even where a native library aborts the process, is one ``rankframe: error:``
line with a non-zero status."""

from __future__ import annotations

import ast
import os
import resource
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rankframe.cli import main
from tests.support import REPO

DATA = REPO / "examples" / "data"
QRELS = DATA / "qrels.txt"
RUN = DATA / "run.bm25.txt"
MAP_LINE = "map                   \tall\t"


def rankframe(*args: str | Path, **popen: object) -> subprocess.CompletedProcess[bytes]:
    """``python -m rankframe`` with ``args``; ``popen``: subprocess.run's keywords."""
    options: dict[str, object] = {"capture_output": True, "cwd": REPO, "timeout": 300,
                                  "check": False} | popen
    return subprocess.run([sys.executable, "-m", "rankframe", *map(str, args)],
                          **options)  # type: ignore[call-overload, no-any-return]


def one_error_line(err: bytes) -> str:
    lines = err.decode().strip().splitlines()
    errors = [line for line in lines if not line.startswith("rankframe: warning:")
              and "run query has no qrels" not in line]
    assert len(errors) == 1 and errors[0].startswith("rankframe: error: "), err
    return errors[0]


# --- no file the user did not name is written ------------------------------------------


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux /proc")
@pytest.mark.parametrize("output", ["/dev/stdout", "/proc/self/fd/1", "/dev/fd/1"])
def test_output_naming_standard_output_appends_to_the_shells_file(output: str,
                                                                  tmp_path: Path) -> None:
    """``--output /dev/stdout >> log.txt``: /dev/stdout leads to log.txt, which the shell
    opened for appending; it is written through, never renamed over."""
    log = tmp_path / "log.txt"
    log.write_text("earlier lines\n")
    with open(log, "ab") as appended:
        done = rankframe("eval", "-m", "map", "--output", output, QRELS, RUN, stdout=appended,
                         stderr=subprocess.PIPE, capture_output=False)
    assert done.returncode == 0, done.stderr
    text = log.read_text()
    assert text.startswith("earlier lines\n" + MAP_LINE) and text.count("\n") == 2, text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.txt"]


@pytest.mark.skipif(not Path("/dev/fd").is_dir(), reason="needs /dev/fd")
@pytest.mark.parametrize("fmt", ["trec", "parquet"])
def test_output_naming_another_open_descriptor_writes_through_it(fmt: str,
                                                                 tmp_path: Path) -> None:
    log = tmp_path / "log.bin"
    log.write_bytes(b"kept\n")
    descriptor = os.open(log, os.O_WRONLY | os.O_APPEND)
    try:
        done = rankframe("eval", "-m", "map", "--format", fmt, "--output",
                         f"/dev/fd/{descriptor}", QRELS, RUN, pass_fds=(descriptor,))
    finally:
        os.close(descriptor)
    assert done.returncode == 0, done.stderr
    data = log.read_bytes()
    assert data.startswith(b"kept\n") and len(data) > len(b"kept\n") + 20
    if fmt == "parquet":
        assert data[len(b"kept\n"):].startswith(b"PAR1") and data.endswith(b"PAR1")


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux /proc")
def test_a_file_in_a_folder_named_through_a_descriptor_is_written_whole(tmp_path: Path) -> None:
    """/proc/self/fd/N/results.txt, N a folder's descriptor: a file named in that folder,
    replaced whole as any other (the descriptor's name is a folder's, not the output's)."""
    (tmp_path / "results.txt").write_text("old\n")
    folder = os.open(tmp_path, os.O_RDONLY)
    try:
        done = rankframe("eval", "-m", "map", "--output", f"/proc/self/fd/{folder}/results.txt",
                         QRELS, RUN, pass_fds=(folder,))
    finally:
        os.close(folder)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "results.txt").read_text().startswith(MAP_LINE)
    assert os.listdir(tmp_path) == ["results.txt"]


def test_output_that_is_the_run_read_from_standard_input_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    run.write_bytes(RUN.read_bytes())
    for output in (run, tmp_path / "." / "run.txt", "/dev/stdin"):
        if output == "/dev/stdin" and not Path("/dev/stdin").exists():
            continue
        with open(run, "rb") as given:
            done = rankframe("eval", "-m", "map", "--output", output, QRELS, "-", stdin=given)
        assert done.returncode == 1 and done.stdout == b""
        line = one_error_line(done.stderr)
        assert f"--output {output} is the run file read from standard input" in line
        assert run.read_bytes() == RUN.read_bytes()


def test_output_from_standard_input_to_another_file_is_written(tmp_path: Path) -> None:
    target = tmp_path / "results.txt"
    with open(RUN, "rb") as given:
        done = rankframe("eval", "-m", "map", "--output", target, QRELS, "-", stdin=given)
    assert done.returncode == 0, done.stderr
    assert target.read_text().startswith(MAP_LINE)


@pytest.mark.parametrize("size", [241, 248, 255])
@pytest.mark.parametrize("letter", ["a", "é", "日"])
def test_output_with_a_long_legal_name(size: int, letter: str, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    if os.pathconf(tmp_path, "PC_NAME_MAX") < 255:
        pytest.skip("the temporary folder takes names shorter than 255 bytes")
    width = len(letter.encode())
    name = letter * (size // width) + "x" * (size % width)
    assert len(name.encode()) == size
    target = tmp_path / name
    target.write_text("old\n")
    assert main(["eval", "-m", "map", "--output", str(target), str(QRELS), str(RUN)]) == 0
    assert target.read_text().startswith(MAP_LINE)
    assert os.listdir(tmp_path) == [name]
    capsys.readouterr()


# --- a failing write, an interrupt: one line or the interrupt's status -------------------


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("fmt", ["trec", "csv", "json", "parquet"])
def test_a_full_disk_is_one_line_in_every_format(fmt: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["eval", "-m", "map", "--format", fmt, "--output", "/dev/full", str(QRELS),
                   str(RUN)])
    assert status == 1
    err = capsys.readouterr().err
    assert one_error_line(err.encode()).endswith("No space left on device")


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_closed_pipe_ends_quietly_in_every_format(fmt: str) -> None:
    process = subprocess.Popen([sys.executable, "-m", "rankframe", "eval", "-q", "-m", "map",
                                "--format", fmt, str(QRELS), str(RUN)], cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.close()  # the reader is gone before anything is written
    _, err = process.communicate(timeout=300)
    assert process.returncode == 141, err
    assert b"Traceback" not in err and b"error" not in err, err


#: Runs the command line, sending SIGINT to itself while a module of the command line's is
#: being imported (Ctrl-C in the first tenth of a second).
_INTERRUPTED_IMPORT = """
import os, signal, sys, runpy

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
sys.argv = ["rankframe", "eval", "-m", "map", {qrels!r}, {run!r}]
runpy.run_module("rankframe", run_name="__main__")
"""


@pytest.mark.parametrize("module", ["rankframe.cli.eval", "rankframe.trec_eval.measures",
                                    "rankframe.faces"])
def test_ctrl_c_while_the_command_loads_exits_130(module: str) -> None:
    code = _INTERRUPTED_IMPORT.format(module=module, qrels=str(QRELS), run=str(RUN))
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          timeout=300, check=False)
    assert done.returncode == 130, done.stderr
    assert done.stdout == b"" and b"Traceback" not in done.stderr, done.stderr


# --- out of memory: one line, even after a native abort -----------------------------------


#: A command that dies as Rust does when an allocation fails: its message and backtrace
#: written to the stderr descriptor, then SIGABRT; jemalloc's warning and a panic's report
#: before, and a warning and an error of the command's own (through sys.stderr).
_NATIVE_ABORT = """
import os, sys
from rankframe.cli import supervise

def work():
    print("rankframe: warning: a warning before", file=sys.stderr)
    os.write(2, b"<jemalloc>: background thread creation failed (11)\\n")
    os.write(2, b"\\nthread '<unnamed>' (7) panicked at runtime.rs:209:10:\\n"
                b"could not spawn threads\\n")
    print("rankframe: error: Polars stopped: could not spawn threads", file=sys.stderr)
    if sys.argv[1] == "abort":
        os.write(2, b"memory allocation of 8388608 bytes failed\\n"
                    b"stack backtrace:\\nnote: Some details are omitted\\n")
        os.abort()
    return int(sys.argv[1])

supervise.enable()
supervise.watched()
sys.exit(work())
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the command is supervised where it forks")
@pytest.mark.parametrize(("end", "status", "last"), [
    ("abort", 1, "rankframe: error: out of memory: an allocation of 8388608 bytes failed (a "
                 "memory limit, such as ulimit -v, or the machine's memory is exhausted)"),
    ("1", 1, None)])
def test_a_native_abort_after_a_failed_allocation_is_one_line(end: str, status: int,
                                                              last: str | None) -> None:
    done = subprocess.run([sys.executable, "-c", _NATIVE_ABORT, end], cwd=REPO,
                          capture_output=True, timeout=120, check=False)
    assert done.returncode == status
    assert done.stderr.decode().splitlines() == [
        "rankframe: warning: a warning before",
        "rankframe: error: Polars stopped: could not spawn threads",
        *([last] if last else [])]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the command is supervised where it forks")
def test_native_lines_of_a_command_that_succeeds_are_printed() -> None:
    done = subprocess.run([sys.executable, "-c", _NATIVE_ABORT, "0"], cwd=REPO,
                          capture_output=True, timeout=120, check=False)
    assert done.returncode == 0
    lines = done.stderr.decode().splitlines()
    assert lines[:2] == ["rankframe: warning: a warning before",
                         "rankframe: error: Polars stopped: could not spawn threads"]
    assert sorted(lines[2:]) == sorted([
        "<jemalloc>: background thread creation failed (11)", "",
        "thread '<unnamed>' (7) panicked at runtime.rs:209:10:", "could not spawn threads"])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the command is supervised where it forks")
@pytest.mark.parametrize(("signum", "status", "words"), [
    (signal.SIGKILL, 137, "killed (SIGKILL)"), (signal.SIGSEGV, 139, "stopped by SIGSEGV")])
def test_a_child_killed_by_a_signal_is_one_line(signum: int, status: int, words: str) -> None:
    code = ("import os\nfrom rankframe.cli import supervise\n"
            f"supervise.enable()\nsupervise.watched()\nos.kill(os.getpid(), {int(signum)})")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          timeout=120, check=False)
    assert done.returncode == status
    assert words in one_error_line(done.stderr)


#: Runs ``rankframe`` with its arguments under the address-space limit of the first.
_LIMITED = """
import os, resource, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
os.execv(sys.executable, [sys.executable, "-m", "rankframe", *sys.argv[2:]])
"""


@pytest.mark.skipif(not hasattr(resource, "RLIMIT_AS") or sys.platform != "linux",
                    reason="needs Linux address-space limits")
def test_under_an_address_space_limit_the_command_succeeds_or_says_so_in_one_line() -> None:
    """Below some address-space limit, Polars' threads, jemalloc's arenas or Rust's
    allocations fail, in different places for different limits (a Rust allocation failure
    aborts the process): whatever fails, the command either succeeds or prints one line."""
    outcomes = {}
    for mib in (400, 500, 600):
        # The limit is set by a fresh interpreter that then runs the command (a preexec_fn
        # in this process, whose Polars threads hold locks, may hang in the forked child).
        done = limited_run(mib)
        if done is None:
            outcomes[mib] = "hang"
            continue
        if done.returncode == 0:
            assert done.stdout.decode().startswith(MAP_LINE), done.stderr
            outcomes[mib] = "ok"
        else:
            assert done.returncode == 1 and done.stdout == b"", (mib, done.stderr)
            outcomes[mib] = one_error_line(done.stderr)
    assert outcomes  # each limit's outcome was checked above
    if "hang" in outcomes.values():
        # Polars' CSV reader can wait for ever when a thread of its runtime fails to start
        # under the limit (docs/getting-started/trec-eval.md): a known limitation of the
        # library, not a wrong answer; every other outcome was held to one line above.
        pytest.xfail(f"Polars' reader hung under an address-space limit: {outcomes}")


def limited_run(mib: int) -> subprocess.CompletedProcess[bytes] | None:
    """``rankframe eval`` under an address-space limit of ``mib`` MiB, or None if it did not
    end within 30 s (then its whole process group, the watched child too, is killed)."""
    process = subprocess.Popen([sys.executable, "-c", _LIMITED, str(mib << 20), "eval",
                                "--engine", "polars", "-m", "map", str(QRELS), str(RUN)],
                               cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return None
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def test_the_supervised_command_passes_its_status_and_streams_on() -> None:
    """Usage errors (2), errors (1) and success (0) come through the supervision as they
    were, each stream whole."""
    usage = rankframe("eval", "--no-such-option")
    assert usage.returncode == 2 and b"usage:" in usage.stderr
    missing = rankframe("eval", QRELS, "no-such-run.txt")
    assert missing.returncode == 1
    assert one_error_line(missing.stderr).endswith("run file not found: no-such-run.txt")
    done = rankframe("eval", "-m", "map", QRELS, RUN)
    assert done.returncode == 0 and done.stdout.decode().startswith(MAP_LINE)


def test_loading_the_command_line_takes_only_what_the_interpreter_has() -> None:
    """The installed ``rankframe`` script imports ``rankframe.cli.main`` before any code of
    ours can take a Ctrl-C: that import loads no subcommand and none of the standard
    library's slower modules (typing, enum through signal or re, contextlib), so that the
    moment in which Ctrl-C prints a traceback is as short as the interpreter allows."""
    code = textwrap.dedent("""
        import sys
        before = set(sys.modules)
        import rankframe.cli.main
        print(sorted(set(sys.modules) - before))
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=120, check=True)
    loaded = set(ast.literal_eval(done.stdout.strip()))
    assert {m for m in loaded if m.startswith("rankframe")} == {
        "rankframe", "rankframe.errors", "rankframe.cli", "rankframe.cli.main"}
    assert loaded & {"typing", "enum", "re", "signal", "contextlib", "argparse", "collections",
                     "polars", "threading"} == set()


def test_small_inputs_are_not_forked_for() -> None:
    """The pure-Python path loads no Polars, so it needs no watching: no child process."""
    code = textwrap.dedent(f"""
        import os, sys
        forks = []
        real = os.fork
        os.fork = lambda: forks.append(1) or real()
        from rankframe.cli.main import command
        sys.argv = ["rankframe", "eval", "-m", "map", {str(QRELS)!r}, {str(RUN)!r}]
        status = command()
        print(status, len(forks), file=sys.stderr)
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=120, check=True)
    assert done.stdout.startswith(MAP_LINE) and done.stderr.strip().endswith("0 0")

"""``rankframe eval`` keeps trec_eval 10's command-line habits (issue 28): ``-`` is standard
input, every nickname expands as trec_eval 10's, printed names keep the parameter as typed,
``--help`` speaks of trec_eval 10, an unknown measure gets a short did-you-mean, and
``rankframe`` alone prints a short usage.

Where trec_eval's output is the reference, the trec_eval 10 binary (the session fixture
``trec_eval_bin``) is run beside ``rankframe eval``; the rest states trec_eval 10's behaviour
(its measures.c nicknames, its printed names) directly.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

import pytest

from rankframe import trec_eval
from rankframe.cli import main
from tests.support import DATA, REPO

TREC_DATA = DATA / "trec_eval"
QRELS, RESULTS = TREC_DATA / "qrels.test", TREC_DATA / "results.test"


@pytest.fixture(scope="session")
def trec_eval_binary(trec_eval_bin: Path) -> Path:
    return trec_eval_bin


def rankframe(*args: str | Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "rankframe", *map(str, args)], input=stdin,
                          capture_output=True, cwd=REPO, timeout=300, check=False)


def in_process(*args: str | Path) -> subprocess.CompletedProcess[bytes]:
    """The command line run in this process (a Python start costs more than the run): exit
    status and the bytes written to stdout and stderr, as :func:`rankframe` gives them."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main([*map(str, args)])
        except SystemExit as exc:  # argparse's own exits
            status = exc.code if isinstance(exc.code, int) else 1
        out.flush()
        err.flush()
    stdout, stderr = out.buffer, err.buffer
    assert isinstance(stdout, io.BytesIO) and isinstance(stderr, io.BytesIO)
    return subprocess.CompletedProcess(list(args), status, stdout.getvalue(), stderr.getvalue())


def binary_output(binary: Path, *args: str | Path, stdin: bytes | None = None) -> bytes:
    done = subprocess.run([str(binary), *map(str, args)], input=stdin, capture_output=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def small_case(folder: Path) -> tuple[Path, Path]:
    """Two queries, both judged and retrieved (trec_eval 10 needs that without -c), grades
    0 to 2, an unjudged document retrieved."""
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    qrels.write_text("q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 d 1\nq2 0 e 0\n")
    run.write_text("q1 Q0 a 1 3 t\nq1 Q0 x 2 2 t\nq1 Q0 b 3 1 t\n"
                   "q2 Q0 e 1 5 t\nq2 Q0 d 2 4 t\n")
    return qrels, run


# --- the run "-" --------------------------------------------------------------------------


def test_the_run_dash_is_standard_input() -> None:
    from_file = rankframe("eval", "-q", "-m", "all_trec", QRELS, RESULTS)
    from_pipe = rankframe("eval", "-q", "-m", "all_trec", QRELS, "-", stdin=RESULTS.read_bytes())
    assert from_file.returncode == from_pipe.returncode == 0, from_pipe.stderr
    assert from_pipe.stdout == from_file.stdout
    # several runs, one of them standard input: printed in the order given
    both = rankframe("eval", "-m", "map", QRELS, "-", RESULTS, stdin=RESULTS.read_bytes())
    alone = rankframe("eval", "-m", "map", QRELS, RESULTS)
    assert both.returncode == 0 and both.stdout == alone.stdout * 2


def test_the_run_dash_reads_standard_input_from_where_it_stands(tmp_path: Path) -> None:
    """A file given as standard input is read from its current offset, as trec_eval's
    fgets reads it (``{ read first; rankframe eval qrels -; } < run``)."""
    text = RESULTS.read_bytes()
    first = text.index(b"\n") + 1
    rest = tmp_path / "rest.txt"
    rest.write_bytes(text[first:])
    with open(RESULTS, "rb", buffering=0) as stdin:
        stdin.seek(first)
        done = subprocess.run([sys.executable, "-m", "rankframe", "eval", "-m", "num_ret",
                               str(QRELS), "-"], stdin=stdin, capture_output=True, cwd=REPO,
                              timeout=300, check=False)
    expected = rankframe("eval", "-m", "num_ret", QRELS, rest)
    assert done.returncode == expected.returncode == 0, done.stderr
    assert done.stdout == expected.stdout


def test_the_run_dash_as_trec_eval_reads_it(trec_eval_binary: Path) -> None:
    expected = binary_output(trec_eval_binary, "-q", QRELS, "-", stdin=RESULTS.read_bytes())
    done = rankframe("eval", "-q", QRELS, "-", stdin=RESULTS.read_bytes())
    assert done.returncode == 0 and done.stdout == expected


def test_standard_input_is_named_in_errors(tmp_path: Path) -> None:
    bad = rankframe("eval", QRELS, "-", stdin=b"301 Q0 doc 1 high tag\n")
    assert bad.returncode == 1
    assert bad.stderr.decode() == ("rankframe: error: standard input, line 1: score 'high' "
                                   "is not a finite number\n")
    twice = rankframe("eval", QRELS, "-", "-", stdin=b"")
    assert twice.returncode == 1 and b"given twice" in twice.stderr
    # trec_eval reads only the run from standard input: "-" as the qrels is a file name
    qrels = rankframe("eval", "-", RESULTS, stdin=QRELS.read_bytes())
    assert qrels.returncode == 1 and qrels.stderr.count(b"\n") == 1
    assert b"qrels file not found: -" in qrels.stderr and b"run only" in qrels.stderr


# --- nicknames ---------------------------------------------------------------------------


def test_set_is_trec_eval_10s_set() -> None:
    """measures.c: set_names, selected in trec_eval's print order."""
    assert [m.name for m, _ in trec_eval.select(["set"])] == [
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
        "set_relative_P", "set_recall", "set_map", "set_F"]


NICKNAME_CASES = {
    "official": ["-c", "-m", "official", QRELS, RESULTS],
    "set": ["-c", "-m", "set", QRELS, RESULTS],
    "all_trec": ["-c", "-m", "all_trec", QRELS, RESULTS],
    "qrels_jg": ["-R", "qrels_jg", "-m", "qrels_jg", TREC_DATA / "qrels.rel_level", RESULTS],
    "prefs": ["-R", "prefs", "-m", "prefs", TREC_DATA / "prefs.test",
              TREC_DATA / "prefs.results.test"],
    "all_prefs": ["-R", "prefs", "-m", "all_prefs", TREC_DATA / "prefs.test",
                  TREC_DATA / "prefs.results.test"],
}


@pytest.mark.parametrize("nickname", NICKNAME_CASES)
def test_every_nickname_prints_what_trec_eval_prints(nickname: str,
                                                     trec_eval_binary: Path) -> None:
    args = ["-q", *NICKNAME_CASES[nickname]]
    expected = binary_output(trec_eval_binary, *args)
    done = in_process("eval", *args)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected


# --- printed names -----------------------------------------------------------------------

TYPED = {  # -m spec -> the names trec_eval 10 prints for it
    "set_F.2.0": ["set_F_2.0"],
    "set_F.0.50": ["set_F_0.50"],
    "set_F.2": ["set_F_2"],
    "relstring.05": ["relstring_05"],
    "relstring.5.0": ["relstring_5.0"],
    "rbp.p=0.80": ["rbp_p=0.80"],
    "rbp_resid.p=.5": ["rbp_resid_p=.5"],
    "P.05,10": ["P_5", "P_10"],
    "iprec_at_recall.0.125": ["iprec_at_recall_0.12"],
    "utility.1,-1,0,0": ["utility_1,-1,0,0"],
}


@pytest.mark.parametrize("spec", TYPED)
def test_printed_names_keep_the_parameter_as_typed(spec: str) -> None:
    assert trec_eval.expand(spec) == TYPED[spec]


@pytest.mark.parametrize("specs", [
    *([spec] for spec in TYPED),
    ["set_F.2", "set_F.2.0"],  # the first spelling wins, as the first -m does in trec_eval
    ["set_F", "set_F.1.0"],  # a spelt parameter beats the default
    ["relstring.1e1"],
    ["ndcg.2=9,1=3"],
    ["11pt_avg.0.2,0.5"],
])
def test_printed_names_as_trec_eval_prints_them(specs: list[str], tmp_path: Path,
                                                trec_eval_binary: Path) -> None:
    qrels, run = small_case(tmp_path)
    args = ["-q", *(a for spec in specs for a in ("-m", spec)), qrels, run]
    expected = binary_output(trec_eval_binary, *args)
    for engine in ("python", "polars"):
        done = in_process("eval", "--engine", engine, *args)
        assert done.returncode == 0, done.stderr
        assert done.stdout == expected, engine


def test_a_relstring_length_below_one_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "-m", "relstring.0.5", "q", "r"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "relstring takes a length" in err


# --- help and messages -------------------------------------------------------------------


def test_help_speaks_of_trec_eval_10() -> None:
    done = rankframe("eval", "--help")
    text = " ".join(done.stdout.decode().split())  # argparse wraps lines
    assert done.returncode == 0
    assert "the output is trec_eval 10's" in text and "byte-compatible with trec_eval 9" not in text
    assert "- reads it from standard input" in text


@pytest.mark.parametrize(("spec", "guess"), [
    ("ndgc", "ndcg"),
    ("ndgc@10", "ndcg@10"),  # the rest of what was written, where that then reads
    ("ndcg_cutt.10", "ndcg_cut.10"),
    ("mapp", "map"),
    ("recip_rnak", "recip_rank"),
    ("p.5", "P.5"),  # trec_eval's names in the wrong case
    ("Ndcg.5", "ndcg"),
    ("NDCG_CUT.5", "ndcg_cut.5"),
    ("ndcg_cut_10@3", "ndcg@3"),  # a printed name with a cutoff after it
    ("ndcg_cut_10@3", "ndcg_cut_10"),
])
def test_an_unknown_measure_gets_a_short_did_you_mean(spec: str, guess: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["eval", "-m", spec, "q", "r"], ["eval", "-h", "-m", spec]):
        assert main(args) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("rankframe: error: -m ")
        suggested = err.partition("did you mean ")[2].partition("?")[0].split(", ")
        assert guess in suggested and len(suggested) <= 4, err
        assert len(err) < 400, err  # a few names, not every one


def test_rankframe_alone_prints_a_short_usage() -> None:
    done = rankframe()
    out = done.stdout.decode()
    assert done.returncode == 2
    assert out.startswith("usage: rankframe") and len(out.splitlines()) <= 30, out
    assert all(command in out for command in ("eval", "compare", "sql"))

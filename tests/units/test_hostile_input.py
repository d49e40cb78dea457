"""Hostile input (issue 15, readers / command line / API half): every case ends in a
correct number or one clear error from :mod:`rankframe.errors` (one line on stderr from the
command line), never a traceback and never a silently different number. Plus fuzzing of
the readers (random bytes and lines) and of ``judge`` against the oracle (huge integers)."""

from __future__ import annotations

import codecs
import gzip
import math
import os
import re
import resource
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import rankframe as rf
from rankframe import faces
from rankframe.cli.main import main
from rankframe.errors import InputError, InputWarning, MeasureError
from rankframe.faces.base import JudgeOptions
from rankframe.io.source import MAX_LINE_BYTES
from tests.support import REPO

ROOT = REPO
RUN = "1 Q0 d1 1 2.5 t\n1 Q0 d2 2 1.5 t\n2 Q0 d1 1 0.5 t\n"
QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n"


def write(folder: Path, name: str, data: bytes | str) -> Path:
    path = folder / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def cli(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    """Run the command line in process; a traceback would propagate and fail the test."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def one_line(err: str, start: str, *parts: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(start), err
    for part in parts:
        assert part in lines[0], err


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write(tmp_path, "qrels", QRELS), write(tmp_path, "run", RUN)


# --- group 3: scores compared exactly in their own type ---------------------------------

def test_integer_scores_above_2_53_keep_their_order() -> None:
    run = pl.DataFrame({"qid": ["q", "q"], "docid": ["a", "b"], "score": [2**53 + 1, 2**53]})
    qrels = pl.DataFrame({"qid": ["q"], "docid": ["a"], "rel": [1]})
    judged = rf.judge(run, qrels)
    assert judged.select("docid", "rank").rows() == [("a", 1), ("b", 2)]
    assert judged.schema["score"] == pl.Int64
    assert rf.evaluate(judged, "P@1")["P@1"].to_list() == [1.0]
    assert rf.evaluate_run(run, qrels, "P@1")["P@1"].to_list() == [1.0]
    assert rf.judge(run.lazy(), qrels).collect().rows() == judged.rows()
    oracle = faces.get("oracle").judge(run, qrels, JudgeOptions())
    assert oracle.rows() == judged.rows() and oracle.schema == judged.schema


def test_uint64_scores_and_ties_are_exact() -> None:
    scores = pl.Series([2**64 - 2, 2**64 - 1, 2**64 - 2], dtype=pl.UInt64)
    run = pl.DataFrame({"qid": ["q"] * 3, "docid": ["a", "b", "c"], "score": scores})
    qrels = pl.DataFrame({"qid": ["q"], "docid": ["b"], "rel": [1]})
    judged = rf.judge(run, qrels, ties="average")
    assert judged.select("docid", "rank", "tie_first", "tie_size").rows() == [
        ("b", 1, 1, 1), ("c", 2, 2, 2), ("a", 3, 2, 2)]


IDS = st.sampled_from(["a", "b", "c", "d10", "d9"])
HUGE = st.one_of(st.integers(-(2**63), 2**63 - 1),
                 st.integers(2**53 - 3, 2**53 + 3), st.integers(-3, 3))


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(st.sampled_from(["q1", "q2"]), IDS, HUGE), max_size=12,
                     unique_by=lambda r: r[:2]),
       judged=st.lists(st.tuples(st.sampled_from(["q1", "q2"]), IDS, st.integers(-1, 3)),
                       min_size=1, max_size=8, unique_by=lambda r: r[:2]),
       depth=st.one_of(st.none(), st.integers(1, 4)),
       ties=st.sampled_from(["docid", "average"]))
@example(rows=[("q1", "a", 2**53 + 1), ("q1", "b", 2**53), ("q1", "c", 2**53)],
         judged=[("q1", "a", 1)], depth=None, ties="average")
def test_judge_matches_the_oracle_on_huge_integer_scores(
        rows: list[tuple[str, str, int]], judged: list[tuple[str, str, int]],
        depth: int | None, ties: Any) -> None:
    run = pl.DataFrame(rows, schema={"qid": pl.String, "docid": pl.String, "score": pl.Int64},
                       orient="row")
    qrels = pl.DataFrame(judged, schema={"qid": pl.String, "docid": pl.String, "rel": pl.Int64},
                         orient="row")
    expected = faces.get("oracle").judge(run, qrels, JudgeOptions(depth=depth, ties=ties))
    got = rf.judge(run, qrels, depth=depth, ties=ties)
    assert got.schema == expected.schema
    assert got.rows() == expected.rows()
    # The order is the exact one: Python ints, never rounded (trec_eval's rule on them).
    exact = {(q, d): s for q, d, s in rows}
    for qid in ("q1", "q2"):
        ranked = got.filter(pl.col("qid") == qid, pl.col("rank").is_not_null()).sort("rank")
        keys = [(exact[(qid, d)], d.encode()) for d in ranked["docid"]]
        assert keys == sorted(keys, reverse=True)


# --- group 4: comments as trec_eval has them; no query vanishes silently ----------------

def test_query_id_starting_with_hash_is_warned_about(tmp_path: Path) -> None:
    run = write(tmp_path, "run", "#1 Q0 d1 1 2.5 t\n1 Q0 d1 1 2.5 t\n# a note\n")
    with pytest.warns(InputWarning, match=r"run, line 1: .*query '#1'"):
        frame = rf.read_run(run)
    assert frame["qid"].to_list() == ["1"]
    qrels = write(tmp_path, "qrels", "1 0 d1 1\n#2 0 d1 1\n")
    with pytest.warns(InputWarning, match=r"qrels, line 2: .*query '#2'"):
        assert rf.read_qrels(qrels)["qid"].to_list() == ["1"]
    plain = write(tmp_path, "plain", "# run bm25 k1 0.9\n  #x\n1 Q0 d1 1 2.5 t\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a comment that is no data line: silent
        assert rf.read_run(plain).height == 1




def test_cli_prints_the_comment_warning_on_one_line(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path,
                                                    files: tuple[Path, Path]) -> None:
    run = write(tmp_path, "hashed", "#1 Q0 d1 1 2.5 t\n" + RUN)
    status, out, err = cli(capsys, "eval", "-m", "P.1", files[0], run)
    assert status == 0 and "P_1" in out
    one_line(err, "rankframe: warning:", "query '#1'")


# --- group 5: no NaN without a word ------------------------------------------------------

def test_infinite_grade_is_refused() -> None:
    judged = pl.DataFrame({"qid": ["a", "a"], "rank": [1, 2], "rel": [math.inf, 1.0]})
    with pytest.raises(InputError, match="infinite grade in 'rel'"):
        rf.evaluate(judged, "ndcg")
    run = pl.DataFrame({"qid": ["a"], "docid": ["x"], "score": [1.0]})
    qrels = pl.DataFrame({"qid": ["a"], "docid": ["x"], "rel": [-math.inf]})
    with pytest.raises(InputError, match="'rel' of the qrels is infinite"):
        rf.evaluate_run(run, qrels, "ndcg")


@pytest.mark.parametrize("measure", ["ndcg_exp", "ndcg(gain=exponential)@5", "err"])
def test_grade_too_large_for_exponential_gain(measure: str) -> None:
    judged = pl.DataFrame({"qid": ["a", "a"], "rank": [1, 2], "rel": [1024, 1]})
    for table in (judged, judged.lazy()):
        with pytest.raises(InputError, match=r"grade 1024 in 'rel'.*<= 960"):
            rf.evaluate(table, measure)
    run = pl.DataFrame({"qid": ["a"], "docid": ["x"], "score": [1.0]})
    qrels = pl.DataFrame({"qid": ["a"], "docid": ["x"], "rel": [1024]})
    with pytest.raises(InputError, match="grade 1024"):
        rf.evaluate_run(run, qrels, measure)
    assert rf.evaluate(judged, "ndcg")["ndcg"].to_list() == [1.0]  # linear gain: fine


def test_err_max_grade_is_bounded() -> None:
    with pytest.raises(MeasureError, match=r"max_grade must be a finite number in \(0, 960\]"):
        rf.err("rel", 10, max_grade=1e300)


def test_compare_constant_difference_with_rounding_noise() -> None:
    base = np.random.default_rng(1).random(50)
    values = np.concatenate([base, base + 0.1])  # d = 0.1 + noise of 1e-17
    per_query = pl.DataFrame({"system": ["a"] * 50 + ["b"] * 50,
                              "qid": [str(i) for i in range(50)] * 2, "map": values})
    row = rf.compare(per_query).filter(pl.col("system") == "b").row(0, named=True)
    assert row["p_value"] == 0.0 and row["effect_size"] is None
    assert row["delta_ci_low"] == pytest.approx(0.1) == row["delta_ci_high"]


# --- group 7: input read once --------------------------------------------------------------

def _in_thread(work: Callable[[], Any], timeout: float = 20) -> Any:
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["value"] = work()
        except BaseException as exc:
            result["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        return TimeoutError
    if "error" in result:
        raise result["error"]
    return result["value"]


def _feed(path: str, data: bytes) -> threading.Thread:
    def write_all() -> None:
        with open(path, "wb") as out:
            out.write(data)

    thread = threading.Thread(target=write_all, daemon=True)
    thread.start()
    return thread


def test_pipe_with_tabs_is_read_once() -> None:
    read, written = os.pipe()
    with os.fdopen(written, "wb") as out:
        out.write(RUN.replace(" ", "\t").encode())
    try:
        frame = rf.read_run(f"/dev/fd/{read}")
    finally:
        os.close(read)
    assert frame.height == 3


def test_named_fifo_does_not_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    feeder = _feed(str(fifo), RUN.replace(" ", "\t").encode())
    try:
        result = _in_thread(lambda: rf.read_run(fifo))
    finally:
        if result is TimeoutError:  # release the reader blocked on a second open
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        feeder.join(5)
    assert result is not TimeoutError, "reading a FIFO hung"
    assert result.height == 3


def test_process_substitution_from_the_shell(files: tuple[Path, Path], tmp_path: Path) -> None:
    tabs = write(tmp_path, "tabs", RUN.replace(" ", "\t"))
    command = f"{sys.executable} -m rankframe eval -m P.1 '{files[0]}' <(cat '{tabs}')"
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120,
                          env=os.environ | {"PYTHONPATH": str(ROOT)}, check=False)
    assert done.returncode == 0, done.stderr
    assert re.search(r"P_1\s+all\s+0\.5000", done.stdout)


# --- group 10: limits ----------------------------------------------------------------------

def test_dev_zero_is_refused_at_once(files: tuple[Path, Path]) -> None:
    def limit() -> None:  # a regression must fail, not take the machine's memory
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    done = subprocess.run([sys.executable, "-m", "rankframe", "eval", str(files[0]), "/dev/zero"],
                          capture_output=True, text=True, timeout=120, preexec_fn=limit,
                          env=os.environ | {"PYTHONPATH": str(ROOT)}, check=False)
    assert done.returncode == 1
    one_line(done.stderr, "rankframe: error: /dev/zero, line 1: binary data (NUL byte)")


@pytest.mark.parametrize("compress", [False, True])
def test_line_over_the_limit(tmp_path: Path, compress: bool) -> None:
    text = RUN + "1 Q0 " + "d" * MAX_LINE_BYTES + " 3 0.1 t\n"
    path = write(tmp_path, "run", gzip.compress(text.encode()) if compress else text)
    with pytest.raises(InputError, match=rf"run, line 4: line longer than {MAX_LINE_BYTES}"):
        rf.read_run(path)
    just = RUN + "1 Q0 " + "d" * (MAX_LINE_BYTES - 20) + " 3 0.1 t\n"
    assert len(just.splitlines()[-1]) <= MAX_LINE_BYTES
    assert rf.read_run(write(tmp_path, "ok", just)).height == 4


# --- group 9: no tracebacks, no raw Polars errors ----------------------------------------

@pytest.mark.parametrize(("argv", "parts"), [
    (("eval", "-M", "99999999999999999999"), ("-M must be a positive number",)),
    # (-m judged.9223372036854775808 is judged_9223372036854775807: atol saturates, as in
    # trec_eval; a measure string's cutoff is read whole)
    (("eval", "-m", "judged@9223372036854775808"), ("k must be a positive integer below 2**63",)),
    (("compare", "--digits", "-1"), ("--digits must be a number of decimals",)),
])
def test_cli_argument_errors_are_one_line(capsys: pytest.CaptureFixture[str],
                                          files: tuple[Path, Path], argv: tuple[str, ...],
                                          parts: tuple[str, ...]) -> None:
    qrels, run = files
    runs = (run, write(run.parent, "run2", RUN.replace(" t\n", " u\n"))) if argv[0] == "compare" \
        else (run,)
    status, _, err = cli(capsys, *argv, qrels, *runs)
    assert status == 1
    one_line(err, "rankframe: error:", *parts)


JUDGED = pl.DataFrame({"qid": ["a", "a", "b"], "rank": [1, 2, 1], "rel": [1, 0, 2]})


@pytest.mark.parametrize(("call", "error", "text"), [
    (lambda: rf.evaluate(JUDGED, "ndcg_ties@3"), InputError, "reads column 'tie_first'"),
    (lambda: rf.evaluate(JUDGED, "P@1", query=[]), InputError, "query must name one column"),
    (lambda: rf.evaluate(JUDGED, "P@1", rank="rel"), InputError, "must be different columns"),
    (lambda: rf.evaluate(JUDGED, f"P@{2**64}"), MeasureError, "below 2**63"),
    (lambda: rf.precision("rel", 2**64), MeasureError, "below 2**63"),
    (lambda: rf.evaluate(JUDGED, None), MeasureError, "measures must be a measure string"),
    (lambda: rf.evaluate(JUDGED, "P(threshold=1,threshold=2)@1"), MeasureError,
     "parameter 'threshold' is given twice"),
    (lambda: rf.evaluate(JUDGED.with_columns(pl.col("qid").replace("b", None)), "P@1"),
     InputError, "the query column 'qid' is NULL at row 2"),
])
def test_api_errors_are_rankframe_errors(call: Callable[[], Any], error: type[Exception],
                                         text: str) -> None:
    with pytest.raises(error, match=re.escape(text)):
        call()


def test_uint64_query_id_beside_a_signed_one_keeps_its_value() -> None:
    big = 2**63 + 5
    run = pl.DataFrame({"qid": pl.Series([big, 1, -1], dtype=pl.UInt64, strict=False),
                        "docid": [1, 2, 3], "score": [1.0, 2.0, 3.0]}).drop_nulls()
    qrels = pl.DataFrame({"qid": pl.Series([1, -1], dtype=pl.Int64), "docid": [2, 3],
                          "rel": [1, 1]})
    judged = rf.judge(run, qrels)
    assert judged.select("qid", "docid", "rank").rows() == [(1, 2, 1), (-1, 3, None)]
    assert rf.unjudged_run_queries(run, qrels)["qid"].to_list() == [big]
    assert rf.evaluate_run(run, qrels, "P@1").rows() == [(-1, 0.0), (1, 1.0)]


# --- group 11: helpful messages ------------------------------------------------------------

@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_with_a_mark_are_decoded(tmp_path: Path, encoding: str) -> None:
    mark = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE}.get(encoding, b"")
    text = RUN.replace("\n", "\r\n")  # PowerShell's > writes UTF-16-LE with CRLF
    path = write(tmp_path, "run", mark + text.encode(encoding))
    assert rf.read_run(path).rows() == rf.read_run(write(tmp_path, "plain", RUN)).rows()
    zipped = write(tmp_path, "run.gz", gzip.compress(mark + text.encode(encoding)))
    assert rf.read_run(zipped).height == 3


def test_broken_utf16_says_what_it_is(tmp_path: Path) -> None:
    path = write(tmp_path, "run", codecs.BOM_UTF16_LE + "1 Q0 d1 1 2 t\n".encode("utf-16-le")
                 + b"\x00\xd8")  # a lone surrogate
    with pytest.raises(InputError, match="UTF-16 byte-order mark but is not valid UTF-16"):
        rf.read_run(path)


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux /proc")
def test_io_error_names_the_file() -> None:
    with pytest.raises(InputError, match=r"^/proc/self/mem: cannot read the run file \("):
        rf.read_run("/proc/self/mem")


def test_num_q_alone(capsys: pytest.CaptureFixture[str], files: tuple[Path, Path]) -> None:
    status, out, err = cli(capsys, "eval", "-m", "num_q", *files)
    assert status == 0 and err == ""
    assert re.fullmatch(r"num_q\s+all\s+2\n", out)


def test_numpy_integers_are_integers() -> None:
    per_query = pl.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "qid": ["1", "2", "3"] * 2,
                              "map": [0.1, 0.2, 0.3, 0.3, 0.2, 0.5]})
    result = rf.compare(per_query, test="bootstrap", n_resamples=np.int64(50))
    assert result.height == 2
    from rankframe.analysis import report
    assert "0.33" in report.to_text(result, digits=np.int64(2))
    assert JUDGED.group_by("qid").agg(rf.precision("rel", np.int64(5))).height == 2
    assert rf.judge(pl.DataFrame({"qid": ["a"], "docid": ["x"], "score": [1.0]}),
                    pl.DataFrame({"qid": ["a"], "docid": ["x"], "rel": [1]}),
                    depth=np.uint8(1)).height == 1


def test_rbp_persistence_messages_agree(capsys: pytest.CaptureFixture[str],
                                        files: tuple[Path, Path]) -> None:
    messages = []
    for p in (0, 1):
        with pytest.raises(MeasureError) as info:
            rf.evaluate(JUDGED, f"rbp@{p}")
        messages.append(str(info.value).replace(f"{p}.0", "P"))
        status, _, err = cli(capsys, "eval", "-m", f"rbp.{p}", *files)
        assert status == 1
        one_line(err, "rankframe: error:", "must lie in (0, 1)")
    assert messages[0].replace("@0", "@P") == messages[1].replace("@1", "@P")


def test_summarize_names_a_column_that_is_not_a_measure() -> None:
    per_query = rf.evaluate(JUDGED, "P@1").with_columns(system=pl.lit("bm25"))
    with pytest.raises(MeasureError, match=r"column 'system' is not a measure; .*by='system'"):
        rf.summarize(per_query)
    assert rf.summarize(per_query, by="system").rows() == [("bm25", 1.0)]


def test_fractional_rank_field_is_ignored_as_trec_eval_does(tmp_path: Path) -> None:
    frame = rf.read_run(write(tmp_path, "run", "1 Q0 d1 1.0 2.5 t\n1 Q0 d2 - 1.5 t\n"))
    assert frame.select("docid", "rank", "score").rows() == [("d1", None, 2.5),
                                                             ("d2", None, 1.5)]


# --- fuzzing the readers -------------------------------------------------------------------

def _read_or_input_error(path: Path, reader: Callable[[Path], pl.DataFrame]
                         ) -> pl.DataFrame | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InputWarning)
            return reader(path)
    except InputError:
        return None


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300), compress=st.booleans(),
       mark=st.sampled_from([b"", codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF32_BE]))
@example(data=b"x\x01\x02\x01", compress=False, mark=b"")  # zlib's magic: Polars inflates
@example(data=b"x\x01 Q0 d 1 1 t\n", compress=False, mark=b"")
def test_random_bytes_parse_or_raise_input_error(tmp_path: Path, data: bytes, compress: bool,
                                                  mark: bytes) -> None:
    raw = mark + data
    path = write(tmp_path, "in", gzip.compress(raw) if compress else raw)
    for reader, columns in ((rf.read_run, ["qid", "docid", "rank", "score", "tag"]),
                            (rf.read_qrels, ["qid", "docid", "rel"])):
        got = _read_or_input_error(path, reader)  # a crash other than InputError fails here
        assert got is None or got.columns == columns


TOKENS = st.sampled_from(["1", "q1", "#1", "#", "Q0", "0", "d1", "d2", "-3", "1.0", "2.5",
                          "1e400", "nan", "x", "\u00e9", "t"])
BLANKS = st.sampled_from([" ", "\t", "  ", "\v", "\f"])

_FIELD = re.compile(r"[^ \t\n\v\f\r]+")
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _expected_run(text: str) -> list[tuple[Any, ...]] | None:
    """The run format, line by line: the rows, or None where the reader must refuse (fields
    after the sixth are ignored, as trec_eval ignores them)."""
    rows, seen = [], set()
    for line in text.split("\n"):
        fields = _FIELD.findall(line)
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) < 6 or not _DECIMAL.fullmatch(fields[4]):
            return None
        score = float(fields[4])
        if not math.isfinite(score) or (fields[0], fields[2]) in seen:
            return None
        seen.add((fields[0], fields[2]))
        rank = int(fields[3]) if re.fullmatch(r"[+-]?[0-9]+", fields[3]) else None
        rows.append((fields[0], fields[2], rank, score, fields[5]))
    return rows or None


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.lists(TOKENS, max_size=7).flatmap(
    lambda fields: st.tuples(st.just(fields), BLANKS)), max_size=8),
       newline=st.sampled_from(["\n", "\r\n"]))
@example(lines=[(["1", "Q0", "d1", "1.0", "2.5", "t"], "\t"), (["#1", "Q0"], " ")],
         newline="\r\n")
def test_random_lines_parse_as_trec_eval_or_raise_input_error(
        tmp_path: Path, lines: list[tuple[list[str], str]], newline: str) -> None:
    text = newline.join(blank.join(fields) for fields, blank in lines) + newline
    path = write(tmp_path, "run", text)
    expected = _expected_run(text.replace("\r", " "))
    got = _read_or_input_error(path, rf.read_run)
    if expected is None:
        assert got is None
    else:
        assert got is not None and got.rows() == expected

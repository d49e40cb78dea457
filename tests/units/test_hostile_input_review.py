"""Hostile input to the library (issue 37): ``summarize`` never leaves a NULL out of a mean
nor wraps a count's sum, ``evaluate_runs`` takes one path as one run, a duplicate pair early
in a run (gzip or plain) is reported before the rest of the file is read, and blank lines
cost about what their bytes cost in every reader, with every line number kept."""

from __future__ import annotations

import gzip
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankframe as rf
from rankframe.cli.eval_small import read_plain
from rankframe.cli.main import main
from rankframe.errors import InputError
from rankframe.io import read_qrels, read_qrels_jg, read_run, read_zscores, stream, trec
from rankframe.io.lines import data_lines
from tests.support.faces import examples

QRELS = pl.DataFrame({"qid": ["1"], "docid": ["a"], "rel": [1]})


# --- summarize: no NULL left out, no sum wrapped -------------------------------------------


def test_summarize_refuses_a_null_value_naming_the_measure_and_the_query() -> None:
    per_query = pl.DataFrame({"qid": ["a", "b", "c"], "map": [0.5, None, None],
                              "P@5": [0.25, 0.5, 0.75]})
    with pytest.raises(InputError, match=r"'map' is NULL for qid='b' \(and 1 more\)"):
        rf.summarize(per_query)
    assert rf.summarize(per_query, ["P@5"]).rows() == [(0.5,)]
    assert rf.summarize(per_query.drop_nulls("map")).rows() == [(0.5, 0.25)]


def test_summarize_names_the_group_of_a_null_value() -> None:
    per_query = pl.DataFrame({"system": ["x", "y"], "qid": ["a", "a"],
                              "num_ret": [3, None]})
    with pytest.raises(InputError, match=r"'num_ret' is NULL for system='y', qid='a'"):
        rf.summarize(per_query, by="system")


def test_summarize_refuses_a_pandas_nan_turned_null() -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"qid": ["a", "b"], "ndcg@10": [0.5, float("nan")]})
    with pytest.raises(InputError, match="'ndcg@10' is NULL for qid='b'"):
        rf.summarize(frame)


def test_summarize_count_sums_do_not_wrap() -> None:
    per_query = pl.DataFrame({"qid": ["a", "b"], "num_ret": [2**62, 2**62]})
    with pytest.raises(InputError, match=r"sum of 'num_ret' .*9223372036854775808.* does "
                                         "not fit a 64-bit integer"):
        rf.summarize(per_query)
    by = per_query.with_columns(system=pl.Series(["x", "x"]))
    with pytest.raises(InputError, match="'num_ret' over the queries, system='x'"):
        rf.summarize(by, by="system")
    fits = pl.DataFrame({"qid": ["a", "b"], "num_ret": [2**62, 2**62 - 1]})
    summary = rf.summarize(fits)
    assert summary.rows() == [(2**63 - 1,)] and summary.schema["num_ret"] == pl.Int64
    unsigned = pl.DataFrame({"qid": ["a", "b"], "num_rel": pl.Series([2**32 - 1] * 2,
                                                                     dtype=pl.UInt32)})
    assert rf.summarize(unsigned).rows() == [(2**33 - 2,)]


def test_judgment_groups_average_no_null_away() -> None:
    """A query's mean over its judgment groups with one NULL value (an invalid group) is
    NULL: it was the other groups' sum over all of them (the NULL counted as 0)."""
    per_group = pl.DataFrame({"qid": ["1", "1", "1", "2"], "jg": ["a", "b", "c", "a"],
                              "map": [0.5, None, 0.25, 1.0]})
    assert rf.average_groups(per_group).rows() == [("1", None), ("2", 1.0)]
    with pytest.raises(InputError, match="'map' is NULL for qid='1'"):
        rf.summarize(rf.average_groups(per_group))


# --- evaluate_runs: one path is one run --------------------------------------------------


def test_evaluate_runs_takes_one_path_as_one_run(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run.txt").write_text("1 Q0 a 1 2.0 bm25\n")
    for name in "runtx":  # files named by the path's letters must not be read
        (tmp_path / name).write_text("1 Q0 a 1 2.0 letter\n")
    for runs in ("run.txt", Path("run.txt"), ["run.txt"]):
        assert rf.evaluate_runs(runs, QRELS, "P@1").rows() == [("bm25", "1", 1.0)]
    assert list(rf.read_runs("run.txt")) == ["bm25"]


@pytest.mark.parametrize("runs", [pl.DataFrame({"qid": ["1"], "docid": ["a"], "score": [1.0]}),
                                  b"run.txt", 3])
def test_evaluate_runs_refuses_what_is_not_paths(runs: Any) -> None:
    with pytest.raises(TypeError, match=r"evaluate_runs: expected run file paths .* run "
                                        r"frames go in a mapping \{name: frame\}"):
        rf.evaluate_runs(runs, QRELS, "P@1")
    frame = pl.DataFrame({"qid": ["1"], "docid": ["a"], "score": [1.0]})
    with pytest.raises(TypeError, match="run 1 is a DataFrame, not a file path"):
        rf.evaluate_runs(["run.txt", frame], QRELS, "P@1")


# --- a duplicate early in a large run: reported before the rest is read --------------------


def _identical_lines(path: Path, lines: int, compress: bool) -> Path:
    """A run of ``lines`` identical lines (the same document again from line 2 on),
    written a block at a time."""
    line = b"1 Q0 d1 1 1.5 t\n"
    block = line * (1 << 16)
    with open(path, "wb") as out:
        deflate = zlib.compressobj(1, zlib.DEFLATED, 31) if compress else None
        for _ in range(lines // (1 << 16)):
            out.write(deflate.compress(block) if deflate else block)
        if deflate:
            out.write(deflate.flush())
    return path


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any) -> list[int]:
    """The text blocks ``module`` reads from then on, counted (one entry per call)."""
    real = module.text_blocks
    counts: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Iterator[tuple[int, bytes]]:
        counts.append(0)
        for item in real(*args, **kwargs):
            counts[-1] += 1
            yield item

    monkeypatch.setattr(module, "text_blocks", counted)
    return counts


@pytest.mark.parametrize("compress", [True, False])
def test_a_duplicate_early_in_a_large_run_is_reported_before_the_rest_is_read(
        compress: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """4M identical lines (64 MiB of text, eight of the readers' blocks): the duplicate on
    line 2 is reported from the first block, by read_run and by rankframe eval (whose
    stream falls back to read_run)."""
    run = _identical_lines(tmp_path / ("run.gz" if compress else "run.txt"), 1 << 22, compress)
    read = _counting(monkeypatch, trec)
    with pytest.raises(InputError, match=r"line 2: duplicate document 'd1' for query '1' "
                                         r"\(first on line 1\)"):
        read_run(run)
    assert read == [1]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n")
    streamed = _counting(monkeypatch, stream)
    assert main(["eval", "--engine", "polars", str(qrels), str(run)]) == 1
    assert "line 2: duplicate document 'd1'" in capsys.readouterr().err
    assert set(read) == {1} and sum(streamed) <= 8


def test_a_duplicate_across_blocks_is_still_found(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trec, "READ_BYTES", 1 << 16)
    lines = [f"1 Q0 d{i} {i} 1.5 t\n" for i in range(1, 20_001)] + ["1 Q0 d7 9 0.5 t\n"]
    run = tmp_path / "run.txt"
    run.write_text("".join(lines))
    blocks = _counting(monkeypatch, trec)
    with pytest.raises(InputError, match=r"line 20001: duplicate document 'd7' .*first on "
                                         r"line 7\)"):
        read_run(run)
    assert blocks[0] > 1


# --- blank lines: cheap, and every line number kept -----------------------------------------


def _cpu_seconds(work: Callable[[], object]) -> float:
    """The least processor time of three runs of ``work`` (this process, every thread)."""
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize("blank", [b"\n", b" \t \n", b"\n\n  \n"])
def test_blank_lines_cost_no_more_than_run_lines_of_the_same_size(blank: bytes,
                                                                  tmp_path: Path) -> None:
    """A 4 MiB run of blank lines and one run line against a 4 MiB run of run lines: the
    blank lines take no more processor time than the run lines (they took five to ten
    times as much, a Polars row each), read whole or streamed."""
    size = 4 << 20
    line = b"1 Q0 doc0000000 1 1.25 bm25\n"
    real, blanks = tmp_path / "real.txt", tmp_path / "blank.txt"
    real.write_bytes(b"".join(b"1 Q0 doc%07d %d 1.25 bm25\n" % (i, i + 1)
                              for i in range(size // len(line))))
    blanks.write_bytes(blank * (size // len(blank)) + line)
    assert read_run(blanks).height == 1
    assert _cpu_seconds(lambda: read_run(blanks)) <= _cpu_seconds(lambda: read_run(real))
    assert _cpu_seconds(lambda: list(stream.RunStream(blanks))) <= _cpu_seconds(
        lambda: list(stream.RunStream(real)))


def test_blank_lines_are_cheap_in_the_pure_python_reader(tmp_path: Path) -> None:
    size = 1 << 20
    real, blanks = tmp_path / "real.txt", tmp_path / "blank.txt"
    line = b"1 0 doc0000000 1\n"
    real.write_bytes(b"".join(b"1 0 doc%07d 1\n" % i for i in range(size // len(line))))
    blanks.write_bytes(b"\n" * size + b"1 0 doc0000001 1\n" + b" \n" * (size // 2))
    assert read_plain(str(blanks), 4) == [["1", "0", "doc0000001", "1"]]
    assert _cpu_seconds(lambda: read_plain(str(blanks), 4)) <= _cpu_seconds(
        lambda: read_plain(str(real), 4))


def test_a_gzip_of_blank_lines_is_read_block_by_block(tmp_path: Path) -> None:
    """16 MiB of blank lines in a 16 KiB gzip, then a run line: eight blocks of blank lines
    streamed, one run line read."""
    run = tmp_path / "run.gz"
    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
    run.write_bytes(deflate.compress(b"\n" * (16 << 20) + b"1 Q0 d1 1 1.5 t\n")
                    + deflate.flush())
    assert read_run(run).rows() == [("1", "d1", 1, 1.5, "t")]
    blocks = list(stream.RunStream(run))
    assert len(blocks) == 1 and blocks[0].rows() == [("1", "d1", 1.5)]


#: Lines of a run with blank lines of every kind between them (runs of empty lines and of
#: blanks, long and short), and now and then a line with a problem.
_LINE = st.one_of(
    st.builds(lambda q, d: f"q{q} Q0 d{d} 1 1.5 t", st.integers(0, 3), st.integers(0, 40)),
    st.sampled_from(["", " ", "\t", " \t\v\f ", "q1 Q0 dx 1 high t", "# a comment",
                     "q1 Q0 d1"]),
    st.builds(lambda n, blank: "\n".join([blank] * n), st.integers(1, 80),
              st.sampled_from(["", "  ", "\t"])),
)


@settings(max_examples=examples(share=0.5), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_LINE, min_size=1, max_size=40), end=st.sampled_from(["\n", ""]))
def test_readers_keep_every_line_number_among_blank_lines(tmp_path: Path, lines: list[str],
                                                          end: str) -> None:
    """read_run's rows, or the line its error names, are those of the pure-Python line
    grammar (data_lines), whatever blank lines lie between."""
    text = "\n".join(lines) + end
    path = tmp_path / "run.txt"
    path.write_text(text)
    numbered = dict(data_lines(text))
    try:
        table = read_run(path)
    except InputError as exc:
        assert_names_a_data_line(str(exc), numbered)
    else:
        assert [(f[0], f[2]) for f in numbered.values()] == list(
            zip(table["qid"], table["docid"], strict=True))


def assert_names_a_data_line(message: str, numbered: dict[int, list[str]]) -> None:
    """read_run's error ``message`` names a data line of ``numbered`` (line -> fields) and
    a fault that line has; "no run lines" when there is none."""
    if not numbered:
        assert "no run lines" in message
        return
    line = int(message.split(", line ")[1].split(":")[0])
    fields = numbered[line]  # a data line: not a blank one
    if "duplicate document" in message:
        first = int(message.split("first on line ")[1].split(")")[0])
        assert (numbered[first][0], numbered[first][2]) == (fields[0], fields[2])
    elif "fields" in message:
        assert len(fields) < 6
    else:
        assert fields[4] == "high", message


@pytest.mark.parametrize("reader", [read_qrels, read_zscores])
def test_every_reader_numbers_lines_after_long_blank_runs(reader: Callable[[Path], object],
                                                          tmp_path: Path) -> None:
    good = "301 0 d1 1" if reader is read_qrels else "301 map 0.1 0.2"
    path = tmp_path / "file.txt"
    path.write_text("\n" * 100 + good + "\n" + " \n" * 300 + "301 x\n")
    with pytest.raises(InputError, match=r"file.txt, line 402: expected \d fields"):
        reader(path)
    path.write_bytes(b"\n" * 100 + good.encode() + b"\n" + b"\n" * 300 + b"\xff\n")
    with pytest.raises(InputError, match="line 402: not UTF-8"):
        reader(path)


def test_judgment_groups_number_lines_after_long_blank_runs(tmp_path: Path) -> None:
    path = tmp_path / "qrels_jg.txt"
    path.write_bytes(gzip.compress(b"\n" * 70 + b"1 a d1 1\n" + b"\t\n" * 70 + b"1 a d2\n"))
    with pytest.raises(InputError, match="line 142: expected 4 fields"):
        read_qrels_jg(path)

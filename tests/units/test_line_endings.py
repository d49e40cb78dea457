"""The TREC readers: every line ending (LF, CRLF, a lone CR, mixed) reads the same lines on
every reader (read_run, read_qrels, the stream of rankframe eval, rf_read_run,
rf_read_qrels); tabs, CRLF, comments and gzip stream like plain files, and read_run holds
about the table it returns, not ten times the text."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import duckdb
import polars as pl
import pytest

import rankframe as rf
import rankframe.duckdb
from rankframe.analysis.runs import trec_eval_run_file
from rankframe.io import read_qrels, read_qrels_jg, read_run
from rankframe.io.stream import RunStream
from tests.support import REPO

RUN = ["q1 Q0 d1 1 4.0 t", "q1 Q0 d2 2 3.0 t", "q1 Q0 d3 3 2.0 t", "q2 Q0 d4 1 1.0 t"]
QRELS = ["q1 0 d1 1", "q1 0 d2 0", "q1 0 d3 1", "q2 0 d4 1"]
ENDINGS = {
    "lf": lambda lines: "\n".join(lines) + "\n",
    "crlf": lambda lines: "\r\n".join(lines) + "\r\n",
    "cr": lambda lines: "\r".join(lines) + "\r",
    "cr, no last end": lambda lines: "\r".join(lines),
    "mixed": lambda lines: lines[0] + "\n" + lines[1] + "\r\n" + lines[2] + "\r" + lines[3],
    "blank lines between": lambda lines: "\r\n\r".join(lines) + "\n\r\n",
}


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    return rankframe.duckdb.register(duckdb.connect())


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_every_reader_reads_every_line_ending_alike(
        tmp_path: Path, ending: str, con: duckdb.DuckDBPyConnection) -> None:
    run_path, qrels_path = tmp_path / "run", tmp_path / "qrels"
    run_path.write_bytes(ENDINGS[ending](RUN).encode())
    qrels_path.write_bytes(ENDINGS[ending](QRELS).encode())
    run = read_run(run_path)
    assert run.rows() == [(q, d, int(r), float(s), t) for q, _, d, r, s, t in
                          (line.split() for line in RUN)]
    qrels = read_qrels(qrels_path)
    assert qrels.rows() == [(q, d, int(g)) for q, _, d, g in (line.split() for line in QRELS)]
    assert con.sql(f"SELECT * FROM rf_read_run('{run_path}')").fetchall() == run.rows()
    assert con.sql(f"SELECT * FROM rf_read_qrels('{qrels_path}')").fetchall() == qrels.rows()
    streamed = pl.concat(list(RunStream(run_path)))
    assert streamed.equals(run.select("qid", "docid", "score"))
    assert read_qrels_jg(qrels_path).select("qid", "docid", "rel").equals(qrels)


def test_the_command_line_reads_a_cr_only_run_whole(tmp_path: Path) -> None:
    """trec_eval reads a CR-only run as one line (its first six fields: map 0.5 here) and
    refuses a CR-only qrels file; rankframe reads every line of both."""
    run_path, qrels_path = tmp_path / "run", tmp_path / "qrels"
    run_path.write_bytes(ENDINGS["cr"](RUN).encode())
    qrels_path.write_bytes(ENDINGS["cr"](QRELS).encode())
    per_query = trec_eval_run_file(run_path, read_qrels(qrels_path), ["map"]).per_query
    assert per_query.rows() == [("q1", pytest.approx((1 + 2 / 3) / 2)), ("q2", 1.0)]


@pytest.mark.parametrize("cut", [-1, 0, 1])
def test_a_line_end_across_read_pieces(tmp_path: Path, cut: int) -> None:
    """The file is read a MiB at a time: a CRLF or a lone CR split between two pieces is
    one line end."""
    size = 1 << 20
    line = "q1 Q0 d{} 1 1.0 t"
    lines, text = [], ""
    while len(text) < size + cut - 40:
        lines.append(line.format(len(lines)))
        text += lines[-1] + "\n"
    filler = size + cut - len(text) - 1  # the CR lands at byte size + cut - 1
    lines.append("q1 Q0 x" + "y" * (filler - len("q1 Q0 x 1 1.0 t")) + " 1 1.0 t")
    body = "\n".join(lines[:-1]) + "\n" + lines[-1]
    for end in ("\r\n", "\r"):
        data = (body + end + "q2 Q0 z 1 1.0 t" + end).encode()
        path = tmp_path / "run"
        path.write_bytes(data)
        got = read_run(path)
        assert got.height == len(lines) + 1
        assert got["docid"][-1] == "z"


@pytest.mark.parametrize("layout", ["tabs", "crlf", "comment", "gzip", "blank lines",
                                    "runs of spaces"])
def test_other_layouts_stream_like_plain_files(tmp_path: Path, layout: str) -> None:
    lines = [f"q{q} Q0 d{q}-{r} {r} {100 - r}.5 tag" for q in range(40) for r in range(1, 60)]
    text = "\n".join(lines) + "\n"
    data = {
        "tabs": text.replace(" ", "\t").encode(),
        "crlf": text.replace("\n", "\r\n").encode(),
        "comment": ("# produced by a system\n" + text).encode(),
        "gzip": gzip.compress(text.encode()),
        "blank lines": text.replace("\n", "\n\n").encode(),
        "runs of spaces": text.replace(" ", "   ").encode(),
    }[layout]
    path = tmp_path / "run"
    path.write_bytes(data)
    blocks = list(RunStream(path, block_bytes=2048))
    assert len(blocks) > 1
    expected = pl.DataFrame([line.split() for line in lines], orient="row",
                            schema=["qid", "Q0", "docid", "rank", "score", "tag"])
    got = pl.concat(blocks)
    assert got["docid"].to_list() == expected["docid"].to_list()
    assert got["score"].to_list() == expected["score"].cast(pl.Float64).to_list()


def test_a_comment_shaped_like_a_run_line_is_left_to_read_run(tmp_path: Path) -> None:
    from rankframe.io.stream import NotStreamable

    path = tmp_path / "run"
    path.write_text("q1 Q0 d1 1 2.0 t\n#q2 Q0 d2 1 1.0 t\n")
    with pytest.raises(NotStreamable):
        list(RunStream(path))
    with pytest.warns(rf.InputWarning, match=r"line 2: skipped as a comment"):
        assert read_run(path).height == 1


def test_a_duplicate_in_a_huge_query_is_named_before_the_query_is_judged(tmp_path: Path
                                                                         ) -> None:
    path = tmp_path / "run.gz"
    line = b"q1 Q0 d1 1 1.0 tag\n"
    path.write_bytes(gzip.compress(b"q0 Q0 d0 1 2.0 tag\n" + line * 400_000))
    from rankframe.io.stream import NotStreamable

    with pytest.raises(NotStreamable):
        list(RunStream(path, block_bytes=1 << 20))
    with pytest.raises(rf.InputError, match=r"line 3: duplicate document 'd1' for query 'q1' "
                                             r"\(first on line 2\)"):
        read_run(path)


_MEASURE = """
import sys
import polars as pl
import rankframe as rf


def peak() -> int:  # VmHWM: this process's peak (ru_maxrss would count the parent's)
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM"))


pl.DataFrame({"a": [1]}).select(pl.col("a").sum())
before = peak()
table = rf.read_run(sys.argv[1])
print(peak() - before, table.height)
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="no /proc (VmHWM)")
@pytest.mark.parametrize("layout", ["tabs", "crlf", "comment"])
def test_read_run_holds_about_the_table_not_ten_times_the_text(tmp_path: Path,
                                                               layout: str) -> None:
    lines = [f"{q} Q0 doc-{q}-{r:06d} {r + 1} {1000 - r * 0.5:.4f} run-tag"
             for q in range(1400) for r in range(1000)]
    text = "\n".join(lines) + "\n"
    data = {"tabs": text.replace(" ", "\t"), "crlf": text.replace("\n", "\r\n"),
            "comment": "# a comment\n" + text}[layout].encode()
    path = tmp_path / "run"
    path.write_bytes(data)
    del lines, text
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(path)], capture_output=True,
                          text=True, cwd=REPO, check=True, timeout=300)
    grown, rows = map(int, done.stdout.split())
    assert rows == 1_400_000
    assert grown < 4 * len(data), f"{grown / len(data):.1f} times the text"


@pytest.mark.parametrize("block", [64, 200, 1 << 20])
def test_blocks_keep_line_numbers_and_find_duplicates_across_them(
        tmp_path: Path, block: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """read_run parses block by block (plain blocks by the CSV reader, the others by the
    general reader): the table, a problem's line and a duplicate's two lines do not depend
    on where the blocks end."""
    from rankframe.io import trec

    monkeypatch.setattr(trec, "READ_BYTES", block)
    lines = [f"q{i // 10} Q0 d{i} {i % 10 + 1} {100 - i}.5 t" for i in range(60)]
    lines[13] = "# a comment"
    lines[27] = lines[27].replace(" ", "\t")
    path = tmp_path / "run"
    path.write_text("\n".join(lines) + "\n")
    expected = [(q, d, int(r), float(s), t) for q, _, d, r, s, t in
                (line.split() for line in lines if not line.startswith("#"))]
    assert read_run(path).rows() == expected
    duplicate = [*lines, lines[40], lines[5]]
    path.write_text("\n".join(duplicate) + "\n")
    with pytest.raises(rf.InputError, match=r"run, line 61: duplicate document 'd40' for query "
                                             r"'q4' \(first on line 41\)"):
        read_run(path)
    bad = [*lines[:50], "q9 Q0 dx 1 nan t", *lines[50:], lines[5]]
    path.write_text("\n".join(bad) + "\n")
    with pytest.raises(rf.InputError, match=r"run, line 51: score 'nan' is not a finite"):
        read_run(path)

"""The TREC run and qrels readers (rankframe.io) and their SQL twins (rf_read_run,
rf_read_qrels): every accepted format variant, every rejected input with its file and line,
and agreement with a line-by-line oracle and between the two faces."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import duckdb
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from rankframe.errors import InputError
from rankframe.io import read_qrels, read_run
from rankframe.io import trec as io

RUN_SCHEMA = {"qid": pl.String, "docid": pl.String, "rank": pl.Int64, "score": pl.Float64,
              "tag": pl.String}
QRELS_SCHEMA = {"qid": pl.String, "docid": pl.String, "rel": pl.Int64}

RUN_ROWS = [("301", "FBIS3-1", 1, 12.5, "bm25"), ("301", "LA0101-2", 2, -0.25, "bm25"),
            ("302", "FT911-3", 1, 3e-05, "bm25")]
QRELS_ROWS = [("301", "FBIS3-1", 2), ("301", "LA0101-2", 0), ("302", "FT911-9", -1)]

RUN_TEXT = "301 Q0 FBIS3-1 1 12.5 bm25\n301 Q0 LA0101-2 2 -0.25 bm25\n302 Q0 FT911-3 1 3e-05 bm25\n"
QRELS_TEXT = "301 0 FBIS3-1 2\n301 0 LA0101-2 0\n302 0 FT911-9 -1\n"


def run_frame(rows: list[tuple[str, str, int, float, str]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=RUN_SCHEMA, orient="row")


def qrels_frame(rows: list[tuple[str, str, int]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=QRELS_SCHEMA, orient="row")


def messy(text: str) -> str:
    """The same content with every tolerated irregularity at once."""
    out = ["# produced by a test", ""]
    for i, line in enumerate(text.splitlines()):
        fields = line.split(" ")
        out.append(("  " if i % 2 else "\t") + " \t ".join(fields) + "   ")
        out.append("   # a comment after leading blanks")
        out.append(" \t ")
    return "\r\n".join(out) + "\r\n"


VARIANTS = {
    "plain": lambda t: t.encode(),
    "no final newline": lambda t: t.rstrip("\n").encode(),
    "tabs": lambda t: t.replace(" ", "\t").encode(),
    "crlf": lambda t: t.replace("\n", "\r\n").encode(),
    "messy": lambda t: messy(t).encode(),
    "bom": lambda t: b"\xef\xbb\xbf" + t.encode(),
    "gzip": lambda t: gzip.compress(t.encode()),
    "gzip messy": lambda t: gzip.compress(messy(t).encode()),
}


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


# --- accepted variants ------------------------------------------------------------------


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_run_variants(tmp_path: Path, variant: str) -> None:
    suffix = ".gz" if variant.startswith("gzip") else ".txt"
    path = write(tmp_path, "run" + suffix, VARIANTS[variant](RUN_TEXT))
    assert_frame_equal(read_run(path), run_frame(RUN_ROWS))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_qrels_variants(tmp_path: Path, variant: str) -> None:
    suffix = ".gz" if variant.startswith("gzip") else ".txt"
    path = write(tmp_path, "qrels" + suffix, VARIANTS[variant](QRELS_TEXT))
    assert_frame_equal(read_qrels(path), qrels_frame(QRELS_ROWS))


def test_gzip_detected_by_magic_bytes_not_name(tmp_path: Path) -> None:
    hidden = write(tmp_path, "run.txt", gzip.compress(RUN_TEXT.encode()))
    assert_frame_equal(read_run(hidden), run_frame(RUN_ROWS))
    misnamed = write(tmp_path, "qrels.gz", QRELS_TEXT.encode())
    assert_frame_equal(read_qrels(misnamed), qrels_frame(QRELS_ROWS))


def test_str_path_and_number_syntax(tmp_path: Path) -> None:
    path = write(tmp_path, "run", b"q Q0 a +3 1E2 t\nq Q0 b -1 .5 t\nq Q0 c 007 -4. t\n")
    out = read_run(str(path))
    assert out["rank"].to_list() == [3, -1, 7]
    assert out["score"].to_list() == [100.0, 0.5, -4.0]


def test_run_fields_after_the_sixth_are_ignored(tmp_path: Path) -> None:
    # trec_eval's own test/results.trunc has "more junk at end of lines".
    path = write(tmp_path, "run", b"301\tQ0\tD1\t99\t  2.13\tSTD more junk at\nq Q0 d2 1 1 t\n")
    assert read_run(path).rows() == [("301", "D1", 99, 2.13, "STD"), ("q", "d2", 1, 1.0, "t")]


def test_vertical_tab_and_form_feed_separate_fields(tmp_path: Path) -> None:
    path = write(tmp_path, "qrels", b"1\x0b0\x0cd1 1\n")
    assert read_qrels(path).rows() == [("1", "d1", 1)]


def test_non_ascii_ids_kept(tmp_path: Path) -> None:
    path = write(tmp_path, "qrels", "q\u00e9 0 d\u2014x 1\n".encode())
    assert read_qrels(path).rows() == [("q\u00e9", "d\u2014x", 1)]


def test_chunked_reading_keeps_line_numbers(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(io, "_CHUNK_BYTES", 16)
    lines = [f"q{i % 7} Q0 d{i} {i} {i / 3} tag" for i in range(200)]
    lines[150] = "q1 Q0 dX 1 1.0"
    path = write(tmp_path, "run", ("\n".join(lines[:150]) + "\n").encode())
    expected = [(f"q{i % 7}", f"d{i}", i, i / 3, "tag") for i in range(150)]
    assert read_run(path).rows() == expected
    path = write(tmp_path, "bad", ("\n".join(lines) + "\n").encode())
    with pytest.raises(InputError, match=r"bad, line 151: expected at least 6 fields"):
        read_run(path)


# --- rejected input: the message names the file and the line ---------------------------

RUN_ERRORS = [
    ("five fields", "q Q0 d1 1 1.0 t\nq Q0 d2 2 1.0\n", 2,
     "expected at least 6 fields (qid Q0 docid rank score tag), found 5"),
    ("one field", "# c\n\nq\n", 3, "found 1"),
    ("text score", "q Q0 d1 1 1.0 t\nq Q0 d2 2 high t\n", 2, "score 'high' is not a finite number"),
    ("hex score", "q Q0 d1 1 0x10 t\n", 1, "score '0x10' is not a finite number"),
    ("nan score", "q Q0 d1 1 nan t\n", 1, "score 'nan' is not a finite number"),
    ("inf score", "q Q0 d1 1 -inf t\n", 1, "score '-inf' is not a finite number"),
    ("overflowing score", "q Q0 d1 1 1e999 t\n", 1, "score '1e999' is not a finite number"),
    ("duplicate", "q Q0 d1 1 2.0 t\nq Q0 d2 2 1.0 t\r\n\r\nq Q0 d1 3 0.5 t\n", 4,
     "duplicate document 'd1' for query 'q' (first on line 1)"),
    ("binary", "q Q0 d1 1 1.0 t\n\x00\x01\x02", 2, "binary data (NUL byte)"),
]
QRELS_ERRORS = [
    ("three fields", "1 0 d1 1\n1 0 d2\n", 2, "expected 4 fields (qid iter docid rel), found 3"),
    ("text grade", "1 0 d1 x\n", 1, "relevance grade 'x' is not an integer"),
    ("fractional grade", "1 0 d1 1\n1 0 d2 1.5\n", 2, "relevance grade '1.5' is not an integer"),
    ("duplicate", "1 0 d1 1\n2 0 d1 1\n1 0 d1 0\n", 3,
     "duplicate document 'd1' for query '1' (first on line 1)"),
    ("first error wins", "1 0 d1 x\n1 0 d2\n", 1, "relevance grade 'x'"),
]


@pytest.mark.parametrize(("case", "text", "line", "problem"), RUN_ERRORS,
                         ids=[c[0] for c in RUN_ERRORS])
def test_run_errors_name_file_and_line(tmp_path: Path, case: str, text: str, line: int,
                                       problem: str) -> None:
    for name, data in (("run.txt", text.encode()), ("run.gz", gzip.compress(text.encode()))):
        path = write(tmp_path, name, data)
        with pytest.raises(InputError) as info:
            read_run(path)
        message = str(info.value)
        assert message.startswith(f"{path}, line {line}: "), message
        assert problem in message
        assert "\n" not in message


@pytest.mark.parametrize(("case", "text", "line", "problem"), QRELS_ERRORS,
                         ids=[c[0] for c in QRELS_ERRORS])
def test_qrels_errors_name_file_and_line(tmp_path: Path, case: str, text: str, line: int,
                                         problem: str) -> None:
    path = write(tmp_path, "qrels.txt", text.encode())
    with pytest.raises(InputError) as info:
        read_qrels(path)
    message = str(info.value)
    assert message.startswith(f"{path}, line {line}: "), message
    assert problem in message


def test_undecodable_file(tmp_path: Path) -> None:
    path = write(tmp_path, "run.txt", b"q Q0 d1 1 1.0 t\nq Q0 d\xe9 2 1.0 t\n")
    with pytest.raises(InputError, match=r"run\.txt, line 2: not UTF-8 text \(byte 0xe9\)"):
        read_run(path)


@pytest.mark.parametrize("content", [b"", b"\n\r\n  \n", b"# only\n  # comments\n"],
                         ids=["zero bytes", "blank lines", "comments"])
@pytest.mark.parametrize("reader", [read_run, read_qrels])
def test_empty_files_are_errors(tmp_path: Path, content: bytes, reader: object) -> None:
    path = write(tmp_path, "empty.txt", content)
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: no (run|qrels) lines"):
        reader(path)  # type: ignore[operator]


def test_empty_gzip_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, "run.gz", gzip.compress(b""))
    with pytest.raises(InputError, match="no run lines"):
        read_run(path)


def test_broken_gzip(tmp_path: Path) -> None:
    path = write(tmp_path, "run.gz", gzip.compress(RUN_TEXT.encode())[:20])
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: broken gzip stream"):
        read_run(path)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "run.txt"
    with pytest.raises(FileNotFoundError, match=rf"run file not found: {re.escape(str(missing))}"):
        read_run(missing)
    with pytest.raises(FileNotFoundError, match="qrels file not found"):
        read_qrels(missing)
    with pytest.raises(InputError, match="is a directory"):
        read_qrels(tmp_path)


# --- generated files against a line-by-line oracle and against the SQL readers ----------

FIELD = re.compile(r"[^ \t\n\v\f\r]+")
IDS = st.text(alphabet="abcXYZ019-_.:\u00e9", min_size=1, max_size=6).filter(
    lambda s: not s.startswith("#"))
SEPARATORS = st.sampled_from([" ", "\t", "  ", " \t", "\t\t "])


def oracle_run(text: str) -> list[tuple[str, str, int, float, str]]:
    """The run format read one line at a time (valid input only)."""
    rows = []
    for line in text.split("\n"):
        fields = FIELD.findall(line)
        if fields and not fields[0].startswith("#"):
            qid, _, docid, rank, score, tag = fields
            rows.append((qid, docid, int(rank), float(score), tag))
    return rows


@st.composite
def run_files(draw: st.DrawFn) -> str:
    keys = draw(st.lists(st.tuples(IDS, IDS), min_size=1, max_size=30, unique=True))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    lines = []
    for qid, docid in keys:
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", "  ", "# note", "\t#x y z"])))
        sep = draw(SEPARATORS)
        rank = draw(st.integers(-5, 10**6))
        score = draw(st.floats(allow_nan=False, allow_infinity=False, width=64))
        lines.append(draw(st.sampled_from(["", " ", "\t"])) + sep.join(
            [qid, "Q0", docid, str(rank), repr(score), draw(IDS)]))
    return newline.join(lines) + draw(st.sampled_from(["", newline]))


@given(text=run_files(), compress=st.booleans())
def test_generated_runs_match_oracle_and_sql(tmp_path_factory: pytest.TempPathFactory,
                                             con: duckdb.DuckDBPyConnection, text: str,
                                             compress: bool) -> None:
    folder = tmp_path_factory.mktemp("gen")
    data = text.encode()
    if compress:
        path = write(folder, "run.gz", gzip.compress(data))
    else:
        path = write(folder, "run.txt", data)
    frame = read_run(path)
    assert frame.rows() == oracle_run(text)
    sql = con.sql(f"SELECT * FROM rf_read_run('{path}')").pl()
    assert_frame_equal(sql, frame)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_sql_readers_match_python(tmp_path: Path, con: duckdb.DuckDBPyConnection,
                                  variant: str) -> None:
    suffix = ".gz" if variant.startswith("gzip") else ".txt"
    run = write(tmp_path, "run" + suffix, VARIANTS[variant](RUN_TEXT))
    qrels = write(tmp_path, "qrels" + suffix, VARIANTS[variant](QRELS_TEXT))
    assert_frame_equal(con.sql(f"SELECT * FROM rf_read_run('{run}')").pl(), read_run(run))
    assert_frame_equal(con.sql(f"SELECT * FROM rf_read_qrels('{qrels}')").pl(), read_qrels(qrels))


SQL_ERRORS = [
    ("rf_read_run", "q Q0 d1 1 1.0\n",
     "rf_read_run: expected at least 6 fields (qid Q0 docid rank score tag), found 5 in line: "
     "q Q0 d1 1 1.0"),
    ("rf_read_run", "q Q0 d1 1 0x10 t\n", "rf_read_run: score '0x10' is not a finite number"),
    ("rf_read_run", "q Q0 d1 1 inf t\n", "rf_read_run: score 'inf' is not a finite number"),
    ("rf_read_qrels", "1 0 d1\n", "rf_read_qrels: expected 4 fields (qid iter docid rel), found 3"),
    ("rf_read_qrels", "1 0 d1 1.5\n", "rf_read_qrels: relevance grade '1.5' is not an integer"),
    ("rf_read_qrels", "1 0 d1 0x1\n", "rf_read_qrels: relevance grade '0x1' is not an integer"),
]


@pytest.mark.parametrize(("macro", "text", "problem"), SQL_ERRORS)
def test_sql_reader_errors(tmp_path: Path, con: duckdb.DuckDBPyConnection, macro: str,
                           text: str, problem: str) -> None:
    path = write(tmp_path, "in.txt", text.encode())
    with pytest.raises(duckdb.Error, match=re.escape(problem)):
        con.sql(f"SELECT * FROM {macro}('{path}')").fetchall()


def test_sql_run_reader_ignores_the_rank_field_as_read_run_does(
        tmp_path: Path, con: duckdb.DuckDBPyConnection) -> None:
    path = write(tmp_path, "run.txt", b"q Q0 d1 1.0 2.5 t\nq Q0 d2 - 1.5 t\nq Q0 d3 7 0.5 t\n")
    sql = con.sql(f"SELECT * FROM rf_read_run('{path}')").pl()
    assert sql["rank"].to_list() == [None, None, 7]
    assert_frame_equal(sql, read_run(path))


def test_sql_run_reader_ignores_fields_after_the_sixth(
        tmp_path: Path, con: duckdb.DuckDBPyConnection) -> None:
    path = write(tmp_path, "run.txt", b"q Q0 d1 1 2.5 t more junk\nq Q0 d2 2 1.5 t\n")
    sql = con.sql(f"SELECT * FROM rf_read_run('{path}')").pl()
    assert sql["tag"].to_list() == ["t", "t"]
    assert_frame_equal(sql, read_run(path))


def test_sql_reader_empty_file_is_empty_table(tmp_path: Path,
                                              con: duckdb.DuckDBPyConnection) -> None:
    path = write(tmp_path, "in.txt", b"# nothing\n")
    assert con.sql(f"SELECT count(*) FROM rf_read_qrels('{path}')").fetchall() == [(0,)]


# --- the fast path (plain single-space files) and the general path agree -------------------


@given(rows=st.lists(st.tuples(st.sampled_from(["1", "q2", "10"]),
                               st.sampled_from(["d1", "d2", "D3", "\u00e9", "7"]),
                               st.sampled_from(["1", "+2", "-0", "x", "1.5", "1e2", "0x1",
                                                "1_0", "\u0661", "\uff15", "99999999999999999999"]),
                               st.sampled_from(["2.5", "-1e3", ".5", "7.", "nan", "inf", "1x",
                                                "NaN", "-Infinity", "1e400", "+.5", "1.5.2",
                                                "e5", "1e", "0x1p3", "1_0", "\uff15", "1d"])),
                     min_size=1, max_size=12),
       blanks=st.sampled_from(["", "\t", "  ", "\r"]))
def test_fast_and_general_paths_agree(tmp_path_factory: pytest.TempPathFactory,
                                      rows: list[tuple[str, str, str, str]], blanks: str) -> None:
    """A plain file goes through the CSV fast path, the same file with other blanks through
    the general reader; tables and error messages (line numbers) must be the same."""
    folder = tmp_path_factory.mktemp("fast")
    outcomes = []
    for name, sep in (("plain", " "), ("other", " " + blanks if blanks != "\r" else " ")):
        end = "\r\n" if blanks == "\r" and name == "other" else "\n"
        run_path, qrels_path = folder / f"{name}.run", folder / f"{name}.qrels"
        run_path.write_text("".join(sep.join([q, "Q0", d, r, s, "t"]) + end
                                    for q, d, r, s in rows), encoding="utf-8")
        qrels_path.write_text("".join(sep.join([q, "0", d, r]) + end for q, d, r, _ in rows),
                              encoding="utf-8")
        outcome = []
        for reader, path in ((read_run, run_path), (read_qrels, qrels_path)):
            try:
                outcome.append(reader(path).rows())
            except InputError as error:
                outcome.append(str(error).replace(str(path), "<file>"))
        outcomes.append(outcome)
    assert outcomes[0] == outcomes[1]


def test_fast_path_is_taken_for_plain_files(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1 t\n")
    fast = io._simple_table(path.read_bytes(), io.RUN_LAYOUT)
    assert fast is not None
    assert fast.select("qid", "docid", "rank", "score", "tag").rows() == read_run(path).rows()
    path.write_text("q1 Q0 d1 1 2.5 t\nq1 Q0 d1 2 1 t\n")
    assert io._simple_table(path.read_bytes(), io.RUN_LAYOUT) is None
    with pytest.raises(InputError, match=r"line 2: duplicate document 'd1'"):
        read_run(path)

"""One line grammar (rankframe.io.lines) for every reader: the pure-Python small-file path of
``rankframe eval`` reads the lines the Polars readers read, whatever the line ends (LF,
CRLF, lone CR, mixed), blanks, blank lines and comments."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankframe.cli import main
from rankframe.cli.eval_small import read_plain
from rankframe.io import read_qrels, read_run
from rankframe.io.lines import data_fields, data_lines
from tests.support import REPO
from tests.support.faces import examples

DATA = REPO / "examples" / "data"
ENDINGS = ("\n", "\r\n", "\r")


def with_ends(data: bytes, style: str) -> bytes:
    """``data`` (LF-ended lines) with every line end in ``style``: lf, crlf, cr or mixed
    (the three in turn)."""
    lines = data.decode().splitlines()
    if style == "mixed":
        return "".join(line + ENDINGS[i % 3] for i, line in enumerate(lines)).encode()
    end = {"lf": "\n", "crlf": "\r\n", "cr": "\r"}[style]
    return "".join(line + end for line in lines).encode()


@pytest.fixture(scope="module")
def styled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    """The example qrels and run in each line-end style."""
    folder = tmp_path_factory.mktemp("ends")
    out = {}
    for style in ("lf", "crlf", "cr", "mixed"):
        qrels, run = folder / f"qrels.{style}", folder / f"run.{style}"
        qrels.write_bytes(with_ends((DATA / "qrels.txt").read_bytes(), style))
        run.write_bytes(with_ends((DATA / "run.bm25.txt").read_bytes(), style))
        out[style] = (qrels, run)
    return out


def evaluate(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    status = main(["eval", *map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("style", ["lf", "crlf", "cr", "mixed"])
def test_every_line_end_gives_the_same_bytes_on_auto_and_polars(
        styled: dict[str, tuple[Path, Path]], style: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = styled[style]
    _, expected, _ = evaluate(capsys, "-q", "-m", "all_trec", "--engine", "polars",
                              styled["lf"][0], styled["lf"][1])
    assert expected.count("\n") > 1000
    for engine in ("auto", "polars", "python"):
        status, out, _ = evaluate(capsys, "-q", "-m", "all_trec", "--engine", engine, qrels, run)
        assert (status, out) == (0, expected), engine


@pytest.mark.parametrize("style", ["crlf", "cr", "mixed"])
def test_the_small_file_path_takes_every_line_end(
        styled: dict[str, tuple[Path, Path]], style: str) -> None:
    """The pure-Python reader reads the lines of the LF file, so ``--engine auto`` keeps
    such files on its Polars-free path."""
    for i, fields in enumerate((4, 6)):
        lf = read_plain(str(styled["lf"][i]), fields)
        assert lf is not None
        assert read_plain(str(styled[style][i]), fields) == lf


def test_a_cr_only_file_stays_off_polars_on_engine_auto(
        styled: dict[str, tuple[Path, Path]]) -> None:
    qrels, run = styled["cr"]
    code = ("import sys\nfrom rankframe.cli.main import main\n"
            f"assert main(['eval', '-m', 'map', {str(qrels)!r}, {str(run)!r}]) == 0\n"
            "print(sorted(sys.modules), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=REPO)
    modules = ast.literal_eval(done.stderr.strip().splitlines()[-1])
    assert "rankframe.cli.eval_small" in modules and "polars" not in modules


@pytest.mark.parametrize("engine", ["auto", "python", "polars"])
def test_a_lone_cr_inside_a_line_ends_it_on_every_path(
        tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A lone CR ends a line for every reader: a run line cut by one has 5 fields, and
    every engine names that line rather than reading the two parts as one line."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(b"1 0 a 1\n1 0 b 0\n")
    run.write_bytes(b"1 Q0 a 1 2.0\rt\n1 Q0 b 2 1.0 t\n")
    status, out, err = evaluate(capsys, "-m", "map", "--engine", engine, qrels, run)
    assert (status, out) == (1, "")
    assert f"{run}, line 1: expected at least 6 fields" in err


# Files built from fields, blanks, line ends, blank lines and comment lines.
_NAMES = st.text("abcXYZ019_-.", min_size=1, max_size=4)
_BLANKS = st.sampled_from([" ", "\t", "  ", "\v", "\f", " \t "])
_ENDS = st.sampled_from(ENDINGS)


@st.composite
def texts(draw: st.DrawFn, kind: str, comments: bool = True) -> tuple[str, list[list[str]]]:
    """A run or qrels text and the fields of its data lines, in order (``comments``: with
    comment lines among them)."""
    rows: list[list[str]] = []
    text = ""
    for i in range(draw(st.integers(1, 12))):
        qid = draw(_NAMES)
        value = str(draw(st.integers(-3, 3))) if kind == "qrels" else \
            repr(draw(st.floats(-1e6, 1e6, allow_nan=False)))
        fields = ([qid, "0", f"d{i}", value] if kind == "qrels"
                  else [qid, "Q0", f"d{i}", str(i + 1), value, draw(_NAMES)])
        lead, trail = draw(st.sampled_from(["", " ", "\t"])), draw(st.sampled_from(["", " "]))
        line = lead + "".join(f + draw(_BLANKS) for f in fields[:-1]) + fields[-1] + trail
        extra = draw(st.sampled_from(["", "blank", "comment"] if comments else ["", "blank"]))
        if extra == "blank":
            text += draw(st.sampled_from(["", " ", "\t\f"])) + draw(_ENDS)
        elif extra == "comment":
            text += draw(st.sampled_from(["#", " # ", "\t#x"])) + " note" + draw(_ENDS)
        text += line + draw(_ENDS)
        rows.append(fields)
    return text, rows


def _write(tmp: Path, text: str) -> Path:
    path = tmp / "file"
    path.write_bytes(text.encode())
    return path


@given(case=texts("run"))
@settings(max_examples=examples(share=0.5), deadline=None)
def test_data_lines_match_read_run(tmp_path_factory: pytest.TempPathFactory,
                                   case: tuple[str, list[list[str]]]) -> None:
    text, rows = case
    path = _write(tmp_path_factory.mktemp("run"), text)
    got = [(f[0], f[2], int(f[3]), float(f[4]), f[5]) for _, f in data_lines(text)]
    assert read_run(path).rows() == got
    assert [f for _, f in data_lines(text)] == rows == data_fields(text)


@given(case=texts("qrels", comments=False))
@settings(max_examples=examples(share=0.5), deadline=None)
def test_the_small_reader_matches_read_qrels(tmp_path_factory: pytest.TempPathFactory,
                                             case: tuple[str, list[list[str]]]) -> None:
    """Without comments (the small path leaves files with ``#`` to Polars), the
    pure-Python reader and read_qrels read the same rows."""
    text, rows = case
    path = _write(tmp_path_factory.mktemp("qrels"), text)
    plain = read_plain(str(path), 4)
    assert plain == rows
    assert read_qrels(path).rows() == [(q, d, int(g)) for q, _, d, g in rows]

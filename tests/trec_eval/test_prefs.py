"""trec_eval's preference measures (``-R prefs``, ``-R qrels_prefs``, ``prefs_*``).

- trec_eval 10's own test outputs (tests/data/trec_eval), line for line, on both engines.
- The worked examples of docs/semantics.md#preferences, by hand, on every face.
- Generated cases: the Polars frame functions, the ``rf_prefs`` macro and the oracle agree
  (to 1e-9, and in the printed digits), and ``rankframe eval`` prints what the trec_eval
  10 binary prints (:mod:`tests.support.trec_eval`).
- The readers' errors name the file and line; a cycle is an error on every face.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankframe.cli import main
from rankframe.errors import InputError
from rankframe.faces import REGISTERED, gaps, oracle
from rankframe.faces.duckdb import evaluate_prefs
from rankframe.faces.polars.prefs import PREFS_COUNTS, PREFS_MEASURES, prefs_evaluate
from rankframe.io import read_prefs, read_qrels_prefs, read_run
from tests import support
from tests.support import trec_eval as te_binary
from tests.support.faces import examples

DATA = support.DATA / "trec_eval"


def oracle_evaluate(prefs: pl.DataFrame, run: pl.DataFrame, *, depth: int | None = None,
                    complete: bool = False) -> pl.DataFrame:
    """The oracle's measures for every query, in the frame functions' table shape."""
    queries = set(prefs["qid"]) if complete else set(prefs["qid"]) & set(run["qid"])
    rows = []
    for qid in sorted(queries, key=lambda q: q.encode()):
        mine = prefs.filter(pl.col("qid") == qid).select("jg", "jsg", "docid", "level").rows()
        results = run.filter(pl.col("qid") == qid).select("docid", "score").rows()
        rows.append({"qid": qid, **oracle.prefs_measures(qid, mine, oracle.prefs_ranking(
            results, depth))})
    schema = {"qid": pl.String, **{m: pl.Int64 if m in PREFS_COUNTS else pl.Float64
                                   for m in PREFS_MEASURES}}
    return pl.DataFrame(rows, schema=schema)


FACES: dict[str, Callable[..., pl.DataFrame]] = {
    "polars": prefs_evaluate, "duckdb": evaluate_prefs, "oracle": oracle_evaluate}


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(args) == 0
    return capsys.readouterr().out


# --------------------------------------------------------------------------- trec_eval's tests

@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize(("fmt", "rel", "run", "expected"), [
    ("prefs", "prefs.test", "prefs.results.test", "out.test.prefs"),
    ("prefs", "prefs.comment.test", "prefs.results.test", "out.test.prefs"),
    ("qrels_prefs", "qrels.test", "results.test", "out.test.qrels_prefs"),
])
def test_trec_eval_test_outputs(fmt: str, rel: str, run: str, expected: str, engine: str,
                                capsys: pytest.CaptureFixture[str]) -> None:
    out = cli(["eval", "--engine", engine, "-m", "all_prefs", "-q", "-R", fmt,
               str(DATA / rel), str(DATA / run)], capsys)
    assert out.splitlines() == (DATA / expected).read_text().splitlines()


def test_default_measures_are_trec_eval_prefs_nickname(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    out = cli(["eval", "-R", "prefs", str(DATA / "prefs.test"),
               str(DATA / "prefs.results.test")], capsys)
    names = [line.split("\t")[0].strip() for line in out.splitlines()]
    assert names == ["runid", "num_q", *PREFS_MEASURES[:6]]


def test_sql_readers_read_what_the_python_readers_read() -> None:
    import duckdb

    con = duckdb.connect()
    for name in ("_helpers", "rf_read_prefs", "rf_read_qrels_prefs"):  # helpers first
        con.execute((support.SQL_DIR / f"{name}.sql").read_text())
    for macro, reader, path in (("rf_read_prefs", read_prefs, "prefs.comment.test"),
                                ("rf_read_qrels_prefs", read_qrels_prefs, "qrels.test")):
        sql = con.sql(f"SELECT * FROM {macro}('{DATA / path}')").pl()
        assert sql.rows() == reader(DATA / path).rows()


# --------------------------------------------------------------------------- worked examples

WORKED_PREFS = """\
q1 u1 s b 2
q1 u1 s d 1
q1 u1 s a 0
q1 u1 s f 0
q1 u2 s1 c 2
q1 u2 s1 b 1
q1 u2 s2 b 2
q1 u2 s2 e 0
q1 u3 s a 1
q1 u3 s b 0
q2 v s p 1
q2 v s n1 0
q2 v s n2 0
q2 v s n3 0
"""
WORKED_RUN = """\
q1 Q0 a 1 4 t
q1 Q0 b 2 3 t
q1 Q0 c 3 2 t
q1 Q0 x 4 1 t
q2 Q0 p 1 3 t
q2 Q0 n1 2 2 t
q2 Q0 n2 3 1 t
"""
#: By hand (docs/semantics.md#preferences, "Worked examples").
WORKED: dict[str, dict[str, float]] = {
    "q1": {"prefs_num_prefs_poss": 9, "prefs_num_prefs_ful": 5, "prefs_num_prefs_ful_ret": 1,
           "prefs_simp": 5 / 9, "prefs_pair": 4.5 / 8, "prefs_avgjg": (2 / 5 + 2 / 3 + 1) / 3,
           "prefs_avgjg_Rnonrel": (2 / 5 + 4 / 5 + 1) / 3, "prefs_simp_ret": 1 / 3,
           "prefs_pair_ret": 0.5 / 2, "prefs_avgjg_ret": (0 + 0 + 1) / 3,
           "prefs_avgjg_Rnonrel_ret": (0 + 4 / 5 + 1) / 3, "prefs_simp_imp": 5 / 8,
           "prefs_pair_imp": 4.5 / 7, "prefs_avgjg_imp": (2 / 4 + 2 / 3 + 1) / 3},
    "q2": {"prefs_num_prefs_poss": 3, "prefs_num_prefs_ful": 3, "prefs_num_prefs_ful_ret": 2,
           "prefs_simp": 1, "prefs_pair": 1, "prefs_avgjg": 1, "prefs_avgjg_Rnonrel": 1 / 4,
           "prefs_simp_ret": 1, "prefs_pair_ret": 1, "prefs_avgjg_ret": 1,
           "prefs_avgjg_Rnonrel_ret": 1 / 3, "prefs_simp_imp": 1, "prefs_pair_imp": 1,
           "prefs_avgjg_imp": 1},
}


@pytest.fixture
def worked(tmp_path: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    (tmp_path / "prefs").write_text(WORKED_PREFS)
    (tmp_path / "run").write_text(WORKED_RUN)
    return read_prefs(tmp_path / "prefs"), read_run(tmp_path / "run")


@pytest.mark.parametrize("face", sorted(FACES))
def test_worked_examples(face: str, worked: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    table = FACES[face](*worked)
    assert table.columns == ["qid", *PREFS_MEASURES]
    for row in table.iter_rows(named=True):
        expected = WORKED[row.pop("qid")]
        for name, value in row.items():
            assert value == pytest.approx(expected[name], abs=1e-12), name


@pytest.mark.parametrize("face", sorted(FACES))
def test_depth_and_ties(face: str, worked: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    """Ties go to the smaller docid (trec_eval's preference ranking); -M cuts after that."""
    prefs = pl.DataFrame({"qid": ["q"] * 2, "jg": ["g"] * 2, "jsg": ["s"] * 2,
                          "docid": ["b", "a"], "level": [1.0, 0.0]})
    run = pl.DataFrame({"qid": ["q"] * 2, "docid": ["b", "a"], "score": [1.0, 1.0]})
    values = FACES[face](prefs, run).row(0, named=True)
    assert values["prefs_simp_ret"] == 0.0  # a ranks above b: b > a is not fulfilled
    cut = FACES[face](prefs, run, depth=1).row(0, named=True)
    assert (cut["prefs_simp_ret"], cut["prefs_num_prefs_ful"]) == (0.0, 0)  # b not retrieved


@pytest.mark.parametrize("face", sorted(FACES))
def test_complete_evaluates_queries_without_results(face: str) -> None:
    prefs = pl.DataFrame({"qid": ["q", "q", "r", "r"], "jg": ["g"] * 4, "jsg": ["s"] * 4,
                          "docid": ["a", "b", "a", "b"], "level": [1.0, 0.0, 1.0, 0.0]})
    run = pl.DataFrame({"qid": ["q"], "docid": ["a"], "score": [1.0]})
    assert FACES[face](prefs, run)["qid"].to_list() == ["q"]
    table = FACES[face](prefs, run, complete=True)
    assert table["qid"].to_list() == ["q", "r"]
    assert table.row(1, named=True)["prefs_num_prefs_poss"] == 1
    assert table.row(1, named=True)["prefs_simp"] == 0.0


# --------------------------------------------------------------------------- errors

@pytest.mark.parametrize(("text", "named"), [
    ("q1 u s d1 x\n", "line 1: level 'x' is not a finite number"),
    ("q1 u s d1\n", "line 1: expected 5 fields"),
    ("q1 u s d1 1 extra\n", "line 1: expected 5 fields"),
    ("q1 u s d1 -1\n", "line 1: level '-1' is negative"),
    ("q1 u s d1 1\nq1 u s d1 2\n", "line 2: document 'd1' appears twice"),
    ("q1 u s d1 1\nq1 u t d1 0\n", "line 2: document 'd1' of query 'q1' has level 0"),
    ("# only a comment\n", "no prefs lines"),
])
def test_prefs_reader_errors(text: str, named: str, tmp_path: Path) -> None:
    path = tmp_path / "prefs"
    path.write_text(text)
    with pytest.raises(InputError, match=f"{path}, {named}" if named.startswith("line") else named):
        read_prefs(path)


def test_qrels_prefs_reader(tmp_path: Path) -> None:
    path = tmp_path / "qrels"
    path.write_text("#c\nq1 0 d1 -1\nq1 1 d1 2\n q1 0 d2 0\n")
    assert read_qrels_prefs(path).rows() == [("q1", "0", "0", "d1", -1.0),
                                             ("q1", "1", "0", "d1", 2.0),
                                             ("q1", "0", "0", "d2", 0.0)]
    path.write_text("q1 0 d1 1\nq1 0 d1 2\n")
    with pytest.raises(InputError, match="line 2: document 'd1' appears twice"):
        read_qrels_prefs(path)


@pytest.mark.parametrize("face", sorted(FACES))
def test_a_cycle_is_an_error(face: str) -> None:
    prefs = pl.DataFrame({"qid": ["q"] * 4, "jg": ["g"] * 4, "jsg": ["s", "s", "t", "t"],
                          "docid": ["a", "b", "b", "a"], "level": [2.0, 1.0, 2.0, 1.0]})
    run = pl.DataFrame({"qid": ["q"], "docid": ["a"], "score": [1.0]})
    with pytest.raises(InputError, match="is preferred to itself"):
        FACES[face](prefs, run)


def test_measures_and_formats_are_matched(capsys: pytest.CaptureFixture[str]) -> None:
    prefs, run = str(DATA / "prefs.test"), str(DATA / "prefs.results.test")
    assert main(["eval", "-R", "prefs", "-m", "map", prefs, run]) != 0
    assert "not a preference measure" in capsys.readouterr().err
    assert main(["eval", "-m", "all_prefs", str(DATA / "qrels.test"), run]) != 0
    assert "-R prefs or -R qrels_prefs" in capsys.readouterr().err


# --------------------------------------------------------------------------- generated cases

@st.composite
def prefs_cases(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """Consistent preference files (each judgment group orders its documents by one hidden
    order, non-relevant ones last, so sub-groups never contradict each other) and runs with
    tied scores, unjudged documents, queries on one side only."""
    prefs: list[str] = []
    run: list[str] = []
    for q in range(draw(st.integers(1, 3))):
        docs = [f"d{i}" for i in range(draw(st.integers(2, 7)))]
        for g in range(draw(st.integers(1, 3))):
            order = draw(st.permutations(docs))
            nonrel = set(draw(st.lists(st.sampled_from(docs), max_size=3)))
            for s in range(draw(st.sampled_from([1, 1, 2, 3]))):
                level = 4
                for doc in order:
                    if not draw(st.booleans()) and len(order) > 2:
                        continue
                    if doc in nonrel:
                        prefs.append(f"q{q} g{g} s{s} {doc} 0")
                        continue
                    level = max(1, level - draw(st.integers(0, 1)))
                    prefs.append(f"q{q} g{g} s{s} {doc} {level}")
        for doc in [*docs, "x"]:
            if draw(st.booleans()):
                run.append(f"q{q} Q0 {doc} 1 {draw(st.sampled_from([1, 2, 2.5, 3]))} t")
    prefs.append("qf g0 s0 d0 1")  # a query on both sides, so the files are never empty
    run.append("qf Q0 d0 1 1 t")
    return prefs, run


def _write_case(tmp: Path, prefs: list[str], run: list[str]) -> tuple[Path, Path]:
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "prefs").write_text("\n".join(prefs) + "\n")
    (tmp / "run").write_text("\n".join(run) + "\n")
    return tmp / "prefs", tmp / "run"


def _case_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("case")


@settings(max_examples=examples(share=1.6),
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=prefs_cases(), depth=st.sampled_from([None, None, 2, 4]), complete=st.booleans())
def test_faces_agree(case: tuple[list[str], list[str]], depth: int | None, complete: bool,
                     tmp_path_factory: pytest.TempPathFactory) -> None:
    prefs_path, run_path = _write_case(_case_dir(tmp_path_factory), *case)
    prefs, run = read_prefs(prefs_path), read_run(run_path)
    tables = {name: f(prefs, run, depth=depth, complete=complete) for name, f in FACES.items()}
    reference = tables.pop("oracle")
    for name, table in tables.items():
        assert table["qid"].to_list() == reference["qid"].to_list(), name
        for measure in PREFS_MEASURES:
            for got, want in zip(table[measure], reference[measure], strict=True):
                assert got == pytest.approx(want, abs=1e-9), (name, measure)
                assert f"{got:6.4f}" == f"{want:6.4f}", (name, measure)


@pytest.mark.usefixtures("trec_eval_bin")
@settings(max_examples=examples(share=1.6),
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=prefs_cases(), depth=st.sampled_from([None, None, 2, 4]),
       fmt=st.sampled_from(["prefs", "qrels_prefs"]), engine=st.sampled_from(["polars", "duckdb"]),
       complete=st.booleans())
def test_prints_what_trec_eval_prints(case: tuple[list[str], list[str]], depth: int | None,
                                      fmt: str, engine: str, complete: bool,
                                      tmp_path_factory: pytest.TempPathFactory,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    prefs, run = case
    if not complete:  # trec_eval 10 stops at a prefs query without results unless -c
        with_results = {line.split()[0] for line in run}
        prefs = [line for line in prefs if line.split()[0] in with_results]
    if fmt == "qrels_prefs":  # qid iter docid rel: one line per (qid, group, doc)
        seen: dict[tuple[str, str, str], str] = {}
        for line in prefs:
            q, g, _, d, level = line.split()
            # non-relevant as -1: one level <= 0 (with 0 and -1 both, trec_eval's Rnonrel
            # can read past its data: a departure, docs/semantics.md)
            seen.setdefault((q, g, d), "-1" if level == "0" else level)
        prefs = [" ".join([*key, grade]) for key, grade in seen.items()]
    prefs_path, run_path = _write_case(_case_dir(tmp_path_factory), prefs, run)
    options: list[Any] = ["-q", "-m", "all_prefs", "-R", fmt] + (["-c"] if complete else [])
    if depth is not None:
        options += ["-M", str(depth)]
    expected = subprocess.run([str(te_binary.required()), *options, str(prefs_path), str(run_path)],
                              capture_output=True, text=True, check=True).stdout
    capsys.readouterr()
    got = cli(["eval", "--engine", engine, *options, str(prefs_path), str(run_path)], capsys)
    assert got == expected


@pytest.mark.parametrize("name", sorted(REGISTERED))
def test_every_face_computes_the_preference_measures_or_says_why_not(
        name: str, worked: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    """A face of :data:`FACES` computes every prefs_* measure of the worked example and
    declares no gap; every other face gives its reason (:func:`rankframe.faces.gaps`, which
    imports no optional extra)."""
    reason = gaps(name).families.get("prefs")
    if name not in FACES:
        assert isinstance(reason, str) and reason, f"{name}: no prefs_* and no reason given"
        return
    assert reason is None, f"{name} computes the preference measures yet says: {reason}"
    table = FACES[name](*worked)
    assert table.columns == ["qid", *PREFS_MEASURES]
    assert table["qid"].to_list() == ["q1", "q2"]
    assert table.select(PREFS_MEASURES).null_count().sum_horizontal().item() == 0


def test_help_lists_the_preference_measures() -> None:
    from rankframe.cli.eval import measure_help

    text = measure_help()
    assert all(name in text for name in (*PREFS_MEASURES, "all_prefs", "-R prefs"))

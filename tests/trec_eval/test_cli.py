"""`rankframe eval` prints what trec_eval prints, byte for byte, on both engines.

The expected text is built independently: per-query values from pytrec_eval (trec_eval
9.0.x), trec_eval's measure order and line format (``%-22s\\t%s\\t%6.4f``, counts as
integers), summaries as trec_eval accumulates them. Options pytrec_eval lacks are
reasoned out by hand: ``-M`` truncates the run to its top M (score descending, docid
descending), ``-c`` adds the qrels-only queries with every measure 0 (num_rel counted).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankframe.cli import main
from tests.support import REPO, needs
from tests.support.faces import examples
from tests.support.trec_data import ENGINES, TrecCase, trec_cases

pytrec_eval = needs.load("pytrec_eval")

# trec_eval's own order of the measures rankframe supports (measures.c).
ORDER = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
         "bpref", "recip_rank", "iprec_at_recall", "P", "recall", "11pt_avg", "ndcg",
         "ndcg_cut", "map_cut", "success", "set_P", "set_recall", "set_F"]
OFFICIAL = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
            "bpref", "recip_rank", "iprec_at_recall", "P"]
COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_q"}
MEASURE_SETS = [
    None,  # no -m: official
    ["P.5,10", "ndcg_cut.10,3", "map", "recip_rank", "set_F", "success.1,5", "11pt_avg",
     "ndcg", "map_cut.5", "recall.10", "set_P", "set_recall", "Rprec", "num_rel"],
    ["set_F.0.5", "P.5", "num_q"],
]


def root(name: str) -> str:
    for candidate in sorted(ORDER, key=len, reverse=True):
        if name == candidate or name.startswith(candidate + "_"):
            return candidate
    raise AssertionError(name)


def param(name: str) -> float:
    tail = name[len(root(name)):].lstrip("_")
    return float(tail) if tail else 0.0


def top(docs: dict[str, float], depth: int | None) -> dict[str, float]:
    ordered = sorted(docs.items(), key=lambda kv: (kv[1], kv[0].encode()), reverse=True)
    return dict(ordered[:depth] if depth else ordered)


def expected_output(case: TrecCase, specs: list[str] | None, *, per_query: bool,
                    complete: bool, level: int, depth: int | None) -> str:
    wanted = specs or OFFICIAL
    pytrec_specs = {s for s in wanted if s not in ("runid", "num_q")}
    run = {q: top(docs, depth) for q, docs in case.run.items()}
    values: dict[str, dict[str, float]] = {}
    # pytrec_eval-terrier crashes with bpref next to other measures on odd inputs.
    for group in (pytrec_specs - {"bpref"}, pytrec_specs & {"bpref"}):
        if group:
            evaluator = pytrec_eval.RelevanceEvaluator(case.qrels, group, relevance_level=level)
            for q, v in evaluator.evaluate(run).items():
                values.setdefault(q, {}).update(v)
    # pytrec_eval names set_F.x plain "set_F"; trec_eval itself prints the parameter as
    # typed after an underscore (meas_init.c, append_string): "set_F_0.5".
    set_f = next((s for s in wanted if s.startswith("set_F.")), None)
    if set_f:
        for v in values.values():
            v["set_F_" + set_f.split(".", 1)[1]] = v.pop("set_F")
    names = sorted({n for v in values.values() for n in v}, key=lambda n: (ORDER.index(root(n)),
                                                                           param(n)))
    if complete:
        for q in case.qrels:
            if q not in values:
                relevant = sum(1 for g in case.qrels[q].values() if g >= level)
                values[q] = {n: (float(relevant) if n == "num_rel" else
                                 math.log(1e-5) if n == "gm_map" else 0.0) for n in names}
    queries = sorted(values, key=str.encode)
    lines = []

    def line(name: str, qid: str, value: float | str) -> str:
        if isinstance(value, str):
            return f"{name:<22}\t{qid}\t{value}"
        if name in COUNTS:
            return f"{name:<22}\t{qid}\t{int(value)}"
        return f"{name:<22}\t{qid}\t{value:6.4f}"

    if per_query:  # 9.x: no lines for the queries -c adds
        for q in (q for q in queries if q in case.run):
            lines += [line(n, q, values[q][n]) for n in names if n != "gm_map"]
    summary: list[tuple[str, float | str]] = []
    if "runid" in wanted:
        summary.append(("runid", "sys"))
    if "num_q" in wanted:
        summary.append(("num_q", float(len(queries))))
    for n in names:
        total = 0.0
        for q in queries:
            total += values[q][n]
        if n == "num_rel" and complete:  # -c: the qrels' grades > 0, whatever -l
            total = sum(1 for grades in case.qrels.values() for g in grades.values() if g > 0)
        mean = math.exp(total / len(queries)) if n == "gm_map" else total / len(queries)
        summary.append((n, total if n in COUNTS else mean))
    lines += [line(n, "all", v) for n, v in summary]
    return "\n".join(lines) + "\n"


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@settings(max_examples=examples(share=0.8), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=trec_cases(), specs=st.sampled_from(MEASURE_SETS), per_query=st.booleans(),
       complete=st.booleans(), level=st.sampled_from([1, 2]),
       depth=st.sampled_from([None, None, 3, 10]))
def test_output_is_trec_eval_byte_for_byte(
    case: TrecCase, specs: list[str] | None, per_query: bool, complete: bool, level: int,
    depth: int | None, tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    qrels, run = case.write(tmp_path_factory.mktemp("trec"))
    expected = expected_output(case, specs, per_query=per_query, complete=complete,
                               level=level, depth=depth)
    args = ["eval", "--trec-eval9", "-l", str(level)]
    args += ["-q"] * per_query + ["-c"] * complete + (["-M", str(depth)] if depth else [])
    for spec in specs or []:
        args += ["-m", spec]
    outputs = []
    for engine in ENGINES:
        status, out, _ = run_cli([*args, "--engine", engine, str(qrels), str(run)], capsys)
        assert status == 0
        outputs.append(out)
    assert len(set(outputs)) == 1, "every engine prints the same bytes"
    assert outputs[0] == expected


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    qrels = write(tmp_path / "qrels", "1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    run = write(tmp_path / "run", "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 c 1 5 t\n")
    return qrels, run


BAD_INPUTS = [
    ("run", "1 Q0 a 1 2.0\n", "line 1"),
    ("run", "1 Q0 a 1 x t\n", "line 1"),
    ("run", "1 Q0 a 1 nan t\n", "line 1"),
    ("run", "1 Q0 a 1 2.0 t\n1 Q0 a 2 1.0 t\n", "a"),
    ("qrels", "1 0 a\n", "line 1"),
    ("qrels", "1 0 a x\n", "line 1"),
    ("qrels", "1 0 a 1\n1 0 a 0\n", "a"),
]


@pytest.mark.parametrize(("which", "text", "named"), BAD_INPUTS)
def test_bad_input_is_one_clear_line(which: str, text: str, named: str, files: tuple[Path, Path],
                                     capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    qrels, run = files
    bad = write(tmp_path / f"bad_{which}", text)
    args = ["eval", str(bad if which == "qrels" else qrels), str(bad if which == "run" else run)]
    status, out, err = run_cli(args, capsys)
    assert status != 0 and out == ""
    assert err.count("\n") == 1 and err.startswith("rankframe: error: "), err
    assert named in err and "Traceback" not in err


@pytest.mark.parametrize("args", [["-m", "nonsense"], ["-m", "P.0"], ["-m", "P.-5"],
                                  ["-m", "ideal_dcg.1"], ["-M", "0"], ["-m", "ndcg_cut.5,5"]])
def test_bad_options_are_refused(args: list[str], files: tuple[Path, Path],
                                 capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = files
    status, out, err = run_cli(["eval", *args, str(qrels), str(run)], capsys)
    assert status != 0 and out == "" and err.startswith("rankframe: error: ")


def test_missing_and_binary_files(files: tuple[Path, Path], tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    qrels, _ = files
    status, _, err = run_cli(["eval", str(qrels), str(tmp_path / "nope")], capsys)
    assert status != 0 and "nope" in err
    assert err.count("rankframe:") == 1, err  # the prefix once, not "error: rankframe: ..."
    binary = tmp_path / "binary"
    binary.write_bytes(bytes(range(256)) * 4)
    status, _, err = run_cli(["eval", str(qrels), str(binary)], capsys)
    assert status != 0 and "binary" in err and "Traceback" not in err


def test_csv_and_json_formats(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = files
    _, out, _ = run_cli(["eval", "-q", "-m", "map", "--format", "csv", str(qrels), str(run)],
                        capsys)
    assert out.splitlines()[0] == "run,qid,measure,value"  # the tidy table, summary qid empty
    assert f"{run},,map,1.0" in out.splitlines()
    _, out, _ = run_cli(["eval", "-q", "-m", "P.1", "--format", "json", str(qrels), str(run)],
                        capsys)
    data = json.loads(out)
    assert {"run": str(run), "qid": None, "measure": "P_1", "value": 1.0} in data
    assert {"run": str(run), "qid": "2", "measure": "P_1", "value": 1.0} in data


def test_help_lists_every_measure() -> None:
    out = subprocess.run([sys.executable, "-m", "rankframe", "eval", "--help"],
                         capture_output=True, text=True, check=True).stdout
    for name in [*ORDER, "ndcg@10", "mrr"]:
        assert name.split("@")[0] in out


def test_entry_points() -> None:
    """The console script named in pyproject (the ``rankframe`` program: the parser, its
    heavy work watched, rankframe.cli.supervise) and ``python -m rankframe`` run the
    parser."""
    import importlib
    import re

    from rankframe.cli.main import command
    from tests.support import REPO

    scripts = (REPO / "pyproject.toml").read_text().partition("[project.scripts]")[2]
    entry = re.search(r'^rankframe = "(.+)"$', scripts, re.MULTILINE)
    assert entry is not None
    module, _, function = entry[1].partition(":")
    assert getattr(importlib.import_module(module), function) is command
    done = subprocess.run([sys.executable, "-m", "rankframe", "--version"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.startswith("rankframe ")
    done = subprocess.run([sys.executable, "-m", "rankframe"], capture_output=True, text=True)
    assert done.returncode == 2 and "eval" in done.stdout and "compare" in done.stdout


def test_sql_prints_the_macros_for_a_plain_duckdb(capsys: pytest.CaptureFixture[str]) -> None:
    """``rankframe sql`` is the whole macro script: a fresh DuckDB runs it, then the macros."""
    import duckdb

    status, out, err = run_cli(["sql"], capsys)
    assert status == 0 and err == ""
    con = duckdb.connect()
    con.execute(out)
    rows = con.sql("SELECT round(rf_ndcg(rel, rank, 5), 4) FROM (VALUES (1, 3), (2, 2), "
                   "(3, 3), (4, 0), (5, 1)) t(rank, rel)").fetchall()
    assert rows == [(0.9724,)]


@needs.mark("ibis")
def test_sql_dialect_prints_a_query(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(["sql", "--dialect", "postgres", "-m", "ndcg@10", "-m", "mrr",
                              "--table", "logs"], capsys)
    assert status == 0 and out.rstrip().endswith(";") and "logs" in out
    status, _, err = run_cli(["sql", "--dialect", "postgres"], capsys)
    assert status == 1 and "-m" in err
    status, _, err = run_cli(["sql", "-m", "map"], capsys)
    assert status == 1 and err.count("\n") == 1 and "--dialect" in err


def test_a_closed_pipe_ends_the_output_quietly() -> None:
    """``rankframe eval ... | head -1``: no "Broken pipe" message, no traceback."""
    from tests.support import REPO

    argv = [sys.executable, "-m", "rankframe", "eval", "-q", "-m", "all_trec",
            "examples/data/qrels.txt", "examples/data/run.bm25.txt"]
    with subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.readline()
        process.stdout.close()  # the reader leaves after one line
        err = process.stderr.read().decode()
        process.wait(timeout=60)
    assert "Broken pipe" not in err and "Traceback" not in err, err
    assert process.returncode == 141


def _example(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    from tests.support import REPO

    data = REPO / "examples" / "data"
    status, out, _ = run_cli([*args[:1], *args[1:], str(data / "qrels.txt"),
                              *[str(data / f"run.{r}.txt") for r in ("bm25", "dense")
                                if args[0] == "compare" or r == "bm25"]], capsys)
    assert status == 0
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_eval_takes_rankframe_measure_strings(engine: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """``-m ndcg@10`` prints what ``-m ndcg_cut.10`` prints, byte for byte, under trec_eval's
    name; a measure trec_eval has no name for prints under its canonical string, last."""
    def specs(*names: str) -> list[str]:
        return ["eval", "-q", "--engine", engine, *[a for n in names for a in ("-m", n)]]

    trec = _example(specs("ndcg_cut.10", "P.5,10", "map", "recip_rank", "iprec_at_recall.0.5"),
                    capsys)
    ours = _example(specs("iprec@0.5", "ndcg@10", "P@10", "map", "precision@5", "mrr"),
                    capsys)
    assert ours == trec and "ndcg_cut_10  " in trec
    out = _example(specs("reciprocal_rank@10", "map", "mrr@10", "err@5"), capsys)
    summary = [line.split("\t")[0].rstrip() for line in out.splitlines() if "\tall\t" in line]
    assert summary == ["map", "err_cut_5", "mrr@10"]
    assert set(_example(specs("err_cut.5"), capsys).splitlines()) < set(out.splitlines())


def test_eval_all_trec_is_trec_eval_set_and_all_adds_rankframe(
        capsys: pytest.CaptureFixture[str]) -> None:
    # trec_eval 9's measures rankframe computes (measures.c), and rankframe's own.
    # relstring prints per-query lines only (no -q here).
    trec_eval_names = [*ORDER, "infAP", "gm_bpref", "ndcg_rel", "Rndcg", "rbp", "rbp_resid",
                       "utility", "binG", "G", "relative_P", "set_relative_P", "set_map",
                       "num_nonrel_judged_ret", "unj"]
    # yaap, dcg, ideal_dcg: trec_eval's, outside its all_trec
    ours = ["err", "err_cut", "judged", "ndcg_p", "yaap", "dcg", "ideal_dcg"]
    known = sorted(trec_eval_names + ours, key=len, reverse=True)

    def roots(out: str) -> set[str]:
        names = {line.split("\t")[0].rstrip() for line in out.splitlines()}
        return {next(r for r in known if n == r or n.startswith(r + "_")) for n in names}

    trec = roots(_example(["eval", "-m", "all_trec"], capsys))
    assert trec == set(trec_eval_names)
    assert roots(_example(["eval", "-m", "all"], capsys)) == trec | set(ours)


def test_eval_trec_eval10_options_by_hand(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """-J, rbp/rbp_resid (p = 0.9, graded, p= form), num_rel's -c summary, worked by hand:
    q1 retrieves b (1), z (unjudged), a (2), e (-1); q3 has no results."""
    qrels = write(tmp_path / "qrels", "q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq1 0 e -1\nq3 0 y 3\n")
    run = write(tmp_path / "run", "q1 Q0 b 1 9 t\nq1 Q0 z 2 8 t\nq1 Q0 a 3 7 t\nq1 Q0 e 4 6 t\n")

    def values(*args: str) -> dict[tuple[str, str], str]:
        status, out, _ = run_cli(["eval", *args, str(qrels), str(run)], capsys)
        assert status == 0
        return {(n.rstrip(), q): v for n, q, v in (line.split("\t") for line in out.splitlines())}

    out = values("-q", "-c", "-m", "rbp", "-m", "rbp_resid", "-m", "num_ret")
    # rbp: 0.1 * (1/2 + 0.81 * 2/2) = 0.131; resid: 0.1 * (0.9 + 0.729) + 0.9^4 = 0.8190
    assert out["rbp", "q1"] == "0.1310" and out["rbp_resid", "q1"] == "0.8190"
    assert out["rbp_resid", "q3"] == "0.0000" and out["num_ret", "q3"] == "0"
    judged = values("-q", "-J", "-m", "num_ret", "-m", "P.2", "-m", "rbp_resid.p=0.5")
    assert judged["num_ret", "q1"] == "2" and judged["P_2", "q1"] == "1.0000"
    assert judged["rbp_resid_p=0.5", "q1"] == "0.0000"  # nothing unjudged is left
    empty = values("-q", "-c", "-m", "rbp_resid.p=0.5")  # trec_eval's placeholder document
    assert empty["rbp_resid_p=0.5", "q3"] == "1.0000"
    levels = values("-q", "-c", "-l", "2", "-m", "num_rel")
    assert (levels["num_rel", "q1"], levels["num_rel", "q3"], levels["num_rel", "all"]) == (
        "1", "1", "3")  # the summary counts grades > 0, whatever -l


def test_eval_help_describes_measures(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(["eval", "-h", "-m", "P", "-m", "rbp"], capsys)
    assert status == 0
    assert out.startswith("P\n    Precision at each cutoff k")
    assert "Default param: -m P.5,10,15,20,30,100,200,500,1000\n" in out
    assert "\nrbp\n" in out and "Default param: -m rbp.p=0.9\n" in out
    status, out, _ = run_cli(["eval", "-h"], capsys)
    assert status == 0 and "-J" in out and "usage: rankframe eval" in out


def test_eval_measure_errors_name_both_syntaxes(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(["eval", "-m", "ndgc", "q", "r"], capsys)
    assert status == 1 and "ndcg_cut" in err and "ndcg@10" in err
    status, _, err = run_cli(["eval", "-m", "ndcg@x", "q", "r"], capsys)
    assert status == 1 and "-m ndcg@x" in err and "cutoff" in err


def test_compare_takes_trec_eval_forms(capsys: pytest.CaptureFixture[str]) -> None:
    dotted = _example(["compare", "-m", "ndcg_cut.10", "-m", "P.5,10"], capsys)
    printed = _example(["compare", "-m", "ndcg_cut_10", "-m", "P_5", "-m", "P_10"], capsys)
    assert dotted == printed and "P_5" in dotted and "ndcg_cut_10" in dotted
    grammar = _example(["compare", "-m", "ndcg@10", "--format", "csv"], capsys)
    trec = _example(["compare", "-m", "ndcg_cut.10", "--format", "csv"], capsys)
    assert grammar.replace("ndcg@10", "ndcg_cut_10") == trec


# --- --engine auto: small plain files in pure Python, anything else on Polars -------------

PLAIN_VARIANTS = {
    "comment line": lambda text: "# a comment\n" + text,
    "tabs and CRLF": lambda text: text.replace(" ", "\t").replace("\n", "\r\n"),
    "a seventh field": lambda text: text.replace("\n", " extra\n"),
    "a repeated line": lambda text: text + text.splitlines(keepends=True)[0],
    "a score that is not a number": lambda text: text.replace(" 1 ", " 1 x", 1),
    "an infinite score": lambda text: "q9 Q0 d1 1 1e999 t\n" + text,
}


@pytest.mark.parametrize("variant", PLAIN_VARIANTS)
def test_auto_engine_matches_polars_on_files_outside_the_plain_layout(
        variant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Whatever path ``--engine auto`` takes, it prints what Polars prints: the same output,
    the same warnings, the same errors (naming the line)."""
    data = REPO / "examples" / "data"
    run = write(tmp_path / "run.txt", PLAIN_VARIANTS[variant]((data / "run.bm25.txt").read_text()))
    args = ["eval", "-q", "-c", "-m", "all_trec", str(data / "qrels.txt"), str(run)]
    auto, polars = (run_cli([*args, "--engine", e], capsys) for e in ("auto", "polars"))
    assert auto == polars


def test_auto_engine_leaves_large_runs_to_polars(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from rankframe.cli import eval_small

    data = REPO / "examples" / "data"
    args = ["eval", str(data / "qrels.txt"), str(data / "run.bm25.txt")]
    small = run_cli(args, capsys)
    monkeypatch.setattr(eval_small, "LIMIT_BYTES", 10)
    def refused(*args: object, **kwargs: object) -> None:
        raise LookupError("the pure-Python path was taken")

    monkeypatch.setattr(eval_small, "prepare", refused)
    assert run_cli(args, capsys) == small
    with pytest.raises(LookupError):  # the explicit engine is honoured
        main([*args, "--engine", "python"])

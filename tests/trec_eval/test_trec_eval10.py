"""``rankframe eval`` against the trec_eval 10 binary, built here from its source.

The binary is the session fixture ``trec_eval_bin`` (:mod:`tests.support.trec_eval`, built
once from ``shared/reference/trec_eval``). Two checks:

- random cases (ties, ids 9/09/10a, numeric ids, random scores, negative grades, queries
  on one side) under the default measures, ``-m all_trec`` and measures with parameters,
  with and without ``-q -c -l 2 -M 30 -J``, on every engine: every line trec_eval prints,
  rankframe prints the same, and Polars and DuckDB print the same bytes;
- trec_eval's own ``test/`` outputs (its Makefile's quicktest targets, files copied to
  tests/data/trec_eval/), line for line.

Lines of measures rankframe does not compute yet (:data:`rankframe.trec_eval.UNSUPPORTED`)
are left out of both sides, so the set shrinks as measures are added.
Listed departures (README, "Where rankframe departs from trec_eval"): trec_eval 10 stops
with an error on a qrels query without results unless ``-c`` (rankframe skips it, as
trec_eval 9.x and trec_eval's own help say); a value one unit apart in the fourth decimal
on a half-way double (issue 13's exact-bytes work) is counted, and must stay rare.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankframe import trec_eval
from rankframe.cli import main
from rankframe.errors import MeasureError
from tests import support
from tests.support.faces import examples
from tests.support.trec_data import ENGINES, TrecCase, trec_cases

DATA = support.DATA / "trec_eval"
#: Roots of trec_eval measures rankframe does not compute yet.
GAPS = set(trec_eval.UNSUPPORTED)


@pytest.fixture(scope="session")
def binary(trec_eval_bin: Path) -> Path:
    return trec_eval_bin


def supported(name: str) -> bool:
    """Whether rankframe computes the printed name ``name`` (else its root is a gap)."""
    try:
        trec_eval.spec_of(name)
    except MeasureError:
        assert any(name == g or name.startswith(g) for g in GAPS), f"unexpected {name!r}"
        return False
    return True


def kept(text: str, dropped: frozenset[str] = frozenset()) -> list[str]:
    return [line for line in text.splitlines()
            if supported(name := line.split("\t")[0].rstrip()) and name not in dropped]


def not_a_number(text: str) -> frozenset[str]:
    """Names trec_eval prints as nan somewhere (iprec_at_recall under -J when nothing
    judged is retrieved: its 0/0); a listed departure, rankframe prints 0."""
    return frozenset(line.split("\t")[0].rstrip() for line in text.splitlines()
                     if line.rsplit("\t", 1)[-1].strip().lstrip("-") == "nan")


def rankframe_eval(args: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = main(["eval", *args])
    assert status == 0, args
    return out.getvalue()


DOCS = st.sampled_from(["9", "09", "10", "10a", "d1", "d2", "d3", "D-004", "x", "y"])
SCORES = st.sampled_from([0.0, 1.0, 1.5, 2.0, -0.5, 3.25])


@st.composite
def cases(draw: st.DrawFn, complete: bool = True) -> TrecCase:
    """Runs and qrels with ties, ids that sort differently as bytes and as numbers, negative
    grades (a query's all negative too), run queries without qrels and, with ``complete``
    (``-c``), qrels queries without results (in every other case at least). trec_eval 10
    stops on a qrels query without results unless ``-c``, and when the first qrels query
    (in byte order) has only negative grades: the listed departures, checked on their own
    below, are not generated."""
    qids = draw(st.lists(st.sampled_from(["q1", "q2", "7", "10", "q3"]), min_size=1,
                         max_size=4, unique=True))
    sides = ["both", "both", "run", "qrels"] if complete else ["both", "both", "run"]
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for i, q in enumerate(qids):
        side = "both" if i == 0 else draw(st.sampled_from(sides))
        if side != "qrels":
            run[q] = {d: draw(SCORES) for d in draw(st.lists(DOCS, min_size=1, unique=True))}
        if side != "run":
            pool = draw(st.lists(DOCS, min_size=1, max_size=8, unique=True))
            qrels[q] = {d: draw(st.sampled_from([-1, 0, 0, 1, 1, 2, 3])) for d in pool}
    if complete and draw(st.booleans()):  # -c's own case: a qrels query without results
        missing = draw(st.sampled_from(["q9", "8", "11"]))
        pool = draw(st.lists(DOCS, min_size=1, max_size=4, unique=True))
        qrels[missing] = {d: draw(st.sampled_from([-1, 0, 1, 2])) for d in pool}
    first = qrels[min(qrels, key=str.encode)]
    if max(first.values()) < 0:
        first[draw(st.sampled_from(sorted(first)))] = draw(st.sampled_from([0, 1, 2]))
    return TrecCase(run, qrels)


OPTIONS = [[], ["-q"], ["-q", "-c"], ["-c", "-l", "2"], ["-q", "-M", "30"], ["-q", "-J"],
           ["-q", "-c", "-l", "2", "-M", "30", "-J"]]


#: The measures of a generated case: trec_eval's defaults, all_trec, and some with parameters.
MEASURE_SETS = [[], ["-m", "all_trec"], ["-m", "ndcg_cut.3,7", "-m", "map_cut.4", "-m", "bpref"]]


@st.composite
def valid_cases(draw: st.DrawFn, complete: bool) -> TrecCase:
    """:func:`cases`, or :func:`tests.support.trec_data.trec_cases` (longer lists, random
    scores, numeric ids) without qrels queries lacking results unless ``complete``."""
    if draw(st.booleans()):
        return draw(cases(complete))
    case = draw(trec_cases())
    if not complete:
        case.qrels = {q: grades for q, grades in case.qrels.items() if q in case.run}
    return case


def test_random_cases_match_trec_eval10(binary: Path,
                                        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every engine prints trec_eval 10's lines (those of measures it computes), and Polars
    and DuckDB print the same bytes, every line (nan lines too)."""
    folder = tmp_path_factory.mktemp("cases")
    @settings(max_examples=examples(share=0.6),
              deadline=None, suppress_health_check=list(HealthCheck))
    @given(options=st.sampled_from(OPTIONS), measures=st.sampled_from(MEASURE_SETS),
           data=st.data())
    def check(options: list[str], measures: list[str], data: st.DataObject) -> None:
        case = data.draw(valid_cases(complete="-c" in options), label="case")
        qrels, run = case.write(folder)
        args = [*options, *measures, str(qrels), str(run)]
        done = subprocess.run([str(binary), *args], capture_output=True, text=True,
                              check=False)
        assert done.returncode == 0, done.stderr
        nan = not_a_number(done.stdout)
        expected = kept(done.stdout, nan)
        assert expected, done.stdout
        printed = {engine: rankframe_eval([*args[:-2], "--engine", engine, *args[-2:]])
                   for engine in ENGINES}
        for engine, out in printed.items():
            assert kept(out, nan) == expected, (engine, args)
        assert printed["polars"] == printed["duckdb"], args

    check()


@pytest.mark.parametrize(("qrels", "options", "stops_with"), [
    ("q1 0 a 1\nq2 0 b 1\n", [], "not found in qrels"),  # q2 has no results, no -c
    ("q1 0 a -1\nq2 0 b 1\n", ["-c"], "Can't calculate"),  # q1's grades are all negative
])
@pytest.mark.parametrize("engine", ENGINES)
def test_the_listed_departures_are_where_trec_eval_10_stops(
        binary: Path, tmp_path: Path, qrels: str, options: list[str], stops_with: str,
        engine: str) -> None:
    """The cases the random check does not generate: trec_eval 10 stops (exit 4), rankframe
    evaluates (docs/semantics.md#departures-from-trec_eval): a qrels query without results
    dropped without -c; a first query whose grades are all negative scored with nothing
    relevant (trec_eval 10 evaluates such a query when another comes first)."""
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text("q1 Q0 a 1 2.0 t\nq2 Q0 b 1 1.0 t\n" if options
                                  else "q1 Q0 a 1 2.0 t\n")
    args = [*options, "-q", "-m", "map", "-m", "P.1", str(tmp_path / "qrels"),
            str(tmp_path / "run")]
    done = subprocess.run([str(binary), *args], capture_output=True, text=True, check=False)
    assert done.returncode == 4 and stops_with in done.stderr, (done.returncode, done.stderr)
    got = rankframe_eval(["--engine", engine, *args])
    queries = {line.split("\t")[1] for line in got.splitlines()} - {"all"}
    assert queries == ({"q1", "q2"} if options else {"q1"})
    if options:  # q1: nothing relevant
        assert "map                   \tq1\t0.0000" in got


# trec_eval's Makefile, quicktest: (arguments, expected output file).
QUICKTEST = [
    (["qrels.test", "results.test"], "out.test"),
    (["qrels.test.with-comments", "results.test"], "out.test"),
    (["-m", "all_trec", "qrels.test", "results.test"], "out.test.a"),
    (["-m", "all_trec", "-q", "qrels.test", "results.test"], "out.test.aq"),
    (["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"], "out.test.aqc"),
    (["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"], "out.test.aqcM"),
    (["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"],
     "out.test.aql"),
    (["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
      "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
      "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", "qrels.test",
      "results.test"], "out.test.meas_params"),
]


@pytest.mark.parametrize(("args", "output"), QUICKTEST, ids=[o for _, o in QUICKTEST])
@pytest.mark.parametrize("engine", ENGINES)
def test_trec_eval_own_tests(args: list[str], output: str, engine: str) -> None:
    """Line for line, byte for byte, less the lines of measures rankframe lacks (and
    ``-m`` specs of them), none today."""
    ours = [a for a in args if not (a.startswith("-m") and a[2:].partition(".")[0] in GAPS)]
    ours = [str(DATA / a) if (DATA / a).is_file() else a for a in ours]
    expected = kept((DATA / output).read_text())
    got = kept(rankframe_eval(["--engine", engine, *ours]))
    assert got == expected


@pytest.mark.parametrize("options", [["-c", "-N", "5000"], ["-c", "-J", "-N", "7"]])
def test_collection_size_reaches_utility(binary: Path, options: list[str]) -> None:
    """-N (the collection size) is what utility's weight d reads, as in trec_eval."""
    args = ["-q", *options, "-m", "utility.1,-1,0.5,1", str(DATA / "qrels.test"),
            str(DATA / "results.trunc")]
    done = subprocess.run([str(binary), *args], capture_output=True, text=True, check=True)
    for engine in ENGINES:
        assert rankframe_eval(["--engine", engine, *args]) == done.stdout


# dcg and ideal_dcg with trec_eval's gain pairs (issue 13): grade 0 given a gain, a negative
# gain, whole-number gains (gains less than 1 apart are a listed departure). One measure
# per run: trec_eval 10 aborts ("double free") given pairs on two of dcg, ideal_dcg, ndcg.
DCG_SPECS = ["dcg.1=3,2=9", "ideal_dcg.1=3,2=9", "dcg.0=2,1=-3,3=5", "ideal_dcg.0=2,1=-3,3=5"]
DCG_OPTIONS = [[], ["-q"], ["-q", "-c"], ["-q", "-l2"], ["-q", "-M30"], ["-q", "-J"]]


@pytest.mark.parametrize("spec", DCG_SPECS)
@pytest.mark.parametrize("qrels", ["qrels.test", "qrels.rel_level"])
def test_dcg_gain_pairs_match_trec_eval10(binary: Path, spec: str, qrels: str) -> None:
    for options in DCG_OPTIONS:
        args = [*options, "-m", spec, str(DATA / qrels), str(DATA / "results.test")]
        done = subprocess.run([str(binary), *args], capture_output=True, text=True,
                              check=True)
        assert done.stdout.startswith(spec.replace(".", "_", 1))
        for engine in ENGINES:
            assert rankframe_eval(["--engine", engine, *args]) == done.stdout, (engine, args)


# -m parameters read as trec_eval 10 reads them (C's atol and atof, meas_init.c): the number
# a parameter begins with, ASCII digits only (an Arabic-Indic and a fullwidth 3 are 0);
# what trec_eval refuses, rankframe refuses.
PARAMETER_SPECS = ["P.1_0", "P.5x", "P. 5", "P.+5", "P.05", "P.5,1e1", "ndcg_cut.23.4",
                   "P.99999999999999999999", "iprec_at_recall.0.5x", "Rprec_mult.0.5e0",
                   "rbp.p=0.8x", "relstring.5x", "set_F.2x", "relstring.05",
                   "P.\u0663", "P.\uff13", "P.x", "P.0", "P.5,", "P.-1,5", "success.0x10",
                   "P.5,5.9"]


@pytest.mark.parametrize("spec", PARAMETER_SPECS)
def test_measure_parameters_read_as_trec_eval10_reads_them(binary: Path, spec: str) -> None:
    args = ["-q", "-m", spec, str(DATA / "qrels.test"), str(DATA / "results.test")]
    done = subprocess.run([str(binary), *args], capture_output=True, text=True)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["eval", "--engine", "python", *args])
    if done.returncode == 0:
        assert (status, out.getvalue()) == (0, done.stdout), spec
    else:  # trec_eval: "Negative cutoff detected" / "duplicate cutoffs detected"
        assert status == 1 and out.getvalue() == "", (spec, done.stderr)
        assert err.getvalue().startswith(f"rankframe: error: -m {spec}: "), err.getvalue()


def first_eval_command(page: Path) -> list[str]:
    """The arguments of the first ``rankframe eval`` command in a page's ``sh`` blocks."""
    text = page.read_text(encoding="utf-8")
    for block in text.split("```sh\n")[1:]:
        line = block.partition("```")[0].strip()
        if line.startswith("rankframe eval "):
            return line.split()[2:]
    raise AssertionError(f"{page}: no rankframe eval command")


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started/trec-eval.md"])
def test_the_first_example_prints_the_binarys_bytes(binary: Path, page: str) -> None:
    """The first ``rankframe eval`` a reader meets prints what the trec_eval 10 binary
    prints on the same files (issue 36: it used to be an answer the binary refuses)."""
    args = first_eval_command(support.REPO / page)
    done = subprocess.run([str(binary), *args], capture_output=True, text=True,
                          cwd=support.REPO, check=True)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
            contextlib.chdir(support.REPO):
        assert main(["eval", *args]) == 0
    assert out.getvalue() == done.stdout and done.stdout

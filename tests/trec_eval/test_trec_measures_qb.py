"""trec_eval 10 itself as the oracle of infAP, gm_bpref, ndcg_rel, Rndcg, yaap, relstring
and the gain-per-grade form of the ndcg family (``-m ndcg.1=3,2=9``): ``rankframe eval``
prints exactly the binary's lines, on trec_eval's own test files and on generated cases
(ties, numeric-looking docids, negative grades, queries on one side only).

The binary is built once by :mod:`tests.support.trec_eval`, from
``../shared/reference/trec_eval``.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from rankframe.cli import main
from tests.support import trec_eval as te_binary
from tests.support.faces import examples
from tests.support.trec_data import TrecCase, trec_cases

pytestmark = pytest.mark.usefixtures("trec_eval_bin")

#: The measures of this file, as -m specs; the gains are whole numbers, see below.
MEASURES = ["infAP", "gm_bpref", "ndcg_rel", "Rndcg", "yaap", "relstring", "relstring.20",
            "ndcg.1=3,2=9,4=4", "ndcg_rel.0=1,2=5", "Rndcg.0=-1,1=3,2=9"]
OPTIONS = [["-q"], ["-q", "-c"], ["-q", "-l", "2"], ["-q", "-M", "30"], ["-q", "-c", "-l", "2"]]


def trec_eval(*args: str | Path) -> str:
    return te_binary.run(list(args)).stdout


def rankframe_eval(*args: str | Path) -> str:
    """``rankframe eval`` in this process (the command line's own start is tested in
    tests/units/test_startup.py): what it prints; it must succeed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = main(["eval", *map(str, args)])
    assert status == 0, args
    return out.getvalue()


@pytest.mark.parametrize("options", OPTIONS, ids=" ".join)
@pytest.mark.parametrize("qrels", ["qrels.test", "qrels.rel_level"])
def test_trec_eval_test_files(qrels: str, options: list[str], trec_eval_tests: Path) -> None:
    test_dir = trec_eval_tests
    args = [*options, *(f"-m{m}" for m in MEASURES), test_dir / qrels, test_dir / "results.test"]
    assert rankframe_eval(*args) == trec_eval(*args)


def test_relstring_20_of_trec_eval_own_test(trec_eval_tests: Path) -> None:
    """trec_eval's Makefile check: -m relstring.20 -q -l2 on qrels.rel_level."""
    args = ["-mrelstring.20", "-q", "-l2", trec_eval_tests / "qrels.rel_level",
            trec_eval_tests / "results.test"]
    out = rankframe_eval(*args)
    assert "relstring_20          \t301\t'0000011000000--10101'\n" in out
    assert out == trec_eval(*args)


def test_gain_pairs_as_trec_eval_help_writes_them(trec_eval_tests: Path) -> None:
    args = ["-q", "-mndcg.1=3,2=9,4=4.5", trec_eval_tests / "qrels.test",
            trec_eval_tests / "results.test"]
    assert rankframe_eval(*args) == trec_eval(*args)


@settings(max_examples=examples(share=0.5),
          deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=trec_cases())
def test_generated_cases(case: TrecCase, tmp_path_factory: pytest.TempPathFactory) -> None:
    qrels, run = case.write(tmp_path_factory.mktemp("case"))
    # -c always: without it trec_eval 10 stops at a qrels query without results.
    for options in (["-q", "-c"], ["-q", "-c", "-l", "2", "-M", "3"]):
        args = [*options, *(f"-m{m}" for m in MEASURES), qrels, run]
        assert rankframe_eval(*args) == trec_eval(*args), (case.run, case.qrels, options)


@pytest.mark.parametrize("options", OPTIONS, ids=" ".join)
def test_ndcg_p_against_trec_eval_source(options: list[str], trec_eval_tests: Path) -> None:
    """trec_eval 10 has m_ndcg_p.c but registers no ndcg_p; a build with it registered
    (the ``ndcg_p`` variant of :mod:`tests.support.trec_eval`) checks rankframe's ndcg_p."""
    files = [trec_eval_tests / "qrels.rel_level", trec_eval_tests / "results.test"]
    args = [*options, "-mndcg_p", *files]
    assert rankframe_eval(*args) == te_binary.run(args, variant="ndcg_p").stdout
    gains = ["-mndcg_p.0=1,1=3,2=9", *options, *files]
    assert rankframe_eval(*gains) == te_binary.run(gains, variant="ndcg_p").stdout

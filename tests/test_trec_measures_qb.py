"""trec_eval 10 itself as the oracle of infAP, gm_bpref, ndcg_rel, Rndcg, yaap, relstring
and the gain-per-grade form of the ndcg family (``-m ndcg.1=3,2=9``): ``rankframe eval``
prints exactly the binary's lines, on trec_eval's own test files and on generated cases
(ties, numeric-looking docids, negative grades, queries on one side only).

The binary is ``$TREC_EVAL`` or ``/tmp/te/trec_eval`` (built from
``../shared/reference/trec_eval``); without it these tests are skipped with that reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from tests.trec_data import TrecCase, trec_cases

BINARY = Path(os.environ.get("TREC_EVAL", "/tmp/te/trec_eval"))
TEST_DIR = Path(__file__).resolve().parents[2] / "shared" / "reference" / "trec_eval" / "test"
if not TEST_DIR.is_dir():
    TEST_DIR = Path("/work/shared/reference/trec_eval/test")
ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not os.access(BINARY, os.X_OK),
                                reason=f"no trec_eval 10 binary at {BINARY} (set TREC_EVAL)")

#: The measures of this file, as -m specs; the gains are whole numbers, see below.
MEASURES = ["infAP", "gm_bpref", "ndcg_rel", "Rndcg", "yaap", "relstring", "relstring.20",
            "ndcg.1=3,2=9,4=4", "ndcg_rel.0=1,2=5", "Rndcg.0=-1,1=3,2=9"]
OPTIONS = [["-q"], ["-q", "-c"], ["-q", "-l", "2"], ["-q", "-M", "30"], ["-q", "-c", "-l", "2"]]


def trec_eval(*args: str | Path) -> str:
    done = subprocess.run([str(BINARY), *map(str, args)], capture_output=True, text=True,
                          check=True)
    return done.stdout


def rankframe_eval(*args: str | Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "rankframe", "eval", *map(str, args)],
                          capture_output=True, text=True, env=env, check=True)
    return done.stdout


@pytest.mark.parametrize("options", OPTIONS, ids=" ".join)
@pytest.mark.parametrize("qrels", ["qrels.test", "qrels.rel_level"])
def test_trec_eval_test_files(qrels: str, options: list[str]) -> None:
    args = [*options, *(f"-m{m}" for m in MEASURES), TEST_DIR / qrels, TEST_DIR / "results.test"]
    assert rankframe_eval(*args) == trec_eval(*args)


def test_relstring_20_of_trec_eval_own_test() -> None:
    """trec_eval's Makefile check: -m relstring.20 -q -l2 on qrels.rel_level."""
    args = ["-mrelstring.20", "-q", "-l2", TEST_DIR / "qrels.rel_level", TEST_DIR / "results.test"]
    out = rankframe_eval(*args)
    assert "relstring_20          \t301\t'0000011000000--10101'\n" in out
    assert out == trec_eval(*args)


def test_gain_pairs_as_trec_eval_help_writes_them() -> None:
    args = ["-q", "-mndcg.1=3,2=9,4=4.5", TEST_DIR / "qrels.test", TEST_DIR / "results.test"]
    assert rankframe_eval(*args) == trec_eval(*args)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=trec_cases())
def test_generated_cases(case: TrecCase, tmp_path_factory: pytest.TempPathFactory) -> None:
    qrels, run = case.write(tmp_path_factory.mktemp("case"))
    # -c always: without it trec_eval 10 stops at a qrels query without results.
    for options in (["-q", "-c"], ["-q", "-c", "-l", "2", "-M", "3"]):
        args = [*options, *(f"-m{m}" for m in MEASURES), qrels, run]
        assert rankframe_eval(*args) == trec_eval(*args), (case.run, case.qrels, options)


#: trec_eval 10 has m_ndcg_p.c but registers no ndcg_p; a copy built with it registered
#: (one line in measures.c, the file in the Makefile) checks rankframe's ndcg_p.
NDCG_P_BINARY = Path(os.environ.get("TREC_EVAL_NDCG_P", "/tmp/te-qb/trec_eval"))


@pytest.mark.skipif(not os.access(NDCG_P_BINARY, os.X_OK),
                    reason=f"no trec_eval built with ndcg_p registered at {NDCG_P_BINARY}")
@pytest.mark.parametrize("options", OPTIONS, ids=" ".join)
def test_ndcg_p_against_trec_eval_source(options: list[str]) -> None:
    args = [*options, "-mndcg_p", TEST_DIR / "qrels.rel_level", TEST_DIR / "results.test"]
    expected = subprocess.run([str(NDCG_P_BINARY), *map(str, args)], capture_output=True,
                              text=True, check=True).stdout
    assert rankframe_eval(*args) == expected
    gains = ["-mndcg_p.0=1,1=3,2=9", *args[:-3], TEST_DIR / "qrels.rel_level",
             TEST_DIR / "results.test"]
    expected = subprocess.run([str(NDCG_P_BINARY), *map(str, gains)], capture_output=True,
                              text=True, check=True).stdout
    assert rankframe_eval(*gains) == expected

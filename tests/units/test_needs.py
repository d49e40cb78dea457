"""The one helper through which a test says what it needs beyond the core dependencies
(:mod:`tests.support.needs`): one skip line naming what to install, a failure under CI where
CI's extras provide it, and the extras read from pyproject.toml."""

from __future__ import annotations

import pytest

from tests.support import needs


def test_the_extras_include_the_extras_they_name() -> None:
    assert needs.extras_of("test") >= {"test", "stats", "plot"}
    assert needs.extras_of("dev") >= {"dev", "test", "stats", "plot", "spark", "ibis", "docs"}
    with pytest.raises(ValueError, match="no extra 'nosuch'"):
        needs.extras_of("nosuch")


def test_every_need_names_an_extra_and_what_to_install() -> None:
    for name, need in needs.NEEDS.items():  # the extras CI's dev run holds
        assert need.extra in needs.extras_of("dev,peers"), name
        assert need.modules or need.programs, name
        assert need.how.startswith("pip install"), name


def test_beyond_the_test_extra() -> None:
    assert not needs.beyond_test("scipy") and not needs.beyond_test("pytrec_eval")
    assert needs.beyond_test("docs") and needs.beyond_test("duckdb-cli")


@pytest.fixture
def absent(monkeypatch: pytest.MonkeyPatch) -> str:
    """A need whose module and program are missing."""
    monkeypatch.setitem(needs.NEEDS, "absent", needs.Need(
        "a thing", "docs", modules=("no_such_module_here",),
        programs=("no-such-program-here",)))
    return "absent"


def test_a_missing_need_skips_with_one_line_naming_what_to_install(
        absent: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(needs, "IN_CI", False)
    assert needs.missing(absent) == ("needs a thing (no_such_module_here, no-such-program-here "
                                     "missing): pip install -e '.[docs]'")
    with pytest.raises(pytest.skip.Exception, match=r"needs a thing .*\[docs\]"):
        needs.require(absent)


def test_under_ci_a_need_of_its_extras_fails(absent: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(needs, "IN_CI", True)
    monkeypatch.delenv(needs.EXTRAS_VARIABLE, raising=False)  # CI's default: dev
    with pytest.raises(pytest.fail.Exception, match="CI's environment has the 'docs' extra"):
        needs.require(absent)
    monkeypatch.setenv(needs.EXTRAS_VARIABLE, "test")  # the README's command, [test] only
    with pytest.raises(pytest.skip.Exception):
        needs.require(absent)


def test_a_met_need_gives_the_module_or_program() -> None:
    assert needs.require("scipy").__name__ == "scipy"
    assert needs.load("scipy", "scipy.stats").__name__ == "scipy.stats"
    with pytest.raises(KeyError, match="unknown need"):
        needs.require("nosuch")
    with pytest.raises(KeyError, match="unknown need"):
        needs.mark("nosuch")

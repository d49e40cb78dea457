"""The Ibis faces' layout: a package whose family modules mirror the Polars face's
(``rankframe/faces/polars/gains.py`` beside ``rankframe/faces/ibis/gains.py``), each module of a
readable size, and the public module's names (the PostgreSQL launcher is test tooling now:
``tests/support/postgres.py``)."""

from __future__ import annotations

import importlib

import pytest

pytest.importorskip("ibis", reason="Ibis is not installed (pip install 'rankframe[ibis]')")

import rankframe as rf
import rankframe.ibis as rfi
from rankframe.faces.ibis import NOT_EXPRESSED, unsupported_metrics
from rankframe.registry import METRICS
from tests.support import REPO

PACKAGE = REPO / "rankframe" / "faces" / "ibis"
FAMILY_FILES = ("counts", "ranked", "gains", "tied", "trec", "user", "correlation", "catalog",
                "popularity_bias", "diversity")
#: The most lines a module of the package may have.
MOST_LINES = 800


def _defined_in(name: str) -> list[str]:
    """The family modules of the Ibis package that define a builder ``name``."""
    return [family for family in FAMILY_FILES
            if name in vars(importlib.import_module(f"rankframe.faces.ibis.{family}"))]


@pytest.mark.parametrize("name", sorted(METRICS))
def test_each_builder_sits_in_the_file_of_its_polars_twin(name: str) -> None:
    polars_file = getattr(rf, name).__module__.rsplit(".", 1)[1]
    expressed_somewhere = name not in set(unsupported_metrics("duckdb")) | set(NOT_EXPRESSED)
    assert _defined_in(name) == ([polars_file] if expressed_somewhere else [])


def test_no_module_of_the_package_is_long() -> None:
    sizes = {path.name: len(path.read_text(encoding="utf-8").splitlines())
             for path in PACKAGE.glob("*.py")}
    assert len(sizes) > 5
    assert {name: n for name, n in sizes.items() if n > MOST_LINES} == {}


def test_the_public_names_are_unchanged_but_the_launcher() -> None:
    assert rfi.__all__ == ["BACKENDS", "FACES", "POSTGRES_URL_ENV", "evaluate", "evaluate_run",
                           "judge", "to_sql", "unsupported_metrics"]
    for name in rfi.__all__:
        assert getattr(rfi, name) is not None

"""The Ibis faces' layout: a package whose family modules mirror the Polars face's
(``rankframe/faces/polars/gains.py`` beside ``rankframe/faces/ibis/gains.py``), and the public
module's names (the PostgreSQL launcher is test tooling now:
``tests/support/postgres.py``)."""
# ruff: noqa: E402  (imports after the check of what the module needs)

from __future__ import annotations

import importlib

import pytest

from tests.support import needs

pytestmark = needs.module_level("ibis")

import rankframe as rf
import rankframe.ibis as rfi
from rankframe.faces.ibis import NOT_EXPRESSED, unsupported_metrics
from rankframe.registry import METRICS
from tests.support import REPO

PACKAGE = REPO / "rankframe" / "faces" / "ibis"
FAMILY_FILES = ("counts", "ranked", "gains", "tied", "trec", "user", "correlation", "catalog",
                "popularity_bias", "diversity")


def _defined_in(name: str) -> list[str]:
    """The family modules of the Ibis package that define a builder ``name``."""
    return [family for family in FAMILY_FILES
            if name in vars(importlib.import_module(f"rankframe.faces.ibis.{family}"))]


@pytest.mark.parametrize("name", sorted(METRICS))
def test_each_builder_sits_in_the_file_of_its_polars_twin(name: str) -> None:
    polars_file = getattr(rf, name).__module__.rsplit(".", 1)[1]
    expressed_somewhere = name not in set(unsupported_metrics("duckdb")) | set(NOT_EXPRESSED)
    assert _defined_in(name) == ([polars_file] if expressed_somewhere else [])


def test_the_public_names_are_unchanged_but_the_launcher() -> None:
    assert rfi.__all__ == ["BACKENDS", "FACES", "POSTGRES_URL_ENV", "evaluate", "evaluate_run",
                           "judge", "to_sql", "unsupported_metrics"]
    for name in rfi.__all__:
        assert getattr(rfi, name) is not None

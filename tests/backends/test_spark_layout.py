"""The Spark face's layout: a package whose family modules mirror the Polars face's
(``rankframe/faces/polars/gains.py`` beside ``rankframe/faces/spark/gains.py``), the public
module's names unchanged, and every builder's ``Returns``
section written from the registry. Needs PySpark, not a JVM."""
# ruff: noqa: E402  (imports after the check of what the module needs)

from __future__ import annotations

import pytest

from tests.support import needs

pytestmark = needs.module_level("pyspark")

import rankframe as rf
import rankframe.faces.spark as face_package
import rankframe.spark as rfs
from rankframe.registry import METRICS
from tests.support import REPO

PACKAGE = REPO / "rankframe" / "faces" / "spark"


def _family_file(module: str) -> str:
    return module.rsplit(".", 1)[1]


@pytest.mark.parametrize("name", sorted(METRICS))
def test_each_builder_sits_in_the_file_of_its_polars_twin(name: str) -> None:
    polars_file = _family_file(getattr(rf, name).__module__)
    spark_module = getattr(rfs, name).__module__
    assert spark_module == f"rankframe.faces.spark.{polars_file}"
    assert (PACKAGE / f"{polars_file}.py").is_file()


def test_the_public_names_are_unchanged() -> None:
    assert sorted(rfs.__all__) == sorted([
        *rfs.SUPPORTED_METRICS, "SUPPORTED_METRICS", "UNSUPPORTED", "UNSUPPORTED_FAMILIES",
        "evaluate", "judge", "unjudged_run_queries"])
    for name in rfs.__all__:
        assert getattr(rfs, name) is getattr(face_package, name)
    assert face_package.FACE.name == "spark"


@pytest.mark.parametrize("name", sorted(METRICS))
def test_each_builder_documents_what_it_returns_once(name: str) -> None:
    metric = METRICS[name]
    doc = getattr(rfs, name).__doc__ or ""
    kind = "StringType" if metric.is_string else "LongType" if metric.is_count else "DoubleType"
    assert doc.count("\nReturns\n-------\nColumn\n") == 1
    assert f"A {kind} aggregate, aliased as its measure string" in doc
    if "Examples\n--------" in doc:
        assert doc.index("Returns") < doc.index("Examples")

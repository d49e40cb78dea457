"""Completeness: every registered face implements every registered metric or says why not
(as data), every face has the registry's signature, and every public macro under sql/ is
accounted for."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import duckdb
import pytest

import rankframe
from rankframe import faces
from rankframe.faces import oracle
from rankframe.faces.base import Face
from rankframe.faces.polars.face import builder
from rankframe.registry import METRICS, Metric
from tests.support import SQL_DIR

MACRO_DEFINITION = re.compile(r"CREATE\s+OR\s+REPLACE\s+TEMP\s+MACRO\s+(\w+)", re.IGNORECASE)


def macros(con: duckdb.DuckDBPyConnection, kind: str) -> dict[str, list[str]]:
    rows = con.sql(
        "SELECT function_name, parameters FROM duckdb_functions() "
        "WHERE function_name LIKE 'rf\\_%' ESCAPE '\\' AND function_name NOT LIKE 'rf\\_\\_%' "
        f"ESCAPE '\\' AND function_type = '{kind}'"
    ).fetchall()
    return {name: list(params) for name, params in rows}


@pytest.mark.parametrize("name", sorted(METRICS))
def test_macro_has_registered_parameters_in_order(
    name: str, con: duckdb.DuckDBPyConnection
) -> None:
    metric = METRICS[name]
    scalar = macros(con, "macro")
    assert metric.macro in scalar, f"{metric.macro} is not defined by any sql/*.sql file"
    assert scalar[metric.macro] == [*metric.columns, *(p.name for p in metric.params)]


def test_every_metric_macro_is_registered(con: duckdb.DuckDBPyConnection) -> None:
    registered = {m.macro for m in METRICS.values()}
    unregistered = set(macros(con, "macro")) - registered
    assert not unregistered, f"macros without a registry entry: {sorted(unregistered)}"


@pytest.mark.parametrize("path", sorted(SQL_DIR.glob("rf_*.sql")), ids=lambda p: p.name)
def test_one_public_macro_per_file_named_after_it(path: Path) -> None:
    defined = [name for name in MACRO_DEFINITION.findall(path.read_text(encoding="utf-8"))
               if not name.startswith("rf__")]  # internal: the unguarded body of a macro
    assert defined == [path.stem], f"{path.name} should define exactly {path.stem}, got {defined}"
    assert path.read_text(encoding="utf-8").startswith(f"-- {path.stem}("), "header comment"


def expected_polars_signature(metric: Metric) -> list[tuple[str, inspect._ParameterKind, object]]:
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    keyword = inspect.Parameter.KEYWORD_ONLY
    first, *rest = metric.columns
    empty = inspect.Parameter.empty
    out: list[tuple[str, inspect._ParameterKind, object]] = [(first, positional, first)]
    for p in metric.required:
        out.append((p.name, positional, None if p.kind == "cutoff" else empty))
    out += [(c, keyword, c) for c in rest]
    out += [(p.name, keyword, p.default) for p in metric.optional]
    return out


@pytest.mark.parametrize("name", sorted(METRICS))
def test_polars_face_signature(name: str) -> None:
    metric = METRICS[name]
    assert getattr(rankframe, name) is builder(metric), f"rankframe.{name} is not the builder"
    params = inspect.signature(builder(metric)).parameters.values()
    actual = [(p.name, p.kind, p.default) for p in params]
    expected = expected_polars_signature(metric)
    names = [e[0] for e in expected]
    assert [a[0] for a in actual] == names
    for (pname, kind, default), (_, akind, adefault) in zip(expected, actual, strict=True):
        assert akind == kind, f"{name}({pname}) kind"
        if default is not inspect.Parameter.empty:
            assert adefault == default, f"{name}({pname}) default {adefault!r} != {default!r}"


@pytest.mark.parametrize("name", sorted(METRICS))
def test_oracle_face_signature(name: str) -> None:
    metric = METRICS[name]
    signature = inspect.signature(getattr(oracle, name))
    assert [p.name for p in signature.parameters.values()] == [
        "rows", *(p.name for p in metric.params)]
    for p in metric.optional:
        assert signature.parameters[p.name].default == p.default


def test_every_face_covers_the_registry(face: Face) -> None:
    """A face implements each registered metric or names it, with a reason, as unsupported;
    the engines (which ``evaluate`` offers) implement them all."""
    assert set(face.unsupported) <= set(METRICS), "unsupported names that are not registered"
    assert all(reason.strip() for reason in face.unsupported.values())
    if face.role in ("engine", "oracle"):
        assert not face.unsupported
    assert face.judge_ties <= {"docid", "average"} and "docid" in face.judge_ties


def test_registration_names_the_face() -> None:
    for name in faces.REGISTERED:
        if faces.unavailable(name) is None:
            assert faces.get(name).name == name
            assert faces.get(name).role == faces.REGISTERED[name].role


def contract_citations(name: str) -> dict[str, str | None]:
    """Where each face documents ``name``: its docstring or its .sql header."""
    header = "\n".join(line for line in (SQL_DIR / f"rf_{name}.sql").read_text(
        encoding="utf-8").splitlines() if line.startswith("--"))
    cited = {"polars": builder(METRICS[name]).__doc__, "oracle": getattr(oracle, name).__doc__,
             "sql": header}
    if faces.unavailable("spark") is None and faces.get("spark").unsupported.get(name) is None:
        import rankframe.spark as rfs

        cited["spark"] = getattr(rfs, name).__doc__
    return cited


@pytest.mark.parametrize("name", sorted(METRICS))
def test_every_face_cites_the_contract(name: str) -> None:
    """Each face's implementation points at the metric's section of docs/semantics.md, and
    that section exists."""
    anchor = f"docs/semantics.md#{name}"
    headings = (SQL_DIR.parent / "docs" / "semantics.md").read_text(encoding="utf-8")
    assert f"\n### {name}\n" in headings, f"docs/semantics.md has no section {name}"
    missing = [face for face, text in contract_citations(name).items()
               if anchor not in (text or "")]
    assert not missing, f"{missing} do not cite {anchor}"

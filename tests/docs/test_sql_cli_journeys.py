"""The SQL bundle in the DuckDB command-line tool a user installs (``pip install
duckdb-cli``, the ``duckdb`` next to this Python): every macro's header example prints what
its header says, every macro agrees with the Python package's DuckDB on generated tables,
and the bundle refuses a DuckDB older than it supports with one line naming the version.

Skipped where no ``duckdb`` command is installed beside this interpreter (or on the PATH:
:mod:`tests.support.needs`); ``RANKFRAME_DUCKDB_CLI=/path/to/duckdb`` tries another one.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest

import rankframe.duckdb
from rankframe.faces.duckdb import call
from rankframe.registry import METRICS, Metric
from tests.docs.test_sql_examples import EXAMPLES, Example
from tests.support import REPO, SQL_DIR, needs

HELPERS = SQL_DIR / "_helpers.sql"


#: The tool: another version to try (e.g. an older one) in RANKFRAME_DUCKDB_CLI, else this
#: environment's.
CLI = os.environ.get("RANKFRAME_DUCKDB_CLI") or needs.program("duckdb")
#: What a test running the tool needs (nothing more when RANKFRAME_DUCKDB_CLI names one).
needs_cli = (pytest.mark.usefixtures() if os.environ.get("RANKFRAME_DUCKDB_CLI")
             else needs.mark("duckdb-cli"))


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The macro script ``rankframe sql`` prints, as a user saves it."""
    path = tmp_path_factory.mktemp("bundle") / "rankframe.sql"
    path.write_text(rankframe.duckdb.sql_text(SQL_DIR), encoding="utf-8")
    return path


def cli_rows(bundle: Path, sql: str, cwd: Path = REPO) -> list[dict[str, Any]]:
    """The rows of ``sql`` run in the command-line tool after ``.read`` of the bundle."""
    assert CLI is not None
    done = subprocess.run([CLI, "-json", "-c", f".read {bundle}", "-c", sql], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr
    rows: list[dict[str, Any]] = json.loads(done.stdout) if done.stdout.strip() else []
    return rows


def show(value: object) -> str:
    return "NULL" if value is None else str(value)


@needs_cli
@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_header_example_in_the_cli(example: Example, bundle: Path) -> None:
    rows = cli_rows(bundle, example.sql + ";")
    assert [", ".join(show(v) for v in row.values()) for row in rows] == list(
        example.expected), f"{example.path.name}:{example.line} in {CLI}"


def _table(seed: int, queries: int = 12) -> pl.DataFrame:
    """A judged table with every column some macro reads: grades with NULL (unjudged) and
    negative (pooled) ones, NULL ranks, tie groups over the ranks, paired scores with ties
    and NULLs, and two rankings with absent documents."""
    rnd = random.Random(seed)
    rows: list[dict[str, Any]] = []
    for q in range(queries):
        n = rnd.randint(0, 9)
        ranks: list[int | None] = list(range(1, n + 1))
        ranks += [None] * rnd.randint(0, 3)
        first: list[int | None] = []
        size: list[int | None] = []
        r = 1
        while r <= n:
            width = min(rnd.choice([1, 1, 2, 3]), n - r + 1)
            first += [r] * width
            size += [width] * width
            r += width
        first += [None] * (len(ranks) - n)
        size += [None] * (len(ranks) - n)
        order = list(range(1, len(ranks) + 1))
        rnd.shuffle(order)
        for i, rank in enumerate(ranks):
            rows.append({
                "qid": f"q{q}", "rank": rank,
                "rel": rnd.choice([None, -1.0, 0.0, 0.0, 1.0, 1.0, 2.0, 3.0]),
                "tie_first": first[i], "tie_size": size[i],
                "x": rnd.choice([None, 1.0, 2.0, 2.0, 3.0, 5.0]),
                "y": rnd.choice([None, 0.5, 1.0, 4.0, 4.0]),
                "rank_a": rank,
                "rank_b": order[i] if rnd.random() < 0.8 else None,
                # The item attributes of the beyond-accuracy metrics.
                "item": rnd.choice([None, "a", "b", "b", "c", "d"]),
                "pop": rnd.choice([None, 0, 1, 3, 8]),
                "tail": rnd.choice([None, True, False]),
                "category": rnd.choice([None, "x", "y", "y"]),
                "features": rnd.choice([None, [0.0, 0.0], [1.0, 2.0], [-1.0, 0.5]]),
                "pair_similarity": rnd.choice([None, 0.0, 0.5, 1.5]),
                "similarity": rnd.choice([None, 0.0, 0.25, 1.0]),
                "alignment": rnd.choice([None, [1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]),
                "target": [0.3, 0.7],
            })
    vector = pl.List(pl.Float64)
    schema = {"qid": pl.String, "rank": pl.Int64, "rel": pl.Float64, "tie_first": pl.Int64,
              "tie_size": pl.Int64, "x": pl.Float64, "y": pl.Float64, "rank_a": pl.Int64,
              "rank_b": pl.Int64, "item": pl.String, "pop": pl.Int64, "tail": pl.Boolean,
              "category": pl.String, "features": vector, "pair_similarity": pl.Float64,
              "similarity": pl.Float64, "alignment": vector, "target": vector}
    return pl.DataFrame(rows, schema=schema)


_REQUIRED = {"cutoff": [3, None], "recall_level": [0.5], "weight": [0.5]}


def _calls(metric: Metric) -> Iterator[tuple[str, str]]:
    """(column label, macro call): the metric with its required parameters, then with each
    choice and flag of its optional ones."""
    columns = {c: c for c in metric.columns}
    # A size (a catalogue's, a total) is given: its default, None, is for evaluate to fill.
    required: list[dict[str, Any]] = [{p.name: 5 for p in metric.optional if p.kind == "size"}]
    for p in metric.required:
        required = [{**v, p.name: value} for v in required for value in _REQUIRED[p.kind]]
    variants = list(required)
    for p in metric.optional:
        values = p.choices or ((True, False) if p.kind == "flag" else ())
        variants += [{**required[0], p.name: value} for value in values]
    for i, values in enumerate(variants):
        yield f"{metric.name}_{i}", call(metric, columns, values)


CALLS = [c for metric in METRICS.values() for c in _calls(metric)]


@needs_cli
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_macro_agrees_with_the_python_package(seed: int, bundle: Path,
                                                    tmp_path: Path) -> None:
    table = _table(seed)
    table.write_parquet(tmp_path / "judged.parquet")
    select = ", ".join(f'{macro} AS "{label}"' for label, macro in CALLS)
    sql = f"SELECT qid, {select} FROM 'judged.parquet' GROUP BY qid ORDER BY qid"
    con = rankframe.duckdb.register(duckdb.connect(), sql_dir=SQL_DIR)
    try:
        con.register("t", table.to_arrow())
        expected = con.sql(sql.replace("'judged.parquet'", "t")).fetchall()
    finally:
        con.close()
    got = cli_rows(bundle, sql + ";", cwd=tmp_path)
    assert len(got) == len(expected)
    labels = ["qid", *(label for label, _ in CALLS)]
    for want, row in zip(expected, got, strict=True):
        for label, value in zip(labels, want, strict=True):
            have = row[label]
            if isinstance(value, float) and have is not None:
                assert math.isclose(have, value, rel_tol=1e-9, abs_tol=1e-12), (
                    f"{label} of {row['qid']}: {have} in {CLI}, {value} in duckdb "
                    f"{duckdb.__version__}")
            else:
                assert have == value, f"{label} of {row['qid']} in {CLI}"


def _version_check() -> str:
    """The version check at the top of ``_helpers.sql``: its first statement."""
    text = HELPERS.read_text(encoding="utf-8")
    statement = re.search(r"^SET VARIABLE rf__duckdb_version\b.*?;$", text, re.S | re.M)
    assert statement is not None, "no version check in _helpers.sql"
    return statement.group(0)


@pytest.mark.parametrize(("version", "refused"), [
    ("v1.4.4", True), ("v1.3.2", True), ("v0.10.3", True), ("v1.5.0", False),
    ("v1.5.6", False), ("v1.10.0", False), ("v2.0.1", False), ("v2.1.0-dev42", False)])
def test_the_bundle_checks_the_version(version: str, refused: bool) -> None:
    check = _version_check().replace("version()", f"'{version}'")
    con = duckdb.connect()
    try:
        if refused:
            with pytest.raises(duckdb.Error, match=re.escape(
                    f"rankframe's SQL macros need DuckDB 1.5.0 or newer; this is "
                    f"DuckDB {version}")):
                con.execute(check)
        else:
            con.execute(check)
    finally:
        con.close()


def test_the_check_is_the_first_statement_and_loads_silently() -> None:
    text = HELPERS.read_text(encoding="utf-8")
    code = [line for line in text.splitlines() if line and not line.startswith("--")]
    assert code[0] == "BEGIN TRANSACTION;" and code[-1] == "COMMIT;"  # the check's guard
    assert code[1].startswith("SET VARIABLE rf__duckdb_version")
    con = rankframe.duckdb.register(duckdb.connect(), sql_dir=SQL_DIR)
    try:
        assert con.sql("SELECT getvariable('rf__duckdb_version') = version()").fetchall() == [
            (True,)]
    finally:
        con.close()


def test_python_loads_the_helpers_inside_a_callers_transaction() -> None:
    con = duckdb.connect()
    try:
        con.begin()
        rankframe.duckdb.register(con, sql_dir=SQL_DIR)
        assert con.sql("SELECT rf_ndcg(1, 1)").fetchall() == [(1.0,)]
        con.rollback()
    finally:
        con.close()


@needs_cli
def test_an_old_duckdb_cli_defines_no_macro(tmp_path: Path) -> None:
    """On a DuckDB older than 1.5.0 (the check reads v1.4.4 here), the command-line tool,
    which goes on after an error, defines no macro: the check's error aborts the
    transaction of the helpers, and each metric macro then fails to bind. (Seen with the
    real duckdb-cli 1.4.4 too: pip install duckdb-cli==1.4.4.)"""
    assert CLI is not None
    text = rankframe.duckdb.sql_text(sql_dir=SQL_DIR)
    check = _version_check()
    assert text.count(check) == 1
    script = (text.replace(check, check.replace("version()", "'v1.4.4'"))
              + "SELECT count(*) AS macros FROM duckdb_functions() "
              "WHERE function_name LIKE 'rf%';\n")
    done = subprocess.run([CLI, "-csv"], input=script, capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)  # piped, as `rankframe sql | duckdb`
    assert done.stderr.startswith("Invalid Input Error: rankframe's SQL macros need DuckDB "
                                  "1.5.0 or newer; this is DuckDB v1.4.4\n"), done.stderr
    assert done.returncode == 1
    assert done.stdout.splitlines() == ["macros", "0"], done.stdout


@needs_cli
def test_the_cli_loads_the_bundle_silently(bundle: Path) -> None:
    assert CLI is not None
    done = subprocess.run([CLI, "-c", f".read {bundle}"], capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")

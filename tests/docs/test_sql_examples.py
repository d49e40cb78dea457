"""The examples in the header comments of ``sql/*.sql`` run and print what they say.

Format. A file's header is its leading run of ``--`` lines. Its examples are the last part
of the header: they start at a line whose text (after ``--``, stripped) is ``Example:`` or
``Examples:``, optionally with a parenthesised note before the colon, and run to the end of
the header::

    --   Example (docs/semantics.md#worked-examples: grades 3, 2, 3, 0, 1):
    --     SELECT round(rf_ndcg(rel, rank, 5), 4)
    --     FROM (VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1)) t(rank, rel);
    --     => 0.9724

- Each line after the marker is either an expected row, when its text starts with ``=>``,
  or SQL. An example is a run of SQL lines followed by a run of ``=>`` lines; the next SQL
  line starts the next example. The SQL is one statement and ends with ``;``.
- The query must return exactly one row per ``=>`` line, in order. A row prints as its
  values joined by ``, ``: NULL as ``NULL``, any other value as Python's ``str`` of what
  DuckDB returns (text unquoted, an integer as digits, a DOUBLE as its shortest repr, so
  ``0.5`` and ``1.0``). Nothing is rounded here: an example whose value does not print
  short rounds it in the query (``round(x, 4)``).
- Each example runs in a DuckDB connection with the macros of this repository's ``sql/``
  loaded (one for the module, each example in a transaction rolled back after it, so that
  none sees another's tables), with the repository root as the working directory, so file
  paths such as ``examples/data/qrels.txt`` are relative to the root.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

import rankframe.duckdb
from tests.support import REPO, SQL_DIR

MARKER = re.compile(r"Examples?( \(.+\))?:")
EXPECTED = "=>"


@dataclass(frozen=True)
class Example:
    path: Path
    index: int  # 1-based within the file
    line: int  # 1-based line of the example's first SQL line
    sql: str
    expected: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.path.name}-{self.index}"


def header(text: str) -> list[str]:
    """The text of each leading ``--`` line, without the ``--``."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        lines.append(line[2:])
    return lines


def parse(path: Path) -> tuple[list[Example], list[str]]:
    """The examples of one file's header, and what is malformed about them."""
    examples: list[Example] = []
    problems: list[str] = []
    lines = header(path.read_text(encoding="utf-8"))
    start = next((i + 1 for i, line in enumerate(lines) if MARKER.fullmatch(line.strip())), None)
    if start is None:
        return examples, problems
    sql: list[str] = []
    expected: list[str] = []
    first = 0

    def close() -> None:
        where = f"{path.name}:{first}"
        if not expected:
            problems.append(f"{where}: SQL without a '=>' line after it")
        elif not sql:
            problems.append(f"{where}: '=>' lines without SQL before them")
        elif not sql[-1].endswith(";"):
            problems.append(f"{where}: the SQL does not end with ';'")
        else:
            examples.append(Example(path, len(examples) + 1, first,
                                    "\n".join(sql).removesuffix(";"), tuple(expected)))

    for number, raw in enumerate(lines[start:], start=start + 1):
        text = raw.strip()
        if not text:
            problems.append(f"{path.name}:{number}: blank line inside the examples")
        elif text.startswith(EXPECTED):
            if not sql and not expected:
                first = number
            expected.append(text.removeprefix(EXPECTED).strip())
        else:
            if expected:
                close()
                sql, expected = [], []
            if not sql:
                first = number
            sql.append(text)
    if sql or expected:
        close()
    if not examples and not problems:
        problems.append(f"{path.name}: an Example marker with no example after it")
    return examples, problems


def collect() -> tuple[list[Example], list[str]]:
    examples: list[Example] = []
    problems: list[str] = []
    for path in sorted(SQL_DIR.glob("*.sql")):
        found, wrong = parse(path)
        examples += found
        problems += wrong
    return examples, problems


EXAMPLES, PROBLEMS = collect()


def show(value: object) -> str:
    return "NULL" if value is None else str(value)


@pytest.fixture(scope="module")
def macros() -> Iterator[duckdb.DuckDBPyConnection]:
    """One connection with the repository's macros (loading them costs more than an example);
    each example runs in a transaction rolled back after it, so none sees another's tables."""
    con = rankframe.duckdb.register(duckdb.connect(), sql_dir=SQL_DIR)
    yield con
    con.close()


def run(example: Example, con: duckdb.DuckDBPyConnection | None = None) -> list[str]:
    """The rows the example's query returns, printed as the format says (in ``con``, in a
    transaction rolled back after it; else in a fresh connection)."""
    if con is None:
        fresh = rankframe.duckdb.register(duckdb.connect(), sql_dir=SQL_DIR)
        try:
            return run(example, fresh)
        finally:
            fresh.close()
    con.execute("BEGIN TRANSACTION")
    try:
        rows = con.sql(example.sql).fetchall()
    finally:
        con.execute("ROLLBACK")
    return [", ".join(show(v) for v in row) for row in rows]


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_example_prints_what_its_header_says(example: Example, macros: duckdb.DuckDBPyConnection,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    assert run(example, macros) == list(example.expected), (
        f"{example.path.name}:{example.line}: the example prints something else\n{example.sql}")


def test_examples_are_well_formed() -> None:
    assert not PROBLEMS, "\n".join(PROBLEMS)


def test_every_public_macro_file_has_an_example() -> None:
    with_examples = {e.path.name for e in EXAMPLES}
    missing = [p.name for p in sorted(SQL_DIR.glob("rf_*.sql")) if p.name not in with_examples]
    assert not missing, f"no example in the header of: {missing}"


def test_a_wrong_expected_value_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check is not vacuous: a header whose expected value is off is caught."""
    path = tmp_path / "rf_demo.sql"
    path.write_text(
        "-- rf_demo() -> DOUBLE\n"
        "--   Example:\n"
        "--     SELECT round(rf_ndcg(rel, rank, 5), 4)\n"
        "--     FROM (VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1)) t(rank, rel);\n"
        "--     => 0.9725\n"
        "--     SELECT 1, NULL, 'a';\n"
        "--     => 1, NULL, a\n",
        encoding="utf-8")
    (wrong, right), problems = parse(path)
    assert not problems
    assert (wrong.line, wrong.expected, right.index) == (3, ("0.9725",), 2)
    monkeypatch.chdir(REPO)
    assert run(wrong) == ["0.9724"] != list(wrong.expected)
    assert run(right) == list(right.expected)

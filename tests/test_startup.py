"""Start-up: ``import rankframe`` and ``rankframe eval`` load only what the work needs.

Each check runs a fresh interpreter and lists the modules it ended with: the library alone
imports neither Polars nor any engine; the command line's default path (the Polars engine,
trec output) imports no DuckDB, pyarrow, NumPy, SciPy, Matplotlib or pandas, and none of
the other subcommands' machinery.
"""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from tests.conftest import REPO

HEAVY = ("duckdb", "pyarrow", "numpy", "scipy", "matplotlib", "pandas")


def loaded_modules(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code`` (printed on stderr,
    stdout is the command's own)."""
    report = "import sys; print(sorted(sys.modules), file=sys.stderr)"
    done = subprocess.run([sys.executable, "-c", f"{code}\n{report}"], cwd=REPO,
                          capture_output=True, text=True, check=True)
    modules: list[str] = ast.literal_eval(done.stderr.strip().splitlines()[-1])
    return set(modules)


def top_level(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def test_import_rankframe_loads_no_dataframe_library() -> None:
    modules = loaded_modules("import rankframe")
    assert top_level(modules) & {"polars", *HEAVY} == set()
    assert {m for m in modules if m.startswith("rankframe.")} == {"rankframe.errors"}


def test_public_names_import_on_first_use() -> None:
    modules = loaded_modules("import rankframe as rf\nassert callable(rf.read_run)")
    assert "rankframe.io.trec" in modules and "rankframe.analysis.compare" not in modules
    assert top_level(modules) & set(HEAVY) == set()


@pytest.mark.parametrize("fmt", ["trec", "csv"])
def test_eval_default_path_imports_only_what_it_uses(fmt: str) -> None:
    code = ("from rankframe.cli.main import main\n"
            f"status = main(['eval', '--format', '{fmt}', 'examples/data/qrels.txt', "
            "'examples/data/run.bm25.txt'])\n"
            "assert status == 0")
    modules = loaded_modules(code)
    assert "rankframe.io.trec" in modules  # it did the work
    assert top_level(modules) & set(HEAVY) == set()
    waiting = {"rankframe.analysis.compare", "rankframe.analysis.report",
               "rankframe.faces.duckdb"}
    assert modules & waiting == set()


def test_public_api_is_unchanged_by_lazy_loading() -> None:
    import rankframe as rf
    import rankframe.evaluate  # the submodule import must not shadow rf.evaluate
    from rankframe import metrics

    assert callable(rf.evaluate) and rf.evaluate.__module__ == "rankframe.evaluate"
    assert set(metrics.__all__) <= set(rf.__all__)
    assert all(callable(getattr(rf, name)) or isinstance(getattr(rf, name), str)
               for name in rf.__all__)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        rf.no_such_name  # noqa: B018

"""Start-up: ``import rankframe`` and ``rankframe eval`` load only what the work needs.

Each check runs a fresh interpreter and lists the modules it ended with: the library alone
imports neither Polars nor any engine; ``rankframe eval`` on small plain files (``--engine
auto``'s pure-Python path) imports no Polars either, and on Polars it imports no DuckDB,
pyarrow, NumPy, SciPy, Matplotlib or pandas, and none of the other subcommands' machinery.
"""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from tests.support import REPO

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


def _eval_modules(*options: str) -> set[str]:
    code = ("from rankframe.cli.main import main\n"
            f"status = main(['eval', {', '.join(repr(o) for o in options)}, "
            "'examples/data/qrels.txt', 'examples/data/run.bm25.txt'])\n"
            "assert status == 0")
    return loaded_modules(code)


@pytest.mark.parametrize("fmt", ["trec", "csv"])
def test_eval_on_small_plain_files_imports_no_polars(fmt: str) -> None:
    """``--engine auto`` evaluates small plain files in pure Python: no dataframe library."""
    modules = _eval_modules("--format", fmt)
    assert "rankframe.cli.eval_small" in modules and "rankframe.reference" in modules
    assert top_level(modules) & {"polars", *HEAVY} == set()
    assert "rankframe.registry" in modules  # the declarations, not the builders
    assert not any(m.startswith("rankframe.faces.polars.") for m in modules)


@pytest.mark.parametrize("fmt", ["trec", "csv"])
def test_eval_polars_path_imports_only_what_it_uses(fmt: str) -> None:
    modules = _eval_modules("--engine", "polars", "--format", fmt)
    assert "rankframe.io.trec" in modules  # it did the work
    assert "rankframe.cli.eval_small" not in modules
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

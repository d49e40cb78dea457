"""rankframe: ranking metrics where the data lives, as Polars expressions and DuckDB macros.

Every metric in :mod:`rankframe.metrics` is re-exported here (``rf.ndcg``, ``rf.precision``
...); the DuckDB face is loaded with :func:`rankframe.duckdb.register`. Comparing systems:
``rf.evaluate_runs`` (several runs -> one per-query table with a ``system`` column) and
``rf.compare`` (paired tests against a baseline; needs the extra ``stats``, imported only
when called).
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

from rankframe.errors import EngineError as EngineError
from rankframe.errors import InputError as InputError
from rankframe.errors import InputWarning as InputWarning
from rankframe.errors import MeasureError as MeasureError
from rankframe.errors import RankframeError as RankframeError

# Not typing's (an import of tens of milliseconds, before the command line can take a
# Ctrl-C): type checkers read the blocks under it, the interpreter skips them.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    from rankframe.analysis.compare import adjust_pvalues as adjust_pvalues
    from rankframe.analysis.compare import compare as compare
    from rankframe.analysis.runs import evaluate_runs as evaluate_runs
    from rankframe.analysis.runs import read_runs as read_runs
    from rankframe.beyond.catalog import Catalog as Catalog
    from rankframe.evaluate import evaluate as evaluate
    from rankframe.evaluate import evaluate_run as evaluate_run
    from rankframe.evaluate import summarize as summarize
    from rankframe.faces.polars import *  # noqa: F403  (the metric builders are the public API)
    from rankframe.faces.polars.many import evaluate_expr as evaluate_expr
    from rankframe.groups import average_groups as average_groups
    from rankframe.groups import evaluate_groups as evaluate_groups
    from rankframe.groups import judge_groups as judge_groups
    from rankframe.io import read_qrels as read_qrels
    from rankframe.io import read_qrels_jg as read_qrels_jg
    from rankframe.io import read_run as read_run
    from rankframe.io import read_zscores as read_zscores
    from rankframe.table.checks import check_judged as check_judged
    from rankframe.table.judge import judge as judge
    from rankframe.table.judge import unjudged_run_queries as unjudged_run_queries

__version__ = "0.1.0"

# Everything but the errors is imported on first use (``rf.ndcg`` imports Polars and the
# builders then), so that ``import rankframe`` and the command line load only what they use.
_LAZY: dict[str, str] = {
    "adjust_pvalues": "rankframe.analysis.compare",
    "compare": "rankframe.analysis.compare",
    "evaluate_runs": "rankframe.analysis.runs",
    "read_runs": "rankframe.analysis.runs",
    "Catalog": "rankframe.beyond.catalog",
    "evaluate": "rankframe.evaluate",
    "evaluate_run": "rankframe.evaluate",
    "summarize": "rankframe.evaluate",
    "evaluate_expr": "rankframe.faces.polars.many",
    "average_groups": "rankframe.groups",
    "evaluate_groups": "rankframe.groups",
    "judge_groups": "rankframe.groups",
    "read_qrels": "rankframe.io",
    "read_qrels_jg": "rankframe.io",
    "read_run": "rankframe.io",
    "read_zscores": "rankframe.io",
    "check_judged": "rankframe.table.checks",
    "judge": "rankframe.table.judge",
    "unjudged_run_queries": "rankframe.table.judge",
}
_NAMES = ["EngineError", "InputError", "InputWarning", "MeasureError", "RankframeError",
          "__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use (PEP 562); ``__all__`` and the
    metric builders (``rankframe.metrics.__all__``: :mod:`rankframe.faces.polars`) import the
    builders."""
    if name.startswith("__") and name != "__all__":
        raise AttributeError(f"module 'rankframe' has no attribute {name!r}")
    module = _LAZY.get(name)
    if module is None:
        metrics = importlib.import_module("rankframe.faces.polars")
        if name == "__all__":
            names = sorted({*_NAMES, *metrics.__all__})
            globals()["__all__"] = names
            return names
        if name not in metrics.__all__:
            raise AttributeError(f"module 'rankframe' has no attribute {name!r}")
        module = metrics.__name__
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__getattr__("__all__")})


class _Package(ModuleType):
    """The package module: importing the submodule ``rankframe.evaluate`` binds the
    function of that name here, not the module (as the eager ``from ... import`` did)."""

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, ModuleType) and _LAZY.get(name) == value.__name__:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

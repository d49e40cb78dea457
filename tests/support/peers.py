"""The peers (pytrec_eval, ranx, ir_measures, TorchMetrics) as the tests import them, through
:mod:`tests.support.needs` (skipped with one line naming what to install; a failure under CI
where CI's extras hold them): a test reading one carries ``needs.mark(NAME)``."""

from __future__ import annotations

import warnings
from types import ModuleType

from tests.support import needs


def peer(module: str) -> ModuleType:
    """The peer ``module`` (a name of :data:`tests.support.needs.NEEDS`), imported without
    its import-time deprecation warnings, which are not ours."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return needs.load(module)

"""The peers (pytrec_eval, ranx, ir_measures, TorchMetrics) as the tests import them: skipped
with one line naming what to install where one is missing; under ``CI``, which installs them
(the ``peers`` extra), a failure."""

from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType

import pytest

#: module -> what installs it
INSTALL = {
    "pytrec_eval": "pip install pytrec-eval-terrier (the test extra)",
    "ranx": "pip install ranx (the bench and peers extras)",
    "ir_measures": "pip install ir-measures (the peers extra)",
    "torchmetrics": "pip install torch==2.13.0 torchmetrics (the peers extra)",
}


def peer(module: str) -> ModuleType:
    """The peer ``module``, imported; skipped (failed under CI) where it is missing."""
    try:
        with warnings.catch_warnings():  # their import-time deprecations are not ours
            warnings.simplefilter("ignore")
            return importlib.import_module(module)
    except ImportError as exc:
        message = f"{module} is not installed ({exc}): {INSTALL[module]}"
        if os.environ.get("CI"):
            pytest.fail(message + " (CI installs the peers extra)")
        pytest.skip(message)

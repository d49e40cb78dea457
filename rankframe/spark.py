"""Public entry point of the Spark face (``import rankframe.spark as rfs``); the face itself
is :mod:`rankframe.faces.spark`."""

from rankframe.faces.spark import *  # noqa: F403
from rankframe.faces.spark import __all__ as __all__

"""The ``rankframe`` command line."""

from rankframe.cli.main import main

__all__ = ["main"]

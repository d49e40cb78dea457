"""The command-line reference page, from the argparse parsers of :mod:`rankframe.cli`."""

from __future__ import annotations

import argparse
import os
from unittest import mock

from rankframe.cli.main import build_parser

INTRO = """\
Generated from the command line's own parsers when the site is built: each section is
what `rankframe COMMAND --help` prints. `python -m rankframe` is the same program.
"""


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def page() -> str:
    """The whole Markdown page; help is formatted 88 columns wide whatever the terminal."""
    with mock.patch.dict(os.environ, {"COLUMNS": "88"}):
        parser = build_parser()
        sections = [("rankframe", parser), *(
            (f"rankframe {name}", sub) for name, sub in _subparsers(parser).items())]
        lines = ["# Command line", "", INTRO]
        for title, sub in sections:
            lines += [f"## `{title}`", "", "```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(lines)

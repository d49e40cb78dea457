"""A numpy-style docstring's ``Parameters`` section, completed from shared descriptions.

The registry describes each parameter once (``Param.desc``); a builder's docstring documents
only what is its own. :func:`complete_parameters` writes the whole section, in the order of
the signature, from both: the builder's entries where it has them, the shared descriptions
for the rest. :func:`rankframe.registry.validated` applies it to every builder's
``__doc__`` (what ``help()`` shows), :func:`described_by` to functions of one module that
share parameters (a module-level mapping describes them once), ``docsgen/params.py`` to the
docstrings the site reads from the sources.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

F = TypeVar("F", bound=Callable[..., object])

#: A section heading of a cleaned numpy-style docstring: a title over a dashed line.
_HEADING = re.compile(r"^(?P<title>\S[^\n]*)\n-{3,}\n", re.MULTILINE)
_WIDTH = 88
#: An operator between spaces, kept on the line of its operands.
_OPERATOR = re.compile(r" ([-+*/=<>^]=?) ")


def _entries(body: str) -> list[tuple[tuple[str, ...], str]]:
    """The entries of a ``Parameters`` section's body: (names, the entry's whole text)."""
    found: list[tuple[tuple[str, ...], str]] = []
    for block in re.split(r"\n(?=\S)", body.strip("\n")):
        head = block.split("\n", 1)[0].split(" : ")[0]
        names = tuple(part.strip().lstrip("*") for part in head.split(","))
        found.append((names, block.rstrip()))
    return found


def wrap(text: str, width: int, first: str, rest: str) -> list[str]:
    """``text`` in lines of at most ``width`` characters (``first`` and ``rest`` their
    indents), never breaking a formula's operator from its operands (``2^rel - 1``)."""
    glued = _OPERATOR.sub(lambda m: f"\xa0{m[1]}\xa0", " ".join(text.split()))
    lines = textwrap.wrap(glued, width, initial_indent=first, subsequent_indent=rest,
                          break_on_hyphens=False, break_long_words=False)
    return [line.replace("\xa0", " ") for line in lines]


def _entry(names: tuple[str, ...], desc: str) -> str:
    return "\n".join([", ".join(names), *wrap(desc, _WIDTH, "    ", "    ")])


def complete_parameters(doc: str, parameters: Sequence[str],
                        described: Mapping[tuple[str, ...], str]) -> str:
    """``doc`` (a docstring, cleaned or not) with its ``Parameters`` section documenting
    the names of ``parameters``, in that order: the docstring's own entry where it has one,
    else the entry of ``described`` (names documented together -> their description; of
    several entries naming it, the largest whose names are all parameters); a name neither
    documents is left out. ``doc`` is returned as it is when it documents
    every parameter already."""
    text = inspect.cleandoc(doc)
    headings = list(_HEADING.finditer(text))
    section = next((h for h in headings if h["title"] == "Parameters"), None)
    later = [h.start() for h in headings if section is None or h.start() > section.start()]
    end = later[0] if later else len(text)
    own = _entries(text[section.end():end]) if section is not None else []
    documented = {name for names, _ in own for name in names}
    if all(name in documented for name in parameters):
        return doc
    def fit(item: tuple[tuple[str, ...], str]) -> tuple[bool, int]:
        return all(name in parameters for name in item[0]), len(item[0])

    # A name in several entries takes the one whose names are all parameters, the largest.
    shared = {name: (names, desc) for names, desc in sorted(described.items(), key=fit)
              for name in names}
    blocks: list[str] = []
    for name in parameters:
        entry = next((block for names, block in own if name in names), None)
        if entry is None and name in shared:
            entry = _entry(*shared[name])
        if entry is not None and entry not in blocks:
            blocks.append(entry)
    new = "Parameters\n----------\n" + "\n".join(blocks) + "\n\n"
    start = section.start() if section is not None else end
    before = text[:start].rstrip() + "\n\n"
    return before + new + text[end:] if end < len(text) else (before + new).rstrip() + "\n"


def described_by(described: Mapping[tuple[str, ...], str]) -> Callable[[F], F]:
    """A decorator: the function's ``__doc__`` with its ``Parameters`` section completed from
    ``described`` (names documented together -> their description), in the order of its
    signature (:func:`complete_parameters`). The function itself is returned unchanged
    otherwise. The mapping must be a module-level name: the API reference (griffe, which
    reads the sources) looks it up by the name the decorator is given."""

    def decorate(function: F) -> F:
        names = list(inspect.signature(function).parameters)
        function.__doc__ = complete_parameters(function.__doc__ or "", names, described)
        return function

    return decorate

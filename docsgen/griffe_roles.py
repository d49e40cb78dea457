"""A griffe extension (``extensions:`` of mkdocstrings in ``mkdocs.yml``): the API
reference's docstrings as :func:`docsgen.docstrings.to_markdown` makes them, the metric
builders' ``Parameters`` sections completed from the registry
(:func:`docsgen.params.complete_docstring`, as ``help()`` shows them), and the defaults of
parameters documented together shown right.

numpydoc lets one entry document several parameters (``system, k, value``); griffe gives
each of them the first one's default. Here each gets its own, from the signature.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import griffe

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # mkdocstrings loads this file by path
    sys.path.insert(0, str(ROOT))

from docsgen.docstrings import to_markdown  # noqa: E402
from docsgen.params import complete_docstring  # noqa: E402

#: The metric contract seen from the API reference page (``api.md``, beside it).
CONTRACT_URL = "semantics.md"


def _canonical(loader: griffe.GriffeLoader, path: str) -> str | None:
    """The path of the object ``path`` names after following aliases, if griffe has it."""
    try:
        obj = loader.modules_collection.get_member(path)
    except (KeyError, ValueError):
        return None
    try:
        return str(obj.final_target.path) if obj.is_alias else str(obj.path)
    except griffe.AliasResolutionError:
        return None


def _resolver(obj: griffe.Object | griffe.Alias, loader: griffe.GriffeLoader
              ) -> Any:
    def resolve(name: str) -> str | None:
        found = _canonical(loader, name)
        if found is None and name.count(".") == 1 and name.startswith("rankframe."):
            # The metric builders reach ``rankframe`` by a star import griffe does not follow.
            found = _canonical(loader, name.replace("rankframe.", "rankframe.faces.polars.", 1))
        if found is None and "." not in name:
            try:
                found = _canonical(loader, obj.resolve(name))
            except griffe.NameResolutionError:
                return None
        return found
    return resolve


def _fix_grouped_defaults(obj: griffe.Object) -> None:
    """Each parameter of a shared docstring entry gets its own default."""
    if not isinstance(obj, griffe.Function) or obj.docstring is None:
        return
    for section in obj.docstring.parsed:
        if section.kind is not griffe.DocstringSectionKind.parameters:
            continue
        for parameter in section.value:
            if parameter.name in obj.parameters:
                parameter.value = obj.parameters[parameter.name].default


def _walk(obj: griffe.Object) -> list[griffe.Object]:
    found = [obj]
    for member in obj.members.values():
        if not member.is_alias and isinstance(member, griffe.Object):
            found += _walk(member)
    return found


class SphinxRoles(griffe.Extension):
    """Rewrites every docstring of the loaded package once it is complete."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader,
                   **kwargs: Any) -> None:
        for obj in _walk(pkg):
            complete_docstring(obj)
            if obj.docstring is not None:
                obj.docstring.value = to_markdown(obj.docstring.value,
                                                  _resolver(obj, loader), CONTRACT_URL)
                _fix_grouped_defaults(obj)

"""Docstrings as the site shows them: the reStructuredText roles that ``help()`` readers
see as plain text become links and math, at build time, without touching the sources.

- ``:func:`name``` (and ``:class:``, ``:mod:``, ``:meth:``, ``:attr:``, ``:data:``,
  ``:obj:``, ``:exc:``) becomes a cross-reference to the object's section of the API
  reference, or plain code where the site has none (an ``optional`` autorefs link);
- ``:math:`latex``` becomes MathML, which browsers render without any script or network;
- ``docs/semantics.md#anchor`` becomes a link to that section of the metric contract.

:mod:`docsgen.griffe_roles` applies :func:`to_markdown` to every docstring the API
reference renders; :mod:`docsgen.measures` to the summaries it quotes.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

ROLE = re.compile(r":(?:func|class|mod|meth|attr|data|obj|exc):`(?P<tilde>~?)(?P<name>[^`]+)`")
MATH = re.compile(r":math:`(?P<latex>[^`]+)`")
# Written as text or as inline code, with or without an anchor.
SEMANTICS = re.compile(r"(?P<tick>``)?docs/semantics\.md(?P<anchor>#[\w-]+)?(?P=tick)?")

Resolver = Callable[[str], str | None]


def math_html(latex: str) -> str:
    """``latex`` as inline MathML (latex2mathml, a dependency of the ``docs`` extra)."""
    from latex2mathml.converter import convert

    return str(convert(latex))


def _reference(match: re.Match[str], resolve: Resolver) -> str:
    name = match["name"].strip().removesuffix("()")
    shown = name.rsplit(".", 1)[-1] if match["tilde"] else name
    target = resolve(name) or name
    return (f'<autoref identifier="{html.escape(target)}" optional>'
            f"<code>{html.escape(shown)}</code></autoref>")


def _semantics(match: re.Match[str], contract_url: str) -> str:
    anchor = match["anchor"] or ""
    shown = f"metric contract § {anchor[1:]}" if anchor else "metric contract"
    return f"[{shown}]({contract_url}{anchor})"


def to_markdown(text: str, resolve: Resolver, contract_url: str) -> str:
    """``text`` with its roles, math and contract references made Markdown and HTML for
    the site. ``resolve`` maps a role's target (as written) to the identifier of the
    object's section, or None; ``contract_url`` is the metric contract's URL from the page
    the text is shown on."""
    text = MATH.sub(lambda m: math_html(m["latex"]), text)
    text = ROLE.sub(lambda m: _reference(m, resolve), text)
    return SEMANTICS.sub(lambda m: _semantics(m, contract_url), text)

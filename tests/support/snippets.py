"""Fenced code blocks of the README and the documentation, as runnable snippets.

Conventions (docs/index.md#every-snippet-runs says them for writers):

- Blocks in ``python``, ``sh``/``bash`` and ``sql`` run; other languages (``text``,
  ``toml`` ...) and blocks without a language are prose.
- A block fenced as ``output`` right after a runnable block (blank lines between allowed)
  is what that snippet prints on stdout; the test requires exactly that.
- An HTML comment on the line before a block's fence can say
  ``<!-- snippet: skip REASON -->`` (not run: REASON says why, e.g. it needs a server) or
  ``<!-- snippet: needs pyspark java -->`` (skipped when a module is not importable or,
  for ``java``, no Java runtime is on the PATH).
- A ``sql`` block, and a shell block calling ``duckdb`` (at a line's start or after a pipe),
  run in the DuckDB command-line tool: they need it too.

:attr:`Snippet.requirements` says those needs in the words of :mod:`tests.support.needs`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

RUNNABLE = {"python": "python", "py": "python", "sh": "sh", "bash": "sh", "sql": "sql"}
_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)\s*(?P<info>[^\s`]*)[^`]*$")
_DIRECTIVE = re.compile(r"^\s*<!--\s*snippet:\s*(?P<kind>skip|needs)\b\s*(?P<arg>.*?)\s*-->\s*$")
#: A shell command running the DuckDB command-line tool: at a line's start, or after a pipe
#: or a command separator.
_DUCKDB_CALL = re.compile(r"(?:^|[|;&]\s*)duckdb(?:\s|$)", re.MULTILINE)
#: A word of ``snippet: needs`` -> the need of :mod:`tests.support.needs` it names; ``java``
#: goes with ``pyspark`` (the Spark face checks for a Java runtime).
NEED_WORDS: dict[str, str | None] = {"pandas": "pandas", "scipy": "scipy", "ibis": "ibis",
                                     "pyspark": "pyspark", "java": None}


@dataclass
class Snippet:
    path: Path
    line: int  # 1-based line of the opening fence
    language: str  # python, sh or sql
    code: str
    expected: str | None = None  # the ``output`` block that follows, if any
    skip: str | None = None
    needs: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.path.name}:{self.line}"

    @property
    def uses_duckdb_cli(self) -> bool:
        """Whether it runs in the DuckDB command-line tool (SQL, or a shell call of it)."""
        return self.language == "sql" or (
            self.language == "sh" and _DUCKDB_CALL.search(self.code) is not None)

    @property
    def requirements(self) -> list[str]:
        """What it needs, as names of :data:`tests.support.needs.NEEDS`."""
        found = [NEED_WORDS[word] for word in self.needs]
        return [n for n in found if n] + (["duckdb-cli"] if self.uses_duckdb_cli else [])


@dataclass
class _Block:
    line: int
    info: str
    code: str
    end: int  # 0-based index of the closing fence line
    directive: tuple[str, str] | None


def _blocks(text: str) -> list[_Block]:
    lines = text.splitlines()
    blocks: list[_Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence = len(m["indent"]), m["fence"]
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not re.match(rf"^ *{re.escape(fence)}\s*$", lines[j]):
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        if j == len(lines):
            raise ValueError(f"line {i + 1}: unclosed code fence")
        d = _DIRECTIVE.match(lines[i - 1]) if i > 0 else None
        blocks.append(_Block(i + 1, m["info"].lower(), "\n".join(body) + "\n", j,
                             (d["kind"], d["arg"]) if d else None))
        i = j + 1
    return blocks


def extract(path: Path, text: str | None = None) -> list[Snippet]:
    """The runnable snippets of the Markdown file ``path``, with their expected output."""
    text = path.read_text(encoding="utf-8") if text is None else text
    lines = text.splitlines()
    blocks = _blocks(text)
    snippets: list[Snippet] = []
    for n, block in enumerate(blocks):
        if block.info == "output":
            prev = blocks[n - 1] if n else None
            between = lines[prev.end + 1:block.line - 1] if prev else ["?"]
            if prev is None or prev.info not in RUNNABLE or any(s.strip() for s in between):
                raise ValueError(f"{path.name}:{block.line}: an output block must follow a "
                                 "runnable block directly")
            snippets[-1].expected = block.code
            continue
        if block.info not in RUNNABLE:
            continue
        snippet = Snippet(path, block.line, RUNNABLE[block.info], block.code)
        if block.directive:
            kind, arg = block.directive
            if kind == "skip":
                if not arg:
                    raise ValueError(f"{snippet.id}: 'snippet: skip' needs a reason")
                snippet.skip = arg
            else:
                snippet.needs = arg.split()
                unknown = [w for w in snippet.needs if w not in NEED_WORDS]
                if unknown:
                    raise ValueError(f"{snippet.id}: 'snippet: needs' of an unknown kind "
                                     f"{unknown}; known: {', '.join(NEED_WORDS)}")
        snippets.append(snippet)
    return snippets


def normalise(output: str) -> str:
    """Output as compared: trailing spaces and leading/trailing blank lines dropped."""
    return "\n".join(line.rstrip() for line in output.strip("\n").splitlines())

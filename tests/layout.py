"""A maintainer's check of form, not behaviour (``python -m tests.layout``): modules of the
Spark and Ibis face packages of a readable size, and the README short enough for a first
visit. Not part of the test-suite: a file growing past a limit is a prompt to split it, not
a broken promise to users. Prints what is over a limit; exits 1 if anything is."""

from __future__ import annotations

import sys

from tests.support import REPO

#: The most lines a module of a face package may have.
MOST_MODULE_LINES = 800
PACKAGES = ("rankframe/faces/spark", "rankframe/faces/ibis")
#: The most lines of the README.
MOST_README_LINES = 200


def _lines(path: str) -> int:
    return len((REPO / path).read_text(encoding="utf-8").splitlines())


def over_limits() -> list[str]:
    """What is longer than its limit, one line each."""
    found = [f"{path.relative_to(REPO)}: {n} lines (limit {MOST_MODULE_LINES})"
             for package in PACKAGES for path in sorted((REPO / package).glob("*.py"))
             if (n := _lines(str(path.relative_to(REPO)))) > MOST_MODULE_LINES]
    if (n := _lines("README.md")) > MOST_README_LINES:
        found.append(f"README.md: {n} lines (limit {MOST_README_LINES})")
    return found


def main() -> int:
    found = over_limits()
    print("\n".join(found) or "every module and the README within their limits")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

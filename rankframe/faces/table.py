"""The metric x face table of the documentation site (``docs/faces.md``), generated from the
registry and from what each registered face says it lacks (:func:`rankframe.faces.gaps`:
``Face.unsupported``, ``Face.judge_ties``), when the site is built (``docsgen.lists``).

``python -m rankframe.faces.table`` prints the table. No optional extra is needed: a face
that needs one says what it lacks in a module that imports without it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rankframe.faces import REGISTERED, gaps
from rankframe.registry import METRICS

__all__ = ["NO_TIE_GROUPS", "support_table"]

#: The reason shown for a face whose ``judge`` has no ``ties="average"``.
NO_TIE_GROUPS = ("its judge has no ties='average'; add the tie groups to its judged table "
                 "with rankframe.table.ties.annotate")


def support_table(names: Sequence[str] = tuple(REGISTERED)) -> str:
    """A Markdown table: one row per registered metric (registry order) and one for
    ``judge(ties="average")``, one column per face; ✓ where the face has it, else a
    numbered note whose text is the face's reason, listed under the table."""
    declared = {name: gaps(name) for name in names}
    notes: dict[str, list[str]] = {}  # reason -> the faces giving it

    def cell(face_name: str, reason: str | None) -> str:
        if reason is None:
            return "✓"
        faces_with_it = notes.setdefault(reason, [])
        if face_name not in faces_with_it:
            faces_with_it.append(face_name)
        return f"— ({list(notes).index(reason) + 1})"

    lines = ["| metric | " + " | ".join(names) + " |",
             "|---|" + "---|" * len(names)]
    for metric in METRICS:
        cells = [cell(name, declared[name].metrics.get(metric)) for name in names]
        lines.append(f"| `{metric}` | " + " | ".join(cells) + " |")
    cells = [cell(name, None if "average" in declared[name].judge_ties else NO_TIE_GROUPS)
             for name in names]
    lines.append('| `judge(ties="average")` | ' + " | ".join(cells) + " |")
    lines.append("")
    lines += [f"{i}. {', '.join(faces_with_it)}: {reason}."
              for i, (reason, faces_with_it) in enumerate(notes.items(), start=1)]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rankframe.faces.table",
                                     description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    print(support_table())
    return 0


if __name__ == "__main__":
    sys.exit(main())

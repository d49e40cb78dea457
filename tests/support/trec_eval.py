"""The trec_eval 10 binary, the external oracle of the command line, built once per machine.

Its source is NIST's trec_eval 10 beside the project (``shared/reference/trec_eval`` in a
folder above the repository, as every developer and CI have it) or the folder that
``$RANKFRAME_TREC_EVAL_SRC`` names; ``$RANKFRAME_TREC_EVAL`` may name a binary built already.
The build goes to a cache folder keyed by a hash of the source (``$RANKFRAME_TEST_CACHE``,
else ``rankframe-tests`` in the temporary folder), under a file lock, so parallel test
workers and later sessions build it once.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCE_ENV = "RANKFRAME_TREC_EVAL_SRC"
BINARY_ENV = "RANKFRAME_TREC_EVAL"
CACHE_ENV = "RANKFRAME_TEST_CACHE"


class Unavailable(Exception):
    """Why the binary cannot be had here."""


def source() -> Path:
    """trec_eval's source folder: ``$RANKFRAME_TREC_EVAL_SRC``, else the first
    ``shared/reference/trec_eval`` above the repository."""
    given = os.environ.get(SOURCE_ENV)
    if given:
        folder = Path(given)
        if not (folder / "Makefile").is_file():
            raise Unavailable(f"${SOURCE_ENV} names {folder}, which holds no trec_eval Makefile")
        return folder
    for parent in REPO.parents:
        folder = parent / "shared" / "reference" / "trec_eval"
        if (folder / "Makefile").is_file():
            return folder
    raise Unavailable("trec_eval's source is absent: no shared/reference/trec_eval above the "
                      f"repository, and ${SOURCE_ENV} is not set")


def test_files() -> Path:
    """trec_eval's own test folder (qrels, results and expected outputs)."""
    return source() / "test"


def _fingerprint(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted([*folder.glob("*.c"), *folder.glob("*.h"), folder / "Makefile"]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def cache_folder() -> Path:
    root = os.environ.get(CACHE_ENV)
    return Path(root) if root else Path(tempfile.gettempdir()) / "rankframe-tests"


def _register_ndcg_p(tree: Path) -> None:
    """trec_eval 10 has ``m_ndcg_p.c`` but registers no ``ndcg_p``: register it (one entry
    in ``measures.c``'s table, the file in the Makefile's sources)."""
    measures = tree / "measures.c"
    text = measures.read_text()
    for anchor, line in (("extern TREC_MEAS te_meas_ndcg_rel;\n",
                          "extern TREC_MEAS te_meas_ndcg_p;\n"),
                         ("    &te_meas_ndcg_rel,\n", "    &te_meas_ndcg_p,\n")):
        if anchor not in text:
            raise Unavailable(f"cannot register ndcg_p: no {anchor.strip()!r} in measures.c")
        text = text.replace(anchor, anchor + line, 1)
    measures.write_text(text)
    makefile = tree / "Makefile"
    makefile.write_text(makefile.read_text().replace("m_ndcg_rel.c", "m_ndcg_rel.c m_ndcg_p.c", 1))


#: Builds of trec_eval 10 with a change, by name: ``ndcg_p`` registers that measure.
VARIANTS = {"": None, "ndcg_p": _register_ndcg_p}


def binary(variant: str = "") -> Path:
    """The trec_eval 10 binary: ``$RANKFRAME_TREC_EVAL``, or built from :func:`source` into
    the cache (once; later calls find it); a :data:`VARIANTS` build if ``variant`` is given.
    Raises :class:`Unavailable` with the reason."""
    given = os.environ.get(BINARY_ENV)
    if given and not variant:
        if not os.access(given, os.X_OK):
            raise Unavailable(f"${BINARY_ENV} names {given}, which is not an executable")
        return Path(given)
    src = source()
    name = f"trec_eval-{_fingerprint(src)}" + (f"-{variant}" if variant else "")
    target = cache_folder() / name / "trec_eval"
    if os.access(target, os.X_OK):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker may be building it
        if not os.access(target, os.X_OK):
            _build(src, target, variant)
    return target


def _build(src: Path, target: Path, variant: str) -> None:
    if shutil.which("make") is None or not (shutil.which("cc") or shutil.which("gcc")):
        raise Unavailable("no make and C compiler to build trec_eval 10 from " + str(src))
    with tempfile.TemporaryDirectory(dir=target.parent) as work:
        tree = Path(work) / "src"
        shutil.copytree(src, tree, ignore=shutil.ignore_patterns(".git*", "test"))
        for path in [tree, *tree.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)  # the source may be read-only
        change = VARIANTS[variant]
        if change is not None:
            change(tree)
        done = subprocess.run(["make", "-s"], cwd=tree, capture_output=True, text=True)
        built = tree / "trec_eval"
        if done.returncode != 0 or not built.is_file():
            raise Unavailable(f"building trec_eval 10 from {src} failed:\n{done.stderr[-2000:]}")
        partial = target.with_suffix(".partial")
        shutil.copy2(built, partial)
        partial.replace(target)


def required(variant: str = "") -> Path:
    """:func:`binary` for a test: skipped with the reason where it cannot be had, a failure
    under ``CI`` (where the trec_eval tests must run)."""
    import pytest

    try:
        return binary(variant)
    except Unavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"trec_eval 10 is needed in CI: {exc}")
        pytest.skip(str(exc))


def run(args: list[str | Path], variant: str = "", check: bool = True
        ) -> subprocess.CompletedProcess[str]:
    """trec_eval 10 (:func:`required`) run with ``args``; its output as text."""
    return subprocess.run([str(required(variant)), *map(str, args)], capture_output=True,
                          text=True, check=check)

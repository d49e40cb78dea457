"""The ``rankframe`` command line: builds the parser and dispatches to a subcommand.

Subcommands live in their own modules, each with ``add_parser(subparsers)`` and
``run(args)``: ``eval`` (:mod:`rankframe.cli.eval`, a trec_eval drop-in), ``compare``
(:mod:`rankframe.cli.compare`) and ``sql`` (:mod:`rankframe.cli.sql`). They import library
modules only, never each other; ``args.watched()``, called before a subcommand loads Polars
or DuckDB, is :func:`rankframe.cli.supervise.watched`.

Every failure ends in one ``rankframe: error:`` line and exit status 1: rankframe's errors,
I/O errors, running out of memory (a Python ``MemoryError``, a Polars panic, no thread to
start, and, in the ``rankframe`` program (:func:`command`), a native abort:
:mod:`rankframe.cli.supervise`).
Ctrl-C exits with 130 and SIGTERM with 143, at once, from the first moment (while the
subcommands are still being imported too): threads still evaluating are not waited for,
and an ``--output`` file is left as it was. This module imports only the standard library
at first; a subcommand's modules are imported when it runs.
"""

from __future__ import annotations

import os
import sys
import warnings

from rankframe import __version__
from rankframe.errors import InputWarning, RankframeError

# This module loads before Ctrl-C is handled: at the top it imports only what the
# interpreter has loaded already (no typing, contextlib or signal).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

__all__ = ["Terminated", "build_parser", "command", "main"]

#: jemalloc options for Polars (it appends these to its own when it is imported): the command
#: line is a batch job, and one arena for all threads keeps its peak memory lower at no cost
#: in time (``benchmarks/workloads.py``; see ``benchmarks/README.md``). A user's setting wins.
ALLOCATOR_OPTIONS = "narenas:1"


def build_parser() -> argparse.ArgumentParser:
    """The ``rankframe`` parser with every subcommand."""
    import argparse

    from rankframe.cli import compare as cli_compare
    from rankframe.cli import eval as cli_eval
    from rankframe.cli import sql as cli_sql

    parser = argparse.ArgumentParser(
        prog="rankframe",
        description="Ranking metrics where the data lives: Polars expressions, DuckDB macros, "
        "and a trec_eval-compatible command line.",
        epilog="rankframe COMMAND -h describes a command (rankframe eval -h lists the measures).",
    )
    parser.add_argument("--version", action="version", version=f"rankframe {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    cli_eval.add_parser(subparsers)
    cli_compare.add_parser(subparsers)
    cli_sql.add_parser(subparsers)
    return parser


class Terminated(BaseException):
    """SIGTERM, raised in the main thread as Ctrl-C raises KeyboardInterrupt, so that what a
    command holds (a temporary ``--output`` file) is cleaned up before it exits."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"signal {signum}")
        self.signum = signum


def command() -> int:
    """The ``rankframe`` program (``python -m rankframe``, the installed script): :func:`main`,
    its heavy work in a watched child process where the platform forks
    (:mod:`rankframe.cli.supervise`), so that a native abort is reported in one line;
    returns the exit status."""
    try:
        from rankframe.cli import supervise

        supervise.enable()
    except KeyboardInterrupt:
        return 130
    return main()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rankframe`` command line in this process; returns the exit status."""
    try:
        return _run(argv)
    except KeyboardInterrupt:  # Ctrl-C between the steps of _run (while loading, ...)
        return _interrupted(130)


def _run(argv: Sequence[str] | None) -> int:
    if "polars" not in sys.modules:  # jemalloc reads its options once, when Polars loads
        os.environ.setdefault("_RJEM_MALLOC_CONF", ALLOCATOR_OPTIONS)
    try:
        with _TerminateRaises():
            parser = build_parser()  # imports the subcommands: Ctrl-C may come meanwhile
            args = parser.parse_args(argv)
    except Terminated as exc:
        return _interrupted(128 + exc.signum)
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return 2
    from rankframe.cli.supervise import watched

    args.watched = watched  # a subcommand calls it before it loads Polars or DuckDB
    try:
        with warnings.catch_warnings(), _TerminateRaises():
            warnings.simplefilter("always", InputWarning)
            warnings.showwarning = _show_warning
            status: int = args.handler(args)
    except BrokenPipeError:
        # The reader left (``rankframe eval ... | head``): stop quietly, as cat does; the
        # interpreter's final flush of stdout must not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (RankframeError, OSError) as exc:
        # Library messages may name rankframe already; the CLI's prefix says it once.
        return _error(str(exc).removeprefix("rankframe: "))
    except MemoryError:
        hint = {"eval": " (--threads 1 evaluates one run at a time)",
                "compare": " (fewer --resamples need less)"}.get(args.command, "")
        return _error(f"out of memory: this needs more memory than the machine gives{hint}")
    except KeyboardInterrupt:
        return _interrupted(130)
    except Terminated as exc:
        return _interrupted(128 + exc.signum)
    except RuntimeError as exc:
        if "can't start new thread" not in str(exc):
            raise
        return _error(f"cannot start a thread ({exc}): out of memory or of threads")
    except BaseException as exc:
        if type(exc).__name__ != "PanicException":  # Polars (pyo3) ran out of something
            raise
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return _error(f"Polars stopped: {first}")
    return status


def _error(message: str) -> int:
    _line(f"rankframe: error: {message}")
    return 1


def _line(text: str) -> None:
    """``text`` and its line end on stderr in one write (no other thread's output between
    them)."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


class _TerminateRaises:
    """SIGTERM raises :class:`Terminated` in the main thread while a command runs, as
    SIGINT raises KeyboardInterrupt (unless the signal is ignored, or this is not the main
    thread); after the first of them, both are ignored, so that a second (the terminal's
    Ctrl-C reaching a watched child and its parent, which forwards it) cannot break off the
    clean-up of the first. (A class, not contextlib's decorator: this module loads before
    Ctrl-C is handled, so it imports only what the interpreter has loaded already.)"""

    def __enter__(self) -> None:
        import signal
        import threading

        self._previous: dict[int, object] = {}
        if threading.current_thread() is not threading.main_thread():
            return
        self._previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
        for signum, handler in self._previous.items():
            if handler != signal.SIG_IGN:
                signal.signal(signum, self._stop)

    def __exit__(self, *exc: object) -> None:
        import signal

        for signum, handler in self._previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]

    def _stop(self, signum: int, frame: object) -> None:
        import signal

        for other, handler in self._previous.items():
            if handler != signal.SIG_IGN:
                signal.signal(other, signal.SIG_IGN)
        if signum == signal.SIGTERM:
            raise Terminated(signum)
        raise KeyboardInterrupt


def _interrupted(status: int) -> int:
    """The exit status after Ctrl-C or SIGTERM, given at once: threads still evaluating
    (a DuckDB query runs on until it ends) would hold the process at exit, so when any is
    left the process ends here, its output flushed."""
    import threading

    busy = [t for t in threading.enumerate()
            if t is not threading.main_thread() and t.is_alive() and not t.daemon]
    if busy:
        import contextlib

        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(status)
    return status


def _show_warning(message: Warning | str, category: type[Warning], *args: object,
                  **kwargs: object) -> None:
    """A warning as one line on stderr, as errors are printed."""
    _line(f"rankframe: warning: {message}")

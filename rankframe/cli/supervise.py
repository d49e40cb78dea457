"""The ``rankframe`` program's heavy work in a forked child, so that a native abort ends in
one line.

Polars allocates through Rust, which aborts the process when an allocation fails (under an
address-space limit, ``ulimit -v`` or ``prlimit --as``, or when the machine runs out of
memory): SIGABRT, ``memory allocation of N bytes failed`` and a backtrace on stderr, no
Python exception, nothing the process itself can report; jemalloc and Rust's panics add
lines of its own. So the ``rankframe`` program (:func:`enable`) forks where a command is
about to load Polars or DuckDB (:func:`watched`): the child goes on with the command; the
parent, which holds no dataframe library and no thread, forwards SIGINT, SIGTERM and
SIGHUP to it and exits with its status. The child's Python writes its messages to stderr as
before (in order with its output); what native libraries write to the stderr descriptor
goes to the parent instead, which:

- copies it to stderr as it comes, but for the reports of running out (a failed
  allocation and all after it, jemalloc's warnings, a Rust panic's report and all after
  it), which it holds: after a child that succeeds they are printed; a child that fails
  has said why in its own line (a Polars panic is a Python exception), and they are
  dropped;
- makes a child ended by a signal one ``rankframe: error:`` line: out of memory for the
  abort after a failed allocation (exit status 1), the kill the kernel sends when memory
  runs out (137), any other crash by its signal's name (128 + the signal); SIGINT, SIGTERM,
  SIGHUP and SIGPIPE end it without a word, as they would have ended this process.

Small inputs on the pure-Python path never fork. Where the platform cannot fork, threads
already run, or the command line is called as a function (``main([...])``), nothing forks.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from typing import Final

__all__ = ["FORWARDED", "enable", "watched"]

#: Signals the parent passes on to the child (as if sent to it), where the platform has them.
FORWARDED: Final = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                         if hasattr(signal, name))
#: Signals that end the child without a message: the user or the reader stopped it.
_QUIET: Final = frozenset({*FORWARDED, *([signal.SIGPIPE] if hasattr(signal, "SIGPIPE")
                                          else [])})
#: How Rust reports a failed allocation (``memory allocation of N bytes failed``; its
#: backtrace follows).
_ALLOCATION: Final = b"memory allocation of "
#: How jemalloc's warnings start.
_JEMALLOC: Final = b"<jemalloc>:"
#: A Rust panic's report: ``thread 'name' (id) panicked at file:line:``, then its message
#: and notes (an empty line before it).
_PANIC: Final = (b"thread '", b" panicked at ")


#: Whether :func:`watched` forks (the ``rankframe`` program, not ``main([...])`` called
#: in a process of the caller's).
_enabled = False


def enable() -> None:
    """Let :func:`watched` fork: this process is the ``rankframe`` program."""
    global _enabled
    _enabled = True


def watched() -> None:
    """From here on, run in a forked child that this process watches (see the module), when
    :func:`enable` was called, the platform forks and no thread runs; else nothing happens.
    Returns in the child; the parent exits with the child's status, never returning."""
    global _enabled
    threading = sys.modules.get("threading")
    if not (_enabled and hasattr(os, "fork")) or (
            threading is not None and threading.active_count() > 1):
        return
    _enabled = False  # once
    for stream in (sys.stdout, sys.stderr):  # nothing buffered twice
        stream.flush()
    signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)  # until the parent forwards them
    reader, writer = os.pipe()
    try:
        child = os.fork()
    except OSError:  # no process to start (out of memory, a process limit): run here
        os.close(reader)
        os.close(writer)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
        return
    if child == 0:
        os.close(reader)
        _native_stderr_to(writer)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
        return
    os.close(writer)

    def forward(signum: int, frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):  # it has ended: its status follows
            os.kill(child, signum)

    for signum in FORWARDED:
        signal.signal(signum, forward)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
    relay = _Relay()
    while data := os.read(reader, 1 << 16):
        relay.feed(data)
    relay.feed(b"", end=True)
    _, status = os.waitpid(child, 0)
    # Nothing of the parent's is left to do (the child finished the command): it ends here.
    os._exit(_outcome(status, relay.held, relay.failed))


def _native_stderr_to(writer: int) -> None:
    """In the child: the stderr descriptor (2, where native libraries write) made
    ``writer``; Python's ``sys.stderr`` kept on the stderr it had."""
    python = os.dup(2)
    os.dup2(writer, 2)
    os.close(writer)
    old = sys.stderr
    sys.stderr = os.fdopen(python, "w", encoding=getattr(old, "encoding", None) or "utf-8",
                           errors=getattr(old, "errors", None) or "backslashreplace",
                           buffering=1)


class _Relay:
    """What native libraries wrote to the child's stderr, copied to ours line by line but
    the reports of running out: from a failed allocation's line on (its backtrace), from a
    Rust panic's report on (with the empty line before it), and jemalloc's lines, which are
    held (:attr:`held`). :attr:`failed` is the size of the allocation that failed (None:
    none did; 0: its size was not said)."""

    def __init__(self) -> None:
        self.held: list[bytes] = []
        self.failed: int | None = None
        self._holding = False  # from a failed allocation or a panic on, everything is held
        self._empty: list[bytes] = []  # empty lines, perhaps a panic report's first
        self._pending = b""

    def feed(self, data: bytes, *, end: bool = False) -> None:
        """Take ``data``, the next bytes the child wrote (``end``: the last)."""
        self._pending += data
        while (stop := self._pending.find(b"\n") + 1) > 0:
            line, self._pending = self._pending[:stop], self._pending[stop:]
            self._take(line)
        if end:
            if self._pending:
                self._take(self._pending)
            _write(b"".join(self._empty))

    def _take(self, line: bytes) -> None:
        if line.startswith(_ALLOCATION) and self.failed is None:
            size = line[len(_ALLOCATION):].split(b" ", 1)[0]
            self.failed = int(size) if size.isdigit() else 0
            self._holding = True
        elif line.startswith(_PANIC[0]) and _PANIC[1] in line:
            self._holding = True
        if not line.strip() and not self._holding:
            self._empty.append(line)  # written with the next line, or held with it
            return
        lines, self._empty = [*self._empty, line], []
        if self._holding or line.startswith(_JEMALLOC):
            self.held.extend(lines)
        else:
            _write(b"".join(lines))


def _outcome(status: int, held: list[bytes], failed: int | None) -> int:
    """The exit status for the child's wait ``status``, after its last words (see the
    module)."""
    if os.WIFEXITED(status):
        code = os.WEXITSTATUS(status)
        if code == 0:
            _write(b"".join(held))
        return code
    signum = os.WTERMSIG(status)
    if signum in _QUIET:
        return 128 + signum
    if signum == signal.SIGABRT and failed is not None:
        size = f" of {failed} bytes" if failed else ""
        return _error(f"out of memory: an allocation{size} failed (a memory limit, such as "
                      "ulimit -v, or the machine's memory is exhausted)", 1)
    if signum == signal.SIGKILL:
        return _error("killed (SIGKILL), as the kernel kills a process when memory runs "
                      "out", 128 + signum)
    _write(b"".join(held))
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    return _error(f"stopped by {name} (a crash in a native library)", 128 + signum)


def _error(message: str, status: int) -> int:
    _write(f"rankframe: error: {message}\n".encode())
    return status


def _write(data: bytes) -> None:
    """``data`` written to stderr whole, unless stderr is gone."""
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(2, view):]
    except OSError:
        pass

"""The ``rankframe`` program's work in a forked child, so that a native abort ends in one line.

Polars allocates through Rust, which aborts the process when an allocation fails (under an
address-space limit, ``ulimit -v`` or ``prlimit --as``, or when the machine runs out of
memory): SIGABRT, ``memory allocation of N bytes failed`` and a backtrace on stderr, no
Python exception, nothing the process itself can report; jemalloc adds lines of its own
(``<jemalloc>: background thread creation failed``). So :func:`supervised` forks before
anything is imported: the child runs the command; the parent, which holds only the standard
library, relays the child's stderr, forwards SIGINT, SIGTERM and SIGHUP to it, and exits
with its status. On the way:

- the native libraries' lines are held back: after a child that succeeds they are
  printed; a child that fails has said why in its own line, and they are dropped;
- a child ended by a signal is one ``rankframe: error:`` line: out of memory for the
  abort after a failed allocation (exit status 1), the kill the kernel sends when memory
  runs out (137), any other crash by its signal's name (128 + the signal); SIGINT, SIGTERM,
  SIGHUP and SIGPIPE end it without a word, as they would have ended this process.

Where the platform cannot fork, or threads already run, the command runs in this process.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable
from typing import Final

__all__ = ["FORWARDED", "supervised"]

#: Signals the parent passes on to the child (as if sent to it).
FORWARDED: Final = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: Signals that end the child without a message: the user or the reader stopped it.
_QUIET: Final = frozenset({*FORWARDED, signal.SIGPIPE})
#: How Rust reports a failed allocation (``memory allocation of N bytes failed``; its
#: backtrace follows).
_ALLOCATION: Final = b"memory allocation of "
#: How native libraries' lines start: Rust's allocation failure and jemalloc's warnings
#: (which another thread may write into the middle of a line of ours), and a Rust panic's
#: report (``thread 'name' panicked at file:line:``, its message and notes follow).
_NATIVE: Final = (_ALLOCATION, b"<jemalloc>:")
_PANIC: Final = (b"thread '", b" panicked at ")
#: How the command's own lines start (its one-line errors and warnings).
_OURS: Final = b"rankframe: "


def supervised(work: Callable[[], int]) -> int:
    """``work()``'s exit status, ``work`` run in a forked child (see the module); in the
    child, ``work()``'s own status is returned, for the caller to exit with."""
    threading = sys.modules.get("threading")
    if not hasattr(os, "fork") or (threading is not None and threading.active_count() > 1):
        return work()
    signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)  # until the parent forwards them
    reader, writer = os.pipe()
    try:
        child = os.fork()
    except OSError:  # no process to start (out of memory, a process limit): run here
        os.close(reader)
        os.close(writer)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
        return work()
    if child == 0:
        os.close(reader)
        os.dup2(writer, 2)
        os.close(writer)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
        return work()
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
    os.close(reader)
    _, status = os.waitpid(child, 0)
    return _outcome(status, relay.held, relay.failed)


class _Relay:
    """The child's stderr copied to ours line by line, but the native libraries' lines:
    a block of them runs from a line that starts one (:data:`_NATIVE`, :data:`_PANIC`, and
    an empty line just before) to the next line of the command's own (:data:`_OURS`), or to
    the end after a failed allocation (its backtrace). Those are held (:attr:`held`);
    :attr:`failed` is the size of the allocation that failed (None: none did, 0: unknown).
    A native line written into the middle of one of ours (from another thread) is taken
    out of it."""

    def __init__(self) -> None:
        self.held: list[bytes] = []
        self.failed: int | None = None
        self._native = False  # within a block of native lines
        self._empty: list[bytes] = []  # empty lines, perhaps a panic report's first
        self._pending = b""

    def feed(self, data: bytes, *, end: bool = False) -> None:
        """Take ``data``, the next bytes of the child's stderr (``end``: the last)."""
        self._pending += data
        while (stop := self._pending.find(b"\n") + 1) > 0:
            line, self._pending = self._pending[:stop], self._pending[stop:]
            start = min((i for i in map(line.find, _NATIVE) if i > 0), default=0)
            if start and self.failed is None:  # ours, cut by a native line: it goes on after
                line, self._pending = line[start:], line[:start] + self._pending
            self._take(line)
        if end:
            if self._pending:
                self._take(self._pending)
            self._take(b"", end=True)

    def _take(self, line: bytes, *, end: bool = False) -> None:
        if self.failed is None and line.startswith(_ALLOCATION):
            size = line[len(_ALLOCATION):].split(b" ", 1)[0]
            self.failed = int(size) if size.isdigit() else 0
        if line.startswith(_OURS) and self.failed is None:
            self._native = False
        elif line.startswith(_NATIVE) or (line.startswith(_PANIC[0]) and _PANIC[1] in line):
            self._native = True
        if not line.strip() and not end and not self._native and self.failed is None:
            self._empty.append(line)  # written with the next line, or held with it
            return
        lines, self._empty = [*self._empty, line], []
        if self._native or self.failed is not None:
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

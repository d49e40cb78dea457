"""Where ``rankframe eval`` writes, and the tidy table it writes.

- :class:`Output`: standard output, or an ``--output`` file written whole or not at all. The
  file is written to a temporary file beside it (its name cut to fit the folder's longest
  name) and renamed over it only when everything succeeded: a failing run, Ctrl-C, SIGTERM
  or any error leaves the previous file as it was and no temporary file behind, and two
  commands writing one file at once leave one of their files, whole (the last rename
  wins). A target that is not a regular file (``/dev/null``, a FIFO) is written in place.
  A path naming one of this process's open descriptors (``/dev/stdout``, ``/dev/fd/N``,
  ``/proc/self/fd/N``) is written through that descriptor, never reopened, truncated or
  renamed over: the file the shell opened for it (``>> log.txt``) is not the file the user
  named. Text is UTF-8 whatever the locale: query ids are written as they were read, as
  trec_eval writes its bytes.
- :func:`check_not_input`: an ``--output`` naming one of the inputs, the run read from
  standard input included, is refused before anything is read.
- :func:`tidy_rows`, :func:`write_csv`, :func:`write_json`: the tidy table, columns ``run``,
  ``qid``, ``measure``, ``value``, one row per number printed; a summary row has no ``qid``
  (empty in csv, null in json and parquet), so a query named ``all`` stays apart from it.
  CSV fields are quoted where they need it (commas, quotes, line breaks); the data is kept
  exactly, and ids a spreadsheet would take for a formula get a warning.
"""

from __future__ import annotations

import codecs
import contextlib
import math
import os
import re
import stat
import sys
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any, NamedTuple

from rankframe import trec_eval
from rankframe.errors import InputWarning, RankframeError

__all__ = ["FORMULA_STARTS", "Output", "TidyRow", "check_not_input", "named_descriptor",
           "tidy_rows", "write_csv", "write_json"]

#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class TidyRow(NamedTuple):
    """One row of the tidy table: the run as named on the command line, the query (None for
    a summary over the queries), the printed measure name and its value."""

    run: str
    qid: str | None
    measure: str
    value: float


def tidy_rows(runs: Iterable[tuple[str, list[trec_eval.Line]]]) -> Iterator[TidyRow]:
    """The numbers of every run's lines as :class:`TidyRow` s. ``runid`` is left out (the run
    column names the run); text measures (``relstring``) too, with a warning."""
    warned = False
    for run, lines in runs:
        for line in lines:
            if isinstance(line.value, str):
                if line.name != "runid" and not warned:
                    warnings.warn(f"{line.name} is text and is left out of the tidy table "
                                  "(--format trec prints it)", InputWarning, stacklevel=2)
                    warned = True
                continue
            yield TidyRow(run, None if line.summary else line.query,
                          ("Z" if line.zscore else "") + line.name, float(line.value))


def _formula_like(text: str) -> bool:
    """Whether a spreadsheet would read ``text`` as a formula (not merely a signed number
    or a lone sign)."""
    if not text.startswith(FORMULA_STARTS) or text in ("-", "+"):
        return False
    try:
        float(text)
    except ValueError:
        return True
    return False


def write_csv(rows: Iterable[TidyRow], out: IO[str]) -> None:
    """The tidy rows as CSV (RFC 4180 quoting, ``\\n`` line ends; a summary's qid empty).

    The fields are the data exactly: a query id starting with ``=``, ``+``, ``-`` or ``@``
    is written as it is (a CSV reader gets it back), with a warning that a spreadsheet would
    run it as a formula.
    """
    import csv  # only this format needs it

    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(TidyRow._fields)
    risky: str | None = None
    for row in rows:
        if risky is None and row.qid is not None and _formula_like(row.qid):
            risky = row.qid
        writer.writerow((row.run, "" if row.qid is None else row.qid, row.measure,
                         repr(row.value)))
    if risky is not None:
        warnings.warn(f"a query id starts like a spreadsheet formula ({risky[:40]!r}): the "
                      "csv keeps it exactly; import it as text rather than open it in a "
                      "spreadsheet",
                      InputWarning, stacklevel=2)


def write_json(rows: Iterable[TidyRow], out: IO[str]) -> None:
    """The tidy rows as one JSON list of records, on one line (a summary's qid null; a
    value JSON cannot hold, NaN or infinite, null). Written record by record: a large write
    that a closed pipe cuts short may not report it."""
    import json  # only this format needs it

    out.write("[")
    for i, row in enumerate(rows):
        record = {"run": row.run, "qid": row.qid, "measure": row.measure,
                  "value": row.value if math.isfinite(row.value) else None}
        out.write(("," if i else "") + json.dumps(record, ensure_ascii=False,
                                                  separators=(",", ":")))
    out.write("]\n")


def check_not_input(output: str | None, inputs: Sequence[tuple[str, str]],
                    stdin_role: str | None = None) -> None:
    """Refuse an ``--output`` that is one of the ``inputs`` (role, path), however named (a
    relative path, a symbolic or hard link), or, given ``stdin_role``, the file standard
    input reads: writing it would destroy that input."""
    if output is None or not os.path.exists(output):
        return
    for role, path in inputs:
        try:
            same = os.path.samefile(output, path)
        except OSError:  # an input that does not exist: its reader names it
            continue
        if same:
            raise RankframeError(f"--output {output} is the {role} {path}: writing it would "
                                 "destroy that input; name another file")
    if stdin_role is not None:
        try:
            same = os.path.samestat(os.stat(output), os.fstat(0))
        except (OSError, ValueError):  # standard input closed: its reader says so
            return
        if same:
            raise RankframeError(f"--output {output} is the {stdin_role} read from standard "
                                 "input (-): writing it would destroy that input; name "
                                 "another file")


#: A path that is an open descriptor of a process: /proc/PID/fd/N (self, thread-self or a
#: process id) or /dev/fd/N.
_DESCRIPTOR_PATH = re.compile(r"/(?:proc/(self|thread-self|[0-9]+)/fd|dev/fd)/([0-9]+)")
#: The standard streams' names (links to /proc/self/fd/N on Linux, devices elsewhere).
_STANDARD_STREAMS = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
#: Symbolic links followed before giving up (Linux's own limit).
_MAX_LINKS = 40


def named_descriptor(path: str) -> tuple[int, bool] | None:
    """(N, whether it is this process's) when ``path``, followed through its symbolic links,
    reaches an open descriptor's name (``/dev/stdout``, ``/dev/fd/N``, ``/proc/self/fd/N``,
    ``/proc/PID/fd/N``) before any file; else None. Such a name is a link to whatever file
    the descriptor has open: a file the user did not name (``>> log.txt``)."""
    todo = os.fspath(path).split("/")
    if not os.path.isabs(path):
        todo = os.getcwd().split("/") + todo
    resolved, links = "/", 0
    while todo:
        name = todo.pop(0)
        if name in ("", "."):
            continue
        if name == "..":
            resolved = os.path.dirname(resolved)
            continue
        candidate = os.path.join(resolved, name)
        last = not todo  # a descriptor's name further up is a folder's: followed
        if last and candidate in _STANDARD_STREAMS:
            return _STANDARD_STREAMS[candidate], True
        found = _DESCRIPTOR_PATH.fullmatch(candidate) if last else None
        if found:
            owner = found.group(1)
            mine = owner in ("self", "thread-self") or int(owner) == os.getpid()
            return int(found.group(2)), mine
        try:
            target = os.readlink(candidate)
        except OSError:  # not a link, or nothing there
            resolved = candidate
            continue
        links += 1
        if links > _MAX_LINKS:
            return None
        todo = target.split("/") + todo
        if os.path.isabs(target):
            resolved = "/"
    return None


class _Utf8Writer:
    """Text written as UTF-8 bytes to a binary stream (standard output when its encoding
    is not UTF-8)."""

    def __init__(self, buffer: IO[bytes]) -> None:
        self._buffer = buffer

    def write(self, text: str) -> int:
        self._buffer.write(text.encode("utf-8"))
        return len(text)

    def flush(self) -> None:
        self._buffer.flush()


class Output:
    """Standard output (``path`` None) or the ``path`` file, as a context manager giving a
    text stream, or a binary one when ``binary``; see the module for the guarantees."""

    def __init__(self, path: str | None, *, binary: bool = False) -> None:
        self.path, self.binary = path, binary
        self._file: Any = None
        self._temporary: bytes | None = None
        self._target = ""

    def __enter__(self) -> Any:
        if self.path is None:
            return self._stdout()
        named = named_descriptor(self.path)
        if named is not None:
            return self._through(*named)
        target = os.path.realpath(self.path)  # through a symbolic link, as open() writes
        try:
            status: os.stat_result | None = os.stat(target)
        except FileNotFoundError:
            status = None
        except OSError as exc:
            raise RankframeError(f"--output {self.path}: {exc.strerror or exc}") from None
        if status is not None and not stat.S_ISREG(status.st_mode):
            self._file = self._open(self.path)  # a device or FIFO: nothing to replace
            return self._file
        if status is not None and not os.access(target, os.W_OK):  # kept write-protected
            raise RankframeError(f"--output {self.path}: permission denied (the file is "
                                 "read-only)")
        self._target = target
        self._temporary, descriptor = self._temporary_beside(target, status)
        self._file = os.fdopen(descriptor, "wb") if self.binary else open(
            descriptor, "w", encoding="utf-8")
        return self._file

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        file, temporary, self._file, self._temporary = self._file, self._temporary, None, None
        if file is None:  # standard output: flushed here, where an error is still reported
            if kind is None:
                sys.stdout.flush()
                buffer = getattr(sys.stdout, "buffer", None)
                if buffer is not None:
                    buffer.flush()
            return
        try:
            if kind is None:
                file.flush()
                if temporary is not None:
                    os.fsync(file.fileno())
                file.close()
                if temporary is not None:
                    os.replace(temporary, self._target)
                    temporary = None
        finally:
            with contextlib.suppress(OSError):
                file.close()
            if temporary is not None:
                _remove(temporary)

    def _stdout(self) -> Any:
        sys.stdout.flush()
        buffer = getattr(sys.stdout, "buffer", None)
        if self.binary:
            return buffer if buffer is not None else sys.stdout
        encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
        if buffer is None or codecs.lookup(encoding).name == "utf-8":
            return sys.stdout
        return _Utf8Writer(buffer)

    def _through(self, descriptor: int, mine: bool) -> Any:
        """A stream writing through this process's open ``descriptor`` (from where it
        stands: a file opened for appending is appended to)."""
        if not mine:
            raise RankframeError(f"--output {self.path} is another process's open file: "
                                 "name the file itself")
        if descriptor == 1:
            return self._stdout()
        try:
            copy = os.dup(descriptor)
        except OSError as exc:
            raise RankframeError(f"--output {self.path}: descriptor {descriptor} is not open "
                                 f"({exc.strerror or exc})") from None
        self._file = (os.fdopen(copy, "wb") if self.binary
                      else os.fdopen(copy, "w", encoding="utf-8"))
        return self._file

    def _open(self, path: str) -> IO[Any]:
        try:
            return open(path, "wb") if self.binary else open(path, "w", encoding="utf-8")
        except OSError as exc:
            raise RankframeError(f"--output {path}: {exc.strerror or exc}") from None

    def _temporary_beside(self, target: str, status: os.stat_result | None
                          ) -> tuple[bytes, int]:
        """A new file in ``target``'s folder, with the target's permissions (a new target:
        those ``open`` gives), and its descriptor."""
        folder, name = os.path.split(target)
        stem = _cut(os.fsencode(name), _longest_name(folder) - len(b"..12345678.tmp"))
        while True:
            temporary = os.path.join(os.fsencode(folder),
                                     b".%s.%s.tmp" % (stem, os.urandom(4).hex().encode()))
            try:
                descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            except FileExistsError:
                continue
            except OSError as exc:
                raise RankframeError(f"--output {self.path}: cannot write in "
                                     f"{folder or '.'} ({exc.strerror or exc})") from None
            break
        if status is not None and hasattr(os, "fchmod"):
            # a mode this user may not set: the new file keeps its own
            with contextlib.suppress(OSError):
                os.fchmod(descriptor, stat.S_IMODE(status.st_mode))
        return temporary, descriptor


def _longest_name(folder: str) -> int:
    """The longest file name ``folder`` takes, in bytes (255 where it is not known)."""
    try:
        return os.pathconf(folder or ".", "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        return 255


def _cut(name: bytes, size: int) -> bytes:
    """``name``'s first ``size`` bytes at most, not ending inside a UTF-8 character."""
    if len(name) <= size:
        return name
    end = max(size, 0)
    while end and name[end] & 0xC0 == 0x80:  # the byte after the cut continues a character
        end -= 1
    return name[:end]


def _remove(path: bytes) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)

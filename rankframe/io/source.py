"""The bytes of a TREC file, read once, bounded and as UTF-8 text
(docs/semantics.md#input-checks).

:func:`read_text_bytes` opens the path once and reads it block by block, so a pipe, a
named FIFO or a process substitution (``<(cat run)``) works as a file does. On the way:

- gzip is recognised by its magic bytes and inflated block by block (several members too);
- a UTF-32 or UTF-16 byte-order mark (PowerShell's ``>`` writes UTF-16) makes the text be
  decoded from that encoding; a UTF-8 mark is dropped;
- a NUL byte (a binary file, ``/dev/zero``) or a line longer than :data:`MAX_LINE_BYTES`
  stops the read at once with an :class:`~rankframe.errors.InputError` naming the file and
  line, so no input grows without limit in memory before it is refused;
- an I/O error names the file.
"""

from __future__ import annotations

import codecs
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, Final

from rankframe.errors import InputError

__all__ = ["MAX_LINE_BYTES", "fail", "read_text_bytes", "text_pieces"]

#: The longest line accepted, in bytes of UTF-8 (1 MiB): a TREC line is a few dozen bytes.
MAX_LINE_BYTES: Final = 1 << 20
_BLOCK: Final = 1 << 20
_GZIP_MAGIC: Final = b"\x1f\x8b"
# Longest marks first: UTF-32-LE's begins with UTF-16-LE's.
_MARKS: Final = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def fail(source: Path, line: int | None, problem: str) -> InputError:
    """The error for ``problem`` at ``line`` (1-based; None: the whole file) of ``source``."""
    where = f"{source}" if line is None else f"{source}, line {line}"
    return InputError(f"{where}: {problem}")


def read_text_bytes(source: Path, kind: str) -> bytes:
    """The text of ``source`` (a ``kind`` file: "run" or "qrels") as UTF-8 bytes without a
    byte-order mark, read once; raises FileNotFoundError for a missing path and
    :class:`~rankframe.errors.InputError` for everything else (see the module)."""
    with _opened(source, kind) as stream:
        return _bounded(source, _decoded(source, stream, kind), kind)


def text_pieces(source: Path, kind: str) -> Iterator[bytes]:
    """The text of ``source`` as :func:`read_text_bytes` reads it (gzip inflated, a
    byte-order mark decoded and dropped), in pieces of about a MiB, *without* the NUL and
    line-length checks: for a reader that checks its pieces itself and streams them."""
    with _opened(source, kind) as stream:
        yield from _decoded(source, stream, kind)


def _opened(source: Path, kind: str) -> BinaryIO:
    try:
        return open(source, "rb")  # the callers close it; a FIFO is opened once
    except FileNotFoundError:
        raise FileNotFoundError(f"rankframe: {kind} file not found: {source}") from None
    except IsADirectoryError:
        raise fail(source, None, f"is a directory, expected a {kind} file") from None
    except OSError as exc:
        raise fail(source, None, f"cannot open the {kind} file ({exc.strerror or exc})") from None


def _decoded(source: Path, stream: BinaryIO, kind: str) -> Iterator[bytes]:
    """The pieces of ``stream``, gunzipped and as UTF-8 without a byte-order mark."""
    head, rest = _first(_blocks(source, stream, kind))
    pieces: Iterable[bytes] = _chain(head, rest)
    if head.startswith(_GZIP_MAGIC):
        head, rest = _first(_inflate(source, pieces))
        pieces = _chain(head, rest)
    for mark, encoding in _MARKS:
        if head.startswith(mark):
            return iter(_decode(source, pieces, encoding))
    if head.startswith(codecs.BOM_UTF8):
        return _chain(head[len(codecs.BOM_UTF8):], rest)
    return iter(pieces)


def _blocks(source: Path, stream: BinaryIO, kind: str) -> Iterator[bytes]:
    while True:
        try:
            block = stream.read(_BLOCK)
        except OSError as exc:
            raise fail(source, None,
                       f"cannot read the {kind} file ({exc.strerror or exc})") from None
        if not block:
            return
        yield block


def _first(pieces: Iterator[bytes]) -> tuple[bytes, Iterator[bytes]]:
    """The leading pieces joined until they hold 4 bytes (enough for any mark), and the
    rest."""
    head = b""
    for piece in pieces:
        head += piece
        if len(head) >= 4:
            break
    return head, pieces


def _chain(head: bytes, rest: Iterable[bytes]) -> Iterator[bytes]:
    if head:
        yield head
    yield from rest


def _inflate(source: Path, pieces: Iterable[bytes]) -> Iterator[bytes]:
    """Gunzipped ``pieces`` (each member in turn), at most a block at a time."""
    inflater = zlib.decompressobj(wbits=31)
    try:
        for piece in pieces:
            data = piece
            while data:
                if inflater.eof:  # another member follows
                    inflater = zlib.decompressobj(wbits=31)
                out = inflater.decompress(data, _BLOCK)
                data = inflater.unused_data if inflater.eof else inflater.unconsumed_tail
                if out:
                    yield out
        out = inflater.flush()
        if out:
            yield out
        if not inflater.eof:
            raise EOFError("compressed file ended before the end-of-stream marker")
    except (zlib.error, EOFError) as exc:
        raise fail(source, None, f"broken gzip stream ({exc})") from None


def _decode(source: Path, pieces: Iterable[bytes], encoding: str) -> Iterator[bytes]:
    """``pieces`` of text in ``encoding`` (with its mark, which is dropped) as UTF-8."""
    decoder = codecs.getincrementaldecoder(encoding.lower().replace("-", "_"))()
    try:
        for piece in pieces:
            yield decoder.decode(piece).encode("utf-8")
        yield decoder.decode(b"", final=True).encode("utf-8")
    except UnicodeDecodeError as exc:
        raise fail(source, None, f"starts with a {encoding} byte-order mark but is not "
                                 f"valid {encoding} text ({exc.reason})") from None


def _bounded(source: Path, pieces: Iterable[bytes], kind: str) -> bytes:
    """``pieces`` joined, refused at the first NUL byte or over-long line."""
    kept: list[bytes] = []
    tail = 0  # bytes since the last newline, in the pieces before
    for piece in pieces:
        nul = piece.find(b"\x00")
        if nul >= 0:
            raise fail(source, _line(kept, piece, nul),
                       f"binary data (NUL byte); expected a text {kind} file")
        start = 0
        while True:
            newline = piece.rfind(b"\n", start, start + MAX_LINE_BYTES - tail + 1)
            if newline < 0:
                if tail + len(piece) - start > MAX_LINE_BYTES:
                    raise fail(source, _line(kept, piece, start),
                               f"line longer than {MAX_LINE_BYTES} bytes; is this a {kind} "
                               f"file?")
                tail += len(piece) - start
                break
            start, tail = newline + 1, 0
        kept.append(piece)
    return b"".join(kept)


def _line(kept: list[bytes], piece: bytes, offset: int) -> int:
    """The 1-based line of ``offset`` in ``piece``, which follows the ``kept`` pieces."""
    return sum(p.count(b"\n") for p in kept) + piece.count(b"\n", 0, offset) + 1

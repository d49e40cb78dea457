"""The bytes of a TREC file, read once, bounded and as UTF-8 text with LF line ends
(docs/semantics.md#input-checks).

:func:`read_text_bytes` opens the path once and reads it block by block, so a pipe, a
named FIFO or a process substitution (``<(cat run)``) works as a file does; :func:`text_blocks`
hands the same text on in blocks of whole lines, for readers that parse as they read. On
the way:

- gzip is recognised by its magic bytes and inflated block by block (several members too);
- a UTF-32 or UTF-16 byte-order mark (PowerShell's ``>`` writes UTF-16) makes the text be
  decoded from that encoding; a UTF-8 mark is dropped;
- a line ends at LF, CRLF or a lone CR (classic Mac OS): CRLF and CR become LF
  (:func:`rankframe.io.lines.line_feeds`), so every reader sees the same lines (DuckDB's
  CSV reader, under ``rf_read_run``, splits alike);
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
from rankframe.io.lines import line_feeds

__all__ = ["MAX_LINE_BYTES", "fail", "read_text_bytes", "text_blocks"]

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
    byte-order mark, lines ended by LF, read once; raises FileNotFoundError for a missing
    path and :class:`~rankframe.errors.InputError` for everything else (see the module)."""
    with _opened(source, kind) as stream:
        return b"".join(_checked(source, _decoded(source, stream, kind), kind))


def text_blocks(source: Path, kind: str, block_bytes: int) -> Iterator[tuple[int, bytes]]:
    """The text of ``source`` as :func:`read_text_bytes` reads it (checked), in blocks of
    whole lines of about ``block_bytes`` each, with the 1-based number of each block's
    first line: a reader parses one block while the file streams in."""
    with _opened(source, kind) as stream:
        line, data, held, size = 1, b"", [], 0
        for piece in _checked(source, _decoded(source, stream, kind), kind):
            held.append(piece)
            size += len(piece)
            if size < block_bytes:
                continue
            data = b"".join([data, *held])
            held.clear()
            while len(data) >= block_bytes:
                end = data.rfind(b"\n", 0, block_bytes) + 1 or data.find(b"\n") + 1
                if end == 0:  # no line end yet
                    break
                block, data = data[:end], data[end:]
                yield line, block
                line += block.count(b"\n")
            size = len(data)
        data = b"".join([data, *held])
        if data:
            yield line, data


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
            return line_feeds(_decode(source, pieces, encoding))
    if head.startswith(codecs.BOM_UTF8):
        return line_feeds(_chain(head[len(codecs.BOM_UTF8):], rest))
    return line_feeds(pieces)


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


def _checked(source: Path, pieces: Iterable[bytes], kind: str) -> Iterator[bytes]:
    """``pieces``, refused at the first NUL byte or over-long line."""
    line = 1  # of the first byte of the piece
    tail = 0  # bytes since the last newline, in the pieces before
    for piece in pieces:
        nul = piece.find(b"\x00")
        if nul >= 0:
            raise fail(source, line + piece.count(b"\n", 0, nul),
                       f"binary data (NUL byte); expected a text {kind} file")
        start = 0
        while True:
            newline = piece.rfind(b"\n", start, start + MAX_LINE_BYTES - tail + 1)
            if newline < 0:
                if tail + len(piece) - start > MAX_LINE_BYTES:
                    raise fail(source, line + piece.count(b"\n", 0, start),
                               f"line longer than {MAX_LINE_BYTES} bytes; is this a {kind} "
                               f"file?")
                tail += len(piece) - start
                break
            start, tail = newline + 1, 0
        line += piece.count(b"\n")
        yield piece

"""A run file streamed as blocks of whole queries, in bounded memory.

:class:`RunStream` reads a run file a few MiB at a time (plain or gzip, any line ends:
:func:`rankframe.io.source.text_blocks`), parses each piece as :func:`rankframe.io.read_run`
does (:func:`rankframe.io.trec.parse_block`: Polars' CSV reader for plainly laid out text,
Polars string kernels for tabs, runs of blanks, comments and blank lines) and yields frames
of columns ``qid``, ``docid``, ``score`` that each hold whole queries, in file order. Only
one piece of text, one parsed piece and the rows of the query still open are held at once,
so memory does not grow with the file (a single huge query is held whole).

Anything it cannot take as read_run would raises :class:`NotStreamable` (a problem on a
line, a comment line shaped like a run line, which read_run warns about, a file that is not
a regular file and cannot be read twice): the caller then reads the file with ``read_run``,
which names the file and line of a problem. Whether the queries are contiguous in the file
(each query's lines together) is known only at the end: :attr:`RunStream.heads` lists the
query of every contiguous run of lines, so a caller can check that none repeats.
"""

from __future__ import annotations

import os
import queue
import stat
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final, TypeVar

import polars as pl

from rankframe.errors import InputError
from rankframe.io.source import text_blocks
from rankframe.io.trec import Comments, parse_block
from rankframe.table.series import run_starts

__all__ = ["BLOCK_BYTES", "NotStreamable", "RunStream", "block_bytes_for", "prefetched"]

#: Text parsed at once, in bytes, by default: a 32nd of the file, at least 2 MiB and at
#: most 8 MiB. Smaller blocks hold less memory, larger ones pay less per-block overhead
#: (the trade-off is measured by ``benchmarks/workloads.py``: ``benchmarks/README.md``).
BLOCK_BYTES: Final = 2 << 20
MAX_BLOCK_BYTES: Final = 8 << 20


def block_bytes_for(size: int) -> int:
    """The default text per block for a file of ``size`` bytes (see :data:`BLOCK_BYTES`)."""
    return min(max(size // 32, BLOCK_BYTES), MAX_BLOCK_BYTES)


class NotStreamable(Exception):
    """The file cannot be streamed: read it whole with ``read_run`` (internal signal)."""


class RunStream:
    """The blocks of whole queries of the run file ``path`` (see the module).

    After iterating, :attr:`tag` is the first line's run tag and :attr:`heads` the query of
    each contiguous run of lines, in file order (a query twice: the file is not grouped).
    """

    def __init__(self, path: str | os.PathLike[str], block_bytes: int | None = None) -> None:
        self.path = Path(path)
        self.block_bytes = block_bytes  # None: block_bytes_for the file's size
        self.tag: str | None = None
        self.heads: list[pl.Series] = []

    def __iter__(self) -> Iterator[pl.DataFrame]:
        try:
            status = os.stat(self.path)
        except OSError:
            status = None
        if status is None or not stat.S_ISREG(status.st_mode):
            # a pipe is read once: it cannot fall back to read_run
            raise NotStreamable(f"{self.path} is not a regular file")
        block_bytes = self.block_bytes or block_bytes_for(status.st_size)
        # The rows of the last query seen, not yet closed: the piece where it starts, then
        # the pieces that hold nothing but it, without their qid column (a huge query's ids
        # are all the same: they are made once, when it closes).
        pending: list[pl.DataFrame] = []
        for frame in self._parsed(block_bytes):
            queries = frame.get_column("qid")
            starts = run_starts(queries)
            if pending and pending[0]["qid"][0] == queries[0]:  # the open query goes on
                if starts.len() == 1:  # one chunk (the reader's several), copied at once
                    if frame["docid"].n_unique() != frame.height:
                        # A repeated document: read_run names its line before this huge
                        # query is held and judged whole.
                        raise NotStreamable("a document twice in a query")
                    pending.append(frame.drop("qid").rechunk())
                    continue
                if len(pending) > 1:  # it spans pieces: a block of its own
                    end = int(starts[1])
                    pending.append(frame.slice(0, end).drop("qid"))
                    yield self._closed(pending)
                    frame, starts = frame.slice(end), starts.slice(1) - end
            elif len(pending) > 1:  # a query over several pieces ended with the last piece
                yield self._closed(pending)
            last = int(starts[-1])
            if last == 0:
                if pending:
                    yield self._closed(pending)
                pending = [frame]
                continue
            pending.append(frame.slice(0, last))
            yield self._closed(pending)
            pending = [frame.slice(last)]
        if pending:
            yield self._closed(pending)

    def _closed(self, frames: list[pl.DataFrame]) -> pl.DataFrame:
        """``frames`` (emptied) as one block; its query heads recorded. Either every frame
        has a qid column (the block is copied into one chunk), or only the first (the
        others: more rows of its one query), in which case the pieces become the chunks of
        the block's docid and score columns, not copied while the file is read."""
        pieces, first = frames[:], frames[0]
        frames.clear()
        if len(pieces) == 1:
            block = first
        elif "qid" in pieces[1].columns:
            block = pl.concat(pieces, rechunk=True)
        else:
            # The pieces' columns become the block's chunks (the block is not copied); the
            # ids are made once (an eager Series: every frame selected from the block shares
            # it).
            queries = pl.repeat(first["qid"][0], sum(p.height for p in pieces),
                                dtype=pl.String, eager=True).alias("qid")
            columns = [pl.concat([p.get_column(c) for p in pieces], rechunk=False)
                       for c in ("docid", "score")]
            block = pl.DataFrame([queries, *columns])
            del first, queries, columns
        queries = block.get_column("qid")
        self.heads.append(queries.gather(run_starts(queries)))
        return block

    def _parsed(self, block_bytes: int) -> Iterator[pl.DataFrame]:
        """The file's lines parsed, about ``block_bytes`` of text at a time (whole lines);
        a piece without data lines (blanks, comments) gives nothing."""
        comments = Comments(self.path, "run")
        try:
            for first_line, text in text_blocks(self.path, "run", block_bytes):
                table = parse_block(self.path, "run", first_line, text, comments).table
                if comments.first is not None:
                    raise NotStreamable("a comment shaped like a run line (read_run warns)")
                if table.height:
                    if self.tag is None:
                        self.tag = table["tag"][0]
                    yield table.select("qid", "docid", "score")
        except InputError as exc:  # read_run names the line
            raise NotStreamable(str(exc)) from None
        if self.tag is None:
            raise NotStreamable("no run lines")


_Item = TypeVar("_Item")
_END: Final = object()


def prefetched(items: Iterable[_Item]) -> Iterator[_Item]:
    """``items`` produced one ahead on a thread, so that making the next one (reading and
    parsing a block: Polars releases the GIL) overlaps the caller's work on this one; an
    exception of the producer is raised here, in order."""
    box: queue.Queue[object] = queue.Queue(maxsize=1)
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in items:
                if stop.is_set():
                    return
                box.put(item)
        except BaseException as exc:  # handed to the consumer
            box.put(exc)
        box.put(_END)

    worker = threading.Thread(target=produce, daemon=True)
    worker.start()
    try:
        while (item := box.get()) is not _END:
            if isinstance(item, BaseException):
                raise item
            yield item  # type: ignore[misc]
    finally:
        stop.set()
        while worker.is_alive():  # unblock a producer waiting to put
            try:
                box.get_nowait()
            except queue.Empty:
                worker.join(0.01)

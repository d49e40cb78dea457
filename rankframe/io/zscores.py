"""Reader of trec_eval's z-score file (``-Z``): ``qid measure mean stddev`` per line.

``rankframe eval -Z FILE`` prints, for each query and printed measure name, the z-score
``(value - mean) / stddev`` instead of the value (:func:`rankframe.trec_eval.zscore`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

import polars as pl

from rankframe.io.fields import NUMBER, field, first_problem, lines_of, parse, repeated
from rankframe.io.source import fail, read_text_bytes

__all__ = ["ZSCORES_LAYOUT", "read_zscores"]

ZSCORES_LAYOUT: Final = ("qid", "measure", "mean", "stddev")


def read_zscores(path: str | os.PathLike[str]) -> pl.DataFrame:
    """Read a z-score file: per query and printed measure name (``P_10``, ``map``), the
    mean and standard deviation of that measure over some reference runs (trec_eval ``-Z``;
    its ``test/make_zscore_file.py`` writes one).

    Parameters
    ----------
    path
        A plain or gzip-compressed text file, four whitespace-separated fields a line;
        blank lines are skipped. No comments: trec_eval reads none in this file.

    Returns
    -------
    pl.DataFrame
        Columns ``qid``, ``measure`` (String), ``mean`` and ``stddev`` (Float64), in file
        order.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    InputError
        Naming the file and line: a line without exactly 4 fields, a mean or standard
        deviation that is not a finite number, a ``(qid, measure)`` pair seen before.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rankframe.io import read_zscores
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "zscores"
    >>> _ = path.write_text("301 map 0.1212 0.1545\\n301 P_10 0.5 0\\n")
    >>> read_zscores(path).rows()
    [('301', 'map', 0.1212, 0.1545), ('301', 'P_10', 0.5, 0.0)]
    """
    source = Path(path)
    lines = lines_of(source, read_text_bytes(source, "z-score"), "z-score", ZSCORES_LAYOUT,
                     comments=None)

    def number(i: int) -> pl.Expr:
        value = parse(field(i), NUMBER, pl.Float64)
        return pl.when(value.is_finite()).then(value)

    table = lines.select("line", qid=field(0), measure=field(1), mean=number(2),
                         stddev=number(3), raw_mean=field(2), raw_stddev=field(3))
    first_problem(source, table, pl.when(pl.col("mean").is_null()).then(
        pl.format("mean '{}' is not a finite number", "raw_mean")).when(
        pl.col("stddev").is_null()).then(
        pl.format("standard deviation '{}' is not a finite number", "raw_stddev")))
    twice = repeated(table, ["qid", "measure"])
    if twice is not None:
        line, earlier = twice
        qid, measure = table.filter(pl.col("line") == line).row(0)[1:3]
        raise fail(source, line, f"measure {measure!r} of query {qid!r} is given twice "
                                 f"(first on line {earlier})")
    return table.select("qid", "measure", "mean", "stddev")

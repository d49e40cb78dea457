"""The queries trec_eval evaluates: run queries without qrels left out (and counted),
qrels queries without results dropped unless ``-c``, and the errors when none is left."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankframe.errors import RankframeError

if TYPE_CHECKING:
    import polars as pl


def _distinct(queries: pl.Series) -> pl.Series:
    """The distinct values of ``queries``: from the first row of each run of equal values
    when those are distinct already (a run file groups its queries), else by hashing."""
    from rankframe.table.series import run_starts

    heads = queries.gather(run_starts(queries))
    return heads if heads.n_unique() == heads.len() else queries.unique()


def unjudged_count(run: pl.DataFrame, qrels: pl.DataFrame) -> int:
    """How many queries of ``run`` have no qrels: trec_eval evaluates none of them."""

    queries = _distinct(run.get_column("qid"))
    unjudged: int = queries.filter(queries.is_in(qrels.get_column("qid").implode()).not_()).len()
    return unjudged


def unjudged_note(count: int, name: str = "") -> str:
    """The note saying that ``count`` run queries without qrels were not evaluated.

    Examples
    --------
    >>> unjudged_note(2, "run a.txt")
    'run a.txt: 2 run queries have no qrels and were not evaluated'
    """
    noun, verb = ("query has", "was") if count == 1 else ("queries have", "were")
    where = f"{name}: " if name else ""
    return f"{where}{count} run {noun} no qrels and {verb} not evaluated"


def no_queries_error(name: str = "") -> RankframeError:
    """trec_eval's complaint when no query has both results and qrels (``name``: the run)."""
    where = f"{name}: " if name else ""
    return RankframeError(f"{where}no queries with both results and relevance info")


def no_query_error(level: str, qid: str) -> RankframeError:
    """The error of ``-D level.qid`` when that query is not evaluated."""
    return RankframeError(f"-D {level}.{qid}: no query {qid!r} with both results and "
                          "relevance info")


def select_queries(table: pl.DataFrame, run: pl.DataFrame, *, complete: bool,
                   name: str = "") -> pl.DataFrame:
    """``table`` (judged or per-query, from ``run`` and its qrels) on the queries trec_eval
    evaluates.

    ``judge`` has already left out the run queries without qrels (see
    :func:`unjudged_count`); qrels queries without results are dropped unless ``complete``
    (``-c``), when they stay and score 0. No query left is an error (``name`` starts its
    message).
    """
    import polars as pl

    if not complete:
        table = table.filter(pl.col("qid").is_in(_distinct(run.get_column("qid")).implode()))
    if table.height == 0:
        raise no_queries_error(name)
    return table

"""Sums in an order within each query, for every query at once.

Some metrics add their terms one at a time in an order within the query, as trec_eval's
loops do (docs/semantics.md#exactness): DCG adds g / log2(r + 1) by rank, the ideal DCG
adds best_i / log2(i + 1) best gain first, AP adds j / r_j by rank. Inside a user's
``group_by().agg()``, sorting each query on its own costs every query a few microseconds
of Polars' per-group machinery, which a million small queries feel. So a builder gathers
the few columns it needs into one list per query (``implode``: where each query's rows
are) and hands the lists of *all* queries at once to a kernel here (``map_batches``, element
by element across queries). The kernel lays the entries out flat, sorts them in one
vectorised sort by (query, key), computes the terms, gathers them back into one list per
query (a group-by on the sorted query index) and adds each list first to last with Polars'
``list.sum`` (a left fold from 0.0, as trec_eval adds), all in one lazy plan collected
once, so that a kernel's fixed cost does not grow with its steps. No Python runs per query
or per row; the sort is what a hand-written query sorts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Literal, NamedTuple, TypeAlias

import polars as pl

from rankframe.faces.polars.expr import (
    LOG2_TABLE_BOUND,
    exact_log2,
    gain,
    log2_table_through,
    plus_zero,
    plus_zero_expr,
)

Gain: TypeAlias = Literal["linear", "exponential"]
GainPairs: TypeAlias = "Mapping[int, float] | Sequence[tuple[int, float]] | None"
#: What a gain kernel returns for each query.
GainSum = Literal["cg", "dcg", "idcg", "ndcg"]
F64 = pl.Float64

class RowValue(NamedTuple):
    """A measure's value per query from its rows laid out flat (a row form of
    ``rf.evaluate_expr``): ``per_query`` for queries 0 .. groups - 1, and ``finish``, the
    builder's last step, an aggregate of a group-by over the rows taking that value as an
    expression (None: the value is the measure's)."""

    per_query: pl.Series
    finish: Callable[[pl.Expr], pl.Expr] | None = None


#: A row form: (rows with columns ``q``, ``rel``, ``rank``; the number of queries; the
#: measure's checked parameter values) to its :class:`RowValue`.
RowForm: TypeAlias = Callable[[pl.DataFrame, int, Mapping[str, Any]], RowValue]

#: The kernels' plans run on the in-memory engine: their tables are small, already in memory.
MEMORY: Final = "in-memory"
_LOW = 2**32


def _best_first(pool: pl.DataFrame) -> pl.LazyFrame:
    """Columns ``q`` and ``g`` of ``pool``, sorted by ``q``, then by ``g`` descending. Gains
    that are whole numbers below 2^32 (integer grades, linear or exponential) sort as one
    64-bit key, q * 2^32 + (2^32 - 1 - g), decoded after the sort: a sort of one integer
    column, which costs a fraction of a sort of a frame by two columns."""
    gains = pool.get_column("g")
    top = gains.max()
    whole = (gains.floor() == gains) & gains.is_finite()  # Polars counts NaN == NaN
    if pool.height and isinstance(top, float) and top < _LOW and whole.all():
        key = pool.get_column("q").cast(pl.UInt64) * _LOW + (_LOW - 1 - gains.cast(pl.UInt64))
        return pl.LazyFrame({"key": key.sort()}).select(
            q=(pl.col("key") // _LOW).cast(pl.get_index_type()),
            g=(_LOW - 1 - pl.col("key") % _LOW).cast(F64))
    return pool.lazy().select("q", "g").sort(["q", "g"], descending=[False, True])


def _position() -> pl.Expr:
    """1, 2, ... for the rows of each query ``q``, in a frame sorted by ``q``."""
    row = pl.int_range(pl.len(), dtype=pl.Int64)
    first = pl.when(pl.col("q").ne_missing(pl.col("q").shift(1))).then(row).forward_fill()
    return row - first + 1


def _summed(rows: pl.LazyFrame, term: pl.Expr, name: str) -> pl.LazyFrame:
    """Per query ``q`` of ``rows`` (sorted by ``q``, then in the order of addition), its
    ``term`` values added first to last from 0.0 (``list.sum``, as trec_eval's loop adds)."""
    return (rows.select("q", t=term.cast(F64))
            .group_by("q", maintain_order=True).agg("t")
            .select("q", plus_zero_expr(pl.col("t").list.sum()).alias(name)))


#: The dense layout of :func:`_in_order_sums` may have this many slots per term, or this
#: many slots in all (32 MiB of doubles), whichever is more.
_DENSE_FACTOR = 16
_DENSE_SLOTS = 1 << 22


def _in_order_sums(terms: pl.DataFrame, groups: int) -> pl.Series:
    """Per query ``q`` = 0 .. ``groups`` - 1, its ``t`` values added in the order of ``i``
    (whole numbers >= 1, unique within a query), first to last from 0.0, as trec_eval's loop
    adds; 0.0 for a query without terms.

    Each term goes to slot ``i`` of its query's row in a dense matrix of queries x
    max(``i``) (0.0 elsewhere), and each row is added first to last (``arr.sum``, a left
    fold): no sort, no list per query. A slot left 0.0 adds nothing to a sum that starts
    from 0.0 (a running sum from 0.0 is never -0.0). When the matrix would be sparse (one
    query with many terms among many queries with few), the terms are sorted and added as
    lists per query instead."""
    if terms.height == 0:
        return pl.repeat(0.0, groups, eager=True, dtype=F64)
    width = terms.get_column("i").max()
    assert isinstance(width, int)
    if groups * width > max(_DENSE_FACTOR * terms.height, _DENSE_SLOTS):
        summed = _summed(terms.lazy().sort("q", "i"), pl.col("t"), "s")
        return _per_query(groups, [summed], pl.col("s").fill_null(0.0), "s")
    slot = terms.select(pl.col("q").cast(pl.Int64) * width + pl.col("i").cast(pl.Int64) - 1)
    dense = pl.zeros(groups * width, dtype=F64, eager=True).scatter(
        slot.to_series(), terms.get_column("t").cast(F64))
    return plus_zero(dense.reshape((groups, width)).arr.sum())


def _by_position(rows: pl.DataFrame, order: str, descending: bool = False) -> pl.DataFrame:
    """``rows`` (a column ``q``) with ``i``: each row's position, 1, 2 ..., within its query
    in the order of ``order`` (sorted by ``q``, then ``order``)."""
    ordered = rows.sort("q", order, descending=[False, descending])
    return ordered.with_columns(i=_position())


def _rank_order(rows: pl.DataFrame) -> pl.DataFrame:
    """``rows`` with ``i`` = the order of addition by rank: the rank itself when the ranks
    are integers >= 1 (unique within a valid query; an invalid query's value is masked by
    its guard), else the position in rank order."""
    rank = rows.get_column("rank")
    low = rank.min()
    if rank.dtype.is_integer() and isinstance(low, int) and low >= 1:
        return rows.with_columns(i=pl.col("rank"))
    return _by_position(rows, "rank")


def _log2_of_next(values: pl.Expr, low: object, top: object) -> pl.Expr:
    """log2(v + 1) by C's ``log2`` for ``values`` (ranks, positions): a gather from the
    shared table when they are integers in [``low``, ``top``] within it, else
    :func:`exact_log2` (a rank of an invalid group, which its guard makes NULL, included)."""
    if isinstance(low, int) and isinstance(top, int) and low >= 0 and top < LOG2_TABLE_BOUND:
        return pl.lit(log2_table_through(top + 1)).gather(values.cast(pl.Int64) + 1)
    return exact_log2(values.cast(F64) + 1.0)  # no integer dtype's largest value overflows


def _per_query(queries: int, sums: Sequence[pl.LazyFrame], value: pl.Expr, name: str
               ) -> pl.Series:
    """``value`` for queries 0, 1, ..., ``queries`` - 1, from the per-query ``sums`` (a
    query without terms has NULL there), the one collect of a kernel's plan."""
    out = pl.LazyFrame({"q": pl.int_range(queries, eager=True, dtype=pl.get_index_type())})
    for summed in sums:
        out = out.join(summed, on="q", how="left", maintain_order="left")
    return out.select(value.alias(name)).collect(engine=MEMORY).to_series()


def gain_sum_kernel(what: GainSum, k: int | None, ideal: Literal["all", "retrieved"],
                    kind: Gain, mapped: GainPairs) -> Callable[[pl.Series], pl.Series]:
    """The kernel of CG@k, DCG@k, the ideal DCG@k or nDCG@k, over a Series of structs (one
    per query) of two lists: ``rank`` and ``rel`` of the query's rows that may have a gain.

    CG@k adds the positive gains of the retrieved rows with r <= k, by rank; DCG@k adds
    g / log2(r + 1) over those rows with a gain other than 0, by rank; the ideal DCG@k adds
    best_i / log2(i + 1) over the k best positive gains of every row (``ideal="all"``) or
    of the retrieved ones, best first; nDCG is DCG / IDCG, 0 when the ideal is 0
    (docs/semantics.md#ndcg)."""

    def run(batch: pl.Series) -> pl.Series:
        lists = batch.struct.unnest()
        flat = lists.with_row_index("q").explode("rank", "rel").drop_nulls("rel")
        if lists.schema["rank"] == pl.List(pl.Null):  # an all-NULL rank: nothing retrieved
            flat = flat.with_columns(pl.col("rank").cast(pl.Int64))
        return gain_sums_of_rows(flat, len(batch), what, k, ideal, kind, mapped).alias(
            batch.name)

    return run


def gain_sums_of_rows(flat: pl.DataFrame, groups: int, what: GainSum, k: int | None,
                      ideal: Literal["all", "retrieved"], kind: Gain, mapped: GainPairs
                      ) -> pl.Series:
    """:func:`gain_sum_kernel`'s value for queries 0 .. ``groups`` - 1 from their rows laid
    out flat, in any order: columns ``q`` (the query), ``rank`` (integer or NULL) and ``rel``
    (Float64, no NULL) of the rows that may have a gain. The kernel's own body, which
    ``rf.evaluate_expr`` calls on rows it holds flat already."""
    entries = flat.with_columns(g=gain(pl.col("rel"), kind, mapped))
    g, rank = pl.col("g"), pl.col("rank")
    retrieved = rank.is_not_null() if k is None else rank.is_not_null() & (rank <= k)
    sums: dict[str, pl.Series] = {}
    if what == "cg":
        counted = _rank_order(entries.filter(retrieved & (g > 0)))
        sums["cg"] = _in_order_sums(counted.select("q", "i", t=g), groups)
    if what in ("dcg", "ndcg"):
        counted = _rank_order(entries.filter(retrieved & (g != 0)))
        ranks = counted.get_column("rank")
        low, top = (ranks.min(), ranks.max()) if ranks.dtype.is_integer() else (None, None)
        sums["dcg"] = _in_order_sums(
            counted.select("q", "i", t=g / _log2_of_next(rank, low, top)), groups)
    if what in ("idcg", "ndcg"):
        pool = entries.filter(g > 0)
        if ideal == "retrieved":
            pool = pool.filter(rank.is_not_null())
        best = _best_first(pool).with_columns(i=_position()).collect(engine=MEMORY)
        if k is not None:
            best = best.filter(pl.col("i") <= k)
        most = best.get_column("i").max() if best.height else 1
        sums["idcg"] = _in_order_sums(
            best.select("q", "i", t=g / _log2_of_next(pl.col("i"), 1, most)), groups)
    if what == "ndcg":
        dcg, idcg = sums["dcg"], sums["idcg"]
        return pl.select(pl.when(idcg > 0).then(dcg / idcg).otherwise(0.0)).to_series()
    return sums[what]


def precision_sums(batch: pl.Series) -> pl.Series:
    """AP's sum, per query, over a Series of lists of the ranks of its relevant retrieved
    rows: j / r_j for the j-th smallest rank r_j, added in rank order."""
    ranks = batch.to_frame("rank").with_row_index("q").explode("rank").drop_nulls("rank")
    return precision_sums_of_rows(ranks, len(batch)).alias(batch.name)


def precision_sums_of_rows(ranks: pl.DataFrame, groups: int) -> pl.Series:
    """:func:`precision_sums` for queries 0 .. ``groups`` - 1 from their relevant retrieved
    rows laid out flat, in any order: columns ``q`` and ``rank`` (no NULL)."""
    ordered = _by_position(ranks, "rank")
    terms = ordered.select("q", "i", t=pl.col("i").cast(F64) / pl.col("rank").cast(F64))
    return _in_order_sums(terms, groups)

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
``list.sum`` (a left fold from 0.0, as trec_eval adds). No Python runs per query or per
row; the sort is what a hand-written query sorts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Literal, TypeAlias

import polars as pl

from rankframe.faces.polars.expr import log2_of_whole, plus_zero

Gain: TypeAlias = Literal["linear", "exponential"]
GainPairs: TypeAlias = "Mapping[int, float] | Sequence[tuple[int, float]] | None"
#: What a gain kernel returns for each query.
GainSum = Literal["cg", "dcg", "idcg", "ndcg"]
F64 = pl.Float64


def _entries(lists: pl.DataFrame) -> pl.DataFrame:
    """The entries of equal-length list columns (one row per query) laid out flat, with
    ``q``, the index of their query."""
    return lists.with_row_index("q").explode(lists.columns)


def _starts(query: pl.Series, queries: int) -> pl.Series:
    """Where queries 0, 1, ..., ``queries`` start in ``query`` (sorted): query i's entries
    are [starts[i], starts[i + 1])."""
    bounds = pl.int_range(0, queries + 1, eager=True, dtype=pl.get_index_type())
    found = query.cast(pl.get_index_type()).search_sorted(bounds)
    assert isinstance(found, pl.Series)
    return found


def _sums(queries: int, query: pl.Series, terms: pl.Series) -> pl.Series:
    """For each of ``queries`` queries, its ``terms`` (flat, grouped by ``query``, which
    is sorted) added first to last from 0.0; 0.0 for a query without terms."""
    flat = pl.DataFrame({"q": query.cast(pl.get_index_type()).set_sorted(),
                         "t": terms.cast(F64)})
    grouped = flat.group_by("q", maintain_order=True).agg("t")
    sums = plus_zero(grouped["t"].list.sum())
    return pl.zeros(queries, F64, eager=True).scatter(grouped["q"], sums)


def _by_query(rows: pl.DataFrame, column: str, descending: bool = False) -> pl.DataFrame:
    """``rows`` sorted by query ``q``, then by ``column`` (no NULLs). When the column holds
    whole numbers in [0, 2^32) (ranks, integer grades), one sort on a single 64-bit key,
    q * 2^32 + value (or 2^32 - 1 - value, descending), several times cheaper than a sort
    on two columns; else the sort on both."""
    values = rows[column]
    if rows.height == 0:
        return rows
    low, high = values.min(), values.max()
    whole = values.dtype.is_integer() or not (values.is_nan() | (values.floor() != values)).any()
    if whole and isinstance(low, int | float) and isinstance(high, int | float) \
            and low >= 0 and high < 2**32:
        within = values.cast(pl.UInt64)
        if descending:
            within = (2**32 - 1) - within
        key = rows["q"].cast(pl.UInt64) * 2**32 + within
        return rows if key.is_sorted() else rows[key.arg_sort()]
    return rows.sort("q", column, descending=[False, descending])


def _positions(query: pl.Series, queries: int) -> pl.Series:
    """1, 2, ... for the entries of each query, in a flat layout sorted by ``query``."""
    starts = _starts(query, queries).cast(pl.Int64)
    return pl.int_range(1, len(query) + 1, eager=True) - starts.gather(query)


def gains_of(rel: pl.Series, kind: Gain, mapped: GainPairs) -> pl.Series:
    """The gain of each grade (:func:`rankframe.faces.polars.expr.gain`), of a flat Series."""
    from rankframe.faces.polars.expr import gain

    return pl.select(gain(pl.lit(rel), kind, mapped)).to_series()


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
        queries = len(batch)
        rows = _entries(batch.struct.unnest()).drop_nulls("rel")
        if rows.schema["rank"] == pl.Null:  # an all-NULL rank column: nothing retrieved
            rows = rows.with_columns(pl.col("rank").cast(pl.Int64))
        rows = rows.with_columns(g=gains_of(rows["rel"], kind, mapped))
        out: dict[str, pl.Series] = {}
        retrieved = pl.col("rank").is_not_null()
        if k is not None:
            retrieved = retrieved & (pl.col("rank") <= k)
        if what == "cg":
            counted = _by_query(rows.filter(retrieved & (pl.col("g") > 0)), "rank")
            out["cg"] = _sums(queries, counted["q"], counted["g"])
        if what in ("dcg", "ndcg"):
            counted = _by_query(rows.filter(retrieved & (pl.col("g") != 0)), "rank")
            discount = log2_of_whole(counted["rank"] + 1)
            out["dcg"] = _sums(queries, counted["q"], counted["g"] / discount)
        if what in ("idcg", "ndcg"):
            pool = rows.filter(pl.col("g") > 0)
            if ideal == "retrieved":
                pool = pool.filter(pl.col("rank").is_not_null())
            pool = _by_query(pool, "g", descending=True)
            position = _positions(pool["q"], queries)
            best = pool.with_columns(i=position)
            if k is not None:
                best = best.filter(pl.col("i") <= k)
            discount = log2_of_whole(best["i"] + 1)
            out["idcg"] = _sums(queries, best["q"], best["g"] / discount)
        if what == "ndcg":
            dcg, idcg = out["dcg"], out["idcg"]
            value = pl.select(pl.when(idcg > 0).then(dcg / idcg).otherwise(0.0)).to_series()
        else:
            value = out[what]
        return value.alias(batch.name)

    return run


def precision_sums(batch: pl.Series) -> pl.Series:
    """AP's sum, per query, over a Series of lists of the ranks of its relevant retrieved
    rows: j / r_j for the j-th smallest rank r_j, added in rank order."""
    queries = len(batch)
    ranks = _by_query(_entries(batch.to_frame("rank")).drop_nulls("rank"), "rank")
    j = _positions(ranks["q"], queries)
    return _sums(queries, ranks["q"], j.cast(F64) / ranks["rank"].cast(F64)).alias(batch.name)

"""Building blocks shared by the Polars faces of the metrics.

Every helper returns a ``pl.Expr`` that is evaluated per group inside
``group_by(...).agg(...)`` (or over the whole frame inside ``select``).
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Literal, TypeAlias

import polars as pl

from rankframe.errors import InputError
from rankframe.table.ranks import invalid_groups
from rankframe.validation import MAX_GRADE

IntoExpr: TypeAlias = "str | pl.Expr"
Gain: TypeAlias = Literal["linear", "exponential"]


def col(x: IntoExpr) -> pl.Expr:
    """A column name or an expression, as an expression."""
    return pl.col(x) if isinstance(x, str) else x


def label(name: str, k: float | None) -> str:
    """Default output column name: the canonical measure string of ``name@k`` (``name`` for
    the whole list), spelt by :func:`rankframe.measures.canonical` (``average_precision`` ->
    ``map``, ``reciprocal_rank@10`` -> ``mrr@10``); ``name@k`` itself when it is no measure."""
    from rankframe.errors import MeasureError
    from rankframe.measures import canonical  # here: rankframe.measures reads the registry

    text = name if k is None else f"{name}@{k}"
    try:
        return canonical(text)
    except MeasureError:
        return text


def retrieved(rank: pl.Expr, k: int | None = None) -> pl.Expr:
    """True for rows with a rank, and with rank <= k when a cutoff is given."""
    if k is None:
        return rank.is_not_null()
    return (rank <= k).fill_null(False)


def relevant(rel: pl.Expr, threshold: float) -> pl.Expr:
    """True for rows judged relevant: rel >= threshold (NULL grades are not)."""
    return (rel >= threshold).fill_null(False)


def judged_nonrelevant(rel: pl.Expr, threshold: float) -> pl.Expr:
    """True for rows judged non-relevant: 0 <= rel < threshold."""
    return ((rel >= 0) & (rel < threshold)).fill_null(False)


def count(mask: pl.Expr) -> pl.Expr:
    """Number of rows where ``mask`` holds, as Int64."""
    return mask.sum().cast(pl.Int64)


def divide(numerator: pl.Expr, denominator: pl.Expr | float, *,
           like: pl.Expr | None = None) -> pl.Expr:
    """numerator / denominator as Float64, rounded once, as C divides.

    Polars divides a column by a scalar (a literal, or a group's aggregate inside
    ``group_by().agg``) as a multiplication by the scalar's reciprocal, rounding twice:
    5 / 22 gives 0.2272727272727273, not 0.22727272727272727. The denominator is therefore
    spread to a column first (``like * 0.0 + denominator``), which Polars divides element by
    element (docs/semantics.md#exactness). ``like``: finite values of the numerator's length,
    cheap to compute (the numerator itself by default; Polars computes it twice)."""
    top = numerator.cast(pl.Float64)
    bottom = denominator.cast(pl.Float64) if isinstance(denominator, pl.Expr) else denominator
    base = top if like is None else like.cast(pl.Float64)
    return top / (base * 0.0 + bottom)


def ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """numerator / denominator of two aggregates (one value per group each, such as counts
    and sums) as Float64, 0.0 where the denominator is 0 or less. Polars divides two such
    values element by element, rounding once, as C divides (a column by a scalar it would
    multiply by the reciprocal: :func:`divide`); the numerator is computed once."""
    quotient = numerator.cast(pl.Float64) / denominator.cast(pl.Float64)
    return pl.when(denominator > 0).then(quotient).otherwise(pl.lit(0.0, dtype=pl.Float64))


def share(part: pl.Expr, count: pl.Expr) -> pl.Expr:
    """part / count of two aggregates, ``count`` a count of rows and ``part`` 0 whenever
    it is (hits of the relevant rows, a sum over them), as Float64, rounded once; 0.0 for
    0 / 0. The count is raised to 1 when 0 (0 / 1 = 0), which keeps the division a plain
    one in a group-by (a ``fill_nan`` after it made Polars divide query by query)."""
    return part.cast(pl.Float64) / count.clip(lower_bound=1).cast(pl.Float64)


def per(numerator: pl.Expr, k: float) -> pl.Expr:
    """numerator / k of an aggregate and a constant, rounded once: the constant is spread to
    a column of the group's values (``pl.len() * 0.0 + k``), which Polars divides element by
    element, where it would multiply by the reciprocal of a scalar (:func:`divide`)."""
    return numerator.cast(pl.Float64) / (pl.len().cast(pl.Float64) * 0.0 + float(k))


#: A gain per grade, as the registry's ``gains`` kind converts it: (grade, gain) pairs.
GainPairs: TypeAlias = "Mapping[int, float] | Sequence[tuple[int, float]] | None"


def gain(rel: pl.Expr, kind: Gain, gains: GainPairs = None) -> pl.Expr:
    """Gain of a grade: linear g = rel, exponential g = 2^rel - 1; 0 for NULL or rel <= 0;
    a grade listed in ``gains`` (trec_eval's ``ndcg.1=3,2=9``) gets the gain given there."""
    grade = rel.cast(pl.Float64)
    value = grade if kind == "linear" else pl.lit(2.0).pow(grade) - 1.0
    out = pl.when(grade > 0).then(value).otherwise(pl.lit(0.0))
    for level, mapped in dict(gains or ()).items():
        out = pl.when(grade == float(level)).then(pl.lit(float(mapped))).otherwise(out)
    return out


#: Whole numbers up to this bound take their log2 from a table (:func:`exact_log2`).
LOG2_TABLE_BOUND = 1 << 22
_log2_table = pl.Series("log2", [0.0], dtype=pl.Float64)


def log2_table_through(top: float) -> pl.Series:
    """The table of log2(i) by C's ``log2``, i = 0 (a placeholder 0.0), 1, 2, ..., at least
    through ``top`` (at most LOG2_TABLE_BOUND), grown on demand and shared by every call."""
    global _log2_table
    table = _log2_table  # this call's table: another thread may replace the global one
    if top >= len(table):
        size = min(1 << int(top).bit_length(), LOG2_TABLE_BOUND + 1)
        table = pl.Series("log2", [0.0, *(math.log2(i) for i in range(1, size))],
                          dtype=pl.Float64)
        if len(table) > len(_log2_table):
            _log2_table = table
    return table


def log2_of_whole(values: pl.Series) -> pl.Series:
    """:func:`log2_values`, in one gather from its table when ``values`` are integers in
    1..LOG2_TABLE_BOUND without NULL (ranks, positions); else by :func:`log2_values`."""
    if values.dtype.is_integer() and values.len() and not values.has_nulls():
        low, top = values.min(), values.max()
        if isinstance(low, int) and isinstance(top, int) and low >= 1 and top <= LOG2_TABLE_BOUND:
            return log2_table_through(top).gather(values).alias(values.name)
    return log2_values(values)


def log2_values(values: pl.Series) -> pl.Series:
    """log2 of each value by the C library's ``log2`` (Python's ``math.log2``), as trec_eval
    and DuckDB compute it: whole numbers 1..LOG2_TABLE_BOUND from a table grown on demand,
    other values one by one. NULL stays NULL."""
    x = values.cast(pl.Float64)
    whole = (x >= 1) & (x <= LOG2_TABLE_BOUND) & (x.floor() == x)
    whole = whole.fill_null(False)
    top = x.filter(whole).max()
    table = log2_table_through(top if isinstance(top, float) else 0.0)
    index = pl.select(pl.when(whole).then(x.cast(pl.Int64, strict=False)).otherwise(0))
    out = table.gather(index.to_series())
    others = ~whole & x.is_not_null()
    if others.any():
        rest = [math.log2(v) if v > 0 else (-math.inf if v == 0 else math.nan)
                for v in x.filter(others).to_list()]
        out = out.scatter(others.arg_true(), pl.Series(rest, dtype=pl.Float64))
    return pl.select(pl.when(x.is_not_null()).then(out)).to_series().alias(values.name)


def exact_log2(values: pl.Expr) -> pl.Expr:
    """log2(x) as C's ``log2`` rounds it (trec_eval, DuckDB, the oracle's ``math.log2``):
    Polars' own ``log(2)`` divides two natural logarithms, which differs from it in the
    last bit for many integers (docs/semantics.md#exactness)."""
    return values.map_batches(log2_of_whole, return_dtype=pl.Float64, is_elementwise=True)


def log2_discount(positions: pl.Expr) -> pl.Expr:
    """log2(i + 1) for 1-based positions i, by C's ``log2`` (:func:`exact_log2`)."""
    return exact_log2(positions.cast(pl.Float64) + 1.0)


#: Cutoffs up to this bound take the ideal ranking's discounts from a literal
#: (:func:`first_discounts`).
FIRST_DISCOUNTS_BOUND = 1 << 12


def first_discounts(values: pl.Expr, k: int) -> pl.Expr:
    """log2(i + 1) for i = 1, 2, ..., len(values), by C's ``log2``, for ``values`` at most
    ``k`` long (k <= FIRST_DISCOUNTS_BOUND): a slice of a literal, built once per
    expression, where ``log2_discount(ordinals(values))`` computes every group's logarithms
    (``benchmarks/headline.py`` times both paths of the builders)."""
    table = pl.Series("log2", [math.log2(i + 1) for i in range(1, k + 1)], dtype=pl.Float64)
    return pl.lit(table).slice(0, values.len())


def sequential_sum(values: pl.Expr, order: pl.Expr | None = None) -> pl.Expr:
    """Sum of ``values`` added one at a time in ``order`` (ascending; as given when None),
    as trec_eval's loops accumulate (``sum = 0.0; sum += x``); 0.0 when empty.

    Polars' ``sum`` adds floats pairwise in blocks, so its last bits depend on how rows are
    chunked and grouped (docs/semantics.md#exactness); the sum of a list adds its elements
    first to last in one aggregate (a cumulative sum's last element, the same number, builds
    a running column per group first). The list's sum starts from -0.0;
    C's loop starts from 0.0, which only turns a total of -0.0 (a sum of negative zeros, or
    of nothing) into 0.0: :func:`plus_zero` does that on the totals, one per group, which
    costs less than a term 0.0 appended to every group's list."""
    ordered = values if order is None else values.sort_by(order)
    total = ordered.cast(pl.Float64).implode().list.sum().fill_null(0.0)
    return total.map_batches(plus_zero, return_dtype=pl.Float64, is_elementwise=True)


def plus_zero_expr(totals: pl.Expr) -> pl.Expr:
    """:func:`plus_zero` as an expression."""
    return pl.when(totals == 0.0).then(pl.lit(0.0, dtype=pl.Float64)).otherwise(totals)


def plus_zero(totals: pl.Series) -> pl.Series:
    """x + 0.0 of each value as IEEE 754 adds it: -0.0 becomes 0.0, any other value stays
    (Polars' ``x + 0.0`` may keep -0.0: it reads the literals 0.0 and -0.0 as one)."""
    return pl.select(plus_zero_expr(pl.lit(totals))).to_series().alias(totals.name)


def running_total(values: pl.Expr) -> pl.Expr:
    """The sum of ``values`` added first to last (0.0 when empty), as trec_eval's loops add:
    the last element of their cumulative sum."""
    return values.cast(pl.Float64).cum_sum().last().fill_null(0.0)


def relevant_hits(rel: pl.Expr, rank: pl.Expr, k: int | None, threshold: float) -> pl.Expr:
    """Relevant rows (``rel >= threshold``) retrieved within the cutoff, as Int64."""
    return count(relevant(rel, threshold) & retrieved(rank, k))


def relevant_ranks(rank: pl.Expr, rel: pl.Expr, threshold: float, k: int | None) -> pl.Expr:
    """Ranks of the relevant retrieved rows within the cutoff, ascending."""
    return rank.filter(relevant(rel, threshold) & retrieved(rank, k)).sort()


def ordinals(values: pl.Expr) -> pl.Expr:
    """1, 2, ..., len(values): the position of each element of ``values``."""
    return pl.int_range(1, values.len() + 1, dtype=pl.Int64)


def is_judged(rel: pl.Expr) -> pl.Expr:
    """True for rows with a judgement: rel >= 0 (NULL and negative grades are unjudged)."""
    return (rel >= 0).fill_null(False)


def geometric_weight(p: float, rank: pl.Expr) -> pl.Expr:
    """p^(rank - 1): the rank-biased weight of a 1-based position before the (1 - p) factor."""
    return pl.lit(p, dtype=pl.Float64).pow(rank.cast(pl.Float64) - 1.0)


def valid_ranks(rank: pl.Expr) -> pl.Expr:
    """True for a group whose ranks are valid (docs/semantics.md#input-checks): every
    non-NULL rank >= 1, whole (not NaN, not infinite) and not repeated. Each group's ranks
    are gathered into one list (``implode``) and the lists of every group are checked at
    once by :func:`valid_rank_lists`, in linear time: no hash table per group, which cost
    several times the metrics on rows in any order. A rank expression giving one value per
    group, not per row, is an ``InputError`` (:func:`one_rank_per_row`)."""
    lists = rank.implode().map_batches(valid_rank_lists, return_dtype=pl.Boolean,
                                       is_elementwise=True)
    return lists & one_rank_per_row(rank)


def one_rank_per_row(rank: pl.Expr) -> pl.Expr:
    """True, or an ``InputError`` when ``rank`` gives fewer or more values than its group
    has rows (``pl.lit(1)`` or ``pl.col("rank").first()`` would be broadcast to every row)."""
    return (rank.len() == pl.len()).map_batches(_every_row_ranked, return_dtype=pl.Boolean,
                                                is_elementwise=True)


def _every_row_ranked(same_length: pl.Series) -> pl.Series:
    if not same_length.all():
        raise InputError(
            "rank: the rank expression gives one value per group, not one per row; it must "
            "give each row its rank (a column, or an expression of columns), not a scalar "
            "such as pl.lit(1) or an aggregate such as pl.col('rank').first()")
    return same_length


def valid_rank_lists(lists: pl.Series) -> pl.Series:
    """For a Series of lists of ranks, one per group: True where the list's ranks are valid
    (:func:`valid_ranks`)."""
    return invalid_groups(lists, len(lists)).not_()


def grades_fit(rel: pl.Expr) -> pl.Expr:
    """True for a group whose grades are at most :data:`rankframe.validation.MAX_GRADE`
    (960), so that sums of the exponential gain 2^rel - 1 stay finite."""
    return (rel.max() <= MAX_GRADE).fill_null(True)


def finite_grades(rel: pl.Expr) -> pl.Expr:
    """True for a group without a NaN or infinite grade (NULL grades are unjudged): Polars
    orders NaN above every number, so ``rel >= 1`` would count it relevant."""
    return rel.is_finite().all()


def rank_column(rank: IntoExpr) -> pl.Expr:
    """The rank column as Int64, in which no valid rank overflows when a builder adds to it
    (UInt8 255 + 1 wraps to 0 in its own dtype). A rank that is no whole number within
    Int64 becomes NULL or is truncated here: its group is invalid, and NULL by its guard."""
    return col(rank).cast(pl.Int64, strict=False)


_RANK_NOTE = """Invalid ranks: a group with a rank < 1, a rank that is not whole or above 2^63 - 1,
    or the same rank twice gives NULL, not a number (``rankframe.evaluate`` raises
    ``InputError`` first)."""
_FINITE_NOTE = """Invalid grades: a group with a NaN or infinite grade gives NULL (use NULL for an
    unjudged row; ``rankframe.evaluate`` raises ``InputError``)."""
_GRADE_NOTE = """Grades too large: with ``gain="exponential"``, a group with a grade above 960 gives
    NULL (2^rel - 1 would overflow its sums; ``rankframe.evaluate`` raises ``InputError``)."""
Builder: TypeAlias = Callable[..., pl.Expr]


def _guarded(builder: Builder, ranks: bool) -> Builder:
    """``builder`` whose expression is NULL for a group with invalid ranks (when ``ranks``;
    the body then reads them as Int64, :func:`rank_column`), a NaN or infinite grade, or,
    with the exponential gain, a grade above 960; the undecorated builder stays reachable
    as ``unguarded(builder)``, for tables checked already (``evaluate`` runs
    ``check_judged``)."""
    signature = inspect.signature(builder)
    gains = "gain" in signature.parameters
    grades = "rel" in signature.parameters

    @functools.wraps(builder)
    def guarded(*args: object, **kwargs: object) -> pl.Expr:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        given = bound.arguments
        valid = pl.lit(True)
        if ranks:
            valid = valid_ranks(col(given["rank"]))
            given["rank"] = rank_column(given["rank"])
        if grades:
            valid = valid & finite_grades(col(given["rel"]))
        if gains and given["gain"] == "exponential":
            valid = valid & grades_fit(col(given["rel"]))
        expr = builder(*bound.args, **bound.kwargs)
        return pl.when(valid).then(expr).alias(expr.meta.output_name())

    notes = [_RANK_NOTE] * ranks + [_FINITE_NOTE] * grades + [_GRADE_NOTE] * gains
    note = "Notes\n    -----\n    " + "\n\n    ".join(notes) + "\n\n    "
    doc = builder.__doc__ or ""
    at = doc.find("Examples\n")
    guarded.__doc__ = (doc[:at] + note + doc[at:] if at >= 0
                       else doc.rstrip() + "\n\n    " + note)
    guarded.__dict__["unguarded"] = builder
    return guarded


def rank_guarded(builder: Builder) -> Builder:
    """Decorate a builder reading a ``rank`` column: its expression is NULL for a group whose
    ranks are not valid (:func:`valid_ranks`), or, with the exponential gain, whose grades
    do not fit (:func:`grades_fit`). The undecorated builder stays reachable as
    ``unguarded(builder)``, for tables checked already (``evaluate`` runs ``check_judged``)."""
    return _guarded(builder, ranks=True)


def grade_guarded(builder: Builder) -> Builder:
    """Decorate a builder with a ``gain`` parameter and no ``rank`` column (the tie-aware
    gains): with the exponential gain, its expression is NULL for a group whose grades do
    not fit (:func:`grades_fit`); ``unguarded(builder)`` is the undecorated builder."""
    return _guarded(builder, ranks=False)


def unguarded(builder: Builder) -> Builder:
    """The builder without the rank guard of :func:`rank_guarded` (itself if it has none),
    through the wrappers of ``functools.wraps``."""
    current: object = builder
    while current is not None:
        found: Builder | None = getattr(current, "unguarded", None)
        if found is not None:
            return found
        current = getattr(current, "__wrapped__", None)
    return builder



"""The Spark face's building blocks: row predicates, counts, ratios, gains and discounts as
Spark columns (the aggregates are evaluated per group), shared by its family modules, and
:func:`builder`, the decorator of every Spark builder."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any, ParamSpec, TypeAlias

from pyspark.sql import Column
from pyspark.sql import functions as F

from rankframe.faces.polars.expr import Gain, label
from rankframe.registry import Metric, validated

P = ParamSpec("P")
IntoColumn: TypeAlias = "str | Column"

#: An example value of a metric's first required parameter, for the alias in the docstring.
_EXAMPLE_VALUES = {"k": 10, "recall": 0.5, "multiple": 0.2}


def builder(metric: Metric) -> Callable[[Callable[P, Column]], Callable[P, Column]]:
    """Decorate the Spark builder of ``metric``: the registry's argument checks
    (:func:`~rankframe.registry.validated`), and a ``Returns`` section, written from the
    declaration, at the end of its docstring."""

    def decorate(build: Callable[P, Column]) -> Callable[P, Column]:
        kind = ("StringType" if metric.is_string else "LongType" if metric.is_count
                else "DoubleType")
        first = next((p.name for p in metric.params if p.name in _EXAMPLE_VALUES), None)
        alias = label(metric.name, _EXAMPLE_VALUES[first] if first else None)
        returns = (f"Returns\n-------\nColumn\n    A {kind} aggregate, aliased as its measure "
                   f"string (``{alias}``).\n")
        text, examples, rest = inspect.cleandoc(build.__doc__ or "").partition("Examples\n---")
        build.__doc__ = f"{text.rstrip()}\n\n{returns}" + (f"\n{examples}{rest}\n" if examples
                                                          else "")
        return validated(metric)(build)

    return decorate


def col(x: IntoColumn) -> Column:
    """A column name or a column, as a column."""
    return F.col(x) if isinstance(x, str) else x


def retrieved(rank: Column, k: int | None = None) -> Column:
    """True for rows with a rank, and with rank <= k when a cutoff is given (never NULL)."""
    if k is None:
        return rank.isNotNull()
    return F.coalesce(rank <= F.lit(k), F.lit(False))


def relevant(rel: Column, threshold: float) -> Column:
    """True for rows judged relevant, rel >= threshold; NULL grades are not (never NULL)."""
    return F.coalesce(rel >= F.lit(threshold), F.lit(False))


def is_judged(rel: Column) -> Column:
    """True for rows with a judgement, rel >= 0 (NULL and negative grades are unjudged)."""
    return F.coalesce(rel >= F.lit(0), F.lit(False))


def judged_nonrelevant(rel: Column, threshold: float) -> Column:
    """True for rows judged non-relevant, 0 <= rel < threshold (never NULL)."""
    return F.coalesce((rel >= F.lit(0)) & (rel < F.lit(threshold)), F.lit(False))


def count(mask: Column) -> Column:
    """Rows of the group where ``mask`` holds, as a LongType aggregate (0 for no rows)."""
    return F.count_if(mask)


def ratio(numerator: Column, denominator: Column) -> Column:
    """numerator / denominator as a double, and 0.0 where the denominator is 0.

    The zero denominator is replaced by NULL before dividing, so the expression is safe
    under ANSI mode (Spark's default since 4.0), where dividing by zero raises.
    """
    quotient = numerator.cast("double") / F.when(denominator > 0, denominator)
    return F.coalesce(quotient, F.lit(0.0))


def gain_of(rel: Column, kind: Gain, gains: Any = None) -> Column:
    """Gain of a grade: g = rel (linear) or 2^rel - 1 (exponential); 0.0 for NULL or rel <= 0;
    a grade listed in ``gains`` ((grade, gain) pairs, trec_eval's ndcg.1=3,2=9) gains that."""
    grade = rel.cast("double")
    value = grade if kind == "linear" else F.pow(F.lit(2.0), grade) - F.lit(1.0)
    out = F.when(grade > 0, value).otherwise(F.lit(0.0))
    for level, mapped in dict(gains or ()).items():
        out = F.when(grade == F.lit(float(level)), F.lit(float(mapped))).otherwise(out)
    return out


#: Positions whose discount log2(i + 1) comes from a table of C's ``log2`` (Python's
#: ``math.log2``, as trec_eval and DuckDB round it); Spark's own ``log2`` divides two natural
#: logarithms and differs in the last bit for about a quarter of the integers.
EXACT_LOG2_POSITIONS = 4095


_LOG2_TEXT = ",".join(repr(math.log2(n)) for n in range(1, EXACT_LOG2_POSITIONS + 2))


def discount(position: Column) -> Column:
    """log2(i + 1) for 1-based positions i: C's log2 (a table parsed once per plan, text to
    double being exact for the shortest repr) up to :data:`EXACT_LOG2_POSITIONS`, Spark's
    log2 beyond (docs/semantics.md#exactness)."""
    i = position.cast("long")
    table = F.split(F.lit(_LOG2_TEXT), ",").cast("array<double>")
    # i + 1 in a long only within the table: a rank of 2^63 - 1 would overflow it.
    return F.when(i <= EXACT_LOG2_POSITIONS, F.element_at(table, (i + F.lit(1)).cast("int"))
                  ).otherwise(F.log2(i.cast("double") + F.lit(1.0)))


def relevant_hits(rel: Column, rank: Column, k: int | None, threshold: float) -> Column:
    """Relevant rows with rank <= k (LongType)."""
    return count(relevant(rel, threshold) & retrieved(rank, k))


def sum_array(values: Column) -> Column:
    """Sum of an array of doubles, 0.0 for an empty array."""
    return F.aggregate(values, F.lit(0.0), lambda acc, x: acc + x)


def let(value: Column, body: Callable[[Column], Column]) -> Column:
    """``body(value)`` with ``value`` computed once (a one-element array, transformed)."""
    return F.element_at(F.transform(F.array(value), body), 1)

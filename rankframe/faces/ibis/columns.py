"""The Ibis faces' building blocks: the types they pass around, and row predicates and
arithmetic as Ibis values, shared by the family modules."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import ibis
import ibis.expr.datatypes as dt

from rankframe.validation import MAX_GRADE

Table = Any


Value = Any


Final = Callable[[Table], Value]


F64 = dt.float64


I64 = dt.int64


def flag(condition: Value) -> Value:
    """1 where ``condition`` holds, else 0 (NULL counts as false), as int64."""
    return ibis.ifelse(condition.fill_null(False), 1, 0).cast(I64)


def as_float(value: Value) -> Value:
    return value.cast(F64)


def no_negative_zero(value: Value) -> Value:
    """``value`` as float64 with -0.0 made 0.0. Not ``x + 0.0``, which optimizers simplify
    away; and DataFusion compares floats by total order (-0.0 < 0.0), so |x| is tested."""
    x = as_float(value)
    return ibis.ifelse(x.abs() == 0.0, x.abs(), x)


def ratio(numerator: Value, denominator: Value) -> Value:
    """numerator / denominator as float64, 0 where the denominator is not > 0 (nothing is
    ever divided by zero: the engines differ on what that does)."""
    safe = ibis.ifelse(denominator > 0, as_float(denominator), ibis.null(F64))
    return (as_float(numerator) / safe).fill_null(0.0)


def retrieved(rank: Value, k: int | None = None) -> Value:
    if k is None:
        return rank.notnull()
    return (rank <= k).fill_null(False)


def relevant(rel: Value, threshold: float) -> Value:
    return (rel >= threshold).fill_null(False)


def is_judged(rel: Value) -> Value:
    return (rel >= 0).fill_null(False)


def gain_of(rel: Value, kind: str, gains: Any = None) -> Value:
    """g = rel (linear) or 2^rel - 1 (exponential); 0 for NULL or rel <= 0; a grade listed
    in ``gains`` ((grade, gain) pairs, trec_eval's ndcg.1=3,2=9) gains the number given."""
    grade = as_float(rel)
    # Above 960 the group's value is NULL (_grades_fit): no pow, which PostgreSQL refuses
    # to overflow.
    value = grade if kind == "linear" else ibis.ifelse(
        grade <= MAX_GRADE, ibis.literal(2.0).pow(grade) - 1.0, 0.0)
    out = ibis.ifelse((grade > 0).fill_null(False), value, 0.0)
    for level, mapped in dict(gains or ()).items():
        out = ibis.ifelse((grade == float(level)).fill_null(False), float(mapped), out)
    return out


def discount(position: Value, backend: str | None = None) -> Value:
    """log2(i + 1) of a 1-based position. Ibis gives PostgreSQL ``log(2, x)`` in NUMERIC,
    slow on a large table; ln(x) / ln(2) in float8 there instead (within an ulp or two)."""
    if backend == "postgres":
        return (as_float(position) + 1.0).ln() / math.log(2.0)
    return (as_float(position) + 1.0).log2()


def sum_where(value: Value, where: Value) -> Value:
    """The sum over the rows where ``where`` holds, 0 when none does."""
    return ibis.ifelse(where.fill_null(False), value, ibis.null(value.type())).sum().fill_null(0)

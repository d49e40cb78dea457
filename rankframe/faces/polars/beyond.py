"""Building blocks of the beyond-accuracy builders (families ``catalog``, ``popularity_bias``,
``diversity``, ``fairness``): the rows a list recommends, the guard of a run metric, and
the position-wise sum of a group's vectors. Contract: docs/semantics.md#beyond-accuracy."""

from __future__ import annotations

import functools
import inspect

import polars as pl

from rankframe.faces.polars.expr import Builder, col, retrieved

_RUN_NOTE = """Invalid ranks: a group with a rank < 1 or a rank that is not whole gives NULL, not a
    number (``rankframe.evaluate`` raises ``InputError`` first). Ranks repeat in a run (one
    list per user), so they need not be unique in the group."""


def whole_ranks(rank: pl.Expr) -> pl.Expr:
    """True for a group whose non-NULL ranks are all whole numbers >= 1 (a run of many lists:
    ranks repeat)."""
    return (rank.min().fill_null(1) >= 1) & ((rank - rank.floor()) == 0).all()


def run_guarded(builder: Builder) -> Builder:
    """Decorate the builder of a run metric: NULL for a group whose ranks are not whole
    numbers >= 1 (:func:`whole_ranks`); ``rankframe.faces.polars.expr.unguarded`` gives the
    undecorated builder, for tables checked already."""
    signature = inspect.signature(builder)

    @functools.wraps(builder)
    def guarded(*args: object, **kwargs: object) -> pl.Expr:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        built = builder(*args, **kwargs)
        valid = whole_ranks(col(bound.arguments["rank"]))
        return pl.when(valid).then(built).alias(built.meta.output_name())

    doc = builder.__doc__ or ""
    at = doc.find("Examples\n")
    note = "Notes\n    -----\n    " + _RUN_NOTE + "\n\n    "
    guarded.__doc__ = doc[:at] + note + doc[at:] if at >= 0 else doc.rstrip() + "\n\n    " + note
    guarded.__dict__["unguarded"] = builder
    return guarded


def recommended(rank: pl.Expr, k: int | None) -> pl.Expr:
    """True for the rows of the list: a rank, at most k (docs/semantics.md#beyond-accuracy)."""
    return retrieved(rank, k)


def squared_norm(vectors: pl.Expr) -> pl.Expr:
    """Each vector's squared Euclidean norm."""
    return vectors.cast(pl.List(pl.Float64)).list.eval(pl.element().pow(2).sum()).list.first()


def unit_vectors(vectors: pl.Expr) -> pl.Expr:
    """Each vector divided by its Euclidean norm (a list of Float64); all zeros stay zeros."""
    values = vectors.cast(pl.List(pl.Float64))
    norm = squared_norm(values).sqrt()
    return pl.when(norm > 0).then(values / norm).otherwise(values * 0.0)


def one_length(vectors: pl.Expr) -> pl.Expr:
    """True for a group whose vectors (non-NULL) all have one length."""
    return vectors.cast(pl.List(pl.Float64)).list.len().n_unique() <= 1


def position_sums(vectors: pl.Expr) -> pl.Expr:
    """Within a group: the sum over the group's vectors (non-NULL; of one length d, which the
    caller checks with :func:`one_length`) of each position, as d values in position order;
    nothing for a group without vectors.

    The vectors' values, row after row, are sorted by their position in their vector (a
    stable sort: a transpose of the group's n x d values); each position's sum is then the
    step of their running sum at the position's last value. Ragged vectors give a value per
    position present, never an error."""
    values = vectors.cast(pl.List(pl.Float64))
    flat = values.explode()
    position = values.list.eval(pl.int_range(pl.len())).explode()
    in_order = position.sort()
    last = (in_order != in_order.shift(-1)).fill_null(True)
    ends = flat.sort_by(position, maintain_order=True).cum_sum().filter(last)
    return ends - ends.shift(1, fill_value=0.0)


def padded(values: pl.Expr, like: pl.Expr) -> pl.Expr:
    """``values`` (a group's values) cut or padded with zeros to the length of the group's
    values ``like``, so that the two combine position by position whatever they hold."""
    return values.append(like * 0.0).head(like.len())

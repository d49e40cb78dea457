"""64-bit keys standing in for (query, doc) pairs: duplicate checks and joins hash once."""

from __future__ import annotations

import polars as pl

# An odd 64-bit constant (2^64 / golden ratio): the first hash is spread over all bits before
# the second is added, so (a, b) and (b, a) get different keys.
_MIX = 0x9E3779B97F4A7C15


def id_hash(name: str) -> pl.Expr:
    """The 64-bit hash of an id column that pair keys are made of."""
    return pl.col(name).hash()


def pair_key(first: str, second: str) -> pl.Expr:
    """A 64-bit key of a pair of columns, ``hash(first) * M + hash(second)`` (wrapping).

    Equal pairs always get equal keys; unequal pairs rarely do, so callers use it to prove
    pairs distinct (n_unique = height) or to join, and confirm a match on the values.
    """
    return id_hash(first) * pl.lit(_MIX, dtype=pl.UInt64) + id_hash(second)

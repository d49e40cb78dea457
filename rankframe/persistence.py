"""The rank-biased weight ``p^(i - 1)`` of ``rbp`` and ``rbp_residual``, as every face
computes it (docs/semantics.md#rbp).

The weight is trec_eval's running product: 1.0, multiplied by p once per position. It falls
until it reaches its floor, 0 or a few subnormal numbers, where multiplying by p no longer
changes it; that happens within :func:`floor_steps` multiplications (about 1075 / -log2 p:
3,526 for p = 0.8). So position i weighs the running product at ``min(i, K + 1)``, the same
number, and a face never multiplies more than K times, whatever the rank gaps. Plain Python:
the oracle (:mod:`rankframe.reference`) reads it too.
"""

from __future__ import annotations

import functools
import math

__all__ = ["floor_steps", "floor_weight"]


def floor_steps(p: float) -> int:
    """K: after K multiplications by ``p`` (0 < p < 1) the running product has reached its
    floor, from 1.0 or from any later value of it. The product stays a normal number for
    fewer than 1022 / -log2 p steps and reaches a fixed point within about 53 more bits of
    decay; 1135 / -log2 p bounds both (the SQL macros compute the same expression)."""
    return math.ceil(1135 / -math.log2(p))


@functools.lru_cache(maxsize=64)
def floor_weight(p: float) -> float:
    """The floor of the running product: the weight of every position after ``K + 1``."""
    weight = 1.0
    for _ in range(floor_steps(p)):
        weight *= p
    return weight

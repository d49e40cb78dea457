"""Polars faces of the rankframe metrics, one ``pl.Expr`` builder per metric.

The builders load on first use (PEP 562), each with its module: importing
:mod:`rankframe.registry` (the declarations, no Polars) does not import them. Which
builders there are, and their modules, come from the registry (each metric's family); the
imports below are for static readers only, and a test keeps them equal to the registry.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from rankframe.registry import METRICS

if TYPE_CHECKING:  # type checkers and griffe read these; they do not run the registry
    from rankframe.metrics.correlation import (
        kendall_distance as kendall_distance,
    )
    from rankframe.metrics.correlation import (
        kendall_tau as kendall_tau,
    )
    from rankframe.metrics.correlation import (
        rbo as rbo,
    )
    from rankframe.metrics.correlation import (
        spearman_rho as spearman_rho,
    )
    from rankframe.metrics.counts import (
        f1 as f1,
    )
    from rankframe.metrics.counts import (
        hit_rate as hit_rate,
    )
    from rankframe.metrics.counts import (
        num_rel as num_rel,
    )
    from rankframe.metrics.counts import (
        num_rel_ret as num_rel_ret,
    )
    from rankframe.metrics.counts import (
        num_ret as num_ret,
    )
    from rankframe.metrics.counts import (
        precision as precision,
    )
    from rankframe.metrics.counts import (
        recall as recall,
    )
    from rankframe.metrics.gains import (
        cg as cg,
    )
    from rankframe.metrics.gains import (
        dcg as dcg,
    )
    from rankframe.metrics.gains import (
        idcg as idcg,
    )
    from rankframe.metrics.gains import (
        ndcg as ndcg,
    )
    from rankframe.metrics.gains import (
        ndcg_p as ndcg_p,
    )
    from rankframe.metrics.gains import (
        ndcg_rel as ndcg_rel,
    )
    from rankframe.metrics.gains import (
        rndcg as rndcg,
    )
    from rankframe.metrics.ranked import (
        average_precision as average_precision,
    )
    from rankframe.metrics.ranked import (
        bpref as bpref,
    )
    from rankframe.metrics.ranked import (
        infap as infap,
    )
    from rankframe.metrics.ranked import (
        iprec_at_recall as iprec_at_recall,
    )
    from rankframe.metrics.ranked import (
        r_precision as r_precision,
    )
    from rankframe.metrics.ranked import (
        r_precision_mult as r_precision_mult,
    )
    from rankframe.metrics.ranked import (
        reciprocal_rank as reciprocal_rank,
    )
    from rankframe.metrics.ranked import (
        relstring as relstring,
    )
    from rankframe.metrics.ranked import (
        yaap as yaap,
    )
    from rankframe.metrics.tied import (
        average_precision_ties as average_precision_ties,
    )
    from rankframe.metrics.tied import (
        dcg_ties as dcg_ties,
    )
    from rankframe.metrics.tied import (
        ndcg_ties as ndcg_ties,
    )
    from rankframe.metrics.tied import (
        precision_ties as precision_ties,
    )
    from rankframe.metrics.tied import (
        recall_ties as recall_ties,
    )
    from rankframe.metrics.tied import (
        reciprocal_rank_ties as reciprocal_rank_ties,
    )
    from rankframe.metrics.trec import (
        bin_g as bin_g,
    )
    from rankframe.metrics.trec import (
        g as g,
    )
    from rankframe.metrics.trec import (
        num_nonrel_judged_ret as num_nonrel_judged_ret,
    )
    from rankframe.metrics.trec import (
        relative_precision as relative_precision,
    )
    from rankframe.metrics.trec import (
        set_map as set_map,
    )
    from rankframe.metrics.trec import (
        unjudged as unjudged,
    )
    from rankframe.metrics.trec import (
        utility as utility,
    )
    from rankframe.metrics.user import (
        err as err,
    )
    from rankframe.metrics.user import (
        judged as judged,
    )
    from rankframe.metrics.user import (
        rbp as rbp,
    )
    from rankframe.metrics.user import (
        rbp_residual as rbp_residual,
    )

#: The module of ``rankframe.metrics`` of each family whose module is not named after it.
_FAMILY_MODULES: dict[str, str] = {"overlap": "correlation", "ties": "tied"}
#: Builder name -> the module of ``rankframe.metrics`` that defines it, from the registry.
_MODULES: dict[str, str] = {name: _FAMILY_MODULES.get(m.family, m.family)
                            for name, m in METRICS.items()}

__all__ = sorted(METRICS)


def __getattr__(name: str) -> Any:
    """A builder, imported from its module on first use."""
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'rankframe.metrics' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"rankframe.metrics.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

"""The Polars face: every rankframe metric as a ``pl.Expr`` builder, and ``FACE``.

The builders load on first use (PEP 562), each with its module: importing
:mod:`rankframe.registry` (the declarations, no Polars) or :mod:`rankframe.faces` does not
import them. Which builders there are, and their modules, come from the registry (each
metric's family); the imports below are for static readers only, and a test keeps them
equal to the registry. ``FACE`` (:mod:`~rankframe.faces.polars.face`), what
:mod:`rankframe.faces` registers, loads on first use too. :mod:`rankframe.metrics` is the
public entry point (``rankframe.ndcg`` ...).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from rankframe.registry import METRICS

if TYPE_CHECKING:  # type checkers and griffe read these; they do not run the registry
    from rankframe.faces.polars.catalog import (
        coverage as coverage,
    )
    from rankframe.faces.polars.catalog import (
        entropy as entropy,
    )
    from rankframe.faces.polars.catalog import (
        gini as gini,
    )
    from rankframe.faces.polars.correlation import (
        kendall_distance as kendall_distance,
    )
    from rankframe.faces.polars.correlation import (
        kendall_tau as kendall_tau,
    )
    from rankframe.faces.polars.correlation import (
        rbo as rbo,
    )
    from rankframe.faces.polars.correlation import (
        spearman_rho as spearman_rho,
    )
    from rankframe.faces.polars.counts import (
        f1 as f1,
    )
    from rankframe.faces.polars.counts import (
        hit_rate as hit_rate,
    )
    from rankframe.faces.polars.counts import (
        num_rel as num_rel,
    )
    from rankframe.faces.polars.counts import (
        num_rel_ret as num_rel_ret,
    )
    from rankframe.faces.polars.counts import (
        num_ret as num_ret,
    )
    from rankframe.faces.polars.counts import (
        precision as precision,
    )
    from rankframe.faces.polars.counts import (
        recall as recall,
    )
    from rankframe.faces.polars.diversity import (
        ild_category as ild_category,
    )
    from rankframe.faces.polars.diversity import (
        ild_features as ild_features,
    )
    from rankframe.faces.polars.diversity import (
        ild_pairs as ild_pairs,
    )
    from rankframe.faces.polars.diversity import (
        serendipity as serendipity,
    )
    from rankframe.faces.polars.fairness import (
        awrf as awrf,
    )
    from rankframe.faces.polars.gains import (
        cg as cg,
    )
    from rankframe.faces.polars.gains import (
        dcg as dcg,
    )
    from rankframe.faces.polars.gains import (
        idcg as idcg,
    )
    from rankframe.faces.polars.gains import (
        ndcg as ndcg,
    )
    from rankframe.faces.polars.gains import (
        ndcg_p as ndcg_p,
    )
    from rankframe.faces.polars.gains import (
        ndcg_rel as ndcg_rel,
    )
    from rankframe.faces.polars.gains import (
        rndcg as rndcg,
    )
    from rankframe.faces.polars.popularity_bias import (
        novelty as novelty,
    )
    from rankframe.faces.polars.popularity_bias import (
        popularity as popularity,
    )
    from rankframe.faces.polars.popularity_bias import (
        tail_share as tail_share,
    )
    from rankframe.faces.polars.ranked import (
        average_precision as average_precision,
    )
    from rankframe.faces.polars.ranked import (
        bpref as bpref,
    )
    from rankframe.faces.polars.ranked import (
        infap as infap,
    )
    from rankframe.faces.polars.ranked import (
        iprec_at_recall as iprec_at_recall,
    )
    from rankframe.faces.polars.ranked import (
        r_precision as r_precision,
    )
    from rankframe.faces.polars.ranked import (
        r_precision_mult as r_precision_mult,
    )
    from rankframe.faces.polars.ranked import (
        reciprocal_rank as reciprocal_rank,
    )
    from rankframe.faces.polars.ranked import (
        relstring as relstring,
    )
    from rankframe.faces.polars.ranked import (
        yaap as yaap,
    )
    from rankframe.faces.polars.tied import (
        average_precision_ties as average_precision_ties,
    )
    from rankframe.faces.polars.tied import (
        dcg_ties as dcg_ties,
    )
    from rankframe.faces.polars.tied import (
        ndcg_ties as ndcg_ties,
    )
    from rankframe.faces.polars.tied import (
        precision_ties as precision_ties,
    )
    from rankframe.faces.polars.tied import (
        recall_ties as recall_ties,
    )
    from rankframe.faces.polars.tied import (
        reciprocal_rank_ties as reciprocal_rank_ties,
    )
    from rankframe.faces.polars.trec import (
        bin_g as bin_g,
    )
    from rankframe.faces.polars.trec import (
        g as g,
    )
    from rankframe.faces.polars.trec import (
        num_nonrel_judged_ret as num_nonrel_judged_ret,
    )
    from rankframe.faces.polars.trec import (
        relative_precision as relative_precision,
    )
    from rankframe.faces.polars.trec import (
        set_map as set_map,
    )
    from rankframe.faces.polars.trec import (
        unjudged as unjudged,
    )
    from rankframe.faces.polars.trec import (
        utility as utility,
    )
    from rankframe.faces.polars.user import (
        err as err,
    )
    from rankframe.faces.polars.user import (
        judged as judged,
    )
    from rankframe.faces.polars.user import (
        rbp as rbp,
    )
    from rankframe.faces.polars.user import (
        rbp_residual as rbp_residual,
    )

#: The module of this package of each family whose module is not named after it.
_FAMILY_MODULES: dict[str, str] = {"overlap": "correlation", "ties": "tied"}
#: Builder name -> the module of this package that defines it, from the registry; and the
#: face object's module.
_MODULES: dict[str, str] = {**{name: _FAMILY_MODULES.get(m.family, m.family)
                               for name, m in METRICS.items()}, "FACE": "face"}

__all__ = sorted(METRICS)


def __getattr__(name: str) -> Any:
    """A builder (or ``FACE``), imported from its module on first use."""
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

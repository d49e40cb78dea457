"""Compare retrieval systems query by query: means, confidence intervals, paired
significance tests against a baseline, multiple-comparison correction and effect sizes.

The input is a per-query table, one row per (system, query) and one numeric column per
measure, as :func:`rankframe.analysis.runs.evaluate_runs` (``rf.evaluate_runs``) produces
from several runs, or the runs themselves with their qrels (``compare(runs, qrels=...,
measures=[...])`` evaluates them through ``evaluate_runs`` first). Everything is paired by
query: system ``s`` and the baseline ``b`` give the differences ``d_q = x_{s,q} - x_{b,q}``.

The resampling is vectorised with NumPy (resample matrices in chunks: one matrix product
per chunk for sign flips, one gather per chunk and system for the bootstrap) and seeded
through :class:`numpy.random.Generator`, so a given ``seed`` always gives the same
numbers. SciPy supplies the t distribution. Both are the optional extra ``stats``:
``pip install 'rankframe[stats]'``.
"""

from __future__ import annotations

import importlib
import math
import os
import sys
import time
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from rankframe import validation
from rankframe.analysis.runs import evaluate_runs
from rankframe.errors import InputError, MeasureError
from rankframe.frames import Eager, from_foreign

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    FloatArray = NDArray[np.float64]

__all__ = ["COLUMNS", "Correction", "MissingPolicy", "MissingQueriesError", "Test",
           "adjust_pvalues", "compare"]


class MissingQueriesError(InputError):
    """A measure lacks a value for some (system, query) under ``missing="error"``;
    ``problem`` says which, without the remedy (the caller's options name it)."""

    def __init__(self, problem: str) -> None:
        super().__init__(f"{problem}. Pass missing='intersect' to drop them or "
                         "missing='zero' to score them 0.")
        self.problem = problem

Test = Literal["t", "randomization", "bootstrap"]
Correction = Literal["holm", "bonferroni"]
MissingPolicy = Literal["error", "intersect", "zero"]
PathLike = str | os.PathLike[str]

#: Columns of the frame :func:`compare` returns, in order.
COLUMNS: tuple[str, ...] = (
    "system", "measure", "baseline", "n_queries", "mean", "ci_low", "ci_high",
    "boot_ci_low", "boot_ci_high", "delta", "delta_ci_low", "delta_ci_high",
    "delta_boot_ci_low", "delta_boot_ci_high", "p_value", "p_adjusted", "significant",
    "wins", "ties", "losses", "effect_size",
)

#: Elements of a resample matrix (resamples x queries) generated at once.
_CHUNK_ELEMENTS = 1 << 21
#: With ``progress=None`` a bar appears only once a run has lasted this many seconds.
_PROGRESS_DELAY = 1.0


def _require(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"rankframe.analysis.compare needs {name.split('.')[0]}; "
            "install the optional extra: pip install 'rankframe[stats]'"
        ) from exc


def compare(
    data: Eager | Mapping[str, Eager] | Sequence[PathLike],
    /,
    *,
    qrels: Eager | PathLike | None = None,
    system: str = "system",
    query: str = "qid",
    measures: Sequence[str] | str | None = None,
    baseline: str | None = None,
    test: Test = "t",
    correction: Correction | None = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int | None = 0,
    missing: MissingPolicy = "error",
    progress: bool | None = None,
    all_queries: bool = True,
) -> pl.DataFrame:
    r"""Compare every system with a baseline on every measure, paired by query.

    Parameters
    ----------
    data
        Either the per-query table, one row per (system, query) and one numeric column
        per measure (``qrels`` must then be ``None``); or the runs, as run file paths or
        a mapping system name -> run frame, which need ``qrels`` and ``measures`` and are
        evaluated by :func:`rankframe.analysis.runs.evaluate_runs` (each run on every qrels
        query unless ``all_queries=False``). Frames may be Polars, pandas or pyarrow
        Tables.
    qrels
        With runs: the qrels frame or file path. With a per-query table: ``None``.
    system, query
        Names of the system and query columns (with runs, of the table evaluated from
        them: ``query`` is then ``"qid"``).
    measures
        With a per-query table, the measure columns to compare (a name or a list);
        ``None``: every numeric column other than ``system`` and ``query``, in table
        order. With runs, the measure strings to evaluate and compare (required).
    baseline
        The system the others are tested against; default the first system in order of
        appearance.
    test
        ``"t"`` (paired t-test), ``"randomization"`` (paired sign-flip permutation test)
        or ``"bootstrap"`` (paired bootstrap test of the mean difference). All two-sided.
    correction
        ``"holm"``, ``"bonferroni"`` or ``None``. The family is every (system, measure)
        test against the baseline in this call: ``(systems - 1) x measures`` p-values.
    alpha
        Significance level; the confidence intervals have level ``1 - alpha``.
    n_resamples
        Bootstrap resamples (always drawn: they give the ``boot_*`` intervals) and
        randomization sign flips.
    seed
        Seed of the :class:`numpy.random.Generator`; ``None`` draws fresh entropy.
    missing
        A query absent for some system (or a NULL/NaN value) is an error naming the
        system and queries (``"error"``), drops that query for every system of that
        measure (``"intersect"``), or counts as 0 (``"zero"``, trec_eval ``-c``). An
        infinite value is always an error naming the system and query.
    progress
        Show a progress bar on stderr for the resampling (tqdm when installed, else a
        plain bar): ``True`` always, ``False`` never, ``None`` when stderr is a terminal
        and the resampling has lasted more than a second.
    all_queries
        With runs, as for :func:`rankframe.analysis.runs.evaluate_runs`: True (default)
        every qrels query, a run's missing ones scoring 0; False the queries each run
        answered, as trec_eval without ``-c``.

    Returns
    -------
    polars.DataFrame
        One row per (system, measure), systems in order of appearance then measures in
        the order given, with the columns of :data:`COLUMNS`:

        - ``n_queries`` ``n``: queries paired for that measure after ``missing``.
        - ``mean`` :math:`\bar x`; ``ci_low``/``ci_high``:
          :math:`\bar x \pm t_{1-\alpha/2,\,n-1}\, s/\sqrt n` (``s`` with ``ddof=1``).
        - ``boot_ci_low``/``boot_ci_high``: percentile bootstrap interval, the
          :math:`\alpha/2` and :math:`1-\alpha/2` quantiles of the mean over resamples of
          the queries (with replacement, the same resamples for every system).
        - ``delta`` :math:`\bar d`, with the paired t interval ``delta_ci_*`` and the
          paired percentile bootstrap interval ``delta_boot_ci_*``.
        - ``p_value``: two-sided, from ``test``:

          * t: :math:`t = \bar d / (s_d/\sqrt n)`, :math:`p = 2\,P(T_{n-1} \ge |t|)`
            (as :func:`scipy.stats.ttest_rel`); when :math:`s_d = 0`, p = 1 if
            :math:`\bar d = 0` else 0. "= 0" allows rounding noise: within
            :math:`10^{-12} \max |x|`.
          * randomization: :math:`p = (1 + \#\{b : |\bar{(\epsilon_b d)}| \ge |\bar d|\})
            / (1 + B)` over B random sign vectors :math:`\epsilon_b \in \{-1, 1\}^n`;
            when :math:`2^n \le` ``n_resamples`` all sign vectors are enumerated and
            :math:`p = \#\{\epsilon : |\bar{(\epsilon d)}| \ge |\bar d|\} / 2^n` exactly.
          * bootstrap: :math:`p = (1 + \#\{b : |\bar d^*_b - \bar d| \ge |\bar d|\}) /
            (1 + B)`, the resampled mean differences shifted to the null of no difference.

        - ``p_adjusted``: Holm
          :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1)\, p_{(j)})` or
          Bonferroni :math:`\min(1, m\,p)`; ``significant``: :math:`\tilde p \le \alpha`.
        - ``wins``/``ties``/``losses``: queries with :math:`d_q > 0`, :math:`= 0`, :math:`< 0`.
        - ``effect_size``: paired Cohen's :math:`d_z = \bar d / s_d`; NULL when
          :math:`s_d = 0` (within rounding noise, as above) or :math:`n < 2`.

        The baseline's row has NULL in every column about the difference. With ``n < 2``
        the t intervals and the p-value are NULL (and that test leaves the family).

    Raises
    ------
    TypeError
        ``data`` is neither a per-query DataFrame nor runs (a single path, a list of
        frames without names).
    InputError
        ``qrels`` given with a per-query table, runs without ``qrels`` or ``measures``;
        missing columns, fewer than two systems, an unknown baseline, duplicate
        (system, query) rows, missing queries with ``missing="error"``, no query left.
    MeasureError
        A measure column that does not exist or is not numeric.

    Notes
    -----
    The mean is the arithmetic mean of per-query values
    (docs/semantics.md#aggregation-across-queries). For count
    measures (``num_*``) the usual summary is a sum, which is ``n`` times this mean and
    tests the same way; for a geometric-mean measure such as ``gm_map`` pass
    ``log(max(AP, 1e-5))`` per query and compare that.

    Examples
    --------
    >>> import polars as pl
    >>> from rankframe.analysis.compare import compare
    >>> pq = pl.DataFrame({
    ...     "system": ["bm25"] * 4 + ["dense"] * 4,
    ...     "qid": ["q1", "q2", "q3", "q4"] * 2,
    ...     "ndcg@10": [0.2, 0.4, 0.5, 0.1, 0.5, 0.6, 0.6, 0.4],
    ... })
    >>> row = compare(pq).filter(pl.col("system") == "dense").row(0, named=True)
    >>> round(row["delta"], 3), row["wins"], round(row["p_value"], 4)
    (0.225, 4, 0.0182)

    Runs and qrels directly (file paths work the same way):

    >>> qrels = pl.DataFrame({"qid": ["q1", "q1", "q2", "q2"], "docid": ["a", "b"] * 2,
    ...                       "rel": [1, 0, 0, 1]})
    >>> runs = {name: pl.DataFrame({"qid": ["q1", "q1", "q2", "q2"],
    ...                             "docid": ["a", "b"] * 2, "score": scores})
    ...         for name, scores in (("x", [2.0, 1.0, 2.0, 1.0]), ("y", [2.0, 1.0, 1.0, 2.0]))}
    >>> compare(runs, qrels=qrels, measures=["P@1"])["mean"].to_list()
    [0.5, 1.0]
    """
    fn = "compare"
    test = validation.choice(fn, "test", test, ("t", "randomization", "bootstrap"))
    if correction is not None:
        correction = validation.choice(fn, "correction", correction, ("holm", "bonferroni"))
    missing = validation.choice(fn, "missing", missing, ("error", "intersect", "zero"))
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(f"{fn}: alpha must be a number in (0, 1), got {alpha!r}")
    n_resamples = validation.integer(fn, "n_resamples", n_resamples, 1)

    np = _require("numpy")
    stats = _require("scipy.stats")

    per_query, measures = _per_query_table(data, qrels, measures, system, all_queries)
    names = _measure_columns(per_query, system, query, measures)
    systems, matrices, query_ids = _pivot(per_query, system, query, names)
    if baseline is None:
        baseline = systems[0]
    if baseline not in systems:
        raise InputError(
            f"{fn}: baseline {baseline!r} is not a system of column {system!r}; "
            f"systems: {', '.join(map(repr, systems))}"
        )
    base = systems.index(baseline)
    others = [i for i in range(len(systems)) if i != base]

    rng = np.random.default_rng(seed)
    bar = _Progress(
        total=len(names) * n_resamples * (2 if test == "randomization" else 1),
        desc=f"compare ({test})",
        mode=progress,
    )
    results: dict[tuple[int, str], dict[str, Any]] = {}
    try:
        for name in names:
            x = _apply_missing(matrices[name], missing, systems, query_ids, name)
            results.update(_measure_stats(
                np, stats, x, name, base, others, test, alpha, n_resamples, rng, bar,
            ))
    finally:
        bar.close()

    tested = [key for key in results if results[key].get("p_value") is not None]
    adjusted = adjust_pvalues([results[key]["p_value"] for key in tested], correction)
    for key, p_adj in zip(tested, adjusted, strict=True):
        results[key]["p_adjusted"] = p_adj
        results[key]["significant"] = p_adj <= alpha

    rows = [
        {"system": systems[s], "measure": name, "baseline": baseline, **results[(s, name)]}
        for s in range(len(systems))
        for name in names
    ]
    schema = {c: _DTYPES.get(c, pl.Float64) for c in COLUMNS}
    return pl.DataFrame(rows, schema=schema)


_DTYPES: dict[str, pl.DataType] = {
    "system": pl.String(), "measure": pl.String(), "baseline": pl.String(),
    "n_queries": pl.Int64(), "significant": pl.Boolean(),
    "wins": pl.Int64(), "ties": pl.Int64(), "losses": pl.Int64(),
}


def adjust_pvalues(p_values: Sequence[float], correction: Correction | None) -> list[float]:
    r"""Adjust a family of ``m`` p-values for multiple comparisons.

    Bonferroni: :math:`\tilde p_i = \min(1, m\,p_i)`. Holm (step-down): with the p-values
    sorted ascending, :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1)\,p_{(j)})`.
    ``None`` returns the p-values unchanged. Rejecting :math:`\tilde p \le \alpha` controls
    the family-wise error rate at :math:`\alpha` for both.

    Parameters
    ----------
    p_values
        The family's p-values, in any order.
    correction
        ``"holm"``, ``"bonferroni"`` or None (no adjustment).

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm")
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bonferroni")
    [0.03, 0.12, 0.09]
    """
    if correction is not None:
        correction = validation.choice(
            "adjust_pvalues", "correction", correction, ("holm", "bonferroni")
        )
    p = [float(v) for v in p_values]
    for v in p:
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"adjust_pvalues: p-values must lie in [0, 1], got {v!r}")
    m = len(p)
    if correction is None:
        return p
    if correction == "bonferroni":
        return [min(1.0, m * v) for v in p]
    adjusted = [0.0] * m
    running = 0.0
    for j, i in enumerate(sorted(range(m), key=lambda i: p[i])):
        running = max(running, min(1.0, (m - j) * p[i]))
        adjusted[i] = running
    return adjusted


# --------------------------------------------------------------------------- input


_EXPECTED = ("compare: expected a per-query polars DataFrame (or pandas DataFrame or pyarrow "
             "Table), a list of run files or a mapping system name -> run frame")


def _as_polars(fn: str, name: str, obj: object) -> object:
    """A pandas DataFrame or pyarrow Table as a Polars DataFrame; anything else as it is."""
    converted = from_foreign(fn, name, obj)
    return obj if converted is None else converted


def _per_query_table(
    data: object, qrels: object, measures: Sequence[str] | str | None, system: str,
    all_queries: bool = True,
) -> tuple[pl.DataFrame, Sequence[str] | str | None]:
    """The per-query table to compare and the measure columns to take from it: ``data``
    itself, or the table evaluated from runs and qrels (then every measure column)."""
    fn = "compare"
    data = _as_polars(fn, "per-query table", data)
    if isinstance(data, Mapping):
        data = {k: _as_polars(fn, f"run {k!r}", v) for k, v in data.items()}
    qrels = _as_polars(fn, "qrels", qrels)
    if isinstance(data, pl.DataFrame):
        if qrels is not None:
            raise InputError(
                f"{fn}: qrels is given with a per-query table; pass the runs (file paths, "
                "or a mapping system name -> run frame) to evaluate them on the qrels, or "
                "the per-query table without qrels"
            )
        return data, measures
    if isinstance(data, (str, bytes, os.PathLike)):
        raise TypeError(
            f"{fn}: got a single path {os.fsdecode(data)!r}; pass a list of run files "
            "(at least two) or a per-query DataFrame"
        )
    if isinstance(data, Mapping):
        bad = [k for k, v in data.items() if not isinstance(v, pl.DataFrame)]
        if bad:
            raise TypeError(f"{fn}: runs must map system names to polars DataFrames (or "
                            "pandas DataFrames or pyarrow Tables); "
                            f"{bad[0]!r} maps to {type(data[bad[0]]).__name__}")
    elif isinstance(data, Sequence):
        for item in data:
            if isinstance(item, pl.DataFrame):
                raise TypeError(
                    f"{fn}: run frames need names; pass a mapping system name -> run "
                    "frame instead of a list of frames"
                )
            if not isinstance(item, (str, os.PathLike)):
                raise TypeError(f"{_EXPECTED}, got a {type(data).__name__} holding "
                                f"{type(item).__name__}")
    else:
        raise TypeError(f"{_EXPECTED}, got {type(data).__name__}")
    if qrels is None:
        raise InputError(f"{fn}: runs need qrels to be evaluated: pass qrels=<frame or path>")
    if measures is None or not (measures if isinstance(measures, str) else list(measures)):
        raise InputError(
            f"{fn}: runs need measures to evaluate: pass measures=[...], e.g. ['ndcg@10']"
        )
    if not isinstance(qrels, (pl.DataFrame, str, os.PathLike)):
        raise TypeError(f"{fn}: qrels must be a polars DataFrame or a file path (or a "
                        "pandas DataFrame or pyarrow Table), "
                        f"got {type(qrels).__name__}")
    table = evaluate_runs(data, qrels, measures, system=system, all_queries=all_queries)
    return table, None


def _measure_columns(
    df: pl.DataFrame, system: str, query: str, measures: Sequence[str] | str | None
) -> list[str]:
    fn = "compare"
    if not isinstance(df, pl.DataFrame):
        raise TypeError(
            f"{fn}: the per-query table must be a polars DataFrame, got {type(df).__name__}"
        )
    for role, name in (("system", system), ("query", query)):
        if name not in df.columns:
            raise InputError(
                f"{fn}: {role} column {name!r} not found; columns: {', '.join(df.columns)}"
            )
    if measures is None:
        names = [c for c, t in df.schema.items()
                 if c not in (system, query) and t.is_numeric()]
        if not names:
            raise MeasureError(
                f"{fn}: no numeric measure column besides {system!r} and {query!r}; "
                f"columns: {', '.join(df.columns)}"
            )
        return names
    names = [measures] if isinstance(measures, str) else list(measures)
    if not names:
        raise MeasureError(f"{fn}: measures is empty; give at least one measure column")
    if len(set(names)) != len(names):
        raise MeasureError(f"{fn}: measures lists a column twice: {names}")
    for name in names:
        if name not in df.columns or name in (system, query):
            raise MeasureError(
                f"{fn}: measure column {name!r} not found; columns: {', '.join(df.columns)}"
            )
        if not df.schema[name].is_numeric():
            raise MeasureError(
                f"{fn}: measure column {name!r} has type {df.schema[name]}, not numeric"
            )
    return names


def _pivot(
    df: pl.DataFrame, system: str, query: str, names: list[str]
) -> tuple[list[str], dict[str, FloatArray], list[Any]]:
    """Systems in order of appearance, one (queries x systems) matrix per measure with NaN
    where a (system, query) row is absent or its value NULL, and the query ids."""
    np = _require("numpy")
    if df[system].null_count():
        raise InputError(f"compare: system column {system!r} has NULL values")
    if df[query].null_count():
        raise InputError(f"compare: query column {query!r} has NULL values")
    systems = [str(s) for s in df[system].cast(pl.String).unique(maintain_order=True)]
    if len(systems) < 2:
        found = repr(systems[0]) if systems else "none"
        raise InputError(
            f"compare: need at least two systems in column {system!r} to compare, "
            f"found {found}"
        )
    dup = df.group_by(system, query, maintain_order=True).len().filter(pl.col("len") > 1)
    if dup.height:
        first = dup.row(0, named=True)
        raise InputError(
            f"compare: {dup.height} duplicate (system, query) pair(s), e.g. system "
            f"{first[system]!r} query {first[query]!r} appears {first['len']} times"
        )
    query_ids = df[query].unique(maintain_order=True).to_list()
    sys_idx = df[system].cast(pl.String).replace_strict(
        systems, list(range(len(systems))), return_dtype=pl.Int64
    ).to_numpy()
    q_idx = df[query].replace_strict(
        query_ids, list(range(len(query_ids))), return_dtype=pl.Int64
    ).to_numpy()
    matrices: dict[str, FloatArray] = {}
    for name in names:
        infinite = df[name].cast(pl.Float64).is_infinite()
        if infinite.any():
            row = int(infinite.arg_max() or 0)
            raise InputError(
                f"compare: measure {name!r} is {df[name][row]} for system {df[system][row]!r} "
                f"query {df[query][row]!r}; per-query values must be finite numbers"
            )
        values = df[name].cast(pl.Float64).fill_nan(None).to_numpy()
        x = np.full((len(query_ids), len(systems)), np.nan)
        x[q_idx, sys_idx] = values
        matrices[name] = x
    return systems, matrices, query_ids


def _apply_missing(
    x: FloatArray, missing: str, systems: list[str], query_ids: list[Any], name: str
) -> FloatArray:
    np = _require("numpy")
    absent = np.isnan(x)
    if not absent.any():
        return x
    if missing == "zero":
        filled: FloatArray = np.where(absent, 0.0, x)
        return filled
    if missing == "intersect":
        kept: FloatArray = x[~absent.any(axis=1)]
        if kept.shape[0] == 0:
            raise InputError(
                f"compare: no query has a value of measure {name!r} for every system"
            )
        return kept
    problems = []
    for s, label in enumerate(systems):
        rows = np.flatnonzero(absent[:, s])
        if rows.size:
            shown = ", ".join(repr(query_ids[r]) for r in rows[:10])
            more = f" and {rows.size - 10} more" if rows.size > 10 else ""
            problems.append(f"system {label!r} lacks {rows.size} query(ies): {shown}{more}")
    raise MissingQueriesError(
        f"compare: measure {name!r} is missing (no row, NULL or NaN) for some queries: "
        + "; ".join(problems))


# --------------------------------------------------------------------------- statistics


def _measure_stats(
    np: Any,
    stats: Any,
    x: FloatArray,
    name: str,
    base: int,
    others: list[int],
    test: str,
    alpha: float,
    n_resamples: int,
    rng: Any,
    bar: _Progress,
) -> dict[tuple[int, str], dict[str, Any]]:
    n, n_sys = x.shape
    d = x[:, others] - x[:, [base]]  # queries x (systems - 1)
    lo_q, hi_q = alpha / 2, 1 - alpha / 2

    boot = _bootstrap_means(np, x, n_resamples, rng, bar)  # resamples x systems
    boot_ci = np.quantile(boot, [lo_q, hi_q], axis=0)
    boot_d = boot[:, others] - boot[:, [base]]
    boot_d_ci = np.quantile(boot_d, [lo_q, hi_q], axis=0)

    mean = x.mean(axis=0)
    d_mean = d.mean(axis=0)
    if n >= 2:
        t_crit = float(stats.t.ppf(hi_q, n - 1))
        half = t_crit * x.std(axis=0, ddof=1) / math.sqrt(n)
        # A spread within rounding noise of the values is none: a constant difference
        # computed in floating point takes the zero-variance branch, not t = 1e15.
        d_sd = d.std(axis=0, ddof=1)
        d_sd = np.where(d_sd <= _noise(np, x), 0.0, d_sd)
        d_half = t_crit * d_sd / math.sqrt(n)
    else:
        half = np.full(n_sys, np.nan)
        d_sd = np.full(len(others), np.nan)
        d_half = np.full(len(others), np.nan)

    if n < 2:
        p = np.full(len(others), np.nan)
    elif test == "t":
        p = _t_pvalues(np, stats, d_mean, d_sd, n, _noise(np, x))
    elif test == "randomization":
        p = _randomization_pvalues(np, d, n_resamples, rng, bar)
    else:
        shifted = np.abs(boot_d - d_mean)
        exceed = (shifted >= np.abs(d_mean) - _tolerance(np, d)).sum(axis=0)
        p = (1 + exceed) / (1 + n_resamples)

    out: dict[tuple[int, str], dict[str, Any]] = {}
    for s in range(n_sys):
        row: dict[str, Any] = {
            "n_queries": n,
            "mean": float(mean[s]),
            "ci_low": _num(mean[s] - half[s]),
            "ci_high": _num(mean[s] + half[s]),
            "boot_ci_low": float(boot_ci[0, s]),
            "boot_ci_high": float(boot_ci[1, s]),
        }
        if s != base:
            j = others.index(s)
            diffs = d[:, j]
            row.update({
                "delta": float(d_mean[j]),
                "delta_ci_low": _num(d_mean[j] - d_half[j]),
                "delta_ci_high": _num(d_mean[j] + d_half[j]),
                "delta_boot_ci_low": float(boot_d_ci[0, j]),
                "delta_boot_ci_high": float(boot_d_ci[1, j]),
                "p_value": _num(p[j]),
                "wins": int((diffs > 0).sum()),
                "ties": int((diffs == 0).sum()),
                "losses": int((diffs < 0).sum()),
                "effect_size": _num(d_mean[j] / d_sd[j]) if d_sd[j] > 0 else None,
            })
        out[(s, name)] = row
    return out


def _num(value: Any) -> float | None:
    v = float(value)
    return None if math.isnan(v) else v


def _tolerance(np: Any, d: FloatArray) -> FloatArray:
    """Slack for ``>=`` between means computed in different summation orders, so that a
    resample equal to the observed statistic in exact arithmetic counts as reaching it."""
    tol: FloatArray = 1e-12 * (np.abs(d).mean(axis=0) + 1e-300)
    return tol


def _noise(np: Any, x: FloatArray) -> float:
    """What rounding can leave of zero in means and spreads of ``x``: 1e-12 of its
    largest magnitude."""
    return 1e-12 * float(np.abs(x).max()) if x.size else 0.0


def _t_pvalues(np: Any, stats: Any, d_mean: FloatArray, d_sd: FloatArray, n: int,
               noise: float) -> FloatArray:
    p: FloatArray = np.where(np.abs(d_mean) <= noise, 1.0, 0.0)
    spread = d_sd > 0
    if spread.any():
        t = d_mean[spread] / (d_sd[spread] / math.sqrt(n))
        p[spread] = 2.0 * stats.t.sf(np.abs(t), n - 1)
    return p


def _chunk_rows(n: int) -> int:
    return max(1, _CHUNK_ELEMENTS // max(n, 1))


def _bootstrap_means(
    np: Any, x: FloatArray, n_resamples: int, rng: Any, bar: _Progress
) -> FloatArray:
    """Means of every column of ``x`` over ``n_resamples`` resamples of its rows with
    replacement: each chunk draws a (resamples x queries) index matrix, shared by all
    columns, and averages each column gathered through it."""
    n = x.shape[0]
    columns = np.ascontiguousarray(x.T)
    out: FloatArray = np.empty((n_resamples, x.shape[1]))
    step = _chunk_rows(n)
    for start in range(0, n_resamples, step):
        stop = min(n_resamples, start + step)
        idx = rng.integers(0, n, size=(stop - start, n))
        for s, column in enumerate(columns):
            out[start:stop, s] = column[idx].mean(axis=1)
        bar.update(stop - start)
    return out


def _randomization_pvalues(
    np: Any, d: FloatArray, n_resamples: int, rng: Any, bar: _Progress
) -> FloatArray:
    """Two-sided paired sign-flip test for every column of ``d`` (queries x tests)."""
    n = d.shape[0]
    observed = np.abs(d.sum(axis=0))
    threshold = observed - n * _tolerance(np, d)
    exact = n < 63 and (1 << n) <= n_resamples
    total = (1 << n) if exact else n_resamples
    exceed = np.zeros(d.shape[1], dtype=np.int64)
    step = _chunk_rows(n)
    bits = np.arange(n, dtype=np.int64)
    for start in range(0, total, step):
        stop = min(total, start + step)
        if exact:
            codes = np.arange(start, stop, dtype=np.int64)
            signs = ((codes[:, None] >> bits) & 1) * -2.0 + 1.0
        else:
            signs = rng.integers(0, 2, size=(stop - start, n)) * -2.0 + 1.0
        exceed += (np.abs(signs @ d) >= threshold).sum(axis=0)
        bar.update(round((stop - start) * n_resamples / total))
    if exact:
        p: FloatArray = exceed / total
    else:
        p = (1 + exceed) / (1 + n_resamples)
    return p


# --------------------------------------------------------------------------- progress


class _Progress:
    """A progress bar on stderr: tqdm when importable, else a plain text bar.

    ``mode`` True shows it from the start, False never, None only on a terminal and
    once the work has lasted :data:`_PROGRESS_DELAY` seconds.
    """

    def __init__(self, total: int, desc: str, mode: bool | None) -> None:
        self.total = max(total, 1)
        self.desc = desc
        self.done = 0
        self.start = time.monotonic()
        self.delay = 0.0 if mode else _PROGRESS_DELAY
        self.enabled = mode is True or (mode is None and sys.stderr.isatty())
        self.shown = False
        self._tqdm: Any = None
        if self.enabled:
            try:
                tqdm_module: Any = importlib.import_module("tqdm")
            except ImportError:
                return
            self._tqdm = tqdm_module.tqdm(
                total=self.total, desc=desc, delay=self.delay, file=sys.stderr,
                unit="resample", unit_scale=True, leave=False,
            )

    def update(self, n: int) -> None:
        self.done = min(self.total, self.done + n)
        if not self.enabled:
            return
        if self._tqdm is not None:
            self._tqdm.update(n)
            return
        if time.monotonic() - self.start >= self.delay:
            self.shown = True
            width = 30
            filled = width * self.done // self.total
            sys.stderr.write(
                f"\r{self.desc} [{'#' * filled}{'.' * (width - filled)}] "
                f"{100 * self.done // self.total:3d}%"
            )
            sys.stderr.flush()

    def close(self) -> None:
        if self._tqdm is not None:
            self._tqdm.close()
        elif self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()

"""evaluate() and summarize(): measure strings over a judged table, in one pass.

``evaluate`` parses measure strings (see :mod:`rankframe.measures`), checks the judged
table, drops the rows no measure reads, and hands the rest to a face
(:mod:`rankframe.faces`: Polars or DuckDB), which runs every measure in one grouped query.
``summarize`` reduces the per-query table to one row (per ``by`` group) with the
aggregate each measure calls for: the mean, the sum for ``num_*`` counts, the geometric
mean ``exp(mean(ln(max(x, 1e-5))))`` for ``gm_*`` measures.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from rankframe import faces, run_metrics
from rankframe.averaging import NoRelevant, answered_queries, no_relevant_rows
from rankframe.beyond.catalog import Catalog, reads_items, with_items
from rankframe.errors import InputError, MeasureError
from rankframe.faces.base import parse_for, preparing
from rankframe.faces.polars.expr import divide, sequential_sum
from rankframe.frames import Eager, eager, graded_qrels, run_and_qrels, to_polars
from rankframe.measures import GEOMETRIC_MEAN_FLOOR, Measure, parse
from rankframe.run_metrics import run_summary
from rankframe.table.blocks import first_of_query
from rankframe.table.checks import Checked, check_frame, check_judged
from rankframe.table.inputs import schema_of
from rankframe.table.judge import judge, judge_positive_rows, positive_rows
from rankframe.validation import MAX_GRADE

JudgedTable = pl.DataFrame | pl.LazyFrame


def _keys(query: str | Sequence[str], fn: str = "evaluate", name: str = "query") -> list[str]:
    keys = [query] if isinstance(query, str) else list(query)
    if not keys or not all(isinstance(k, str) for k in keys):
        raise InputError(f"{fn}: {name} must name one column or several, got {query!r}")
    return keys


def _distinct(fn: str, keys: list[str], rel: str, rank: str) -> None:
    """Raise unless the query columns, ``rel`` and ``rank`` are different columns."""
    roles = [*keys, rel, rank]
    if len(set(roles)) != len(roles):
        raise InputError(f"{fn}: the query column(s) {keys}, rel={rel!r} and rank={rank!r} "
                         f"must be different columns")


def _exponential(parsed: list[Measure]) -> float | None:
    """The largest grade the measures can take: :data:`MAX_GRADE` when one computes
    ``2**rel`` (exponential gain, ERR), else None."""
    if any(m.values.get("gain") == "exponential" or m.metric.name == "err" for m in parsed):
        return MAX_GRADE
    return None


def _require_read(fn: str, judged: JudgedTable, parsed: list[Measure],
                  columns: dict[str, str]) -> None:
    """Raise if a measure reads a column beyond query, rel and rank (the tie columns) that
    the table lacks."""
    have = schema_of(judged).names()
    for m in parsed:
        for c in m.metric.columns:
            if c not in ("rel", "rank") and columns[c] not in have:
                raise InputError(
                    f"{fn}: measure {m.label!r} reads column {columns[c]!r}, which the table "
                    f"lacks; judge(..., ties='average') adds the tie columns "
                    f"(tie_first, tie_size)"
                )


def evaluate(
    judged: JudgedTable | Eager,
    measures: str | Sequence[str],
    *,
    query: str | Sequence[str] = "qid",
    rel: str = "rel",
    rank: str = "rank",
    engine: str = "polars",
    threshold: float = 1,
    con: Any = None,
    catalog: Catalog | None = None,
) -> pl.DataFrame:
    """Per-query values of several measures over a judged long table, in one pass.

    Parameters
    ----------
    judged
        The judged long table (docs/semantics.md#the-judged-long-table), e.g. from
        :func:`rankframe.judge`: a Polars DataFrame or LazyFrame, a pandas DataFrame or a
        pyarrow Table (converted to Polars).
    measures
        Measure strings such as ``"ndcg@10"``, ``"P@10"``, ``"map"``, ``"mrr@10"`` or
        trec_eval names (``"ndcg_cut_10"``, ``"P_10"``); each becomes a column so named.
    query
        Column(s) identifying a query, e.g. ``"qid"`` or ``["system", "qid"]``.
    rel, rank
        Names of the grade and rank columns. Grades: NULL is unjudged, negative is pooled
        but unjudged. Ranks: 1 is the top, unique within a query, NULL is judged but not
        retrieved; the table is checked first, so 0-based positions are an ``InputError``
        (shift them by one).
    engine
        The face that computes: ``"polars"`` (a LazyFrame is collected on the streaming
        engine) or ``"duckdb"`` (any face of ``rankframe.faces.ENGINES``); all give the
        same numbers.
    threshold
        Relevance level: rel >= threshold is relevant (trec_eval ``-l``).
    con
        DuckDB connection to use with ``engine="duckdb"`` (the macros are loaded if absent).
    catalog
        The items, training interactions and fairness target
        (:class:`rankframe.Catalog`) that beyond-accuracy measures (``"coverage@10"``,
        ``"novelty@10"``, ``"ild_category@10"`` ...) read what the table lacks from: joined
        once (docs/semantics.md#the-catalog-inputs). A run measure (coverage, entropy, gini)
        gets its run's value on each query's row: the run is the query key's leading
        columns, or the whole table for one query column.

    Returns
    -------
    One row per query of ``judged``, sorted by the query columns; Float64 columns, Int64
    for ``num_*`` counts.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> judged = pl.DataFrame({"qid": ["a", "a", "b"], "rank": [1, 2, 1], "rel": [0, 1, 1]})
    >>> rf.evaluate(judged, ["P@1", "mrr"]).rows()
    [('a', 0.0, 0.5), ('b', 1.0, 1.0)]
    """
    judged = to_polars("evaluate", "judged table", judged)
    keys = _keys(query)
    _distinct("evaluate", keys, rel, rank)
    face, parsed = _parsed("evaluate", measures, keys, engine, threshold)
    columns = _COLUMNS | {"rel": rel, "rank": rank}
    if catalog is not None or reads_items(parsed):  # beyond accuracy: item inputs, joined
        judged, parsed, columns = with_items("evaluate", judged, parsed, keys, columns, catalog)
    _require_read("evaluate", judged, parsed, columns)
    max_grade = _exponential(parsed)
    # Only the columns the measures read go further.
    read = (columns[c] for m in parsed for c in m.metric.columns)
    needed = list(dict.fromkeys([*keys, *read]))
    checked = Checked(grouped=False, new_key=None)
    with preparing(face, parsed, con):
        if isinstance(judged, pl.DataFrame):
            checked = check_frame(judged, keys, rel, rank, max_grade)
            judged = judged[needed]  # no copy (select would plan a query)
        else:
            judged = check_judged(judged, query=keys, rel=rel, rank=rank,
                                  max_grade=max_grade).select(needed)
        grouped = checked.grouped
        # The rows that keep every query present when rows are cut (by grade or by rank).
        kept = _kept_besides_positive(judged, keys, checked)
        if _positive_rows_suffice(parsed):
            judged = positive_rows(judged, keys, rel, kept)
            kept = None
            if (isinstance(judged, pl.DataFrame) and not grouped and len(keys) == 1
                    and judged.get_column(keys[0]).null_count() == 0):
                # Few rows are left: a stable sort lets the group-by take its sorted path (judge's
                # layout has each query's rows in two blocks).
                judged, grouped = judged.sort(keys, maintain_order=True), True
    if grouped and len(keys) == 1 and isinstance(judged, pl.DataFrame):
        # Proven sorted by the query: the flag lets the group-by take its sorted path.
        judged = judged.with_columns(pl.col(keys[0]).set_sorted())
    return run_metrics.evaluate(face, judged, parsed, keys, columns, con, kept=kept)


_COLUMNS = {"rel": "rel", "rank": "rank", "tie_first": "tie_first", "tie_size": "tie_size"}

#: The positive-rows cut keeps the first row of each run of equal query keys while there
#: are at most one run per this many rows (judge's table: two runs per query); with more
#: (rows in any order), the first row of each query, found by hashing the key.
_ROWS_PER_RUN = 8


def _kept_besides_positive(judged: pl.DataFrame | pl.LazyFrame, keys: list[str],
                           checked: Checked) -> pl.Series | pl.Expr | None:
    """The rows :func:`positive_rows` keeps besides those with a grade > 0, so that every
    query keeps a row: the first of each run of equal keys when the table is grouped by
    query or the runs are few (``new_key`` marks them; None on a LazyFrame: found there),
    else one row of each query (the check found them, or :func:`first_of_query`)."""
    new_key = checked.new_key
    if isinstance(judged, pl.LazyFrame) or checked.grouped:
        return new_key
    if new_key is not None and new_key.sum() * _ROWS_PER_RUN <= new_key.len():
        return new_key
    if checked.one_per_query is not None:
        return checked.one_per_query
    return first_of_query(keys)


def _engine(fn: str, name: str) -> faces.Face:
    """The engine face called ``name`` (one of ``rankframe.faces.ENGINES``)."""
    if name not in faces.ENGINES:
        *others, last = [repr(e) for e in faces.ENGINES]
        choices = f"{', '.join(others)} or {last}" if others else last
        raise ValueError(f"{fn}: engine must be {choices}, got {name!r}")
    return faces.get(name)


def _parsed(fn: str, measures: str | Sequence[str], keys: list[str], engine: str,
            threshold: float) -> tuple[faces.Face, list[Measure]]:
    """The engine face and the measures parsed, after checking that the engine has them all
    and that no label is a key column."""
    face = _engine(fn, engine)
    parsed = parse_for(face, measures, keys, threshold)
    return face, parsed


def _positive_rows_suffice(parsed: list[Measure]) -> bool:
    """True if every measure reads only the rows with a grade > 0 (see the registry)."""
    return all(m.metric.reads_positive_rows_only(m.values) for m in parsed)


def evaluate_run(
    run: Eager | pl.LazyFrame,
    qrels: Eager | pl.LazyFrame,
    measures: str | Sequence[str],
    *,
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    rel: str | None = "rel",
    depth: int | None = None,
    engine: str = "polars",
    threshold: float = 1,
    con: Any = None,
    judged_only: bool = False,
    catalog: Catalog | None = None,
    all_queries: bool = True,
    no_relevant: NoRelevant = "keep",
) -> pl.DataFrame:
    """Per-query values of several measures for a run against its qrels: the table
    ``evaluate(judge(run, qrels, depth=depth, judged_only=judged_only), measures, ...)``
    returns, with the same checks and errors, in one call.

    When every measure reads only the rows with a grade > 0 (nDCG, AP, RR, P@k, recall,
    R-precision and more; each metric declares it in the registry) and both inputs are
    DataFrames, the judged table is never built: ``judge``'s blocks keep only those rows,
    plus one row per query, and they are evaluated without checking again a table that was
    just made valid. Otherwise this is ``evaluate(judge(...))``.

    ``ties="average"`` measures need ``evaluate(judge(..., ties="average"), ...)``.

    Parameters
    ----------
    run, qrels
        The run (``query``, ``doc``, ``score``) and the qrels (``query``, ``doc``, ``rel``),
        Polars DataFrames or LazyFrames, pandas DataFrames or pyarrow Tables, or the peers'
        forms (a dict ``{qid: {docid: score}}``, ranx ``Run``/``Qrels``, ir_measures
        namedtuples, TorchMetrics-style ``(preds, indexes)`` / ``(target, indexes)``), as
        for :func:`rankframe.judge`.
    measures
        Measure strings, as for :func:`evaluate`.
    query, doc, score
        Column names; default ``qid``, ``docid``, ``score``.
    rel
        The qrels' grade column, default ``rel``; ``None`` for qrels without grades
        (implicit feedback: every listed pair relevant, grade 1), as for
        :func:`rankframe.judge`.
    depth
        Keep the top ``depth`` ranks of each query (trec_eval ``-M``); None: all.
    engine, threshold, con
        As for :func:`evaluate`.
    judged_only
        Rank only the judged documents (trec_eval ``-J``), as for :func:`rankframe.judge`.
    catalog
        As for :func:`evaluate`; its item and user columns default to ``doc`` and ``query``.
    all_queries
        True (default): a row for every qrels query, those the run did not answer scoring
        0 (trec_eval ``-c``, ir_measures, ranx); False: the qrels queries the run answered
        (trec_eval without ``-c``, pytrec_eval). The same parameter and default as
        :func:`rankframe.evaluate_runs` (:mod:`rankframe.averaging`).
    no_relevant
        A query with no relevant row: ``"keep"`` its values (default), ``"neg"`` 0,
        ``"pos"`` 1, ``"skip"`` left out, ``"error"`` refused (TorchMetrics'
        ``empty_target_action``, whose default is ``"neg"``).

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> run = pl.DataFrame({"qid": ["a", "a", "b"], "docid": ["x", "y", "x"],
    ...                     "score": [2.0, 1.0, 1.0]})
    >>> qrels = pl.DataFrame({"qid": ["a", "b"], "docid": ["y", "z"], "rel": [1, 2]})
    >>> rf.evaluate_run(run, qrels, ["P@1", "mrr"]).rows()
    [('a', 0.0, 0.5), ('b', 0.0, 0.0)]
    """
    fn = "evaluate_run"
    run, qrels = run_and_qrels(fn, run, qrels, query=query, doc=doc, score=score, rel=rel)
    qrels, rel = graded_qrels(fn, qrels, rel)
    face, parsed = _parsed(fn, measures, [query], engine, threshold)
    reads_ties = any(c.startswith("tie_") for m in parsed for c in m.metric.columns)
    if catalog is not None or reads_items(parsed):
        catalog = (catalog or Catalog()).with_defaults(doc, query)
    if (isinstance(run, pl.LazyFrame) or isinstance(qrels, pl.LazyFrame) or reads_ties
            or not _positive_rows_suffice(parsed)):
        judged = judge(run, qrels, query=query, doc=doc, score=score, rel=rel, depth=depth,
                       judged_only=judged_only)
        per_query = evaluate(judged, measures, query=query, rel=rel, engine=engine,
                             threshold=threshold, con=con, catalog=catalog)
        return _queries(fn, per_query, run, qrels, query, rel, threshold, all_queries,
                        no_relevant)
    max_grade = _exponential(parsed)
    if max_grade is not None and isinstance(qrels, pl.DataFrame) and rel in qrels.columns:
        _grades_at_most(fn, qrels, query, rel, max_grade)
    with preparing(face, parsed, con):
        rows = judge_positive_rows(fn, run, qrels, query=query, doc=doc, score=score, rel=rel,
                                   depth=depth, judged_only=judged_only)
    return _queries(fn, face.to_polars(face.evaluate(rows, parsed, [query],
                                                     _COLUMNS | {"rel": rel}, connection=con)),
                    run, qrels, query, rel, threshold, all_queries, no_relevant)


def _queries(fn: str, per_query: pl.DataFrame, run: pl.DataFrame | pl.LazyFrame,
             qrels: pl.DataFrame | pl.LazyFrame, query: str, rel: str, threshold: float,
             all_queries: bool, no_relevant: str) -> pl.DataFrame:
    """evaluate_run's table on the queries ``all_queries`` and ``no_relevant`` keep
    (:mod:`rankframe.averaging`)."""
    if not all_queries:
        per_query = answered_queries(per_query, run, query)
    return no_relevant_rows(fn, per_query, qrels, query=query, rel=rel, threshold=threshold,
                            action=no_relevant)


def _grades_at_most(fn: str, qrels: pl.DataFrame, query: str, rel: str,
                    max_grade: float) -> None:
    """Raise for the first qrels row with a grade above ``max_grade``."""
    high = qrels.get_column(rel) > max_grade
    if high.any():
        row = int(high.arg_max() or 0)
        raise InputError(
            f"{fn}: query {qrels[query][row]!r} has grade {qrels[rel][row]} in {rel!r} at "
            f"row {row} (0-based) of the qrels; the exponential gain 2**rel - 1 needs grades "
            f"<= {max_grade:g}, so that its sums stay finite"
        )


def _aggregate(measure: Measure, dtype: pl.DataType) -> pl.Expr:
    column = pl.col(measure.label)
    if measure.summary == "sum":
        # Summed in 128 bits: the sum of 64-bit counts may not fit them (checked by the
        # caller, _fits_int64), and an integer column must not wrap around.
        return column.cast(pl.Int128).sum() if dtype.is_integer() else column.sum()
    if measure.summary == "none":  # a string per query (relstring): no summary, as trec_eval
        return pl.lit(None, dtype=pl.String)
    if measure.summary == "run":  # each query repeats its run's value: that value, once
        return run_summary(column)
    # As trec_eval: the values added in query order, then one division by their number
    # (docs/semantics.md#exactness); Polars' mean adds pairwise. There are no NULLs
    # (_refuse_nulls), but where the metric is undefined (its declared defined_mean).
    values = column.cast(pl.Float64)
    if measure.summary == "defined_mean":
        values = values.drop_nulls()
    if measure.summary == "gmean":
        values = values.clip(lower_bound=GEOMETRIC_MEAN_FLOOR).log()
    n = values.len()
    mean = pl.when(n > 0).then(divide(sequential_sum(values), n))
    return mean.exp() if measure.summary == "gmean" else mean


def _refuse_nulls(per_query: pl.DataFrame, measures: list[Measure], keys: list[str]) -> None:
    """Raise for a NULL value of a summarised measure, naming the measure and the query: a
    mean over the other queries would silently be over fewer queries than the table has. A
    ``defined_mean`` measure (declared so: ``Metric.aggregate``) leaves its NULLs out."""
    labels = [m.label for m in measures if m.summary not in ("none", "defined_mean")]
    counts = per_query.select(pl.col(labels).null_count()).row(0) if labels else ()
    for label, nulls in zip(labels, counts, strict=True):
        if not nulls:
            continue
        where = "a row"
        if keys:
            row = per_query.filter(pl.col(label).is_null()).select(keys).row(0)
            where = ", ".join(f"{k}={v!r}" for k, v in zip(keys, row, strict=True))
        more = f" (and {nulls - 1} more)" if nulls > 1 else ""
        raise InputError(
            f"summarize: {label!r} is NULL for {where}{more}; a summary over the "
            f"other rows would leave it out silently: drop those rows (.drop_nulls({label!r})) "
            f"or give them a value (.fill_null(0)) first")


def _fits_int64(summary: pl.DataFrame, measures: list[Measure], groups: list[str]
                ) -> pl.DataFrame:
    """``summary`` with its 128-bit sums as Int64, or an InputError naming the count (and
    the ``groups`` row) whose sum is beyond a 64-bit integer."""
    for m in measures:
        if m.summary != "sum" or summary.schema[m.label] != pl.Int128:
            continue
        column = pl.col(m.label)
        beyond = summary.filter((column < -(2**63)) | (column > 2**63 - 1))
        if beyond.height:
            group = "".join(f", {g}={beyond[g][0]!r}" for g in groups)
            raise InputError(f"summarize: the sum of {m.label!r} over the queries"
                             f"{group} ({beyond[m.label][0]}) does not fit a 64-bit integer")
        summary = summary.with_columns(column.cast(pl.Int64))
    return summary


def _summary_measure(label: str, guessed: bool) -> Measure:
    """The measure a column of a per-query table holds; a column taken for one by default
    that is not one gets a hint."""
    try:
        return parse(label)
    except MeasureError:
        if not guessed:
            raise
        raise MeasureError(
            f"summarize: column {label!r} is not a measure; name it in query= or by= "
            f"(e.g. by={label!r}), or list the measures to summarize"
        ) from None


def summarize(
    per_query: Eager,
    measures: Sequence[str] | None = None,
    *,
    query: str | Sequence[str] = "qid",
    by: str | Sequence[str] | None = None,
) -> pl.DataFrame:
    """Summary row(s) of a per-query table: mean, sum for ``num_*``, geometric mean for ``gm_*``.

    ``measures`` defaults to every column that is neither a query nor a ``by`` column; each
    name must parse as a measure string. ``by`` groups the summary (e.g. by ``"system"``).
    A NULL value (an invalid group's measure, a query missing after a join) is an
    :class:`~rankframe.errors.InputError` naming the measure and the query, never left out
    of a mean; so is a count whose sum does not fit a 64-bit integer.

    Parameters
    ----------
    per_query
        A per-query table, e.g. from :func:`evaluate` (Polars, pandas or a pyarrow Table).
    measures
        Measure columns to summarise; None (default): every column that is neither a query
        nor a ``by`` column. Each name must parse as a measure string.
    query
        Query column(s), left out of the summary; default ``"qid"``.
    by
        Column(s) to group the summary by (e.g. ``"system"``); None: one row.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> per_query = pl.DataFrame({"qid": ["a", "b"], "map": [0.5, 1.0], "num_ret": [10, 5]})
    >>> rf.summarize(per_query).rows()
    [(0.75, 15)]
    """
    per_query = eager("summarize", "per_query", per_query)
    groups = _keys(by) if by is not None else []
    keys = set(_keys(query)) | set(groups)
    labels = list(measures) if measures is not None else [
        c for c in per_query.columns if c not in keys
    ]
    missing = [c for c in labels if c not in per_query.columns]
    if missing:
        raise InputError(f"summarize: column(s) {missing} not in the table {per_query.columns}")
    parsed = [_summary_measure(label, measures is None) for label in labels]
    _refuse_nulls(per_query, parsed, [*groups, *(k for k in _keys(query) if k in
                                                 per_query.columns and k not in groups)])
    exprs = [_aggregate(m, per_query.schema[m.label]).alias(m.label) for m in parsed]
    if groups:
        summary = per_query.group_by(groups, maintain_order=True).agg(exprs).sort(groups)
    else:
        summary = per_query.select(exprs)
    return _fits_int64(summary, parsed, groups)

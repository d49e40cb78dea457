"""Many measures in one expression: ``rf.evaluate_expr``, the shared-work form of the builders.

Five builders in one ``group_by().agg()`` pay five times for what they share: Polars'
in-memory engine, which every eager group-by uses, computes each expression on its own, so
each builder gathers the group's rows and checks its ranks again. :func:`evaluate_expr`
gathers the columns the measures read once per group (one ``implode`` of a struct), and
hands the lists of every group at once to one kernel, which lays the rows out flat (each
group's rows together, in their order), checks every group's ranks once
(:func:`rankframe.faces.polars.expr.invalid_in_rows`, linear), keeps the rows the measures
read (those with a grade > 0 and each group's first row, when every measure reads only
positive rows), and evaluates every measure with the Polars face's own expressions in one
group-by over those sorted rows. The numbers are the builders' (one implementation per
metric): the same expressions, over the same rows of each group, in the same order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from rankframe.faces.polars.expr import IntoExpr, col, one_rank_per_row
from rankframe.faces.polars.gains import gain_sum_of_rows
from rankframe.faces.polars.ordered import RowForm
from rankframe.faces.polars.ranked import average_precision_of_rows
from rankframe.measures import Measure
from rankframe.table.ranks import invalid_in_rows
from rankframe.table.series import changes
from rankframe.validation import MAX_GRADE

#: The column of the flat rows that says which group (list) each row came from.
_GROUP = "__rankframe_group"

#: The measures whose builder hands lists of every group to a kernel: their row forms give
#: the kernel's value from the flat rows directly (the same code after the lists are laid
#: out flat), where the builder in a group-by would gather one list per group again.
ROW_FORMS: dict[str, RowForm] = {
    "cg": gain_sum_of_rows("cg"),
    "dcg": gain_sum_of_rows("dcg"),
    "idcg": gain_sum_of_rows("idcg"),
    "ndcg": gain_sum_of_rows("ndcg"),
    "average_precision": average_precision_of_rows,
}


def evaluate_expr(
    measures: str | Sequence[str],
    *,
    rel: IntoExpr = "rel",
    rank: IntoExpr = "rank",
    threshold: float = 1,
    columns: Mapping[str, IntoExpr] | None = None,
    name: str = "measures",
) -> pl.Expr:
    """Several measures in one expression, sharing their work: one struct per group with a
    field per measure, named by its label (``"ndcg@10"``, ``"map"`` ...).

    The measures are the measure strings of :func:`rankframe.evaluate`. Inside a user's
    ``group_by(...).agg(...)`` (eager or lazy), the group's rows are gathered once, its ranks
    checked once, and every measure computed from them, where the builders (``rf.ndcg``
    ...) would each gather and check again: use this for several measures, a builder for
    one. ``.unnest(name)`` turns the struct into columns. The values are the builders' very
    doubles; as with the builders, a group with invalid ranks (below 1, not whole, or
    repeated) gives NULL in every field that reads the rank, and with the exponential gain
    a group with a grade above 960 gives NULL in that field.

    Parameters
    ----------
    measures
        Measure strings such as ``"ndcg@10"``, ``"map"``, ``"P@10"``, ``"mrr"``,
        ``"recall@100"`` or trec_eval names (``"ndcg_cut_10"``).
    rel, rank
        The grade and rank columns (names or expressions), as for the builders.
    threshold
        Relevance level: rel >= threshold is relevant (trec_eval ``-l``).
    columns
        Further columns the measures read, by role (``{"tie_first": ..., "tie_size": ...}``
        for the tie-aware measures); each defaults to the column of that name.
    name
        The name of the struct column.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> df = pl.DataFrame({"qid": ["a", "a", "b"], "rank": [1, 2, 1], "rel": [0, 1, 1]})
    >>> out = df.group_by("qid", maintain_order=True).agg(rf.evaluate_expr(["P@1", "mrr"]))
    >>> out.unnest("measures").rows()
    [('a', 0.0, 0.5), ('b', 1.0, 1.0)]
    """
    from rankframe.faces import get
    from rankframe.faces.base import parse_for

    parsed = parse_for(get("polars"), measures, [], threshold)
    return measures_expr(parsed, rel=rel, rank=rank, columns=columns).alias(name)


def measures_expr(parsed: Sequence[Measure], *, rel: IntoExpr = "rel", rank: IntoExpr = "rank",
                  columns: Mapping[str, IntoExpr] | None = None) -> pl.Expr:
    """:func:`evaluate_expr` of measures parsed already (labels as they are)."""
    roles = dict.fromkeys(c for m in parsed for c in m.metric.columns)
    given: dict[str, IntoExpr] = {"rel": rel, "rank": rank, **(columns or {})}
    fields = [col(given.get(role, role)).alias(role) for role in roles]
    kernel = _Kernel(list(parsed), list(roles))
    gathered = pl.struct(fields).implode().map_batches(
        kernel, return_dtype=kernel.dtype, is_elementwise=True)
    if "rank" in roles:
        gathered = pl.when(one_rank_per_row(col(rank))).then(gathered)
    return gathered.alias("measures")


class _Kernel:
    """The kernel of :func:`evaluate_expr` for its parsed measures: a Series of lists of
    structs (each group's rows) to a Series of structs (each group's values)."""

    def __init__(self, parsed: list[Measure], roles: list[str]) -> None:
        from rankframe.faces.polars.built import expression

        self.roles = roles
        self.labels = [m.label for m in parsed]
        by_role = {role: role for role in roles}
        self.exprs = {m.label: expression(m.metric, by_role, m.values, checked=True)
                      .alias(m.label) for m in parsed}
        self.forms = {m.label: (ROW_FORMS[m.metric.name], m.metric.validate(m.values))
                      for m in parsed if m.metric.name in ROW_FORMS
                      and set(m.metric.columns) <= {"rel", "rank"}}
        self.reads_rank = {m.label for m in parsed if "rank" in m.metric.columns}
        self.reads_rel = {m.label for m in parsed if "rel" in m.metric.columns}
        self.grade_bound = {m.label for m in parsed if m.values.get("gain") == "exponential"}
        self.positive_only = all(m.metric.reads_positive_rows_only(m.values) for m in parsed)
        self.dtype = pl.Struct({m.label: _dtype(m) for m in parsed})

    def __call__(self, batch: pl.Series) -> pl.Series:
        groups = len(batch)
        rows = (batch.rename("row").to_frame().with_row_index(_GROUP)
                .explode("row", empty_as_null=False).unnest("row"))
        out = self.of_rows(rows, groups)
        if (batch.list.len() == 0).any():  # a select over no rows: the builders' values
            empty = rows.clear().select(self.exprs.values()).row(0, named=True)
            out = out.with_columns(pl.when(batch.list.len() == 0).then(pl.lit(value))
                                   .otherwise(label).alias(label)
                                   for label, value in empty.items())
        return out.select(pl.struct(self.labels).alias(batch.name)).to_series()

    def of_rows(self, rows: pl.DataFrame, groups: int, *, checked: bool = False
                ) -> pl.DataFrame:
        """Every measure of each group ``0 .. groups - 1`` (column :data:`_GROUP`, then a
        column per label) of ``rows``: a column :data:`_GROUP`, each group's rows together
        and the groups ascending, and a column per role. ``checked``: the rows have passed
        ``check_judged`` (no rank, NaN or grade test again)."""
        group = rows.get_column(_GROUP)
        bad = (invalid_in_rows(group, rows.get_column("rank"), groups)
               if self.reads_rank and not checked else None)
        if self.reads_rank:  # as the builders read it (rank_column): no valid rank overflows
            rows = rows.with_columns(pl.col("rank").cast(pl.Int64, strict=False))
        bad_grades = None
        if self.reads_rel and not checked and rows.schema["rel"].is_float():
            infinite = ~rows.get_column("rel").is_finite().fill_null(True)
            if infinite.any():
                bad_grades = pl.repeat(False, groups, eager=True).scatter(
                    group.filter(infinite).unique(), True)
        if self.positive_only:
            first = group.ne_missing(group.shift(1)).fill_null(True)
            rows = rows.filter((pl.col("rel") > 0).fill_null(False) | first)
        out = pl.DataFrame({_GROUP: pl.int_range(groups, eager=True, dtype=pl.get_index_type())})
        ranked = [label for label in self.labels if label in self.reads_rank]
        others = [label for label in self.labels if label not in self.reads_rank]
        if ranked:
            valid = rows if bad is None or not bad.any() else rows.filter(
                ~bad.gather(rows.get_column(_GROUP)))
            out = out.join(self._values(valid, ranked, groups), on=_GROUP, how="left",
                           maintain_order="left")
        if others:
            out = out.join(self._values(rows, others, groups), on=_GROUP, how="left",
                           maintain_order="left")
        if bad_grades is not None:
            out = out.with_columns(pl.when(~bad_grades).then(label).alias(label)
                                   for label in self.reads_rel)
        if self.grade_bound and not checked:
            too_high = rows.group_by(_GROUP).agg((pl.col("rel").max() > MAX_GRADE)
                                                 .fill_null(False).alias("high"))
            out = (out.join(too_high, on=_GROUP, how="left", maintain_order="left")
                   .with_columns(pl.when(~pl.col("high").fill_null(False)).then(label)
                                 .alias(label) for label in self.grade_bound))
        return out.select(_GROUP, *self.labels)

    def _values(self, rows: pl.DataFrame, labels: list[str], groups: int) -> pl.DataFrame:
        """The measures ``labels`` of each group of ``rows`` (sorted by group, of ``groups``):
        one group-by over the rows, of the builders' expressions, and for a measure with a
        row form (:data:`ROW_FORMS`), of its per-group value (computed from the rows flat)
        put on its rows and finished by the builder's last step."""
        exprs: list[pl.Expr] = []
        values: dict[str, pl.Series] = {}
        group = rows.get_column(_GROUP)
        flat = rows.rename({_GROUP: "q"}) if any(x in self.forms for x in labels) else rows
        for label in labels:
            if label not in self.forms:
                exprs.append(self.exprs[label])
                continue
            form, parameters = self.forms[label]
            value = form(flat, groups, parameters)
            name = f"{_GROUP}_{len(values)}"
            values[name] = value.per_query.gather(group)
            first = pl.col(name).first()
            exprs.append((first if value.finish is None else value.finish(first)).alias(label))
        sorted_rows = rows.with_columns(pl.col(_GROUP).set_sorted(), **values)
        return sorted_rows.group_by(_GROUP, maintain_order=True).agg(exprs)


def has_row_form(measures: Sequence[Measure]) -> bool:
    """True if one of ``measures`` has a row form (:data:`ROW_FORMS`), which
    :func:`evaluate_sorted` computes without a list per query."""
    return any(m.metric.name in ROW_FORMS for m in measures)


def evaluate_sorted(table: pl.DataFrame, measures: Sequence[Measure], key: str,
                    columns: Mapping[str, str]) -> pl.DataFrame:
    """``measures`` per query of a table that has passed ``check_judged`` and whose rows are
    sorted by its one query column ``key`` (no NULL; each query's rows together, the
    queries ascending): the kernel of :func:`evaluate_expr` over the rows as they lie, each
    row's query code the number of key changes before it, so no query's rows are gathered
    into a list. One row per query, ``key`` and a column per measure label, in key order."""
    kernel = _Kernel(list(measures), list(dict.fromkeys(c for m in measures
                                                        for c in m.metric.columns)))
    keys = table.get_column(key)
    starts = changes(keys)
    code = (starts.cum_sum() - 1).cast(pl.get_index_type()).alias(_GROUP)
    rows = table.select(pl.lit(code), *(pl.col(columns[r]).alias(r) for r in kernel.roles))
    out = kernel.of_rows(rows, int(starts.sum()), checked=True)
    return out.select(pl.lit(keys.filter(starts)).alias(key), *kernel.labels)


def _dtype(measure: Measure) -> pl.DataType:
    return (pl.Int64() if measure.metric.is_count else pl.String() if measure.metric.is_string
            else pl.Float64())


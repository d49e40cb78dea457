"""Rank correlation and overlap as Ibis expressions (the Ibis twin of
:mod:`rankframe.faces.polars.correlation`). Kendall's statistics count pairs of rows: the kept
rows of each query are joined to themselves (each unordered pair once) and the pair counts
joined back to the aggregates. RBO sums over every depth 1..l of a ranking: a generated
series per query (an unnested integer range) joined to the overlap counts and summed with a
running window."""

from __future__ import annotations

import math
from collections.abc import Callable

import ibis

from rankframe.faces.ibis import columns as cols
from rankframe.faces.ibis.columns import Final, Table, Value
from rankframe.faces.ibis.plan import GROUP, Plan


def _paired_value(value: Value) -> Value:
    """A correlation column in its own type (an int64 beyond 2^53 is not rounded into a
    tie); floats with -0.0 made 0.0 (DataFusion orders and partitions the two apart)."""
    return cols.no_negative_zero(value) if value.type().is_floating() else value


def _paired_kept(plan: Plan, x: Value, y: Value) -> Value:
    """Neither value NULL nor NaN (SQLite has no NaN: it stores NULL)."""
    kept = x.notnull() & y.notnull()
    for value in (x, y):
        if value.type().is_floating() and plan.backend != "sqlite":
            kept = kept & ~value.isnan()
    return kept.fill_null(False)


def spearman_rho(plan: Plan) -> Final:
    valid = plan.row(lambda t: cols.flag(_paired_kept(plan, plan.col(t, "x"), plan.col(t, "y"))))

    def normalised(column: str) -> Callable[[Table], Value]:
        return lambda t: _paired_value(plan.col(t, column))

    values = {c: plan.row(normalised(c)) for c in ("x", "y")}
    n = plan.total(lambda t: t[valid], valid, needs=[valid])

    def centred_rank(column: str) -> str:
        # Average rank (rank of the first of the tied values + (ties - 1) / 2, 1-based),
        # minus the mean rank (n + 1) / 2, among the kept rows of the query.
        value = values[column]
        first = plan.row(lambda t: ibis.rank().over(ibis.window(
            group_by=plan.partition(t, t[valid]), order_by=t[value])), needs=[valid, value])
        tied = plan.total(lambda t: t[valid], valid, value, needs=[valid, value])
        return plan.row(lambda t: cols.as_float(t[first]) + (cols.as_float(t[tied]) - 1.0) / 2.0
                        + 1.0 - (cols.as_float(t[n]) + 1.0) / 2.0, needs=[first, tied, n])

    a_, b_ = centred_rank("x"), centred_rank("y")
    sab = plan.agg(lambda t: cols.sum_where(t[a_] * t[b_], t[valid] == 1))
    saa = plan.agg(lambda t: cols.sum_where(t[a_] * t[a_], t[valid] == 1))
    sbb = plan.agg(lambda t: cols.sum_where(t[b_] * t[b_], t[valid] == 1))
    def rho(a: Table) -> Value:
        spread = cols.as_float(a[saa]) * cols.as_float(a[sbb])
        return ibis.ifelse(spread > 0, cols.as_float(a[sab]) / spread.sqrt(), 0.0)

    return rho


_PAIR_COUNTS = ("__rf_conc", "__rf_disc", "__rf_tie_x", "__rf_tie_y", "__rf_tie_xy", "__rf_n0")


def _pair_counts(plan: Plan, table: Table) -> Table:
    """Per query (its number ``__rf_group``): the pairs of kept (x, y) rows that are
    concordant, discordant, tied in x only, in y only, in both, and all of them (a self-join
    of the query's kept rows, each unordered pair once)."""
    x, y = _paired_value(plan.col(table, "x")), _paired_value(plan.col(table, "y"))
    rows = table.filter(_paired_kept(plan, x, y)).select(
        table[GROUP], x.name("__rf_x"), y.name("__rf_y"))
    rows = rows.mutate(__rf_id=ibis.row_number().over(ibis.window(
        group_by=rows[GROUP], order_by=[rows["__rf_x"], rows["__rf_y"]])))
    other = rows.select(rows[GROUP].name("__rf_group2"), rows["__rf_x"].name("__rf_x2"),
                        rows["__rf_y"].name("__rf_y2"), rows["__rf_id"].name("__rf_id2"))
    pairs = rows.join(other, rows[GROUP] == other["__rf_group2"])
    pairs = pairs.filter(pairs["__rf_id"] < pairs["__rf_id2"])
    x1, y1, x2, y2 = pairs["__rf_x"], pairs["__rf_y"], pairs["__rf_x2"], pairs["__rf_y2"]
    return pairs.group_by(GROUP).aggregate(
        __rf_conc=cols.flag(((x1 < x2) & (y1 < y2)) | ((x1 > x2) & (y1 > y2))).sum(),
        __rf_disc=cols.flag(((x1 < x2) & (y1 > y2)) | ((x1 > x2) & (y1 < y2))).sum(),
        __rf_tie_x=cols.flag((x1 == x2) & (y1 != y2)).sum(),
        __rf_tie_y=cols.flag((x1 != x2) & (y1 == y2)).sum(),
        __rf_tie_xy=cols.flag((x1 == x2) & (y1 == y2)).sum(),
        __rf_n0=cols.flag(x1.notnull()).sum())


def with_pair_counts(plan: Plan, grouped: Table, source: Table) -> Table:
    """``grouped`` with the pair counts of its queries (0 for a query without pairs),
    joined on the query's number (the query keys may be NULL; the number is not)."""
    counts = _pair_counts(plan, source).rename(__rf_group_c=GROUP)
    joined = grouped.left_join(counts, grouped[GROUP] == counts["__rf_group_c"])
    return joined.select(*[joined[c] for c in grouped.columns],
                         **{c: joined[c].fill_null(0) for c in _PAIR_COUNTS})


def _number_queries(plan: Plan) -> None:
    """Number the queries (dense rank of the keys, NULL keys included), the key of what is
    joined to the aggregates."""
    if not plan.numbered:
        plan.numbered = True
        plan.stages[GROUP] = 1
        plan.rows.append((1, GROUP, lambda t: ibis.dense_rank().over(
            ibis.window(order_by=plan.partition(t)))))
        plan.aggregates[GROUP] = lambda t: t[GROUP].max()


def kendall_tau(plan: Plan) -> Final:
    _number_queries(plan)
    plan.pairs = True

    def tau(a: Table) -> Value:
        n0 = cols.as_float(a["__rf_n0"])
        n1 = cols.as_float(a["__rf_tie_x"] + a["__rf_tie_xy"])
        n2 = cols.as_float(a["__rf_tie_y"] + a["__rf_tie_xy"])
        denominator = (n0 - n1) * (n0 - n2)
        return ibis.ifelse((n0 - n1 > 0) & (n0 - n2 > 0),
                           cols.as_float(a["__rf_conc"] - a["__rf_disc"])
                           / ibis.greatest(denominator, 1.0).sqrt(), 0.0)

    return tau


def kendall_distance(plan: Plan, penalty: float = 0.0) -> Final:
    _number_queries(plan)
    plan.pairs = True
    return lambda a: cols.ratio(cols.as_float(a["__rf_disc"]) + float(penalty)
                            * cols.as_float(a["__rf_tie_x"] + a["__rf_tie_y"]), a["__rf_n0"])


@ibis.udf.scalar.builtin(name="generate_series")  # type: ignore[untyped-decorator]
def _df_generate_series(start: int, stop: int) -> list[int]:  # type: ignore[empty-body]
    """DataFusion's own ``generate_series`` (start..stop inclusive, an array)."""


def _depths(length: Value, backend: str | None) -> Value:
    """The array 1, 2, ..., length. Ibis 12 compiles no integer range for DataFusion, whose
    own ``generate_series`` is called there."""
    if backend == "datafusion":
        return _df_generate_series(ibis.literal(1, type=cols.I64), length)
    return ibis.range(1, length + 1)


def _power(p: float, exponent: Value) -> Value:
    """p^exponent (float64) for an integer exponent >= 0; 0 once it is below e^-700, so
    that no engine underflows (PostgreSQL raises on an underflow)."""
    most = math.floor(-700.0 / math.log(p))
    return ibis.ifelse(exponent <= most, ibis.literal(p, type=cols.F64).pow(
        cols.as_float(ibis.least(exponent, most))), 0.0)


def rbo(plan: Plan, p: float = 0.9, depth: int | None = None,
        extrapolated: bool = True) -> Final:
    """RBO_ext / RBO_min in the closed forms of docs/semantics.md#rbo, with w_d = p^d / d:
    ext = (1-p)/p (sum_d X_d w_d + X_s/s sum_{d>s} (d-s) w_d) + ((X_l-X_s)/l + X_s/s) p^l,
    min = (1-p)/p (sum_d (X_d - X_l) w_d - X_l ln(1-p)), d = 1..l; 0 when s = 0. One row
    per depth d (a generated series), X_d the running count of overlaps ending at d."""
    _number_queries(plan)
    name = plan._name("rbo")
    p = float(p)
    scale = (1.0 - p) / p

    def values(source: Table) -> Table:
        a, b = plan.col(source, "rank_a").cast(cols.I64), plan.col(source, "rank_b").cast(cols.I64)
        if depth is not None:
            a = ibis.ifelse(a <= depth, a, ibis.null(cols.I64))
            b = ibis.ifelse(b <= depth, b, ibis.null(cols.I64))
        rows = source.select(__rf_g=source[GROUP], __rf_a=a, __rf_b=b,
                             __rf_m=ibis.greatest(a, b))
        both = (rows["__rf_a"].notnull() & rows["__rf_b"].notnull()).fill_null(False)
        lengths = rows.group_by("__rf_g").aggregate(
            __rf_la=rows["__rf_a"].max().fill_null(0), __rf_lb=rows["__rf_b"].max().fill_null(0),
            __rf_xl=cols.flag(both).sum().fill_null(0))
        lengths = lengths.select(
            "__rf_g", "__rf_xl", __rf_s=ibis.least(lengths["__rf_la"], lengths["__rf_lb"]),
            __rf_l=ibis.greatest(lengths["__rf_la"], lengths["__rf_lb"]))
        lengths = lengths.filter(lengths["__rf_s"] > 0)
        series = lengths.select(*lengths.columns, __rf_d=_depths(
            lengths["__rf_l"], plan.backend).unnest().cast(cols.I64))
        ends = rows.filter(both).group_by(["__rf_g", "__rf_m"]).aggregate(
            __rf_n=rows["__rf_g"].count())
        ends = ends.select(__rf_g2=ends["__rf_g"], __rf_m=ends["__rf_m"], __rf_n=ends["__rf_n"])
        depths = series.left_join(ends, (series["__rf_g"] == ends["__rf_g2"])
                                  & (series["__rf_d"] == ends["__rf_m"]))
        depths = depths.select(*series.columns, __rf_n=depths["__rf_n"].fill_null(0))
        d = depths["__rf_d"]
        depths = depths.mutate(
            __rf_x=depths["__rf_n"].sum().over(ibis.cumulative_window(
                group_by=depths["__rf_g"], order_by=d)),
            __rf_w=_power(p, d) / cols.as_float(d))
        # The per-depth terms in their own projection, then plain sums (DataFusion 51
        # groups wrongly when the aggregates read the window column directly).
        d, s, l_ = depths["__rf_d"], depths["__rf_s"], depths["__rf_l"]
        x, w = cols.as_float(depths["__rf_x"]), depths["__rf_w"]
        xl = cols.as_float(depths["__rf_xl"])
        if extrapolated:
            terms = depths.select(
                "__rf_g", xl=xl, s=cols.as_float(s), l=cols.as_float(l_), body=x * w,
                tail=ibis.ifelse(d > s, cols.as_float(d - s) * w, 0.0),
                xs=ibis.ifelse(d == s, x, 0.0),
                pl=ibis.ifelse(d == l_, _power(p, l_), 0.0))
            per = terms.group_by("__rf_g").aggregate(
                body=terms["body"].sum(), tail=terms["tail"].sum(), xs=terms["xs"].sum(),
                pl=terms["pl"].sum(), xl=terms["xl"].max(), s=terms["s"].max(),
                l=terms["l"].max())
            rate = per["xs"] / per["s"]
            value = (scale * (per["body"] + rate * per["tail"])
                     + ((per["xl"] - per["xs"]) / per["l"] + rate) * per["pl"])
        else:
            terms = depths.select("__rf_g", xl=xl, body=(x - xl) * w)
            per = terms.group_by("__rf_g").aggregate(
                body=terms["body"].sum(), xl=terms["xl"].max())
            value = scale * (per["body"] - per["xl"] * math.log1p(-p))
        return per.select(**{GROUP: per["__rf_g"], name: value})

    plan.joined.append(values)
    return lambda a: a[name]

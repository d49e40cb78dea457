"""Hypothesis strategies for judged long tables and metric parameters.

A generated table has many queries; each query mixes retrieved rows (unique ranks,
sometimes with gaps), judged-but-unretrieved rows (rank NULL), unjudged rows (rel NULL),
pooled-unjudged rows (negative grades) and grades up to 4 (occasionally fractional).
Queries with nothing retrieved, nothing relevant or a single row are all likely.

Metrics that read other columns (``Metric.columns``) get their own tables through
:func:`tables_for`: paired numeric columns for the correlations, with the edges of the
contract (ties, NULL/NaN, ±inf, -0.0, Int64 beyond 2^53 and at its ends, constant
columns, groups left with 0-2 rows); two rankings of overlapping document sets for RBO
(with gaps, rows in neither list, tied ranks, identical and one-sided lists); and tie
groups for the tie-aware metrics (group sizes capped so that enumerating every ordering
stays cheap).
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl
from hypothesis import strategies as st

from rankframe.registry import ITEMS, PAIRED, RANKINGS, TIED, Metric, Param

GRADES = st.one_of(
    st.none(),
    st.sampled_from([-1, 0, 0, 0, 1, 1, 2, 3, 4]),
    st.sampled_from([0.5, 1.5, 2.5]),
)
JUDGED_GRADES = st.sampled_from([-2, -1, 0, 0, 1, 1, 2, 3, 4])


@st.composite
def query_rows(draw: st.DrawFn) -> list[tuple[float | None, int | None]]:
    """One query's (rel, rank) rows."""
    n_retrieved = draw(st.integers(0, 25))
    gappy = draw(st.booleans()) and n_retrieved > 0
    if gappy:
        ranks = sorted(draw(st.sets(st.integers(1, 3 * n_retrieved), min_size=n_retrieved,
                                    max_size=n_retrieved)))
    else:
        ranks = list(range(1, n_retrieved + 1))
    rows: list[tuple[float | None, int | None]] = [(draw(GRADES), r) for r in ranks]
    n_unretrieved = draw(st.integers(0, 8))
    rows += [(draw(JUDGED_GRADES), None) for _ in range(n_unretrieved)]
    if not rows:
        rows = [(draw(JUDGED_GRADES), None)]
    return draw(st.permutations(rows))


@st.composite
def judged_tables(draw: st.DrawFn, max_queries: int = 8) -> pl.DataFrame:
    """A judged long table with columns qid (str), rel (f64), rank (i64)."""
    queries = draw(st.lists(query_rows(), min_size=1, max_size=max_queries))
    qid: list[str] = []
    rel: list[float | None] = []
    rank: list[int | None] = []
    for i, rows in enumerate(queries):
        for g, r in rows:
            qid.append(f"q{i}")
            rel.append(None if g is None else float(g))
            rank.append(r)
    return pl.DataFrame(
        {"qid": qid, "rel": rel, "rank": rank},
        schema={"qid": pl.String, "rel": pl.Float64, "rank": pl.Int64},
    )


def param_values(param: Param) -> st.SearchStrategy[Any]:
    """Values a parameter can take in generated cases."""
    if param.kind == "cutoff":
        return st.one_of(st.none(), st.integers(1, 40))
    if param.kind == "threshold":
        return st.sampled_from([1, 1, 2, 3, 0.5, 2.5])
    if param.kind == "recall_level":
        return st.sampled_from([0.0, 0.1, 0.2, 0.25, 0.3, 0.5, 0.7, 0.9, 1.0])
    if param.kind == "choice":
        return st.sampled_from(param.choices)
    if param.kind == "persistence":
        return st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.98, 0.1])
    if param.kind == "grade":
        return st.sampled_from([1, 2, 3, 4, 4, 2.5, 0.5])
    if param.kind == "flag":
        return st.booleans()
    if param.kind == "penalty":
        return st.sampled_from([0.0, 0.5, 1.0, 0.25])
    if param.kind == "weight":
        return st.sampled_from([1.0, 0.5, 2, 0.25, 3.0])
    if param.kind == "gains":  # a gain per grade: grade 0 too, gains 0 and negative too
        return st.sampled_from([None, {1: 3, 2: 9, 4: 4.5}, {0: 1.0}, {1: -1.0, 3: 0.5},
                                {2: 0}, {1: 2.5, 0: -0.5}, {}, {3: 1, 2: 3, 1: 5}])
    if param.kind == "coefficient":
        return st.sampled_from([1.0, -1.0, 0.0, 2, -0.5, 0.25])
    if param.kind == "count":
        return st.sampled_from([0, 0, 10, 1000])
    if param.kind == "size":
        return st.sampled_from([1, 12, 20, 5, 1000])
    raise AssertionError(f"no strategy for parameter kind {param.kind!r}")


@st.composite
def metric_params(draw: st.DrawFn, metric: Metric) -> dict[str, Any]:
    """Parameter values for ``metric``; optional ones are sometimes left to their default."""
    values: dict[str, Any] = {}
    for param in metric.params:
        # A size (a catalogue's, a total) has no value of its own outside rankframe.evaluate.
        if param.required or param.kind == "size" or draw(st.booleans()):
            values[param.name] = draw(param_values(param))
    return values


# --- paired numeric columns (rank correlation) ---------------------------------------------

#: The edges of a float column: ±inf (ordinary values, equal to themselves), -0.0 (equal to
#: 0.0), NaN (dropped with its row).
FLOAT_EDGES = [math.inf, -math.inf, -0.0, 0.0, math.nan]
#: Integers that a cast to Float64 would round into ties (2^53 + 1 -> 2^53), and the ends
#: of Int64, where a difference overflows.
INT_EDGES = [2**53, 2**53 + 1, 2**53 + 2, -(2**53) - 1, -(2**53), 2**62, 2**63 - 1, -(2**63)]

PAIRED_VALUES = st.one_of(
    st.none(),
    st.integers(0, 4).map(float),
    st.floats(-3, 3, allow_nan=False).map(lambda v: round(v, 1)),
    st.sampled_from(FLOAT_EDGES),
)
PAIRED_INTS = st.one_of(st.none(), st.integers(-3, 3), st.sampled_from(INT_EDGES))


def _related(values: list[Any], dtype: str, draw: st.DrawFn) -> list[Any]:
    """A column ordered like ``values`` (so strong correlations occur), NULL where it is."""
    if dtype == "int":
        shift = draw(st.sampled_from([0, 1]))  # v >> 1: monotone, no overflow, some ties
        return [None if v is None else v >> shift for v in values]
    offsets = st.sampled_from([0.0, 0.0, 1.0, -2.0])
    return [None if v is None else v + draw(offsets) for v in values]


@st.composite
def paired_tables(draw: st.DrawFn, max_queries: int = 6) -> pl.DataFrame:
    """Columns qid (str), x, y, each Float64 or Int64: small value sets so ties are common,
    NULL/NaN, ±inf, -0.0, integers beyond 2^53; constant columns and groups left with
    0, 1 or 2 rows once NULL/NaN rows are dropped."""
    dtypes = {c: draw(st.sampled_from(["float", "float", "int"])) for c in ("x", "y")}
    pools = {c: PAIRED_INTS if d == "int" else PAIRED_VALUES for c, d in dtypes.items()}
    qid: list[str] = []
    columns: dict[str, list[Any]] = {"x": [], "y": []}
    for i in range(draw(st.integers(1, max_queries))):
        n = draw(st.sampled_from([1, 2, 3])) if draw(st.booleans()) else draw(st.integers(1, 30))
        shape = draw(st.sampled_from(["free", "related", "related", "constant"]))
        x = draw(st.lists(pools["x"], min_size=n, max_size=n))
        if shape == "related" and dtypes["x"] == dtypes["y"]:
            y = _related(x, dtypes["y"], draw)
        elif shape == "constant":  # one column constant (NULLs aside)
            value = draw(pools["y"])
            y = [draw(st.sampled_from([value, value, value, None])) for _ in range(n)]
        else:
            y = draw(st.lists(pools["y"], min_size=n, max_size=n))
        if dtypes["x"] == dtypes["y"] and draw(st.booleans()):
            x, y = y, x
        qid += [f"q{i}"] * n
        columns["x"] += x
        columns["y"] += y
    schema = {c: pl.Int64 if d == "int" else pl.Float64 for c, d in dtypes.items()}
    return pl.DataFrame({"qid": qid, **columns}, schema={"qid": pl.String, **schema})


# --- two rankings of overlapping document sets (RBO) ---------------------------------------


def _ranks(draw: st.DrawFn, size: int, ties: bool) -> list[int]:
    """Ranks for a list of ``size`` documents: 1..size, with gaps, or with a tie if ``ties``."""
    if not size:
        return []
    kind = draw(st.sampled_from(["dense", "dense", "gaps", "gaps", *(["tied"] if ties else [])]))
    if kind == "gaps":
        return sorted(draw(st.sets(st.integers(1, 2 * size + 3), min_size=size, max_size=size)))
    ranks = list(range(1, size + 1))
    if kind == "tied" and size > 1:
        at = draw(st.integers(1, size - 1))
        ranks[at] = ranks[at - 1]
    return ranks


@st.composite
def ranking_tables(draw: st.DrawFn, max_queries: int = 6, ties: bool = True) -> pl.DataFrame:
    """Columns qid (str), rank_a, rank_b (i64): one row per document of either ranking, and
    sometimes rows in neither (both NULL, to be ignored); groups of 1 or 2 rows, disjoint,
    identical and empty rankings all occur, and with ``ties`` two documents sharing a rank
    in one list (not a ranking, but every face must give the contract's value)."""
    qid: list[str] = []
    rank_a: list[int | None] = []
    rank_b: list[int | None] = []
    for i in range(draw(st.integers(1, max_queries))):
        n_docs = draw(st.sampled_from([1, 2])) if draw(st.booleans()) else draw(
            st.integers(1, 30))
        in_a = draw(st.lists(st.booleans(), min_size=n_docs, max_size=n_docs))
        in_b = draw(st.lists(st.booleans(), min_size=n_docs, max_size=n_docs))
        in_b = [b or not a for a, b in zip(in_a, in_b, strict=True)]  # every row in a list
        docs_a = draw(st.permutations([d for d in range(n_docs) if in_a[d]]))
        docs_b = draw(st.permutations([d for d in range(n_docs) if in_b[d]]))
        if draw(st.integers(0, 5)) == 0:  # the same ranking twice
            docs_b = docs_a = list(range(n_docs))
        pos_a = dict(zip(docs_a, _ranks(draw, len(docs_a), ties), strict=True))
        pos_b = dict(zip(docs_b, _ranks(draw, len(docs_b), ties), strict=True))
        neither = draw(st.integers(0, 2)) if draw(st.integers(0, 3)) == 0 else 0
        for d in range(n_docs + neither):
            qid.append(f"q{i}")
            rank_a.append(pos_a.get(d))
            rank_b.append(pos_b.get(d))
    return pl.DataFrame({"qid": qid, "rank_a": rank_a, "rank_b": rank_b},
                        schema={"qid": pl.String, "rank_a": pl.Int64, "rank_b": pl.Int64})


# --- tie groups (tie-aware metrics) --------------------------------------------------------

MAX_TIE_ORDERINGS = 144  # product of the group sizes' factorials, per query


@st.composite
def tied_query_rows(draw: st.DrawFn) -> list[tuple[float | None, int | None, int | None]]:
    """One query's (rel, tie_first, tie_size) rows: consecutive tie groups, sometimes gaps."""
    rows: list[tuple[float | None, int | None, int | None]] = []
    position = 1
    orderings = 1
    for _ in range(draw(st.integers(0, 10))):
        position += draw(st.sampled_from([0, 0, 0, 0, 1, 3]))
        size = draw(st.sampled_from([1, 1, 1, 2, 2, 3, 4, 5]))
        while size > 1 and orderings * math.factorial(size) > MAX_TIE_ORDERINGS:
            size -= 1
        orderings *= math.factorial(size)
        rows += [(draw(GRADES), position, size) for _ in range(size)]
        position += size
    rows += [(draw(JUDGED_GRADES), None, None) for _ in range(draw(st.integers(0, 5)))]
    if not rows:
        rows = [(draw(JUDGED_GRADES), None, None)]
    return rows


@st.composite
def tied_tables(draw: st.DrawFn, max_queries: int = 5) -> pl.DataFrame:
    """Columns qid (str), rel (f64), tie_first, tie_size (i64)."""
    qid: list[str] = []
    rel: list[float | None] = []
    first: list[int | None] = []
    size: list[int | None] = []
    for i in range(draw(st.integers(1, max_queries))):
        for g, f, t in draw(tied_query_rows()):
            qid.append(f"q{i}")
            rel.append(None if g is None else float(g))
            first.append(f)
            size.append(t)
    return pl.DataFrame(
        {"qid": qid, "rel": rel, "tie_first": first, "tie_size": size},
        schema={"qid": pl.String, "rel": pl.Float64, "tie_first": pl.Int64,
                "tie_size": pl.Int64},
    )


# --- recommendations with item attributes (beyond-accuracy metrics) ------------------------

#: The columns of the tables of each beyond-accuracy family (the union of its metrics').
FAMILY_COLUMNS: dict[str, tuple[str, ...]] = {
    "catalog": ITEMS, "popularity_bias": ("pop", "tail", "rank"),
    "diversity": ("category", "features", "pair_similarity", "similarity", "rel", "rank"),
    "fairness": ("alignment", "rank", "target")}
ITEM_IDS = st.one_of(st.none(), st.sampled_from([f"i{n}" for n in range(12)]))
#: Small value sets so that ties, equal categories and zero vectors are common.
VECTOR_VALUES = st.sampled_from([0.0, 0.0, 1.0, 1.0, 0.5, 2.0, 3.0, -1.0])
WEIGHTS = st.sampled_from([0.0, 0.0, 1.0, 1.0, 0.5, 0.25, 3.0])


@st.composite
def _vector(draw: st.DrawFn, length: int, values: st.SearchStrategy[float],
            nulls: bool = True) -> list[float] | None:
    if nulls and draw(st.integers(0, 6)) == 0:
        return None
    return draw(st.lists(values, min_size=length, max_size=length))


#: Every column of a recommendation table, with how a value is drawn (per row, given the
#: table's vector length).
def _item_value(column: str, dimension: int) -> st.SearchStrategy[Any]:
    if column == "item":
        return ITEM_IDS
    if column == "rel":
        return GRADES
    if column == "pop":
        return st.one_of(st.none(), st.integers(0, 9))
    if column == "tail":
        return st.one_of(st.none(), st.booleans())
    if column == "category":
        return st.one_of(st.none(), st.sampled_from("abc"))
    if column == "features":
        return _vector(dimension, VECTOR_VALUES)
    if column == "pair_similarity":
        return st.one_of(st.none(), st.sampled_from([0.0, 0.25, 1.0, 1.5, 2.0]))
    if column == "similarity":
        return st.one_of(st.none(), st.sampled_from([0.0, 0.25, 0.5, 1.0, 0.125]))
    if column == "alignment":
        return _vector(dimension, WEIGHTS)
    raise AssertionError(f"no strategy for column {column!r}")


_ITEM_DTYPES: dict[str, pl.DataType] = {
    "item": pl.String(), "rel": pl.Float64(), "pop": pl.Int64(), "tail": pl.Boolean(),
    "category": pl.String(), "features": pl.List(pl.Float64), "pair_similarity": pl.Float64(),
    "similarity": pl.Float64(), "alignment": pl.List(pl.Float64),
    "target": pl.List(pl.Float64)}


@st.composite
def item_tables(draw: st.DrawFn, columns: tuple[str, ...], runs: bool = False,
                max_queries: int = 6) -> pl.DataFrame:
    """Recommendation lists with the item attributes the beyond-accuracy metrics read
    (``columns`` besides qid and rank): item (str), rel (f64), pop (i64), tail (bool),
    category (str), features and alignment (lists of f64, one length per table),
    pair_similarity and similarity (f64), target (a list of f64, one per query). Rows with a
    NULL rank (judged, not recommended), NULL attributes, zero vectors, empty lists and lists
    of one row all occur. With ``runs``, a group holds several lists (its ranks repeat): the
    groups of the run metrics."""
    dimension = draw(st.sampled_from([1, 2, 3]))
    drawn = [c for c in columns if c not in ("rank", "target")]
    values = {c: _item_value(c, dimension) for c in drawn}
    table: dict[str, list[Any]] = {c: [] for c in ("qid", "rank", *drawn)}
    targets: list[Any] = []
    for q in range(draw(st.integers(1, max_queries))):
        target = draw(_vector(dimension, WEIGHTS, nulls=False)) if "target" in columns else None
        for _ in range(draw(st.integers(1, 3)) if runs else 1):
            n = draw(st.integers(0, 12))
            gappy = draw(st.booleans()) and n > 0
            ranks: list[int | None] = (
                sorted(draw(st.sets(st.integers(1, 3 * n), min_size=n, max_size=n))) if gappy
                else list(range(1, n + 1)))
            ranks += [None] * draw(st.integers(0, 3))
            for rank in draw(st.permutations(ranks or [None])):
                table["qid"].append(f"q{q}")
                table["rank"].append(rank)
                for c in drawn:
                    table[c].append(draw(values[c]))
                targets.append(target)
    if "target" in columns:
        table["target"] = targets
    schema = {"qid": pl.String(), "rank": pl.Int64(), **{c: _ITEM_DTYPES[c] for c in table
                                                         if c not in ("qid", "rank")}}
    return pl.DataFrame(table, schema=schema)


def stacked(tables: list[pl.DataFrame]) -> pl.DataFrame:
    """Generated tables of the first one's schema as one table, queries renamed
    t<j>_<qid> so they stay apart: more data for one evaluation, whose cost is mostly
    planning on the SQL and cluster faces."""
    return pl.concat([t.with_columns(qid=pl.format("t{}_{}", pl.lit(j), pl.col("qid")))
                      for j, t in enumerate(tables) if t.schema == tables[0].schema])


def tables_for(metric: Metric) -> st.SearchStrategy[pl.DataFrame]:
    """Generated tables carrying the columns ``metric`` reads, plus ``qid``."""
    if metric.family in FAMILY_COLUMNS:
        return item_tables(FAMILY_COLUMNS[metric.family], runs=metric.scope == "run")
    if metric.columns == ("rel", "rank"):
        return judged_tables()
    if metric.columns == PAIRED:
        return paired_tables()
    if metric.columns == RANKINGS:
        return ranking_tables()
    if metric.columns == TIED:
        return tied_tables()
    raise AssertionError(f"no table strategy for columns {metric.columns!r}")


Run = list[tuple[Any, Any, float]]
Qrels = list[tuple[Any, Any, int]]
DOC_NAMES = ["d1", "d2", "d9", "d10", "d100", "D1", "a", "ab", "b", "é", "z", "Z", "_", "d-1"]
DOC_NUMBERS = [1, 2, 9, 10, 11, 100, 99, 0, 7, 70]


@st.composite
def runs_and_qrels(draw: st.DrawFn) -> tuple[Run, Qrels, bool]:
    """Runs with many tied scores and qrels sharing some of their documents.

    Queries may be run-only (to be dropped), qrels-only (to be kept) or both; ids are all
    strings or all integers (so ``9`` and ``10`` tie-break as the text ``"9" > "10"``).
    """
    integer_ids = draw(st.booleans())
    docs = DOC_NUMBERS if integer_ids else DOC_NAMES
    scores = st.sampled_from([0.0, -0.0, 1.0, 1.0, 2.5, -3.0, 1e9])
    run: Run = []
    qrels: Qrels = []
    for q in range(draw(st.integers(1, 16))):
        qid: Any = q if integer_ids else f"q{q}"
        run_docs = draw(st.lists(st.sampled_from(docs), unique=True, max_size=len(docs)))
        run += [(qid, d, draw(scores)) for d in run_docs]
        judged_docs = draw(st.lists(st.sampled_from(docs), unique=True, max_size=8))
        qrels += [(qid, d, draw(st.sampled_from([-1, 0, 1, 2]))) for d in judged_docs]
    return run, qrels, integer_ids

"""Hostile input to the SQL side and the expressions (docs/semantics.md#input-checks): a
table or connection that cannot give a right number gives a named error (or, from a Polars
expression, NULL for the group), never a silently different number.

- the macros of a connection are verified against this version's before ``evaluate`` uses
  them; missing ones are loaded;
- every macro reading a rank column refuses a rank < 1, a non-integer rank and a repeated
  rank, naming itself; the Polars builders give NULL for such a group;
- ``rf_judge`` applies ``judge``'s checks, in its order, naming the smallest pair;
- nDCG's ideal list takes memory in proportion to a query's rows, whatever k is;
- an all-NULL (dtype Null) column reaches DuckDB typed.
"""

from __future__ import annotations

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankframe as rf
import rankframe.duckdb
from rankframe.errors import EngineError, InputError
from rankframe.faces.duckdb import call
from rankframe.registry import METRICS, Metric

JUDGED = pl.DataFrame({"qid": ["a", "a", "a", "b"], "rank": [1, 2, None, 1],
                       "rel": [1, 0, 2, 1]})
MEASURES = ["ndcg@3", "P@1", "map"]

# -- the macros of a connection ------------------------------------------------------------


def same(got: pl.DataFrame, expected: pl.DataFrame) -> None:
    assert_frame_equal(got, expected, abs_tol=1e-12)


def polars_result() -> pl.DataFrame:
    return rf.evaluate(JUDGED, MEASURES)


def test_a_foreign_macro_is_refused_and_register_replaces_it() -> None:
    con = duckdb.connect()
    con.execute("CREATE MACRO rf_ndcg(a, b, c) AS 42")  # in the database, not TEMP
    with pytest.raises(EngineError, match=r"macro\(s\) rf_ndcg are not this rankframe's own"):
        rf.evaluate(JUDGED, MEASURES, engine="duckdb", con=con)
    rankframe.duckdb.register(con)  # rankframe's TEMP macros shadow the database's
    same(rf.evaluate(JUDGED, MEASURES, engine="duckdb", con=con), polars_result())


def test_a_replaced_temp_macro_of_a_loaded_connection_is_refused() -> None:
    con = rankframe.duckdb.register()
    con.execute("CREATE OR REPLACE TEMP MACRO rf_ndcg(rel, rank, k, gain := 'linear', "
                "ideal := 'all') AS 0.5")
    with pytest.raises(EngineError, match="rf_ndcg"):
        rf.evaluate(JUDGED, MEASURES, engine="duckdb", con=con)


def test_a_replaced_helper_is_refused() -> None:
    con = rankframe.duckdb.register()
    con.execute("CREATE OR REPLACE TEMP MACRO rf__ratio(numerator, denominator) AS 1.0")
    with pytest.raises(EngineError, match="rf__ratio"):
        rf.evaluate(JUDGED, ["P@1"], engine="duckdb", con=con)


def test_macros_missing_from_a_partly_loaded_connection_are_loaded() -> None:
    con = duckdb.connect()
    rankframe.duckdb.register_helpers(con)
    rankframe.duckdb.register_metric(con, "ndcg")  # P@1 and map are not loaded
    same(rf.evaluate(JUDGED, MEASURES, engine="duckdb", con=con), polars_result())


# -- invalid ranks: every macro and builder reading a rank column ---------------------------

RANKED = sorted(name for name, m in METRICS.items() if "rank" in m.columns)
REQUIRED = {"k": 10, "recall": 0.5, "multiple": 1.0}
BAD_RANKS = {
    "duplicate": ([1, 1, 2], "a rank occurs twice in a group"),
    "zero": ([0, 1, 2], "rank 0 is below 1"),
    "negative": ([-3, 1, 2], "rank -3 is below 1"),
}


def values(metric: Metric) -> dict[str, object]:
    sizes = {p.name: 5 for p in metric.optional if p.kind == "size"}  # evaluate fills these
    return metric.validate({p.name: REQUIRED[p.name] for p in metric.required} | sizes)


#: A value for every row of the item columns of the beyond-accuracy metrics: (SQL, Python).
ITEM_VALUES: dict[str, tuple[str, object]] = {
    "item": ("'a'", "a"), "pop": ("1", 1), "tail": ("true", True), "category": ("'x'", "x"),
    "features": ("[1.0]", [1.0]), "pair_similarity": ("0.5", 0.5), "similarity": ("0.5", 0.5),
    "alignment": ("[1.0]", [1.0]), "target": ("[1.0]", [1.0])}


def item_columns(metric: Metric) -> list[str]:
    return [c for c in metric.columns if c in ITEM_VALUES]


def roles(metric: Metric) -> dict[str, str]:
    return {"rel": "rel", "rank": "rank", **{c: c for c in item_columns(metric)}}


@pytest.mark.parametrize("name", RANKED)
def test_macro_refuses_invalid_ranks(name: str, con: duckdb.DuckDBPyConnection) -> None:
    """A repeated rank, a rank below 1 and a rank of a non-integer type: an error naming the
    macro and the cause."""
    metric = METRICS[name]
    called = call(metric, roles(metric), values(metric))
    extra = item_columns(metric)
    cells = "".join(f", {ITEM_VALUES[c][0]}" for c in extra)
    names = ", ".join(["rank", "rel", *extra])
    for kind, (ranks, cause) in BAD_RANKS.items():
        rows = ", ".join(f"({r}, 1{cells})" for r in ranks)
        query = f"SELECT {called} FROM (VALUES {rows}) t({names})"
        if kind == "duplicate" and metric.scope == "run":  # every list of a run: ranks repeat
            con.sql(query).fetchall()
            continue
        with pytest.raises(duckdb.Error, match=rf"{metric.macro}: {cause}"):
            con.sql(query).fetchall()
    with pytest.raises(duckdb.Error, match=rf"{metric.macro}: rank must be of an integer type, "
                                           "got DOUBLE"):
        con.sql(f"SELECT {called} FROM (VALUES (1.5::DOUBLE, 1{cells}), (2.0::DOUBLE, 1{cells})) "
                f"t({names})").fetchall()


@pytest.mark.parametrize("name", RANKED)
def test_builder_gives_null_for_a_group_with_invalid_ranks(name: str) -> None:
    metric = METRICS[name]
    from rankframe.faces.polars.face import expression

    frame = pl.DataFrame({
        "g": ["dup"] * 3 + ["zero"] * 3 + ["half"] * 2 + ["ok"] * 3,
        "rank": [1.0, 1.0, 2.0, 0.0, 1.0, 2.0, 1.5, 2.0, 1.0, 2.0, None],
        "rel": [1, 1, 0, 1, 1, 0, 1, 0, 1, 0, 2],
        **{c: [ITEM_VALUES[c][1]] * 11 for c in item_columns(metric)},
    })
    expr = expression(metric, roles(metric), values(metric)).alias("v")
    got = dict(frame.group_by("g").agg(expr).sort("g").iter_rows())
    ok = frame.filter(pl.col("g") == "ok").select(expr).item()
    # Every list of a run: a run metric's ranks repeat.
    dup = (frame.filter(pl.col("g") == "dup").select(expr).item() if metric.scope == "run"
           else None)
    assert got == {"dup": dup, "half": None, "ok": ok, "zero": None}
    assert ok is not None
    # Integer ranks far below 1 (the kernels compute a group before its guard masks it).
    ints = pl.DataFrame({"g": ["neg"] * 3 + ["ok"] * 3, "rank": [-5000, 1, 2, 1, 2, None],
                         "rel": [1, 1, 0, 1, 0, 2],
                         **{c: [ITEM_VALUES[c][1]] * 6 for c in item_columns(metric)}})
    got = dict(ints.group_by("g").agg(expr).sort("g").iter_rows())
    assert got == {"neg": None, "ok": ok}


def test_sql_and_polars_agree_with_the_issue_examples() -> None:
    """The numbers of the report: duplicate ranks gave P@1 = 2.0, nDCG = 1.23, AP = 1.5."""
    dup = pl.DataFrame({"qid": ["q"] * 3, "rank": [1, 1, 2], "rel": [1, 1, 1]})
    out = dup.select(rf.precision("rel", 1), rf.ndcg("rel", 3), rf.average_precision("rel"))
    assert out.row(0) == (None, None, None)
    con = rankframe.duckdb.register()
    con.register("dup", dup)
    for macro in ("rf_precision(rel, rank, 1)", "rf_ndcg(rel, rank, 3)",
                  "rf_average_precision(rel, rank, NULL)"):
        with pytest.raises(duckdb.Error, match="rank occurs twice"):
            con.sql(f"SELECT {macro} FROM dup").fetchall()


# -- rf_judge: judge's checks ---------------------------------------------------------------

RUN = pl.DataFrame({"qid": ["q", "q"], "docid": ["a", "b"], "score": [2.0, 1.0]})
QRELS = pl.DataFrame({"qid": ["q", "q"], "docid": ["a", "c"], "rel": [1, 0]})
NAN, NULL = float("nan"), None
JUDGE_CASES = {
    "nan score": (RUN.with_columns(score=pl.Series([2.0, NAN])), QRELS,
                  "column 'score' of the run is NaN", "(query 'q', docid 'b')"),
    "null score": (RUN.with_columns(score=pl.Series([2.0, NULL])), QRELS,
                   "column 'score' of the run is NULL", "(query 'q', docid 'b')"),
    "null run qid": (RUN.with_columns(qid=pl.Series(["q", NULL])), QRELS,
                     "column 'qid' of the run is NULL", "(query NULL, docid 'b')"),
    "null run docid": (RUN.with_columns(docid=pl.Series(["a", NULL])), QRELS,
                       "column 'docid' of the run is NULL", "(query 'q', docid NULL)"),
    "null grade": (RUN, QRELS.with_columns(rel=pl.Series([1, NULL])),
                   "column 'rel' of the qrels is NULL", "(query 'q', docid 'c')"),
    "nan grade": (RUN, QRELS.with_columns(rel=pl.Series([1.0, NAN])),
                  "column 'rel' of the qrels is NaN", "(query 'q', docid 'c')"),
    "null qrels qid": (RUN, QRELS.with_columns(qid=pl.Series(["q", NULL])),
                       "column 'qid' of the qrels is NULL", "(query NULL, docid 'c')"),
    # judge's order: NULL and NaN values (run, then qrels) before repeated pairs
    "null score and repeated qrels": (
        RUN.with_columns(score=pl.Series([2.0, NULL])), pl.concat([QRELS, QRELS]),
        "column 'score' of the run is NULL", "(query 'q', docid 'b')"),
}


def sql_judge(con: duckdb.DuckDBPyConnection, run: pl.DataFrame, qrels: pl.DataFrame
              ) -> list[tuple[object, ...]]:
    con.register("run", run)
    con.register("qrels", qrels)
    return con.sql("SELECT * FROM rf_judge('run', 'qrels')").fetchall()


@pytest.mark.parametrize("case", sorted(JUDGE_CASES))
def test_rf_judge_applies_judges_checks(case: str, con: duckdb.DuckDBPyConnection) -> None:
    run, qrels, problem, where = JUDGE_CASES[case]
    with pytest.raises(InputError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        rf.judge(run, qrels)  # the same problem, in judge's words
    with pytest.raises(duckdb.Error) as info:
        sql_judge(con, run, qrels)
    assert f"rf_judge: {problem}" in str(info.value)
    assert where in str(info.value)


def test_rf_judge_names_the_smallest_duplicate(con: duckdb.DuckDBPyConnection) -> None:
    run = pl.DataFrame({"qid": ["q"] * 6 + ["p", "p"],
                        "docid": ["z", "z", "b", "b", "a", "a", "y", "y"],
                        "score": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]})
    qrels = pl.DataFrame({"qid": ["q"], "docid": ["a"], "rel": [1]})
    with pytest.raises(duckdb.Error, match="in the run: query 'p', document 'y'; each pair"):
        sql_judge(con, run, qrels)
    # judge checks the qrels' pairs before the run's
    qrels = pl.DataFrame({"qid": ["q", "q", "q"], "docid": ["c", "a", "c"], "rel": [1, 0, 2]})
    with pytest.raises(InputError, match="in the qrels: query 'q', document 'c'"):
        rf.judge(run, qrels)
    with pytest.raises(duckdb.Error, match="in the qrels: query 'q', document 'c'; each pair"):
        sql_judge(con, run, qrels)


# -- nDCG: memory in proportion to each query's rows, any k ---------------------------------


@pytest.mark.parametrize("macro", ["rf_ndcg", "rf_idcg"])
def test_ndcg_takes_any_cutoff(macro: str, con: duckdb.DuckDBPyConnection) -> None:
    query = (f"SELECT {macro}(rel, rank, $k) FROM (VALUES (1, 3), (2, 0), (3, 2), (NULL, 1)) "
             "t(rank, rel)")
    whole = con.sql(query, params={"k": None}).fetchall()
    assert con.sql(query, params={"k": 10**7}).fetchall() == whole
    assert con.sql(query, params={"k": 2**62}).fetchall() == whole


def test_ndcg_cutoff_above_a_million_through_evaluate() -> None:
    got = rf.evaluate(JUDGED, ["ndcg@10000000"], engine="duckdb")
    same(got, rf.evaluate(JUDGED, ["ndcg@10000000"]))


def test_ndcg_memory_does_not_grow_with_k() -> None:
    """50,000 one-document queries at k = 1000 under a 200 MB limit: a top-k state of k
    slots per query needed 400 MB and more (out of memory); a list of each query's positive
    gains needs a few MB. Measured by hand, without the limit, 200,000 queries: peak RSS
    2160 MB before, 154 MB after."""
    con = rankframe.duckdb.register()
    con.execute("SET memory_limit = '200MB'")
    con.execute("SET threads = 2")
    sql = ("SELECT sum(v) FROM (SELECT qid, rf_ndcg(rel, rank, {k}) AS v FROM (SELECT i AS qid, "
           "1::BIGINT AS rank, (i % 3)::INTEGER AS rel FROM range(50000) r(i)) GROUP BY qid)")
    assert con.sql(sql.format(k=1000)).fetchall() == con.sql(sql.format(k="NULL")).fetchall()


# -- an all-NULL column ---------------------------------------------------------------------


@pytest.mark.parametrize("column", ["rel", "rank"])
def test_duckdb_engine_takes_an_all_null_column(column: str) -> None:
    frame = JUDGED.with_columns(pl.lit(None).alias(column))
    assert frame.schema[column] == pl.Null
    got = rf.evaluate(frame, MEASURES, engine="duckdb")
    same(got, rf.evaluate(frame, MEASURES))


def test_rf_judge_ranks_integer_scores_exactly_and_judge_ties_groups_them() -> None:
    # 2**53 + 1 and 2**53 are one DOUBLE: a cast would tie them and let docid decide.
    run = pl.DataFrame({"qid": ["q"] * 3, "docid": ["a", "b", "c"],
                        "score": [2**53 + 1, 2**53, 2**53]})
    qrels = pl.DataFrame({"qid": ["q"], "docid": ["a"], "rel": [1]})
    expected = rf.judge(run, qrels, ties="average")
    con = rankframe.duckdb.register()
    con.register("run", run)
    con.register("qrels", qrels)
    rows = con.sql("SELECT docid, rank, tie_first, tie_size FROM rf_judge_ties('run', 'qrels')"
                   ).fetchall()
    assert rows == [("a", 1, 1, 1), ("c", 2, 2, 2), ("b", 3, 2, 2)]
    assert rows == list(expected.select("docid", "rank", "tie_first", "tie_size").iter_rows())

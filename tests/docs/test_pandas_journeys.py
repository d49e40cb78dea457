"""pandas and pyarrow tables wherever the public API takes a Polars frame (converted at the
boundary, results as Polars), qrels without grades (``rel=None``), and the errors for
anything else. pandas and pyarrow are never imported for Polars inputs."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import polars as pl
import pyarrow as pa
import pytest
from polars.testing import assert_frame_equal

import rankframe as rf
from rankframe.errors import InputError
from tests.support import REPO, needs

pytestmark = needs.mark("pandas")
pd = needs.load("pandas")

RUN = pl.DataFrame({"qid": ["a", "a", "a", "b", "b"], "docid": ["x", "y", "z", "x", "w"],
                    "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
QRELS = pl.DataFrame({"qid": ["a", "a", "b", "c"], "docid": ["y", "v", "w", "x"],
                      "rel": [1, 2, 1, 1]})
MEASURES = ["ndcg@10", "map", "mrr", "P@2", "num_ret"]


def kinds(frame: pl.DataFrame) -> list[object]:
    return [frame, frame.to_pandas(), frame.to_arrow()]


@pytest.mark.parametrize("kind", ["polars", "pandas", "pyarrow"])
def test_evaluate_run_and_judge(kind: str) -> None:
    index = ["polars", "pandas", "pyarrow"].index(kind)
    run, qrels = kinds(RUN)[index], kinds(QRELS)[index]
    expected = rf.evaluate_run(RUN, QRELS, MEASURES)
    got = rf.evaluate_run(run, qrels, MEASURES)  # type: ignore[arg-type]
    assert isinstance(got, pl.DataFrame)
    assert_frame_equal(got, expected)
    judged = rf.judge(run, qrels)  # type: ignore[arg-type]
    assert isinstance(judged, pl.DataFrame)
    assert_frame_equal(judged, rf.judge(RUN, QRELS))
    # NULL ranks need a nullable integer dtype in pandas (numpy's int64 has no NULL).
    nullable = judged.to_pandas(use_pyarrow_extension_array=True)
    assert_frame_equal(rf.evaluate(nullable, MEASURES), expected)
    assert_frame_equal(rf.evaluate(judged.to_arrow(), MEASURES, engine="duckdb"), expected)
    assert_frame_equal(rf.check_judged(nullable), judged)
    assert rf.unjudged_run_queries(run, qrels).height == 0  # type: ignore[arg-type]


def test_a_lazy_side_stays_lazy() -> None:
    judged = rf.judge(RUN.to_pandas(), QRELS.lazy())
    assert isinstance(judged, pl.LazyFrame)
    assert_frame_equal(judged.collect(), rf.judge(RUN, QRELS))


def test_summarize_evaluate_runs_compare_and_groups() -> None:
    per_query = rf.evaluate_run(RUN, QRELS, MEASURES)
    assert_frame_equal(rf.summarize(per_query.to_pandas()), rf.summarize(per_query))
    runs = {"one": RUN.to_pandas(), "two": RUN.with_columns(-pl.col("score")).to_arrow()}
    stacked = rf.evaluate_runs(runs, QRELS.to_pandas(), ["P@1"], all_queries=False)
    assert stacked.rows() == [("one", "a", 0.0), ("one", "b", 0.0), ("two", "a", 0.0),
                              ("two", "b", 1.0)]
    needs.require("scipy")
    from_runs = rf.compare(runs, qrels=QRELS.to_arrow(), measures=["P@1"], all_queries=False)
    from_table = rf.compare(stacked.to_pandas())
    assert from_runs["mean"].to_list() == from_table["mean"].to_list() == [0.0, 0.5]
    jg = QRELS.with_columns(jg=pl.lit("u")).select("qid", "jg", "docid", "rel")
    assert_frame_equal(rf.judge_groups(RUN.to_pandas(), jg.to_arrow()),
                       rf.judge_groups(RUN, jg))


def test_a_named_pandas_index_becomes_a_column() -> None:
    per_query = rf.evaluate_run(RUN, QRELS, ["map"])
    indexed = per_query.to_pandas().set_index("qid")
    assert_frame_equal(rf.summarize(indexed), rf.summarize(per_query))


@pytest.mark.parametrize("bad", [{"qid": ["a"]}, [("a", "x", 1.0)], "run.txt", None])
def test_other_types_are_refused_naming_what_is_accepted(bad: object) -> None:
    with pytest.raises(TypeError, match=r"evaluate_run: the run: .*expected a polars DataFrame "
                       r"or LazyFrame, a pandas DataFrame, a pyarrow Table, a dict \{qid: "
                       r"\{docid: score\}\}, a ranx Run, an iterable of ir_measures "
                       r"ScoredDoc\(query_id, doc_id, score\), or TorchMetrics-style \(preds, "
                       r"indexes\) arrays"):
        rf.evaluate_run(bad, QRELS, ["map"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="summarize: the per_query: expected a polars "):
        rf.summarize(bad)  # type: ignore[arg-type]


def test_a_pandas_series_or_arrow_array_is_refused() -> None:
    with pytest.raises(TypeError, match=r"judge: the qrels: .*, got pandas\..*Series"):
        rf.judge(RUN, QRELS.to_pandas()["qid"])
    with pytest.raises(TypeError, match=r"judge: the run: .*, got pyarrow\..*Array"):
        rf.judge(pa.array([1, 2]), QRELS)


def test_a_table_polars_cannot_convert_is_an_input_error() -> None:
    mixed = pd.DataFrame({"qid": ["a", 1], "docid": ["x", "y"], "score": [1.0, 2.0]})
    with pytest.raises(InputError, match=r"evaluate_run: the run \(pandas DataFrame\) "
                       r"cannot be converted to Polars: "):
        rf.evaluate_run(mixed, QRELS, ["map"])


def test_a_lazyframe_where_a_dataframe_is_needed() -> None:
    with pytest.raises(TypeError, match=r"summarize: the per_query: expected a DataFrame .* "
                       r"got a LazyFrame; collect it first"):
        rf.summarize(RUN.lazy())  # type: ignore[arg-type]


def test_pandas_and_pyarrow_are_not_imported_for_polars_frames() -> None:
    code = textwrap.dedent("""
        import sys
        import polars as pl
        import rankframe as rf
        run = pl.DataFrame({"qid": ["a"], "docid": ["x"], "score": [1.0]})
        qrels = pl.DataFrame({"qid": ["a"], "docid": ["x"]})
        rf.evaluate_run(run, qrels, ["map"], rel=None)
        rf.summarize(rf.evaluate(rf.judge(run, qrels, rel=None), ["map"]))
        print(sorted(m for m in ("pandas", "pyarrow") if m in sys.modules))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, timeout=120, check=True)
    assert done.stdout.strip() == "[]"


# Implicit feedback: qrels without a grade column.

HELD_OUT = pd.DataFrame({"user": ["u1", "u1", "u2"], "item": ["i3", "i9", "i1"]})
PREDICTIONS = pd.DataFrame({"user": ["u1", "u1", "u2", "u2"], "item": ["i9", "i1", "i2", "i1"],
                            "score": [0.9, 0.5, 0.8, 0.3]})


def test_rel_none_grades_every_listed_pair_1() -> None:
    per_user = rf.evaluate_run(PREDICTIONS, HELD_OUT, ["recall@2", "mrr"], query="user",
                               doc="item", rel=None)
    assert per_user.rows() == [("u1", 0.5, 1.0), ("u2", 1.0, 0.5)]
    judged = rf.judge(PREDICTIONS, HELD_OUT, query="user", doc="item", rel=None)
    assert judged.columns == ["user", "item", "rank", "rel", "score"]
    assert judged.sort("user", "item")["rel"].to_list() == [None, 1, 1, 1, None]
    graded = HELD_OUT.assign(rel=1)
    assert_frame_equal(
        per_user, rf.evaluate_run(PREDICTIONS, graded, ["recall@2", "mrr"], query="user",
                                  doc="item"))


def test_a_missing_grade_column_says_how_to_go_without() -> None:
    for call in (rf.evaluate_run, lambda r, q, *_a, **kw: rf.judge(r, q, **kw)):
        with pytest.raises(InputError, match=r"the qrels has no column 'rel'; its columns "
                           r"are: 'user', 'item'\. .*pass rel=None for qrels without grades"):
            call(PREDICTIONS, HELD_OUT, ["mrr"], query="user", doc="item")


def test_rel_none_beside_a_rel_column_is_refused() -> None:
    with pytest.raises(InputError, match="rel=None gives every qrels pair the grade 1 in a "
                       "new column 'rel', but the qrels already has one"):
        rf.judge(RUN, QRELS, rel=None)

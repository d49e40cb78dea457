"""The streamed run reader (rankframe.io.stream) and the streamed evaluation of a run file
(rankframe.analysis.runs.trec_eval_run_file): the same values as reading the file whole, in
blocks of whole queries, with a fall-back to read_run for every file it cannot stream."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from rankframe.analysis.runs import trec_eval_per_query, trec_eval_run_file
from rankframe.errors import InputError
from rankframe.io import read_qrels, read_run
from rankframe.io.stream import NotStreamable, RunStream
from rankframe.trec_eval import unjudged_count
from tests.support.faces import examples
from tests.support.trec_data import TrecCase, trec_cases

MEASURES = ["ndcg_cut_10", "map", "recip_rank", "P_5", "recall_10", "num_ret", "num_rel"]


def write_plain(case: TrecCase, directory: Path, order: list[str] | None = None) -> Path:
    """The run as a plainly laid out file (single spaces, LF), queries in ``order``."""
    path = directory / "plain.run"
    with path.open("w") as f:
        for q in order or list(case.run):
            for i, (d, s) in enumerate(case.run[q].items(), start=1):
                f.write(f"{q} Q0 {d} {i} {s!r} tag{q}\n")
    return path


SPANNING = TrecCase(  # q2 spans 200-byte pieces and ends where one ends: q3 is its own
    run={"q1": {"1": 0.0},
         "q2": {"d3": 0.0, "d4": 0.0, "5": 0.0, "6": 0.0, "2": 0.0, "d6": 0.0, "d10": 0.0,
                "3": 0.0, "15": 0.0, "D-040": 1.1330161094665527, "D-001": 0.0,
                "D-039": 1.1050244569778442, "D-010": -1.3261611461639404},
         "q3": {"1": 1.0000100135803223, "2": 0.0, "d1": 0.0}, "q5": {"1": 0.0}},
    qrels={"q1": {"4": 0, "2": 0, "1": 0}, "q2": {"d3": 0}, "q3": {"1": 0},
           "q4": {"1": 0}})


@settings(max_examples=examples(share=0.8), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=trec_cases(), block=st.sampled_from([1, 40, 200, 1 << 20]),
       complete=st.booleans(), depth=st.sampled_from([None, 3]))
@example(case=SPANNING, block=200, complete=False, depth=None)
def test_streamed_equals_whole(tmp_path: Path, case: TrecCase, block: int, complete: bool,
                               depth: int | None) -> None:
    qrels_path, _ = case.write(tmp_path)
    path = write_plain(case, tmp_path)
    qrels = read_qrels(qrels_path)
    run = read_run(path)
    stream = RunStream(path, block_bytes=block)
    blocks = list(stream)
    assert stream.tag == run["tag"][0]
    assert_frame_equal(pl.concat(blocks), run.select("qid", "docid", "score"))
    # whole queries: no query in two blocks
    assert pl.concat([b["qid"].unique() for b in blocks]).is_unique().all()
    try:
        expected = trec_eval_per_query(run, qrels, MEASURES, all_queries=complete,
                                       depth=depth)
    except Exception as exc:  # no query left: the same error
        with pytest.raises(type(exc), match="no queries"):
            trec_eval_run_file(path, qrels, MEASURES, all_queries=complete, depth=depth,
                               block_bytes=block)
    else:
        got = trec_eval_run_file(path, qrels, MEASURES, all_queries=complete, depth=depth,
                                 block_bytes=block)
        assert_frame_equal(got.per_query, expected)
        assert got.runid == run["tag"][0]
        assert got.unjudged == unjudged_count(run, qrels)


def test_queries_not_contiguous_fall_back(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text("a 0 x 1\nb 0 y 1\n")
    path = tmp_path / "run"
    path.write_text("a Q0 x 1 2.0 t\nb Q0 y 1 2.0 t\na Q0 z 2 1.0 t\n")
    stream = RunStream(path, block_bytes=1)
    list(stream)
    heads = pl.concat(stream.heads)
    assert heads.to_list() == ["a", "b", "a"]  # seen twice: not grouped
    qrels = read_qrels(tmp_path / "qrels")
    got = trec_eval_run_file(path, qrels, ["num_ret", "P_1"], block_bytes=1)
    assert got.per_query.rows() == [("a", 2, 1.0), ("b", 1, 1.0)]


def test_a_query_over_several_pieces_is_a_block_of_its_own(tmp_path: Path) -> None:
    """Its ids are made once when it closes (not held per piece) and its pieces become the
    chunks of its docid and score columns (not copied); the queries after it, in the piece
    where it ends, go to the next block."""
    lines = ["a Q0 d0 1 9.0 t\n"]
    lines += [f"b Q0 d{i} {i} {100 - i}.0 t\n" for i in range(1, 40)]
    lines += ["c Q0 e1 1 3.0 t\n", "d Q0 e2 1 2.0 t\n", "d Q0 e3 2 1.0 t\n"]
    path = tmp_path / "run"
    path.write_text("".join(lines))
    stream = RunStream(path, block_bytes=64)  # about four lines a piece
    blocks = list(stream)
    assert [b["qid"].unique(maintain_order=True).to_list() for b in blocks][1] == ["b"]
    whole = pl.concat(blocks)
    assert whole.equals(read_run(path).select("qid", "docid", "score"))
    assert [b.n_chunks("all") for b in blocks] == [[1, 1, 1], [1, 14, 14], [1, 1, 1], [1, 2, 2]]
    assert pl.concat(stream.heads).to_list() == ["a", "b", "c", "d"]


@pytest.mark.parametrize("text", [
    "a Q0 x 1 2.0 t\na Q0 y 2 nan t\n",
    "a Q0 x 1 2.0 t\na Q0 y 2 1.0\n",
    "",
])
def test_not_plain_is_not_streamed(tmp_path: Path, text: str) -> None:
    path = tmp_path / "run"
    path.write_text(text)
    with pytest.raises(NotStreamable):
        list(RunStream(path))


def test_problems_named_by_line(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text("a 0 x 1\n")
    qrels = read_qrels(tmp_path / "qrels")
    path = tmp_path / "run"
    path.write_text("a Q0 x 1 2.0 t\na Q0 y 2 1.0 t\na Q0 x 3 0.5 t\n")
    with pytest.raises(InputError, match=r"line 3: duplicate document 'x'"):
        trec_eval_run_file(path, qrels, ["map"])
    path.write_text("a Q0 x 1 2.0 t\na Q0 y 2 1.0\n")
    with pytest.raises(InputError, match=r"line 2: expected at least 6 fields"):
        trec_eval_run_file(path, qrels, ["map"])


def test_pipe_is_read_whole(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text("a 0 x 1\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(NotStreamable):
        list(RunStream(fifo))
    writer = threading.Thread(target=(tmp_path / "fifo").write_text,
                              args=("a Q0 y 1 2.0 t\na Q0 x 2 1.0 t\n",))
    writer.start()
    got = trec_eval_run_file(fifo, read_qrels(tmp_path / "qrels"), ["recip_rank"])
    writer.join()
    assert got.per_query.rows() == [("a", 0.5)]
    assert got.runid == "t"


def test_block_bytes_grow_with_the_file_within_bounds() -> None:
    """A 32nd of the file per block, never under BLOCK_BYTES nor over MAX_BLOCK_BYTES."""
    from rankframe.io.stream import BLOCK_BYTES, MAX_BLOCK_BYTES, block_bytes_for

    assert block_bytes_for(0) == BLOCK_BYTES
    assert block_bytes_for(75 << 20) == (75 << 20) // 32
    assert block_bytes_for(10 << 30) == MAX_BLOCK_BYTES
    assert BLOCK_BYTES < MAX_BLOCK_BYTES

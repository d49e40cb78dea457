"""The generated pages of the documentation site cover the code they are generated from."""

from __future__ import annotations

import re

from docsgen import cli, measures, peers
from rankframe import faces
from rankframe.registry import METRICS


def test_measure_reference_has_every_metric_and_face() -> None:
    page = measures.page()  # from each face's declared gaps: no optional extra imported
    sections = re.findall(r"^## (\w+)$", page, flags=re.MULTILINE)
    assert sections == list(METRICS)
    names, support = measures.face_support()
    assert names == list(faces.REGISTERED)
    assert set(METRICS) <= set(support)
    assert "`ibis-polars`: needs a window function" in page
    ndcg = page[page.index("\n## ndcg\n"):page.index("\n## num_ret\n")]
    assert "`gain` (choice, one of `linear`, `exponential`): `'linear'`" in ndcg
    assert "`ndcg_cut`" in ndcg and "`ndcg_burges`" in ndcg


def test_trec_eval_names_map_to_metrics() -> None:
    trec = measures.trec_names()
    assert trec["precision"] == ["P", "set_P"]
    assert trec["average_precision"] == ["map", "gm_map", "map_cut"]
    assert "err_cut (rankframe eval only)" in trec["err"]


def test_peer_notes_name_registered_metrics_and_known_peers() -> None:
    assert set(peers.NOTES) <= set(METRICS)
    assert all(set(notes) <= set(peers.PEERS) for notes in peers.NOTES.values())


def test_cli_reference_has_every_subcommand() -> None:
    page = cli.page()
    assert re.findall(r"^## `(.+)`$", page, flags=re.MULTILINE) == [
        "rankframe", "rankframe eval", "rankframe compare", "rankframe sql"]
    assert "--trec-eval9" in page

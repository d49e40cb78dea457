"""The generated pages of the documentation site cover the code they are generated from."""

from __future__ import annotations

import re

import pytest

from docsgen import cli, measures, peers
from rankframe import faces
from rankframe.errors import RankframeError
from rankframe.metrics.registry import METRICS


def test_measure_reference_has_every_metric_and_face() -> None:
    try:
        page = measures.page()
    except RankframeError as exc:  # a face's optional extra is missing (the docs need all)
        pytest.skip(f"the measure reference needs every face's module: {exc}")
    sections = re.findall(r"^## (\w+)$", page, flags=re.MULTILINE)
    assert sections == ["Faces", *METRICS]
    header = next(line for line in page.splitlines() if line.startswith("| metric |"))
    assert [c.strip() for c in header.strip("|").split("|")][1:] == list(faces.REGISTERED)
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

"""rankframe.analysis.plots: every plot renders to PNG and SVG with the expected content."""
# ruff: noqa: E402  (imports after the check of what the module needs)

from __future__ import annotations

import itertools
import random
from pathlib import Path

import polars as pl
import pytest

from tests.support import needs

pytestmark = needs.module_level("matplotlib")

from rankframe.analysis.plots import (
    metric_at_k,
    per_query_difference,
    precision_recall,
    save,
)
from rankframe.errors import InputError, MeasureError

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
LEVELS = [i / 10 for i in range(11)]


def per_query(n: int = 25) -> pl.DataFrame:
    """Three systems over n queries with ndcg@k, map and 11-point iprec columns."""
    rng = random.Random(0)
    rows = []
    for s, (name, skill) in enumerate((("bm25", 0.35), ("bm25+rm3", 0.4), ("dense", 0.5))):
        for q in range(n):
            base = min(1.0, max(0.0, skill + rng.gauss(0, 0.15) + 0.05 * (q % 3)))
            row: dict[str, object] = {"system": name, "qid": f"q{q:03d}", "map": base * 0.8}
            for k in (1, 3, 5, 10, 20, 100):
                row[f"ndcg@{k}"] = min(1.0, base * (0.7 + 0.1 * s + 0.05 * k ** 0.5))
            precision = 1.0
            for level in LEVELS:
                precision = min(precision, max(0.0, base + 0.4 - 0.6 * level
                                               + rng.uniform(-0.05, 0.05)))
                row[f"iprec_at_recall_{level:.2f}"] = precision
            rows.append(row)
    return pl.DataFrame(rows)


def check_png(path: Path) -> None:
    data = path.read_bytes()
    assert data.startswith(PNG_MAGIC)
    assert len(data) > 10_000  # axes, lines, labels: far above an empty canvas


def check_svg(path: Path, *texts: str) -> None:
    svg = path.read_text()
    assert svg.lstrip().startswith("<?xml") and "</svg>" in svg
    for text in texts:
        assert text in svg, text


def test_metric_at_k_from_per_query_columns(tmp_path: Path) -> None:
    fig = metric_at_k(per_query(), title="nDCG by cutoff")
    ax = fig.axes[0]
    assert [line.get_label() for line in ax.get_lines()] == ["bm25", "bm25+rm3", "dense"]
    xs, ys = ax.get_lines()[2].get_data()
    assert list(xs) == [1, 3, 5, 10, 20, 100]
    expected = per_query().filter(pl.col("system") == "dense")["ndcg@10"].mean()
    assert ys[3] == pytest.approx(expected)
    assert ax.get_ylabel() == "ndcg"
    assert ax.get_xscale() == "log"
    check_png(save(fig, tmp_path / "ndcg_at_k.png"))
    svg = tmp_path / "ndcg_at_k.svg"
    save(fig, svg)
    check_svg(svg)


def test_metric_at_k_from_long_frame(tmp_path: Path) -> None:
    long = pl.DataFrame({
        "system": ["a", "a", "a", "b", "b", "b", "a"],
        "k": [5, 10, 20, 5, 10, 20, 5],
        "value": [0.5, 0.45, 0.4, 0.6, 0.5, 0.42, 0.3],
    })
    fig = metric_at_k(long, measure="P")
    ax = fig.axes[0]
    xs, ys = ax.get_lines()[0].get_data()
    assert list(xs) == [5, 10, 20]
    assert list(ys) == pytest.approx([0.4, 0.45, 0.4])  # the two a@5 rows averaged
    assert ax.get_ylabel() == "P"
    assert ax.get_xscale() == "linear"
    check_png(save(fig, tmp_path / "p.png"))


def test_metric_at_k_errors() -> None:
    with pytest.raises(MeasureError, match="families found: map, ndcg"):
        metric_at_k(pl.DataFrame({"system": ["a"], "ndcg@5": [0.1], "map@5": [0.2]}))
    with pytest.raises(MeasureError, match="no numeric column named recall@<k>"):
        metric_at_k(per_query(3), measure="recall")
    with pytest.raises(InputError, match="'run' not found"):
        metric_at_k(per_query(3), system="run")
    with pytest.raises(InputError, match="empty"):
        metric_at_k(per_query(3).clear())


def test_per_query_difference(tmp_path: Path) -> None:
    pq = per_query()
    fig = per_query_difference(pq, "map", a="bm25", b="dense")
    ax = fig.axes[0]
    heights = [bar.get_height() for bar in ax.patches]
    assert len(heights) == 25
    assert heights == sorted(heights, reverse=True)
    a = pq.filter(pl.col("system") == "bm25")["map"].to_list()
    b = pq.filter(pl.col("system") == "dense")["map"].to_list()
    assert sorted(heights) == pytest.approx(sorted(y - x for x, y in zip(a, b, strict=True)))
    wins = sum(y > x for x, y in zip(a, b, strict=True))
    assert f"{wins} wins" in ax.get_title()
    assert len(ax.get_xticklabels()) == 25  # few queries: ids are printed
    check_png(save(fig, tmp_path / "diff.png"))
    save(fig, tmp_path / "diff.svg")
    check_svg(tmp_path / "diff.svg")
    many = per_query_difference(per_query(60), "map", a="bm25", b="dense")
    assert len(many.axes[0].get_xticklabels()) == 0


def test_per_query_difference_errors() -> None:
    pq = per_query(4)
    with pytest.raises(InputError, match="system 'splade' not in column 'system'"):
        per_query_difference(pq, "map", a="bm25", b="splade")
    with pytest.raises(InputError, match=r"1 query\(ies\) lack a value of 'map'.*'q003'"):
        per_query_difference(pq.filter(~((pl.col("system") == "dense")
                                         & (pl.col("qid") == "q003"))),
                             "map", a="bm25", b="dense")
    with pytest.raises(MeasureError, match="not numeric"):
        per_query_difference(pq.with_columns(pl.col("map").cast(pl.String)), "map",
                             a="bm25", b="dense")


def test_precision_recall(tmp_path: Path) -> None:
    pq = per_query()
    fig = precision_recall(pq, title="11-point interpolated precision")
    ax = fig.axes[0]
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["bm25", "bm25+rm3", "dense"]
    xs, ys = lines[0].get_data()
    assert list(xs) == pytest.approx(LEVELS)
    bm25 = pq.filter(pl.col("system") == "bm25")
    assert list(ys) == pytest.approx([bm25[f"iprec_at_recall_{x:.2f}"].mean() for x in LEVELS])
    assert all(y1 >= y2 for y1, y2 in itertools.pairwise(ys))  # interpolated: monotone
    check_png(save(fig, tmp_path / "pr.png"))
    save(fig, tmp_path / "pr.pdf")
    assert (tmp_path / "pr.pdf").read_bytes().startswith(b"%PDF")
    with pytest.raises(MeasureError, match="no column named iprec_at_recall_<recall level>"):
        precision_recall(pq.select("system", "map"))
    with pytest.raises(InputError, match="no rows for system 'x'"):
        precision_recall(pq, systems=["bm25", "x"])


def test_save_rejects_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"must end in \.png, \.svg or \.pdf"):
        save(precision_recall(per_query(3)), tmp_path / "pr.gif")


def test_plots_read_trec_eval_and_rankframe_column_names_alike() -> None:
    trec = pl.DataFrame({"system": ["a", "b"], "qid": ["q1", "q1"],
                         "ndcg_cut_5": [0.2, 0.3], "ndcg_cut_10": [0.25, 0.35]})
    ours = trec.rename({"ndcg_cut_5": "ndcg@5", "ndcg_cut_10": "ndcg@10"})
    for frame in (trec, ours):
        for measure in (None, "ndcg", "ndcg_cut"):
            axes = metric_at_k(frame, measure=measure).axes[0]
            assert axes.get_ylabel() == "ndcg"
            assert [list(line.get_ydata()) for line in axes.lines] == [[0.2, 0.25], [0.3, 0.35]]
    levels = {"iprec@0": 1.0, "iprec@0.5": 0.5, "iprec@1": 0.2}
    for names in (list(levels), ["iprec_at_recall_0.00", "iprec_at_recall_0.50",
                                 "iprec_at_recall_1.00"]):
        frame = pl.DataFrame({"system": ["a"], **dict(zip(names, ([v] for v in levels.values()),
                                                          strict=True))})
        line = precision_recall(frame).axes[0].lines[0]
        assert list(line.get_xdata()) == [0.0, 0.5, 1.0]
        assert list(line.get_ydata()) == [1.0, 0.5, 0.2]

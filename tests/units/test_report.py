"""rankframe.analysis.report: golden text, Markdown and LaTeX renderings of a fixed comparison."""

from __future__ import annotations

import polars as pl
import pytest

from rankframe.analysis.report import (
    significance_markers,
    system_letters,
    to_latex,
    to_markdown,
    to_text,
)
from rankframe.errors import InputError
from tests.support import needs


@pytest.fixture
def cmp() -> pl.DataFrame:
    """bm25 is the baseline; bm25_rm3 beats it on ndcg@10, dense beats it on map, and the
    baseline beats dense on ndcg@10; bm25_rm3's map loss is not significant."""
    return pl.DataFrame({
        "system": ["bm25", "bm25", "bm25_rm3", "bm25_rm3", "dense", "dense"],
        "measure": ["ndcg@10", "map"] * 3,
        "baseline": ["bm25"] * 6,
        "mean": [0.41234, 0.30001, 0.45678, 0.29, 0.38, 0.33333],
        "delta": [None, None, 0.04444, -0.01001, -0.03234, 0.03332],
        "significant": [None, None, True, False, True, True],
    })


LEGEND = ("Superscript letters name the systems a value is significantly better than "
          "(tests against the baseline bm25).")


def test_letters_and_markers(cmp: pl.DataFrame) -> None:
    assert system_letters(cmp) == {"bm25": "a", "bm25_rm3": "b", "dense": "c"}
    assert significance_markers(cmp) == {
        ("bm25", "ndcg@10"): "c", ("bm25", "map"): "",
        ("bm25_rm3", "ndcg@10"): "a", ("bm25_rm3", "map"): "",
        ("dense", "ndcg@10"): "", ("dense", "map"): "a",
    }


def test_text_golden(cmp: pl.DataFrame) -> None:
    assert to_text(cmp) == (
        "     system    ndcg@10   map\n"
        "(a)  bm25      0.4123^c  0.3000\n"
        "(b)  bm25_rm3  0.4568^a  0.2900\n"
        "(c)  dense     0.3800    0.3333^a\n"
        "\n"
        f"{LEGEND}\n"
    )


def test_markdown_golden(cmp: pl.DataFrame) -> None:
    assert to_markdown(cmp, digits=3) == (
        "|  | system | ndcg@10 | map |\n"
        "|---|---|---:|---:|\n"
        "| (a) | bm25 | 0.412<sup>c</sup> | 0.300 |\n"
        "| (b) | bm25\\_rm3 | **0.457**<sup>a</sup> | 0.290 |\n"
        "| (c) | dense | 0.380 | **0.333**<sup>a</sup> |\n"
        "\n"
        f"{LEGEND}\n"
    )


def test_latex_golden(cmp: pl.DataFrame) -> None:
    tabular = (
        "\\begin{tabular}{llrr}\n"
        "\\toprule\n"
        " & System & ndcg@10 & map \\\\\n"
        "\\midrule\n"
        "(a) & bm25 & 0.4123\\textsuperscript{c} & 0.3000 \\\\\n"
        "(b) & bm25\\_rm3 & \\textbf{0.4568}\\textsuperscript{a} & 0.2900 \\\\\n"
        "(c) & dense & 0.3800 & \\textbf{0.3333}\\textsuperscript{a} \\\\\n"
        "\\bottomrule\n"
        "\\end{tabular}\n"
    )
    assert to_latex(cmp) == f"% {LEGEND}\n" + tabular
    assert to_latex(cmp, legend=False) == tabular
    assert to_latex(cmp, caption="Runs on 50% of TREC DL", label="tab:cmp") == (
        "\\begin{table}\n"
        "\\centering\n"
        f"\\caption{{Runs on 50\\% of TREC DL. {LEGEND}}}\n"
        "\\label{tab:cmp}\n"
        + tabular
        + "\\end{table}\n"
    )


def test_ties_for_best_are_all_bold_and_missing_cells_dash() -> None:
    cmp = pl.DataFrame({
        "system": ["x", "y", "y"], "measure": ["P@5", "P@5", "R&D"],
        "baseline": ["x"] * 3, "mean": [0.5, 0.5, 0.125],
        "delta": [None, 0.0, None], "significant": [None, False, None],
    })
    assert to_markdown(cmp, legend=False) == (
        "|  | system | P@5 | R&D |\n"
        "|---|---|---:|---:|\n"
        "| (a) | x | **0.5000** | - |\n"
        "| (b) | y | **0.5000** | **0.1250** |\n"
    )
    assert "P@5 & R\\&D \\\\" in to_latex(cmp)


def test_end_to_end_with_compare() -> None:
    needs.require("scipy")
    from rankframe.analysis.compare import compare

    per_query = pl.DataFrame({
        "system": ["base"] * 6 + ["better"] * 6 + ["worse"] * 6,
        "qid": [f"q{i}" for i in range(6)] * 3,
        "map": [0.25, 0.5, 0.375, 0.5, 0.125, 0.25,
                0.5, 0.75, 0.5, 0.75, 0.375, 0.5,
                0.0, 0.25, 0.125, 0.25, 0.0, 0.125],
    })
    result = compare(per_query, test="t", correction="holm")
    assert to_text(result, legend=False) == (
        "     system  map\n"
        "(a)  base    0.3333^c\n"
        "(b)  better  0.5625^a\n"
        "(c)  worse   0.1250\n"
    )


def test_report_input_errors(cmp: pl.DataFrame) -> None:
    with pytest.raises(InputError, match="lacks column\\(s\\) significant"):
        to_text(cmp.drop("significant"))
    with pytest.raises(InputError, match="empty"):
        to_markdown(cmp.clear())
    with pytest.raises(InputError, match="'bm25' has 2 rows for measure 'ndcg@10'"):
        to_latex(pl.concat([cmp, cmp.head(2)]))
    with pytest.raises(ValueError, match="digits"):
        to_text(cmp, digits=-1)
    with pytest.raises(TypeError, match="polars DataFrame"):
        to_text(cmp.to_dicts())  # type: ignore[arg-type]


def test_many_systems_get_double_letters() -> None:
    names = [f"s{i:02d}" for i in range(28)]
    cmp = pl.DataFrame({"system": names})
    letters = system_letters(cmp)
    assert [letters[n] for n in names[24:]] == ["y", "z", "aa", "ab"]

"""``rankframe eval`` with item inputs (``--items``, ``--train``, ``--target``, ``--catalog``):
the beyond-accuracy measures of TREC run files in the tidy table, with the numbers of
``rf.evaluate_run`` and a Catalog of the same tables, the side tables' own column names,
and one error line naming the option to pass.

The data: Microsoft Recommenders' diversity fixture (as in docs/howto/recommender.md),
whose coverage is 0.8 and novelty 2.8333.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import polars as pl
import pytest

import rankframe as rf
from rankframe.cli import main
from rankframe.measures import parse

RUN = "".join(f"{user} Q0 {item} {rank} {score} model\n" for user, item, rank, score in [
    (1, 3, 1, 0.9), (1, 5, 2, 0.8), (2, 2, 1, 0.9), (2, 5, 2, 0.8), (3, 1, 1, 0.9),
    (3, 2, 2, 0.8)])
QRELS = "".join(f"{user} 0 {item} 1\n" for user, item in [(1, 3), (2, 2), (2, 5), (3, 1)])
TRAIN = pl.DataFrame({"user_id": [1, 1, 1, 2, 2, 3, 3, 3],
                      "item_id": [1, 2, 4, 3, 4, 3, 4, 5]})
ITEMS = pl.DataFrame({"item_id": [1, 2, 3, 4, 5],
                      "genre": ["drama", "comedy", "drama", "action", "comedy"]})
MEASURES = ["coverage@2", "gini@2", "novelty@2", "ild_category@2", "diversity",
            "serendipity@2", "recall@2"]
NAMED = ["--catalog", "item=item_id", "--catalog", "user=user_id", "--catalog",
         "category=genre"]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {"run": tmp_path / "run.txt", "qrels": tmp_path / "qrels.txt",
             "train": tmp_path / "train.parquet", "items": tmp_path / "items.csv"}
    paths["run"].write_text(RUN)
    paths["qrels"].write_text(QRELS)
    TRAIN.write_parquet(paths["train"])
    ITEMS.write_csv(paths["items"])
    return {name: str(path) for name, path in paths.items()}


def tidy(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[tuple[str, str], float]:
    """``rankframe eval --format csv ARGS``'s rows as {(qid, measure): value}."""
    assert main(["eval", "--format", "csv", *args]) == 0
    rows = csv.DictReader(io.StringIO(capsys.readouterr().out))
    return {(row["qid"], row["measure"]): float(row["value"]) for row in rows}


def error_line(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["eval", "--format", "csv", *args]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("rankframe: error: "), err
    return err[0]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_the_tidy_table_holds_evaluate_runs_numbers(engine: str, files: dict[str, str],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    options = [f"-m{m}" for m in MEASURES]
    got = tidy(["-q", "--engine", engine, *options, "--train", files["train"], "--items",
                files["items"], *NAMED, files["qrels"], files["run"]], capsys)
    catalog = rf.Catalog(items=ITEMS.rename({"item_id": "docid"}),
                         train=TRAIN.rename({"item_id": "docid", "user_id": "qid"}),
                         category="genre")
    per_query = rf.evaluate_run(rf.read_run(files["run"]), rf.read_qrels(files["qrels"]),
                                MEASURES, catalog=catalog, all_queries=False)
    summary = rf.summarize(per_query).row(0, named=True)
    want = {("", m): summary[m] for m in MEASURES}
    run_measures = {m for m in MEASURES if parse(m).metric.scope == "run"}
    want |= {(str(row["qid"]), m): row[m] for row in per_query.iter_rows(named=True)
             for m in MEASURES if m not in run_measures and row[m] is not None}
    assert got == want
    assert got[("", "coverage@2")] == 0.8  # Microsoft Recommenders' numbers
    assert got[("", "novelty@2")] == pytest.approx(2.8333, abs=1e-4)


def test_side_tables_named_docid_and_qid_need_no_setting(
        files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    train = tmp_path / "train.csv"
    TRAIN.rename({"item_id": "docid", "user_id": "qid"}).write_csv(train)
    got = tidy(["-m", "novelty@2", "-m", "coverage@2", "--train", str(train), files["qrels"],
                files["run"]], capsys)
    assert got[("", "novelty@2")] == pytest.approx(2.8333, abs=1e-4)
    assert got[("", "coverage@2")] == 0.8  # the catalogue: the training items


@pytest.mark.parametrize(("args", "named"), [
    (["-m", "novelty@2", "--train", "{train}"],
     "--train {train}: no user column 'qid' (its columns: 'user_id', 'item_id'); name yours "
     "with --catalog user=COLUMN"),
    (["-m", "ild_category@2", "--items", "{items}", "--catalog", "item=sku"],
     "--items {items}: no item column 'sku'"),
    (["-m", "ild_category@2", "--items", "{items}", "--catalog", "item=item_id"],
     "the items table has no column 'category'; its columns are: 'docid', 'genre'; on the "
     "command line: --items FILE, --train FILE, --target FILE and --catalog KEY=VALUE"),
    (["-m", "novelty@2"], "needs the training interactions (Catalog(train=...)) or an items "
     "table with a popularity column (Catalog(items=..., pop=...)); on the command line: "
     "--items FILE"),
    (["-m", "coverage@2", "--items", "{missing}"], "--items {missing}: no such file"),
])
def test_a_missing_input_is_one_line_naming_the_option(
        args: list[str], named: str, files: dict[str, str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    paths = {**files, "missing": str(tmp_path / "nope.parquet")}
    line = error_line([a.format(**paths) for a in args] + [files["qrels"], files["run"]],
                      capsys)
    assert named.format(**paths) in line


def test_a_side_table_with_both_names_is_refused(files: dict[str, str], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    items = tmp_path / "items.parquet"
    ITEMS.with_columns(docid=pl.col("item_id")).write_parquet(items)
    line = error_line(["-m", "ild_category@2", "--items", str(items), *NAMED, files["qrels"],
                       files["run"]], capsys)
    assert "has both 'item_id' (its docid by --catalog) and a 'docid' column" in line


def test_the_trec_format_is_refused_naming_the_tidy_ones(
        files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "-m", "coverage@2", "--train", files["train"], *NAMED,
                 files["qrels"], files["run"]]) == 1
    assert "--format csv, json or parquet" in capsys.readouterr().err

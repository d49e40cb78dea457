"""``rankframe eval`` with item inputs: the beyond-accuracy measures (coverage, novelty,
diversity, serendipity, AWRF ...) of each run, in the tidy table.

``--items``, ``--train`` and ``--target`` name the tables of a :class:`rankframe.Catalog`
(parquet, or CSV with a header), ``--catalog KEY=VALUE`` its other settings; the run and
qrels files are TREC files (query = user, docid = item); ``--catalog item=COLUMN`` and
``user=COLUMN`` name the item and user columns of the side tables, which are read as docid
and qid (their defaults). Each run is evaluated whole by
:func:`rankframe.evaluate_run` (``-M`` its depth, ``-l`` its threshold, ``-J`` its
``judged_only``, ``-c`` its ``all_queries``) over trec_eval's queries: the qrels queries the
run answered (``-c``: every qrels query), a run query without qrels left out. The output is
the tidy table (``--format csv``, ``json`` or ``parquet``): one summary row per measure and
run (qid empty), and with ``-q`` a row per query and list measure (a run measure's value is
its run's). An undefined value (a list metric of an empty list: NULL) has no row. Contract:
docs/semantics.md#beyond-accuracy.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from rankframe import trec_eval
from rankframe.beyond.roles import reads_items
from rankframe.cli import eval_output
from rankframe.cli.eval_output import TidyRow
from rankframe.errors import InputError, RankframeError
from rankframe.measures import parse

if TYPE_CHECKING:  # Polars is imported only when item inputs are evaluated
    import polars as pl

    from rankframe.beyond.catalog import Catalog

__all__ = ["CATALOG_KEYS", "add_arguments", "run", "wanted"]

#: ``--catalog KEY=VALUE``: the Catalog settings it takes, and how each value is read.
CATALOG_KEYS: dict[str, type] = {
    "item": str, "user": str, "category": str, "features": str, "group": str, "pop": str,
    "popularity": str, "long_tail": float, "similarity": str}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the item inputs, on ``rankframe eval``'s parser."""
    parser.add_argument("--items", metavar="FILE",
                        help="beyond-accuracy measures: the items table (parquet or CSV): "
                        "docid and attribute columns (category, features, group); the "
                        "catalogue of coverage and gini")
    parser.add_argument("--train", metavar="FILE",
                        help="beyond-accuracy measures: the training interactions (parquet "
                        "or CSV): qid (the user) and docid (the item), one row each; "
                        "popularity, the long tail, histories, co-occurrence")
    parser.add_argument("--target", metavar="FILE",
                        help="awrf: the target distribution (parquet or CSV): group and "
                        "weight columns, and qid for a target per query")
    parser.add_argument("--catalog", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting of the item inputs (rankframe.Catalog): "
                        + ", ".join(CATALOG_KEYS) + "; repeatable")


def _measures(args: argparse.Namespace) -> list[str]:
    return list(args.m or [])


def wanted(args: argparse.Namespace) -> bool:
    """True when the item inputs are given or a ``-m`` measure reads them."""
    if args.items or args.train or args.target:
        return True
    parsed = []
    for spec in _measures(args):
        if trec_eval.is_spec(spec):
            continue
        try:
            parsed.append(parse(spec))
        except RankframeError:
            continue  # reported by the usual path
    return reads_items(parsed)


def _table(option: str, path: str | None) -> pl.DataFrame | None:
    import polars as pl

    if path is None:
        return None
    if not os.path.isfile(path):
        raise InputError(f"{option} {path}: no such file")
    try:
        if path.endswith((".parquet", ".pq")):
            return pl.read_parquet(path)
        return pl.read_csv(path)
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise InputError(f"{option} {path}: cannot be read as "
                         f"{'parquet' if path.endswith(('.parquet', '.pq')) else 'CSV'} "
                         f"({exc})") from None


#: The TREC files' columns, which the side tables' item and user columns are read as.
_TREC_COLUMNS = {"item": "docid", "user": "qid"}

#: What each side table must hold besides its attributes: (role, option naming it) pairs.
_KEYS_OF = {"--items": ("item",), "--train": ("user", "item"), "--target": ()}


def _side_table(option: str, path: str | None, names: dict[str, str]) -> pl.DataFrame | None:
    """A side table read, its item and user columns (``names``: role -> the file's column)
    renamed to the TREC files' docid and qid; an error naming the option and what to pass
    when a key column is missing."""
    table = _table(option, path)
    if table is None:
        return None
    renames = {names[role]: _TREC_COLUMNS[role] for role in names
               if names[role] in table.columns and names[role] != _TREC_COLUMNS[role]}
    for column, trec in renames.items():
        if trec in table.columns:
            raise InputError(f"{option} {path}: has both {column!r} (its {trec} by --catalog) "
                             f"and a {trec!r} column; keep one")
    table = table.rename(renames)
    for role in _KEYS_OF[option]:
        if _TREC_COLUMNS[role] not in table.columns:
            have = ", ".join(repr(c) for c in table.columns)
            raise InputError(f"{option} {path}: no {role} column {names[role]!r} (its columns: "
                             f"{have}); name yours with --catalog {role}=COLUMN")
    return table


def catalog_of(args: argparse.Namespace) -> Catalog:
    """The Catalog the options describe: the side tables' item and user columns (``--catalog
    item=``, ``user=``; default docid and qid) read as the TREC files' docid and qid."""
    from rankframe.beyond.catalog import Catalog

    names = dict(_TREC_COLUMNS)
    settings: dict[str, Any] = {}
    for setting in args.catalog:
        key, sep, value = setting.partition("=")
        if not sep or key not in CATALOG_KEYS:
            raise RankframeError(f"--catalog {setting!r}: expected KEY=VALUE with KEY one of "
                                 f"{', '.join(CATALOG_KEYS)}")
        try:
            typed = CATALOG_KEYS[key](value)
        except ValueError:
            raise RankframeError(f"--catalog {setting!r}: {key} must be a number") from None
        if key in names:
            names[key] = str(typed)
        else:
            settings[key] = typed
    items = _side_table("--items", args.items, names)
    train = _side_table("--train", args.train, names)
    target = _side_table("--target", args.target, {"user": names["user"]})
    try:
        return Catalog(items=items, train=train, target=target, item=_TREC_COLUMNS["item"],
                       user=_TREC_COLUMNS["user"], **settings)
    except ValueError as exc:
        raise RankframeError(f"--catalog: {exc}") from None


#: Words of the Catalog's errors about its inputs (a table, a column), which the command
#: line follows with its own spelling of them.
_ABOUT_THE_INPUTS = ("Catalog(", "table has no column")

#: How the command line spells what an error in the Python API's words asks for.
_ON_THE_COMMAND_LINE = ("on the command line: --items FILE, --train FILE, --target FILE and "
                        "--catalog KEY=VALUE (category=, features=, group=, pop= name their "
                        "columns)")


def _rows(name: str, per_query: pl.DataFrame, measures: list[str], per_query_rows: bool,
          summaries: bool) -> Iterator[TidyRow]:
    from rankframe.evaluate import summarize

    parsed = {m: parse(m) for m in measures}
    if per_query_rows:
        for row in per_query.iter_rows(named=True):
            for m in measures:
                if parsed[m].metric.scope == "list" and row[m] is not None:
                    yield TidyRow(name, str(row["qid"]), m, float(row[m]))
    if summaries:
        summary = summarize(per_query, measures).row(0, named=True)
        for m in measures:
            if summary[m] is not None:
                yield TidyRow(name, None, m, float(summary[m]))


def run(args: argparse.Namespace, paths: list[str]) -> int:
    """Evaluate every run with the item inputs and write the tidy table."""
    if args.format == "trec":
        raise RankframeError("the beyond-accuracy measures and --items/--train/--target are "
                             "printed in the tidy table: --format csv, json or parquet")
    if args.R != "qrels" or args.ties != "docid" or "-" in paths:
        raise RankframeError("the beyond-accuracy measures read -R qrels, --ties docid and "
                             "run files (not standard input)")
    measures = _measures(args)
    if not measures or any(trec_eval.is_spec(m) and "." in m for m in measures):
        raise RankframeError("with item inputs, -m takes measure strings (coverage@10, "
                             "novelty@10, ndcg@10 ...), one per -m")
    import dataclasses

    from rankframe.evaluate import evaluate_run
    from rankframe.io import read_qrels, read_run

    catalog = catalog_of(args)
    qrels = read_qrels(args.qrels)
    engine = "polars" if args.engine in ("auto", "python") else args.engine
    tables = []
    for path in paths:
        try:
            per_query = evaluate_run(read_run(path), qrels, measures, depth=args.M,
                                     threshold=args.l, judged_only=args.J, engine=engine,
                                     catalog=dataclasses.replace(catalog), all_queries=args.c)
        except InputError as exc:  # the API's words for the inputs, and the options' too
            if not any(words in str(exc) for words in _ABOUT_THE_INPUTS):
                raise
            raise InputError(f"{exc}; {_ON_THE_COMMAND_LINE}") from None
        tables.append((path, per_query))
    rows = [row for path, table in tables
            for row in _rows(path, table, measures, args.q, not args.n)]
    with eval_output.Output(args.output, binary=args.format == "parquet") as out:
        if args.format == "csv":
            eval_output.write_csv(rows, out)
        elif args.format == "json":
            eval_output.write_json(rows, out)
        else:
            from rankframe.cli.eval_frames import write_parquet

            write_parquet(rows, out)
    return 0

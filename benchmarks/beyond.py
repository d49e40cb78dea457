"""The beyond-accuracy metrics at scale: coverage, Gini, novelty and category ILD against
nDCG@10 on the same rows, on Polars and DuckDB, with each engine's peak memory.

    python benchmarks/beyond.py --users 100k          # 10M rows (top-100 lists)
    python benchmarks/beyond.py --users 1M            # 100M rows

The table: one row per user and rank 1..100 (user Int32, sorted; rank Int16), the item
(Int32, Zipf-distributed over a 100k catalogue), a 0/1 grade (3 % of rows relevant), the
item's training popularity (Int32) and category (Int16, 30 of them), generated in each
engine's fresh process (seeded), as a table that has its item attributes joined already.
Each measure is timed alone (best of ``--repeat``) and the four together, in two ways:

  evaluate   rf.evaluate(table, measures, query="user", engine=...): the table checked,
             each measure's value per user (the run metrics' value joined to every user);
             nDCG@10 there reads only the relevant rows (its positive-rows cut);
  expression the bare aggregation over every row: Polars ``group_by("user").agg(...)``
             (the run metrics a ``select`` over the whole table) and DuckDB SQL over a
             table of its own (``GROUP BY user``; the run metrics without a GROUP BY);
             nDCG@10 there reads every row.

Printed: seconds and the ratio to nDCG@10 of the same way (target: at most 3), and each
engine's peak RSS (the table included). ``--only "all four"`` times nDCG@10 and the named
rows alone, so that the peak RSS of one measure's process can be set beside nDCG@10's
(``--only ndcg@10``). Quote ``uptime``'s load beside the numbers: the
machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import spawn  # noqa: E402

CATALOG = 100_000
DEPTH = 100
CATEGORIES = 30
RELEVANT = 0.03
MEASURES = {  # name -> measure string (catalogue size and total given: no Catalog to join)
    "coverage": f"coverage(catalog={CATALOG})@10",
    "gini": f"gini(catalog={CATALOG})@10",
    "novelty": "novelty(total=100000000)@10",
    "ild_category": "ild_category@10",
}


def _users(text: str) -> int:
    text = text.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1], 1)
    return int(float(text.rstrip("km")) * scale)


def table(users: int, seed: int = 35) -> Any:
    """The recommendation table (see the module docstring)."""
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(seed)
    n = users * DEPTH
    item = ((rng.zipf(1.3, n) - 1) % CATALOG).astype(np.int32)
    pop = (np.bincount(item, minlength=CATALOG)[item] // DEPTH + 1).astype(np.int32)
    return pl.DataFrame({
        "user": np.repeat(np.arange(users, dtype=np.int32), DEPTH),
        "rank": np.tile(np.arange(1, DEPTH + 1, dtype=np.int16), users),
        "item": item,
        "rel": (rng.random(n) < RELEVANT).astype(np.int8),
        "pop": pop,
        "category": (item % CATEGORIES).astype(np.int16),
    }).with_columns(pl.col("user").set_sorted())


def best(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def polars_expressions() -> dict[str, Callable[[Any], object]]:
    import polars as pl

    import rankframe as rf

    return {
        "ndcg@10": lambda t: t.group_by("user").agg(rf.ndcg("rel", 10)),
        "coverage": lambda t: t.select(rf.coverage("item", 10, catalog=CATALOG)),
        "gini": lambda t: t.select(rf.gini("item", 10, catalog=CATALOG)),
        "novelty": lambda t: t.group_by("user").agg(rf.novelty("pop", 10, total=10**8)),
        "ild_category": lambda t: t.group_by("user").agg(rf.ild_category("category", 10)),
        "all four": lambda t: (t.select(rf.coverage("item", 10, catalog=CATALOG),
                                        rf.gini("item", 10, catalog=CATALOG)),
                               t.group_by("user").agg(rf.novelty("pop", 10, total=10**8),
                                                      rf.ild_category("category", 10)))
        and pl.len(),
    }


def duckdb_expressions() -> dict[str, str]:
    per_user = "SELECT user, {} FROM t GROUP BY user"
    return {
        "ndcg@10": per_user.format("rf_ndcg(rel, rank, 10) AS v"),
        "coverage": f"SELECT rf_coverage(item, rank, 10, catalog := {CATALOG}) AS v FROM t",
        "gini": f"SELECT rf_gini(item, rank, 10, catalog := {CATALOG}) AS v FROM t",
        "novelty": per_user.format("rf_novelty(pop, rank, 10, total := 100000000) AS v"),
        "ild_category": per_user.format("rf_ild_category(category, rank, 10) AS v"),
    }


def child(engine: str, users: int, repeat: int, only: list[str] | None = None
          ) -> dict[str, Any]:
    """Time every measure (or nDCG@10 and those ``only`` names) both ways on one engine, in
    this process."""
    import rankframe as rf

    data = table(users)
    out: dict[str, Any] = {"rows": data.height, "table_mib": data.estimated_size("mb")}
    measures = {"ndcg@10": ["ndcg@10"], **{k: [v] for k, v in MEASURES.items()},
                "all four": list(MEASURES.values())}

    def chosen(rows: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in rows.items() if only is None or k in ("ndcg@10", *only)}

    measures = chosen(measures)
    out["evaluate"] = {name: best(lambda m=m: rf.evaluate(data, m, query="user",
                                                          engine=engine), repeat)
                       for name, m in measures.items()}
    if engine == "polars":
        out["expression"] = {name: best(lambda f=f: f(data), repeat)
                             for name, f in chosen(polars_expressions()).items()}
    else:
        import duckdb

        import rankframe.duckdb as rfd

        con = rfd.register(duckdb.connect())
        con.execute("SET enable_progress_bar = false")
        con.register("source", data.to_arrow())
        con.execute("CREATE TABLE t AS FROM source")
        con.unregister("source")
        queries = duckdb_expressions()
        queries["all four"] = (
            f"SELECT * FROM ({queries['coverage']}), ({queries['gini']}), "
            "(SELECT count(*), sum(n), sum(d) FROM (SELECT user, "
            "rf_novelty(pop, rank, 10, total := 100000000) AS n, "
            "rf_ild_category(category, rank, 10) AS d FROM t GROUP BY user))")
        out["expression"] = {
            name: best(lambda q=q: con.execute(
                f"SELECT count(*) FROM ({q})").fetchall(), repeat)
            for name, q in chosen(queries).items()}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", default="100k", help="users (100k: 10M rows; 1M: 100M)")
    parser.add_argument("--engines", default="polars,duckdb")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", help="rows to time besides ndcg@10, comma-separated "
                        "(coverage, gini, novelty, ild_category, all four)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    users = _users(args.users)
    only = None if args.only is None else [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = sorted(set(only or []) - {"ndcg@10", *MEASURES, "all four"})
    if unknown:
        parser.error(f"--only: unknown row {unknown[0]!r}")
    if args.child:
        print(json.dumps(child(args.child, users, args.repeat, only)))
        return
    print(f"load before: {os.getloadavg()[0]:.2f}")
    for engine in args.engines.split(","):
        extra = [] if args.only is None else ["--only", args.only]
        wall, rss, text = spawn([sys.executable, str(Path(__file__)), "--users", args.users,
                                 "--repeat", str(args.repeat), "--child", engine, *extra])
        result = json.loads(text)
        print(f"\n{engine}: {result['rows']:,} rows, table {result['table_mib']:,.0f} MiB, "
              f"peak RSS {rss:,.0f} MiB, process {wall:.0f} s")
        for way in ("evaluate", "expression"):
            base = result[way]["ndcg@10"]
            cells = "  ".join(f"{name} {seconds:.2f}s ({seconds / base:.2f}x)"
                              for name, seconds in result[way].items() if name != "ndcg@10")
            print(f"  {way:10s} ndcg@10 {base:.2f}s | {cells}")
    print(f"\nload after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

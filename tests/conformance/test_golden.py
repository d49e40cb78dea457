"""Golden cases: the worked examples of docs/semantics.md#worked-examples, on every
registered face, each value equal to the printed digits."""

from __future__ import annotations

from typing import Any

import polars as pl

from rankframe.faces.base import Face, supports
from rankframe.registry import METRICS
from tests.support.faces import COLUMNS, measure

BINARY_135 = [1, 0, 1, 0, 1]            # relevant at ranks 1, 3, 5; R = 3
GRADED_32301 = [3, 2, 3, 0, 1]
EIGHT_1346 = [1, 0, 1, 1, 0, 1, 0, 0]   # relevant at ranks 1, 3, 4, 6; R = 4
GRADED_52401 = [5, 2, 4, 0, 1]


def table(grades: list[int], unretrieved: int = 0) -> pl.DataFrame:
    """Ranks 1..n with these grades, then ``unretrieved`` relevant rows without a rank."""
    return pl.DataFrame(
        {"qid": ["q"] * (len(grades) + unretrieved),
         "rel": [float(g) for g in grades] + [1.0] * unretrieved,
         "rank": list(range(1, len(grades) + 1)) + [None] * unretrieved},
        schema={"qid": pl.String, "rel": pl.Float64, "rank": pl.Int64},
    )


# (grades, metric, parameters, expected value, decimals as printed in docs/semantics.md)
CASES: list[tuple[list[int], str, dict[str, Any], float, int]] = [
    *[(BINARY_135, "precision", {"k": k}, v, 3)
      for k, v in zip(range(1, 6), [1, 0.5, 0.667, 0.5, 0.6], strict=True)],
    *[(BINARY_135, "recall", {"k": k}, v, 3)
      for k, v in zip(range(1, 6), [0.333, 0.333, 0.667, 0.667, 1.0], strict=True)],
    *[(BINARY_135, "f1", {"k": k}, v, 3)
      for k, v in zip(range(1, 6), [0.5, 0.4, 0.667, 0.571, 0.75], strict=True)],
    (BINARY_135, "reciprocal_rank", {"k": None}, 1.0, 4),
    (BINARY_135, "average_precision", {"k": None}, 0.7556, 4),
    *[(GRADED_32301, "cg", {"k": k}, v, 4)
      for k, v in zip(range(1, 6), [3, 5, 8, 8, 9], strict=True)],
    *[(GRADED_32301, "dcg", {"k": k}, v, 4)
      for k, v in zip(range(1, 6), [3, 4.2619, 5.7619, 5.7619, 6.1487], strict=True)],
    (GRADED_32301, "idcg", {"k": 5}, 6.3235, 4),
    (GRADED_32301, "ndcg", {"k": 5}, 0.9724, 4),
    (GRADED_32301, "dcg", {"k": 5, "gains": {1: 3, 2: 9}}, 11.3389, 4),
    (GRADED_32301, "idcg", {"k": 5, "gains": {1: 3, 2: 9}}, 13.6848, 4),
    (GRADED_32301, "dcg", {"k": 5, "gains": {0: 2}}, 7.0101, 4),
    (GRADED_32301, "idcg", {"k": 5, "gains": {0: 2}}, 7.1410, 4),
    (EIGHT_1346, "precision", {"k": 4}, 0.75, 4),
    (EIGHT_1346, "recall", {"k": 4}, 0.75, 4),
    (EIGHT_1346, "f1", {"k": 4}, 0.75, 4),
    (EIGHT_1346, "average_precision", {"k": None}, 0.7708, 4),
    (EIGHT_1346, "dcg", {"k": 8}, 2.2869, 4),
    (EIGHT_1346, "idcg", {"k": 8}, 2.5616, 4),
    *[(EIGHT_1346, "ndcg", {"k": 8, "gain": g}, 0.8928, 4) for g in ("linear", "exponential")],
    (GRADED_52401, "dcg", {"k": 5}, 8.6487, 4),
    (GRADED_52401, "idcg", {"k": 5}, 8.9544, 4),
    (GRADED_52401, "ndcg", {"k": 5}, 0.9659, 4),
]

# docs/semantics.md#average-precision-divisors: relevant at 1, 3, 4 of the top 5, R = 4.
AP_TOP5 = [1, 0, 1, 1, 0, 0, 1]
CASES += [
    (AP_TOP5, "average_precision", {"k": 5, "divisor": "found"}, 0.8056, 4),
    (AP_TOP5, "average_precision", {"k": 5, "divisor": "relevant"}, 0.6042, 4),
    (AP_TOP5, "average_precision", {"k": 5, "divisor": "min"}, 0.6042, 4),
]

# docs/semantics.md#r_precision_mult: relevant at 1, 3, 5 and one unretrieved, R = 4.
RPREC_MULT = [1, 0, 1, 0, 1]
CASES += [
    (RPREC_MULT, "r_precision_mult", {"multiple": x}, v, 4)
    for x, v in ((0.2, 1.0), (0.6, 0.6667), (1.0, 0.5), (2.0, 0.375))
]

def test_worked_examples(face: Face) -> None:
    """All cases in one evaluation per face (one Spark job): case i is query ``c<i>`` of a
    stacked table and measure ``c<i>``; only that cell is compared."""
    cases = [c for c in CASES if supports(face, METRICS[c[1]])]
    judged = pl.concat([
        table(grades, 1 if name == "r_precision_mult" else 0).with_columns(qid=pl.lit(f"c{i}"))
        for i, (grades, name, *_) in enumerate(cases)])
    measures = [measure(METRICS[name], values, f"c{i}")
                for i, (_, name, values, _, _) in enumerate(cases)]
    result = face.to_polars(face.evaluate(face.native(judged), measures, ["qid"], COLUMNS))
    rows = {row["qid"]: row for row in result.iter_rows(named=True)}
    wrong = [
        f"{name}{values} on {''.join(map(str, grades))}: {rows[f'c{i}'][f'c{i}']} vs {expected}"
        for i, (grades, name, values, expected, decimals) in enumerate(cases)
        if abs(rows[f"c{i}"][f"c{i}"] - expected) > 0.5 * 10**-decimals
    ]
    assert not wrong, f"{face.name}: " + "; ".join(wrong)


# docs/semantics.md#trec_evals-set-and-gain-measures: ranks 1-6 graded 1, 0, NULL, 2, 0, -1,
# unretrieved rows graded 2, 1, 0 (n = 6, R = 4, hits = 2); trec_eval 10 prints the same.
TREC_RANKED: list[float | None] = [1, 0, None, 2, 0, -1]
TREC_UNRETRIEVED = [2, 1, 0]
TREC_CASES: list[tuple[str, dict[str, Any], float, int]] = [
    *[("relative_precision", {"k": k}, v, 4)
      for k, v in [(1, 1.0), (2, 0.5), (3, 0.3333), (5, 0.5), (10, 0.5), (None, 0.5)]],
    ("set_map", {}, 0.1667, 4),
    ("utility", {}, -2.0, 4),
    ("utility", {"a": 2, "c": -0.5}, -1.0, 4),
    ("num_nonrel_judged_ret", {"k": None}, 2, 0),
    ("num_nonrel_judged_ret", {"k": 3}, 1, 0),
    *[("unjudged", {"k": k}, v, 4)
      for k, v in [(2, 0.0), (3, 0.3333), (5, 0.2), (10, 0.2), (None, 0.3333)]],
    ("bin_g", {}, 0.375, 4),
    ("g", {}, 0.2487, 4),
    ("g", {"gains": {2: 5}}, 0.1711, 4),
]


def test_trec_eval_measures_worked_example(face: Face) -> None:
    cases = [c for c in TREC_CASES if supports(face, METRICS[c[0]])]
    rel = [*TREC_RANKED, *TREC_UNRETRIEVED]
    rank = [*range(1, len(TREC_RANKED) + 1), *[None] * len(TREC_UNRETRIEVED)]
    judged = pl.DataFrame({"qid": ["q"] * len(rel), "rel": rel, "rank": rank},
                          schema={"qid": pl.String, "rel": pl.Float64, "rank": pl.Int64})
    measures = [measure(METRICS[name], values, f"c{i}")
                for i, (name, values, _, _) in enumerate(cases)]
    result = face.to_polars(face.evaluate(face.native(judged), measures, ["qid"], COLUMNS))
    row = result.row(0, named=True)
    wrong = [f"{name}{values}: {row[f'c{i}']} vs {expected}"
             for i, (name, values, expected, decimals) in enumerate(cases)
             if abs(row[f"c{i}"] - expected) > 0.5 * 10**-decimals]
    assert not wrong, f"{face.name}: " + "; ".join(wrong)


# docs/semantics.md#trec_eval-s-further-measures: (rel, rank) rows, rank None = unretrieved.
MIXED_INFAP = [(1, 1), (None, 2), (0, 3), (-1, 4), (1, 5), (1, None)]
ONE_0_1 = [(1, 1), (0, 2), (1, 3), (1, None)]
GRADED_021 = [(0, 1), (2, 2), (1, 3), (1, None)]
R_LEVELS = [(1, 1), (2, 2), (0, 3), (0, 4), (2, None)]
RELSTRING = [(2, 1), (None, 2), (-1, 4), (12, 5), (1, None)]
FURTHER_CASES: list[tuple[list[tuple[int | None, int | None]], str, dict[str, Any], object]] = [
    (MIXED_INFAP, "infap", {}, 0.5),
    (MIXED_INFAP, "infap", {"threshold": 2}, 0.0),
    (ONE_0_1, "yaap", {}, 0.1335),
    (GRADED_021, "ndcg_rel", {}, 0.5350),
    (GRADED_021, "ndcg_p", {}, 0.7246),
    (GRADED_021, "ndcg_p", {"threshold": 2}, 0.7246),
    (GRADED_021, "ndcg_p", {"threshold": 3}, 0.0),
    (R_LEVELS, "rndcg", {}, 0.6473),
    (R_LEVELS, "rndcg", {"threshold": 3}, 0.0),
    ([(g, r) for r, g in enumerate(GRADED_32301, start=1)], "ndcg",
     {"k": 5, "gains": {1: 3, 2: 9}}, 0.8286),
    (RELSTRING, "relstring", {}, "2--.>"),
    (RELSTRING, "relstring", {"length": 2}, "2-"),
]


def test_trec_eval_further_measures(face: Face) -> None:
    """infAP, yaap, ndcg_rel, ndcg_p, Rndcg, ndcg's gains and relstring on the worked
    examples (each also in its builder's docstring), every face."""
    cases = [c for c in FURTHER_CASES if supports(face, METRICS[c[1]])]
    judged = pl.DataFrame(
        [(f"c{i}", None if g is None else float(g), r)
         for i, (rows, *_) in enumerate(cases) for g, r in rows],
        schema={"qid": pl.String, "rel": pl.Float64, "rank": pl.Int64}, orient="row")
    measures = [measure(METRICS[name], values, f"c{i}")
                for i, (_, name, values, _) in enumerate(cases)]
    result = face.to_polars(face.evaluate(face.native(judged), measures, ["qid"], COLUMNS))
    got = {row["qid"]: row for row in result.iter_rows(named=True)}
    wrong = [f"{name}{values}: {got[f'c{i}'][f'c{i}']!r} vs {expected!r}"
             for i, (_, name, values, expected) in enumerate(cases)
             if (got[f"c{i}"][f"c{i}"] != expected if isinstance(expected, str)
                 else abs(got[f"c{i}"][f"c{i}"] - expected) > 0.00005)]
    assert not wrong, f"{face.name}: " + "; ".join(wrong)

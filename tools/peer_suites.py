"""Run a peer's own metric tests with the peer's metric functions swapped for rankframe's.

A maintainer's check (not part of ``python -m pytest``): pytrec_eval's, ranx's,
ir_measures' and TorchMetrics' own test files are run by pytest with the functions they
test replaced by thin wrappers that hand the tests' own inputs to rankframe through its
peer input routes (dicts of dicts, ranx ``Qrels``/``Run``, ir_measures namedtuples,
TorchMetrics-style ``(values, indexes)`` arrays; :mod:`rankframe.peer_inputs`) and their
measure names through its measure grammar. A test that passes is one where rankframe
gives the number the peer's test expects.

Usage::

    pip install -e '.[peers]'                  # the peers, then what their own tests need:
    pip install 'scikit-learn>1.5,<1.8' cachier trectools cwl-eval
    git clone https://github.com/cvangysel/pytrec_eval /tmp/pytrec_eval   # and so on
    python tools/peer_suites.py pytrec_eval /tmp/pytrec_eval
    python tools/peer_suites.py ranx /tmp/ranx
    python tools/peer_suites.py ir_measures /tmp/ir_measures
    python tools/peer_suites.py torchmetrics /tmp/torchmetrics [-- extra pytest arguments]

SOURCE is a checkout of the peer's repository (its ``tests``), ideally at the tag of the
installed version; ir_measures' sdist also carries its tests. The script prints the tests
run, passed and failed (with each failure's first line) and the value checks that passed
(``assert`` statements, ``assertEqual``/``assertAlmostEqual`` and NumPy's ``assert_*``),
and exits 0 when every selected test passed.

What is swapped, per peer (everything else is the peer's own code):

- pytrec_eval: ``RelevanceEvaluator`` (its measure specs, nicknames, relevance level).
- ranx: ``ranx.evaluate`` and the metric functions of ``ranx.metrics`` its tests call.
- ir_measures: the pytrec_eval and ranx providers, and ``ir_measures.iter_calc`` /
  ``calc_aggregate``.
- TorchMetrics: the per-query functions of ``torchmetrics.functional.retrieval`` (which
  its ``Retrieval*`` classes call per query): average precision, reciprocal rank, nDCG,
  precision, recall, hit rate, R-precision. Fall-out, AUROC and the precision-recall curve
  have no rankframe measure, so their test files are not run.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import math
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankframe as rf
from rankframe import trec_eval
from rankframe.peer_inputs import peer_frame
from rankframe.trec_eval.measures import BY_NAME, level_names

# --- shared -------------------------------------------------------------------------------


def per_query(run: object, qrels: object, measures: list[str], **options: Any) -> pl.DataFrame:
    """rankframe's per-query table of a run and qrels in any accepted form."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rf.evaluate_run(run, qrels, measures, **options)


def _value(value: Any) -> float:
    return float("nan") if value is None else float(value)


# --- pytrec_eval --------------------------------------------------------------------------

#: Measures trec_eval 10 added to its nicknames: pytrec_eval wraps trec_eval 9.x, whose
#: all_trec lacks them.
TREC_EVAL10_ONLY = frozenset({"rbp", "rbp_resid", "unj"})


class RankframeEvaluator:
    """pytrec_eval's ``RelevanceEvaluator`` on rankframe: the same measure specs (``map``,
    ``ndcg_cut.10``, ``ndcg_cut_20,4``, nicknames; parameters given replace the defaults,
    as pytrec_eval does), the same per-query dicts, trec_eval 9.x's iprec_at_recall, the
    queries of the run that have qrels."""

    def __init__(self, query_relevance: Mapping[str, Mapping[str, int]],
                 measures: Iterable[str], relevance_level: int = 1,
                 judged_docs_only_flag: bool = False) -> None:
        self.qrels = query_relevance
        self.level = relevance_level
        self.judged_only = judged_docs_only_flag
        chosen: dict[str, set[str] | None] = {}
        for spec in measures:
            root, dot, params = spec.partition(".")
            if not dot and root not in BY_NAME and "_" in root:
                head, _, tail = root.rpartition("_")  # pytrec_eval's ndcg_cut_20,4
                if head in BY_NAME:
                    root, params = head, tail
            if root in trec_eval.NICKNAMES:
                for name in trec_eval.NICKNAMES[root]:
                    if name not in TREC_EVAL10_ONLY:
                        chosen.setdefault(name, None)
            elif params:
                chosen[root] = (chosen.get(root) or set()) | set(params.split(","))
            else:
                chosen.setdefault(root, None)
        specs = [root if params is None else f"{root}.{','.join(sorted(params))}"
                 for root, params in chosen.items()]
        self.selection = trec_eval.select(specs) if specs else []

    def evaluate(self, run: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, Any]]:
        queries = [q for q in run if q in self.qrels]
        if not queries or not self.selection:
            return {q: {} for q in queries}
        strings = trec_eval.measure_strings(self.selection, trec_eval9=True)
        table = per_query({q: run[q] for q in queries}, self.qrels,
                          list(dict.fromkeys(strings.values())), threshold=self.level,
                          judged_only=self.judged_only)
        rows = {row["qid"]: row for row in table.iter_rows(named=True)}
        out: dict[str, dict[str, Any]] = {}
        for q in queries:
            values: dict[str, Any] = {name: rows[q][string] for name, string in strings.items()
                                      if not name.startswith("__")}
            for measure, params in self.selection:
                if measure.kind in ("runid", "num_q"):
                    values[measure.name] = "rankframe" if measure.kind == "runid" else 1
                if measure.name == "11pt_avg":  # per query: the mean over its recall levels
                    levels = [rows[q][strings[name]] for name in level_names(params)]
                    values["11pt_avg"] = sum(levels) / len(levels)
            out[q] = values
        return out


def swap_pytrec_eval() -> None:
    import pytrec_eval

    pytrec_eval.RelevanceEvaluator = RankframeEvaluator


# --- ranx ---------------------------------------------------------------------------------

#: ranx's metric names -> rankframe measure strings ({k}: the cutoff, or nothing).
RANX_NAMES = {
    "hits": "num_rel_ret{k}", "hit_rate": "success{k}", "precision": "P{k}",
    "recall": "recall{k}", "f1": "f1{k}", "r-precision": "Rprec", "r_precision": "Rprec",
    "mrr": "mrr{k}", "reciprocal_rank": "mrr{k}", "map": "map{k}",
    "average_precision": "map{k}", "ndcg": "ndcg{k}", "ndcg_burges": "ndcg(gain=exponential){k}",
    "dcg": "dcg{k}", "dcg_burges": "dcg(gain=exponential){k}", "bpref": "bpref",
    # ranx's graded RBP: the grade itself as gain
    "rbp": "rbp(graded=true, max_grade=1, clip=false)@{p}",
}


def _ranx_measure(name: str) -> tuple[str, float]:
    """A ranx metric name (``ndcg@10``, ``rbp.95``, ``precision@5-l2``) as a rankframe
    measure string and its relevance level."""
    name, _, level = name.partition("-l")
    threshold = float(level) if level else 1.0
    if name.startswith("rbp."):
        return RANX_NAMES["rbp"].format(p=float("0." + name[4:])), threshold
    base, at, k = name.partition("@")
    return RANX_NAMES[base].format(k=f"@{k}" if at else ""), threshold


def _ranx_inputs(qrels: Any, run: Any) -> tuple[object, object]:
    """ranx's own objects as they are (rankframe reads them); its internal arrays (one
    ``[[doc, grade], ...]`` / ``[[doc, score], ...]`` array per query, the run's in rank
    order) as dicts of dicts, the position giving the rank."""
    if type(qrels).__module__.startswith("ranx") or isinstance(qrels, Mapping):
        return qrels, run  # ranx's Qrels and Run, or dicts: rankframe reads them
    qrels_dict: dict[str, dict[str, float]] = {}
    run_dict: dict[str, dict[str, float]] = {}
    for i, (truth, ranked) in enumerate(zip(qrels, run, strict=True)):
        grades = qrels_dict.setdefault(str(i), {})
        for doc, grade in truth:
            grades[repr(float(doc))] = max(float(grade), grades.get(repr(float(doc)), -math.inf))
        scores = run_dict.setdefault(str(i), {})
        for position, (doc, _) in enumerate(ranked):
            scores.setdefault(repr(float(doc)), -float(position))  # ranx: array order
    return qrels_dict, run_dict


def ranx_scores(qrels: Any, run: Any, name: str) -> dict[str, float]:
    """query id -> rankframe's value of the ranx metric ``name``, in ranx's query order."""
    measure, threshold = _ranx_measure(name)
    qrels_in, run_in = _ranx_inputs(qrels, run)
    table = per_query(run_in, qrels_in, [measure], threshold=threshold)
    if not (type(qrels).__module__.startswith("ranx") or isinstance(qrels, Mapping)):
        table = table.sort(pl.col("qid").cast(pl.Int64))
    return {str(q): _value(v) for q, v in table.select("qid", measure).iter_rows()}


def ranx_values(qrels: Any, run: Any, name: str) -> Any:
    import numpy as np

    return np.array(list(ranx_scores(qrels, run, name).values()))


def ranx_evaluate(qrels: Any, run: Any, metrics: str | list[str], return_mean: bool = True,
                  return_std: bool = False, make_comparable: bool = False, **_: Any) -> Any:
    """ranx's ``evaluate`` on rankframe; its API's habits kept: the query ids of run and
    qrels must match unless ``make_comparable`` (rankframe then evaluates every qrels
    query), a mean or per-query values, ``return_std``."""
    import numpy as np

    keys = [set(x.keys()) for x in (qrels, run) if hasattr(x, "keys")]
    if len(keys) == 2 and keys[0] != keys[1] and not make_comparable:
        raise ValueError("Qrels and Run query ids do not match (ranx's rule; "
                         "make_comparable=True evaluates every qrels query)")
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    scores = {m: ranx_scores(qrels, run, m) for m in names}
    values = {m: np.array(list(v.values())) for m, v in scores.items()}
    if type(run).__module__.startswith("ranx") and hasattr(run, "scores"):
        for m, v in values.items():  # ranx keeps the results in the run (its habit)
            run.scores[m] = scores[m]
            run.mean_scores[m] = float(np.mean(v)) if len(v) else 0.0
            run.std_scores[m] = float(np.std(v)) if len(v) else 0.0
    if return_mean:
        means: dict[str, Any] = {m: float(np.mean(v)) if len(v) else 0.0
                                 for m, v in values.items()}
        if return_std:
            means = {m: {"mean": means[m], "std": float(np.std(v)) if len(v) else 0.0}
                     for m, v in values.items()}
        return means[names[0]] if isinstance(metrics, str) else means
    return values[names[0]] if isinstance(metrics, str) else values


def _ranx_metric(name: str) -> Callable[..., Any]:
    def metric(qrels: Any, run: Any, k: int = 0, *args: Any, **kwargs: Any) -> Any:
        if name == "rbp":
            return ranx_values(qrels, run, f"rbp.{str(k).partition('.')[2]}")
        level = kwargs.get("rel_lvl", args[0] if args else 1)
        cut = f"@{k}" if k else ""
        return ranx_values(qrels, run, f"{name}{cut}-l{level}")
    return metric


def swap_ranx() -> None:
    import importlib

    import ranx
    import ranx.metrics

    ranx.evaluate = ranx_evaluate
    importlib.import_module("ranx.meta").evaluate = ranx_evaluate  # type: ignore[attr-defined]
    names = {"hits": "hits", "hit_rate": "hit_rate", "precision": "precision",
             "recall": "recall", "f1": "f1", "r_precision": "r_precision",
             "reciprocal_rank": "reciprocal_rank", "average_precision": "average_precision",
             "ndcg": "ndcg", "ndcg_burges": "ndcg_burges", "dcg": "dcg",
             "dcg_burges": "dcg_burges", "bpref": "bpref",
             "rank_biased_precision": "rbp"}
    for function, name in names.items():
        setattr(ranx.metrics, function, _ranx_metric(name))
        module = sys.modules.get(f"ranx.metrics.{function}")
        if module is None:
            with contextlib.suppress(ImportError):
                module = importlib.import_module(f"ranx.metrics.{function}")
        if module is not None and hasattr(module, function):
            setattr(module, function, _ranx_metric(name))


# --- ir_measures --------------------------------------------------------------------------

class RankframeProvider:
    """An ir_measures provider computed by rankframe: ir_measures' measure objects and
    inputs (dicts, namedtuples, iterables) as they are."""

    NAME = "rankframe"

    def __init__(self, *_: Any, **__: Any) -> None:
        pass

    def supports(self, measure: Any) -> bool:
        return True

    def _table(self, measures: list[Any], qrels: Any, run: Any) -> pl.DataFrame:
        """rankframe's per-query table; ``NumQ`` (ir_measures' count of queries) is 1 per
        query rankframe evaluated, summed."""
        if isinstance(qrels, Iterator) or not isinstance(qrels, Mapping | list | tuple):
            qrels = list(qrels)
        if isinstance(run, Iterator) or not isinstance(run, Mapping | list | tuple):
            run = list(run)
        strings = [str(m) for m in measures if str(m) != "NumQ"]
        plain = [m for m in strings if "judged_only=True" not in m] or ["num_ret"]
        table = per_query(run, qrels, plain)
        for label in (m for m in strings if "judged_only=True" in m):
            # ir_measures' judged_only per measure is rankframe's judged_only (trec_eval -J)
            string = re.sub(r"\(\s*judged_only=True\s*\)|,?\s*judged_only=True\s*,?", "",
                            label).replace("()", "")
            judged = per_query(run, qrels, [string], judged_only=True)
            table = table.join(judged.rename({string: label}), on="qid", how="left")
        return table.with_columns(pl.lit(1, pl.Int64).alias("NumQ"))

    def iter_calc(self, measures: Iterable[Any], qrels: Any, run: Any) -> Iterator[Any]:
        import ir_measures

        measures = list(measures)
        table = self._table(measures, qrels, run)
        for row in table.iter_rows(named=True):
            for m in measures:
                yield ir_measures.Metric(str(row["qid"]), m, row[str(m)])

    def calc_aggregate(self, measures: Iterable[Any], qrels: Any, run: Any) -> dict[Any, float]:
        measures = list(measures)
        table = self._table(measures, qrels, run)
        if table.height == 0:
            return {m: float("nan") for m in measures}
        summary = rf.summarize(table.drop("NumQ")).row(0, named=True) | {"NumQ": table.height}
        return {m: _value(summary[str(m)]) for m in measures}

    def evaluator(self, measures: Iterable[Any], qrels: Any) -> Any:
        provider, measures, qrels = self, list(measures), list(qrels) if isinstance(
            qrels, Iterator) else qrels

        class Evaluator:
            def iter_calc(self, run: Any) -> Iterator[Any]:
                return provider.iter_calc(measures, qrels, run)

            def calc_aggregate(self, run: Any) -> dict[Any, float]:
                return provider.calc_aggregate(measures, qrels, run)

        return Evaluator()


def swap_ir_measures() -> None:
    import ir_measures
    import ir_measures.providers

    provider = RankframeProvider()
    for name in ("PytrecEvalProvider", "RanxProvider"):
        setattr(ir_measures.providers, name, RankframeProvider)
    ir_measures.pytrec_eval = provider  # the provider instances the tests call
    ir_measures.ranx = provider
    ir_measures.iter_calc = provider.iter_calc
    ir_measures.calc_aggregate = provider.calc_aggregate
    ir_measures.evaluator = provider.evaluator


# --- TorchMetrics -------------------------------------------------------------------------

#: TorchMetrics' functional -> (rankframe measure with {k}, whether a document scored <= 0
#: counts as not retrieved: TorchMetrics' AP, RR, precision and recall filter so).
TORCH_NAMES = {
    "retrieval_average_precision": ("map(divisor=found){k}", True),
    "retrieval_reciprocal_rank": ("mrr{k}", True),
    "retrieval_normalized_dcg": ("ndcg{k}", False),
    "retrieval_precision": ("P{k}", True),
    "retrieval_recall": ("recall{k}", True),
    "retrieval_hit_rate": ("success{k}", False),
    "retrieval_r_precision": ("Rprec", False),
}


def _torch_metric(function: str, original: Callable[..., Any]) -> Callable[..., Any]:
    measure_of, positive_only = TORCH_NAMES[function]

    signature = inspect.signature(original)

    def metric(*args: Any, **kwargs: Any) -> Any:
        import torch

        original(*args, **kwargs)  # the peer's argument checks (and errors)
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        # as TorchMetrics' own checks: one query, whatever the shape
        preds, target = bound.arguments["preds"].flatten(), bound.arguments["target"].flatten()
        top_k = bound.arguments.get("top_k")
        adaptive = bool(bound.arguments.get("adaptive_k", False))
        n = preds.shape[-1]
        k = top_k if top_k is not None else None
        measure = measure_of.format(k=f"@{k}" if k else "")
        if function == "retrieval_precision":
            if k is None:
                measure = f"P@{n}"
            elif adaptive:
                measure = f"P(divisor=min)@{k}"
        indexes = torch.zeros(n, dtype=torch.int64)
        columns = ("qid", "docid", "score")
        run = peer_frame("peer_suites", "run", (preds.float(), indexes), columns)
        qrels = peer_frame("peer_suites", "qrels", (target, indexes), ("qid", "docid", "rel"))
        assert run is not None and qrels is not None
        if positive_only:
            run = run.filter(pl.col("score") > 0)
        if function == "retrieval_normalized_dcg":  # TorchMetrics averages over tied scores
            judged = rf.judge(run, qrels, ties="average")
            value = rf.evaluate(judged, [f"ndcg_ties{'@' + str(k) if k else ''}"]).row(0)[1]
        else:
            value = per_query(run, qrels, [measure]).row(0)[1]
        return torch.tensor(_value(value), device=preds.device)

    return metric


#: TorchMetrics' Retrieval* classes -> their per-query functional (its measure above).
TORCH_CLASSES = {
    "RetrievalMAP": "retrieval_average_precision", "RetrievalMRR": "retrieval_reciprocal_rank",
    "RetrievalNormalizedDCG": "retrieval_normalized_dcg",
    "RetrievalPrecision": "retrieval_precision", "RetrievalRecall": "retrieval_recall",
    "RetrievalHitRate": "retrieval_hit_rate", "RetrievalRPrecision": "retrieval_r_precision",
}
#: TorchMetrics' "no positive target" is "no target > 0": the smallest positive threshold.
ANY_POSITIVE = math.ulp(0.0)


def _torch_compute(function: str) -> Callable[[Any], Any]:
    """A ``Retrieval*`` class's ``compute`` on rankframe: the accumulated ``(preds,
    target, indexes)`` through rankframe's TorchMetrics-style array route, every query in one
    call, ``empty_target_action`` as rankframe's ``no_relevant``, then the class's own
    aggregation of the per-query values."""
    from rankframe.averaging import no_relevant_rows

    measure_of, positive_only = TORCH_NAMES[function]

    def compute(self: Any) -> Any:
        import torch
        from torchmetrics.retrieval.base import _retrieval_aggregate
        from torchmetrics.utilities.data import dim_zero_cat

        indexes, preds = dim_zero_cat(self.indexes), dim_zero_cat(self.preds)
        target = dim_zero_cat(self.target)
        k = getattr(self, "top_k", getattr(self, "k", None))  # the classes name it either way
        measure = measure_of.format(k=f"@{k}" if k else "")
        if function == "retrieval_precision":
            measure = f"P(divisor=min)@{k}" if k and self.adaptive_k else measure
            if not k:  # top_k None: every document of the query
                measure = "P(divisor=min)@9223372036854775807"
        run = peer_frame("peer_suites", "run", (preds.float(), indexes),
                         ("qid", "docid", "score"))
        qrels = peer_frame("peer_suites", "qrels", (target, indexes), ("qid", "docid", "rel"))
        assert run is not None and qrels is not None
        if positive_only:
            run = run.filter(pl.col("score") > 0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if function == "retrieval_normalized_dcg":  # tied scores averaged, as TorchMetrics
                measure = f"ndcg_ties{'@' + str(k) if k else ''}"
                table = rf.evaluate(rf.judge(run, qrels, ties="average"), [measure])
            else:
                table = rf.evaluate_run(run, qrels, [measure], threshold=ANY_POSITIVE)
        action = {"skip": "skip", "neg": "neg", "pos": "pos", "error": "error"}[
            self.empty_target_action]
        try:
            table = no_relevant_rows("compute", table, qrels, query="qid", rel="rel",
                                     threshold=ANY_POSITIVE, action=action)
        except rf.InputError:  # rankframe's refusal, in TorchMetrics' words and type
            raise ValueError("`compute` method was provided with a query with no positive "
                             "target.") from None
        if table.height == 0:
            return torch.tensor(0.0).to(preds)
        values = torch.tensor([_value(v) for v in table[measure]]).to(preds)
        return _retrieval_aggregate(values, self.aggregation)

    return compute


def swap_torchmetrics() -> None:
    import importlib

    import torchmetrics.retrieval as classes

    for name, function in TORCH_CLASSES.items():
        getattr(classes, name).compute = _torch_compute(function)

    import torchmetrics.functional.retrieval as functional

    for function in TORCH_NAMES:
        swapped = _torch_metric(function, getattr(functional, function))
        setattr(functional, function, swapped)
        for module in list(sys.modules.values()):
            name = getattr(module, "__name__", "")
            if name.startswith("torchmetrics") and getattr(module, function, None) is not None:
                setattr(module, function, swapped)
        for module_name in ("average_precision", "reciprocal_rank", "ndcg", "precision",
                            "recall", "hit_rate", "r_precision"):
            for package in ("torchmetrics.functional.retrieval", "torchmetrics.retrieval"):
                with contextlib.suppress(ImportError):
                    module = importlib.import_module(f"{package}.{module_name}")
                    if hasattr(module, function):
                        setattr(module, function, swapped)


# --- running ------------------------------------------------------------------------------

PEERS: dict[str, tuple[Callable[[], None], list[str]]] = {
    "pytrec_eval": (swap_pytrec_eval, ["tests/pytrec_eval_tests.py"]),
    "ranx": (swap_ranx, ["tests/unit/ranx/metrics_test.py", "tests/unit/ranx/metrics",
                         "tests/unit/ranx/meta/evaluate_test.py"]),
    "ir_measures": (swap_ir_measures, ["tests/test_pytrec_eval.py", "tests/test_providers.py",
                                       "tests/test_ranx.py"]),
    "torchmetrics": (swap_torchmetrics, [
        f"tests/unittests/retrieval/test_{name}.py"
        for name in ("map", "mrr", "ndcg", "precision", "recall", "hit_rate", "r_precision")]),
}


class Counts:
    """A pytest plugin counting tests and the value checks that passed."""

    def __init__(self, swap: Callable[[], None]) -> None:
        self.swap = swap
        self.checks = 0
        self.outcomes: dict[str, str] = {}
        self.failures: dict[str, str] = {}

    def pytest_configure(self, config: pytest.Config) -> None:
        self.swap()  # before the test modules import the peer's functions
        self._count_calls()

    def _count_calls(self) -> None:
        import unittest

        import numpy.testing

        def counted(owner: Any, name: str) -> None:
            original = getattr(owner, name)

            def wrapper(*args: Any, **kwargs: Any) -> Any:
                result = original(*args, **kwargs)
                self.checks += 1
                return result

            setattr(owner, name, wrapper)

        for name in ("assertEqual", "assertAlmostEqual", "assertTrue", "assertFalse"):
            counted(unittest.TestCase, name)
        for name in ("assert_equal", "assert_allclose", "assert_almost_equal",
                     "assert_array_equal", "assert_array_almost_equal"):
            counted(numpy.testing, name)

    def pytest_assertion_pass(self, item: Any, lineno: int, orig: str, expl: str) -> None:
        self.checks += 1

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            self.outcomes[report.nodeid] = report.outcome
            if report.outcome == "failed":
                text = str(report.longrepr).strip().splitlines()
                self.failures[report.nodeid] = next(
                    (line for line in reversed(text) if line.startswith("E ")), text[-1])


def run(peer: str, source: Path, extra: list[str]) -> int:
    swap, tests = PEERS[peer]
    counts = Counts(swap)
    sys.dont_write_bytecode = True  # the assertion hook needs freshly rewritten tests
    sys.path.insert(0, str(source / "tests"))
    args = [*(str(source / t) for t in tests), "--rootdir", str(source), "-q", "-p",
            "no:cacheprovider", "-o", "addopts=", "-o", "enable_assertion_pass_hook=true",
            "-o", "filterwarnings=ignore", "-W", "ignore", "-p", "no:randomly",
            "-o", "python_files=*_test.py test_*.py *_tests.py", *extra]
    pytest.main(args, plugins=[counts])
    passed = sum(outcome == "passed" for outcome in counts.outcomes.values())
    failed = sum(outcome == "failed" for outcome in counts.outcomes.values())
    skipped = sum(outcome == "skipped" for outcome in counts.outcomes.values())
    print(f"\n{peer}: {passed}/{passed + failed} tests passed with rankframe swapped in "
          f"({skipped} skipped by the peer's own marks); {counts.checks} value checks passed")
    for nodeid, line in counts.failures.items():
        print(f"  FAILED {nodeid}: {line[:200]}")
    return 0 if failed == 0 and passed else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("peer", choices=sorted(PEERS))
    parser.add_argument("source", type=Path, help="a checkout of the peer's repository")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args(argv)
    return run(args.peer, args.source.resolve(), args.pytest_args)


if __name__ == "__main__":
    sys.exit(main())

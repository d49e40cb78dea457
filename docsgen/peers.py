"""How other evaluation tools define a metric where they differ from rankframe, as data.

Keys are registry metric names; each note names the tool and says what differs. Only
behaviour of those tools' documented, default functions is stated; rankframe's own rules
are in docs/semantics.md. The measure reference (docs/measures.md) prints these notes.
"""

from __future__ import annotations

#: The tools compared, in the order their notes are printed.
PEERS = ("trec_eval", "ranx", "ir_measures", "TorchMetrics", "Spark MLlib", "scikit-learn",
         "Microsoft Recommenders", "RecBole", "TREC Fair 2022")

#: The conventions that differ between the tools, one row per tool: (tool, which queries
#: the mean is over, how tied scores are ordered, measure conventions that differ, how a
#: user of the tool gets its numbers from rankframe). The measure reference prints it as
#: the "How peers differ" table.
CONVENTIONS: tuple[tuple[str, str, str, str, str], ...] = (
    ("rankframe",
     "Python API: every qrels query, one the run did not answer scoring 0 "
     "(`all_queries=True`); a run query without qrels is never evaluated",
     "score descending, then document id descending as bytes (trec_eval's rule); "
     "`ties=\"average\"`: the expected value over tied orders (`*_ties` measures)",
     "the [metric contract](semantics.md)",
     "—"),
    ("trec_eval 10",
     "the qrels queries the run answered; a qrels query without results stops it (exit 4: "
     "\"result qid ... not found in qrels\") unless `-c`, which averages over every qrels "
     "query",
     "as rankframe",
     "rbp: gains are grades divided by the query's top grade above 1; `-m` parameters read by "
     "C's `atol`/`atof` (`P.1_0` is P_1)",
     "`rankframe eval` prints its bytes; without `-c` it averages over the answered queries "
     "instead of stopping"),
    ("trec_eval 9.x, pytrec_eval",
     "the qrels queries the run answered (`-c`: every qrels query); pytrec_eval returns "
     "a dict per query of the run that has qrels",
     "as rankframe",
     "iprec_at_recall: c = floor(x R + 0.9) relevant documents; no rbp, unj",
     "`rankframe eval --trec-eval9`; `evaluate_run(run_dict, qrels_dict, {'map', 'ndcg'}, "
     "all_queries=False)` takes pytrec_eval's dicts and measure sets"),
    ("ranx",
     "run and qrels must hold the same queries (an error) unless `make_comparable=True`: "
     "every qrels query, a missing one scoring 0",
     "by score; ties in ranx's own order, not by document id",
     "graded RBP takes the grade itself as gain; `ndcg_burges` is 2^rel - 1 gain; "
     "`map@k` divides by R",
     "`rbp(graded=true, max_grade=1, clip=false)@p`, `ndcg(gain=exponential)@k`; its "
     "`Qrels`/`Run` and dicts taken as they are"),
    ("ir_measures",
     "every qrels query, a missing one scoring 0; run queries without qrels dropped",
     "the provider's (pytrec_eval: trec_eval's)",
     "`judged_only=True` per measure; `P(rel=2)@5`: relevance level 2",
     "its measure objects and names (`nDCG@10`, `P(rel=2)@5`, `SetP`, `NumRet(rel=1)`) and "
     "namedtuples taken as they are; `judged_only=True` of `evaluate_run`"),
    ("TorchMetrics",
     "each `indexes` group; a query with no positive target gets `empty_target_action` "
     "(default `\"neg\"`: 0)",
     "nDCG averages over tied scores; the others take `topk`'s order",
     "AP@k divides by the relevant documents found in the top k; AP, RR, P@k and recall@k "
     "count a document scored <= 0 as not retrieved; `top_k=None` is every document; "
     "`adaptive_k`: k = min(k, n)",
     "`evaluate_run((preds, indexes), (target, indexes), ...)`, "
     "`no_relevant=\"neg\"|\"pos\"|\"skip\"|\"error\"`, `map(divisor=found)@k`, "
     "`ndcg_ties@k` after `judge(..., ties=\"average\")`, `P(divisor=min)@k`; filter "
     "`score > 0` for the <= 0 rule"),
    ("scikit-learn",
     "`ndcg_score`, `dcg_score`: each row of dense arrays, the ideal from the items "
     "passed only",
     "tied scores share their averaged gain (`ignore_ties=False`)",
     "`average_precision_score` scores one list at a time (relevant items not passed "
     "cannot count); tied scores form one threshold",
     "`ndcg_ties@k` after `judge(..., ties=\"average\")` on the items passed"),
    ("Microsoft Recommenders",
     "the users present in both the truth and the predictions",
     "in prediction order (`rank(\"first\")`)",
     "relevance binary by default (`score_type=\"binary\"`); `map_at_k` divides by "
     "min(k, relevant items), `map` by the relevant items; natural-log discount (the nDCG "
     "ratio is unchanged)",
     "`rel=None` (each listed item relevant), `map(divisor=min)@k`, "
     "`all_queries=False` for the users both sides have"),
    ("RecBole",
     "every user with test interactions",
     "its top-k order",
     "binary relevance; `MAP@k` divides by min(k, relevant items); `NDCG@k`'s ideal is "
     "min(k, relevant) ones",
     "`rel=None`, `map(divisor=min)@k` ([recommender how-to](howto/recommender.md))"),
)

NOTES: dict[str, dict[str, str]] = {
    "precision": {
        "ranx": "`precision@k` divides by k, as rankframe's default.",
        "TorchMetrics": "`retrieval_precision(top_k=k)` divides by k; `adaptive_k=True` by "
                        "min(k, n), which is `divisor=\"min\"` here; a document scored <= 0 "
                        "is not counted as retrieved.",
        "Spark MLlib": "`RankingMetrics.precisionAt(k)` divides by k even when fewer than k "
                       "items were predicted; relevance is membership of the label set.",
    },
    "recall": {
        "Spark MLlib": "`RankingMetrics.recallAt(k)` divides by the size of the label set, "
                       "as rankframe divides by R.",
    },
    "hit_rate": {
        "ranx": "`hit_rate@k`: the same definition.",
        "ir_measures": "`Success@k`: the same definition (trec_eval `success_k`).",
    },
    "reciprocal_rank": {
        "ranx": "`mrr@k`: the same definition.",
        "ir_measures": "`RR` (`RR@k`): the same definition (trec_eval `recip_rank`).",
        "Spark MLlib": "`RankingMetrics` has no reciprocal rank.",
    },
    "average_precision": {
        "ranx": "`map@k` divides by all relevant documents R, as rankframe's default.",
        "TorchMetrics": "`retrieval_average_precision(top_k=k)` divides by the relevant "
                        "documents found in the top k: `divisor=\"found\"` here.",
        "Microsoft Recommenders": "`map_at_k` divides by min(k, relevant items): "
                                  "`divisor=\"min\"`; `map` by the relevant items.",
        "RecBole": "`MAP@k` divides by min(k, relevant items): `map(divisor=min)@k`.",
        "ir_measures": "`AP@k` is trec_eval's `map_cut_k`: divided by R.",
        "Spark MLlib": "`meanAveragePrecision` divides by the size of the label set; "
                       "`meanAveragePrecisionAt(k)` by min(k, label-set size), which is "
                       "`divisor=\"min\"` here.",
        "scikit-learn": "`average_precision_score` scores one list of labels and scores at a "
                        "time: relevant documents missing from the list cannot enter the "
                        "denominator, and tied scores form one threshold instead of being "
                        "broken by docid.",
    },
    "r_precision": {
        "ranx": "`r-precision`: the same definition.",
        "ir_measures": "`Rprec`: trec_eval's definition, as here.",
    },
    "bpref": {
        "ir_measures": "`Bpref`: trec_eval's definition, as here.",
    },
    "ndcg": {
        "ranx": "`ndcg` uses linear gain as here; `ndcg_burges` uses 2^rel - 1, which is "
                "`gain=\"exponential\"` here.",
        "ir_measures": "`nDCG@k` is trec_eval's `ndcg_cut_k` by default: linear gain, ideal "
                       "ranking from all judged documents.",
        "TorchMetrics": "`retrieval_normalized_dcg` averages the gain of tied scores (as "
                        "scikit-learn): `ndcg_ties` after `judge(..., ties=\"average\")`.",
        "Spark MLlib": "`RankingMetrics.ndcgAt(k)` on plain label sets treats relevance as "
                       "binary (in the label set or not).",
        "scikit-learn": "`ndcg_score` takes dense arrays of true relevance and predicted "
                        "scores: the ideal ranking is built only from the items passed, and "
                        "tied scores share their averaged gain (`ignore_ties=False`) instead "
                        "of being broken by docid.",
    },
    "dcg": {
        "scikit-learn": "`dcg_score` uses linear gain and a log2(i + 1) discount as here; "
                        "tied predicted scores share their averaged gain.",
    },
    "judged": {
        "ir_measures": "`Judged@k`: the same definition.",
    },
    "rbp": {
        "ranx": "graded RBP takes the grade itself as gain: "
                "`rbp(graded=true, max_grade=1, clip=false)@p` here.",
    },
}

_MSR = "Microsoft Recommenders"
NOTES.update({
    "coverage": {
        _MSR: "`catalog_coverage` divides by the distinct items of the training data: a "
              "Catalog without an items table.",
        "RecBole": "`ItemCoverage` divides by the number of items: `catalog=` that number.",
    },
    "entropy": {
        _MSR: "`distributional_coverage`: the entropy in bits, as the default here.",
        "RecBole": "`ShannonEntropy` takes natural logarithms and divides by the number of "
                   "distinct items recommended: `log=ln, divisor=items`.",
    },
    "gini": {
        "RecBole": "`GiniIndex` counts the items never recommended as 0 among all items: "
                   "the default `over=catalog`.",
    },
    "novelty": {
        _MSR: "`novelty` averages -log2 of the item's share of training interactions over "
              "every recommendation of the run, an unseen item adding 0: the defaults "
              "here, the same number when all lists are as long.",
    },
    "popularity": {
        "RecBole": "`AveragePopularity`: the mean training count of the top-k items, unseen "
                   "items 0, as here.",
    },
    "tail_share": {
        "RecBole": "`TailPercentage`: `tail_ratio` is `Catalog(long_tail=...)` (a share of "
                   "the items by count then id, or a count above 1).",
    },
    "ild_features": {
        _MSR: "`user_diversity` with `item_feature_vector` forms every pair; the closed form "
              "here gives the same number.",
    },
    "ild_pairs": {
        _MSR: "`user_diversity` (co-occurrence cosine by default, a missing pair 0): "
              "`diversity` with a Catalog of the training data.",
    },
    "serendipity": {
        _MSR: "`user_serendipity` multiplies by the relevance column's value (here: 1 for "
              "rel >= threshold); without one, `relevance=ignore`.",
    },
    "awrf": {
        "TREC Fair 2022": "Task 1's `AWRFMetric.qr_awrf`: the same attention and "
                          "Jensen-Shannon divergence, its discounts in 32-bit floats "
                          "(differences of about 1e-8); its score multiplies by nDCG.",
    },
})

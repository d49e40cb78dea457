"""How other evaluation tools define a metric where they differ from rankframe, as data.

Keys are registry metric names; each note names the tool and says what differs. Only
behaviour of those tools' documented, default functions is stated; rankframe's own rules
are in docs/semantics.md. The measure reference (docs/measures.md) prints these notes.
"""

from __future__ import annotations

#: The tools compared, in the order their notes are printed.
PEERS = ("trec_eval", "ranx", "ir_measures", "Spark MLlib", "scikit-learn",
         "Microsoft Recommenders", "RecBole", "TREC Fair 2022")

NOTES: dict[str, dict[str, str]] = {
    "precision": {
        "ranx": "`precision@k` divides by k, as rankframe's default.",
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

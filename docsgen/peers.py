"""How other evaluation tools define a metric where they differ from rankframe, as data.

Keys are registry metric names; each note names the tool and says what differs. Only
behaviour of those tools' documented, default functions is stated; rankframe's own rules
are in docs/semantics.md. The measure reference (docs/measures.md) prints these notes.
"""

from __future__ import annotations

#: The tools compared, in the order their notes are printed.
PEERS = ("trec_eval", "ranx", "ir_measures", "Spark MLlib", "scikit-learn")

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

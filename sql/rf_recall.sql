-- rf_recall(rel, rank, k, threshold := 1) -> DOUBLE
--   Recall at k: relevant rows with rank <= k divided by all relevant rows R of the
--   query, retrieved or not (rank NULL). R = 0 -> 0. trec_eval: recall_k, set_recall.
CREATE OR REPLACE TEMP MACRO rf_recall(rel, rank, k, threshold := 1) AS
    rf__recall(rel, rank, rf__k('rf_recall', k), rf__threshold('rf_recall', threshold));

-- rf_recall(rel, rank, k := NULL, threshold := 1) -> DOUBLE
--   Contract: docs/semantics.md#recall.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--   Recall at k: relevant rows with rank <= k divided by all relevant rows R of the
--   query, retrieved or not (rank NULL). R = 0 -> 0. trec_eval: recall_k, set_recall.
--   Example (relevant at ranks 1, 3, 5, and one relevant row not retrieved: rank NULL):
--     SELECT rf_recall(rel, rank, 3), rf_recall(rel, rank, NULL)
--     FROM (VALUES (1, 1), (2, 0), (3, 1), (4, 0), (5, 1), (NULL, 1)) t(rank, rel);
--     => 0.5, 0.75

-- rf__unchecked_recall: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_recall is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_recall(rel, rank, k := NULL, threshold := 1) AS
    rf__recall(rel, rank, rf__k('rf_recall', k), rf__threshold('rf_recall', threshold));
CREATE OR REPLACE TEMP MACRO rf_recall(rel, rank, k := NULL, threshold := 1) AS
    CASE WHEN rf__ranks_ok('rf_recall', rank) THEN
        rf__unchecked_recall(rel, rank, k, threshold := threshold) END;

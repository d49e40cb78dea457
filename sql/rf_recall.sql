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

-- rf__recall_body: the macro once its arguments are checked and ranks_ok (the rank guard,
-- or true) holds, in that order (rf__guarded); rf__unchecked_recall, without the rank guard, is for
-- tables checked already, as by rankframe.evaluate; rf_recall is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__recall_body(rel, rank, k, threshold, ranks_ok) AS
    CASE WHEN rf__ok_k('rf_recall', k) AND rf__ok(rf__threshold('rf_recall', threshold)) THEN
        rf__guarded(ranks_ok,
            rf__recall(rel, rank, k, threshold))
    END;
CREATE OR REPLACE TEMP MACRO rf__unchecked_recall(rel, rank, k := NULL, threshold := 1) AS
    rf__recall_body(rel, rank, k, threshold, true);
CREATE OR REPLACE TEMP MACRO rf_recall(rel, rank, k := NULL, threshold := 1) AS
    rf__recall_body(rel, rank, k, threshold, rf__rows_ok('rf_recall', rel, rank));

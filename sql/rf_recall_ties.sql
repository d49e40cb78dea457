-- rf_recall_ties(rel, tie_first, tie_size, k := NULL, threshold := 1) -> DOUBLE
--   Contract: docs/semantics.md#recall_ties.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--   Expected recall at k over every ordering of tied rows (McSherry & Najork 2008):
--   expected relevant rows in the top k (see rf_precision_ties) divided by R, the
--   relevant rows of the query retrieved or not. R = 0 -> 0.
--   Example (docs/semantics.md#worked-examples: ranks 2 and 3 tied, one of them relevant):
--     SELECT round(rf_recall_ties(rel, tie_first, tie_size, 2), 4) FROM (VALUES (NULL, 1, 1),
--         (NULL, 2, 2), (1, 2, 2), (1, 4, 1), (2, NULL, NULL)) t(rel, tie_first, tie_size);
--     => 0.1667
CREATE OR REPLACE TEMP MACRO rf_recall_ties(rel, tie_first, tie_size, k := NULL, threshold := 1) AS
    CASE WHEN rf__ok_k('rf_recall_ties', k) AND rf__ok(rf__threshold('rf_recall_ties', threshold))
              AND rf__grades_ok('rf_recall_ties', rel) THEN
        rf__ratio(rf__tie_hits(rel, tie_first, tie_size, rf__k('rf_recall_ties', k),
                               rf__threshold('rf_recall_ties', threshold)),
                  rf__num_relevant(rel, threshold))::DOUBLE
    END;

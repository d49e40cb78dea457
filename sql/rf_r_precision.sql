-- rf_r_precision(rel, rank, threshold := 1) -> DOUBLE
--   Contract: docs/semantics.md#r_precision.
--   Parameters:
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--   Relevant rows with rank <= R divided by R (R = relevant rows of the query).
--   R = 0 -> 0. trec_eval: Rprec.
--   Example (docs/semantics.md#worked-examples: R = 4 counts the unretrieved grade 1):
--     SELECT rf_r_precision(rel, rank) FROM (VALUES (1, 2), (2, NULL), (3, 0), (4, 1), (5, -1),
--         (6, 3), (NULL, 1), (NULL, 0)) t(rank, rel);
--     => 0.5

-- rf__unchecked_r_precision: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_r_precision is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_r_precision(rel, rank, threshold := 1) AS
    rf__ratio(
        coalesce(len(list_filter(
            rf__relevant_ranks(rel, rank, NULL, rf__threshold('rf_r_precision', threshold)),
            lambda r: r <= rf__num_relevant(rel, threshold)::UHUGEINT)), 0),
        rf__num_relevant(rel, threshold));
CREATE OR REPLACE TEMP MACRO rf_r_precision(rel, rank, threshold := 1) AS
    CASE WHEN rf__rows_ok('rf_r_precision', rel, rank) THEN
        rf__unchecked_r_precision(rel, rank, threshold := threshold) END;

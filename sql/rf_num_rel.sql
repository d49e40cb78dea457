-- rf_num_rel(rel, rank, threshold := 1) -> BIGINT
--   Contract: docs/semantics.md#num_rel.
--   Parameters:
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--   Relevant rows R of the query (rel >= threshold), retrieved or not.
--   rank is not read (uniform signature). trec_eval: num_rel.
--   Example (docs/semantics.md#worked-examples: the unretrieved grade 1 counts, NULL and -1 never):
--     SELECT rf_num_rel(rel, rank), rf_num_rel(rel, rank, threshold := 2) FROM (VALUES (1, 2),
--         (2, NULL), (3, 0), (4, 1), (5, -1), (6, 3), (NULL, 1), (NULL, 0)) t(rank, rel);
--     => 4, 2

-- rf__unchecked_num_rel: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_num_rel is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_num_rel(rel, rank, threshold := 1) AS
    rf__num_relevant(rel, rf__threshold('rf_num_rel', threshold));
CREATE OR REPLACE TEMP MACRO rf_num_rel(rel, rank, threshold := 1) AS
    CASE WHEN rf__rows_ok('rf_num_rel', rel, rank) THEN
        rf__unchecked_num_rel(rel, rank, threshold := threshold) END;

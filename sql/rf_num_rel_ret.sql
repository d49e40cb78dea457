-- rf_num_rel_ret(rel, rank, k := NULL, threshold := 1) -> BIGINT
--   Contract: docs/semantics.md#num_rel_ret.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--   Relevant rows with a rank, only those with rank <= k when k is given.
--   trec_eval: num_rel_ret.
--   Example (docs/semantics.md#worked-examples):
--     SELECT rf_num_rel_ret(rel, rank, NULL), rf_num_rel_ret(rel, rank, 5) FROM (VALUES (1, 2),
--         (2, NULL), (3, 0), (4, 1), (5, -1), (6, 3), (NULL, 1), (NULL, 0)) t(rank, rel);
--     => 3, 2

-- rf__unchecked_num_rel_ret: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_num_rel_ret is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_num_rel_ret(rel, rank, k := NULL, threshold := 1) AS
    rf__hits(rel, rank, rf__k('rf_num_rel_ret', k), rf__threshold('rf_num_rel_ret', threshold));
CREATE OR REPLACE TEMP MACRO rf_num_rel_ret(rel, rank, k := NULL, threshold := 1) AS
    CASE WHEN rf__rows_ok('rf_num_rel_ret', rel, rank) THEN
        rf__unchecked_num_rel_ret(rel, rank, k, threshold := threshold) END;

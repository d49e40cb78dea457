-- rf_num_ret(rel, rank, k := NULL) -> BIGINT
--   Contract: docs/semantics.md#num_ret.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--   Rows with a rank (retrieved), only those with rank <= k when k is given.
--   rel is not read (uniform signature). trec_eval: num_ret.
--   Example (docs/semantics.md#worked-examples: two rows judged but not retrieved, rank NULL):
--     SELECT rf_num_ret(rel, rank, NULL), rf_num_ret(rel, rank, 3) FROM (VALUES (1, 2), (2, NULL),
--         (3, 0), (4, 1), (5, -1), (6, 3), (NULL, 1), (NULL, 0)) t(rank, rel);
--     => 6, 3

-- rf__unchecked_num_ret: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_num_ret is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_num_ret(rel, rank, k := NULL) AS
    count(*) FILTER (WHERE rf__in_top(rank, rf__k('rf_num_ret', k)));
CREATE OR REPLACE TEMP MACRO rf_num_ret(rel, rank, k := NULL) AS
    CASE WHEN rf__rows_ok('rf_num_ret', rel, rank) THEN rf__unchecked_num_ret(rel, rank, k) END;

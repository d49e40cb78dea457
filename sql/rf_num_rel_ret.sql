-- rf_num_rel_ret(rel, rank, k, threshold := 1) -> BIGINT
--   Relevant rows with a rank, only those with rank <= k when k is given.
--   trec_eval: num_rel_ret.
CREATE OR REPLACE TEMP MACRO rf_num_rel_ret(rel, rank, k, threshold := 1) AS
    rf__hits(rel, rank, rf__k('rf_num_rel_ret', k), rf__threshold('rf_num_rel_ret', threshold));

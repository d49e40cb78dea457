-- rf_num_ret(rel, rank, k) -> BIGINT
--   Rows with a rank (retrieved), only those with rank <= k when k is given.
--   rel is not read (uniform signature). trec_eval: num_ret.
CREATE OR REPLACE TEMP MACRO rf_num_ret(rel, rank, k) AS
    count(*) FILTER (WHERE rf__in_top(rank, rf__k('rf_num_ret', k)));

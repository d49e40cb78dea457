-- rf_num_nonrel_judged_ret(rel, rank, k := NULL, threshold := 1) -> BIGINT
--   Contract: docs/semantics.md#num_nonrel_judged_ret.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--   Judged non-relevant rows (0 <= rel < threshold) with a rank, only those with rank <= k
--   when k is given. trec_eval: num_nonrel_judged_ret.
--   Example (docs/semantics.md#trec_evals-set-and-gain-measures):
--     SELECT rf_num_nonrel_judged_ret(rel, rank), rf_num_nonrel_judged_ret(rel, rank, 3)
--     FROM (VALUES (1, 1), (2, 0), (3, NULL), (4, 2), (5, 0), (6, -1),
--         (NULL, 2), (NULL, 1), (NULL, 0)) t(rank, rel);
--     => 2, 1

-- rf__unchecked_num_nonrel_judged_ret: the body, without the rank guard (for tables checked
-- already, as by rankframe.evaluate); rf_num_nonrel_judged_ret is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_num_nonrel_judged_ret(rel, rank, k := NULL, threshold := 1) AS
    count(*) FILTER (WHERE rf__in_top(rank, rf__k('rf_num_nonrel_judged_ret', k)) AND rel >= 0
                       AND rel < rf__threshold('rf_num_nonrel_judged_ret', threshold));
CREATE OR REPLACE TEMP MACRO rf_num_nonrel_judged_ret(rel, rank, k := NULL, threshold := 1) AS
    CASE WHEN rf__rows_ok('rf_num_nonrel_judged_ret', rel, rank) THEN
        rf__unchecked_num_nonrel_judged_ret(rel, rank, k, threshold := threshold) END;

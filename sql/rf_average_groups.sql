-- rf_average_groups(per_group) -> TABLE (qid, <each measure column> DOUBLE)
--   Contract: docs/semantics.md#judgment-groups.
--   Per-query means over judgment groups of a table named by string with columns qid, jg
--   and one column per measure (one row per (qid, jg)): each query's values summed left to
--   right in the byte order of jg, then divided by the number of groups, as trec_eval
--   computes map_avgjg, P_avgjg and Rprec_mult_avgjg (rankframe.average_groups). Measure
--   columns keep their names; rows come by qid.
--   Use: CREATE TABLE per_group AS SELECT qid, jg, rf_average_precision(rel, rank) AS map
--        FROM rf_judge_groups('run', 'qrels_jg') GROUP BY qid, jg;
--        SELECT * FROM rf_average_groups('per_group');
--   Example (query 1: AP 0.25 for group a, 0.5 for b; query 2: one group):
--     CREATE TEMP TABLE example_groups AS SELECT * FROM (VALUES ('1', 'b', 0.5),
--         ('1', 'a', 0.25), ('2', 'a', 1.0)) t(qid, jg, map);
--     SELECT * FROM rf_average_groups('example_groups');
--     => 1, 0.375
--     => 2, 1.0
CREATE OR REPLACE TEMP MACRO rf_average_groups(per_group) AS TABLE
    SELECT qid,
           list_reduce(list(COLUMNS(* EXCLUDE (qid, jg))::DOUBLE ORDER BY encode(jg::VARCHAR)),
                       lambda a, b: a + b) / count(*)
    FROM query_table(per_group)
    GROUP BY qid
    ORDER BY qid;

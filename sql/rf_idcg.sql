-- rf_idcg(rel, rank, k := NULL, gain := 'linear', ideal := 'all', gains := NULL) -> DOUBLE
--   Contract: docs/semantics.md#idcg.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     gain: 'linear': g = rel, as trec_eval and Järvelin & Kekäläinen; 'exponential':
--       g = 2^rel - 1, as Burges et al. The relevance threshold does not apply to gains.
--     ideal: 'all': the ideal ranking sorts the positive gains of every row of the query,
--       retrieved or not (trec_eval); 'retrieved': of the retrieved rows only.
--     gains: A gain per grade, MAP {grade: gain} (trec_eval's ndcg.1=3,2=9): a listed grade (an
--       integer >= 0, grade 0 too) gains the number given, which may be 0 or negative; the
--       other grades keep the gain the gain parameter gives them (linear where the metric has
--       none). NULL: none listed.
--   Ideal DCG at k: DCG of the query's positive gains sorted descending, built from
--   every row of the query (ideal 'all', trec_eval) or from retrieved rows only
--   (ideal 'retrieved'). trec_eval: ideal_dcg (k NULL).
--   Examples (docs/semantics.md#worked-examples: grades 3, 2, 3, 0, 1, an unretrieved 3):
--     SELECT round(rf_idcg(rel, rank, 5), 4), round(rf_idcg(rel, rank, 5, ideal := 'retrieved'), 4)
--     FROM (VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1), (NULL, 3)) t(rank, rel);
--     => 7.641, 6.3235
--     SELECT round(rf_idcg(rel, rank, 5, gains := MAP {1: 3, 2: 9}), 4)
--     FROM (VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1)) t(rank, rel);
--     => 13.6848

-- rf__idcg_body: the macro once its arguments are checked and ranks_ok (the rank guard,
-- or true) holds, in that order (rf__guarded); rf__unchecked_idcg, without the rank guard, is for
-- tables checked already, as by rankframe.evaluate; rf_idcg is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__idcg_body(rel, rank, k, gain, ideal, gains, ranks_ok) AS
    CASE WHEN rf__ok_k('rf_idcg', k)
              AND rf__ok(rf__choice('rf_idcg', 'gain', gain, ['linear', 'exponential']))
              AND rf__ok(rf__choice('rf_idcg', 'ideal', ideal, ['all', 'retrieved']))
              AND rf__ok_gains('rf_idcg', gains) THEN
        rf__guarded(ranks_ok,
            rf__idcg(rel, rank, k, gain, ideal, gains))
    END;
CREATE OR REPLACE TEMP MACRO rf__unchecked_idcg(rel, rank, k := NULL, gain := 'linear', ideal := 'all', gains := NULL) AS
    rf__idcg_body(rel, rank, k, gain, ideal, gains, true);
CREATE OR REPLACE TEMP MACRO rf_idcg(rel, rank, k := NULL, gain := 'linear', ideal := 'all', gains := NULL) AS
    rf__idcg_body(rel, rank, k, gain, ideal, gains, rf__rows_ok('rf_idcg', rel, rank));

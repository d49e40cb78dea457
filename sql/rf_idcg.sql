-- rf_idcg(rel, rank, k := NULL, gain := 'linear', ideal := 'all', gains := NULL) -> DOUBLE
--   Contract: docs/semantics.md#idcg.
--   Ideal DCG at k: DCG of the query's positive gains sorted descending, built from
--   every row of the query (ideal 'all', trec_eval) or from retrieved rows only
--   (ideal 'retrieved'). trec_eval: ideal_dcg (k NULL). gains: a MAP of a gain per grade
--   (trec_eval's ideal_dcg.1=3,2=9): a listed grade (integer >= 0, 0 too) gains the number
--   given, the other grades keep the gain of `gain`.
--   Examples (docs/semantics.md#worked-examples: grades 3, 2, 3, 0, 1, an unretrieved 3):
--     SELECT round(rf_idcg(rel, rank, 5), 4), round(rf_idcg(rel, rank, 5, ideal := 'retrieved'), 4)
--     FROM (VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1), (NULL, 3)) t(rank, rel);
--     => 7.641, 6.3235
--     SELECT round(rf_idcg(rel, rank, 5, gains := MAP {1: 3, 2: 9}), 4)
--     FROM (VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1)) t(rank, rel);
--     => 13.6848

-- rf__idcg_body: the macro once its arguments are checked and ranks_ok (the rank guard,
-- or true) holds, in that order; rf__unchecked_idcg, without the rank guard, is for
-- tables checked already, as by rankframe.evaluate; rf_idcg is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__idcg_body(rel, rank, k, gain, ideal, gains, ranks_ok) AS
    CASE WHEN rf__ok_k('rf_idcg', k)
              AND rf__ok(rf__choice('rf_idcg', 'gain', gain, ['linear', 'exponential']))
              AND rf__ok(rf__choice('rf_idcg', 'ideal', ideal, ['all', 'retrieved']))
              AND rf__ok_gains('rf_idcg', gains)
              AND ranks_ok THEN
        rf__idcg(rel, rank, k, gain, ideal, gains)
    END;
CREATE OR REPLACE TEMP MACRO rf__unchecked_idcg(rel, rank, k := NULL, gain := 'linear', ideal := 'all', gains := NULL) AS
    rf__idcg_body(rel, rank, k, gain, ideal, gains, true);
CREATE OR REPLACE TEMP MACRO rf_idcg(rel, rank, k := NULL, gain := 'linear', ideal := 'all', gains := NULL) AS
    rf__idcg_body(rel, rank, k, gain, ideal, gains, rf__ranks_ok('rf_idcg', rank));

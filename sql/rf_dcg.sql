-- rf_dcg(rel, rank, k := NULL, gain := 'linear', gains := NULL) -> DOUBLE
--   Contract: docs/semantics.md#dcg.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     gain: 'linear': g = rel, as trec_eval and Järvelin & Kekäläinen; 'exponential':
--       g = 2^rel - 1, as Burges et al. The relevance threshold does not apply to gains.
--     gains: A gain per grade, MAP {grade: gain} (trec_eval's ndcg.1=3,2=9): a listed grade (an
--       integer >= 0, grade 0 too) gains the number given, which may be 0 or negative; the
--       other grades keep the gain the gain parameter gives them (linear where the metric has
--       none). NULL: none listed.
--   Discounted cumulative gain: sum over rank i <= k of g(rel_i) / log2(i + 1).
--   trec_eval: dcg (k NULL).
--   Examples (docs/semantics.md#worked-examples: grades 3, 2, 3, 0, 1):
--     SELECT round(rf_dcg(rel, rank, 2), 4), round(rf_dcg(rel, rank, 5), 4),
--            round(rf_dcg(rel, rank, 5, gain := 'exponential'), 4)
--     FROM (VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1)) t(rank, rel);
--     => 4.2619, 6.1487, 12.7796
--     SELECT round(rf_dcg(rel, rank, 5, gains := MAP {1: 3, 2: 9}), 4)
--     FROM (VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1)) t(rank, rel);
--     => 11.3389

-- rf__dcg_body: the macro once its arguments are checked and ranks_ok (the rank guard,
-- or true) holds, in that order (rf__guarded); rf__unchecked_dcg, without the rank guard, is for
-- tables checked already, as by rankframe.evaluate; rf_dcg is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__dcg_body(rel, rank, k, gain, gains, ranks_ok) AS
    CASE WHEN rf__ok_k('rf_dcg', k)
              AND rf__ok(rf__choice('rf_dcg', 'gain', gain, ['linear', 'exponential']))
              AND rf__ok_gains('rf_dcg', gains) THEN
        rf__guarded(ranks_ok,
            rf__dcg(rel, rank, k, gain, gains))
    END;
CREATE OR REPLACE TEMP MACRO rf__unchecked_dcg(rel, rank, k := NULL, gain := 'linear', gains := NULL) AS
    rf__dcg_body(rel, rank, k, gain, gains, true);
CREATE OR REPLACE TEMP MACRO rf_dcg(rel, rank, k := NULL, gain := 'linear', gains := NULL) AS
    rf__dcg_body(rel, rank, k, gain, gains, rf__rows_ok('rf_dcg', rel, rank));

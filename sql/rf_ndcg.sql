-- rf_ndcg(rel, rank, k := NULL, gain := 'linear', ideal := 'all', gains := NULL) -> DOUBLE
--   Contract: docs/semantics.md#ndcg.
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
--   Normalised DCG at k: rf_dcg / rf_idcg, 0 when the ideal DCG is 0.
--   trec_eval: ndcg (k NULL), ndcg_cut_k.
--   Examples (docs/semantics.md#worked-examples: grades 3, 2, 3, 0, 1; then an unretrieved 3):
--     SELECT round(rf_ndcg(rel, rank, 5), 4)
--     FROM (VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1)) t(rank, rel);
--     => 0.9724
--     SELECT round(rf_ndcg(rel, rank, 5), 4), round(rf_ndcg(rel, rank, 5, ideal := 'retrieved'), 4)
--     FROM (VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1), (NULL, 3)) t(rank, rel);
--     => 0.8047, 0.9724
--     SELECT round(rf_ndcg(rel, rank, 5, gains := MAP {1: 3, 2: 9}), 4)
--     FROM (VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1)) t(rank, rel);
--     => 0.8286

-- rf__ndcg_body: the macro once its arguments are checked and ranks_ok (the rank guard,
-- or true) holds, in that order (rf__guarded); rf__unchecked_ndcg, without the rank guard, is for
-- tables checked already, as by rankframe.evaluate; rf_ndcg is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__ndcg_body(rel, rank, k, gain, ideal, gains, ranks_ok) AS
    CASE WHEN rf__ok_k('rf_ndcg', k)
              AND rf__ok(rf__choice('rf_ndcg', 'gain', gain, ['linear', 'exponential']))
              AND rf__ok(rf__choice('rf_ndcg', 'ideal', ideal, ['all', 'retrieved']))
              AND rf__ok_gains('rf_ndcg', gains) THEN
        rf__guarded(ranks_ok,
            rf__ratio(rf__dcg(rel, rank, k, gain, gains), rf__idcg(rel, rank, k, gain, ideal, gains)))
    END;
CREATE OR REPLACE TEMP MACRO rf__unchecked_ndcg(rel, rank, k := NULL, gain := 'linear', ideal := 'all', gains := NULL) AS
    rf__ndcg_body(rel, rank, k, gain, ideal, gains, true);
CREATE OR REPLACE TEMP MACRO rf_ndcg(rel, rank, k := NULL, gain := 'linear', ideal := 'all', gains := NULL) AS
    rf__ndcg_body(rel, rank, k, gain, ideal, gains, rf__rows_ok('rf_ndcg', rel, rank));

-- rf_ndcg(rel, rank, k := NULL, gain := 'linear', ideal := 'all') -> DOUBLE
--   Contract: docs/semantics.md#ndcg.
--   Normalised DCG at k: rf_dcg / rf_idcg, 0 when the ideal DCG is 0.
--   trec_eval: ndcg (k NULL), ndcg_cut_k.
--   Examples (docs/semantics.md#worked-examples: grades 3, 2, 3, 0, 1; then an unretrieved 3):
--     SELECT round(rf_ndcg(rel, rank, 5), 4)
--     FROM (VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1)) t(rank, rel);
--     => 0.9724
--     SELECT round(rf_ndcg(rel, rank, 5), 4), round(rf_ndcg(rel, rank, 5, ideal := 'retrieved'), 4)
--     FROM (VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1), (NULL, 3)) t(rank, rel);
--     => 0.8047, 0.9724

-- rf__unchecked_ndcg: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_ndcg is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_ndcg(rel, rank, k := NULL, gain := 'linear', ideal := 'all') AS
    rf__ratio(
        rf__dcg(rel, rank, rf__k('rf_ndcg', k),
                rf__choice('rf_ndcg', 'gain', gain, ['linear', 'exponential'])),
        rf__idcg(rel, rank, k, gain, rf__choice('rf_ndcg', 'ideal', ideal, ['all', 'retrieved'])));
CREATE OR REPLACE TEMP MACRO rf_ndcg(rel, rank, k := NULL, gain := 'linear', ideal := 'all') AS
    CASE WHEN rf__ranks_ok('rf_ndcg', rank) THEN
        rf__unchecked_ndcg(rel, rank, k, gain := gain, ideal := ideal) END;

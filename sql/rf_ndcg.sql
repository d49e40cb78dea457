-- rf_ndcg(rel, rank, k, gain := 'linear', ideal := 'all') -> DOUBLE
--   Normalised DCG at k: rf_dcg / rf_idcg, 0 when the ideal DCG is 0.
--   trec_eval: ndcg (k NULL), ndcg_cut_k.
CREATE OR REPLACE TEMP MACRO rf_ndcg(rel, rank, k, gain := 'linear', ideal := 'all') AS
    rf__ratio(
        rf__dcg(rel, rank, rf__k('rf_ndcg', k),
                rf__choice('rf_ndcg', 'gain', gain, ['linear', 'exponential'])),
        rf__idcg(rel, rank, k, gain, rf__choice('rf_ndcg', 'ideal', ideal, ['all', 'retrieved'])));

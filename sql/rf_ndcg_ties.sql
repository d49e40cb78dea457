-- rf_ndcg_ties(rel, tie_first, tie_size, k, gain := 'linear', ideal := 'all') -> DOUBLE
--   Expected nDCG at k over every ordering of tied rows: rf_dcg_ties / ideal DCG (the
--   ideal does not depend on ties; ideal 'retrieved' keeps rows with a tie group).
--   Ideal DCG = 0 -> 0.
CREATE OR REPLACE TEMP MACRO rf_ndcg_ties(rel, tie_first, tie_size, k, gain := 'linear',
                                          ideal := 'all') AS
    CASE WHEN rf__ok_k('rf_ndcg_ties', k)
              AND rf__ok(rf__choice('rf_ndcg_ties', 'gain', gain, ['linear', 'exponential']))
              AND rf__ok(rf__choice('rf_ndcg_ties', 'ideal', ideal, ['all', 'retrieved'])) THEN
        rf__ratio(
            rf__tie_dcg(rel, tie_first, tie_size, rf__k('rf_ndcg_ties', k),
                        rf__choice('rf_ndcg_ties', 'gain', gain, ['linear', 'exponential'])),
            rf__idcg(rel, tie_first, k, gain,
                     rf__choice('rf_ndcg_ties', 'ideal', ideal, ['all', 'retrieved'])))
    END;

-- rf_ndcg_ties(rel, tie_first, tie_size, k := NULL, gain := 'linear', ideal := 'all') -> DOUBLE
--   Contract: docs/semantics.md#ndcg_ties.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     gain: 'linear': g = rel, as trec_eval and Järvelin & Kekäläinen; 'exponential':
--       g = 2^rel - 1, as Burges et al. The relevance threshold does not apply to gains.
--     ideal: 'all': the ideal ranking sorts the positive gains of every row of the query,
--       retrieved or not (trec_eval); 'retrieved': of the retrieved rows only.
--   Expected nDCG at k over every ordering of tied rows: rf_dcg_ties / ideal DCG (the
--   ideal does not depend on ties; ideal 'retrieved' keeps rows with a tie group).
--   Ideal DCG = 0 -> 0.
--   Example (docs/semantics.md#worked-examples: ranks 2 and 3 tied, one of them relevant):
--     SELECT round(rf_ndcg_ties(rel, tie_first, tie_size, 3), 4) FROM (VALUES (NULL, 1, 1),
--         (NULL, 2, 2), (1, 2, 2), (1, 4, 1), (2, NULL, NULL)) t(rel, tie_first, tie_size);
--     => 0.1806
CREATE OR REPLACE TEMP MACRO rf_ndcg_ties(rel, tie_first, tie_size, k := NULL, gain := 'linear',
                                          ideal := 'all') AS
    CASE WHEN rf__ok_k('rf_ndcg_ties', k)
              AND rf__ok(rf__choice('rf_ndcg_ties', 'gain', gain, ['linear', 'exponential']))
              AND rf__ok(rf__choice('rf_ndcg_ties', 'ideal', ideal, ['all', 'retrieved']))
              AND rf__grades_ok('rf_ndcg_ties', rel) THEN
        rf__ratio(
            rf__tie_dcg(rel, tie_first, tie_size, rf__k('rf_ndcg_ties', k),
                        rf__choice('rf_ndcg_ties', 'gain', gain, ['linear', 'exponential'])),
            rf__idcg(rel, tie_first, k, gain,
                     rf__choice('rf_ndcg_ties', 'ideal', ideal, ['all', 'retrieved'])))
    END;

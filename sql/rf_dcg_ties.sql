-- rf_dcg_ties(rel, tie_first, tie_size, k := NULL, gain := 'linear') -> DOUBLE
--   Contract: docs/semantics.md#dcg_ties.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     gain: 'linear': g = rel, as trec_eval and Järvelin & Kekäläinen; 'exponential':
--       g = 2^rel - 1, as Burges et al. The relevance threshold does not apply to gains.
--   Expected DCG at k over every ordering of tied rows (McSherry & Najork 2008): each
--   retrieved row contributes g(rel) / tie_size * sum over its group's positions
--   i <= k of 1 / log2(i + 1). gain 'linear' or 'exponential' as in rf_dcg.
--   Example (docs/semantics.md#worked-examples: ranks 2 and 3 tied, one of them relevant):
--     SELECT round(rf_dcg_ties(rel, tie_first, tie_size, 3), 4) FROM (VALUES (NULL, 1, 1),
--         (NULL, 2, 2), (1, 2, 2), (1, 4, 1), (2, NULL, NULL)) t(rel, tie_first, tie_size);
--     => 0.5655
CREATE OR REPLACE TEMP MACRO rf_dcg_ties(rel, tie_first, tie_size, k := NULL, gain := 'linear') AS
    CASE WHEN rf__ok_k('rf_dcg_ties', k)
              AND rf__ok(rf__choice('rf_dcg_ties', 'gain', gain, ['linear', 'exponential']))
              AND rf__grades_ok('rf_dcg_ties', rel) THEN
        rf__tie_dcg(rel, tie_first, tie_size, rf__k('rf_dcg_ties', k),
                    rf__choice('rf_dcg_ties', 'gain', gain, ['linear', 'exponential']))
    END;

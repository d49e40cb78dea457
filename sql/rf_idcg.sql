-- rf_idcg(rel, rank, k, gain := 'linear', ideal := 'all') -> DOUBLE
--   Contract: docs/semantics.md#idcg.
--   Ideal DCG at k: DCG of the query's positive gains sorted descending, built from
--   every row of the query (ideal 'all', trec_eval) or from retrieved rows only
--   (ideal 'retrieved').
--   Example (docs/semantics.md#worked-examples: grades 3, 2, 3, 0, 1 and an unretrieved 3):
--     SELECT round(rf_idcg(rel, rank, 5), 4), round(rf_idcg(rel, rank, 5, ideal := 'retrieved'), 4)
--     FROM (VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1), (NULL, 3)) t(rank, rel);
--     => 7.641, 6.3235
CREATE OR REPLACE TEMP MACRO rf_idcg(rel, rank, k, gain := 'linear', ideal := 'all') AS
    rf__idcg(rel, rank, rf__k('rf_idcg', k),
             rf__choice('rf_idcg', 'gain', gain, ['linear', 'exponential']),
             rf__choice('rf_idcg', 'ideal', ideal, ['all', 'retrieved']));

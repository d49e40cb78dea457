-- rf_idcg(rel, rank, k, gain := 'linear', ideal := 'all') -> DOUBLE
--   Ideal DCG at k: DCG of the query's positive gains sorted descending, built from
--   every row of the query (ideal 'all', trec_eval) or from retrieved rows only
--   (ideal 'retrieved').
CREATE OR REPLACE TEMP MACRO rf_idcg(rel, rank, k, gain := 'linear', ideal := 'all') AS
    rf__idcg(rel, rank, rf__k('rf_idcg', k),
             rf__choice('rf_idcg', 'gain', gain, ['linear', 'exponential']),
             rf__choice('rf_idcg', 'ideal', ideal, ['all', 'retrieved']));

-- rf_dcg(rel, rank, k, gain := 'linear') -> DOUBLE
--   Discounted cumulative gain: sum over rank i <= k of g(rel_i) / log2(i + 1).
--   gain 'linear' (trec_eval ndcg) or 'exponential' (2^rel - 1).
CREATE OR REPLACE TEMP MACRO rf_dcg(rel, rank, k, gain := 'linear') AS
    rf__dcg(rel, rank, rf__k('rf_dcg', k),
            rf__choice('rf_dcg', 'gain', gain, ['linear', 'exponential']));

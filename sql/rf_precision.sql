-- rf_precision(rel, rank, k, threshold := 1, divisor := 'k') -> DOUBLE
--   Precision at k: relevant rows (rel >= threshold) with rank <= k, divided by k.
--   divisor := 'min' divides by min(k, n) instead (n = rows with a rank).
--   k NULL: set precision, relevant retrieved / n. Nothing retrieved -> 0.
--   trec_eval: P_k (k given), set_P (k NULL).
CREATE OR REPLACE TEMP MACRO rf_precision(rel, rank, k, threshold := 1, divisor := 'k') AS
    rf__precision(rel, rank, rf__k('rf_precision', k), rf__threshold('rf_precision', threshold),
                  rf__choice('rf_precision', 'divisor', divisor, ['k', 'min']));

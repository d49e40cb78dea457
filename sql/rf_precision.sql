-- rf_precision(rel, rank, k := NULL, threshold := 1, divisor := 'k') -> DOUBLE
--   Contract: docs/semantics.md#precision.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--     divisor: 'k': divide by k, as trec_eval's P_k; 'min': by min(k, n), n the rows retrieved.
--       With k := NULL both divide by n.
--   Precision at k: relevant rows (rel >= threshold) with rank <= k, divided by k.
--   k NULL: set precision, relevant retrieved / n. Nothing retrieved -> 0.
--   trec_eval: P_k (k given), set_P (k NULL).
--   Example (docs/semantics.md#worked-examples: relevant at ranks 1, 3, 5):
--     SELECT rf_precision(rel, rank, 2), rf_precision(rel, rank, 10),
--            rf_precision(rel, rank, 10, divisor := 'min')
--     FROM (VALUES (1, 1), (2, 0), (3, 1), (4, 0), (5, 1)) t(rank, rel);
--     => 0.5, 0.3, 0.6

-- rf__unchecked_precision: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_precision is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_precision(rel, rank, k := NULL, threshold := 1, divisor := 'k') AS
    rf__precision(rel, rank, rf__k('rf_precision', k), rf__threshold('rf_precision', threshold),
                  rf__choice('rf_precision', 'divisor', divisor, ['k', 'min']));
CREATE OR REPLACE TEMP MACRO rf_precision(rel, rank, k := NULL, threshold := 1, divisor := 'k') AS
    CASE WHEN rf__ranks_ok('rf_precision', rank) THEN
        rf__unchecked_precision(rel, rank, k, threshold := threshold, divisor := divisor) END;

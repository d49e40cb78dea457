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

-- rf__precision_body: the macro once its arguments are checked and ranks_ok (the rank guard,
-- or true) holds, in that order (rf__guarded); rf__unchecked_precision, without the rank guard, is for
-- tables checked already, as by rankframe.evaluate; rf_precision is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__precision_body(rel, rank, k, threshold, divisor, ranks_ok) AS
    CASE WHEN rf__ok_k('rf_precision', k) AND rf__ok(rf__threshold('rf_precision', threshold))
              AND rf__ok(rf__choice('rf_precision', 'divisor', divisor, ['k', 'min'])) THEN
        rf__guarded(ranks_ok,
            rf__precision(rel, rank, k, threshold, divisor))
    END;
CREATE OR REPLACE TEMP MACRO rf__unchecked_precision(rel, rank, k := NULL, threshold := 1, divisor := 'k') AS
    rf__precision_body(rel, rank, k, threshold, divisor, true);
CREATE OR REPLACE TEMP MACRO rf_precision(rel, rank, k := NULL, threshold := 1, divisor := 'k') AS
    rf__precision_body(rel, rank, k, threshold, divisor, rf__rows_ok('rf_precision', rel, rank));

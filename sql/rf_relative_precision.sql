-- rf_relative_precision(rel, rank, k := NULL, threshold := 1) -> DOUBLE
--   Contract: docs/semantics.md#relative_precision.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--   Relative precision at k: relevant rows (rel >= threshold) with rank <= k, divided by
--   min(k, R), R = relevant rows retrieved or not; k NULL divides by min(n, R), n = rows
--   with a rank. R = 0 or nothing retrieved -> 0.
--   trec_eval: relative_P_k (k given), set_relative_P (k NULL).
--   Example (docs/semantics.md#trec_evals-set-and-gain-measures):
--     SELECT rf_relative_precision(rel, rank, 2), rf_relative_precision(rel, rank, 10),
--            rf_relative_precision(rel, rank) FROM (VALUES (1, 1), (2, 0), (3, NULL), (4, 2), (5, 0), (6, -1),
--         (NULL, 2), (NULL, 1), (NULL, 0)) t(rank, rel);
--     => 0.5, 0.5, 0.5

-- rf__unchecked_relative_precision: the body, without the rank guard (for tables checked
-- already, as by rankframe.evaluate); rf_relative_precision is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_relative_precision(rel, rank, k := NULL, threshold := 1) AS
    rf__ratio(rf__hits(rel, rank, rf__k('rf_relative_precision', k),
                       rf__threshold('rf_relative_precision', threshold)),
              least(coalesce(k, count(rank)), rf__num_relevant(rel, threshold)));
CREATE OR REPLACE TEMP MACRO rf_relative_precision(rel, rank, k := NULL, threshold := 1) AS
    CASE WHEN rf__rows_ok('rf_relative_precision', rel, rank) THEN
        rf__unchecked_relative_precision(rel, rank, k, threshold := threshold) END;

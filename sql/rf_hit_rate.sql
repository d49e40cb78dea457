-- rf_hit_rate(rel, rank, k := NULL, threshold := 1) -> DOUBLE
--   Contract: docs/semantics.md#hit_rate.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--   1.0 if any relevant row has rank <= k, else 0.0. trec_eval: success_k.
--   Example (unjudged rows, rel NULL, at ranks 1 and 2; the first relevant row at rank 3):
--     SELECT rf_hit_rate(rel, rank, 2), rf_hit_rate(rel, rank, 3)
--     FROM (VALUES (1, NULL), (2, NULL), (3, 1), (4, 1), (NULL, 2)) t(rank, rel);
--     => 0.0, 1.0

-- rf__unchecked_hit_rate: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_hit_rate is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_hit_rate(rel, rank, k := NULL, threshold := 1) AS
    CASE WHEN rf__hits(rel, rank, rf__k('rf_hit_rate', k),
                       rf__threshold('rf_hit_rate', threshold)) > 0
         THEN 1::DOUBLE ELSE 0::DOUBLE END;
CREATE OR REPLACE TEMP MACRO rf_hit_rate(rel, rank, k := NULL, threshold := 1) AS
    CASE WHEN rf__rows_ok('rf_hit_rate', rel, rank) THEN
        rf__unchecked_hit_rate(rel, rank, k, threshold := threshold) END;

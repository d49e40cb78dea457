-- rf_set_map(rel, rank, threshold := 1) -> DOUBLE
--   Contract: docs/semantics.md#set_map.
--   Parameters:
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--   Set MAP: set precision times set recall, hits^2 / (n * R), hits = relevant rows with a
--   rank, n = rows with a rank, R = relevant rows. n = 0 or R = 0 -> 0.
--   trec_eval: set_map.
--   Example (docs/semantics.md#trec_evals-set-and-gain-measures: 2 * 2 / (6 * 4)):
--     SELECT round(rf_set_map(rel, rank), 4) FROM (VALUES (1, 1), (2, 0), (3, NULL), (4, 2), (5, 0), (6, -1),
--         (NULL, 2), (NULL, 1), (NULL, 0)) t(rank, rel);
--     => 0.1667

-- rf__unchecked_set_map: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_set_map is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_set_map(rel, rank, threshold := 1) AS
    rf__ratio(rf__hits(rel, rank, NULL, rf__threshold('rf_set_map', threshold))
                  * rf__hits(rel, rank, NULL, threshold),
              count(rank) * rf__num_relevant(rel, threshold));
CREATE OR REPLACE TEMP MACRO rf_set_map(rel, rank, threshold := 1) AS
    CASE WHEN rf__rows_ok('rf_set_map', rel, rank) THEN
        rf__unchecked_set_map(rel, rank, threshold := threshold) END;

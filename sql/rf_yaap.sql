-- rf_yaap(rel, rank, threshold := 1) -> DOUBLE
--   Contract: docs/semantics.md#yaap.
--   Parameters:
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--   Yet another average precision (Robertson 2012; trec_eval yaap):
--     ln((1 + S) / (1 + R - S)),  S = sum over relevant retrieved ranks r_j of j / r_j.
--   R = 0 and nothing relevant retrieved -> ln(1) = 0.
--   Example (docs/semantics.md#worked-examples: relevant at ranks 1 and 3, R = 3):
--     SELECT round(rf_yaap(rel, rank), 4)
--     FROM (VALUES (1, 1), (2, 0), (3, 1), (NULL, 1)) t(rank, rel);
--     => 0.1335

-- rf__unchecked_yaap: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_yaap is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_yaap(rel, rank, threshold := 1) AS
    ln((1 + coalesce(list_sum(list_transform(
                rf__relevant_ranks(rel, rank, NULL, rf__threshold('rf_yaap', threshold)),
                lambda r, j: j::DOUBLE / r::DOUBLE)), 0)::DOUBLE)
       / ((1 + rf__num_relevant(rel, threshold))::DOUBLE
          - coalesce(list_sum(list_transform(rf__relevant_ranks(rel, rank, NULL, threshold),
                                             lambda r, j: j::DOUBLE / r::DOUBLE)), 0)::DOUBLE));
CREATE OR REPLACE TEMP MACRO rf_yaap(rel, rank, threshold := 1) AS
    CASE WHEN rf__rows_ok('rf_yaap', rel, rank) THEN
        rf__unchecked_yaap(rel, rank, threshold := threshold) END;

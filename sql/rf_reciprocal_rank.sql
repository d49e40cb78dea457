-- rf_reciprocal_rank(rel, rank, k := NULL, threshold := 1) -> DOUBLE
--   Contract: docs/semantics.md#reciprocal_rank.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--   1 / (rank of the first relevant row) if that rank is <= k, else 0.
--   trec_eval: recip_rank (k NULL).
--   Example (docs/semantics.md#worked-examples: the first relevant row is at rank 3):
--     SELECT round(rf_reciprocal_rank(rel, rank, NULL), 4), rf_reciprocal_rank(rel, rank, 2)
--     FROM (VALUES (1, NULL), (2, NULL), (3, 1), (4, 1), (NULL, 2)) t(rank, rel);
--     => 0.3333, 0.0

-- rf__unchecked_reciprocal_rank: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_reciprocal_rank is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_reciprocal_rank(rel, rank, k := NULL, threshold := 1) AS
    coalesce(1 / (min(rank) FILTER (
        WHERE rf__relevant(rel, rf__threshold('rf_reciprocal_rank', threshold))
          AND rf__in_top(rank, rf__k('rf_reciprocal_rank', k))))::DOUBLE, 0::DOUBLE);
CREATE OR REPLACE TEMP MACRO rf_reciprocal_rank(rel, rank, k := NULL, threshold := 1) AS
    CASE WHEN rf__ranks_ok('rf_reciprocal_rank', rank) THEN
        rf__unchecked_reciprocal_rank(rel, rank, k, threshold := threshold) END;

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

-- rf__reciprocal_rank_body: the macro once its arguments are checked and ranks_ok (the rank guard,
-- or true) holds, in that order (rf__guarded); rf__unchecked_reciprocal_rank, without the rank guard, is for
-- tables checked already, as by rankframe.evaluate; rf_reciprocal_rank is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__reciprocal_rank_body(rel, rank, k, threshold, ranks_ok) AS
    CASE WHEN rf__ok_k('rf_reciprocal_rank', k)
              AND rf__ok(rf__threshold('rf_reciprocal_rank', threshold)) THEN
        rf__guarded(ranks_ok,
            coalesce(1 / (min(rank) FILTER (
                WHERE rel >= threshold AND rf__in_top(rank, k)))::DOUBLE, 0::DOUBLE))
    END;
CREATE OR REPLACE TEMP MACRO rf__unchecked_reciprocal_rank(rel, rank, k := NULL, threshold := 1) AS
    rf__reciprocal_rank_body(rel, rank, k, threshold, true);
CREATE OR REPLACE TEMP MACRO rf_reciprocal_rank(rel, rank, k := NULL, threshold := 1) AS
    rf__reciprocal_rank_body(rel, rank, k, threshold, rf__rows_ok('rf_reciprocal_rank', rel, rank));

-- rf_cg(rel, rank, k := NULL, gain := 'linear') -> DOUBLE
--   Contract: docs/semantics.md#cg.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     gain: 'linear': g = rel, as trec_eval and Järvelin & Kekäläinen; 'exponential':
--       g = 2^rel - 1, as Burges et al. The relevance threshold does not apply to gains.
--   Cumulative gain: sum of g(rel) over rows with rank <= k.
--   gain 'linear': g = rel; 'exponential': g = 2^rel - 1; NULL or rel <= 0 gives 0.
--   Example (docs/semantics.md#worked-examples: grades 3, 2, 3, 0, 1):
--     SELECT rf_cg(rel, rank, 3), rf_cg(rel, rank, NULL),
--            rf_cg(rel, rank, 2, gain := 'exponential')
--     FROM (VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1)) t(rank, rel);
--     => 8.0, 9.0, 10.0

-- rf__unchecked_cg: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_cg is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_cg(rel, rank, k := NULL, gain := 'linear') AS
    rf__gain_sum(rel, gain,
        coalesce(list_sum(list(rf__gain(rel, rf__choice('rf_cg', 'gain', gain, ['linear', 'exponential']))
            ORDER BY rank) FILTER (WHERE rf__in_top(rank, rf__k('rf_cg', k)))), 0)::DOUBLE);
CREATE OR REPLACE TEMP MACRO rf_cg(rel, rank, k := NULL, gain := 'linear') AS
    CASE WHEN rf__ranks_ok('rf_cg', rank) THEN rf__unchecked_cg(rel, rank, k, gain := gain) END;

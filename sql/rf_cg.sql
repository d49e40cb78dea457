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

-- rf__cg_body: the macro once its arguments are checked and ranks_ok (the rank guard,
-- or true) holds, in that order; rf__unchecked_cg, without the rank guard, is for
-- tables checked already, as by rankframe.evaluate; rf_cg is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__cg_body(rel, rank, k, gain, ranks_ok) AS
    CASE WHEN rf__ok_k('rf_cg', k)
              AND rf__ok(rf__choice('rf_cg', 'gain', gain, ['linear', 'exponential']))
              AND ranks_ok THEN
        rf__cg(rel, rank, k, gain)
    END;
CREATE OR REPLACE TEMP MACRO rf__unchecked_cg(rel, rank, k := NULL, gain := 'linear') AS
    rf__cg_body(rel, rank, k, gain, true);
CREATE OR REPLACE TEMP MACRO rf_cg(rel, rank, k := NULL, gain := 'linear') AS
    rf__cg_body(rel, rank, k, gain, rf__rows_ok('rf_cg', rel, rank));

-- rf_rbp_residual(rel, rank, p := 0.8) -> DOUBLE
--   Contract: docs/semantics.md#rbp_residual.
--   The RBP residual: (1 - p) * sum over unknown positions i <= d of p^(i - 1) + p^d, d the
--   deepest rank, a position unknown when its row is unjudged (rel NULL or negative) or
--   missing (a rank gap). Computed as 1 - (1 - p) * sum over judged retrieved rows of
--   p^(rank - 1). rf_rbp + residual bounds RBP from above. Nothing retrieved -> 1.
--   Example (docs/semantics.md#worked-examples: positions 2 (NULL) and 5 (-1) are unknown):
--     SELECT round(rf_rbp_residual(rel, rank), 4), round(rf_rbp_residual(rel, rank, p := 0.5), 4)
--     FROM (VALUES (1, 2), (2, NULL), (3, 0), (4, 1), (5, -1), (6, 3), (NULL, 1), (NULL, 0))
--         t(rank, rel);
--     => 0.5041, 0.2969

-- rf__unchecked_rbp_residual: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_rbp_residual is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_rbp_residual(rel, rank, p := 0.8) AS
    (1 - (1 - rf__persistence('rf_rbp_residual', p))
         * coalesce(sum(rf__geometric(p, rank)) FILTER (WHERE rank IS NOT NULL AND rf__judged(rel)),
                    0))::DOUBLE;
CREATE OR REPLACE TEMP MACRO rf_rbp_residual(rel, rank, p := 0.8) AS
    CASE WHEN rf__ranks_ok('rf_rbp_residual', rank) THEN
        rf__unchecked_rbp_residual(rel, rank, p := p) END;

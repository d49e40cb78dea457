-- rf_kendall_distance(x, y, penalty := 0) -> DOUBLE
--   Contract: docs/semantics.md#kendall_distance.
--   Parameters:
--     penalty: The weight of a pair tied in exactly one column, in [0, 1]: 0 counts strict
--       inversions only, 0.5 is Fagin et al.'s neutral choice.
--   Normalised Kendall distance: (D + penalty * T) / (n(n - 1)/2), D = discordant pairs,
--   T = pairs tied in exactly one column (Fagin et al. 2004, K^(p)); pairs tied in both
--   never count. penalty 0 (default) counts strict inversions only: without ties this is
--   (1 - tau) / 2. Rows where x or y is NULL or NaN are dropped; fewer than two rows -> 0.
--   Values are compared in their own type: BIGINTs beyond 2^53 exactly, +-inf as
--   ordinary values (inf = inf), -0.0 = 0.0.
--   O(n^2) per group.
--   Example (docs/semantics.md#worked-examples: 3 of the 10 pairs are tied in one column only):
--     SELECT rf_kendall_distance(x, y), rf_kendall_distance(x, y, penalty := 0.5) FROM (VALUES
--         (1, 1), (2, 1), (2, 2), (3, 3), (4, 3), (NULL, 5), (5, 'NaN'::DOUBLE)) t(x, y);
--     => 0.0, 0.15
CREATE OR REPLACE TEMP MACRO rf_kendall_distance(x, y, penalty := 0) AS
    CASE WHEN rf__ok(rf__unit('rf_kendall_distance', 'penalty', penalty)) THEN
        list_transform([rf__kendall_counts(x, y)], lambda c:
            CASE WHEN c['n0'] > 0
                 THEN ((c['n0'] - c['tx'] - c['ty'] + c['txy'] - c['s']) / 2
                       + rf__unit('rf_kendall_distance', 'penalty', penalty)
                         * (c['tx'] + c['ty'] - 2 * c['txy'])) / c['n0']
                 ELSE 0 END)[1]::DOUBLE
    END;

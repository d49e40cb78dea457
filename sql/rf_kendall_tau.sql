-- rf_kendall_tau(x, y) -> DOUBLE
--   Contract: docs/semantics.md#kendall_tau.
--   Kendall's tau-b between two numeric columns of a group's rows:
--     (C - D) / sqrt((n0 - n1) * (n0 - n2)),
--   C / D = concordant / discordant pairs, n0 = n(n - 1)/2, n1 / n2 = pairs tied in x / y.
--   Rows where x or y is NULL or NaN are dropped. Fewer than two rows or a constant
--   Values are compared in their own type: BIGINTs beyond 2^53 exactly, +-inf as
--   ordinary values (inf = inf), -0.0 = 0.0.
--   column -> 0 (scipy gives NaN). O(n^2) per group.
--   Example (docs/semantics.md#worked-examples: the rows with NULL or NaN are dropped):
--     SELECT round(rf_kendall_tau(x, y), 4) FROM (VALUES (1, 1), (2, 1), (2, 2), (3, 3), (4, 3),
--         (NULL, 5), (5, 'NaN'::DOUBLE)) t(x, y);
--     => 0.825
CREATE OR REPLACE TEMP MACRO rf_kendall_tau(x, y) AS
    list_transform([rf__kendall_counts(x, y)], lambda c:
        CASE WHEN c['n0'] - c['tx'] > 0 AND c['n0'] - c['ty'] > 0
             THEN c['s'] / sqrt((c['n0'] - c['tx']) * (c['n0'] - c['ty']))
             ELSE 0 END)[1]::DOUBLE;

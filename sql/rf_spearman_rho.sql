-- rf_spearman_rho(x, y) -> DOUBLE
--   Contract: docs/semantics.md#spearman_rho.
--   Spearman's rho: Pearson correlation of the average ranks of x and y (ties share the
--   mean of their positions; the mean rank is (n + 1)/2). Rows where x or y is NULL or
--   NaN are dropped. Fewer than two rows or a constant column -> 0 (scipy gives NaN).
--   Values are compared in their own type: BIGINTs beyond 2^53 exactly, +-inf as
--   ordinary values (inf = inf), -0.0 = 0.0.
--   O(n^2) per group (ranks by counting).
--   Example (docs/semantics.md#worked-examples):
--     SELECT round(rf_spearman_rho(x, y), 4) FROM (VALUES (1, 1), (2, 3), (3, 2), (4, 4)) t(x, y);
--     => 0.8
CREATE OR REPLACE TEMP MACRO rf_spearman_rho(x, y) AS
    list_transform([rf__pairs(x, y)], lambda l:
        list_transform([list_transform(l, lambda a: {
            'a': len(list_filter(l, lambda b: b['x'] < a['x']))
                 + (len(list_filter(l, lambda b: b['x'] = a['x'])) + 1) / 2 - (len(l) + 1) / 2,
            'b': len(list_filter(l, lambda b: b['y'] < a['y']))
                 + (len(list_filter(l, lambda b: b['y'] = a['y'])) + 1) / 2 - (len(l) + 1) / 2})],
            lambda r: CASE
                WHEN coalesce(list_sum(list_transform(r, lambda z: z['a'] * z['a']))
                              * list_sum(list_transform(r, lambda z: z['b'] * z['b'])), 0) > 0
                THEN list_sum(list_transform(r, lambda z: z['a'] * z['b']))
                     / sqrt(list_sum(list_transform(r, lambda z: z['a'] * z['a']))
                            * list_sum(list_transform(r, lambda z: z['b'] * z['b'])))
                ELSE 0 END)[1])[1]::DOUBLE;

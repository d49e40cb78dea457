-- rf_rbo(rank_a, rank_b, p := 0.9, depth := NULL, extrapolated := true) -> DOUBLE
--   Contract: docs/semantics.md#rbo.
--   Parameters:
--     p: Persistence, in (0, 1): the chance the reader goes on to the next rank.
--     depth: Keep only ranks <= depth of both rankings; NULL: all.
--     extrapolated: true: RBO_ext, eq. 32 of Webber et al.; false: the lower bound RBO_min, eq.
--       11.
--   Rank-biased overlap (Webber, Moffat & Zobel 2010) of rankings A and B, one row per
--   document of either: rank_a / rank_b its rank in A / B, NULL where absent. depth keeps
--   ranks <= depth. A list's length is its deepest rank (a gap holds a document in
--   neither list). X_d = documents ranked <= d in both; s <= l the two lengths.
--   extrapolated true, RBO_ext (eq. 32 of the paper):
--     (1-p)/p * (sum_{d<=l} X_d p^d/d + X_s/s * sum_{s<d<=l} (d-s) p^d/d)
--       + ((X_l - X_s)/l + X_s/s) * p^l
--   extrapolated false, RBO_min (eq. 11; nothing unseen overlaps):
--     (1-p)/p * (sum_{d<=l} (X_d - X_l) p^d/d - X_l ln(1-p))
--   Either list empty -> 0. O(l * n) per group.
--   Example (docs/semantics.md#worked-examples: A = (a, b, c), B = (b, a, d)):
--     SELECT round(rf_rbo(rank_a, rank_b), 4), round(rf_rbo(rank_a, rank_b, depth := 2), 4),
--            round(rf_rbo(rank_a, rank_b, extrapolated := false), 4)
--     FROM (VALUES (1, 2), (2, 1), (3, NULL), (NULL, 3)) t(rank_a, rank_b);
--     => 0.63, 0.9, 0.3117
CREATE OR REPLACE TEMP MACRO rf_rbo(rank_a, rank_b, p := 0.9, depth := NULL,
                                    extrapolated := true) AS
    CASE WHEN rf__ok(rf__persistence('rf_rbo', p)) AND (depth IS NULL OR rf__ok(rf__cutoff('rf_rbo', 'depth', depth)))
              AND rf__ok(rf__flag('rf_rbo', 'extrapolated', extrapolated)) THEN
        list_transform([{
            'la': coalesce(max(rank_a) FILTER (
                      WHERE rank_a <= coalesce(rf__cutoff('rf_rbo', 'depth', depth), rank_a)), 0),
            'lb': coalesce(max(rank_b) FILTER (WHERE rank_b <= coalesce(depth, rank_b)), 0),
            'both': coalesce(list(greatest(rank_a, rank_b)) FILTER (
                        WHERE rank_a <= coalesce(depth, rank_a) AND rank_b <= coalesce(depth, rank_b)),
                        [])}],
            lambda c: list_transform([{
                's': least(c['la'], c['lb']), 'l': greatest(c['la'], c['lb']), 'both': c['both'],
                'xs': len(list_filter(c['both'], lambda m: m <= least(c['la'], c['lb']))),
                'xl': len(c['both']), 'p': rf__persistence('rf_rbo', p)}],
                lambda g: CASE
                    WHEN g['s'] = 0 THEN 0
                    WHEN rf__flag('rf_rbo', 'extrapolated', extrapolated) THEN
                        (1 - g['p']) / g['p'] * (
                            list_sum(list_transform(range(1, g['l'] + 1), lambda d:
                                len(list_filter(g['both'], lambda m: m <= d)) * pow(g['p'], d) / d))
                            + g['xs'] / g['s'] * coalesce(list_sum(list_transform(range(g['s'] + 1, g['l'] + 1),
                                lambda d: (d - g['s']) * pow(g['p'], d) / d)), 0))
                        + ((g['xl'] - g['xs']) / g['l'] + g['xs'] / g['s']) * pow(g['p'], g['l'])
                    ELSE
                        (1 - g['p']) / g['p'] * (
                            list_sum(list_transform(range(1, g['l'] + 1), lambda d:
                                (len(list_filter(g['both'], lambda m: m <= d)) - g['xl']) * pow(g['p'], d) / d))
                            - g['xl'] * ln(1 - g['p']))
                    END)[1])[1]::DOUBLE
    END;

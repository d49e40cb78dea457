-- rf_reciprocal_rank_ties(rel, tie_first, tie_size, k := NULL, threshold := 1) -> DOUBLE
--   Contract: docs/semantics.md#reciprocal_rank_ties.
--   Expected reciprocal rank at k over every ordering of tied rows (McSherry & Najork
--   2008). Only the first group with a relevant row matters (first position f, size t,
--   r relevant): the first relevant row is at offset j with chance
--   P_j = C(t - j, r - 1) / C(t, r), P_1 = r / t, P_j = P_(j-1) (t - r - j + 2) / (t - j + 1),
--   and the value is sum over j <= min(t - r + 1, k - f + 1) of P_j / (f + j - 1).
--   No relevant row within k -> 0.
--   Example (docs/semantics.md#worked-examples: ranks 2 and 3 tied, one of them relevant):
--     SELECT round(rf_reciprocal_rank_ties(rel, tie_first, tie_size, NULL), 4) FROM (VALUES
--         (NULL, 1, 1), (NULL, 2, 2), (1, 2, 2), (1, 4, 1), (2, NULL, NULL))
--         t(rel, tie_first, tie_size);
--     => 0.4167
CREATE OR REPLACE TEMP MACRO rf_reciprocal_rank_ties(rel, tie_first, tie_size, k := NULL,
                                                     threshold := 1) AS
    CASE WHEN rf__ok_k('rf_reciprocal_rank_ties', k)
              AND rf__ok(rf__threshold('rf_reciprocal_rank_ties', threshold)) THEN
        coalesce(list_transform([coalesce(list({'f': tie_first, 't': tie_size}) FILTER (
                WHERE tie_first IS NOT NULL
                  AND rf__relevant(rel, rf__threshold('rf_reciprocal_rank_ties', threshold))), [])],
            lambda groups: list_transform([{
                'f': list_min(list_transform(groups, lambda g: g.f)),
                'r': len(list_filter(groups,
                         lambda g: g.f = list_min(list_transform(groups, lambda h: h.f)))),
                't': list_filter(groups,
                         lambda g: g.f = list_min(list_transform(groups, lambda h: h.f)))[1].t}],
                lambda c: list_reduce(
                    range(1, least(c.t - c.r + 1,
                                   coalesce(k - c.f + 1, c.t))::BIGINT + 1),
                    lambda acc, j: {
                        'value': acc.value
                            + CASE WHEN j = 1 THEN c.r / c.t
                                   ELSE acc.chance * (c.t - c.r - j + 2) / (c.t - j + 1) END
                              / (c.f + j - 1),
                        'chance': CASE WHEN j = 1 THEN c.r / c.t
                                       ELSE acc.chance * (c.t - c.r - j + 2) / (c.t - j + 1) END},
                    {'value': 0::DOUBLE, 'chance': 0::DOUBLE}).value)[1])[1], 0)::DOUBLE
    END;

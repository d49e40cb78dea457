-- rf_awrf(alignment, rank, target, k := NULL) -> DOUBLE
--   Contract: docs/semantics.md#awrf.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--   Attention-weighted rank fairness, as TREC Fair Ranking 2022: the exposure of the groups,
--   E = sum w_i a_i / sum w_i over the rows with rank <= k and an alignment a_i (a list of
--   weights per group; NULL: unknown group, left out), w_i = 1 / log2(max(rank, 2)), against
--   the target (a list over the same groups, the same on each row of the group):
--   1 - JSD(E, target), the Jensen-Shannon divergence in nats of the two normalised; NULL for
--   no row of known group.
--   Example (one item of each of two groups against an even target; then a list of one group):
--     SELECT rf_awrf(alignment, rank, [0.5, 0.5]), round(rf_awrf(alignment, rank, [0.5, 0.5], 1), 4)
--     FROM (VALUES (1, [1.0, 0.0]), (2, [0.0, 1.0])) t(rank, alignment);
--     => 1.0, 0.7842

-- rf__half_divergence: ½ sum p_g ln(p_g / m_g) of two lists (terms with p_g = 0 add 0).
CREATE OR REPLACE TEMP MACRO rf__half_divergence(p, m) AS
    list_sum(list_transform(p, lambda x, g: CASE WHEN x > 0 THEN x * ln(x / m[g]) ELSE 0 END)) / 2;
-- rf__awrf_of: 1 - JSD of an exposure and a target, normalised.
CREATE OR REPLACE TEMP MACRO rf__awrf_of(e, t) AS
    CASE WHEN len(e) = len(t) AND list_sum(e) > 0 AND list_sum(t) > 0 THEN
        1 - rf__half_divergence(list_transform(e, lambda x: x / list_sum(e)),
                                list_transform(e, lambda x, g: (x / list_sum(e) + t[g] / list_sum(t)) / 2))
          - rf__half_divergence(list_transform(t, lambda x: x / list_sum(t)),
                                list_transform(e, lambda x, g: (x / list_sum(e) + t[g] / list_sum(t)) / 2))
    END;
-- rf__weighted_vector_sum: sum_i weights[i] * vectors[i], position by position.
CREATE OR REPLACE TEMP MACRO rf__weighted_vector_sum(vectors, weights) AS
    list_transform(vectors[1], lambda x, g: list_sum(list_transform(vectors, lambda a, i: a[g]::DOUBLE * weights[i])));
-- rf__unchecked_awrf: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_awrf is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_awrf(alignment, rank, target, k := NULL) AS
    CASE WHEN rf__ok_k('rf_awrf', k)
              AND count(DISTINCT len(alignment)) FILTER (WHERE rf__in_top(rank, k)) <= 1 THEN
        rf__awrf_of(rf__weighted_vector_sum(
                        list(alignment) FILTER (WHERE rf__in_top(rank, k) AND alignment IS NOT NULL),
                        list(1 / log2(greatest(rank, 2)))
                            FILTER (WHERE rf__in_top(rank, k) AND alignment IS NOT NULL)),
                    list_transform(any_value(target), lambda x: x::DOUBLE))
    END;
CREATE OR REPLACE TEMP MACRO rf_awrf(alignment, rank, target, k := NULL) AS
    CASE WHEN rf__ranks_ok('rf_awrf', rank) THEN rf__unchecked_awrf(alignment, rank, target, k) END;

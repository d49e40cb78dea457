-- rf_reciprocal_rank_ties(rel, tie_first, tie_size, k := NULL, threshold := 1) -> DOUBLE
--   Contract: docs/semantics.md#reciprocal_rank_ties.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
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

-- The expected reciprocal rank of the first relevant row, from the first tie group holding
-- a relevant row: its first position f, its size t and the r relevant rows in it. Every
-- step of the reduction carries f, t and r: the reducing lambda reads nothing from outside
-- (DuckDB 1.4 and 1.5 read captured values of the wrong row when the lists' lengths
-- differ), and the steps have the accumulator's type.
CREATE OR REPLACE TEMP MACRO rf__first_relevant_rr_ties(f, t, r, k) AS
    coalesce(list_reduce(
        list_transform(range(1, least(t - r + 1, coalesce(k - f + 1, t))::BIGINT + 1),
                       lambda j: {'value': 0::DOUBLE, 'chance': 0::DOUBLE, 'j': j,
                                  'f': f::BIGINT, 't': t::BIGINT, 'r': r::BIGINT}),
        lambda acc, step: {
            'value': acc['value']
                + CASE WHEN step['j'] = 1 THEN step['r'] / step['t']
                       ELSE acc['chance'] * (step['t'] - step['r'] - step['j'] + 2) / (step['t'] - step['j'] + 1)
                  END / (step['f'] + step['j'] - 1),
            'chance': CASE WHEN step['j'] = 1 THEN step['r'] / step['t']
                           ELSE acc['chance'] * (step['t'] - step['r'] - step['j'] + 2)
                                / (step['t'] - step['j'] + 1) END,
            'j': step['j'], 'f': step['f'], 't': step['t'], 'r': step['r']},
        {'value': 0::DOUBLE, 'chance': 0::DOUBLE, 'j': 0::BIGINT, 'f': 0::BIGINT,
         't': 0::BIGINT, 'r': 0::BIGINT}).value, 0)::DOUBLE;

CREATE OR REPLACE TEMP MACRO rf_reciprocal_rank_ties(rel, tie_first, tie_size, k := NULL,
                                                     threshold := 1) AS
    CASE WHEN rf__ok_k('rf_reciprocal_rank_ties', k)
              AND rf__ok(rf__threshold('rf_reciprocal_rank_ties', threshold))
              AND rf__grades_ok('rf_reciprocal_rank_ties', rel) THEN
        rf__first_relevant_rr_ties(
            min(tie_first) FILTER (WHERE tie_first IS NOT NULL AND rf__relevant(rel,
                rf__threshold('rf_reciprocal_rank_ties', threshold))),
            arg_min(tie_size, tie_first) FILTER (WHERE tie_first IS NOT NULL AND rf__relevant(
                rel, rf__threshold('rf_reciprocal_rank_ties', threshold))),
            len(list_filter(list(tie_first) FILTER (WHERE tie_first IS NOT NULL
                    AND rf__relevant(rel, rf__threshold('rf_reciprocal_rank_ties', threshold))),
                lambda first: first = min(tie_first) FILTER (WHERE tie_first IS NOT NULL
                    AND rf__relevant(rel, rf__threshold('rf_reciprocal_rank_ties',
                                                        threshold)))))::BIGINT,
            k)
    END;

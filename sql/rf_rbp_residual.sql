-- rf_rbp_residual(rel, rank, p := 0.8) -> DOUBLE
--   Contract: docs/semantics.md#rbp_residual.
--   Parameters:
--     p: Persistence, in (0, 1): the chance the reader goes on to the next rank.
--   The RBP residual: (1 - p) * sum over unknown positions i <= d of p^(i - 1) + p^d, d the
--   deepest rank, a position unknown when its row is unjudged (rel NULL or negative) or
--   missing (a rank gap), added in position order, p^(i - 1) a running product (as
--   trec_eval). rf_rbp + residual bounds RBP from above. Nothing retrieved -> 1.
--   Example (docs/semantics.md#worked-examples: positions 2 (NULL) and 5 (-1) are unknown):
--     SELECT round(rf_rbp_residual(rel, rank), 4), round(rf_rbp_residual(rel, rank, p := 0.5), 4)
--     FROM (VALUES (1, 2), (2, NULL), (3, 0), (4, 1), (5, -1), (6, 3), (NULL, 1), (NULL, 0))
--         t(rank, rel);
--     => 0.5041, 0.2969

-- rf__unchecked_rbp_residual: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_rbp_residual is the guarded macro. As trec_eval: a fold over the
-- judged retrieved ranks in order, then a last element at d + 1 (k false); before each, the
-- unknown positions since the last add the running weight c one at a time (c times p per
-- position, not pow); the result is c + (1 - p) * s, c the weight of position d + 1. The
-- fold stops at position K + 1 (rf__rbp_residual_near, K = rf__floor_steps(p)): every
-- deeper position weighs the floor c reached there, and its n unknown ones add it as one
-- last term, n * c.
CREATE OR REPLACE TEMP MACRO rf__rbp_residual_near(p) AS
    rf__floor_steps(rf__persistence('rf_rbp_residual', p)) + 1;

CREATE OR REPLACE TEMP MACRO rf__unchecked_rbp_residual(rel, rank, p := 0.8) AS
    list_transform([{
        'known': coalesce(list(rf__rank_value(rank) ORDER BY rank)
                              FILTER (WHERE rank IS NOT NULL AND rf__judged(rel)), []),
        'd': coalesce(rf__rank_value(max(rank)), 0::UHUGEINT),
        'near': rf__rbp_residual_near(p)::UHUGEINT}],
        -- marks: the known positions up to near, as the fold's elements (BIGINT positions).
        lambda v: list_transform([list_transform(
                list_filter(v['known'], lambda e: e <= v['near']),
                lambda e: {'s': 0.0::DOUBLE, 'c': 0.0::DOUBLE, 'r': e::BIGINT, 'k': true})],
            lambda marks: list_transform([list_reduce(list_append(marks,
                    {'s': 0.0::DOUBLE, 'c': 0.0::DOUBLE, 'r': least(v['d'], v['near'])::BIGINT + 1,
                     'k': false}),
                lambda a, b: list_transform(
                    [list_reduce(list_resize([{'s': a['s'], 'c': a['c']}], b['r'] - a['r'] + 1,
                                             {'s': 0.0::DOUBLE, 'c': 0.0::DOUBLE}),
                                 lambda x, y: {'s': x['s'] + x['c'], 'c': x['c'] * p::DOUBLE})],
                    lambda u: {'s': u['s'], 'c': CASE WHEN b['k'] THEN u['c'] * p::DOUBLE ELSE u['c'] END,
                               'r': b['r'] + 1, 'k': b['k']})[1],
                {'s': 0.0::DOUBLE, 'c': 1.0::DOUBLE, 'r': 1::BIGINT, 'k': true})],
                -- n = d - near - (known beyond near): the unknown deeper positions, counted
                -- in UHUGEINT (d may be any rank).
                lambda f: f['c'] + (1 - rf__persistence('rf_rbp_residual', p))
                          * CASE WHEN v['d'] > v['near'] + (len(v['known']) - len(marks))::UHUGEINT
                                 THEN f['s'] + (v['d'] - v['near']
                                                - (len(v['known']) - len(marks))::UHUGEINT)::DOUBLE
                                            * f['c']
                                 ELSE f['s'] END)[1])[1])[1]::DOUBLE;
CREATE OR REPLACE TEMP MACRO rf_rbp_residual(rel, rank, p := 0.8) AS
    CASE WHEN rf__rows_ok('rf_rbp_residual', rel, rank) THEN
        rf__unchecked_rbp_residual(rel, rank, p := p) END;

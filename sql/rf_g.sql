-- rf_g(rel, rank, gains := NULL) -> DOUBLE
--   Contract: docs/semantics.md#g.
--   Parameters:
--     gains: A gain per grade, MAP {grade: gain} (trec_eval's ndcg.1=3,2=9): a listed grade (an
--       integer >= 0, grade 0 too) gains the number given, which may be 0 or negative; the
--       other grades keep the gain the gain parameter gives them (linear where the metric has
--       none). NULL: none listed.
--   G, normalised gain: (1/I) * sum over retrieved positions i with g_i <> 0 of
--   g_i / log2((2 + C_i) - S_i). g_i = the gain of the row at position i (gains: a MAP of
--   a gain per grade; other grades gain their own value, NULL and negative grades 0);
--   S_i = g_1 + ... + g_i; the ideal gains I_1 >= I_2 >= ... are the positive gains of the
--   judged rows (rel >= 0, retrieved or not), padded with zeros; C_i = sum of max(I_j, 1)
--   for j <= i; I = the sum of the ideal gains. Sums in rank order. I = 0 -> 0.
--   trec_eval: G (-m G.1=3.5,2=9 is gains := MAP {1: 3.5, 2: 9}).
--   Example (docs/semantics.md#trec_evals-set-and-gain-measures):
--     SELECT round(rf_g(rel, rank), 4), round(rf_g(rel, rank, gains := MAP {2: 5}), 4) FROM (VALUES (1, 1), (2, 0), (3, NULL), (4, 2), (5, 0), (6, -1),
--         (NULL, 2), (NULL, 1), (NULL, 0)) t(rank, rel);
--     => 0.2487, 0.1711

-- A gain per grade: a MAP of integer grades >= 0 to finite gains, or NULL (none); returned
-- with DOUBLE keys and values, so that a grade looks it up.
CREATE OR REPLACE TEMP MACRO rf__g_gains(gains) AS
    CASE WHEN gains IS NULL THEN NULL
         WHEN coalesce(list_bool_and(list_transform(map_entries(gains),
                 lambda e: e['key'] >= 0 AND e['key'] = floor(e['key']) AND isfinite(e['value']::DOUBLE))), true)
             THEN map_from_entries(list_transform(map_entries(gains),
                                                  lambda e: {'k': e['key']::DOUBLE, 'v': e['value']::DOUBLE}))
         ELSE error('rf_g: gains must map integer grades >= 0 to finite gains, got ' || gains::VARCHAR)
    END;

-- The gain of a grade with a checked gain map: the listed gain, else the grade; 0 for NULL
-- and negative grades.
CREATE OR REPLACE TEMP MACRO rf__g_gain(rel, gains) AS
    CASE WHEN rel IS NULL OR rel < 0 THEN 0::DOUBLE
         ELSE coalesce(map_extract_value(gains, rel::DOUBLE), rel::DOUBLE)
    END;

-- G of the retrieved gains in rank order and the ideal gains in descending order: one fold
-- carrying C_i, S_i and the running sum of the terms, from a leading zero cell.
CREATE OR REPLACE TEMP MACRO rf__g_value(found, ideal) AS
    rf__ratio(
        list_reduce(list_prepend({'c': 0::DOUBLE, 's': 0::DOUBLE, 't': 0::DOUBLE},
                        list_transform(list_zip(coalesce(found, []), list_transform(
                            list_slice(list_concat(coalesce(ideal, []),
                                                   list_transform(coalesce(found, []), lambda g: 0::DOUBLE)),
                                       1, len(coalesce(found, []))),
                            lambda x: greatest(x, 1::DOUBLE))),
                        lambda x: {'c': x[2], 's': x[1], 't': 0::DOUBLE})),
                    lambda acc, x: {'c': acc['c'] + x['c'], 's': acc['s'] + x['s'],
                        't': CASE WHEN x['s'] <> 0
                                  THEN acc['t'] + x['s'] / log2((2 + (acc['c'] + x['c'])) - (acc['s'] + x['s']))
                                  ELSE acc['t'] END}).t,
        list_reduce(list_prepend(0::DOUBLE, coalesce(ideal, [])), lambda a, b: a + b));

-- rf__unchecked_g: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_g is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_g(rel, rank, gains := NULL) AS
    CASE WHEN gains IS NULL OR rf__ok(rf__g_gains(gains)) THEN
        rf__g_value(
            list(rf__g_gain(rel, rf__g_gains(gains)) ORDER BY rank) FILTER (WHERE rank IS NOT NULL),
            list(rf__g_gain(rel, rf__g_gains(gains)) ORDER BY rf__g_gain(rel, rf__g_gains(gains)) DESC)
                FILTER (WHERE rel >= 0 AND rf__g_gain(rel, rf__g_gains(gains)) > 0))
    END;
CREATE OR REPLACE TEMP MACRO rf_g(rel, rank, gains := NULL) AS
    CASE WHEN rf__rows_ok('rf_g', rel, rank) THEN rf__unchecked_g(rel, rank, gains := gains) END;

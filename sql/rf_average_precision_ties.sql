-- rf_average_precision_ties(rel, tie_first, tie_size, k := NULL, threshold := 1,
--   Contract: docs/semantics.md#average_precision_ties.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--     divisor: 'relevant': divide by R, every relevant row of the query (trec_eval, ranx);
--       'min': by min(R, k), the recommender MAP@k (Spark).
--   Expected average precision at k over every ordering of tied rows (McSherry & Najork
--   2008). A relevant row of a group (first position f, size t, r relevant, h relevant
--   rows in earlier groups) is at offset j = 1..t with chance 1/t, where the expected
--   relevant count in the top f + j - 1 is h + 1 + (j - 1)(r - 1)/(t - 1). Value:
--     (1/D) sum over relevant retrieved rows of
--       (1/t) sum over j <= min(t, k - f + 1) of (h + 1 + (j - 1)(r - 1)/(t - 1)) / (f + j - 1)
--   D = R ('relevant', trec_eval) or min(R, k) ('min'); D = 0 -> 0.
--   Example (docs/semantics.md#worked-examples: ranks 2 and 3 tied, one of them relevant):
--     SELECT round(rf_average_precision_ties(rel, tie_first, tie_size, NULL), 4) FROM (VALUES
--         (NULL, 1, 1), (NULL, 2, 2), (1, 2, 2), (1, 4, 1), (2, NULL, NULL))
--         t(rel, tie_first, tie_size);
--     => 0.3056
CREATE OR REPLACE TEMP MACRO rf_average_precision_ties(rel, tie_first, tie_size, k := NULL,
                                                       threshold := 1,
                                                       divisor := 'relevant') AS
    CASE WHEN rf__ok_k('rf_average_precision_ties', k)
              AND rf__ok(rf__threshold('rf_average_precision_ties', threshold))
              AND rf__ok(rf__choice('rf_average_precision_ties', 'divisor', divisor,
                                    ['relevant', 'min']))
              AND rf__grades_ok('rf_average_precision_ties', rel) THEN
        rf__ratio(
            coalesce(list_transform([coalesce(list({'f': tie_first, 't': tie_size}) FILTER (
                    WHERE tie_first IS NOT NULL
                      AND rf__relevant(rel, rf__threshold('rf_average_precision_ties', threshold))),
                    [])],
                lambda rows: list_sum(list_transform(rows, lambda a:
                    ((len(list_filter(rows, lambda b: b['f'] < a['f'])) + 1)
                         * coalesce(list_sum(list_transform(
                               range(a['f'], rf__tie_last(a['f'], a['t'],
                                                       rf__k('rf_average_precision_ties', k)) + 1),
                               lambda i: 1 / i)), 0)
                     + CASE WHEN a['t'] > 1
                            THEN (len(list_filter(rows, lambda b: b['f'] = a['f'])) - 1) / (a['t'] - 1)
                            ELSE 0 END
                         * coalesce(list_sum(list_transform(
                               range(a['f'], rf__tie_last(a['f'], a['t'], k) + 1),
                               lambda i: (i - a['f']) / i)), 0))
                    / a['t'])))[1], 0),
            CASE rf__choice('rf_average_precision_ties', 'divisor', divisor, ['relevant', 'min'])
                WHEN 'relevant' THEN rf__num_relevant(rel, threshold)
                ELSE least(rf__num_relevant(rel, threshold), coalesce(k, 9223372036854775807))
            END)::DOUBLE
    END;

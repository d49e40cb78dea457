-- rf_average_precision(rel, rank, k, threshold := 1, divisor := 'relevant') -> DOUBLE
--   (sum over relevant ranks r_j <= k of j / r_j) / D, where r_j is the rank of the j-th
--   relevant retrieved row and D is
--     'relevant': R, all relevant rows of the query (trec_eval map / map_cut_k, ranx);
--     'min':      min(R, k) (the recommender-systems MAP@k);
--     'found':    relevant rows in the top k.
--   D = 0 -> 0.
CREATE OR REPLACE TEMP MACRO rf_average_precision(rel, rank, k, threshold := 1,
                                                  divisor := 'relevant') AS
    rf__ratio(
        coalesce(list_sum(list_transform(
            rf__relevant_ranks(rel, rank, rf__k('rf_average_precision', k),
                               rf__threshold('rf_average_precision', threshold)),
            lambda r, j: j / r)), 0),
        CASE rf__choice('rf_average_precision', 'divisor', divisor, ['relevant', 'min', 'found'])
            WHEN 'relevant' THEN rf__num_relevant(rel, threshold)
            WHEN 'min' THEN least(rf__num_relevant(rel, threshold), coalesce(k, 9223372036854775807))
            ELSE rf__hits(rel, rank, k, threshold)
        END);

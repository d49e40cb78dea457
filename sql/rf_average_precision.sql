-- rf_average_precision(rel, rank, k := NULL, threshold := 1, divisor := 'relevant') -> DOUBLE
--   Contract: docs/semantics.md#average_precision.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--     divisor: 'relevant': divide by R, every relevant row of the query (trec_eval, ranx);
--       'min': by min(R, k), the recommender MAP@k (Spark); 'found': by the relevant rows found
--       in the top k.
--   (sum over relevant ranks r_j <= k of j / r_j) / D, where r_j is the rank of the j-th
--   relevant retrieved row and D is
--     'relevant': R, all relevant rows of the query (trec_eval map / map_cut_k, ranx);
--     'min':      min(R, k) (the recommender-systems MAP@k);
--     'found':    relevant rows in the top k.
--   D = 0 -> 0.
--   Example (docs/semantics.md#worked-examples: relevant at ranks 1, 3, 4 and 7, so R = 4):
--     SELECT round(rf_average_precision(rel, rank, NULL), 4),
--            round(rf_average_precision(rel, rank, 5), 4),
--            round(rf_average_precision(rel, rank, 5, divisor := 'found'), 4)
--     FROM (VALUES (1, 1), (2, 0), (3, 1), (4, 1), (5, 0), (6, 0), (7, 1)) t(rank, rel);
--     => 0.747, 0.6042, 0.8056

-- rf__average_precision_body: the macro once its arguments are checked and ranks_ok (the rank guard,
-- or true) holds, in that order (rf__guarded); rf__unchecked_average_precision, without the rank guard, is for
-- tables checked already, as by rankframe.evaluate; rf_average_precision is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__average_precision_body(rel, rank, k, threshold, divisor, ranks_ok) AS
    CASE WHEN rf__ok_k('rf_average_precision', k)
              AND rf__ok(rf__threshold('rf_average_precision', threshold))
              AND rf__ok(rf__choice('rf_average_precision', 'divisor', divisor,
                                    ['relevant', 'min', 'found'])) THEN
        rf__guarded(ranks_ok,
            rf__ratio(
                coalesce(list_sum(list_transform(rf__relevant_ranks(rel, rank, k, threshold),
                                                 lambda r, j: j / r)), 0),
                CASE divisor
                    WHEN 'relevant' THEN rf__relevant_count(rel, rank, threshold)
                    WHEN 'min' THEN least(rf__relevant_count(rel, rank, threshold),
                                          coalesce(k, 9223372036854775807))
                    ELSE len(rf__relevant_ranks(rel, rank, k, threshold))
                END))
    END;
CREATE OR REPLACE TEMP MACRO rf__unchecked_average_precision(rel, rank, k := NULL, threshold := 1, divisor := 'relevant') AS
    rf__average_precision_body(rel, rank, k, threshold, divisor, true);
CREATE OR REPLACE TEMP MACRO rf_average_precision(rel, rank, k := NULL, threshold := 1, divisor := 'relevant') AS
    rf__average_precision_body(rel, rank, k, threshold, divisor, rf__rows_ok('rf_average_precision', rel, rank));

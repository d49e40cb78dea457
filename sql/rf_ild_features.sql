-- rf_ild_features(features, rank, k := NULL) -> DOUBLE
--   Contract: docs/semantics.md#ild_features.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--   Intra-list diversity over item feature vectors (lists of numbers): 1 - (|S|^2 - m) / (n (n
--   - 1)), S the sum of the unit vectors of the rows with rank <= k, m those with a non-zero
--   vector, n all of them: one minus the mean cosine of the list's pairs, with no pairs formed.
--   NULL for fewer than two rows or vectors of several lengths.
--   Example (cosines 1/sqrt(2) between the first two, 0 with the NULL vector):
--     SELECT round(rf_ild_features(features, rank, 2), 4), round(rf_ild_features(features, rank), 4)
--     FROM (VALUES (1, [1.0, 1.0]), (2, [1.0, 0.0]), (3, NULL)) t(rank, features);
--     => 0.2929, 0.7643

-- rf__ild_of: the diversity of n rows from S, the sum of their m non-zero unit vectors.
CREATE OR REPLACE TEMP MACRO rf__ild_of(s, m, n) AS
    CASE WHEN n >= 2 THEN
        1 - (coalesce(list_sum(list_transform(s, lambda x: x * x)), 0) - m)::DOUBLE / (n * (n - 1))
    END;
-- rf__unchecked_ild_features: the body, without the rank guard (for tables checked already,
-- as by rankframe.evaluate); rf_ild_features is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_ild_features(features, rank, k := NULL) AS
    CASE WHEN rf__ok_k('rf_ild_features', k)
              AND count(DISTINCT len(features)) FILTER (WHERE rf__in_top(rank, k)) <= 1 THEN
        rf__ild_of(rf__vector_sum(list(rf__unit_vector(features))
                                  FILTER (WHERE rf__in_top(rank, k) AND features IS NOT NULL)),
                   count(*) FILTER (WHERE rf__in_top(rank, k)
                                    AND list_sum(list_transform(features, lambda x: x * x)) > 0),
                   count(rank) FILTER (WHERE rf__in_top(rank, k)))
    END;
CREATE OR REPLACE TEMP MACRO rf_ild_features(features, rank, k := NULL) AS
    CASE WHEN rf__ranks_ok('rf_ild_features', rank) THEN rf__unchecked_ild_features(features, rank, k) END;

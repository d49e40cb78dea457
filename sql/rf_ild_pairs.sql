-- rf_ild_pairs(pair_similarity, rank) -> DOUBLE
--   Contract: docs/semantics.md#ild_pairs.
--   Intra-list diversity from any item similarity: 1 - sum_i s_i / (n (n - 1)), s_i the sum of
--   item i's similarities to the other items of its list (NULL counts 0), over the n rows with
--   a rank; NULL for fewer than two. No cutoff: s_i is over the whole list.
--   Example (two items of similarity 0.5):
--     SELECT rf_ild_pairs(pair_similarity, rank)
--     FROM (VALUES (1, 0.5), (2, 0.5)) t(rank, pair_similarity);
--     => 0.5

-- rf__unchecked_ild_pairs: the body, without the rank guard (for tables checked already, as
-- by rankframe.evaluate); rf_ild_pairs is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_ild_pairs(pair_similarity, rank) AS
    CASE WHEN count(rank) >= 2 THEN
        1 - sum(coalesce(pair_similarity, 0)::DOUBLE) FILTER (WHERE rank IS NOT NULL)
            / (count(rank) * (count(rank) - 1))
    END;
CREATE OR REPLACE TEMP MACRO rf_ild_pairs(pair_similarity, rank) AS
    CASE WHEN rf__ranks_ok('rf_ild_pairs', rank) THEN rf__unchecked_ild_pairs(pair_similarity, rank) END;

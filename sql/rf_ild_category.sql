-- rf_ild_category(category, rank, k := NULL) -> DOUBLE
--   Contract: docs/semantics.md#ild_category.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--   Intra-list diversity over an item category: 1 - sum_c n_c (n_c - 1) / (n (n - 1)), n_c the
--   rows of category c with rank <= k (NULL: no category) and n all of them; NULL for fewer
--   than two. From the sorted categories, one pass: no pairs are formed.
--   Example (categories x, x, y: one pair of three alike):
--     SELECT round(rf_ild_category(category, rank), 4), rf_ild_category(category, rank, 2)
--     FROM (VALUES (1, 'x'), (2, 'x'), (3, 'y')) t(rank, category);
--     => 0.6667, 0.0

-- rf__pairs_alike: the pairs (i < j) of equal values of a sorted list: one pass, each value
-- adding the run of equal values before it (a fold over (value, run, sum) structs; a
-- histogram per group costs more).
CREATE OR REPLACE TEMP MACRO rf__pairs_alike(sorted) AS
    CASE WHEN len(sorted) > 0 THEN
        list_reduce(list_transform(sorted, lambda x: {'p': x, 'r': 0::BIGINT, 's': 0::BIGINT}),
                    lambda acc, e: {'p': e.p,
                                    'r': CASE WHEN acc.p = e.p THEN acc.r + 1 ELSE 0 END,
                                    's': acc.s + CASE WHEN acc.p = e.p THEN acc.r + 1 ELSE 0 END}).s
    END;
-- rf__unchecked_ild_category: the body, without the rank guard (for tables checked already,
-- as by rankframe.evaluate); rf_ild_category is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_ild_category(category, rank, k := NULL) AS
    CASE WHEN rf__ok_k('rf_ild_category', k) AND count(rank) FILTER (WHERE rf__in_top(rank, k)) >= 2 THEN
        1 - 2 * coalesce(rf__pairs_alike(list(category ORDER BY category)
                                             FILTER (WHERE rf__in_top(rank, k) AND category IS NOT NULL)),
                         0)::DOUBLE
            / (count(rank) FILTER (WHERE rf__in_top(rank, k))
               * (count(rank) FILTER (WHERE rf__in_top(rank, k)) - 1))
    END;
CREATE OR REPLACE TEMP MACRO rf_ild_category(category, rank, k := NULL) AS
    CASE WHEN rf__ranks_ok('rf_ild_category', rank) THEN rf__unchecked_ild_category(category, rank, k) END;

-- rf_gini(item, rank, k := NULL, over := 'catalog', catalog := NULL) -> DOUBLE
--   Contract: docs/semantics.md#gini.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     over: 'catalog': over every item of the catalogue, those never recommended counting 0
--       (RecBole); 'recommended': over the items recommended at least once.
--     catalog: The number of items in the catalogue (an integer >= 1). NULL: rankframe.evaluate
--       counts it from its rankframe.Catalog (the items table, else the items of the training
--       interactions); a builder or macro needs it given.
--   The Gini index of the items' recommendation counts (rows with rank <= k, NULL items left
--   out): sum_j (2j - N - 1) c_(j) / (N sum c), the N counts sorted ascending, the catalogue's
--   items never recommended counting 0 (over := 'catalog'). NULL for no row, or a catalogue
--   smaller than the distinct items recommended. A run metric (see rf_coverage).
--   Example (a three times, b once, in a catalogue of 4):
--     SELECT rf_gini(item, rank, catalog := 4), round(rf_gini(item, rank, over := 'recommended'), 4)
--     FROM (VALUES (1, 'a', 1), (1, 'b', 2), (2, 'a', 1), (3, 'a', 1)) t(user_id, item, rank);
--     => 0.625, 0.25

-- rf__gini_of: the Gini index of m counts sorted ascending, over n items: sum_j (2j - n - 1)
-- c_(j), j = n - m + 1 ... n, is 2 sum_i i c_i + (n - 2m - 1) sum c (no reference to the list
-- inside its lambda: linear in the counts).
CREATE OR REPLACE TEMP MACRO rf__gini_of(counts, n) AS
    CASE WHEN list_sum(counts) > 0 AND len(counts) <= n THEN
        (2 * list_sum(list_transform(counts, lambda c, i: i * c::DOUBLE))
         + (n - 2 * len(counts) - 1) * list_sum(counts)::DOUBLE) / (n * list_sum(counts))
    END;
-- rf__unchecked_gini: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_gini is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_gini(item, rank, k := NULL, over := 'catalog', catalog := NULL) AS
    CASE WHEN rf__ok_k('rf_gini', k)
              AND rf__ok(rf__choice('rf_gini', 'over', over, ['catalog', 'recommended'])) THEN
        rf__gini_of(list_sort(map_values(histogram(rf__in_top_value(item, rank, k)))),
                    CASE WHEN over = 'catalog' THEN rf__size('rf_gini', 'catalog', catalog)
                         ELSE len(map_values(histogram(rf__in_top_value(item, rank, k)))) END)
    END;
CREATE OR REPLACE TEMP MACRO rf_gini(item, rank, k := NULL, over := 'catalog', catalog := NULL) AS
    CASE WHEN rf__whole_ranks('rf_gini', rank) THEN
        rf__unchecked_gini(item, rank, k, over := over, catalog := catalog) END;

-- rf_coverage(item, rank, k := NULL, catalog := NULL) -> DOUBLE
--   Contract: docs/semantics.md#coverage.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     catalog: The number of items in the catalogue (an integer >= 1). NULL: rankframe.evaluate
--       counts it from its rankframe.Catalog (the items table, else the items of the training
--       interactions); a builder or macro needs it given.
--   Catalogue coverage: the distinct items of the rows with rank <= k divided by the size
--   of the catalogue. A run metric: aggregate over every list of a system (GROUP BY the
--   system, or no GROUP BY); ranks repeat there, so only their type and range are checked.
--   NULL items are not items.
--   Example (two users' top 2 over a catalogue of 5 items: a, b and c are recommended):
--     SELECT rf_coverage(item, rank, catalog := 5)
--     FROM (VALUES (1, 'a', 1), (1, 'b', 2), (2, 'a', 1), (2, 'c', 2)) t(user_id, item, rank);
--     => 0.6

-- rf__unchecked_coverage: the body, without the rank guard (for tables checked already, as
-- by rankframe.evaluate); rf_coverage is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_coverage(item, rank, k := NULL, catalog := NULL) AS
    CASE WHEN rf__ok_k('rf_coverage', k) THEN
        count(DISTINCT rf__in_top_value(item, rank, k))::DOUBLE
            / rf__size('rf_coverage', 'catalog', catalog)
    END;
CREATE OR REPLACE TEMP MACRO rf_coverage(item, rank, k := NULL, catalog := NULL) AS
    CASE WHEN rf__whole_ranks('rf_coverage', rank) THEN
        rf__unchecked_coverage(item, rank, k, catalog := catalog) END;

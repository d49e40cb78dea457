-- rf_popularity(pop, rank, k := NULL) -> DOUBLE
--   Contract: docs/semantics.md#popularity.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--   Average recommendation popularity: the mean popularity of the items with rank <= k (NULL
--   counts 0); NULL for a list with none.
--   Example:
--     SELECT rf_popularity(pop, rank), rf_popularity(pop, rank, 1)
--     FROM (VALUES (1, 4), (2, NULL), (3, 2)) t(rank, pop);
--     => 2.0, 4.0

-- rf__unchecked_popularity: the body, without the rank guard (for tables checked already, as
-- by rankframe.evaluate); rf_popularity is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_popularity(pop, rank, k := NULL) AS
    CASE WHEN rf__ok_k('rf_popularity', k) THEN
        avg(coalesce(pop, 0)::DOUBLE) FILTER (WHERE rf__in_top(rank, k))
    END;
CREATE OR REPLACE TEMP MACRO rf_popularity(pop, rank, k := NULL) AS
    CASE WHEN rf__ranks_ok('rf_popularity', rank) THEN rf__unchecked_popularity(pop, rank, k) END;

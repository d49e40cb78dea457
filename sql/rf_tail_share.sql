-- rf_tail_share(tail, rank, k := NULL) -> DOUBLE
--   Contract: docs/semantics.md#tail_share.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--   The share of the rows with rank <= k whose item is in the long tail (tail true; NULL is
--   not); NULL for a list with none.
--   Example:
--     SELECT rf_tail_share(tail, rank, 2), rf_tail_share(tail, rank)
--     FROM (VALUES (1, true), (2, false), (3, NULL), (4, true)) t(rank, tail);
--     => 0.5, 0.5

-- rf__unchecked_tail_share: the body, without the rank guard (for tables checked already, as
-- by rankframe.evaluate); rf_tail_share is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_tail_share(tail, rank, k := NULL) AS
    CASE WHEN rf__ok_k('rf_tail_share', k) AND count(*) FILTER (WHERE rf__in_top(rank, k)) > 0 THEN
        (count(*) FILTER (WHERE rf__in_top(rank, k) AND coalesce(tail::BOOLEAN, false)))::DOUBLE
            / count(*) FILTER (WHERE rf__in_top(rank, k))
    END;
CREATE OR REPLACE TEMP MACRO rf_tail_share(tail, rank, k := NULL) AS
    CASE WHEN rf__ranks_ok('rf_tail_share', rank) THEN rf__unchecked_tail_share(tail, rank, k) END;

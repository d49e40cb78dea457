-- rf_judged(rel, rank, k := NULL) -> DOUBLE
--   Contract: docs/semantics.md#judged.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--   Judged rows (rel >= 0; NULL and negative grades are unjudged) with rank <= k, divided
--   by min(k, n), n = rows with a rank; k NULL divides by n. Nothing retrieved -> 0.
--   Example (docs/semantics.md#worked-examples: judged at ranks 1, 3, 4, 6; NULL and -1 are not):
--     SELECT rf_judged(rel, rank, 5), round(rf_judged(rel, rank, NULL), 4) FROM (VALUES (1, 2),
--         (2, NULL), (3, 0), (4, 1), (5, -1), (6, 3), (NULL, 1), (NULL, 0)) t(rank, rel);
--     => 0.6, 0.6667

-- rf__unchecked_judged: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_judged is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_judged(rel, rank, k := NULL) AS
    CASE WHEN rf__ok_k('rf_judged', k) THEN
        rf__ratio(count(*) FILTER (WHERE rf__in_top(rank, rf__k('rf_judged', k)) AND rf__judged(rel)),
                  least(count(rank), coalesce(k, 9223372036854775807)))::DOUBLE
    END;
CREATE OR REPLACE TEMP MACRO rf_judged(rel, rank, k := NULL) AS
    CASE WHEN rf__rows_ok('rf_judged', rel, rank) THEN rf__unchecked_judged(rel, rank, k) END;

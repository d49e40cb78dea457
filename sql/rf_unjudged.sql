-- rf_unjudged(rel, rank, k := NULL) -> DOUBLE
--   Contract: docs/semantics.md#unjudged.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--   Unjudged rows (rel NULL or negative) with rank <= k, divided by k: positions past the
--   end of a short list count as judged. k NULL divides by n, the rows with a rank
--   (nothing retrieved -> 0). trec_eval: unj_k.
--   Example (docs/semantics.md#trec_evals-set-and-gain-measures: unjudged at ranks 3 and 6):
--     SELECT rf_unjudged(rel, rank, 5), rf_unjudged(rel, rank, 10), round(rf_unjudged(rel, rank), 4)
--     FROM (VALUES (1, 1), (2, 0), (3, NULL), (4, 2), (5, 0), (6, -1),
--         (NULL, 2), (NULL, 1), (NULL, 0)) t(rank, rel);
--     => 0.2, 0.2, 0.3333

-- rf__unchecked_unjudged: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_unjudged is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_unjudged(rel, rank, k := NULL) AS
    CASE WHEN rf__ok_k('rf_unjudged', k) THEN
        rf__ratio(count(*) FILTER (WHERE rf__in_top(rank, k) AND NOT rf__judged(rel)),
                  coalesce(k, count(rank)))::DOUBLE
    END;
CREATE OR REPLACE TEMP MACRO rf_unjudged(rel, rank, k := NULL) AS
    CASE WHEN rf__rows_ok('rf_unjudged', rel, rank) THEN rf__unchecked_unjudged(rel, rank, k) END;

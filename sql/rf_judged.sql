-- rf_judged(rel, rank, k) -> DOUBLE
--   Judged rows (rel >= 0; NULL and negative grades are unjudged) with rank <= k, divided
--   by min(k, n), n = rows with a rank; k NULL divides by n. Nothing retrieved -> 0.
CREATE OR REPLACE TEMP MACRO rf_judged(rel, rank, k) AS
    CASE WHEN rf__ok_k('rf_judged', k) THEN
        rf__ratio(count(*) FILTER (WHERE rf__in_top(rank, rf__k('rf_judged', k)) AND rf__judged(rel)),
                  least(count(rank), coalesce(k, 9223372036854775807)))::DOUBLE
    END;

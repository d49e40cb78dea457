-- rf_r_precision(rel, rank, threshold := 1) -> DOUBLE
--   Relevant rows with rank <= R divided by R (R = relevant rows of the query).
--   R = 0 -> 0. trec_eval: Rprec.
CREATE OR REPLACE TEMP MACRO rf_r_precision(rel, rank, threshold := 1) AS
    rf__ratio(
        coalesce(len(list_filter(
            rf__relevant_ranks(rel, rank, NULL, rf__threshold('rf_r_precision', threshold)),
            lambda r: r <= rf__num_relevant(rel, threshold))), 0),
        rf__num_relevant(rel, threshold));

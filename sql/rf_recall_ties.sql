-- rf_recall_ties(rel, tie_first, tie_size, k, threshold := 1) -> DOUBLE
--   Expected recall at k over every ordering of tied rows (McSherry & Najork 2008):
--   expected relevant rows in the top k (see rf_precision_ties) divided by R, the
--   relevant rows of the query retrieved or not. R = 0 -> 0.
CREATE OR REPLACE TEMP MACRO rf_recall_ties(rel, tie_first, tie_size, k, threshold := 1) AS
    CASE WHEN rf__ok_k('rf_recall_ties', k) AND rf__ok(rf__threshold('rf_recall_ties', threshold)) THEN
        rf__ratio(rf__tie_hits(rel, tie_first, tie_size, rf__k('rf_recall_ties', k),
                               rf__threshold('rf_recall_ties', threshold)),
                  rf__num_relevant(rel, threshold))::DOUBLE
    END;

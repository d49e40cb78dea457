-- rf_hit_rate(rel, rank, k, threshold := 1) -> DOUBLE
--   1.0 if any relevant row has rank <= k, else 0.0. trec_eval: success_k.
CREATE OR REPLACE TEMP MACRO rf_hit_rate(rel, rank, k, threshold := 1) AS
    CASE WHEN rf__hits(rel, rank, rf__k('rf_hit_rate', k),
                       rf__threshold('rf_hit_rate', threshold)) > 0
         THEN 1::DOUBLE ELSE 0::DOUBLE END;

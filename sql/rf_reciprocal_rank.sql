-- rf_reciprocal_rank(rel, rank, k, threshold := 1) -> DOUBLE
--   1 / (rank of the first relevant row) if that rank is <= k, else 0.
--   trec_eval: recip_rank (k NULL).
CREATE OR REPLACE TEMP MACRO rf_reciprocal_rank(rel, rank, k, threshold := 1) AS
    coalesce(1 / (min(rank) FILTER (
        WHERE rf__relevant(rel, rf__threshold('rf_reciprocal_rank', threshold))
          AND rf__in_top(rank, rf__k('rf_reciprocal_rank', k))))::DOUBLE, 0::DOUBLE);

-- rf_num_rel(rel, rank, threshold := 1) -> BIGINT
--   Relevant rows R of the query (rel >= threshold), retrieved or not.
--   rank is not read (uniform signature). trec_eval: num_rel.
CREATE OR REPLACE TEMP MACRO rf_num_rel(rel, rank, threshold := 1) AS
    rf__num_relevant(rel, rf__threshold('rf_num_rel', threshold));

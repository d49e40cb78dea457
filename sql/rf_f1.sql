-- rf_f1(rel, rank, k, threshold := 1) -> DOUBLE
--   F1 at k: 2PR / (P + R) of rf_precision and rf_recall at k; 0 when P + R = 0.
--   trec_eval: set_F (k NULL, beta 1).
CREATE OR REPLACE TEMP MACRO rf_f1(rel, rank, k, threshold := 1) AS
    rf__ratio(
        2 * rf__precision(rel, rank, rf__k('rf_f1', k), rf__threshold('rf_f1', threshold), 'k')
          * rf__recall(rel, rank, k, threshold),
        rf__precision(rel, rank, k, threshold, 'k') + rf__recall(rel, rank, k, threshold));

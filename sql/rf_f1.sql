-- rf_f1(rel, rank, k, threshold := 1, beta := 1) -> DOUBLE
--   F-measure at k of rf_precision (P) and rf_recall (R):
--   (1 + beta^2) P R / (beta^2 P + R), 0 when the denominator is 0; beta = 1 is F1.
--   trec_eval: set_F (k NULL), set_F.beta.
CREATE OR REPLACE TEMP MACRO rf_f1(rel, rank, k, threshold := 1, beta := 1) AS
    rf__ratio(
        (1 + pow(rf__positive('rf_f1', 'beta', beta), 2))
          * rf__precision(rel, rank, rf__k('rf_f1', k), rf__threshold('rf_f1', threshold), 'k')
          * rf__recall(rel, rank, k, threshold),
        pow(beta, 2) * rf__precision(rel, rank, k, threshold, 'k')
          + rf__recall(rel, rank, k, threshold));

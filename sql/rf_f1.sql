-- rf_f1(rel, rank, k := NULL, threshold := 1, beta := 1, recall_weight := NULL) -> DOUBLE
--   Contract: docs/semantics.md#f1.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--     beta: Recall is weighted w = beta^2 times; 1 is F1.
--     recall_weight: w itself, overriding beta; trec_eval's set_F.x is recall_weight := x.
--       NULL: use beta.
--   F-measure at k of rf_precision (P) and rf_recall (R): (1 + w) P R / (w P + R), recall
--   weighted w = beta^2 times, or w = recall_weight exactly when that is given (it overrides
--   beta); 0 when the denominator is 0. beta = 1 is F1.
--   trec_eval: set_F (k NULL), set_F.x (recall_weight x).
--   Example (docs/semantics.md#worked-examples: relevant at ranks 1, 3, 5):
--     SELECT round(rf_f1(rel, rank, 5), 4), round(rf_f1(rel, rank, 5, beta := 2), 4),
--            round(rf_f1(rel, rank, NULL, recall_weight := 0.5), 4)
--     FROM (VALUES (1, 1), (2, 0), (3, 1), (4, 0), (5, 1)) t(rank, rel);
--     => 0.75, 0.8824, 0.6923

-- rf__unchecked_f1: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_f1 is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_f1(rel, rank, k := NULL, threshold := 1, beta := 1,
                                              recall_weight := NULL) AS
    rf__ratio(
        (1 + rf__f_weight(beta, recall_weight))
          * rf__precision(rel, rank, rf__k('rf_f1', k), rf__threshold('rf_f1', threshold), 'k')
          * rf__recall(rel, rank, k, threshold),
        rf__f_weight(beta, recall_weight) * rf__precision(rel, rank, k, threshold, 'k')
          + rf__recall(rel, rank, k, threshold));
CREATE OR REPLACE TEMP MACRO rf_f1(rel, rank, k := NULL, threshold := 1, beta := 1,
                                   recall_weight := NULL) AS
    CASE WHEN rf__rows_ok('rf_f1', rel, rank) THEN
        rf__unchecked_f1(rel, rank, k, threshold := threshold, beta := beta, recall_weight :=
            recall_weight) END;

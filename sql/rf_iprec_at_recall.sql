-- rf_iprec_at_recall(rel, rank, recall, threshold := 1, rounding := 'nearest') -> DOUBLE
--   Contract: docs/semantics.md#iprec_at_recall.
--   Parameters:
--     recall: The recall level x, in [0, 1].
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--     rounding: 'nearest': c = round(x * R) relevant rows, trec_eval 10; 'trec_eval9':
--       c = floor(x * R + 0.9), trec_eval 9.x and pytrec_eval.
--   Interpolated precision at a recall level in [0, 1] (trec_eval iprec_at_recall_x):
--   the highest precision j / r_j over relevant ranks j >= c, where c relevant rows make
--   up the recall level: c = floor(recall * R + 0.5) ('nearest', trec_eval 10) or
--   floor(recall * R + 0.9) ('trec_eval9', trec_eval 9.x and pytrec_eval).
--   0 when fewer than c relevant rows were retrieved. The product is taken in DOUBLE, as
--   trec_eval does (a DECIMAL literal such as 0.7 would make 0.7 * 3 + 0.9 exactly 3).
--   Example (docs/semantics.md#worked-examples: relevant at ranks 1, 5, 6, 10; 0.3 * R = 1.2):
--     SELECT rf_iprec_at_recall(rel, rank, 0.3),
--            rf_iprec_at_recall(rel, rank, 0.3, rounding := 'trec_eval9') FROM (VALUES (1, 1),
--         (2, 0), (3, 0), (4, 0), (5, 1), (6, 1), (7, 0), (8, 0), (9, 0), (10, 1)) t(rank, rel);
--     => 1.0, 0.5

-- rf__unchecked_iprec_at_recall: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_iprec_at_recall is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_iprec_at_recall(rel, rank, recall, threshold := 1,
                                                           rounding := 'nearest') AS
    coalesce(list_max(list_transform(
        rf__relevant_ranks(rel, rank, NULL, rf__threshold('rf_iprec_at_recall', threshold)),
        lambda r, j: CASE
            WHEN j >= greatest(floor(rf__num_relevant(rel, threshold)
                                     * rf__unit('rf_iprec_at_recall', 'recall', recall)::DOUBLE
                                     + CASE rf__choice('rf_iprec_at_recall', 'rounding', rounding,
                                                       ['nearest', 'trec_eval9'])
                                           WHEN 'nearest' THEN 0.5 ELSE 0.9 END), 1)
            THEN j / r END)), 0)::DOUBLE;
CREATE OR REPLACE TEMP MACRO rf_iprec_at_recall(rel, rank, recall, threshold := 1,
                                                rounding := 'nearest') AS
    CASE WHEN rf__rows_ok('rf_iprec_at_recall', rel, rank) THEN
        rf__unchecked_iprec_at_recall(rel, rank, recall, threshold := threshold, rounding := rounding)
            END;

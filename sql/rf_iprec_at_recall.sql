-- rf_iprec_at_recall(rel, rank, recall, threshold := 1) -> DOUBLE
--   Interpolated precision at a recall level in [0, 1] (trec_eval iprec_at_recall_x):
--   the highest precision j / r_j over relevant ranks j >= c, where
--   c = floor(recall * R + 0.5). 0 when fewer than c relevant rows were retrieved.
CREATE OR REPLACE TEMP MACRO rf_iprec_at_recall(rel, rank, recall, threshold := 1) AS
    coalesce(list_max(list_transform(
        rf__relevant_ranks(rel, rank, NULL, rf__threshold('rf_iprec_at_recall', threshold)),
        lambda r, j: CASE
            WHEN j >= greatest(floor(rf__num_relevant(rel, threshold)
                                     * rf__unit('rf_iprec_at_recall', 'recall', recall) + 0.5), 1)
            THEN j / r END)), 0)::DOUBLE;

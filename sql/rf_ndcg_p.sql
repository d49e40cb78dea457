-- rf_ndcg_p(rel, rank, threshold := 1, gains := NULL) -> DOUBLE
--   Contract: docs/semantics.md#ndcg_p.
--   Parameters:
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--     gains: A gain per grade, MAP {grade: gain} (trec_eval's ndcg.1=3,2=9): a listed grade (an
--       integer >= 0, grade 0 too) gains the number given, which may be 0 or negative; the
--       other grades keep the gain the gain parameter gives them (linear where the metric has
--       none). NULL: none listed.
--   nDCG with Jarvelin & Kekalainen's first discount (trec_eval ndcg_p): rank 1 is not
--   discounted, rank i > 1 is divided by log2(i); the ideal ranking sorts every row's
--   positive gain. Linear gains, or the gain a MAP `gains` gives a grade (ndcg_p.1=3,2=9).
--   0 when no relevant row (rel >= threshold) is retrieved, or the ideal DCG is 0.
--   Example (docs/semantics.md#worked-examples: grades 0, 2, 1, then an unretrieved 1):
--     SELECT round(rf_ndcg_p(rel, rank), 4)
--     FROM (VALUES (1, 0), (2, 2), (3, 1), (NULL, 1)) t(rank, rel);
--     => 0.7246

-- rf__unchecked_ndcg_p: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_ndcg_p is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_ndcg_p(rel, rank, threshold := 1, gains := NULL) AS
    CASE WHEN rf__hits(rel, rank, NULL, rf__threshold('rf_ndcg_p', threshold)) > 0
          AND coalesce(list_sum(list_transform(rf__ideal_gains(rel, rank, rf__gains('rf_ndcg_p', gains)),
                  lambda g, i: g / CASE WHEN i = 1 THEN 1 ELSE log2(i) END)), 0) > 0
         THEN coalesce(list_sum(list_transform(
                  rf__gained(rel, rank, NULL, 'linear', rf__gains('rf_ndcg_p', gains)),
                  lambda rf_e: rf_e['g'] / CASE WHEN rf_e['r'] = 1 THEN 1
                                                ELSE log2(rf_e['r']::DOUBLE) END)), 0)::DOUBLE
              / list_sum(list_transform(rf__ideal_gains(rel, rank, rf__gains('rf_ndcg_p', gains)),
                  lambda g, i: g / CASE WHEN i = 1 THEN 1 ELSE log2(i) END))
         ELSE 0::DOUBLE
    END;
CREATE OR REPLACE TEMP MACRO rf_ndcg_p(rel, rank, threshold := 1, gains := NULL) AS
    CASE WHEN rf__rows_ok('rf_ndcg_p', rel, rank) THEN
        rf__unchecked_ndcg_p(rel, rank, threshold := threshold, gains := gains) END;

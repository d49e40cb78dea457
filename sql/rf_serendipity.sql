-- rf_serendipity(similarity, rank, rel, k := NULL, threshold := 1, relevance := 'binary') -> DOUBLE
--   Contract: docs/semantics.md#serendipity.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--     relevance: 'binary': only relevant items (rel >= threshold) count as serendipitous;
--       'ignore': every item counts (unexpectedness alone; Microsoft Recommenders without a
--       relevance column).
--   The mean over the rows with rank <= k and a similarity of rel_i (1 - sim_i), sim_i the
--   item's mean similarity to the user's training items, rel_i 1 for a relevant row (rel >=
--   threshold) and 0 otherwise (1 for every row with relevance := 'ignore'); NULL for none.
--   Example (similarities 0.25 and 0.5; only the first is relevant):
--     SELECT rf_serendipity(similarity, rank, rel), rf_serendipity(similarity, rank, rel, relevance := 'ignore')
--     FROM (VALUES (1, 0.25, 1), (2, 0.5, 0)) t(rank, similarity, rel);
--     => 0.375, 0.625

-- rf__unchecked_serendipity: the body, without the rank guard (for tables checked already, as
-- by rankframe.evaluate); rf_serendipity is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_serendipity(similarity, rank, rel, k := NULL, threshold := 1, relevance := 'binary') AS
    CASE WHEN rf__ok_k('rf_serendipity', k)
              AND rf__ok(rf__threshold('rf_serendipity', threshold))
              AND rf__ok(rf__choice('rf_serendipity', 'relevance', relevance, ['binary', 'ignore'])) THEN
        avg(CASE WHEN relevance = 'ignore' OR rf__relevant(rel, threshold)
                 THEN 1 - similarity::DOUBLE ELSE 0::DOUBLE END)
            FILTER (WHERE rf__in_top(rank, k) AND similarity IS NOT NULL)
    END;
CREATE OR REPLACE TEMP MACRO rf_serendipity(similarity, rank, rel, k := NULL, threshold := 1, relevance := 'binary') AS
    CASE WHEN rf__ranks_ok('rf_serendipity', rank) THEN
        rf__unchecked_serendipity(similarity, rank, rel, k, threshold := threshold, relevance := relevance) END;

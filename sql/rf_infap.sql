-- rf_infap(rel, rank, threshold := 1) -> DOUBLE
--   Contract: docs/semantics.md#infap.
--   Parameters:
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--   Inferred AP (Yilmaz & Aslam 2006; trec_eval infAP): for the relevant retrieved row at
--   rank r > 1 with a relevant, b judged non-relevant and u pooled-but-unjudged (rel < 0)
--   rows above it, j = r - 1, e = 0.00001:
--     1/r + (j/r) * ((a + b + u)/j) * ((a + e)/(a + b + 2e));   1 at rank 1.
--   infAP = sum of the terms / R; R = 0 -> 0. Rows with rel NULL (not in the pool) only
--   hold positions.
--   Implementation: the retrieved rows with a grade in rank order (position p1) and those
--   with rel >= 0 (position p2); the j-th relevant one has a = j - 1, a + b = p2 - 1 and
--   a + b + u = p1 - 1.
--   Rank 2 is outside the pool, rank 4 pooled but unjudged, R = 3.
--   Example (docs/semantics.md#worked-examples):
--     SELECT round(rf_infap(rel, rank), 4) FROM (VALUES (1, 1), (2, NULL), (3, 0), (4, -1),
--         (5, 1), (NULL, 1)) t(rank, rel);
--     => 0.5

-- rf__unchecked_infap: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_infap is the guarded macro. The positions p1 and p2 of every
-- relevant row are listed once (v.pooled, v.judged), then read by index: n log n per query.
CREATE OR REPLACE TEMP MACRO rf__infap_positions(relevant) AS
    list_filter(list_transform(relevant, lambda y, p: CASE WHEN y THEN p END),
                lambda p: p IS NOT NULL);

CREATE OR REPLACE TEMP MACRO rf__unchecked_infap(rel, rank, threshold := 1) AS
    rf__ratio(
        list_transform([{
            'ranks': rf__relevant_ranks(rel, rank, NULL, rf__threshold('rf_infap', threshold)),
            'pooled': rf__infap_positions(list(rf__relevant(rel, threshold) ORDER BY rank)
                                          FILTER (WHERE rel IS NOT NULL AND rank IS NOT NULL)),
            'judged': rf__infap_positions(list(rf__relevant(rel, threshold) ORDER BY rank)
                                          FILTER (WHERE rel >= 0 AND rank IS NOT NULL))}],
            lambda v: coalesce(list_sum(list_transform(v['ranks'],
                lambda r, j: CASE WHEN r = 1 THEN 1::DOUBLE ELSE
                    1 / r::DOUBLE
                    + ((r - 1)::DOUBLE / r::DOUBLE)
                      * ((v['pooled'][j] - 1)::DOUBLE / (r - 1)::DOUBLE)
                      * (((j - 1)::DOUBLE + 0.00001::DOUBLE)
                         / ((v['judged'][j] - 1)::DOUBLE + 2 * 0.00001::DOUBLE))
                    END)), 0))[1],
        rf__num_relevant(rel, threshold));
CREATE OR REPLACE TEMP MACRO rf_infap(rel, rank, threshold := 1) AS
    CASE WHEN rf__rows_ok('rf_infap', rel, rank) THEN
        rf__unchecked_infap(rel, rank, threshold := threshold) END;

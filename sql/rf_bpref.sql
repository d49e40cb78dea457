-- rf_bpref(rel, rank, threshold := 1) -> DOUBLE
--   Contract: docs/semantics.md#bpref.
--   Parameters:
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--   Binary preference (Buckley & Voorhees 2004; trec_eval bpref):
--     (1/R) * sum over retrieved relevant r of (1 - min(nr, R) / min(N, R)),
--   nr = judged non-relevant rows (0 <= rel < threshold) ranked above r, N = judged
--   non-relevant rows of the query. A term is 1 when nr = 0. Unjudged (NULL) and
--   negative grades are skipped. R = 0 -> 0.
--   Implementation: the relevance flags of the judged retrieved rows in rank order; the
--   j-th relevant one at position p has p - j judged non-relevant rows above it.
--   Example (docs/semantics.md#worked-examples: ranks 2 (NULL) and 5 (-1) are skipped):
--     SELECT rf_bpref(rel, rank) FROM (VALUES (1, 2), (2, NULL), (3, 0), (4, 1), (5, -1), (6, 3),
--         (NULL, 1), (NULL, 0)) t(rank, rel);
--     => 0.5

-- rf__unchecked_bpref: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_bpref is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_bpref(rel, rank, threshold := 1) AS
    rf__ratio(
        coalesce(list_sum(list_transform(
            list_filter(
                list_transform(
                    list(rf__relevant(rel, rf__threshold('rf_bpref', threshold)) ORDER BY rank)
                        FILTER (WHERE rel >= 0 AND rank IS NOT NULL),
                    lambda is_rel, p: CASE WHEN is_rel THEN p END),
                lambda p: p IS NOT NULL),
            lambda p, j: CASE WHEN p = j THEN 1::DOUBLE
                              ELSE 1 - least(p - j, rf__num_relevant(rel, threshold))
                                     / least(count(*) FILTER (WHERE rel >= 0 AND rel < threshold),
                                             rf__num_relevant(rel, threshold))
                         END)), 0),
        rf__num_relevant(rel, threshold));
CREATE OR REPLACE TEMP MACRO rf_bpref(rel, rank, threshold := 1) AS
    CASE WHEN rf__rows_ok('rf_bpref', rel, rank) THEN
        rf__unchecked_bpref(rel, rank, threshold := threshold) END;

-- rf_bin_g(rel, rank, threshold := 1) -> DOUBLE
--   Contract: docs/semantics.md#bin_g.
--   Parameters:
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--   Binary G: (1/R) * sum over relevant retrieved rows of 1 / log2(2 + m), m = retrieved
--   non-relevant rows (unjudged included) ranked above; terms added in rank order. R = 0 -> 0.
--   Implementation: the relevance flags of the retrieved rows in rank order; the j-th
--   relevant one at position p has p - j non-relevant rows above it.
--   trec_eval: binG.
--   Example (docs/semantics.md#trec_evals-set-and-gain-measures: (1 + 1/2) / 4):
--     SELECT rf_bin_g(rel, rank) FROM (VALUES (1, 1), (2, 0), (3, NULL), (4, 2), (5, 0), (6, -1),
--         (NULL, 2), (NULL, 1), (NULL, 0)) t(rank, rel);
--     => 0.375

-- rf__unchecked_bin_g: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_bin_g is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_bin_g(rel, rank, threshold := 1) AS
    rf__ratio(
        coalesce(list_reduce(list_prepend(0::DOUBLE, list_transform(
            list_filter(
                list_transform(
                    list(rf__relevant(rel, rf__threshold('rf_bin_g', threshold)) ORDER BY rank)
                        FILTER (WHERE rank IS NOT NULL),
                    lambda is_rel, p: CASE WHEN is_rel THEN p END),
                lambda p: p IS NOT NULL),
            lambda p, j: 1 / log2((2 + p - j)::DOUBLE))), lambda x, y: x + y), 0),
        rf__num_relevant(rel, threshold));
CREATE OR REPLACE TEMP MACRO rf_bin_g(rel, rank, threshold := 1) AS
    CASE WHEN rf__rows_ok('rf_bin_g', rel, rank) THEN
        rf__unchecked_bin_g(rel, rank, threshold := threshold) END;

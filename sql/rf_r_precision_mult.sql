-- rf_r_precision_mult(rel, rank, multiple, threshold := 1) -> DOUBLE
--   Contract: docs/semantics.md#r_precision_mult.
--   Parameters:
--     multiple: The multiple x of R, a finite number > 0 (trec_eval's defaults: 0.2, 0.4, ...,
--       2.0).
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--   Precision at a multiple x of R (trec_eval Rprec_mult_x): relevant rows with rank <= c
--   divided by c, c = floor(x * R + 0.9) computed in DOUBLE (as trec_eval does; a DECIMAL
--   0.9 would round differently); 0 when c = 0. Ranks beyond those retrieved count as
--   non-relevant. x must be a finite number > 0.
--   R = 4 below: x = 0.6 gives c = 3 (2 relevant in the top 3), x = 2 gives c = 8 (3
--   relevant retrieved).
--   Example (docs/semantics.md#r_precision_mult):
--     SELECT rf_r_precision_mult(rel, rank, 0.6), rf_r_precision_mult(rel, rank, 2)
--     FROM (VALUES (1, 1), (2, 0), (3, 1), (4, 0), (5, 1), (NULL, 1)) t(rank, rel);
--     => 0.6666666666666666, 0.375

-- The cutoff c of R relevant rows at the multiple x, checked (a DOUBLE, as in trec_eval).
CREATE OR REPLACE TEMP MACRO rf__r_multiple_cut(num_relevant, multiple) AS
    floor(num_relevant::DOUBLE
          * rf__positive('rf_r_precision_mult', 'multiple', multiple) + 0.9::DOUBLE);

-- rf__unchecked_r_precision_mult: the body, without the rank guard (for tables checked
-- already, as by rankframe.evaluate); rf_r_precision_mult is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_r_precision_mult(rel, rank, multiple, threshold := 1) AS
    rf__ratio(
        coalesce(len(list_filter(
            rf__relevant_ranks(rel, rank, NULL, rf__threshold('rf_r_precision_mult', threshold)),
            lambda r: r <= rf__r_multiple_cut(rf__num_relevant(rel, threshold), multiple))), 0),
        rf__r_multiple_cut(rf__num_relevant(rel, threshold), multiple));
CREATE OR REPLACE TEMP MACRO rf_r_precision_mult(rel, rank, multiple, threshold := 1) AS
    CASE WHEN rf__rows_ok('rf_r_precision_mult', rel, rank) THEN
        rf__unchecked_r_precision_mult(rel, rank, multiple, threshold := threshold) END;

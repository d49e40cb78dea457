-- rf_utility(rel, rank, threshold := 1, a := 1, b := -1, c := 0, d := 0, num_docs := 0,
--            empty := 'counts') -> DOUBLE
--   Contract: docs/semantics.md#utility.
--   Parameters:
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--     a: The weight of relevant retrieved documents (any finite number).
--     b: The weight of non-relevant retrieved documents (any finite number).
--     c: The weight of relevant not retrieved documents (any finite number).
--     d: The weight of non-relevant not retrieved documents (any finite number).
--     num_docs: Documents in the collection (trec_eval -N), for the last cell.
--     empty: A query with nothing retrieved: 'counts' applies the formula with n = 0;
--       'placeholder' scores it as if one unjudged document were retrieved (n = 1), as
--       trec_eval 10 does under -c for utility with parameters.
--   Set utility: a*hits + b*(n - hits) + c*(R - hits) + d*(num_docs + hits - n - R), added
--   left to right (hits = relevant rows with a rank, n = rows with a rank, R = relevant
--   rows); unjudged rows count as non-relevant. Nothing retrieved: the formula with n = 0;
--   empty := 'placeholder' takes n = 1 then (trec_eval 10's -c placeholder document).
--   trec_eval: utility (-m utility.a,b,c,d; num_docs is -N).
--   Example (docs/semantics.md#trec_evals-set-and-gain-measures: hits 2, n 6, R 4):
--     SELECT rf_utility(rel, rank), rf_utility(rel, rank, a := 2, c := -0.5) FROM (VALUES (1, 1), (2, 0), (3, NULL), (4, 2), (5, 0), (6, -1),
--         (NULL, 2), (NULL, 1), (NULL, 0)) t(rank, rel);
--     => -2.0, -1.0

-- A utility weight: any finite number, as DOUBLE.
CREATE OR REPLACE TEMP MACRO rf__utility_weight(name, x) AS
    CASE WHEN isfinite(x::DOUBLE) THEN x::DOUBLE
         ELSE error('rf_utility: ' || name || ' must be a finite number, got '
                    || coalesce(x::VARCHAR, 'NULL'))
    END;
CREATE OR REPLACE TEMP MACRO rf__utility_docs(x) AS
    CASE WHEN x >= 0 AND x = floor(x) THEN x::BIGINT
         ELSE error('rf_utility: num_docs must be an integer >= 0, got ' || coalesce(x::VARCHAR, 'NULL'))
    END;

-- rf__unchecked_utility: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_utility is the guarded macro. n is count(rank), or at least 1 with
-- empty := 'placeholder'.
CREATE OR REPLACE TEMP MACRO rf__utility_cells(a, b, c, d, num_docs, hits, n, big_r) AS
    a * hits::DOUBLE + b * (n - hits)::DOUBLE + c * (big_r - hits)::DOUBLE
    + d * (num_docs + hits - n - big_r)::DOUBLE;
CREATE OR REPLACE TEMP MACRO rf__unchecked_utility(rel, rank, threshold := 1, a := 1, b := -1, c := 0,
                                                   d := 0, num_docs := 0, empty := 'counts') AS
    rf__utility_cells(rf__utility_weight('a', a), rf__utility_weight('b', b),
                      rf__utility_weight('c', c), rf__utility_weight('d', d),
                      rf__utility_docs(num_docs),
                      rf__hits(rel, rank, NULL, rf__threshold('rf_utility', threshold)),
                      CASE WHEN rf__choice('rf_utility', 'empty', empty, ['counts', 'placeholder'])
                                = 'placeholder' THEN greatest(count(rank), 1)
                           ELSE count(rank) END,
                      rf__num_relevant(rel, threshold));
CREATE OR REPLACE TEMP MACRO rf_utility(rel, rank, threshold := 1, a := 1, b := -1, c := 0, d := 0,
                                        num_docs := 0, empty := 'counts') AS
    CASE WHEN rf__rows_ok('rf_utility', rel, rank) THEN
        rf__unchecked_utility(rel, rank, threshold := threshold, a := a, b := b, c := c, d := d,
                              num_docs := num_docs, empty := empty) END;

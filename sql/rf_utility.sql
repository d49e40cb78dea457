-- rf_utility(rel, rank, threshold := 1, a := 1, b := -1, c := 0, d := 0, num_docs := 0) -> DOUBLE
--   Contract: docs/semantics.md#utility.
--   Set utility: a*hits + b*(n - hits) + c*(R - hits) + d*(num_docs + hits - n - R), added
--   left to right (hits = relevant rows with a rank, n = rows with a rank, R = relevant
--   rows); unjudged rows count as non-relevant. Nothing retrieved -> 0.
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
-- rankframe.evaluate); rf_utility is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_utility(rel, rank, threshold := 1, a := 1, b := -1, c := 0,
                                                   d := 0, num_docs := 0) AS
    CASE WHEN rf__ok(rf__threshold('rf_utility', threshold)) AND rf__ok(rf__utility_weight('a', a))
              AND rf__ok(rf__utility_weight('b', b)) AND rf__ok(rf__utility_weight('c', c))
              AND rf__ok(rf__utility_weight('d', d)) AND rf__ok(rf__utility_docs(num_docs)) THEN
        CASE WHEN count(rank) > 0 THEN
            a::DOUBLE * rf__hits(rel, rank, NULL, threshold)::DOUBLE
            + b::DOUBLE * (count(rank) - rf__hits(rel, rank, NULL, threshold))::DOUBLE
            + c::DOUBLE * (rf__num_relevant(rel, threshold) - rf__hits(rel, rank, NULL, threshold))::DOUBLE
            + d::DOUBLE * (num_docs::BIGINT + rf__hits(rel, rank, NULL, threshold) - count(rank)
                           - rf__num_relevant(rel, threshold))::DOUBLE
        ELSE 0::DOUBLE END
    END;
CREATE OR REPLACE TEMP MACRO rf_utility(rel, rank, threshold := 1, a := 1, b := -1, c := 0, d := 0,
                                        num_docs := 0) AS
    CASE WHEN rf__ranks_ok('rf_utility', rank) THEN
        rf__unchecked_utility(rel, rank, threshold := threshold, a := a, b := b, c := c, d := d,
                              num_docs := num_docs) END;

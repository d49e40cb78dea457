-- rf_dcg(rel, rank, k := NULL, gain := 'linear') -> DOUBLE
--   Contract: docs/semantics.md#dcg.
--   Discounted cumulative gain: sum over rank i <= k of g(rel_i) / log2(i + 1).
--   gain 'linear' (trec_eval ndcg) or 'exponential' (2^rel - 1).
--   Example (docs/semantics.md#worked-examples: grades 3, 2, 3, 0, 1):
--     SELECT round(rf_dcg(rel, rank, 2), 4), round(rf_dcg(rel, rank, 5), 4),
--            round(rf_dcg(rel, rank, 5, gain := 'exponential'), 4)
--     FROM (VALUES (1, 3), (2, 2), (3, 3), (4, 0), (5, 1)) t(rank, rel);
--     => 4.2619, 6.1487, 12.7796

-- rf__unchecked_dcg: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_dcg is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_dcg(rel, rank, k := NULL, gain := 'linear') AS
    rf__dcg(rel, rank, rf__k('rf_dcg', k),
            rf__choice('rf_dcg', 'gain', gain, ['linear', 'exponential']));
CREATE OR REPLACE TEMP MACRO rf_dcg(rel, rank, k := NULL, gain := 'linear') AS
    CASE WHEN rf__ranks_ok('rf_dcg', rank) THEN rf__unchecked_dcg(rel, rank, k, gain := gain) END;

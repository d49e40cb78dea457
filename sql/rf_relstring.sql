-- rf_relstring(rel, rank, length := 10) -> VARCHAR
--   Contract: docs/semantics.md#relstring.
--   Parameters:
--     length: How many positions to show (trec_eval's relstring.20); NULL: every position up to
--       the last rank.
--   The grades of ranks 1 .. min(length, last rank) as a string (trec_eval relstring):
--   the digit of a grade 0-9, '>' above 9, '-' outside the pool (rel NULL, or a rank gap),
--   '.' for a negative grade (pooled, unjudged), '<' for a grade that is not whole.
--   length NULL: every position up to the last rank. Nothing retrieved -> ''.
--   Example (docs/semantics.md#worked-examples: rank 3 is a gap):
--     SELECT rf_relstring(rel, rank)
--     FROM (VALUES (1, 2), (2, NULL), (4, -1), (5, 12), (NULL, 1)) t(rank, rel);
--     => 2--.>

-- rf__unchecked_relstring: the body, without the rank guard (for tables checked already, as
-- by rankframe.evaluate); rf_relstring is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_relstring(rel, rank, length := 10) AS
    array_to_string(list_transform(
        range(1, (least(coalesce(rf__cutoff_value(rf__cutoff('rf_relstring', 'length', length)),
                                 rf__rank_value(max(rank))),
                        coalesce(rf__rank_value(max(rank)), 0::UHUGEINT)) + 1)::BIGINT),
        lambda p: coalesce(map_extract_value(map_from_entries(
            list({'key': rf__rank_value(rank), 'value': CASE WHEN rel IS NULL THEN '-'
                                             WHEN rel < 0 THEN '.'
                                             WHEN rel != floor(rel) THEN '<'
                                             WHEN rel > 9 THEN '>'
                                             ELSE chr(48 + rel::INTEGER) END})
                FILTER (WHERE rank IS NOT NULL)), p::UHUGEINT), '-')), '');
CREATE OR REPLACE TEMP MACRO rf_relstring(rel, rank, length := 10) AS
    CASE WHEN rf__rows_ok('rf_relstring', rel, rank) THEN
        rf__unchecked_relstring(rel, rank, length := length) END;

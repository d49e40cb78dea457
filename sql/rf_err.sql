-- rf_err(rel, rank, k := NULL, max_grade := 4) -> DOUBLE
--   Contract: docs/semantics.md#err.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     max_grade: The highest grade: the stopping probability is (2^g - 1) / 2^max_grade; 4 as
--       in the TREC Web track.
--   Expected reciprocal rank (Chapelle et al. 2009) over retrieved rows with rank <= k:
--     sum over i of (1 / i) * R_i * prod over j < i of (1 - R_j),  R = (2^g - 1) / 2^max_grade,
--   g = rel clipped to [0, max_grade]; NULL and negative grades give R = 0. max_grade 4 is
--   the TREC Web track convention. Positions are rank values (a gap never stops the
--   reader). Nothing retrieved -> 0. The running product is carried by list_reduce in
--   rank order, so the cost is linear in the list length.
--   Example (docs/semantics.md#worked-examples: stopping at ranks 1, 4, 6 with 3/16, 1/16, 7/16):
--     SELECT round(rf_err(rel, rank, NULL), 4), round(rf_err(rel, rank, 3), 4) FROM (VALUES
--         (1, 2), (2, NULL), (3, 0), (4, 1), (5, -1), (6, 3), (NULL, 1), (NULL, 0)) t(rank, rel);
--     => 0.2557, 0.1875

-- rf__unchecked_err: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_err is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_err(rel, rank, k := NULL, max_grade := 4) AS
    CASE WHEN rf__ok_k('rf_err', k) AND rf__ok(rf__positive('rf_err', 'max_grade', max_grade)) THEN
        coalesce(list_reduce(
            list({'stop': (pow(2.0, least(greatest(coalesce(rel, 0), 0),
                                         rf__positive('rf_err', 'max_grade', max_grade))::DOUBLE) - 1)
                          / pow(2.0, max_grade::DOUBLE),
                  'at': try_cast(rank AS DOUBLE)} ORDER BY rank)
                FILTER (WHERE rf__in_top(rank, rf__k('rf_err', k))),
            lambda acc, row: {'sum': acc['sum'] + row['stop'] * acc['reach'] / row['at'],
                              'reach': acc['reach'] * (1 - row['stop'])},
            {'sum': 0::DOUBLE, 'reach': 1::DOUBLE}).sum, 0)::DOUBLE
    END;
CREATE OR REPLACE TEMP MACRO rf_err(rel, rank, k := NULL, max_grade := 4) AS
    CASE WHEN rf__rows_ok('rf_err', rel, rank) THEN
        rf__unchecked_err(rel, rank, k, max_grade := max_grade) END;

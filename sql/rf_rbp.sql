-- rf_rbp(rel, rank, p := 0.8, threshold := 1, graded := false, max_grade := NULL) -> DOUBLE
--   Contract: docs/semantics.md#rbp.
--   Rank-biased precision (Moffat & Zobel 2008):
--     (1 - p) * sum over retrieved rows i of g_i * p^(rank_i - 1).
--   Binary (graded false): g = 1 if rel >= threshold else 0.
--   Graded: g = rel / M clipped to [0, 1], M = max_grade or, when NULL, the highest grade
--   of the query (all rows); threshold unused. NULL and negative grades gain 0.
--   Nothing retrieved, or no positive grade, -> 0. trec_eval: rbp (binary judgements).
--   Example (docs/semantics.md#worked-examples: relevant at ranks 1, 4, 6):
--     SELECT round(rf_rbp(rel, rank), 4), round(rf_rbp(rel, rank, p := 0.5), 4),
--            round(rf_rbp(rel, rank, graded := true), 4) FROM (VALUES (1, 2), (2, NULL), (3, 0),
--         (4, 1), (5, -1), (6, 3), (NULL, 1), (NULL, 0)) t(rank, rel);
--     => 0.3679, 0.5781, 0.233

-- rf__unchecked_rbp: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_rbp is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_rbp(rel, rank, p := 0.8, threshold := 1, graded := false,
                                               max_grade := NULL) AS
    CASE WHEN rf__ok(rf__persistence('rf_rbp', p)) AND rf__ok(rf__threshold('rf_rbp', threshold))
              AND rf__ok(rf__flag('rf_rbp', 'graded', graded))
              AND (max_grade IS NULL OR rf__ok(rf__positive('rf_rbp', 'max_grade', max_grade))) THEN
        (1 - rf__persistence('rf_rbp', p)) * CASE
            WHEN NOT rf__flag('rf_rbp', 'graded', graded) THEN coalesce(sum(rf__geometric(p, rank))
                FILTER (WHERE rank IS NOT NULL AND rf__relevant(rel, rf__threshold('rf_rbp', threshold))),
                0)
            WHEN max_grade IS NULL THEN rf__ratio(coalesce(sum(greatest(rel, 0) * rf__geometric(p, rank))
                FILTER (WHERE rank IS NOT NULL AND rel > 0), 0), max(rel))
            ELSE coalesce(sum(least(rel / rf__optional_positive('rf_rbp', 'max_grade', max_grade), 1)
                              * rf__geometric(p, rank))
                FILTER (WHERE rank IS NOT NULL AND rel > 0), 0)
        END::DOUBLE
    END;
CREATE OR REPLACE TEMP MACRO rf_rbp(rel, rank, p := 0.8, threshold := 1, graded := false,
                                    max_grade := NULL) AS
    CASE WHEN rf__ranks_ok('rf_rbp', rank) THEN
        rf__unchecked_rbp(rel, rank, p := p, threshold := threshold, graded := graded,
                max_grade := max_grade) END;

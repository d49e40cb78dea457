-- rf_rbp(rel, rank, p := 0.8, threshold := 1, graded := false, max_grade := NULL,
--        clip := true) -> DOUBLE
--   Contract: docs/semantics.md#rbp.
--   Parameters:
--     p: Persistence, in (0, 1): the chance the reader goes on to the next rank.
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--     graded: false: binary gains, 1 for a relevant row; true: graded gains (threshold is not
--       read).
--     max_grade: Graded mode: the grade of gain 1; NULL: the query's highest grade, retrieved
--       or not.
--     clip: Graded mode: true: the gain rel / max_grade is clipped to 1; false: not clipped, so
--       max_grade=1, clip=false takes the grade itself as gain (ranx's graded RBP).
--   Rank-biased precision (Moffat & Zobel 2008):
--     (1 - p) * sum over retrieved rows i of g_i * p^(rank_i - 1).
--   Binary (graded false): g = 1 if rel >= threshold else 0.
--   Graded: g = rel / M clipped to [0, 1] (clip false: not clipped), M = max_grade or, when
--   NULL, the highest grade of the query (all rows); threshold unused. NULL and negative
--   grades gain 0. max_grade := 1, clip := false is ranx's graded RBP, g = rel.
--   Nothing retrieved, or no positive grade, -> 0. trec_eval: rbp (binary judgements).
--   Example (docs/semantics.md#worked-examples: relevant at ranks 1, 4, 6):
--     SELECT round(rf_rbp(rel, rank), 4), round(rf_rbp(rel, rank, p := 0.5), 4),
--            round(rf_rbp(rel, rank, graded := true), 4) FROM (VALUES (1, 2), (2, NULL), (3, 0),
--         (4, 1), (5, -1), (6, 3), (NULL, 1), (NULL, 0)) t(rank, rel);
--     => 0.3679, 0.5781, 0.233

-- rf__rbp_sum(rows, p): sum of g * p^(r - 1) over rows, a list of {s, c, r, g} (r the rank,
-- g the gain; s and c unused) sorted by rank, as trec_eval adds it: one at a time in rank
-- order, p^(r - 1) a running product multiplied by p once per position (a rank gap too, up
-- to rf__floor_steps times: the product then no longer changes), not pow. The fold's
-- state: s the sum, c the weight of position r. Ranks are DOUBLEs: exact up to 2^53, and a
-- deeper rank lies beyond the floor, where a gap (read as at least 0) changes nothing.
CREATE OR REPLACE TEMP MACRO rf__rbp_sum(rows, p) AS
    list_reduce(rows, lambda a, b: list_transform(
        [list_reduce(list_resize([a['c']],
                                 greatest(least(b['r'] - a['r'], rf__floor_steps(p)), 0)::BIGINT + 1,
                                 p::DOUBLE),
                     lambda x, y: x * y)],
        lambda w: {'s': a['s'] + b['g'] * w, 'c': w * p, 'r': b['r'] + 1, 'g': 0.0::DOUBLE})[1],
        {'s': 0.0::DOUBLE, 'c': 1.0::DOUBLE, 'r': 1::DOUBLE, 'g': 0.0::DOUBLE}).s;

-- The retrieved rows as rf__rbp_sum reads them, g the grade ``grade``.
CREATE OR REPLACE TEMP MACRO rf__rbp_rows(grade, rank) AS
    coalesce(list({'s': 0.0::DOUBLE, 'c': 0.0::DOUBLE, 'r': try_cast(rank AS DOUBLE),
                   'g': grade::DOUBLE} ORDER BY rank) FILTER (WHERE rank IS NOT NULL), []);

-- rf__unchecked_rbp: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_rbp is the guarded macro. Graded gains: rel / top clipped to 1
-- unless clip is false, top = max_grade or the query's highest grade.
CREATE OR REPLACE TEMP MACRO rf__unchecked_rbp(rel, rank, p := 0.8, threshold := 1, graded := false,
                                               max_grade := NULL, clip := true) AS
    CASE WHEN rf__ok(rf__persistence('rf_rbp', p)) AND rf__ok(rf__threshold('rf_rbp', threshold))
              AND rf__ok(rf__flag('rf_rbp', 'graded', graded))
              AND rf__ok(rf__flag('rf_rbp', 'clip', clip))
              AND (max_grade IS NULL OR rf__ok(rf__positive('rf_rbp', 'max_grade', max_grade))) THEN
        (1 - rf__persistence('rf_rbp', p)) * CASE
            WHEN NOT rf__flag('rf_rbp', 'graded', graded) THEN rf__rbp_sum(rf__rbp_rows(
                CASE WHEN rf__relevant(rel, rf__threshold('rf_rbp', threshold)) THEN 1.0 ELSE 0.0 END,
                rank), p)
            ELSE rf__rbp_sum(list_transform(rf__rbp_rows(rel, rank), lambda e: {
                's': e['s'], 'c': e['c'], 'r': e['r'],
                'g': CASE WHEN e['g'] > 0 AND coalesce(max_grade, max(rel)) > 0
                          THEN CASE WHEN rf__flag('rf_rbp', 'clip', clip)
                                    THEN least(e['g'] / coalesce(max_grade, max(rel))::DOUBLE, 1.0)
                                    ELSE e['g'] / coalesce(max_grade, max(rel))::DOUBLE END
                          ELSE 0.0 END::DOUBLE}), p)
        END::DOUBLE
    END;
CREATE OR REPLACE TEMP MACRO rf_rbp(rel, rank, p := 0.8, threshold := 1, graded := false,
                                    max_grade := NULL, clip := true) AS
    CASE WHEN rf__rows_ok('rf_rbp', rel, rank) THEN
        rf__unchecked_rbp(rel, rank, p := p, threshold := threshold, graded := graded,
                max_grade := max_grade, clip := clip) END;

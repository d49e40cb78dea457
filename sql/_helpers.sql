-- rankframe: shared building blocks of the rf_* metric macros.
--
-- Load this file before the rf_*.sql files (the macros below are bound when a metric
-- macro is created). Names with a double underscore (rf__*) are internal: their
-- signatures may change between releases. Conventions of the judged long table:
--   rank NULL = judged but not retrieved;  rel NULL = retrieved but unjudged;
--   rel < 0 = pooled but unjudged;  a row is relevant iff rel >= threshold.

-- The oldest DuckDB these macros are tested on (every header example and every macro on
-- generated tables, in the command-line tool) is 1.5.0; 1.4.4 already differs (relstring
-- is NULL where nothing is retrieved). An older one stops the load here, with one line
-- saying so: the check runs in a transaction, which its error aborts, so every later
-- statement of this file fails ("Current transaction is aborted") and no helper exists;
-- every rf_*.sql macro, bound to the helpers when it is created, then fails too. No macro
-- is defined, even in the command-line tool, which goes on after an error (without -bail).
BEGIN TRANSACTION;
SET VARIABLE rf__duckdb_version = CASE
    WHEN coalesce(try_cast(regexp_extract(version(), '^v?(\d+)\.(\d+)\.(\d+)', 1) AS INTEGER)
                  * 1000000
                  + try_cast(regexp_extract(version(), '^v?(\d+)\.(\d+)\.(\d+)', 2) AS INTEGER)
                  * 1000
                  + try_cast(regexp_extract(version(), '^v?(\d+)\.(\d+)\.(\d+)', 3) AS INTEGER),
                  0) >= 1005000 THEN version()
    ELSE error('rankframe''s SQL macros need DuckDB 1.5.0 or newer; this is DuckDB '
               || version())
END;

-- Argument checks: return the argument when valid, otherwise raise an error naming the
-- macro, the argument and what is allowed.
CREATE OR REPLACE TEMP MACRO rf__k(fn, k) AS
    CASE WHEN k IS NULL OR (k >= 1 AND k = floor(k)) THEN k
         ELSE error(fn || ': k must be a positive integer or NULL (whole list), got ' || k::VARCHAR)
    END;

CREATE OR REPLACE TEMP MACRO rf__threshold(fn, threshold) AS
    CASE WHEN threshold > 0 AND isfinite(threshold::DOUBLE) THEN threshold
         ELSE error(fn || ': threshold must be a finite number > 0, got '
                    || coalesce(threshold::VARCHAR, 'NULL'))
    END;

CREATE OR REPLACE TEMP MACRO rf__positive(fn, name, x) AS
    CASE WHEN x > 0 AND isfinite(x::DOUBLE) THEN x::DOUBLE
         ELSE error(fn || ': ' || name || ' must be a finite number > 0, got '
                    || coalesce(x::VARCHAR, 'NULL'))
    END;

-- The recall weight w of rf_f1: recall_weight when given, else beta^2 (both checked > 0).
CREATE OR REPLACE TEMP MACRO rf__f_weight(beta, recall_weight) AS
    CASE WHEN recall_weight IS NULL THEN pow(rf__positive('rf_f1', 'beta', beta), 2)
         ELSE rf__positive('rf_f1', 'recall_weight', recall_weight)
    END;

CREATE OR REPLACE TEMP MACRO rf__unit(fn, name, x) AS
    CASE WHEN x >= 0 AND x <= 1 THEN x
         ELSE error(fn || ': ' || name || ' must lie in [0, 1], got ' || coalesce(x::VARCHAR, 'NULL'))
    END;

CREATE OR REPLACE TEMP MACRO rf__choice(fn, name, value, allowed) AS
    CASE WHEN list_contains(allowed, value) THEN value
         ELSE error(fn || ': ' || name || ' must be one of '
                    || array_to_string(list_transform(allowed, lambda a: '''' || a || ''''), ', ')
                    || '; got ' || coalesce('''' || value || '''', 'NULL'))
    END;

-- The rank guard reads each rank as a BIGINT: try_cast binds for a rank column of any type
-- (so that a VARCHAR or BOOLEAN rank reaches the guard's own error), is no work on a BIGINT
-- column, and gives NULL for a rank beyond the BIGINT range (counted apart below).
CREATE OR REPLACE TEMP MACRO rf__bigint_rank(rank) AS
    try_cast(rank AS BIGINT);

-- The number of distinct ranks from 1 to 64 in the group: the bits set in the OR of one
-- bit per rank (rank r at bit r mod 64): a plain integer aggregate, cheaper per row than a
-- bitmap. A rank below 1 sets a bit too; the guard refuses it before reading this count.
CREATE OR REPLACE TEMP MACRO rf__low_rank_bits(rank) AS
    coalesce(bit_count(bit_or(CASE WHEN rf__bigint_rank(rank) <= 64
                                   THEN 1::UBIGINT << (rf__bigint_rank(rank) & 63)::UBIGINT
                              END)), 0);

-- The number of distinct ranks from lo to hi (constants) in the group: the bits set in a
-- bitmap of that range.
CREATE OR REPLACE TEMP MACRO rf__rank_bits(rank, lo, hi) AS
    coalesce(bit_count(bitstring_agg(rf__bigint_rank(rank), lo, hi)
                       FILTER (WHERE rf__bigint_rank(rank) BETWEEN lo AND hi)), 0);

-- true for a rank column of a type that holds ranks beyond BIGINT (a constant, folded when
-- the query is planned: typeof of a list is never NULL).
CREATE OR REPLACE TEMP MACRO rf__wide_ranks(rank) AS
    list_contains(['HUGEINT[]', 'UBIGINT[]', 'UHUGEINT[]'], typeof([rank]));

-- The ranks of a group outside 1..16384 (below 1, above 16384, beyond BIGINT in their own
-- type) as a list in the rank's own type ([] when none): few in practice. One aggregate
-- read by every part of the guard that is not a bitmap: the rank type (the list's type),
-- the smallest rank, the largest, and the distinct count of the ranks above 16384. Its
-- filter is one range test per row: a NULL rank reads as 1, and a rank beyond BIGINT as 0
-- (its column's type tested once, when the query is planned).
CREATE OR REPLACE TEMP MACRO rf__odd_ranks(rank) AS
    coalesce(list(rank) FILTER (WHERE coalesce(rf__bigint_rank(rank),
                                               CASE WHEN rf__wide_ranks(rank) AND rank IS NOT NULL
                                                    THEN 0 ELSE 1 END)
                                      NOT BETWEEN 1 AND 16384), []);

-- The number of distinct ranks of a group, exact, for ranks of an integer type >= 1 (any
-- other rank fails the guard before this count is read). Not count(DISTINCT rank), a
-- second hash table over every (group, rank) pair that cost several times the metrics:
-- ranks 1-64 set bits in one 64-bit integer (rf__low_rank_bits); ranks up to 16384 in
-- bitmaps, one per range (65-1024, 1025-16384), each made in a group at its first rank in
-- the range (120 and 1920 bytes); larger ranks are listed (rf__odd_ranks) and their
-- distinct values counted.
CREATE OR REPLACE TEMP MACRO rf__distinct_ranks(rank) AS
    rf__low_rank_bits(rank) + rf__rank_bits(rank, 65, 1024)
    + rf__rank_bits(rank, 1025, 16384) + len(list_distinct(rf__odd_ranks(rank)));

-- What is wrong with a group's ranks, as the cause's text (NULL when nothing): a rank type
-- that is not an integer type, a rank below 1, a rank above 2^63 - 1 (what every face
-- counts ranks in), a rank twice; NULL (not retrieved) is valid. The first cause found,
-- in that order. Its aggregates are read once, as the fields of a struct a lambda reads
-- (each reference to a macro's parameter is a copy to bind), and the expression is the
-- same in every macro of a SELECT (no argument of its own; no CASE around it, which
-- DuckDB's common-subexpression pass does not look into), so that DuckDB evaluates it
-- once per group for all of them.
CREATE OR REPLACE TEMP MACRO rf__rank_problem(rank) AS
    list_transform([{'odd': rf__odd_ranks(rank), 'n': count(rank),
                     'distinct': rf__distinct_ranks(rank)}], lambda rf_s:
        CASE WHEN NOT list_contains(['TINYINT[]', 'SMALLINT[]', 'INTEGER[]', 'BIGINT[]',
                                     'HUGEINT[]', 'UTINYINT[]', 'USMALLINT[]', 'UINTEGER[]',
                                     'UBIGINT[]', 'UHUGEINT[]', '"NULL"[]'],
                                    typeof(rf_s['odd']))
                 THEN 'rank must be of an integer type, got '
                      || replace(typeof(rf_s['odd']), '[]', '') || ' (cast it, e.g. rank::BIGINT)'
             WHEN try_cast(list_min(rf_s['odd']) AS HUGEINT) < 1
                 THEN 'rank ' || list_min(rf_s['odd'])::VARCHAR
                      || ' is below 1; ranks start at 1 (NULL = not retrieved)'
             WHEN coalesce(try_cast(list_max(rf_s['odd']) AS HUGEINT) > 9223372036854775807,
                           list_max(rf_s['odd']) IS NOT NULL)
                 THEN 'rank ' || list_max(rf_s['odd'])::VARCHAR
                      || ' is above 2^63 - 1 (9223372036854775807), the largest rank'
             WHEN rf_s['n'] <> rf_s['distinct']
                 THEN 'a rank occurs twice in a group (' || rf_s['n']::VARCHAR || ' ranks, '
                      || rf_s['distinct']::VARCHAR || ' distinct); ranks must be unique '
                      || 'within a query'
        END)[1];

-- The rank guard of every macro reading a rank column, evaluated once per group: true, or
-- an error naming the macro and the cause (rf__rank_problem; docs/semantics.md#input-checks).
-- error(NULL) is NULL, so error(fn || ': ' || problem) raises only where there is one.
CREATE OR REPLACE TEMP MACRO rf__ranks_ok(fn, rank) AS
    coalesce(error(fn || ': ' || rf__rank_problem(rank)), true);

-- false for a grade column of a type whose values are all finite numbers (integers,
-- decimals, booleans): a constant, folded when the query is planned, so that such a column
-- costs the grade guard no work per row.
CREATE OR REPLACE TEMP MACRO rf__inexact_grades(rel) AS
    NOT (list_contains(['TINYINT[]', 'SMALLINT[]', 'INTEGER[]', 'BIGINT[]', 'HUGEINT[]',
                        'UTINYINT[]', 'USMALLINT[]', 'UINTEGER[]', 'UBIGINT[]', 'UHUGEINT[]',
                        'BOOLEAN[]', '"NULL"[]'], typeof([rel]))
         OR starts_with(typeof([rel]), 'DECIMAL'));

-- What is wrong with a group's grades (NULL when nothing): a NaN grade compares above every
-- number in DuckDB (NaN >= 1 holds) and an infinite one has no gain, so a grade is NULL
-- (unjudged) or finite. The largest grade that is not finite is named (NaN if any, else
-- inf, else -inf): one aggregate, whose filter no valid row passes.
CREATE OR REPLACE TEMP MACRO rf__grade_problem(rel) AS
    'grade ' || (max(rel) FILTER (WHERE rf__inexact_grades(rel)
                                        AND NOT isfinite(try_cast(rel AS DOUBLE))))::VARCHAR
    || ' is not a finite number; a grade is a finite number, or NULL (unjudged)';

-- The grade guard of every macro reading a grade column, evaluated once per group: true, or
-- an error naming the macro (docs/semantics.md#input-checks).
CREATE OR REPLACE TEMP MACRO rf__grades_ok(fn, rel) AS
    coalesce(error(fn || ': ' || rf__grade_problem(rel)), true);

-- The guard of a macro reading grades and ranks: the ranks' (rf__ranks_ok), then the
-- grades' (rf__grades_ok); true, or the first cause's error.
CREATE OR REPLACE TEMP MACRO rf__rows_ok(fn, rel, rank) AS
    coalesce(error(fn || ': ' || coalesce(rf__rank_problem(rank), rf__grade_problem(rel))),
             true);

-- A macro's value once its guard (true, or an error) holds: the guard is evaluated first
-- (the left operand), and the value is not inside a CASE, so that DuckDB shares its parts
-- with the other macros of the SELECT. 1.0 * x is x for every double.
CREATE OR REPLACE TEMP MACRO rf__guarded(ok, value) AS
    ok::INTEGER::DOUBLE * value;

-- Row predicates and arithmetic.

-- A cutoff k >= 1 as a UHUGEINT, to compare with ranks read by rf__rank_value (a BIGINT
-- beside a UHUGEINT would take both to HUGEINT, too small for the largest UHUGEINT rank); a
-- cutoff beyond UHUGEINT holds every rank.
CREATE OR REPLACE TEMP MACRO rf__cutoff_value(k) AS
    coalesce(try_cast(k AS UHUGEINT), 340282366920938463463374607431768211455::UHUGEINT);

-- A retrieved row within the cutoff: rank <= k (rank IS NOT NULL when k is NULL). Under a
-- cutoff below 2^63 (a constant in practice, so that DuckDB keeps one branch) the rank is
-- read as a BIGINT, no work on a BIGINT column (a rank beyond BIGINT is beyond the cutoff
-- too), else as a UHUGEINT; so a rank of every integer type compares exactly, and a rank of
-- another type binds (the guard refuses it).
CREATE OR REPLACE TEMP MACRO rf__in_top(rank, k) AS
    CASE WHEN k IS NULL THEN rank IS NOT NULL
         WHEN k < 9223372036854775807 THEN try_cast(rank AS BIGINT) <= k
         ELSE try_cast(rank AS UHUGEINT) <= rf__cutoff_value(k)
    END;

-- A value of a row within the cutoff, else NULL: the argument of a run's aggregate that
-- skips NULLs (count(DISTINCT ...), histogram), which reads a run's many rows faster than
-- the aggregate's FILTER clause does (benchmarks/README.md, "Beyond accuracy at scale").
CREATE OR REPLACE TEMP MACRO rf__in_top_value(value, rank, k) AS
    CASE WHEN rf__in_top(rank, k) THEN value END;

CREATE OR REPLACE TEMP MACRO rf__relevant(rel, threshold) AS
    coalesce(rel >= threshold, false);

CREATE OR REPLACE TEMP MACRO rf__ratio(numerator, denominator) AS
    CASE WHEN denominator > 0 THEN numerator / denominator ELSE 0::DOUBLE END;

-- Gain of a grade: linear g = rel, exponential g = 2^rel - 1; 0 for NULL or rel <= 0.
CREATE OR REPLACE TEMP MACRO rf__gain(rel, gain) AS
    CASE WHEN rel > 0 THEN (CASE WHEN gain = 'linear' THEN rel::DOUBLE
                                 ELSE pow(2.0, rel::DOUBLE) - 1 END)
         ELSE 0::DOUBLE
    END;

-- The sum ``total`` of exponential gains of a group, once its grades are checked: the
-- exponential gain needs grades <= 960, so that sums of 2^rel stay finite (an error above);
-- one max per group, not a test per row.
CREATE OR REPLACE TEMP MACRO rf__gain_sum(rel, gain, total) AS
    CASE WHEN gain = 'linear' OR coalesce(max(rel) FILTER (WHERE gain <> 'linear') <= 960, true)
         THEN total
         ELSE error('rankframe: grade ' || max(rel)::VARCHAR || ' with the exponential gain '
                    || '2^rel - 1; grades must be <= 960, so that its sums stay finite')
    END;

-- A gain per grade (trec_eval's ndcg.1=3,2=9): a MAP of integer grades >= 0 to finite
-- gains of at most 2^960 in size (their sums stay finite), or NULL (none); returned with
-- DOUBLE keys and values, so that a grade looks it up.
CREATE OR REPLACE TEMP MACRO rf__gains(fn, gains) AS
    CASE WHEN gains IS NULL THEN NULL
         WHEN coalesce(list_bool_and(list_transform(map_entries(gains),
                  lambda e: e['key'] >= 0 AND e['key'] = floor(e['key']) AND isfinite(e['value']::DOUBLE)
                            AND abs(e['value']::DOUBLE) <= pow(2.0, 960))), true)
         THEN map_from_entries(list_transform(map_entries(gains),
                  lambda e: {'key': e['key']::DOUBLE, 'value': e['value']::DOUBLE}))
         ELSE error(fn || ': gains must map integer grades >= 0 to finite gains of at most '
                    || '2^960 in size, got ' || gains::VARCHAR)
    END;

-- true when a gain map is valid or NULL, else rf__gains' error: a macro checks its map once
-- with it and passes the map on as given.
CREATE OR REPLACE TEMP MACRO rf__ok_gains(fn, gains) AS
    gains IS NULL OR rf__gains(fn, gains) IS NOT NULL;

-- The gain of a grade with a gain map (checked by rf__gains or rf__ok_gains): the mapped
-- gain of a listed grade, else rf__gain. The map is cast to DOUBLE keys and values, as
-- rf__gains returns it, so that a grade looks it up. Without a map (a NULL constant, folded
-- when the query is planned) no row looks anything up.
CREATE OR REPLACE TEMP MACRO rf__mapped_gain(rel, gain, gains) AS
    CASE WHEN gains IS NULL THEN rf__gain(rel, gain)
         ELSE coalesce(map_extract_value(gains::MAP(DOUBLE, DOUBLE), rel::DOUBLE),
                       rf__gain(rel, gain))
    END;

-- Aggregates over one query's rows (arguments already validated). In a FILTER a NULL
-- condition drops the row, as false does.
CREATE OR REPLACE TEMP MACRO rf__hits(rel, rank, k, threshold) AS
    count(*) FILTER (WHERE rel >= threshold AND rf__in_top(rank, k));

CREATE OR REPLACE TEMP MACRO rf__num_relevant(rel, threshold) AS
    count(*) FILTER (WHERE rel >= threshold);

-- The rows that may have a gain, {r: rank, g: rel} in no order ([] when none): without a
-- gain map those with rel > 0 (the relevant ones among them, rel >= threshold > 0), with
-- one every judged row (a grade <= 0 may be mapped to a gain). One aggregate, the same in
-- every macro reading it (nDCG, DCG, the ideal DCG, CG, AP, R-precision ...), which DuckDB
-- gathers once for all of them in a SELECT; the work per row is one test, and the macros
-- compute on these rows alone, after the aggregate. The choice sits in the FILTER, not in
-- a CASE around two aggregates (DuckDB computes every aggregate of a CASE's branches: the
-- list of every judged row would be gathered without a map too); without a map the
-- condition folds to rel > 0.
CREATE OR REPLACE TEMP MACRO rf__gain_rows(rel, rank, gains) AS
    coalesce(list({'r': rank, 'g': rel})
                 FILTER (WHERE rel > 0 OR (gains IS NOT NULL AND rel IS NOT NULL)), []);

-- A rank read after the aggregate: as a UHUGEINT, which holds every rank of an integer type
-- exactly; NULL for a rank below 0 or of another type (which the guard refuses). Counts and
-- positions compared with it are cast to UHUGEINT too (rf__cutoff_value).
CREATE OR REPLACE TEMP MACRO rf__rank_value(rank) AS
    try_cast(rank AS UHUGEINT);

-- log2(r + 1) for a rank r >= 1 of any integer type: r + 1 made exactly, as the oracle's
-- Python integers, then rounded to a double once (2^128 for the largest UHUGEINT).
CREATE OR REPLACE TEMP MACRO rf__log2_next(r) AS
    log2(CASE WHEN r < 340282366920938463463374607431768211455::UHUGEINT
              THEN (r::UHUGEINT + 1)::DOUBLE ELSE 2::DOUBLE ^ 128 END);

-- The ranks of the relevant rows (rel >= threshold) retrieved within the cutoff, ascending,
-- as rf__rank_value ([] when none).
CREATE OR REPLACE TEMP MACRO rf__relevant_ranks(rel, rank, k, threshold) AS
    CASE WHEN threshold IS NOT NULL THEN
        list_sort(list_filter(
            list_transform(rf__gain_rows(rel, rank, NULL), lambda rf_e:
                CASE WHEN rf_e['g'] >= threshold THEN rf__rank_value(rf_e['r']) END),
            lambda rf_r: rf_r IS NOT NULL AND (k IS NULL OR rf_r <= rf__cutoff_value(k))))
    END;

-- The relevant rows (rel >= threshold) of the query, retrieved or not, counted in
-- rf__gain_rows (rf__num_relevant counts them in a row filter of its own).
CREATE OR REPLACE TEMP MACRO rf__relevant_count(rel, rank, threshold) AS
    CASE WHEN threshold IS NOT NULL THEN
        len(list_filter(rf__gain_rows(rel, rank, NULL), lambda rf_e: rf_e['g'] >= threshold))
    END;

CREATE OR REPLACE TEMP MACRO rf__precision(rel, rank, k, threshold, divisor) AS
    CASE WHEN k IS NULL THEN rf__ratio(rf__hits(rel, rank, k, threshold), count(rank))
         WHEN divisor = 'k' THEN rf__hits(rel, rank, k, threshold) / k
         ELSE rf__ratio(rf__hits(rel, rank, k, threshold), least(k, count(rank)))
    END;

CREATE OR REPLACE TEMP MACRO rf__recall(rel, rank, k, threshold) AS
    rf__ratio(rf__hits(rel, rank, k, threshold), rf__num_relevant(rel, threshold));

-- A gain sum ``total`` over the rows of rf__gain_rows, once their grades are checked: the
-- exponential gain needs grades <= 960, so that sums of 2^rel stay finite (an error above).
CREATE OR REPLACE TEMP MACRO rf__gain_total(rows, gain, total) AS
    CASE WHEN gain = 'linear'
              OR coalesce(list_max(list_transform(rows, lambda rf_e: rf_e['g'])) <= 960, true)
         THEN total
         ELSE error('rankframe: grade '
                    || list_max(list_transform(rows, lambda rf_e: rf_e['g']))::VARCHAR
                    || ' with the exponential gain 2^rel - 1; grades must be <= 960, so that '
                    || 'its sums stay finite')
    END;

-- The retrieved rows with a non-zero gain within the cutoff, {r: rank (rf__rank_value), g:
-- gain}, in rank order ([] when none).
CREATE OR REPLACE TEMP MACRO rf__gained(rel, rank, k, gain, gains) AS
    list_sort(list_filter(
        list_transform(rf__gain_rows(rel, rank, gains), lambda rf_e:
            {'r': rf__rank_value(rf_e['r']), 'g': rf__mapped_gain(rf_e['g'], gain, gains)}),
        lambda rf_e: rf_e['r'] IS NOT NULL AND rf_e['g'] != 0
                     AND (k IS NULL OR rf_e['r'] <= rf__cutoff_value(k))));

-- Float sums add their terms one at a time in rank order, as trec_eval's loops do
-- (docs/semantics.md#exactness): list_sum over a list in rank order, never a plain sum(),
-- whose order follows the parallel hash aggregate. A zero gain adds nothing and is left out.
-- Arguments already validated (k, gain; gains by rf__ok_gains).
CREATE OR REPLACE TEMP MACRO rf__dcg(rel, rank, k, gain, gains := NULL) AS
    rf__gain_total(rf__gain_rows(rel, rank, gains), gain, coalesce(list_sum(list_transform(
        rf__gained(rel, rank, k, gain, gains),
        lambda rf_e: rf_e['g'] / rf__log2_next(rf_e['r']))), 0)::DOUBLE);

-- The sum of the gains in rank order (CG).
CREATE OR REPLACE TEMP MACRO rf__cg(rel, rank, k, gain) AS
    rf__gain_total(rf__gain_rows(rel, rank, NULL), gain, coalesce(list_sum(list_transform(
        rf__gained(rel, rank, k, gain, NULL), lambda rf_e: rf_e['g'])), 0)::DOUBLE);

-- DCG of a list of gains already sorted descending.
CREATE OR REPLACE TEMP MACRO rf__list_dcg(gains) AS
    coalesce(list_sum(list_transform(gains, lambda g, i: g / log2(i + 1))), 0)::DOUBLE;

-- The positive gains of every row of rf__gain_rows (ideal 'all') or of its retrieved ones,
-- best first ([] when none).
CREATE OR REPLACE TEMP MACRO rf__best(rel, rank, gain, ideal, gains) AS
    list_reverse_sort(list_filter(list_transform(
        list_filter(rf__gain_rows(rel, rank, gains),
                    lambda rf_e: ideal = 'all' OR rf_e['r'] IS NOT NULL),
        lambda rf_e: rf__mapped_gain(rf_e['g'], gain, gains)), lambda rf_g: rf_g > 0));

-- The first k of a list (all when k is NULL or beyond its length).
CREATE OR REPLACE TEMP MACRO rf__first(items, k) AS
    list_slice(items, 1, coalesce(least(k, 4611686018427387904), 4611686018427387904)::BIGINT);

-- The ideal DCG: the DCG of the first k positive gains best first (rf__best). Arguments
-- already validated, as rf__dcg's.
CREATE OR REPLACE TEMP MACRO rf__idcg(rel, rank, k, gain, ideal, gains := NULL) AS
    rf__gain_total(rf__gain_rows(rel, rank, gains), gain,
                   rf__list_dcg(rf__first(rf__best(rel, rank, gain, ideal, gains), k)));

-- trec_eval's experimental nDCG variants (linear gains, mapped by a checked gain map):
-- the ideal ranking, the positive gains of every row best first ([] when none) ...
CREATE OR REPLACE TEMP MACRO rf__ideal_gains(rel, rank, gains) AS
    rf__best(rel, rank, 'linear', 'all', gains);

-- ... and the retrieved rows with a non-zero gain in rank order, as {r: rank, g: gain,
-- d: gain / log2(rank + 1)} ([] when none): DCG@i sums d over the entries with r <= i.
CREATE OR REPLACE TEMP MACRO rf__gain_points(rel, rank, gains) AS
    list_transform(rf__gained(rel, rank, NULL, 'linear', gains), lambda rf_e:
        {'r': rf_e['r'], 'g': rf_e['g'], 'd': rf_e['g'] / rf__log2_next(rf_e['r'])});

-- ... and both, with positions marked, as one list in position order: the ideal terms
-- g_i / log2(i + 1) ({pos: i, kind: 0, x: term}), the points ({pos: r, kind: 1, x: d, g}),
-- and marks ({pos: i, kind: 2}); at one position the ideal term comes first and the mark
-- last, so a fold reading them in order has IDCG@i and DCG@i at a mark (and at a point).
-- Positions are UHUGEINT, as ranks are (rf__rank_value).
CREATE OR REPLACE TEMP MACRO rf__events(best, points, marks) AS
    list_sort(list_transform(best, lambda rf_g, rf_i: {'pos': rf_i::UHUGEINT, 'kind': 0,
                                                       'x': rf_g / log2(rf_i + 1), 'g': rf_g})
              || list_transform(points, lambda rf_p: {'pos': rf_p['r'], 'kind': 1,
                                                      'x': rf_p['d'], 'g': rf_p['g']})
              || list_transform(marks, lambda rf_m: {'pos': rf_m::UHUGEINT, 'kind': 2,
                                                     'x': 0::DOUBLE, 'g': 0::DOUBLE}));

-- Checks for the user-model, correlation and tie-aware macros.
CREATE OR REPLACE TEMP MACRO rf__persistence(fn, p) AS
    CASE WHEN p > 0 AND p < 1 THEN p::DOUBLE
         ELSE error(fn || ': p must lie in (0, 1), got ' || coalesce(p::VARCHAR, 'NULL'))
    END;

-- NULL stays NULL (an optional parameter left unset); anything else must be > 0.
CREATE OR REPLACE TEMP MACRO rf__optional_positive(fn, name, x) AS
    CASE WHEN x IS NULL THEN NULL::DOUBLE ELSE rf__positive(fn, name, x) END;

CREATE OR REPLACE TEMP MACRO rf__flag(fn, name, x) AS
    CASE WHEN x IS NOT NULL THEN x::BOOLEAN
         ELSE error(fn || ': ' || name || ' must be true or false, got NULL')
    END;

-- A row is judged iff rel >= 0 (NULL = unjudged, negative = pooled but unjudged).
CREATE OR REPLACE TEMP MACRO rf__judged(rel) AS
    coalesce(rel >= 0, false);

-- K: after K multiplications by p the running product p^(i - 1) of rf_rbp and
-- rf_rbp_residual has reached its floor (0 or a few subnormals) and no longer changes
-- (rankframe.persistence.floor_steps): a rank gap costs at most K steps.
CREATE OR REPLACE TEMP MACRO rf__floor_steps(p) AS
    ceil(1135 / -log2(p::DOUBLE))::BIGINT;

-- Rows of two numeric columns where neither value is NULL or NaN, as a list of {x, y}.
-- The values keep their own type (a BIGINT beyond 2^53 is not rounded into a tie); the
-- cast only tests for NaN.
CREATE OR REPLACE TEMP MACRO rf__pairs(x, y) AS
    coalesce(list({'x': x, 'y': y}) FILTER (
        WHERE x IS NOT NULL AND y IS NOT NULL AND NOT isnan(x::DOUBLE) AND NOT isnan(y::DOUBLE)),
        []);

-- Tie groups: positions of the group of a row inside the cutoff, first .. rf__tie_last.
CREATE OR REPLACE TEMP MACRO rf__tie_last(tie_first, tie_size, k) AS
    CASE WHEN k IS NULL THEN tie_first + tie_size - 1
         ELSE least(tie_first + tie_size - 1, k)::BIGINT END;

-- Argument guards evaluated once per group, whatever the rows: true, or an error. A macro
-- whose validators sit inside FILTER clauses or CASE branches starts with
-- CASE WHEN <guards> THEN ... END, so a bad argument fails even on an empty group.
CREATE OR REPLACE TEMP MACRO rf__ok_k(fn, k) AS
    k IS NULL OR rf__k(fn, k) IS NOT NULL;

CREATE OR REPLACE TEMP MACRO rf__ok(value) AS
    value IS NOT NULL;

-- A positive integer or NULL for a named cutoff-like argument (e.g. depth).
CREATE OR REPLACE TEMP MACRO rf__cutoff(fn, name, k) AS
    CASE WHEN k IS NULL OR (k >= 1 AND k = floor(k)) THEN k
         ELSE error(fn || ': ' || name || ' must be a positive integer or NULL, got ' || k::VARCHAR)
    END;

-- Expected relevant rows in the top k over the orderings of each tie group:
-- sum over relevant retrieved rows of (positions of the group inside k) / tie_size.
CREATE OR REPLACE TEMP MACRO rf__tie_hits(rel, tie_first, tie_size, k, threshold) AS
    coalesce(sum(greatest(rf__tie_last(tie_first, tie_size, k) - tie_first + 1, 0) / tie_size)
        FILTER (WHERE tie_first IS NOT NULL AND rf__relevant(rel, threshold)), 0)::DOUBLE;

-- Expected DCG at k: each retrieved row spreads g(rel) / tie_size over its group's positions.
CREATE OR REPLACE TEMP MACRO rf__tie_dcg(rel, tie_first, tie_size, k, gain) AS
    rf__gain_sum(rel, gain, coalesce(sum(rf__gain(rel, gain) / tie_size * coalesce(list_sum(
        list_transform(range(tie_first, rf__tie_last(tie_first, tie_size, k) + 1),
                       lambda i: 1 / log2(i + 1))), 0)) FILTER (WHERE tie_first IS NOT NULL),
        0)::DOUBLE);

-- sign(a - b) by comparison: no overflow for BIGINTs, and 0 for inf against inf.
CREATE OR REPLACE TEMP MACRO rf__compare(a, b) AS
    (a > b)::INTEGER - (a < b)::INTEGER;

-- Pair counts over the kept {x, y} rows of a group (O(n^2)): s = concordant - discordant,
-- tx / ty / txy = pairs tied in x / in y / in both, n0 = n(n - 1)/2, all DOUBLE.
CREATE OR REPLACE TEMP MACRO rf__kendall_counts(x, y) AS
    list_transform([rf__pairs(x, y)], lambda l: {
        's': coalesce(list_sum(list_transform(l, lambda a: list_sum(list_transform(l,
                 lambda b: rf__compare(a['x'], b['x']) * rf__compare(a['y'], b['y']))))), 0) / 2,
        'tx': (coalesce(list_sum(list_transform(l, lambda a: len(list_filter(l,
                 lambda b: b['x'] = a['x'])))), 0) - len(l)) / 2,
        'ty': (coalesce(list_sum(list_transform(l, lambda a: len(list_filter(l,
                 lambda b: b['y'] = a['y'])))), 0) - len(l)) / 2,
        'txy': (coalesce(list_sum(list_transform(l, lambda a: len(list_filter(l,
                 lambda b: b['x'] = a['x'] AND b['y'] = a['y'])))), 0) - len(l)) / 2,
        'n0': len(l) * (len(l) - 1) / 2})[1];

-- Text readers (rf_read_*): a line's fields, split on runs of C's isspace() blanks ...
CREATE OR REPLACE TEMP MACRO rf__fields(line) AS
    regexp_extract_all(line, '[^ \t\n\v\f\r]+');

-- ... every line of a text file (plain, or gzip by its .gz name) with its fields f; a line
-- ends at LF, CRLF or a lone CR, as rankframe.io reads (with new_line LF, DuckDB's reader
-- ends a line at either byte, and a CRLF leaves an empty line, skipped as blank) ...
CREATE OR REPLACE TEMP MACRO rf__lines(path) AS TABLE
    SELECT line, rf__fields(line) AS f
    FROM read_csv(path, columns = {'line': 'VARCHAR'}, header = false, delim = E'\n',
                  new_line = '\n', quote = '', escape = '', auto_detect = false,
                  strict_mode = false);

-- ... the fields when there are exactly n, else an error quoting the line ...
CREATE OR REPLACE TEMP MACRO rf__n_fields(fn, f, n, layout, line) AS
    CASE WHEN len(f) = n THEN f
         ELSE error(fn || ': expected ' || n::VARCHAR || ' fields (' || layout || '), found '
                    || len(f)::VARCHAR || ' in line: ' || line)
    END;

-- ... and a field as rankframe.io reads numbers ([+-]digits; decimal with an optional
-- exponent), NULL when it is not one (a plain cast also takes '1.5' -> 2, '0x10' -> 16).
CREATE OR REPLACE TEMP MACRO rf__integer(text) AS
    CASE WHEN regexp_full_match(text, '[+-]?[0-9]+') THEN TRY_CAST(text AS BIGINT) END;

CREATE OR REPLACE TEMP MACRO rf__number(text) AS
    CASE WHEN regexp_full_match(text, '[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?')
         THEN TRY_CAST(text AS DOUBLE) END;

-- The data lines of a file of 4 fields whose last is an integer grade (qrels, qrels_jg),
-- as (line, f, rel): blank lines and lines whose first field starts with '#' skipped; the
-- query fails, naming fn and quoting the line, on a field count other than 4 or a grade
-- that is not an integer.
CREATE OR REPLACE TEMP MACRO rf__graded_lines(path, fn, layout) AS TABLE
    WITH fields AS (
        SELECT line, rf__n_fields(fn, f, 4, layout, line) AS f
        FROM rf__lines(path)
        WHERE len(f) > 0 AND NOT starts_with(f[1], '#')
    ), parsed AS (
        SELECT line, f, rf__integer(f[4]) AS rel
        FROM fields
    )
    SELECT line, f,
           CASE WHEN rel IS NULL
                    THEN error(fn || ': relevance grade ''' || f[4]
                               || ''' is not an integer in line: ' || line)
                ELSE rel
           END AS rel
    FROM parsed;

-- The rank of a run row in rf_judge and rf_judge_groups: by score descending, ties broken
-- by docid descending (byte order), as trec_eval ranks.
CREATE OR REPLACE TEMP MACRO rf__score_rank(qid, score, docid) AS
    row_number() OVER (PARTITION BY qid ORDER BY score DESC, encode(docid::VARCHAR) DESC);

-- The depth cut of rf_judge and rf_judge_groups: rank <= depth (every rank when NULL).
CREATE OR REPLACE TEMP MACRO rf__within_depth(fn, rank, depth) AS
    CASE WHEN depth IS NULL THEN true
         WHEN depth >= 1 AND depth = floor(depth) THEN rank <= depth
         ELSE error(fn || ': depth must be a positive integer or NULL (no cut), got '
                    || depth::VARCHAR)
    END;

-- Beyond accuracy (docs/semantics.md#beyond-accuracy): the guard of a run metric, whose
-- group holds every list of a run (ranks repeat), and the sizes a macro needs given.
CREATE OR REPLACE TEMP MACRO rf__whole_ranks(fn, rank) AS
    CASE WHEN NOT list_contains(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT',
                                 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT', '"NULL"'],
                                typeof(min(rank)))
             THEN error(fn || ': rank must be of an integer type, got ' || typeof(min(rank))
                        || ' (cast it, e.g. rank::BIGINT)')
         WHEN min(rank) < 1
             THEN error(fn || ': rank ' || min(rank)::VARCHAR
                        || ' is below 1; ranks start at 1 (NULL = not retrieved)')
         ELSE true
    END;

CREATE OR REPLACE TEMP MACRO rf__size(fn, name, x) AS
    CASE WHEN x >= 1 AND x = floor(x) THEN x::BIGINT
         WHEN x IS NULL THEN error(fn || ': ' || name || ' is required here, an integer >= 1 '
                                   || '(rankframe.evaluate counts it from its Catalog)')
         ELSE error(fn || ': ' || name || ' must be an integer >= 1, got ' || x::VARCHAR)
    END;

-- The position-wise sum of a list of vectors of one length (NULL for none).
CREATE OR REPLACE TEMP MACRO rf__vector_sum(vectors) AS
    CASE WHEN len(vectors) > 0 THEN
        list_reduce(vectors, lambda a, b: list_transform(a, lambda x, i: x + b[i]))
    END;

-- A vector as a unit vector (all zeros stay zeros).
CREATE OR REPLACE TEMP MACRO rf__unit_vector(v) AS
    CASE WHEN list_sum(list_transform(v, lambda x: x * x)) > 0
         THEN list_transform(v, lambda x: x::DOUBLE / sqrt(list_sum(list_transform(v, lambda y: y * y))))
         ELSE list_transform(v, lambda x: 0::DOUBLE)
    END;

-- The end of the version check's transaction (see the top of this file).
COMMIT;

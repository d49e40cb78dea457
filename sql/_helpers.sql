-- rankframe: shared building blocks of the rf_* metric macros.
--
-- Load this file before the rf_*.sql files (the macros below are bound when a metric
-- macro is created). Names with a double underscore (rf__*) are internal: their
-- signatures may change between releases. Conventions of the judged long table:
--   rank NULL = judged but not retrieved;  rel NULL = retrieved but unjudged;
--   rel < 0 = pooled but unjudged;  a row is relevant iff rel >= threshold.

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

-- Row predicates and arithmetic.
CREATE OR REPLACE TEMP MACRO rf__in_top(rank, k) AS
    rank IS NOT NULL AND (k IS NULL OR rank <= k);

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

-- Aggregates over one query's rows (arguments already validated).
CREATE OR REPLACE TEMP MACRO rf__hits(rel, rank, k, threshold) AS
    count(*) FILTER (WHERE rf__relevant(rel, threshold) AND rf__in_top(rank, k));

CREATE OR REPLACE TEMP MACRO rf__num_relevant(rel, threshold) AS
    count(*) FILTER (WHERE rf__relevant(rel, threshold));

-- Ranks of relevant retrieved rows within the cutoff, ascending (NULL when there are none).
CREATE OR REPLACE TEMP MACRO rf__relevant_ranks(rel, rank, k, threshold) AS
    list_sort(list(rank) FILTER (WHERE rf__relevant(rel, threshold) AND rf__in_top(rank, k)));

CREATE OR REPLACE TEMP MACRO rf__precision(rel, rank, k, threshold, divisor) AS
    CASE WHEN k IS NULL THEN rf__ratio(rf__hits(rel, rank, k, threshold), count(rank))
         WHEN divisor = 'k' THEN rf__hits(rel, rank, k, threshold) / k
         ELSE rf__ratio(rf__hits(rel, rank, k, threshold), least(k, count(rank)))
    END;

CREATE OR REPLACE TEMP MACRO rf__recall(rel, rank, k, threshold) AS
    rf__ratio(rf__hits(rel, rank, k, threshold), rf__num_relevant(rel, threshold));

CREATE OR REPLACE TEMP MACRO rf__dcg(rel, rank, k, gain) AS
    coalesce(sum(rf__gain(rel, gain) / log2(rank + 1)) FILTER (WHERE rf__in_top(rank, k)), 0)::DOUBLE;

-- DCG of a list of gains already sorted descending.
CREATE OR REPLACE TEMP MACRO rf__list_dcg(gains) AS
    coalesce(list_sum(list_transform(gains, lambda g, i: g / log2(i + 1))), 0)::DOUBLE;

CREATE OR REPLACE TEMP MACRO rf__idcg(rel, rank, k, gain, ideal) AS
    rf__list_dcg(list_slice(
        list_sort(list(rf__gain(rel, gain)) FILTER (
            WHERE rf__gain(rel, gain) > 0 AND (ideal = 'all' OR rank IS NOT NULL)), 'DESC'),
        1, coalesce(k, 2147483647)));

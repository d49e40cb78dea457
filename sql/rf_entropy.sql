-- rf_entropy(item, rank, k := NULL, log := 'log2', divisor := 'none') -> DOUBLE
--   Contract: docs/semantics.md#entropy.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     log: The logarithm: 'log2' (bits; Microsoft Recommenders) or 'ln' (nats; RecBole).
--     divisor: 'none': the entropy itself (Microsoft Recommenders' distributional coverage);
--       'items': divided by the number of distinct items recommended (RecBole's
--       ShannonEntropy).
--   Distributional coverage: -sum p_i log(p_i), p_i the share of item i among the rows with
--   rank <= k (NULL items left out); NULL when there is none. A run metric (see rf_coverage).
--   Example (a twice, b and c once: 1.5 bits):
--     SELECT rf_entropy(item, rank), round(rf_entropy(item, rank, log := 'ln', divisor := 'items'), 4)
--     FROM (VALUES (1, 'a', 1), (1, 'b', 2), (2, 'a', 1), (2, 'c', 2)) t(user_id, item, rank);
--     => 1.5, 0.3466

-- rf__entropy_of: the entropy of a list of counts c_i of total N, as log N - sum c_i log c_i / N
-- (the same sum, with no reference to the list inside its lambda: linear in the counts).
CREATE OR REPLACE TEMP MACRO rf__entropy_of(counts, log, divisor) AS
    CASE WHEN list_sum(counts) > 0 THEN
        (ln(list_sum(counts)) - list_sum(list_transform(counts, lambda c: c * ln(c))) / list_sum(counts))
            / CASE WHEN log = 'log2' THEN ln(2) ELSE 1 END
            / CASE WHEN divisor = 'items' THEN len(counts) ELSE 1 END
    END;
-- rf__unchecked_entropy: the body, without the rank guard (for tables checked already, as
-- by rankframe.evaluate); rf_entropy is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_entropy(item, rank, k := NULL, log := 'log2', divisor := 'none') AS
    CASE WHEN rf__ok_k('rf_entropy', k)
              AND rf__ok(rf__choice('rf_entropy', 'log', log, ['log2', 'ln']))
              AND rf__ok(rf__choice('rf_entropy', 'divisor', divisor, ['none', 'items'])) THEN
        rf__entropy_of(map_values(histogram(rf__in_top_value(item, rank, k))), log, divisor)
    END;
CREATE OR REPLACE TEMP MACRO rf_entropy(item, rank, k := NULL, log := 'log2', divisor := 'none') AS
    CASE WHEN rf__whole_ranks('rf_entropy', rank) THEN
        rf__unchecked_entropy(item, rank, k, log := log, divisor := divisor) END;

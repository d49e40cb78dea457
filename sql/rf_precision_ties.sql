-- rf_precision_ties(rel, tie_first, tie_size, k := NULL, threshold := 1, divisor := 'k') -> DOUBLE
--   Contract: docs/semantics.md#precision_ties.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--     divisor: 'k': divide by k, as trec_eval's P_k; 'min': by min(k, n), n the rows retrieved.
--       With k := NULL both divide by n.
--   Expected precision at k over every ordering of tied rows (McSherry & Najork 2008).
--   A tie group occupies positions tie_first .. tie_first + tie_size - 1 (NULL = not
--   retrieved); each of its rows is in the top k with chance c(k) / tie_size, c(k) its
--   positions <= k. Expected relevant in the top k, divided by k ('min': min(k, n));
--   k NULL: relevant retrieved / n. Nothing retrieved -> 0. See rankframe.table.ties.annotate.
--   Example (docs/semantics.md#worked-examples: ranks 2 and 3 tied, one of them relevant):
--     SELECT rf_precision_ties(rel, tie_first, tie_size, 2) FROM (VALUES (NULL, 1, 1),
--         (NULL, 2, 2), (1, 2, 2), (1, 4, 1), (2, NULL, NULL)) t(rel, tie_first, tie_size);
--     => 0.25
CREATE OR REPLACE TEMP MACRO rf_precision_ties(rel, tie_first, tie_size, k := NULL, threshold := 1,
                                               divisor := 'k') AS
    CASE WHEN rf__ok_k('rf_precision_ties', k) AND rf__ok(rf__threshold('rf_precision_ties', threshold))
              AND rf__ok(rf__choice('rf_precision_ties', 'divisor', divisor, ['k', 'min']))
              AND rf__grades_ok('rf_precision_ties', rel) THEN
        CASE WHEN rf__k('rf_precision_ties', k) IS NULL THEN rf__ratio(
                 rf__tie_hits(rel, tie_first, tie_size, k,
                              rf__threshold('rf_precision_ties', threshold)), count(tie_first))
             WHEN rf__choice('rf_precision_ties', 'divisor', divisor, ['k', 'min']) = 'k'
                 THEN rf__tie_hits(rel, tie_first, tie_size, k,
                                   rf__threshold('rf_precision_ties', threshold)) / k
             ELSE rf__ratio(rf__tie_hits(rel, tie_first, tie_size, k,
                                         rf__threshold('rf_precision_ties', threshold)),
                            least(k, count(tie_first)))
        END::DOUBLE
    END;

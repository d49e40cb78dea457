-- rf_novelty(pop, rank, k := NULL, total := NULL, unseen := 'zero', log := 'log2') -> DOUBLE
--   Contract: docs/semantics.md#novelty.
--   Parameters:
--     k: Cutoff: only rows with rank <= k count. NULL (the default): the whole list.
--     total: What popularity is a share of: the number of training interactions (or of users,
--       with popularity := 'users'), an integer >= 1. NULL: rankframe.evaluate counts it from
--       its rankframe.Catalog; a builder or macro needs it given.
--     unseen: An item never seen in training (popularity NULL or 0): 'zero' counts it with
--       self-information 0 (Microsoft Recommenders); 'skip' leaves it out of the mean.
--     log: The logarithm: 'log2' (bits; Microsoft Recommenders) or 'ln' (nats; RecBole).
--   The mean self-information -log(pop / total) of the items with rank <= k, pop the item's
--   training popularity; NULL for a list with none.
--   Example (popularity 1 and 4 of 8 interactions: 3 and 1 bits; an unseen item counts 0):
--     SELECT rf_novelty(pop, rank, total := 8), rf_novelty(pop, rank, 2, total := 8),
--            rf_novelty(pop, rank, total := 8, unseen := 'skip')
--     FROM (VALUES (1, 1), (2, 4), (3, 0)) t(rank, pop);
--     => 1.3333333333333333, 2.0, 2.0

-- rf__unchecked_novelty: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_novelty is the guarded macro.
CREATE OR REPLACE TEMP MACRO rf__unchecked_novelty(pop, rank, k := NULL, total := NULL, unseen := 'zero', log := 'log2') AS
    CASE WHEN rf__ok_k('rf_novelty', k)
              AND rf__ok(rf__choice('rf_novelty', 'unseen', unseen, ['zero', 'skip']))
              AND rf__ok(rf__choice('rf_novelty', 'log', log, ['log2', 'ln'])) THEN
        avg(CASE WHEN coalesce(pop > 0, false)
                 THEN -CASE WHEN log = 'log2' THEN log2(pop::DOUBLE / rf__size('rf_novelty', 'total', total))
                            ELSE ln(pop::DOUBLE / rf__size('rf_novelty', 'total', total)) END
                 ELSE 0::DOUBLE END)
            FILTER (WHERE rf__in_top(rank, k) AND (unseen = 'zero' OR coalesce(pop > 0, false)))
    END;
CREATE OR REPLACE TEMP MACRO rf_novelty(pop, rank, k := NULL, total := NULL, unseen := 'zero', log := 'log2') AS
    CASE WHEN rf__ranks_ok('rf_novelty', rank) THEN
        rf__unchecked_novelty(pop, rank, k, total := total, unseen := unseen, log := log) END;

-- rf_rndcg(rel, rank, threshold := 1, gains := NULL) -> DOUBLE
--   Contract: docs/semantics.md#rndcg.
--   Parameters:
--     threshold: Relevance level: a row is relevant iff rel >= threshold (trec_eval -l).
--     gains: A gain per grade, MAP {grade: gain} (trec_eval's ndcg.1=3,2=9): a listed grade (an
--       integer >= 0, grade 0 too) gains the number given, which may be 0 or negative; the
--       other grades keep the gain the gain parameter gives them (linear where the metric has
--       none). NULL: none listed.
--   nDCG averaged at the R-levels of the ideal ranking (trec_eval Rndcg, experimental):
--   the mean of DCG@i / IDCG@i over the positions i <= P after which the ideal gain
--   changes (P = rows with a positive gain; i = P always counts), and of DCG@n / IDCG@P
--   when the last rank n > P + 1. Linear gains, or the gain a MAP `gains` gives a grade.
--   0 when no row is relevant (rel >= threshold) or there is no such point.
--   Grades 1, 2, 0, 0, then an unretrieved 2: the ideal 2, 2, 1 changes after positions 2, 3.
--   Example (docs/semantics.md#worked-examples):
--     SELECT round(rf_rndcg(rel, rank), 4)
--     FROM (VALUES (1, 1), (2, 2), (3, 0), (4, 0), (NULL, 2)) t(rank, rel);
--     => 0.6473

-- rf__unchecked_rndcg: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_rndcg is the guarded macro. The ideal terms (kind 0), the gain
-- points (kind 1) and the positions i where the ideal gain changes (kind 2) are sorted into
-- one list (rf__events), and one fold carries IDCG, DCG and the sum of DCG@i / IDCG@i:
-- every sum adds its terms one at a time in order, n log n per query.
CREATE OR REPLACE TEMP MACRO rf__unchecked_rndcg(rel, rank, threshold := 1, gains := NULL) AS
    CASE WHEN rf__num_relevant(rel, rf__threshold('rf_rndcg', threshold)) = 0 THEN 0::DOUBLE ELSE
    list_transform([{'best': rf__ideal_gains(rel, rank, rf__gains('rf_rndcg', gains)),
                     'points': rf__gain_points(rel, rank, rf__gains('rf_rndcg', gains)),
                     'n': coalesce(rf__rank_value(max(rank)), 0::UHUGEINT)}],
        lambda v: list_transform([list_reduce(rf__events(v['best'], v['points'],
                list_filter(range(1, len(v['best']) + 1),
                            lambda i: i = len(v['best']) OR v['best'][i] != v['best'][i + 1])), lambda a, e:
                CASE WHEN e['kind'] = 0 THEN {'idcg': a['idcg'] + e['x'], 'dcg': a['dcg'], 'sum': a['sum'],
                                           'terms': a['terms']}
                     WHEN e['kind'] = 1 THEN {'idcg': a['idcg'], 'dcg': a['dcg'] + e['x'], 'sum': a['sum'],
                                           'terms': a['terms']}
                     ELSE {'idcg': a['idcg'], 'dcg': a['dcg'], 'sum': a['sum'] + a['dcg'] / a['idcg'],
                           'terms': a['terms'] + 1} END,
            {'idcg': 0::DOUBLE, 'dcg': 0::DOUBLE, 'sum': 0::DOUBLE, 'terms': 0::BIGINT})],
            lambda f: CASE WHEN len(v['best']) > 0 AND v['n'] > (len(v['best']) + 1)::UHUGEINT
                           THEN (f['sum'] + f['dcg'] / f['idcg']) / (f['terms'] + 1)
                           WHEN f['terms'] > 0 THEN f['sum'] / f['terms']
                           ELSE 0::DOUBLE END)[1])[1]
    END;
CREATE OR REPLACE TEMP MACRO rf_rndcg(rel, rank, threshold := 1, gains := NULL) AS
    CASE WHEN rf__rows_ok('rf_rndcg', rel, rank) THEN
        rf__unchecked_rndcg(rel, rank, threshold := threshold, gains := gains) END;

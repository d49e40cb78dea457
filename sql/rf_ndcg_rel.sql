-- rf_ndcg_rel(rel, rank, gains := NULL) -> DOUBLE
--   Contract: docs/semantics.md#ndcg_rel.
--   Parameters:
--     gains: A gain per grade, MAP {grade: gain} (trec_eval's ndcg.1=3,2=9): a listed grade (an
--       integer >= 0, grade 0 too) gains the number given, which may be 0 or negative; the
--       other grades keep the gain the gain parameter gives them (linear where the metric has
--       none). NULL: none listed.
--   nDCG averaged over the rows with a positive gain (trec_eval ndcg_rel, experimental):
--     (1/Rg) * (sum over retrieved rows r with g > 0 of DCG@r / IDCG@min(r, Rg)
--               + (Rg - found) * DCG / IDCG),
--   Rg = rows with a positive gain, found = those retrieved, DCG and IDCG of the whole
--   list. Linear gains, or the gain a MAP `gains` gives a grade. 0 when Rg = 0 or the sum
--   is <= 0.
--   Example (docs/semantics.md#worked-examples: grades 0, 2, 1, then an unretrieved 1):
--     SELECT round(rf_ndcg_rel(rel, rank), 4)
--     FROM (VALUES (1, 0), (2, 2), (3, 1), (NULL, 1)) t(rank, rel);
--     => 0.535

-- rf__unchecked_ndcg_rel: the body, without the rank guard (for tables checked already, as by
-- rankframe.evaluate); rf_ndcg_rel is the guarded macro. The ideal terms (kind 0, at their
-- position) and the gain points (kind 1, at their rank) are sorted into one list (rf__events),
-- and one fold carries IDCG, DCG and the sum of DCG@r / IDCG@min(r, Rg) over the points of
-- positive gain: every sum adds its terms one at a time in order, n log n per query.
CREATE OR REPLACE TEMP MACRO rf__unchecked_ndcg_rel(rel, rank, gains := NULL) AS
    list_transform([{'best': rf__ideal_gains(rel, rank, rf__gains('rf_ndcg_rel', gains)),
                     'points': rf__gain_points(rel, rank, rf__gains('rf_ndcg_rel', gains))}],
        lambda v: list_transform([list_reduce(rf__events(v['best'], v['points'], []), lambda a, e:
                CASE WHEN e['kind'] = 0 THEN {'idcg': a['idcg'] + e['x'], 'dcg': a['dcg'], 'sum': a['sum'],
                                           'found': a['found']}
                     WHEN e['g'] > 0 THEN {'idcg': a['idcg'], 'dcg': a['dcg'] + e['x'],
                                        'sum': a['sum'] + (a['dcg'] + e['x']) / a['idcg'],
                                        'found': a['found'] + 1}
                     ELSE {'idcg': a['idcg'], 'dcg': a['dcg'] + e['x'], 'sum': a['sum'],
                           'found': a['found']} END,
            {'idcg': 0::DOUBLE, 'dcg': 0::DOUBLE, 'sum': 0::DOUBLE, 'found': 0::BIGINT})],
            lambda f: list_transform([f['sum'] + (len(v['best']) - f['found'])::DOUBLE * f['dcg'] / f['idcg']],
                lambda total: CASE WHEN len(v['best']) > 0 AND total > 0 THEN total / len(v['best'])
                                   ELSE 0::DOUBLE END)[1])[1])[1];
CREATE OR REPLACE TEMP MACRO rf_ndcg_rel(rel, rank, gains := NULL) AS
    CASE WHEN rf__rows_ok('rf_ndcg_rel', rel, rank) THEN
        rf__unchecked_ndcg_rel(rel, rank, gains := gains) END;

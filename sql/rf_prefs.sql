-- rf_prefs(prefs, run, depth := NULL, complete := false) -> TABLE (qid VARCHAR,
--     prefs_num_prefs_poss, prefs_num_prefs_ful, prefs_num_prefs_ful_ret BIGINT,
--     prefs_simp, prefs_pair, prefs_avgjg, prefs_avgjg_Rnonrel, prefs_simp_ret,
--     prefs_pair_ret, prefs_avgjg_ret, prefs_avgjg_Rnonrel_ret, prefs_simp_imp,
--     prefs_pair_imp, prefs_avgjg_imp DOUBLE)
--   Contract: docs/semantics.md#preferences (trec_eval's prefs_* measures, -R prefs and
--   -R qrels_prefs). Tables named by string: prefs(qid, jg, jsg, docid, level), as
--   rf_read_prefs / rf_read_qrels_prefs return it, and run(qid, docid, score).
--   The run is ranked by score descending, ties by docid ascending (bytes: trec_eval's
--   preference ranking), cut at depth (-M). Judged documents get positions: the retrieved
--   first by rank, then the others by docid. Within a sub-group (jsg) a higher level is
--   preferred to a lower one; a judgment group (jg) is the transitive closure of its
--   sub-groups (a cycle is an error). Per group: preferences fulfilled and possible,
--   among retrieved documents (_ret), with one retrieved (_imp), with none; the averages
--   over groups and over document pairs add their terms in trec_eval's order (groups by
--   id, pairs by position) with list_reduce, so the doubles are trec_eval's.
--   Evaluated: queries of both tables, or every prefs query when complete (-c).
--   Examples (trec_eval's test files; the first query of test/out.test.prefs):
--     CREATE TEMP TABLE p AS SELECT * FROM rf_read_prefs('tests/data/trec_eval/prefs.test');
--     CREATE TEMP TABLE r AS SELECT * FROM rf_read_run('tests/data/trec_eval/prefs.results.test');
--     SELECT qid, prefs_num_prefs_poss, round(prefs_simp, 4) FROM rf_prefs('p', 'r') WHERE qid = '1.EC.AB';
--     => 1.EC.AB, 1, 1.0
CREATE OR REPLACE TEMP MACRO rf_prefs(prefs, run, depth := NULL, complete := false) AS TABLE
    WITH RECURSIVE
    p AS (
        SELECT qid::VARCHAR AS qid, jg::VARCHAR AS jg, jsg::VARCHAR AS jsg,
               docid::VARCHAR AS docid, level::DOUBLE AS level
        FROM query_table(prefs)
    ), r AS (
        SELECT qid::VARCHAR AS qid, docid::VARCHAR AS docid, score::DOUBLE + 0.0 AS score
        FROM query_table(run)
    ), queries AS (
        SELECT DISTINCT qid FROM p WHERE complete OR qid IN (SELECT qid FROM r)
    ), ranking AS (
        SELECT * FROM (
            SELECT qid, docid,
                   row_number() OVER (PARTITION BY qid ORDER BY score DESC, docid::BLOB) AS rank
            FROM r WHERE qid IN (SELECT qid FROM queries))
        WHERE depth IS NULL OR rank <= depth
    ), pq AS (
        SELECT * FROM p WHERE qid IN (SELECT qid FROM queries)
    ), pos AS (
        SELECT j.qid, j.docid, r.rank IS NOT NULL AS ret,
               row_number() OVER (PARTITION BY j.qid ORDER BY r.rank NULLS LAST, j.docid::BLOB) - 1
                   AS pos
        FROM (SELECT DISTINCT qid, docid FROM pq) j LEFT JOIN ranking r USING (qid, docid)
    ), groups AS (
        SELECT qid, jg, count(DISTINCT jsg) = 1 AS ec FROM pq GROUP BY qid, jg
    ), stated AS (
        SELECT DISTINCT a.qid, a.jg, a.docid AS better, b.docid AS worse
        FROM pq a JOIN pq b ON a.qid = b.qid AND a.jg = b.jg AND a.jsg = b.jsg AND a.level > b.level
    ), partial AS (
        SELECT s.qid, s.jg, s.better, s.worse
        FROM stated s JOIN groups g ON g.qid = s.qid AND g.jg = s.jg WHERE NOT g.ec
    ), closed(qid, jg, better, worse) AS (
        SELECT qid, jg, better, worse FROM partial
        UNION
        SELECT c.qid, c.jg, c.better, s.worse
        FROM closed c JOIN partial s ON c.qid = s.qid AND c.jg = s.jg AND c.worse = s.better
    ), pairs AS (
        SELECT s.qid, s.jg, s.better, s.worse
        FROM stated s JOIN groups g ON g.qid = s.qid AND g.jg = s.jg WHERE g.ec
        UNION ALL
        SELECT qid, jg, better, worse FROM closed
        WHERE CASE WHEN better = worse
                   THEN error('rf_prefs: query ' || qid || ', judgment group ' || jg || ': document '
                              || better || ' is preferred to itself through other documents')
                   ELSE true END
    ), wp AS (
        SELECT x.qid, x.jg, x.better, x.worse, a.pos AS pa, a.ret AS ra, b.pos AS pb, b.ret AS rb
        FROM pairs x JOIN pos a ON a.qid = x.qid AND a.docid = x.better
                     JOIN pos b ON b.qid = x.qid AND b.docid = x.worse
    ), docs AS (
        SELECT d.qid, d.jg, d.docid, d.level, ps.pos, ps.ret
        FROM (SELECT qid, jg, docid, max(level) AS level FROM pq GROUP BY qid, jg, docid) d
        JOIN pos ps ON ps.qid = d.qid AND ps.docid = d.docid
    ), counted AS (
        SELECT qid, jg,
               count(*) FILTER (WHERE ra AND rb AND pa < pb) AS ful_ret,
               count(*) FILTER (WHERE ra AND rb) AS poss_ret,
               count(*) FILTER (WHERE ra AND NOT rb) AS ful_imp,
               count(*) FILTER (WHERE ra <> rb) AS poss_imp,
               count(*) FILTER (WHERE NOT ra AND NOT rb) AS notoccur
        FROM wp GROUP BY qid, jg
    ), kinds AS (
        SELECT qid, jg,
               count(*) FILTER (WHERE level > 0) AS rel,
               count(*) FILTER (WHERE level <= 0) AS nonrel,
               count(*) FILTER (WHERE level > 0 AND ret) AS rel_ret,
               count(*) FILTER (WHERE level <= 0 AND ret) AS nonrel_ret,
               min(level) AS lowest
        FROM docs GROUP BY qid, jg
    ), g AS (
        SELECT g.qid, g.jg, g.ec, k.rel, k.nonrel, k.rel_ret, k.nonrel_ret, k.lowest,
               coalesce(c.ful_ret, 0) AS ful_ret, coalesce(c.poss_ret, 0) AS poss_ret,
               coalesce(c.ful_imp, 0) AS ful_imp, coalesce(c.poss_imp, 0) AS poss_imp,
               coalesce(c.notoccur, 0) AS notoccur
        FROM groups g JOIN kinds k ON k.qid = g.qid AND k.jg = g.jg
        LEFT JOIN counted c ON c.qid = g.qid AND c.jg = g.jg
    ), need AS (  -- groups recounted by prefs_avgjg_Rnonrel (only_ret: its _ret form)
        SELECT g.*, v.only_ret, CASE WHEN v.only_ret THEN g.rel_ret ELSE g.rel END AS big_r
        FROM g, (VALUES (false), (true)) v(only_ret)
        WHERE CASE WHEN v.only_ret THEN g.rel_ret < g.nonrel_ret ELSE g.rel < g.nonrel END
    ), rdocs AS (
        SELECT d.qid, d.jg, d.docid, d.level, d.pos, d.ret, n.only_ret, n.ec, n.big_r, n.rel,
               n.lowest
        FROM docs d JOIN need n ON n.qid = d.qid AND n.jg = d.jg
        WHERE NOT n.only_ret OR d.ret
    ), last AS (  -- one sub-group: the first R documents of the lowest level
        SELECT qid, jg, only_ret, pos FROM (
            SELECT *, row_number() OVER (PARTITION BY qid, jg, only_ret ORDER BY pos) - 1 AS i
            FROM rdocs WHERE ec AND level = lowest)
        WHERE i < big_r
    ), dropped AS (  -- several sub-groups: the non-relevant documents after the first R
        SELECT qid, jg, only_ret, docid FROM (
            SELECT *, row_number() OVER (PARTITION BY qid, jg, only_ret ORDER BY pos) - 1 AS i
            FROM rdocs WHERE NOT ec AND level = 0)
        WHERE i >= rel
    ), rpairs AS (
        SELECT w.*, n.only_ret, n.ec, n.lowest
        FROM wp w JOIN need n ON n.qid = w.qid AND n.jg = w.jg
        WHERE NOT n.only_ret OR (w.ra AND w.rb)
    ), recount AS (
        SELECT x.qid, x.jg, x.only_ret, x.pa, x.pb, x.ra
        FROM rpairs x JOIN rdocs d ON d.qid = x.qid AND d.jg = x.jg AND d.only_ret = x.only_ret
                                     AND d.docid = x.worse
        WHERE x.ec AND d.level > x.lowest
        UNION ALL
        SELECT a.qid, a.jg, a.only_ret, a.pos, l.pos, a.ret
        FROM rdocs a JOIN last l ON l.qid = a.qid AND l.jg = a.jg AND l.only_ret = a.only_ret
        WHERE a.ec
        UNION ALL
        SELECT x.qid, x.jg, x.only_ret, x.pa, x.pb, x.ra
        FROM rpairs x
        WHERE NOT x.ec AND NOT EXISTS (
            SELECT 1 FROM dropped o
            WHERE o.qid = x.qid AND o.jg = x.jg AND o.only_ret = x.only_ret
              AND (o.docid = x.better OR o.docid = x.worse))
    ), rc AS (
        SELECT qid, jg, only_ret, count(*) FILTER (WHERE ra AND pa < pb) AS r_ful, count(*) AS r_poss
        FROM recount GROUP BY qid, jg, only_ret
    ), jgv AS (
        SELECT g.*,
               ful_ret + ful_imp AS ful_all, poss_ret + poss_imp AS poss_imp2,
               poss_ret + poss_imp + notoccur AS poss_all,
               CASE WHEN rel >= nonrel THEN ful_ret + ful_imp + rel_ret * (rel - nonrel)
                    ELSE coalesce(a.r_ful, 0) END AS rn_ful,
               CASE WHEN rel >= nonrel THEN poss_ret + poss_imp + notoccur + rel * (rel - nonrel)
                    ELSE coalesce(a.r_poss, 0) END AS rn_poss,
               CASE WHEN rel_ret >= nonrel_ret THEN ful_ret + rel_ret * (rel_ret - nonrel_ret)
                    ELSE coalesce(b.r_ful, 0) END AS rnr_ful,
               CASE WHEN rel_ret >= nonrel_ret THEN poss_ret + rel * (rel_ret - nonrel_ret)
                    ELSE coalesce(b.r_poss, 0) END AS rnr_poss
        FROM g LEFT JOIN rc a ON a.qid = g.qid AND a.jg = g.jg AND NOT a.only_ret
               LEFT JOIN rc b ON b.qid = g.qid AND b.jg = g.jg AND b.only_ret
    ), perq AS (
        SELECT qid, count(*) AS n_jg,
               sum(poss_all) AS poss_all, sum(ful_all) AS ful_all, sum(ful_ret) AS ful_ret,
               sum(poss_ret) AS poss_ret, sum(poss_imp2) AS poss_imp,
               list_reduce(list_prepend(0.0, list(CASE WHEN poss_all > 0 THEN ful_all::DOUBLE / poss_all ELSE 0.0 END
                                                  ORDER BY jg::BLOB)), lambda a, b: a + b) AS s_avgjg,
               list_reduce(list_prepend(0.0, list(CASE WHEN poss_ret > 0 THEN ful_ret::DOUBLE / poss_ret ELSE 0.0 END
                                                  ORDER BY jg::BLOB)), lambda a, b: a + b) AS s_ret,
               list_reduce(list_prepend(0.0, list(CASE WHEN poss_imp2 > 0 THEN ful_all::DOUBLE / poss_imp2 ELSE 0.0 END
                                                  ORDER BY jg::BLOB)), lambda a, b: a + b) AS s_imp,
               bool_or(rn_poss = 0) AS rn_nan,
               list_reduce(list_prepend(0.0, list(CASE WHEN rn_poss > 0 THEN rn_ful::DOUBLE / rn_poss ELSE 0.0 END
                                                  ORDER BY jg::BLOB)), lambda a, b: a + b) AS s_rn,
               bool_or(rnr_poss = 0) AS rnr_nan,
               list_reduce(list_prepend(0.0, list(CASE WHEN rnr_poss > 0 THEN rnr_ful::DOUBLE / rnr_poss ELSE 0.0 END
                                                  ORDER BY jg::BLOB)), lambda a, b: a + b) AS s_rnr
        FROM jgv GROUP BY qid
    ), pp AS (  -- document pairs preferred either way by some group
        SELECT qid, least(pa, pb) AS lo, greatest(pa, pb) AS hi,
               count(*) FILTER (WHERE pa < pb) AS up, count(*) FILTER (WHERE pa > pb) AS down,
               any_value(ra::INTEGER + rb::INTEGER) AS kind
        FROM wp GROUP BY qid, least(pa, pb), greatest(pa, pb)
    ), pv AS (
        SELECT qid, count(*) AS n_all,
               count(*) FILTER (WHERE kind > 0) AS n_imp, count(*) FILTER (WHERE kind = 2) AS n_ret,
               list_reduce(list_prepend(0.0, coalesce(list(up::DOUBLE / (up + down) ORDER BY 2 - kind, lo, hi)
                                                      FILTER (WHERE kind > 0), []::DOUBLE[])),
                           lambda a, b: a + b) AS s_imp,
               list_reduce(list_prepend(0.0, coalesce(list(up::DOUBLE / (up + down) ORDER BY lo, hi)
                                                      FILTER (WHERE kind = 2), []::DOUBLE[])),
                           lambda a, b: a + b) AS s_ret
        FROM pp GROUP BY qid
    )
    SELECT q.qid,
           perq.poss_all::BIGINT AS prefs_num_prefs_poss,
           perq.ful_all::BIGINT AS prefs_num_prefs_ful,
           perq.ful_ret::BIGINT AS prefs_num_prefs_ful_ret,
           CASE WHEN perq.poss_all > 0 THEN perq.ful_all::DOUBLE / perq.poss_all ELSE 0.0 END AS prefs_simp,
           CASE WHEN pv.n_all > 0 THEN pv.s_imp / pv.n_all ELSE 0.0 END AS prefs_pair,
           CASE WHEN perq.s_avgjg > 0 THEN perq.s_avgjg / perq.n_jg ELSE 0.0 END AS prefs_avgjg,
           CASE WHEN NOT perq.rn_nan AND perq.s_rn > 0 THEN perq.s_rn / perq.n_jg ELSE 0.0 END
               AS prefs_avgjg_Rnonrel,
           CASE WHEN perq.poss_ret > 0 THEN perq.ful_ret::DOUBLE / perq.poss_ret ELSE 0.0 END AS prefs_simp_ret,
           CASE WHEN pv.n_ret > 0 THEN pv.s_ret / pv.n_ret ELSE 0.0 END AS prefs_pair_ret,
           CASE WHEN perq.s_ret > 0 THEN perq.s_ret / perq.n_jg ELSE 0.0 END AS prefs_avgjg_ret,
           CASE WHEN NOT perq.rnr_nan AND perq.s_rnr > 0 THEN perq.s_rnr / perq.n_jg ELSE 0.0 END
               AS prefs_avgjg_Rnonrel_ret,
           CASE WHEN perq.poss_imp > 0 THEN perq.ful_all::DOUBLE / perq.poss_imp ELSE 0.0 END AS prefs_simp_imp,
           CASE WHEN pv.n_imp > 0 THEN pv.s_imp / pv.n_imp ELSE 0.0 END AS prefs_pair_imp,
           CASE WHEN perq.s_imp > 0 THEN perq.s_imp / perq.n_jg ELSE 0.0 END AS prefs_avgjg_imp
    FROM queries q JOIN perq ON perq.qid = q.qid LEFT JOIN pv ON pv.qid = q.qid
    ORDER BY q.qid::BLOB;

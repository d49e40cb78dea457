-- rf_judge_groups(run, qrels_jg, depth := NULL) -> TABLE (qid, jg, docid, rank BIGINT, rel, score)
--   Contract: docs/semantics.md#judgment-groups.
--   The judged table of judgment groups from two tables named by string: run(qid, docid,
--   score) and qrels_jg(qid, jg, docid, rel) (rf_read_qrels_jg). For each query of the
--   qrels and each of its groups jg: the run's ranking of the query (rf_judge's rule: score
--   descending, ties by docid descending as bytes; depth keeps the top ranks, trec_eval -M)
--   fully outer joined with that group's judgments on docid. Run queries absent from the
--   qrels are dropped; a query without results keeps its judged rows (rank NULL).
--   Checks (the query fails, naming the first problem): a NULL qid, docid or score in the
--   run or NaN score, a NULL qid, jg, docid or rel in the qrels, a (qid, docid) pair twice
--   in the run, a (qid, jg, docid) triple twice in the qrels.
--   Order: by qid, jg, then the retrieved rows by rank, then the unretrieved by docid.
--   Use: SELECT qid, jg, rf_average_precision(rel, rank) AS map
--        FROM rf_judge_groups('run', 'qrels_jg') GROUP BY qid, jg;
--   Example (docs/semantics.md#judgment-groups: group u judged b, group v judged a and c):
--     CREATE TEMP TABLE example_run AS SELECT * FROM (VALUES ('1', 'a', 2.0),
--         ('1', 'b', 1.0), ('9', 'a', 1.0)) t(qid, docid, score);
--     CREATE TEMP TABLE example_jg AS SELECT * FROM (VALUES ('1', 'u', 'b', 1),
--         ('1', 'v', 'a', 1), ('1', 'v', 'c', 1)) t(qid, jg, docid, rel);
--     SELECT qid, jg, docid, rank, rel FROM rf_judge_groups('example_run', 'example_jg');
--     => 1, u, a, 1, NULL
--     => 1, u, b, 2, 1
--     => 1, v, a, 1, 1
--     => 1, v, b, 2, NULL
--     => 1, v, c, NULL, 1
CREATE OR REPLACE TEMP MACRO rf_judge_groups(run, qrels_jg, depth := NULL) AS TABLE
    WITH
    r AS (SELECT qid, docid, score + 0 AS score FROM query_table(run)),
    q AS (SELECT qid, jg, docid, rel FROM query_table(qrels_jg)),
    problems AS (
        SELECT 'a NULL qid, docid or score in the run, or a NaN score' AS problem
        FROM r WHERE qid IS NULL OR docid IS NULL OR score IS NULL OR isnan(score)
        UNION ALL
        SELECT 'a NULL qid, jg, docid or rel in the judgment-group qrels'
        FROM q WHERE qid IS NULL OR jg IS NULL OR docid IS NULL OR rel IS NULL
        UNION ALL
        SELECT 'duplicate (qid, docid) in the run: query ''' || qid::VARCHAR
               || ''', document ''' || docid::VARCHAR || ''''
        FROM r GROUP BY qid, docid HAVING count(*) > 1
        UNION ALL
        SELECT 'duplicate (qid, jg, docid) in the judgment-group qrels: query '''
               || qid::VARCHAR || ''', group ''' || jg::VARCHAR || ''', document '''
               || docid::VARCHAR || ''''
        FROM q GROUP BY qid, jg, docid HAVING count(*) > 1
    ),
    failure AS (
        SELECT CASE WHEN min(problem) IS NULL THEN true
                    ELSE error('rf_judge_groups: ' || min(problem)) END AS ok
        FROM problems
    ),
    groups AS (SELECT DISTINCT qid, jg FROM q),
    ranked AS (
        SELECT qid, docid, score, rf__score_rank(qid, score, docid) AS rank
        FROM r
        WHERE qid IN (SELECT qid FROM q)
    ),
    cut AS (
        SELECT groups.jg, ranked.* FROM ranked JOIN groups USING (qid)
        WHERE rf__within_depth('rf_judge_groups', rank, depth)
    )
    SELECT qid, jg, docid, cut.rank::BIGINT AS rank, q.rel, cut.score
    FROM cut FULL OUTER JOIN q USING (qid, jg, docid)
    WHERE (SELECT ok FROM failure)
    ORDER BY qid, jg, rank IS NULL, rank, docid;

-- rf_judge(run, qrels, depth := NULL, judged_only := false)
--   -> TABLE (qid, docid, rank BIGINT, rel, score)
--   Contract: docs/semantics.md#from-a-run-and-qrels-to-the-judged-table.
--   The judged long table (docs/semantics.md#from-a-run-and-qrels-to-the-judged-table)
--   from two tables named by string:
--   run(qid, docid, score) and qrels(qid, docid, rel); other columns are ignored.
--   rank = position by score descending (compared in the score column's own type: integers
--   are never cast to DOUBLE), ties broken by docid descending as text in byte
--   order (trec_eval's rule: integer ids compare as their decimal strings, so 9 beats 10;
--   compared as BLOBs, so a default_collation setting cannot change the order).
--   Full outer join on (qid, docid): run-only rows get rel NULL, qrels-only rows rank NULL.
--   qrels queries without results are kept; run queries absent from the qrels are
--   dropped. depth keeps the top `depth` ranks of each query before the join (trec_eval -M).
--   judged_only (trec_eval -J): after the depth cut, each query's ranking keeps only its
--   documents graded >= 0, ranked 1, 2, ... in the same order; retrieved documents
--   without qrels are dropped, those with a negative grade become unretrieved (rank NULL).
--   Checks (rankframe.judge's, in its order; the first problem is named, the smallest
--   (qid, docid) where several rows have it): a NULL qid, docid or score in the run, a NaN
--   score; a NULL qid, docid or rel in the qrels, a NaN rel; a (qid, docid) pair twice in
--   the qrels, then in the run. Order: the retrieved rows by qid, rank, then the
--   judged-but-unretrieved rows by qid, docid (rankframe.judge's order). Ids are matched
--   with the connection's collation (the default, binary, is assumed: under
--   default_collation = 'nocase', 'D1' and 'd1' would be one document for the join and the
--   duplicate check).
--   Use: SELECT qid, rf_ndcg(rel, rank, 10) FROM rf_judge('run', 'qrels') GROUP BY qid;
--   Example (docs/semantics.md#worked-examples: d9 ranks above d10 on the tied score 2.0):
--     WITH run(qid, docid, score) AS (VALUES ('q1', 'd7', 3.0), ('q1', 'd9', 2.0),
--              ('q1', 'd10', 2.0), ('q1', 'd3', 1.0), ('q3', 'd1', 1.0)),
--          qrels(qid, docid, rel) AS (VALUES ('q1', 'd10', 1), ('q1', 'd3', 1), ('q1', 'd5', 2),
--              ('q2', 'd1', 1))
--     SELECT qid, docid, rank, rel FROM rf_judge('run', 'qrels');
--     => q1, d7, 1, NULL
--     => q1, d9, 2, NULL
--     => q1, d10, 3, 1
--     => q1, d3, 4, 1
--     => q1, d5, NULL, 2
--     => q2, d1, NULL, 1
--     WITH run(qid, docid, score) AS (VALUES ('q1', 'd7', 3.0), ('q1', 'd9', 2.0),
--              ('q1', 'd10', 2.0), ('q1', 'd3', 1.0)),
--          qrels(qid, docid, rel) AS (VALUES ('q1', 'd10', 1), ('q1', 'd3', 1), ('q1', 'd5', 2),
--              ('q2', 'd1', 1))
--     SELECT qid, docid, rank, rel FROM rf_judge('run', 'qrels', judged_only := true);
--     => q1, d10, 1, 1
--     => q1, d3, 2, 1
--     => q1, d5, NULL, 2
--     => q2, d1, NULL, 1
CREATE OR REPLACE TEMP MACRO rf_judge(run, qrels, depth := NULL, judged_only := false) AS TABLE
    WITH
    r AS (
        -- Scores keep their own type, so integers beyond 2^53 compare exactly (as in
        -- judge); + 0 turns a float -0.0 into 0.0: the two are equal scores and tie as such.
        SELECT qid, docid, score + 0 AS score FROM query_table(run)
    ),
    q AS (
        SELECT qid, docid, rel FROM query_table(qrels)
    ),
    -- One pass per side finds its first NULL or NaN: the step (judge's order of checks),
    -- then the smallest (qid, docid) having it.
    bad_run AS (
        SELECT min({'step': CASE WHEN qid IS NULL THEN 1 WHEN docid IS NULL THEN 2
                                 WHEN score IS NULL THEN 3 ELSE 4 END,
                    'qid': qid, 'docid': docid}) AS first
        FROM r WHERE qid IS NULL OR docid IS NULL OR score IS NULL OR isnan(score)
    ),
    bad_qrels AS (
        SELECT min({'step': CASE WHEN qid IS NULL THEN 5 WHEN docid IS NULL THEN 6
                                 WHEN rel IS NULL THEN 7 ELSE 8 END,
                    'qid': qid, 'docid': docid}) AS first
        FROM q WHERE qid IS NULL OR docid IS NULL OR rel IS NULL OR isnan(rel::DOUBLE)
    ),
    duplicate AS (
        SELECT min({'step': 9, 'qid': qid, 'docid': docid}) AS first FROM (
            SELECT qid, docid FROM q GROUP BY qid, docid HAVING count(*) > 1)
        UNION ALL
        SELECT min({'step': 10, 'qid': qid, 'docid': docid}) AS first FROM (
            SELECT qid, docid FROM r GROUP BY qid, docid HAVING count(*) > 1)
    ),
    -- The first problem, and its message (judge's text, less the row numbers): computed on
    -- the one aggregated row, so the pair named is the smallest.
    first_problem AS (
        SELECT min(first) AS p FROM (
            SELECT first FROM bad_run UNION ALL SELECT first FROM bad_qrels
            UNION ALL SELECT first FROM duplicate)
    ),
    failure AS (
        SELECT CASE WHEN p IS NULL THEN true ELSE error('rf_judge: ' || CASE
            WHEN p.step >= 9
                THEN 'duplicate (qid, docid) in the ' || CASE WHEN p.step = 9 THEN 'qrels' ELSE 'run' END
                     || ': query ''' || p.qid::VARCHAR || ''', document ''' || p.docid::VARCHAR
                     || '''; each pair may appear only once'
            ELSE 'column ''' || ['qid', 'docid', 'score', 'score', 'qid', 'docid', 'rel', 'rel'][p.step]
                 || ''' of the ' || CASE WHEN p.step <= 4 THEN 'run' ELSE 'qrels' END || ' is '
                 || CASE WHEN p.step IN (4, 8) THEN 'NaN' ELSE 'NULL' END
                 || ' (query ' || coalesce('''' || p.qid::VARCHAR || '''', 'NULL')
                 || ', docid ' || coalesce('''' || p.docid::VARCHAR || '''', 'NULL') || ')'
            END) END AS ok
        FROM first_problem
    ),
    ranked AS (
        SELECT qid, docid, score, rf__score_rank(qid, score, docid) AS rank
        FROM r
        WHERE qid IN (SELECT qid FROM q)
    ),
    cut AS (
        SELECT * FROM ranked
        WHERE rf__within_depth('rf_judge', rank, depth)
    ),
    joined AS (
        SELECT qid, docid, cut.rank::BIGINT AS rank, q.rel, cut.score
        FROM cut FULL OUTER JOIN q USING (qid, docid)
        WHERE (SELECT ok FROM failure)
    ),
    -- judged_only: unjudged results dropped, negative grades unretrieved, ranks renumbered.
    judged AS (
        SELECT qid, docid, CASE WHEN rel >= 0 THEN rank END AS kept, rel,
               CASE WHEN rel >= 0 THEN score END AS score
        FROM joined
        WHERE judged_only AND (rank IS NULL OR rel IS NOT NULL)
    )
    SELECT * FROM (
        SELECT * FROM joined WHERE NOT judged_only
        UNION ALL
        SELECT qid, docid,
               CASE WHEN kept IS NOT NULL
                    THEN row_number() OVER (PARTITION BY qid, kept IS NULL ORDER BY kept) END
                   ::BIGINT AS rank,
               rel, score
        FROM judged
    )
    ORDER BY rank IS NULL, qid, rank, docid;

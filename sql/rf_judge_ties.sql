-- rf_judge_ties(run, qrels, depth := NULL, judged_only := false)
--   -> TABLE (qid, docid, rank BIGINT, rel, score, tie_first BIGINT, tie_size BIGINT)
--   Contract: docs/semantics.md#tie-aware-metrics.
--   rf_judge's table (same checks, rows and order) plus the tie groups the *_ties macros
--   read, as rankframe.judge(..., ties="average") adds them: for a retrieved row,
--   tie_first is the first rank of the rows of its query sharing its score and tie_size
--   how many they are (after the depth cut, and judged_only's, as for rf_judge); both are
--   NULL for unretrieved rows.
--   Use: SELECT qid, rf_ndcg_ties(rel, tie_first, tie_size, 10)
--        FROM rf_judge_ties('run', 'qrels') GROUP BY qid;
--   Example (d9 and d10 tie on 2.0 at ranks 2 and 3):
--     WITH run(qid, docid, score) AS (VALUES ('q1', 'd7', 3.0), ('q1', 'd9', 2.0),
--              ('q1', 'd10', 2.0), ('q1', 'd3', 1.0)),
--          qrels(qid, docid, rel) AS (VALUES ('q1', 'd10', 1), ('q1', 'd5', 2))
--     SELECT docid, rank, tie_first, tie_size FROM rf_judge_ties('run', 'qrels');
--     => d7, 1, 1, 1
--     => d9, 2, 2, 2
--     => d10, 3, 2, 2
--     => d3, 4, 4, 1
--     => d5, NULL, NULL, NULL
CREATE OR REPLACE TEMP MACRO rf_judge_ties(run, qrels, depth := NULL, judged_only := false) AS TABLE
    SELECT *,
           CASE WHEN rank IS NOT NULL
                THEN min(rank) OVER (PARTITION BY qid, rank IS NULL, score) END AS tie_first,
           CASE WHEN rank IS NOT NULL
                THEN count(rank) OVER (PARTITION BY qid, rank IS NULL, score) END AS tie_size
    FROM rf_judge(run, qrels, depth := depth, judged_only := judged_only)
    ORDER BY rank IS NULL, qid, rank, docid;

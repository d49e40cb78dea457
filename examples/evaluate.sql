-- Evaluate the example run with rankframe's DuckDB macros; prints the same means as
-- examples/evaluate_polars.py. From the repository root, with the DuckDB CLI:
--
--   cat sql/_helpers.sql sql/rf_*.sql > rankframe.sql      # every macro, in load order
--   duckdb -init rankframe.sql -c ".read examples/evaluate.sql"
--
-- (From Python: rankframe.duckdb.register(con); con.execute(open(...).read()).)
CREATE OR REPLACE TEMP TABLE run AS FROM rf_read_run('examples/data/run.bm25.txt');
CREATE OR REPLACE TEMP TABLE qrels AS FROM rf_read_qrels('examples/data/qrels.txt');

WITH per_query AS (
    SELECT qid,
           rf_ndcg(rel, rank, 10)                 AS "ndcg@10",
           rf_average_precision(rel, rank, NULL)  AS "map",
           rf_reciprocal_rank(rel, rank, NULL)    AS mrr,
           rf_precision(rel, rank, 10)            AS "P@10",
           rf_recall(rel, rank, 100)              AS "recall@100"
    FROM rf_judge('run', 'qrels')
    GROUP BY qid
)
SELECT count(*) AS queries,
       round(avg("ndcg@10"), 4)          AS "ndcg@10",
       round(avg("map"), 4)              AS "map",
       round(avg(mrr), 4)                AS mrr,
       round(avg("P@10"), 4)             AS "P@10",
       round(avg("recall@100"), 4)       AS "recall@100"
FROM per_query;

-- rf_read_qrels_jg(path) -> TABLE (qid VARCHAR, jg VARCHAR, docid VARCHAR, rel BIGINT)
--   Contract: docs/semantics.md#judgment-groups.
--   Reads trec_eval's judgment-group qrels (qid jg docid rel; trec_eval -R qrels_jg): one
--   row per line, file order. Accepted as by rf_read_qrels: runs of spaces/tabs between
--   fields, LF, CRLF or CR line endings, blank lines and lines whose first field starts with
--   '#' (skipped), gzip when the file name ends in .gz.
--   Checked (the query fails, quoting the line): exactly 4 fields, integer grade.
--   Not checked (rankframe.io.read_qrels_jg does): a (qid, jg, docid) triple twice, line
--   numbers in errors. An empty file gives an empty table.
--   Use: SELECT * FROM rf_judge_groups('run', 'qrels_jg') with
--        CREATE TABLE qrels_jg AS SELECT * FROM rf_read_qrels_jg('qrels.jg');
--   Examples (paths relative to the repository root):
--     SELECT * FROM rf_read_qrels_jg('tests/data/trec_eval/qrels.comments.123.gz') LIMIT 1;
--     => 301, 0, CR93E-10279, 0
--     SELECT count(*), count(DISTINCT qid), count(DISTINCT (qid, jg))
--     FROM rf_read_qrels_jg('tests/data/trec_eval/qrels.comments.123.gz');
--     => 10362, 3, 9
CREATE OR REPLACE TEMP MACRO rf_read_qrels_jg(path) AS TABLE
    SELECT f[1] AS qid, f[2] AS jg, f[3] AS docid, rel
    FROM rf__graded_lines(path, 'rf_read_qrels_jg', 'qid jg docid rel');

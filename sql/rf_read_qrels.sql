-- rf_read_qrels(path) -> TABLE (qid VARCHAR, docid VARCHAR, rel BIGINT)
--   Contract: docs/semantics.md#input-checks.
--   Reads a TREC qrels file (qid iter docid rel): one row per line, file order; iter is
--   dropped. Accepted: fields separated by any run of spaces/tabs, LF, CRLF or CR line endings,
--   blank lines and lines whose first field starts with '#' (skipped), gzip when the file
--   name ends in .gz (DuckDB picks the codec from the extension, not from the content).
--   rel is [+-]digits as in rankframe.io.read_qrels ('1.5', 'x' are rejected); negative
--   grades are kept (pooled but unjudged).
--   Checked (the query fails, quoting the line): exactly 4 fields, integer grade.
--   Not checked (rankframe.io.read_qrels does): duplicate (qid, docid) pairs, binary or
--   non-UTF-8 content beyond what DuckDB's CSV reader rejects, line numbers in errors.
--   An empty file gives an empty table (rankframe.io.read_qrels raises).
--   Examples (paths relative to the repository root):
--     SELECT * FROM rf_read_qrels('examples/data/qrels.txt') LIMIT 1;
--     => 301, DOC-02157, 0
--     SELECT count(*), count(DISTINCT qid) FROM rf_read_qrels('examples/data/qrels.txt');
--     => 880, 40
CREATE OR REPLACE TEMP MACRO rf_read_qrels(path) AS TABLE
    SELECT f[1] AS qid, f[3] AS docid, rel
    FROM rf__graded_lines(path, 'rf_read_qrels', 'qid iter docid rel');

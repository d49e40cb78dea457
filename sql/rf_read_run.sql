-- rf_read_run(path) -> TABLE (qid VARCHAR, docid VARCHAR, rank BIGINT, score DOUBLE, tag VARCHAR)
--   Contract: docs/semantics.md#input-checks.
--   Reads a TREC run file (qid Q0 docid rank score tag): one row per line, file order.
--   Accepted: fields separated by any run of spaces/tabs, LF, CRLF or CR line endings, blank
--   lines and lines whose first field starts with '#' (skipped), gzip when the file name
--   ends in .gz (DuckDB picks the codec from the extension, not from the content).
--   Numbers follow rankframe.io.read_run: score is decimal or exponent notation and finite
--   ('nan', 'inf', '0x10' are rejected); rank is the field read as [+-]digits, NULL when it
--   is anything else ('1.0', '-'), since trec_eval ignores that field.
--   Fields after the sixth are ignored, as trec_eval ignores them.
--   Checked (the query fails, quoting the line): at least 6 fields, finite score. Not checked (rankframe.io.read_run does): duplicate (qid, docid) pairs, binary
--   or non-UTF-8 content beyond what DuckDB's CSV reader rejects, line numbers in errors.
--   rank is the file's own field; rf_judge ranks by score and never reads it.
--   An empty file gives an empty table (rankframe.io.read_run raises).
--   Examples (paths relative to the repository root):
--     SELECT * FROM rf_read_run('examples/data/run.bm25.txt') LIMIT 1;
--     => 301, DOC-00715, 1, 4.6, bm25
--     SELECT count(*), count(DISTINCT qid) FROM rf_read_run('examples/data/run.bm25.txt');
--     => 3900, 39
CREATE OR REPLACE TEMP MACRO rf_read_run(path) AS TABLE
    WITH lines AS (
        SELECT * FROM rf__lines(path)
    ), fields AS (
        SELECT line,
               CASE WHEN len(f) >= 6 THEN f
                    ELSE error('rf_read_run: expected at least 6 fields (qid Q0 docid rank score tag), '
                               || 'found ' || len(f)::VARCHAR || ' in line: ' || line)
               END AS f
        FROM lines
        WHERE len(f) > 0 AND NOT starts_with(f[1], '#')
    ), parsed AS (
        SELECT line, f,
               rf__integer(f[4]) AS rank,
               rf__number(f[5]) AS score
        FROM fields
    )
    SELECT
        f[1] AS qid,
        f[3] AS docid,
        rank,
        CASE WHEN score IS NULL OR NOT isfinite(score)
                 THEN error('rf_read_run: score ''' || f[5]
                            || ''' is not a finite number in line: ' || line)
             ELSE score
        END AS score,
        f[6] AS tag
    FROM parsed;

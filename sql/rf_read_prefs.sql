-- rf_read_prefs(path) -> TABLE (qid, jg, jsg, docid VARCHAR, level DOUBLE)
--   Contract: docs/semantics.md#preferences.
--   Reads a trec_eval prefs file (qid jg jsg docid level; trec_eval -R prefs): one row per
--   line, file order. Accepted: fields separated by runs of spaces/tabs, LF, CRLF or CR line
--   endings, blank lines, comment lines ('#' in the first column, as trec_eval 10 reads
--   them), gzip when the name ends in .gz. level: a decimal number as in
--   rankframe.io.read_prefs, >= 0.
--   Checked (the query fails, quoting the line): exactly 5 fields, a number, not negative.
--   Not checked (rankframe.io.read_prefs does): a document twice in one sub-group, a
--   document at level 0 and above 0 in one judgment group, line numbers in errors.
--   Examples (paths relative to the repository root):
--     SELECT count(*), count(DISTINCT qid) FROM rf_read_prefs('tests/data/trec_eval/prefs.test');
--     => 164, 24
--     SELECT jg, jsg, docid, level FROM rf_read_prefs('tests/data/trec_eval/prefs.test') LIMIT 1;
--     => F:Ret,C:Not, F:RnkdLst2digits, FR940303-1-00022, 1.0
CREATE OR REPLACE TEMP MACRO rf_read_prefs(path) AS TABLE
    WITH lines AS (
        SELECT * FROM rf__lines(path) WHERE NOT starts_with(line, '#')
    ), fields AS (
        SELECT line,
               rf__n_fields('rf_read_prefs', f, 5, 'qid jg jsg docid level', line) AS f
        FROM lines
        WHERE len(f) > 0
    ), parsed AS (
        SELECT line, f,
               rf__number(f[5]) AS level
        FROM fields
    )
    SELECT f[1] AS qid, f[2] AS jg, f[3] AS jsg, f[4] AS docid,
           CASE WHEN level IS NULL OR isinf(level)
                    THEN error('rf_read_prefs: level ''' || f[5] || ''' is not a finite number in line: ' || line)
                WHEN level < 0
                    THEN error('rf_read_prefs: level ''' || f[5] || ''' is negative in line: ' || line)
                ELSE level
           END AS level
    FROM parsed;

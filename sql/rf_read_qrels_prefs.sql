-- rf_read_qrels_prefs(path) -> TABLE (qid, jg, jsg, docid VARCHAR, level DOUBLE)
--   Contract: docs/semantics.md#preferences.
--   Reads a qrels file as trec_eval -R qrels_prefs does (qid iter docid rel): the iter
--   field is the judgment group jg, every line is in the sub-group jsg = '0'. One row per
--   line, file order; the layout rules of rf_read_prefs (comments: '#' in the first
--   column). level: a decimal number, negative grades kept.
--   Checked (the query fails, quoting the line): exactly 4 fields, a number.
--   Not checked (rankframe.io.read_qrels_prefs does): a (qid, iter, docid) twice, line
--   numbers in errors.
--   Example (path relative to the repository root):
--     SELECT qid, jg, jsg, docid, level FROM rf_read_qrels_prefs('tests/data/trec_eval/qrels.test') LIMIT 1;
--     => 301, 0, 0, CR93E-10279, 0.0
CREATE OR REPLACE TEMP MACRO rf_read_qrels_prefs(path) AS TABLE
    WITH lines AS (
        SELECT * FROM rf__lines(path) WHERE NOT starts_with(line, '#')
    ), fields AS (
        SELECT line,
               rf__n_fields('rf_read_qrels_prefs', f, 4, 'qid jg docid level', line) AS f
        FROM lines
        WHERE len(f) > 0
    ), parsed AS (
        SELECT line, f,
               rf__number(f[4]) AS level
        FROM fields
    )
    SELECT f[1] AS qid, f[2] AS jg, '0' AS jsg, f[3] AS docid,
           CASE WHEN level IS NULL OR isinf(level)
                    THEN error('rf_read_qrels_prefs: level ''' || f[4] || ''' is not a finite number in line: ' || line)
                ELSE level
           END AS level
    FROM parsed;

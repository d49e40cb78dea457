"""What the test modules share: generated tables (:mod:`.strategies`), running measures
through the faces (:mod:`.faces`), TREC files (:mod:`.trec_data`), the trec_eval binary
(:mod:`.trec_eval`), a PostgreSQL server (:mod:`.postgres`), what a test needs beyond the
core dependencies (:mod:`.needs`), documentation snippets (:mod:`.snippets`), the example
notebook run in a kernel (:mod:`.notebook`)."""

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
DATA = TESTS / "data"
SQL_DIR = REPO / "sql"

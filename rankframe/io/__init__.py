"""Readers of the files rankframe evaluates: TREC runs and qrels, judgment-group qrels and
trec_eval's z-score files."""

from rankframe.io.groups import read_qrels_jg
from rankframe.io.trec import read_qrels, read_run
from rankframe.io.zscores import read_zscores

__all__ = ["read_qrels", "read_qrels_jg", "read_run", "read_zscores"]

"""Readers of the files rankframe evaluates: TREC runs and qrels, trec_eval's prefs,
judgment-group qrels and z-score files."""

from rankframe.io.groups import read_qrels_jg
from rankframe.io.prefs import read_prefs, read_qrels_prefs
from rankframe.io.trec import read_qrels, read_run
from rankframe.io.zscores import read_zscores

__all__ = ["read_prefs", "read_qrels", "read_qrels_jg", "read_qrels_prefs", "read_run",
           "read_zscores"]

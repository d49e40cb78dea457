"""Readers of the files rankframe evaluates: TREC runs and qrels, trec_eval's prefs."""

from rankframe.io.prefs import read_prefs, read_qrels_prefs
from rankframe.io.trec import read_qrels, read_run

__all__ = ["read_prefs", "read_qrels", "read_qrels_prefs", "read_run"]

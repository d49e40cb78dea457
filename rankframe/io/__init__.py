"""Readers of the files rankframe evaluates: TREC runs and qrels."""

from rankframe.io.trec import read_qrels, read_run

__all__ = ["read_qrels", "read_run"]

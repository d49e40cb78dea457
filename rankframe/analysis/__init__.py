"""Analysis of per-query results: several runs evaluated into one table (:mod:`.runs`),
paired comparisons of systems (:mod:`.compare`), reports and plots."""

"""Analysis of per-query results: paired comparisons of systems, reports and plots."""

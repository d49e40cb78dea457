"""The judged long table: building it from a run and qrels (``judge``), checking it
(``checks``), tie groups (``ties``), and the linear-pass helpers they share."""

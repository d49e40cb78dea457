"""The judged long table: building it from a run and qrels (``judge``, on the one judge core
in ``blocks``), checking it (``checks``), tie groups (``ties``), and what they share: input
checks (``inputs``), pair keys (``keys``) and linear passes (``series``)."""

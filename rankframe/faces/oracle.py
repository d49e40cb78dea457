"""The oracle face: the reference functions (:mod:`rankframe.reference`), slow, obvious and
pure Python, run over Polars tables: evaluate by looping over the queries, judge by sorting
in Python. The tests hold every other face to it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from rankframe.faces.base import Face, JudgeOptions, PolarsNative, Role, result_dtypes
from rankframe.measures import Measure
from rankframe.reference import *  # noqa: F403  (the metric functions, by name)
from rankframe.reference import judged_rows, value


class OracleFace(PolarsNative):
    name = "oracle"
    role: Role = "oracle"

    def evaluate(self, judged: pl.DataFrame | pl.LazyFrame, measures: Sequence[Measure],
                 keys: Sequence[str], columns: Mapping[str, str], *,
                 connection: Any = None) -> pl.DataFrame:
        frame = judged.lazy().collect()
        out = []
        for key, group in frame.group_by(list(keys)):
            row = list(key)
            for m in measures:
                data = [group.get_column(columns[c]).to_list() for c in m.metric.columns]
                row.append(value(m.metric, list(zip(*data, strict=True)), m.values))
            out.append(row)
        schema = result_dtypes({k: frame.schema[k] for k in keys}, measures)
        table = pl.DataFrame(out, schema=list(schema), orient="row").cast(pl.Schema(schema))
        return table.sort(list(keys), nulls_last=False)

    def judge(self, run: pl.DataFrame, qrels: pl.DataFrame, options: JudgeOptions
              ) -> pl.DataFrame:
        o = options
        rows = judged_rows(run.select(o.query, o.doc, o.score).rows(),
                            qrels.select(o.query, o.doc, o.rel).rows(), o)
        scores = run.schema[o.score]  # floats become Float64; integers keep their dtype
        schema = {o.query: run.schema[o.query], o.doc: run.schema[o.doc], "rank": pl.Int64(),
                  o.rel: qrels.schema[o.rel],
                  o.score: pl.Float64() if scores.is_float() else scores}
        if o.ties == "average":
            schema |= {"tie_first": pl.Int64(), "tie_size": pl.Int64()}
        return pl.DataFrame(rows, schema=schema, orient="row")


FACE: Face = OracleFace()

"""The Ibis faces' judge: a run and qrels (Ibis tables of one backend) to the judged long
table, unexecuted, its inputs checked at once in their backend."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import ibis
import ibis.expr.datatypes as dt

from rankframe.errors import InputError
from rankframe.faces.base import JudgeOptions
from rankframe.faces.ibis import columns as cols
from rankframe.faces.ibis.columns import Table, Value
from rankframe.table import input_checks
from rankframe.table.input_checks import NAMED_PROBLEMS, TypeClass, TypeReader


@ibis.udf.scalar.builtin(name="convert_to")  # type: ignore[untyped-decorator]
def _pg_convert_to(text: str, encoding: str) -> bytes:  # type: ignore[empty-body]
    """PostgreSQL's own ``convert_to`` (the text's bytes): called in the engine, no UDF."""


def _text_bytes(text: Value, backend: str) -> Value:
    """An id as text, ordered by its bytes. DuckDB, SQLite, DataFusion and Polars compare
    strings byte by byte; PostgreSQL compares by collation, so its bytes are compared."""
    if backend == "postgres":
        return _pg_convert_to(text, "UTF8")
    return text


def _classify(dtype: Any) -> TypeClass:
    if dtype.is_string():
        return "text"
    if dtype.is_integer():
        return "integer"
    return "numeric" if dtype.is_numeric() else "other"


#: How the input checks read an Ibis data type.
IBIS_TYPES: TypeReader[Any] = TypeReader(classify=_classify, show=str,
                                         cast_hint=lambda name: "cast one of them")


def _schema(table: Table) -> dict[str, Any]:
    schema = table.schema()
    return dict(zip(schema.names, schema.types, strict=True))


def _id_type(fn: str, name: str, run: Table, qrels: Table) -> Any:
    a, b = run.schema()[name], qrels.schema()[name]
    if input_checks.id_class(fn, name, a, b, IBIS_TYPES) == "text":
        return dt.string
    return a if a == b else cols.I64


#: Backends (and SQL dialects) known to match quoted column names exactly. Every other
#: one may match them without regard to case (DuckDB and SQLite do; so do MySQL, BigQuery,
#: Trino ...): a table with two names that differ only in case cannot reach them there,
#: and an unbound table runs on Ibis's default backend, DuckDB.
CASE_EXACT = frozenset({"postgres", "datafusion", "polars"})


def case_distinct(fn: str, side: str, names: Iterable[str], backend: str | None) -> None:
    """Raise if two of the column ``names`` (of the ``side`` table) differ only in case and
    ``backend`` (an Ibis backend or SQL dialect; None: an unbound table) may not tell them
    apart."""
    if backend in CASE_EXACT:
        return
    seen: dict[str, str] = {}
    for name in names:
        twin = seen.setdefault(name.casefold(), name)
        if twin != name:
            where = (f"the Ibis {backend} backend" if backend is not None
                     else "Ibis's default backend (DuckDB), where an unbound table runs,")
            raise InputError(
                f"{fn}: columns {twin!r} and {name!r} of the {side} differ only in case, which "
                f"{where} cannot tell apart (it matches names without regard to case); rename "
                f"one of them")


def backend_of(table: Table) -> Any:
    """The Ibis backend ``table`` is bound to, or None (an in-memory table)."""
    try:
        return table._find_backend(use_default=False)
    except Exception:
        return None


def _executor(table: Table, face: IbisJudge) -> Any:
    """What runs a query on ``table``: its own backend, else the face's connection."""
    found = backend_of(table)
    return found if found is not None else face.connection()


class IbisJudge:
    """The judge of an Ibis face (a base of :class:`~rankframe.faces.ibis.face.IbisFace`): it
    reads the face's backend name, whether that backend has window functions, and its
    connection."""

    backend: str
    windows: bool

    def connection(self) -> Any:
        raise NotImplementedError

    def judge(self, run: Table, qrels: Table, options: JudgeOptions) -> Table:
        """The judged long table of ``run`` against ``qrels`` (Ibis tables): trec_eval's
        ranking (score descending, ties by the id's text descending, byte by byte), a
        full outer join, the depth cut, and ``tie_first`` / ``tie_size`` for
        ``ties="average"``. The inputs are checked at once (one query per side);
        the judged table is returned unexecuted."""
        from rankframe import validation

        o = options
        fn = "judge"
        depth = validation.cutoff(fn, o.depth, name="depth")
        ties = validation.choice(fn, "ties", o.ties, ("docid", "average"))
        q, d, s, r = o.query, o.doc, o.score, o.rel
        input_checks.distinct_names(fn, {"query": q, "doc": d, "score": s, "rel": r})
        input_checks.require(fn, "run", _schema(run), {q: "id", d: "id", s: "numeric"},
                             IBIS_TYPES)
        input_checks.require(fn, "qrels", _schema(qrels), {q: "id", d: "id", r: "numeric"},
                             IBIS_TYPES)
        case_distinct(fn, "run", run.columns, self.backend)
        case_distinct(fn, "qrels", qrels.columns, self.backend)
        qt, dtype = _id_type(fn, q, run, qrels), _id_type(fn, d, run, qrels)
        run_c = run.select(run[q].cast(qt).name(q), run[d].cast(dtype).name(d),
                           # -0.0 made 0.0: equal scores tie as such.
                           cols.no_negative_zero(run[s]).name(s))
        qrels_c = qrels.select(qrels[q].cast(qt).name(q), qrels[d].cast(dtype).name(d), r)
        self._check(fn, {"run": (run_c, s), "qrels": (qrels_c, r)}, q, d)

        judged_queries = qrels_c.select(q).distinct()
        candidates = run_c.semi_join(judged_queries, q)
        ranked = (self._rank_windows(candidates, q, d, s) if self.windows
                  else self._rank_joins(candidates, q, d, s))
        if depth is not None:
            ranked = ranked.filter(ranked["rank"] <= depth)
        if o.judged_only:  # -J: the documents graded >= 0 only, ranked again in order
            ranked = self._rerank(ranked.semi_join(qrels_c.filter(qrels_c[r] >= 0), [q, d]), q)
        extra: list[str] = []
        if ties == "average":
            ranked = self._tie_groups(ranked, q, s)
            extra = ["tie_first", "tie_size"]
        joined = ranked.outer_join(qrels_c, [q, d])
        out = joined.select(
            ibis.coalesce(joined[q], joined[f"{q}_right"]).name(q),
            ibis.coalesce(joined[d], joined[f"{d}_right"]).name(d),
            joined["rank"].cast(cols.I64).name("rank"), joined[r], joined[s].cast(cols.F64).name(s),
            *(joined[c].cast(cols.I64).name(c) for c in extra))
        return out.order_by([out[q], ibis.asc(out["rank"], nulls_first=False), out[d]])

    def _rerank(self, ranked: Table, q: str) -> Table:
        """``rank`` made 1, 2, ... within each query, in the order of the old ranks."""
        if self.windows:
            position = ibis.row_number().over(ibis.window(group_by=ranked[q],
                                                          order_by=ranked["rank"])) + 1
            return ranked.mutate(rank=position.cast(cols.I64))
        other = ranked.select(__rf_q=ranked[q], __rf_r=ranked["rank"])
        pairs = ranked.join(other, ranked[q] == other["__rf_q"])
        pairs = pairs.filter(pairs["__rf_r"] <= pairs["rank"])
        keys = [c for c in ranked.columns if c != "rank"]
        return pairs.group_by(keys).aggregate(rank=pairs[q].count().cast(cols.I64))

    def _rank_windows(self, run: Table, q: str, d: str, s: str) -> Table:
        text = _text_bytes(run[d].cast(dt.string), self.backend)
        position = ibis.row_number().over(ibis.window(
            group_by=run[q], order_by=[ibis.desc(run[s]), ibis.desc(text)])) + 1
        return run.mutate(rank=position.cast(cols.I64))

    def _rank_joins(self, run: Table, q: str, d: str, s: str) -> Table:
        """rank = the rows of the query that sort at or before the row (an equality
        self-join, for a backend without window functions)."""
        mine = run.mutate(__rf_text=run[d].cast(dt.string))
        other = mine.select(__rf_q=mine[q], __rf_s=mine[s], __rf_t=mine["__rf_text"])
        pairs = mine.join(other, mine[q] == other["__rf_q"])
        before = (pairs["__rf_s"] > pairs[s]) | ((pairs["__rf_s"] == pairs[s])
                                                & (pairs["__rf_t"] >= pairs["__rf_text"]))
        counted = pairs.filter(before).group_by([q, d, s]).aggregate(
            rank=pairs[q].count().cast(cols.I64))
        return counted

    def _tie_groups(self, ranked: Table, q: str, s: str) -> Table:
        if self.windows:
            group = ibis.window(group_by=[ranked[q], ranked[s]])
            return ranked.mutate(tie_first=ranked["rank"].min().over(group).cast(cols.I64),
                                 tie_size=ranked["rank"].count().over(group).cast(cols.I64))
        groups = ranked.group_by([q, s]).aggregate(
            tie_first=ranked["rank"].min().cast(cols.I64),
            tie_size=ranked["rank"].count().cast(cols.I64))
        return ranked.join(groups, [q, s])

    def _check(self, fn: str, sides: Mapping[str, tuple[Table, str]], q: str, d: str) -> None:
        """Raise InputError for NULL ids, NULL or NaN values, or a repeated (query, doc)
        pair, naming the first few offending pairs (run before qrels)."""
        for side, (table, value) in sides.items():
            v = table[value]
            counts = {"rows": table[q].isnull().count(),  # count(*) of the group
                      "nulls": cols.flag(v.isnull()).sum()}
            # SQLite has no NaN (it stores NULL); integers have none.
            nan = v.type().is_floating() and self.backend != "sqlite"
            if nan:
                counts["nans"] = cols.flag(v.isnan()).sum()
            grouped = table.group_by([q, d]).aggregate(**counts)
            null_id = grouped[q].isnull() | grouped[d].isnull()
            bad = grouped["nulls"] > 0
            if nan:
                bad = bad | (grouped["nans"] > 0)
            kind = ibis.cases((null_id, 0), (bad, 1), (grouped["rows"] > 1, 2),
                              else_=ibis.null(cols.I64))
            found = grouped.mutate(kind=kind).filter(lambda t: t["kind"].notnull())
            found = found.order_by(["kind", ibis.asc(q, nulls_first=True),
                                    ibis.asc(d, nulls_first=True)]).limit(NAMED_PROBLEMS)
            rows = _executor(table, self).to_pyarrow(found).to_pylist()
            if rows:
                named = [{**row, "query": row[q], "doc": row[d]} for row in rows]
                raise InputError(input_checks.problem_message(fn, side, value, q, d, named))

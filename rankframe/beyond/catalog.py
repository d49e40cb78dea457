"""The catalogue and what is known about its items, joined once to a table of
recommendations: :class:`Catalog`.

The beyond-accuracy metrics read item attributes per row (popularity, long-tail flag,
category, feature vector, similarities, group alignment) and a few numbers (the
catalogue's size, what popularity is a share of). A user's own table may carry those
columns; ``rankframe.evaluate(..., catalog=Catalog(...))`` derives the ones it lacks from
the items table, the training interactions and the fairness target, each once for every
measure that reads it, and fills the numbers the measure strings leave out. The rules are
the contract's (docs/semantics.md#the-catalog-inputs); :mod:`rankframe.beyond.reference`
states them in plain Python and the tests hold these joins to it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from rankframe.beyond.roles import ROLES, reads_items
from rankframe.errors import InputError
from rankframe.frames import to_polars
from rankframe.measures import Measure

__all__ = ["ROLES", "Catalog", "attach", "reads_items"]


Popularity = Literal["interactions", "users"]
Similarity = Literal["cooccurrence", "features"]

_HOW = {
    "pop": "the training interactions (Catalog(train=...)) or an items table with a "
           "popularity column (Catalog(items=..., pop=...))",
    "tail": "the training interactions (Catalog(train=...)), to find the long tail",
    "category": "an items table with the category column (Catalog(items=..., category=...))",
    "features": "an items table with the feature column (Catalog(items=..., features=...))",
    "similarity": "the training interactions (Catalog(train=...)), for each user's history",
    "pair_similarity": "the training interactions (Catalog(train=...)) or, with "
                       "similarity='features', an items table with feature vectors",
    "alignment": "an items table with the group column and a target (Catalog(items=..., "
                 "group=..., target=...))",
    "target": "a target distribution (Catalog(target=...))",
}


@dataclass(frozen=True)
class Catalog:
    """The items, the training interactions and the fairness target of an evaluation of
    recommendations: what ``rankframe.evaluate`` and ``rankframe.evaluate_run`` join to the
    recommended rows for the beyond-accuracy measures (coverage, novelty, diversity ...).

    Every table is a Polars DataFrame or LazyFrame, a pandas DataFrame or a pyarrow Table.
    Contract: docs/semantics.md#the-catalog-inputs.

    Parameters
    ----------
    items
        One row per item of the catalogue: the item column and the attribute columns
        (``category``, ``features``, ``group``); its rows are the catalogue of coverage and
        Gini. None: the catalogue is the items of ``train``.
    train
        The training interactions, one row per interaction: the user and item columns. They
        give popularity, the long tail, each user's history and item co-occurrence.
    target
        The target distribution of AWRF over the groups: a mapping ``{group: weight}``, a
        sequence of weights (for vector alignments), or a table of ``group`` and ``weight``
        columns, with the query column(s) too for a target per query.
    item
        The item column of the recommendations and of ``items`` and ``train``; None: the
        caller's (``evaluate``: ``"docid"``, or ``"item"`` for a table without ``docid``;
        ``evaluate_run``: its ``doc``).
    user
        The user column of ``train``; None: the query key's last column.
    category, features, group
        The columns of ``items`` holding each item's category, feature vector (a list or
        array of numbers) and group (a label, or a vector of weights per group).
    pop
        A column of ``items`` holding each item's popularity (a count), used instead of
        counting it in ``train``: the long tail is then found among the items table's items,
        and popularity is a share of the column's sum.
    popularity
        ``"interactions"``: an item's popularity is its number of training interactions, a
        share of all interactions; ``"users"``: its number of distinct users, a share of
        the users.
    long_tail
        The long tail: a share in (0, 1] of the training items, the least popular (then by
        item id), as RecBole's ``tail_ratio``; a number > 1: the items of popularity at most
        it.
    similarity
        The item similarity of ``ild_pairs`` and ``serendipity``: ``"cooccurrence"``, the
        cosine of two items' sets of training users (Microsoft Recommenders' default), or
        ``"features"``, the cosine of their feature vectors.

    Examples
    --------
    >>> import polars as pl, rankframe as rf
    >>> recs = pl.DataFrame({"user": [1, 1, 2, 2], "docid": ["a", "b", "a", "c"],
    ...                      "rank": [1, 2, 1, 2]})
    >>> train = pl.DataFrame({"user": [1, 2, 3, 3], "docid": ["c", "b", "a", "d"]})
    >>> rf.evaluate(recs, ["coverage", "novelty"], query="user",
    ...             catalog=rf.Catalog(train=train)).rows()
    [(1, 0.75, 2.0), (2, 0.75, 2.0)]
    """

    items: Any = None
    train: Any = None
    target: Any = None
    item: str | None = None
    user: str | None = None
    category: str = "category"
    features: str = "features"
    group: str = "group"
    pop: str | None = None
    popularity: Popularity = "interactions"
    long_tail: float = 0.1
    similarity: Similarity = "cooccurrence"

    def __post_init__(self) -> None:
        if self.popularity not in ("interactions", "users"):
            raise ValueError(f"Catalog: popularity must be 'interactions' or 'users', got "
                             f"{self.popularity!r}")
        if self.similarity not in ("cooccurrence", "features"):
            raise ValueError(f"Catalog: similarity must be 'cooccurrence' or 'features', got "
                             f"{self.similarity!r}")
        tail = self.long_tail
        if isinstance(tail, bool) or not isinstance(tail, int | float) or not tail > 0:
            raise ValueError(f"Catalog: long_tail must be a share in (0, 1] or a popularity "
                             f"> 1, got {tail!r}")

    def with_defaults(self, item: str, user: str) -> Catalog:
        """This catalog with its item and user columns defaulted to ``item`` and ``user``."""
        return dataclasses.replace(self, item=self.item or item, user=self.user or user)


# --- the side tables, read and checked once ------------------------------------------------


class _Tables:
    """A catalog's tables as checked Polars DataFrames, each read on first use, their item
    and user columns of the recommendations' types (``keys``: column -> dtype)."""

    def __init__(self, fn: str, catalog: Catalog, keys: Mapping[str, pl.DataType]) -> None:
        self.fn = fn
        self.catalog = catalog
        self.keys = keys
        self._items: pl.DataFrame | None = None
        self._train: pl.DataFrame | None = None

    def typed(self, table: str, frame: pl.DataFrame, column: str, role: str) -> pl.DataFrame:
        """``frame`` with ``column`` of the recommendations' type for ``role`` (the values
        converted where that loses nothing, e.g. 3 -> "3"), or an InputError."""
        want = self.keys.get(role)
        have = frame.schema[column]
        if want is None or have == want:
            return frame
        try:
            return frame.with_columns(pl.col(column).cast(want, strict=True))
        except pl.exceptions.PolarsError:
            raise InputError(f"{self.fn}: the {table} table's {column!r} is {have}, the "
                             f"recommendations' {role} column {want}, and its values do not "
                             f"convert; give both one type") from None

    def _need(self, role: str, measure: str, have: object) -> None:
        if have is None:
            raise InputError(f"{self.fn}: measure {measure!r} reads each row's {role}, which "
                             f"the table lacks; it needs {_HOW[role]}")

    def items(self, role: str, measure: str, column: str) -> pl.DataFrame:
        self._need(role, measure, self.catalog.items)
        if self._items is None:
            items = _eager(self.fn, "items", self.catalog.items)
            item = _column(self.fn, "items", items, str(self.catalog.item))
            items = self.typed("items", items, item, "item")
            dup = items.filter(pl.col(item).is_duplicated()).get_column(item)
            if len(dup):
                raise InputError(f"{self.fn}: item {dup[0]!r} has several rows in the items "
                                 f"table; one row per item")
            self._items = items
        _column(self.fn, "items", self._items, column)
        return self._items

    def train(self, role: str, measure: str) -> pl.DataFrame:
        self._need(role, measure, self.catalog.train)
        if self._train is None:
            train = _eager(self.fn, "train", self.catalog.train)
            for name in (str(self.catalog.user), str(self.catalog.item)):
                _column(self.fn, "training interactions", train, name)
            user, item = str(self.catalog.user), str(self.catalog.item)
            nulls = train.filter(pl.col(user).is_null() | pl.col(item).is_null())
            if nulls.height:
                raise InputError(f"{self.fn}: the training interactions have a NULL {user!r} "
                                 f"or {item!r} (row {nulls.row(0)})")
            train = self.typed("training interactions", train, item, "item")
            self._train = self.typed("training interactions", train, user, "user").select(
                user, item)
        return self._train


def _eager(fn: str, name: str, table: Any) -> pl.DataFrame:
    frame = to_polars(fn, name, table)
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


def _column(fn: str, table: str, frame: pl.DataFrame, name: str) -> str:
    if name not in frame.columns:
        have = ", ".join(repr(c) for c in frame.columns)
        raise InputError(f"{fn}: the {table} table has no column {name!r}; its columns are: "
                         f"{have}")
    return name


# --- derived item inputs ---------------------------------------------------------------------


def item_popularity(train: pl.DataFrame, user: str, item: str, popularity: Popularity
                    ) -> tuple[pl.DataFrame, int]:
    """Per training item its popularity (column ``pop``), and what it is a share of
    (docs/semantics.md#the-catalog-inputs)."""
    if popularity == "interactions":
        return train.group_by(item).agg(pop=pl.len().cast(pl.Int64)), train.height
    pairs = train.unique([user, item])
    return (pairs.group_by(item).agg(pop=pl.len().cast(pl.Int64)),
            pairs.get_column(user).n_unique())


def long_tail(pop: pl.DataFrame, item: str, share: float) -> pl.DataFrame:
    """The long-tail items (column ``item``) of per-item popularities: a share of them, least
    popular first then by id, or (``share`` > 1) those of popularity at most it."""
    if share > 1:
        return pop.filter(pl.col("pop") <= share).select(item)
    cut = max(int(pop.height * share), 1)
    return pop.sort(["pop", item]).head(cut).select(item)


def _units(frame: pl.DataFrame, vector: str) -> pl.Expr:
    values = pl.col(vector).cast(pl.List(pl.Float64))
    norm = values.list.eval(pl.element().pow(2).sum()).list.first().sqrt()
    return pl.when(norm > 0).then(values / norm).otherwise(values * 0.0)


def _check_vectors(fn: str, frame: pl.DataFrame, column: str) -> pl.DataFrame:
    """The items table's vectors as lists of Float64, checked: numbers, finite, one length."""
    dtype = frame.schema[column]
    if not isinstance(dtype, pl.List | pl.Array) or not dtype.inner.is_numeric():
        raise InputError(f"{fn}: the items table's {column!r} must hold vectors (lists or "
                         f"arrays of numbers), got {dtype}")
    values = frame.with_columns(pl.col(column).cast(pl.List(pl.Float64)))
    lengths = values.get_column(column).drop_nulls().list.len().unique()
    if len(lengths) > 1:
        raise InputError(f"{fn}: the vectors of the items table's {column!r} have several "
                         f"lengths ({', '.join(map(str, sorted(lengths.to_list())))}); one "
                         f"length for every item")
    bad = values.filter(pl.col(column).list.eval(
        pl.element().is_null() | pl.element().is_nan() | pl.element().is_infinite()).list.any())
    if bad.height:
        raise InputError(f"{fn}: the items table's {column!r} holds a NULL, NaN or infinite "
                         f"number (item row {bad.row(0)[0]!r}); vectors of finite numbers")
    return values


def cooccurrence(train: pl.DataFrame, user: str, item: str) -> pl.DataFrame:
    """The co-occurrence cosine ``sim`` of every ordered pair of training items (``i``,
    ``j``) that share a user: |U_i ∩ U_j| / sqrt(|U_i| |U_j|)."""
    pairs = train.unique([user, item]).select(pl.col(user), pl.col(item).alias("i"))
    sizes = pairs.group_by("i").agg(size=pl.len())
    both = pairs.join(pairs.rename({"i": "j"}), on=user).group_by("i", "j").agg(shared=pl.len())
    return (both.join(sizes, on="i").join(sizes.rename({"i": "j", "size": "size_j"}), on="j")
            .select("i", "j", sim=pl.col("shared") / (pl.col("size") * pl.col("size_j")).sqrt()))


def feature_units(items: pl.DataFrame, item: str, features: str) -> pl.DataFrame:
    """Each item's unit feature vector (``i``, ``u``), those without a vector left out."""
    return items.filter(pl.col(features).is_not_null()).select(
        pl.col(item).alias("i"), _units(items, features).alias("u"))


def _dot(a: str, b: str) -> pl.Expr:
    """The dot product of two list columns of one length."""
    return (pl.col(a) * pl.col(b)).list.sum()


def _vector_sums(frame: pl.DataFrame, keys: list[str], vector: str) -> pl.DataFrame:
    """The position-wise sum of ``vector`` per ``keys`` group (column ``vector``)."""
    exploded = frame.select(*keys, pl.col(vector)).with_columns(
        __pos=pl.int_ranges(pl.col(vector).list.len())).explode(vector, "__pos")
    return (exploded.group_by(*keys, "__pos").agg(pl.col(vector).sum())
            .sort("__pos").group_by(keys, maintain_order=True).agg(pl.col(vector)))


# --- attach ----------------------------------------------------------------------------------


def _with_size(measure: Measure, name: str, value: int) -> Measure:
    values = dict(measure.values)
    values[name] = value
    return dataclasses.replace(measure, values=values)


def attach(fn: str, judged: pl.DataFrame, measures: Sequence[Measure], keys: Sequence[str],
           columns: Mapping[str, str], catalog: Catalog | None, *, item: str = "docid"
           ) -> tuple[pl.DataFrame, list[Measure], dict[str, str]]:
    """The table with the item inputs the measures read and it lacks, joined from
    ``catalog``; the measures with the sizes they leave out (catalog, total) filled in; the
    column of each role. Raises an :class:`InputError` naming the measure and what to give
    when an input can be found nowhere."""
    keys = list(keys)
    if item not in judged.columns and "item" in judged.columns:
        item = "item"  # a table of recommendations: user, item, rank
    catalog = (catalog or Catalog()).with_defaults(item, keys[-1])
    assert catalog.item is not None and catalog.user is not None
    item_col, user = catalog.item, catalog.user
    roles = {role: role for role in ROLES} | {"item": item_col} | dict(columns)
    roles["item"] = item_col
    have = set(judged.columns)
    who = user if user in have else keys[-1]
    key_types = {"user": judged.schema[who]}
    if item_col in have:
        key_types["item"] = judged.schema[item_col]
    tables = _Tables(fn, catalog, key_types)
    # Each role a measure reads and the table lacks, with the first measure reading it.
    wanted: dict[str, str] = {}
    for m in measures:
        for role in m.metric.columns:
            if role in ROLES and roles[role] not in have:
                wanted.setdefault(role, m.label)
    if wanted and item_col not in have:
        first = next(iter(wanted.values()))
        raise InputError(f"{fn}: measure {first!r} joins item attributes on the item column "
                         f"{item_col!r}, which the table lacks (name it: Catalog(item=...))")
    out = judged
    if "item" in wanted:  # the item column itself is missing: said just above
        raise AssertionError("unreachable")
    pop_total: int | None = None
    if "pop" in wanted or "tail" in wanted or any(
            m.metric.name == "novelty" and m.values.get("total") is None for m in measures):
        reader = wanted.get("pop") or wanted.get("tail") or next(
            m.label for m in measures if m.metric.name == "novelty")
        if catalog.pop is not None:
            given = tables.items("pop", reader, catalog.pop)
            pop = given.select(item_col, pop=pl.col(catalog.pop).fill_null(0).cast(pl.Int64))
            pop_total = int(pop.get_column("pop").sum())
        else:
            train = tables.train("pop", reader)
            pop, pop_total = item_popularity(train, user, item_col, catalog.popularity)
        if "pop" in wanted:
            out = out.join(pop.rename({item_col: "__item"}), left_on=item_col,
                           right_on="__item", how="left").with_columns(
                pl.col("pop").fill_null(0))
        if "tail" in wanted:
            tail = long_tail(pop, item_col, catalog.long_tail).get_column(item_col)
            out = out.with_columns(tail=pl.col(item_col).is_in(tail.implode()))
    for role, column in (("category", catalog.category), ("features", catalog.features)):
        if role in wanted:
            items = tables.items(role, wanted[role], column)
            if role == "features":
                items = _check_vectors(fn, items, column)
            out = out.join(items.select(pl.col(item_col).alias("__item"),
                                        pl.col(column).alias(role)),
                           left_on=item_col, right_on="__item", how="left")
    if "similarity" in wanted or "pair_similarity" in wanted:
        out = _similarities(fn, out, wanted, keys, roles, catalog, tables)
    if "alignment" in wanted or "target" in wanted:
        out = _fairness(fn, out, wanted, keys, catalog, tables)
    filled = [_filled(fn, m, catalog, tables, pop_total, out, item_col, roles)
              for m in measures]
    return out, filled, roles


def _filled(fn: str, m: Measure, catalog: Catalog, tables: _Tables, pop_total: int | None,
            judged: pl.DataFrame, item: str, roles: Mapping[str, str]) -> Measure:
    """``m`` with the sizes it leaves out filled in from the catalog."""
    name = m.metric.name
    if name == "novelty" and m.values.get("total") is None:
        assert pop_total is not None
        return _with_size(m, "total", max(pop_total, 1))
    needs_catalog = name == "coverage" or (name == "gini" and m.values.get("over", "catalog")
                                           == "catalog")
    if needs_catalog and m.values.get("catalog") is None:
        return _with_size(m, "catalog", _catalog_size(fn, m.label, catalog, tables, judged,
                                                      item))
    return m


def _catalog_size(fn: str, label: str, catalog: Catalog, tables: _Tables,
                  judged: pl.DataFrame, item: str) -> int:
    """The catalogue's size: the items table's rows (every recommended item must be one),
    else the distinct items of the training interactions."""
    if catalog.items is not None:
        items = tables.items("item", label, item).get_column(item)
        stray = judged.filter(pl.col(item).is_not_null() & ~pl.col(item).is_in(items.implode()))
        if stray.height:
            raise InputError(f"{fn}: measure {label!r}: item {stray[item][0]!r} is recommended "
                             f"but not in the items table (the catalogue)")
        return max(items.len(), 1)
    if catalog.train is None:
        raise InputError(f"{fn}: measure {label!r} needs the size of the catalogue: give "
                         f"catalog= in the measure, or a Catalog with items= or train=")
    return max(tables.train("pop", label).get_column(item).n_unique(), 1)


def _similarities(fn: str, judged: pl.DataFrame, wanted: Mapping[str, str], keys: list[str],
                  roles: Mapping[str, str], catalog: Catalog, tables: _Tables) -> pl.DataFrame:
    """``similarity`` (each row's item against the user's training items, their mean) and
    ``pair_similarity`` (against the other ranked items of its list, their sum)."""
    item, user, rank = str(catalog.item), str(catalog.user), roles["rank"]
    rows = judged.with_row_index("__row")
    if catalog.similarity == "features":
        reader = wanted.get("pair_similarity") or wanted["similarity"]
        items = _check_vectors(fn, tables.items("features", reader, catalog.features),
                               catalog.features)
        units = feature_units(items, item, catalog.features)
    else:
        reader = wanted.get("similarity") or wanted["pair_similarity"]
        pairs = cooccurrence(tables.train("similarity", reader), user, item)
    out = judged
    if "similarity" in wanted:
        history = tables.train("similarity", wanted["similarity"]).unique([user, item])
        sizes = history.group_by(user).agg(__n=pl.len())
        # The user of a row: the column named as the training interactions' user, if the
        # table has it, else the query key's last column.
        who = user if user in judged.columns else keys[-1]
        mine = rows.select("__row", pl.col(who).alias("__user"), pl.col(item).alias("i"))
        if catalog.similarity == "features":
            profile = _vector_sums(history.join(units, left_on=item, right_on="i")
                                   .select(user, "u"), [user], "u")
            scored = (mine.join(units, on="i", how="left")
                      .join(profile.rename({user: "__user", "u": "p"}), on="__user", how="left")
                      .select("__row", __sum=pl.when(pl.col("u").is_not_null()
                                                     & pl.col("p").is_not_null())
                              .then(_dot("u", "p")).otherwise(0.0)))
        else:
            scored = (mine.join(history.rename({user: "__user", item: "j"}), on="__user")
                      .join(pairs, on=["i", "j"], how="left")
                      .group_by("__row").agg(__sum=pl.col("sim").fill_null(0.0).sum()))
        per_row = (mine.join(scored, on="__row", how="left")
                   .join(sizes.rename({user: "__user"}), on="__user", how="left")
                   .select("__row", similarity=pl.when(pl.col("__n") > 0).then(
                       pl.col("__sum").fill_null(0.0) / pl.col("__n"))))
        out = out.with_columns(similarity=rows.join(per_row, on="__row", how="left")
                               .sort("__row").get_column("similarity"))
    if "pair_similarity" in wanted:
        listed = rows.filter(pl.col(rank).is_not_null()).select(
            "__row", *keys, pl.col(item).alias("i"))
        if catalog.similarity == "features":
            with_units = listed.join(units, on="i", how="left").with_columns(
                pl.col("u").fill_null(pl.lit([], dtype=pl.List(pl.Float64))))
            nonempty = with_units.filter(pl.col("u").list.len() > 0)
            totals = _vector_sums(nonempty, keys, "u").rename({"u": "s"})
            summed = with_units.join(totals, on=keys, how="left").select(
                "__row", pair_similarity=pl.when(pl.col("u").list.len() > 0).then(
                    _dot("u", "s") - _dot("u", "u")).otherwise(0.0))
        else:
            other = listed.rename({"__row": "__other", "i": "j"})
            summed = (listed.join(other, on=keys).filter(pl.col("__row") != pl.col("__other"))
                      .join(pairs, on=["i", "j"], how="left")
                      .group_by("__row").agg(pair_similarity=pl.col("sim").fill_null(0.0).sum()))
        per_row = rows.select("__row").join(summed, on="__row", how="left").sort("__row")
        listed_rows = rows.get_column(rank).is_not_null()
        out = out.with_columns(pair_similarity=pl.when(listed_rows).then(
            per_row.get_column("pair_similarity").fill_null(0.0)))
    return out


def _fairness(fn: str, judged: pl.DataFrame, wanted: Mapping[str, str], keys: list[str],
              catalog: Catalog, tables: _Tables) -> pl.DataFrame:
    """``alignment`` (each row's item's group as a vector over the target's groups) and
    ``target`` (the query's target vector)."""
    item = str(catalog.item)
    label = wanted.get("alignment") or wanted["target"]
    target = catalog.target
    if target is None:
        raise InputError(f"{fn}: measure {label!r} reads a target distribution: give "
                         f"Catalog(target=...) (a mapping group -> weight, a sequence of "
                         f"weights, or a table of group and weight)")
    items = tables.items("alignment", label, catalog.group) if "alignment" in wanted else None
    labelled = items is not None and not isinstance(items.schema[catalog.group],
                                                    pl.List | pl.Array)
    groups, per_query = _target(fn, target, keys, catalog.group, labelled)
    out = judged
    if "target" in wanted:
        if isinstance(per_query, pl.DataFrame):
            on = [k for k in keys if k in per_query.columns]
            for k in on:
                per_query = _Tables(fn, catalog, {k: judged.schema[k]}).typed(
                    "target", per_query, k, k)
            out = out.join(per_query, on=on, how="left")
        else:
            out = out.with_columns(target=pl.lit(pl.Series([per_query],
                                                           dtype=pl.List(pl.Float64))).first())
    if items is not None:
        column = catalog.group
        if labelled:
            unknown = items.filter(pl.col(column).is_not_null()
                                   & ~pl.col(column).cast(pl.String).is_in(groups))
            if unknown.height:
                raise InputError(f"{fn}: group {unknown[column][0]!r} of item "
                                 f"{unknown[item][0]!r} is not in the target's groups "
                                 f"({', '.join(map(repr, groups))})")
            vector = pl.concat_list([(pl.col(column).cast(pl.String) == g).cast(pl.Float64)
                                     for g in groups])
            aligned = items.select(pl.col(item).alias("__item"),
                                   alignment=pl.when(pl.col(column).is_not_null()).then(vector))
        else:
            aligned = _check_vectors(fn, items, column).select(pl.col(item).alias("__item"),
                                                                pl.col(column).alias("alignment"))
        out = out.join(aligned, left_on=item, right_on="__item", how="left")
    return out


def _target(fn: str, target: Any, keys: list[str], group: str, labelled: bool
            ) -> tuple[list[str], list[float] | pl.DataFrame]:
    """The target's groups (in its order) and either one vector or a table of the query
    key(s) and ``target`` (a vector per query)."""
    if isinstance(target, Mapping):
        groups = [str(g) for g in target]
        return groups, [float(w) for w in target.values()]
    if isinstance(target, Sequence) and not isinstance(target, str):
        if labelled:
            raise InputError(f"{fn}: the items' groups are labels: give the target as a "
                             f"mapping label -> weight, or a table of group and weight")
        return [], [float(w) for w in target]
    frame = _eager(fn, "target", target)
    for name in (group, "weight"):
        _column(fn, "target", frame, name)
    query = [k for k in keys if k in frame.columns]
    groups = frame.get_column(group).cast(pl.String).unique(maintain_order=True).to_list()
    if not query:
        weights = dict(zip(frame[group].cast(pl.String), frame["weight"], strict=True))
        return groups, [float(weights.get(g, 0.0)) for g in groups]
    table = (frame.with_columns(pl.col(group).cast(pl.String))
             .group_by(query).agg(pl.struct(group, "weight").alias("__pairs")))
    vectors = table.select(*query, target=pl.concat_list([
        pl.col("__pairs").list.eval(pl.when(pl.element().struct.field(group) == g).then(
            pl.element().struct.field("weight").cast(pl.Float64))).list.drop_nulls()
        .list.sum() for g in groups]))
    return groups, vectors


def with_items(fn: str, judged: pl.DataFrame | pl.LazyFrame, measures: Sequence[Measure],
               keys: Sequence[str], columns: Mapping[str, str], catalog: Catalog | None
               ) -> tuple[pl.DataFrame, list[Measure], dict[str, str]]:
    """``evaluate``'s step for the beyond-accuracy measures: the table collected, a NULL
    grade column added when it has none and no measure reads grades (a table of
    recommendations alone), then :func:`attach`."""
    frame = judged.collect() if isinstance(judged, pl.LazyFrame) else judged
    rel = columns["rel"]
    if rel not in frame.columns and not any("rel" in m.metric.columns for m in measures):
        frame = frame.with_columns(pl.lit(None, dtype=pl.Float64).alias(rel))
    return attach(fn, frame, measures, keys, columns, catalog)

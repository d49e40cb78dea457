"""Preference measures (trec_eval's ``prefs_*`` family) on the Polars face, as frame
functions over long tables (docs/semantics.md#preferences).

The input is a preference table ``prefs`` (``qid, jg, jsg, docid, level``: what
:func:`rankframe.io.read_prefs` returns) and a run (``qid, docid, score``). The steps:

1. :func:`prefs_ranking`: the run ranked as trec_eval ranks it for preferences (score
   descending, ties by docid *ascending*, bytes), cut at ``depth`` (``-M``).
2. :func:`prefs_positions`: every judged document's position ``pos``: the retrieved ones
   first in rank order, then the others by docid; ``ret`` says which were retrieved.
3. :func:`prefs_pairs`: the preferences ``(qid, jg, better, worse)``: within a sub-group a
   higher level beats a lower one; a judgment group is the transitive closure of its
   sub-groups (a document preferred to itself is an error).
4. :func:`prefs_groups`: per judgment group, integer counts of preferences fulfilled and
   possible, among retrieved documents (``_ret``), with one retrieved (``_imp``) and with
   none (``notoccur``), the relevant and non-relevant documents, and the
   ``prefs_avgjg_Rnonrel`` counts.
5. :func:`prefs_evaluate`: the 14 measures per query. Ratios are one division of integer
   counts; the averages over judgment groups and document pairs add their terms in
   trec_eval's order (groups by id, pairs by position), so the doubles are trec_eval's.

Worked example, by hand (docs/semantics.md#preferences; tests/trec_eval/test_prefs.py): run a, b, c
(retrieved, in that order) and x; groups u1 {b 2, d 1, a 0, f 0}, u2 {s1: c 2, b 1;
s2: b 2, e 0}, u3 {a 1, b 0}. Per group (ful_ret/poss_ret, ful_imp/poss_imp, notoccur):
u1 0/1, 2/3, 1; u2 0/1, 2/2, 0; u3 1/1, 0/0, 0. Hence

- prefs_num_prefs_poss = 3 + 5 + 1 = 9, prefs_num_prefs_ful = 1 + 4 = 5, _ful_ret = 1;
- prefs_simp = 5/9, prefs_simp_ret = 1/3, prefs_simp_imp = 5/8;
- prefs_avgjg = (2/5 + 2/3 + 1)/3, _ret = (0 + 0 + 1)/3, _imp = (2/4 + 2/3 + 1)/3;
- prefs_avgjg_Rnonrel = (2/5 + 4/5 + 1)/3 (u2: R = 2, N = 1 adds 2·1 to both counts),
  prefs_avgjg_Rnonrel_ret = (0/1 + 4/5 + 1/1)/3;
- pairs (a, b) 1/2 (u1 and u3 disagree), (b, c) 0; (a, d) 0, (b, d), (b, e), (b, f),
  (c, e) 1; (d, f) neither retrieved: prefs_pair = 4.5/8, _ret = 0.5/2, _imp = 4.5/7.
"""

from __future__ import annotations

import polars as pl

from rankframe.errors import InputError
from rankframe.registry import PREFS_COUNTS, PREFS_MEASURES

__all__ = [
    "PREFS_COUNTS",
    "PREFS_MEASURES",
    "prefs_evaluate",
    "prefs_groups",
    "prefs_pairs",
    "prefs_positions",
    "prefs_ranking",
]


_Q = "qid"
_GROUP = ["qid", "jg"]


def prefs_ranking(run: pl.DataFrame, depth: int | None = None) -> pl.DataFrame:
    """``(qid, docid, rank)``: the run ranked by score descending, ties by docid ascending
    (bytes: trec_eval's preference ranking, the reverse of its usual tie rule), rank from 1,
    the first ``depth`` of each query kept.

    Examples
    --------
    >>> run = pl.DataFrame({"qid": ["q"] * 3, "docid": ["b", "a", "c"], "score": [1.0, 1.0, 2.0]})
    >>> prefs_ranking(run).rows()
    [('q', 'c', 1), ('q', 'a', 2), ('q', 'b', 3)]
    """
    ranked = (run.select(_Q, "docid", pl.col("score").cast(pl.Float64) + 0.0)
              .sort([_Q, "score", "docid"], descending=[False, True, False])
              .select(_Q, "docid", rank=pl.int_range(1, pl.len() + 1).over(_Q)))
    return ranked if depth is None else ranked.filter(pl.col("rank") <= depth)


def prefs_positions(prefs: pl.DataFrame, ranking: pl.DataFrame) -> pl.DataFrame:
    """``(qid, docid, pos, ret)`` for every judged document of ``prefs``: ``pos`` from 0,
    the retrieved documents (``ret``) first in rank order, then the others by docid."""
    judged = prefs.select(_Q, "docid").unique()
    return (judged.join(ranking, on=[_Q, "docid"], how="left")
            .sort([_Q, "rank", "docid"], nulls_last=True)
            .select(_Q, "docid", pos=pl.int_range(pl.len()).over(_Q),
                    ret=pl.col("rank").is_not_null()))


def prefs_pairs(prefs: pl.DataFrame) -> pl.DataFrame:
    """``(qid, jg, better, worse)``: every preference of every judgment group, closed under
    transitivity; raises :class:`~rankframe.errors.InputError` for a cycle."""
    rows = prefs.select(_Q, "jg", "jsg", "docid", "level")
    stated = (rows.join(rows, on=[_Q, "jg", "jsg"], suffix="_b")
              .filter(pl.col("level") > pl.col("level_b"))
              .select(_Q, "jg", better="docid", worse="docid_b").unique())
    partial = (prefs.group_by(_GROUP).agg(pl.col("jsg").n_unique().alias("n"))
               .filter(pl.col("n") > 1).drop("n"))
    closed = stated.join(partial, on=_GROUP, how="semi")
    while closed.height:
        step = (closed.join(closed, left_on=[_Q, "jg", "worse"], right_on=[_Q, "jg", "better"])
                .select(_Q, "jg", "better", worse="worse_right"))
        grown = pl.concat([closed, step]).unique()
        if grown.height == closed.height:
            break
        closed = grown
    cycle = closed.filter(pl.col("better") == pl.col("worse")).sort([*_GROUP, "better"]).head(1)
    if cycle.height:
        qid, jg, doc = cycle.row(0)[:3]
        raise InputError(f"prefs: query {qid!r}, judgment group {jg!r}: document {doc!r} "
                         "is preferred to itself through other documents")
    complete = stated.join(partial, on=_GROUP, how="anti")
    return pl.concat([complete, closed]).sort([*_GROUP, "better", "worse"])


def _with_positions(pairs: pl.DataFrame, pos: pl.DataFrame) -> pl.DataFrame:
    """``pairs`` with the position and retrieval of both documents (pa, ra, pb, rb)."""
    a = pos.rename({"docid": "better", "pos": "pa", "ret": "ra"})
    b = pos.rename({"docid": "worse", "pos": "pb", "ret": "rb"})
    return pairs.join(a, on=[_Q, "better"]).join(b, on=[_Q, "worse"])


def prefs_groups(prefs: pl.DataFrame, ranking: pl.DataFrame) -> pl.DataFrame:
    """One row per (qid, jg): ``ful_ret, poss_ret, ful_imp, poss_imp, notoccur, rel,
    nonrel, rel_ret, nonrel_ret`` and the (fulfilled, possible) counts of
    prefs_avgjg_Rnonrel (``rn_ful, rn_poss``) and of its ``_ret`` form (``rnr_ful,
    rnr_poss``), all integers (docs/semantics.md#preferences)."""
    pos = prefs_positions(prefs, ranking)
    return _groups(prefs, pos, _with_positions(prefs_pairs(prefs), pos))


def _groups(prefs: pl.DataFrame, pos: pl.DataFrame, pairs: pl.DataFrame) -> pl.DataFrame:
    """:func:`prefs_groups` from the positions and the positioned preferences."""
    docs = (prefs.group_by(_Q, "jg", "docid").agg(pl.col("level").max())
            .join(pos, on=[_Q, "docid"]))
    ec = prefs.group_by(_GROUP).agg(ec=pl.col("jsg").n_unique() == 1)
    ra, rb = pl.col("ra"), pl.col("rb")
    counted = pairs.group_by(_GROUP).agg(
        ful_ret=(ra & rb & (pl.col("pa") < pl.col("pb"))).sum(),
        poss_ret=(ra & rb).sum(), ful_imp=(ra & rb.not_()).sum(), poss_imp=(ra ^ rb).sum(),
        notoccur=(ra.not_() & rb.not_()).sum())
    rel, ret = pl.col("level") > 0, pl.col("ret")
    kinds = docs.group_by(_GROUP).agg(rel=rel.sum(), nonrel=rel.not_().sum(),
                                      rel_ret=(rel & ret).sum(),
                                      nonrel_ret=(rel.not_() & ret).sum())
    counts = ["ful_ret", "poss_ret", "ful_imp", "poss_imp", "notoccur"]
    groups = (ec.join(kinds, on=_GROUP).join(counted, on=_GROUP, how="left")
              .with_columns(pl.col(counts).fill_null(0).cast(pl.Int64),
                            pl.col("rel", "nonrel", "rel_ret", "nonrel_ret").cast(pl.Int64)))
    for prefix, only_ret in (("rn", False), ("rnr", True)):
        groups = _rnonrel(groups, docs, pairs, prefix, retrieved_only=only_ret)
    return groups.sort(_GROUP)


def _rnonrel(groups: pl.DataFrame, docs: pl.DataFrame, pairs: pl.DataFrame, prefix: str, *,
             retrieved_only: bool) -> pl.DataFrame:
    """Add ``{prefix}_ful, {prefix}_poss``: prefs_avgjg_Rnonrel's counts (``_ret`` form when
    ``retrieved_only``). With R relevant and N non-relevant documents (retrieved ones for
    ``_ret``): if R >= N, R - N perfect non-relevant documents are imagined below every
    relevant one; else only the first R non-relevant documents are kept and the counts are
    recounted, as trec_eval recounts them (docs/semantics.md#preferences)."""
    big_r, big_n = (("rel_ret", "nonrel_ret") if retrieved_only else ("rel", "nonrel"))
    ful = pl.col("ful_ret") + (0 if retrieved_only else pl.col("ful_imp"))
    poss = pl.col("poss_ret") + (0 if retrieved_only
                                 else pl.col("poss_imp") + pl.col("notoccur"))
    extra = pl.col(big_r) - pl.col(big_n)
    recount = (groups.filter(pl.col(big_r) < pl.col(big_n))
               .select(*dict.fromkeys([*_GROUP, "ec", "rel", big_r])))
    lowest = docs.group_by(_GROUP).agg(lowest=pl.col("level").min())
    mine = docs.join(recount, on=_GROUP).join(lowest, on=_GROUP)
    if retrieved_only:
        mine = mine.filter("ret")
        pairs = pairs.filter("ra", "rb")
    mine = mine.sort([*_GROUP, "pos"])
    # Judgment groups of one sub-group (trec_eval's "equivalence classes"): the pairs between
    # levels above the lowest, plus every document (the lowest level's too, even a document
    # with itself) against the first R documents of the lowest level.
    last = (mine.filter(pl.col("level") == pl.col("lowest"), "ec")
            .filter(pl.int_range(pl.len()).over(_GROUP) < pl.col(big_r))
            .select(*_GROUP, worse="docid", pb="pos"))
    between = (pairs.join(mine.filter("ec").select(*_GROUP, worse="docid", lb="level",
                                                   lowest="lowest"), on=[*_GROUP, "worse"])
               .filter(pl.col("lb") > pl.col("lowest")).select(*_GROUP, "pa", "pb", "ra"))
    against = (mine.filter("ec").select(*_GROUP, pa="pos", ra="ret")
               .join(last, on=_GROUP).select(*_GROUP, "pa", "pb", "ra"))
    # Judgment groups of several sub-groups: the non-relevant documents after the first R
    # (R counts every relevant document of the group, retrieved or not) are left out.
    nonrel = mine.filter(pl.col("ec").not_(), pl.col("level") == 0)
    dropped = (nonrel.filter(pl.int_range(pl.len()).over(_GROUP) >= pl.col("rel"))
               .select(*_GROUP, "docid"))
    kept = (pairs.join(recount.filter(pl.col("ec").not_()).select(_GROUP), on=_GROUP)
            .join(dropped.rename({"docid": "better"}), on=[*_GROUP, "better"], how="anti")
            .join(dropped.rename({"docid": "worse"}), on=[*_GROUP, "worse"], how="anti")
            .select(*_GROUP, "pa", "pb", "ra"))
    recounted = (pl.concat([between, against, kept])
                 .group_by(_GROUP)
                 .agg(r_ful=(pl.col("ra") & (pl.col("pa") < pl.col("pb"))).sum().cast(pl.Int64),
                      r_poss=pl.len().cast(pl.Int64)))
    more = pl.col(big_r) >= pl.col(big_n)
    return (groups.join(recounted, on=_GROUP, how="left")
            .with_columns(pl.when(more).then(ful + pl.col("rel_ret") * extra)
                          .otherwise(pl.col("r_ful").fill_null(0)).alias(f"{prefix}_ful"),
                          pl.when(more).then(poss + pl.col("rel") * extra)
                          .otherwise(pl.col("r_poss").fill_null(0)).alias(f"{prefix}_poss"))
            .drop("r_ful", "r_poss"))


def _ratio(ful: pl.Expr, poss: pl.Expr) -> pl.Expr:
    """ful / poss as a double (NaN for 0/0, as in C)."""
    return ful.cast(pl.Float64) / poss.cast(pl.Float64)


def _average(ratio: pl.Expr) -> pl.Expr:
    """trec_eval's average over judgment groups: the ratios added in group order, divided
    by the number of groups when the sum is above 0 (a NaN sum gives 0)."""
    total = ratio.sort_by("jg").cum_sum().last()
    return pl.when(total.is_nan() | (total <= 0)).then(0.0).otherwise(total / pl.len())


def _simple(ful: pl.Expr, poss: pl.Expr) -> pl.Expr:
    return pl.when(poss > 0).then(_ratio(ful, poss)).otherwise(0.0)


def _pair_values(pairs: pl.DataFrame, queries: pl.DataFrame) -> pl.DataFrame:
    """prefs_pair, _ret and _imp per query: over document pairs preferred either way by any
    group, the share of groups preferring the higher-placed document, added in trec_eval's
    order (both retrieved, then one retrieved; each by position), over the pair count."""
    higher = pl.col("pa") < pl.col("pb")
    pair = (pairs.with_columns(lo=pl.min_horizontal("pa", "pb"), hi=pl.max_horizontal("pa", "pb"),
                               kind=pl.col("ra").cast(pl.Int64) + pl.col("rb").cast(pl.Int64))
            .group_by(_Q, "lo", "hi")
            .agg(up=higher.sum(), down=higher.not_().sum(), kind=pl.col("kind").first())
            .with_columns(term=_ratio(pl.col("up"), pl.col("up") + pl.col("down")),
                          block=2 - pl.col("kind")))
    in_order = pl.col("term").sort_by("block", "lo", "hi")

    def mean(kinds: tuple[int, ...], counted: tuple[int, ...]) -> pl.Expr:
        summed = in_order.filter(pl.col("kind").sort_by("block", "lo", "hi").is_in(kinds))
        total = summed.cum_sum().last().fill_null(0.0)
        n = pl.col("kind").is_in(counted).sum()
        return pl.when(n > 0).then(total / n).otherwise(0.0)

    values = pair.group_by(_Q).agg(prefs_pair=mean((2, 1), (2, 1, 0)),
                                   prefs_pair_ret=mean((2,), (2,)),
                                   prefs_pair_imp=mean((2, 1), (2, 1)))
    return queries.join(values, on=_Q, how="left").fill_null(0.0)


def prefs_evaluate(prefs: pl.DataFrame, run: pl.DataFrame, *, depth: int | None = None,
                   complete: bool = False) -> pl.DataFrame:
    """The preference measures per query: ``qid`` and one column per name of
    :data:`PREFS_MEASURES`, queries by id (bytes).

    ``prefs`` as :func:`rankframe.io.read_prefs` returns it; ``run`` has ``qid, docid,
    score``. Evaluated: the queries of both, or every query of ``prefs`` when ``complete``
    (``-c``: a query without results has nothing retrieved). ``depth`` is ``-M``.

    Examples
    --------
    >>> prefs = pl.DataFrame({"qid": ["q"] * 3, "jg": ["u"] * 3, "jsg": ["s"] * 3,
    ...                       "docid": ["a", "b", "c"], "level": [2.0, 1.0, 0.0]})
    >>> run = pl.DataFrame({"qid": ["q", "q"], "docid": ["b", "a"], "score": [2.0, 1.0]})
    >>> row = prefs_evaluate(prefs, run).row(0, named=True)
    >>> row["prefs_num_prefs_poss"], row["prefs_num_prefs_ful"], row["prefs_simp"]
    (3, 2, 0.6666666666666666)
    """
    queries = prefs.select(_Q).unique()
    if not complete:
        queries = queries.join(run.select(_Q).unique(), on=_Q, how="semi")
    prefs = prefs.join(queries, on=_Q, how="semi")
    ranking = prefs_ranking(run.join(queries, on=_Q, how="semi"), depth)
    pos = prefs_positions(prefs, ranking)
    pairs = _with_positions(prefs_pairs(prefs), pos)
    groups = _groups(prefs, pos, pairs)
    c = pl.col
    ful_all, poss_imp = c("ful_ret") + c("ful_imp"), c("poss_ret") + c("poss_imp")
    poss_all = poss_imp + c("notoccur")
    per_query = groups.group_by(_Q).agg(
        prefs_num_prefs_poss=poss_all.sum(),
        prefs_num_prefs_ful=ful_all.sum(),
        prefs_num_prefs_ful_ret=c("ful_ret").sum(),
        prefs_simp=_simple(ful_all.sum(), poss_all.sum()),
        prefs_avgjg=_average(_simple(ful_all, poss_all)),
        prefs_avgjg_Rnonrel=_average(_ratio(c("rn_ful"), c("rn_poss"))),
        prefs_simp_ret=_simple(c("ful_ret").sum(), c("poss_ret").sum()),
        prefs_avgjg_ret=_average(_simple(c("ful_ret"), c("poss_ret"))),
        prefs_avgjg_Rnonrel_ret=_average(_ratio(c("rnr_ful"), c("rnr_poss"))),
        prefs_simp_imp=_simple(ful_all.sum(), poss_imp.sum()),
        prefs_avgjg_imp=_average(_simple(ful_all, poss_imp)),
    )
    pair = _pair_values(pairs, queries)
    return (per_query.join(pair, on=_Q)
            .with_columns(pl.col(sorted(PREFS_COUNTS)).cast(pl.Int64))
            .select(_Q, *PREFS_MEASURES).sort(_Q))

"""What ``rankframe eval -h -m NAME`` prints: one description per measure."""

from __future__ import annotations

import textwrap

from rankframe.trec_eval.grammar import select
from rankframe.trec_eval.measures import BY_NAME, NICKNAMES, PAIR_PARAMS

#: One line per measure for ``rankframe eval -h -m NAME`` (rankframe's own wording; the
#: contract, docs/semantics.md, has the formulas and edge cases).
_DESCRIPTIONS: dict[str, str] = {
    "runid": "The run's tag: the last field of the run file's first line.",
    "num_q": "How many queries were evaluated.",
    "num_ret": "Documents retrieved (after -M and -J); summed over queries.",
    "num_rel": "Documents with a grade >= -l in the qrels; summed over queries (under -c the "
               "summary counts grades > 0, whatever -l, as trec_eval does).",
    "num_rel_ret": "Relevant documents retrieved; summed over queries.",
    "map": "Average precision: the mean, over the relevant documents, of the precision at "
           "each one's rank (0 for those not retrieved).",
    "gm_map": "Average precision summarised by the geometric mean over queries (values "
              "floored at 1e-5); no per-query line.",
    "Rprec": "Precision at rank R, R being the query's number of relevant documents.",
    "bpref": "Binary preference: for each relevant document retrieved, 1 minus the share of "
             "judged non-relevant documents ranked above it (at most R of them count), "
             "averaged over R.",
    "recip_rank": "1 / rank of the first relevant document (0 if none is retrieved).",
    "iprec_at_recall": "Interpolated precision at each recall level: the best precision at "
                       "any rank whose recall reaches the level.",
    "P": "Precision at each cutoff k: relevant documents in the top k, divided by k "
         "(missing ranks count as non-relevant).",
    "recall": "Recall at each cutoff k: relevant documents in the top k, divided by R.",
    "11pt_avg": "The mean of iprec_at_recall at 0.0, 0.1, ..., 1.0.",
    "ndcg": "Normalised discounted cumulative gain over the whole list: gain = grade, "
            "discount log2(rank + 1), divided by the ideal ordering of every judged document.",
    "ndcg_cut": "nDCG at each cutoff k (the ideal also cut at k).",
    "map_cut": "Average precision at each cutoff k: precision summed at the relevant ranks "
               "<= k, divided by R.",
    "success": "1 if a relevant document is in the top k, else 0, at each cutoff k.",
    "set_P": "Precision of the whole retrieved set.",
    "set_recall": "Recall of the whole retrieved set.",
    "set_F": "F measure of the whole retrieved set: (1 + b) P R / (b P + R), b the recall "
             "weight (parameter, b = beta squared).",
    "rbp": "Rank-biased precision (Moffat & Zobel 2008): (1 - p) times the sum of gain * "
           "p^(rank - 1); gain = grade, divided by the query's top grade when that is above "
           "1; -l is not used. Parameter p, the persistence: -m rbp.p=0.8.",
    "rbp_resid": "The RBP residual: (1 - p) times the sum of p^(rank - 1) over unjudged "
                 "retrieved documents, plus p^n (n documents retrieved); 0 when no retrieved "
                 "document is unjudged. Parameter p: -m rbp_resid.p=0.8.",
    "err": "rankframe's: expected reciprocal rank (Chapelle et al. 2009), grades 0 ... 4.",
    "err_cut": "rankframe's: expected reciprocal rank at each cutoff k.",
    "judged": "rankframe's: the share of the top k that has a grade >= 0.",
}


def describe(spec: str) -> str:
    """What ``rankframe eval -h -m spec`` prints: each measure ``spec`` names (one, or a
    nickname's) with its description and default parameters.

    Examples
    --------
    >>> print(describe("recip_rank"), end="")
    recip_rank
        1 / rank of the first relevant document (0 if none is retrieved).
    """
    root = spec.partition(".")[0]
    if root in NICKNAMES:
        return "".join(describe(name) for name in NICKNAMES[root])
    measure = BY_NAME.get(root)
    if measure is None:
        select([spec])  # raises the error naming the measure
        raise AssertionError(spec)  # pragma: no cover
    body = textwrap.fill(_DESCRIPTIONS[measure.name], 84, initial_indent="    ",
                         subsequent_indent="    ")
    text = f"{measure.name}\n{body}\n"
    if measure.defaults:
        values = ",".join(str(int(v)) if measure.kind == "cut_int" else f"{v:g}"
                          for v in measure.defaults)
        pair = "p=" if measure.name in PAIR_PARAMS else ""
        text += f"    Default param: -m {measure.name}.{pair}{values}\n"
    return text

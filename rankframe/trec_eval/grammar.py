"""The ``-m`` grammar: specs (``P.5,10``, ``ndcg.1=3,2=9``, nicknames) read into a
:data:`~rankframe.trec_eval.measures.Selection` in trec_eval's order, checked parameter by
parameter, and the short "did you mean" error for an unknown name."""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Sequence

from rankframe.errors import MeasureError
from rankframe.registry import PREFS_MEASURES as PREFS_MEASURE_NAMES
from rankframe.trec_eval.cnumbers import c_atof, c_atol
from rankframe.trec_eval.measures import (
    BY_NAME,
    MAX_R_MULTIPLE,
    NICKNAMES,
    PAIR_PARAMS,
    PARAMETRISED,
    PREFS_MEASURES,
    PREFS_NICKNAMES,
    TREC_MEASURES,
    UNSUPPORTED,
    VERBATIM,
    Params,
    Selection,
    Spelled,
    TrecMeasure,
)


def _number(spec: str, text: str, *, number: str = "expected a number",
            finite: str = "expected a finite number") -> float:
    """``text`` read as trec_eval reads it (C's ``atof``: the number it begins with) and
    finite; else a MeasureError ``-m spec: <number|finite>, got text`` (where nothing
    is a number, trec_eval reads 0: a listed departure)."""
    value, read = c_atof(text)
    if not read:
        raise MeasureError(f"-m {spec}: {number}, got {text!r}")
    if not math.isfinite(value):
        raise MeasureError(f"-m {spec}: {finite}, got {text!r}")
    return value


def _verbatim_params(spec: str, measure: TrecMeasure, text: str) -> tuple[str]:
    """utility's ``a,b,c,d`` or 11pt_avg's recall levels, checked, kept as written."""
    items = text.split(",")
    if measure.kind == "levels":
        levels = [_number(spec, item) for item in items]
        if not all(0 <= level <= 1 for level in levels) or len(set(levels)) != len(levels):
            raise MeasureError(f"-m {spec}: 11pt_avg takes distinct recall levels in [0, 1] "
                               f"(e.g. 11pt_avg.0.2,0.5,0.8), got {text!r}")
        return (text,)
    if len(items) != 4:
        raise MeasureError(f"-m {spec}: utility takes exactly 4 numbers a,b,c,d (the "
                           f"weights of rel_ret, nonrel_ret, rel_unret, nonrel_unret), "
                           f"got {len(items)}")
    for item in items:
        _number(spec, item)
    return (text,)


def gain_pairs(spec: str, text: str) -> dict[int, float]:
    """The gain per grade of ``-m ndcg.1=3,2=9`` (``text`` is ``1=3,2=9``): trec_eval's
    rel_level=gain pairs. A grade is an integer >= 0, each at most once; a gain a number.

    Examples
    --------
    >>> gain_pairs("ndcg.1=3,2=9.0,4=4.5", "1=3,2=9.0,4=4.5")
    {1: 3.0, 2: 9.0, 4: 4.5}
    """
    pairs: dict[int, float] = {}
    for item in text.split(","):
        level, sep, value = item.partition("=")
        if not sep:
            raise MeasureError(f"-m {spec}: expected grade=gain pairs (ndcg.1=3,2=9), "
                               f"got {item!r}")
        if not re.fullmatch(r"\+?[0-9]+", level, re.ASCII):  # trec_eval's valid_int, >= 0
            raise MeasureError(f"-m {spec}: a grade must be an integer >= 0, got {level!r} "
                               "(trec_eval ignores such a pair silently)")
        gain = _number(spec, value, number="a gain must be a number",
                       finite="a gain must be finite")
        if int(level) in pairs:
            raise MeasureError(f"-m {spec}: grade {int(level)} is given twice")
        pairs[int(level)] = gain
    return pairs


def _cutoff(text: str) -> int:
    """An integer cutoff as trec_eval's ``atol`` reads it: the integer the text begins with
    (``ndcg_cut.23.4`` is cutoff 23, ``P.1_0`` cutoff 1), 0 where it begins with none
    (ASCII digits only: ``P.٣`` is 0), so refused as not positive."""
    return c_atol(text)[0]


def _parse_params(spec: str, measure: TrecMeasure, text: str) -> Params:
    if measure.kind == "gain_pairs":
        gain_pairs(spec, text)  # checked here; kept as written, as trec_eval prints it
        return (text,)
    if measure.kind == "relstring":  # a number, its whole part the length (trec_eval's cast)
        given = c_atof(text)[0]  # trec_eval: atof, then (long) in m_relstring.c
        length = math.trunc(given) if math.isfinite(given) else 0
        if length < 1 or "," in text:
            raise MeasureError(f"-m {spec}: relstring takes a length, a number >= 1 (its "
                               f"whole part is used), got {text!r}")
        return (Spelled(length, text),)
    if measure.kind not in PARAMETRISED:
        raise MeasureError(f"-m {spec}: {measure.name} takes no parameters in rankframe")
    values: list[float] = []
    for item in text.split(","):
        key, equals, number = item.rpartition("=")
        if equals and (measure.name not in PAIR_PARAMS or key != "p"):
            raise MeasureError(
                f"-m {spec}: {measure.name} takes no {key!r}= parameter in rankframe"
                + (" (only p=VALUE, the persistence)" if measure.name in PAIR_PARAMS else ""))
        if measure.kind == "cut_int":
            value: float = _cutoff(number)
            if not c_atol(number)[1]:  # trec_eval reads 0 and refuses it
                raise MeasureError(f"-m {spec}: {measure.name} takes integer cutoffs (ASCII "
                                   f"digits, as trec_eval reads them), got {item!r}")
        else:
            value, read = c_atof(number)
            if not read or not math.isfinite(value):
                raise MeasureError(f"-m {spec}: {measure.name} takes numbers, got {item!r}")
        if measure.kind == "cut_int" and value <= 0:
            raise MeasureError(f"-m {spec}: cutoffs must be positive, got {value}")
        if measure.name == "iprec_at_recall" and not 0 <= value <= 1:
            raise MeasureError(f"-m {spec}: recall levels must lie in [0, 1], got {value}")
        if measure.name.startswith("Rprec_mult") and not 0 < value <= MAX_R_MULTIPLE:
            raise MeasureError(f"-m {spec}: multiples of R must lie in (0, {MAX_R_MULTIPLE:g}], "
                               f"got {value}")
        if measure.kind == "param_float" and measure.name == "set_F" and not value > 0:
            raise MeasureError(f"-m {spec}: the recall weight must be > 0, got {value}")
        if measure.kind == "param_float" and measure.name != "set_F" and not 0 < value < 1:
            raise MeasureError(f"-m {spec}: persistence must lie in (0, 1), got {value}")
        # trec_eval prints these as typed (set_F_2.0, rbp_p=0.80); cutoffs as numbers.
        values.append(Spelled(value, item) if measure.kind == "param_float" else value)
    if len(set(values)) != len(values):
        raise MeasureError(f"-m {spec}: duplicate parameters")
    return tuple(values)


def select(specs: Sequence[str] | None) -> Selection:
    """The measures that ``-m`` options select, in trec_eval's order.

    Each spec is ``name`` or ``name.p1,p2`` (a nickname such as ``official``,
    ``all_trec`` or ``all`` too). No specs (None) means ``official``. A measure selected
    with parameters several times gets the union of them (trec_eval would keep only the
    first ``-m``).

    Examples
    --------
    >>> [n for m, params in select(["map", "P.10,5"]) for n in m.names(params)]
    ['map', 'P_5', 'P_10']
    """
    chosen: dict[str, set[float | str] | None] = {}
    for spec in ["official"] if specs is None else specs:
        root, dot, params = spec.partition(".")
        if root in NICKNAMES and not dot:
            for name in NICKNAMES[root]:
                chosen.setdefault(name, None)
            continue
        measure = BY_NAME.get(root)
        if measure is None:
            if root in PREFS_NICKNAMES or root in PREFS_MEASURE_NAMES:
                raise MeasureError(f"-m {spec}: a preference measure; read the relevance file "
                                   "as preferences with -R prefs or -R qrels_prefs")
            if root in UNSUPPORTED:
                raise MeasureError(f"-m {spec}: trec_eval measure {root!r} is not supported "
                                   "by rankframe eval (rankframe eval -h lists the measures)")
            raise unknown_measure(spec, root)
        if dot and measure.kind in VERBATIM:  # as trec_eval: the first -m with parameters
            if chosen.get(root) is None:
                chosen[root] = set(_verbatim_params(spec, measure, params))
            continue
        if dot and measure.kind in ("gain_pairs", "relstring"):  # the first wins (trec_eval)
            if not chosen.get(root):
                chosen[root] = set(_parse_params(spec, measure, params))
        elif measure.kind in ("gain_pairs", "relstring"):
            chosen.setdefault(root, None)
        elif dot:
            values = set(_parse_params(spec, measure, params))
            if root in chosen:  # also chosen before: with its defaults, or its own params
                values = _union(chosen[root] or set(measure.defaults), values)
            chosen[root] = values
        elif root in chosen and chosen[root] is not None:
            chosen[root] = _union(chosen[root] or set(), set(measure.defaults))
        else:
            chosen[root] = None
    return [
        (m, None if chosen[m.name] is None else tuple(sorted(chosen[m.name] or ())))
        for m in TREC_MEASURES
        if m.name in chosen
    ]


def _union(earlier: set[float | str], later: set[float | str]) -> set[float | str]:
    """Parameters of two ``-m`` options for one measure: each value once, spelt as the
    first option that wrote it out wrote it (a default only where none did)."""
    merged = {float(v): v for v in earlier}
    for value in later:
        known = merged.get(float(value))
        if known is None or (isinstance(value, Spelled) and not isinstance(known, Spelled)):
            merged[float(value)] = value
    return set(merged.values())


def unknown_measure(spec: str | None, name: str, others: Sequence[str] = (), *,
                    label: str | None = None, valid: Callable[[str], bool] | None = None,
                    first: Sequence[str] = ()) -> MeasureError:
    """The one "did you mean" error for a measure whose ``name`` is no measure, on the
    command line (``-m spec``) and in the API (``spec`` None, ``label`` the measure string):
    the few known names closest to it (trec_eval's, its nicknames, then ``others``), a name
    in another case first (``p`` -> ``P``), each with the rest of what was written
    (``p.5`` -> ``P.5``) where ``valid`` accepts that, after the guesses ``first`` (a
    caller's respellings), never the list of every name.

    Examples
    --------
    >>> str(unknown_measure("ndcg_cutt.10", "ndcg_cutt")).partition(" (")[0]
    "-m ndcg_cutt.10: unknown measure 'ndcg_cutt'; did you mean ndcg_cut, ndcg_p, ndcg?"
    """
    written = (spec if spec is not None else label or name).strip()
    name = re.split(r"[@(]", name, maxsplit=1)[0]  # a measure string's name
    rest = written[len(name):] if written.startswith(name) else ""
    known: dict[str, str] = {}
    for candidate in (*BY_NAME, *NICKNAMES, *PREFS_NICKNAMES, *PREFS_MEASURE_NAMES, *others):
        known.setdefault(candidate.lower(), candidate)
    close = difflib.get_close_matches(name.lower(), list(known), n=4, cutoff=0.6)
    if name.lower() in known:  # the same name in another case: the likeliest
        close = [name.lower(), *(c for c in close if c != name.lower())][:4]
    guesses: list[str] = list(dict.fromkeys(first))
    for candidate in (known[c] for c in close):
        whole = candidate + rest
        guess = whole if rest and valid is not None and valid(whole) else candidate
        if guess not in guesses and guess != written:
            guesses.append(guess)
    guess = f"; did you mean {', '.join(guesses[:4])}?" if guesses else ""
    if spec is None:
        return MeasureError(
            f"unknown measure {written!r}{guess} (a measure string is name[(param=value, "
            "...)][@cutoff] such as ndcg@10, P(rel=2)@5, map or ndcg@5,10, or a trec_eval "
            "name such as P_10 or ndcg_cut_10)")
    return MeasureError(
        f"-m {spec}: unknown measure {name!r}{guess} (rankframe eval -h lists the measures: "
        "trec_eval's such as map, P.10 or ndcg_cut.10, nicknames such as official, measure "
        "strings such as ndcg@10)")


def select_prefs(specs: Sequence[str] | None) -> Selection:
    """The measures ``-m`` selects under ``-R prefs`` or ``-R qrels_prefs``, in trec_eval's
    order: :data:`PREFS_MEASURES`, ``runid``, ``num_q`` and the nicknames of
    :data:`PREFS_NICKNAMES`; None means ``prefs``. Other measures need qrels: an error.

    Examples
    --------
    >>> [m.name for m, _ in select_prefs(["prefs_pair", "num_q", "prefs_simp"])]
    ['num_q', 'prefs_simp', 'prefs_pair']
    """
    known = {m.name: m for m in (BY_NAME["runid"], BY_NAME["num_q"], *PREFS_MEASURES)}
    chosen: set[str] = set()
    for spec in ["prefs"] if specs is None else specs:
        root, dot, _ = spec.strip().partition(".")
        if root in PREFS_NICKNAMES and not dot:
            chosen.update(PREFS_NICKNAMES[root])
        elif root in known and not dot:
            chosen.add(root)
        elif root in known:
            raise MeasureError(f"-m {spec}: {root} takes no parameters")
        else:
            raise MeasureError(
                f"-m {spec}: not a preference measure; -R prefs and -R qrels_prefs compute "
                f"{', '.join(known)} (nicknames: {', '.join(PREFS_NICKNAMES)})")
    return [(m, None) for m in known.values() if m.name in chosen]


def is_spec(spec: str) -> bool:
    """Whether ``spec`` is trec_eval's ``-m`` syntax (a trec_eval measure or nickname, with
    or without ``.params``) rather than a rankframe measure string such as ``ndcg@10``.

    Examples
    --------
    >>> is_spec("ndcg_cut.10"), is_spec("P"), is_spec("ndcg@10"), is_spec("iprec@0.5")
    (True, True, False, False)
    """
    root = spec.strip().partition(".")[0]
    return (root in BY_NAME or root in NICKNAMES or root in UNSUPPORTED
            or root in PREFS_NICKNAMES or root in PREFS_MEASURE_NAMES)


def expand(spec: str) -> list[str]:
    """The printed names one ``-m`` spec selects, in trec_eval's order; each is also a
    rankframe measure string.

    Examples
    --------
    >>> expand("P.10,5"), expand("ndcg_cut.10")
    (['P_5', 'P_10'], ['ndcg_cut_10'])
    """
    return [name for m, params in select([spec.strip()]) for name in m.names(params)]


def spec_of(name: str) -> str:
    """The ``-m`` spec that selects the printed name ``name`` alone (the inverse of
    :func:`expand` for one name).

    Examples
    --------
    >>> spec_of("ndcg_cut_10"), spec_of("rbp_resid_0.5"), spec_of("map")
    ('ndcg_cut.10', 'rbp_resid.0.5', 'map')
    """
    if name in BY_NAME:
        return name
    for measure in sorted(TREC_MEASURES, key=lambda m: -len(m.name)):  # rbp_resid before rbp
        if measure.kind == "gain_pairs" and name.startswith(measure.name + "_") and "=" in name:
            return f"{measure.name}.{name[len(measure.name) + 1:]}"
        if (measure.kind in (*PARAMETRISED, "relstring", *VERBATIM)
                and name.startswith(measure.name + "_")):
            return f"{measure.name}.{name[len(measure.name) + 1:]}"
    raise MeasureError(f"{name!r} is not a printed trec_eval measure name")

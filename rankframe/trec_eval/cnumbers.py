"""Numbers in ``-m`` parameters read as trec_eval 10 reads them: C's ``atol`` and ``atof``
in the C locale (meas_init.c, gain_init.c), not Python's ``int()`` and ``float()``.

Both read the longest prefix that is a number after leading C white space and ignore the
rest: ``atol("1_0")`` is 1, ``atol("23.4")`` 23, ``atol("5x")`` 5; only ASCII digits count,
so ``atol("\u0663")`` (an Arabic-Indic three) and a fullwidth three are 0, where Python's
``int()`` reads 3. Nothing readable is 0 for trec_eval; here the count of characters read
is returned too, so that rankframe can refuse a parameter that holds no number at all.
"""

from __future__ import annotations

import re

__all__ = ["c_atof", "c_atol"]

#: C's isspace() in the C locale.
_SPACE = " \t\n\v\f\r"
_LONG_MAX = 2**63 - 1
_LONG_MIN = -(2**63)
_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
#: strtod's forms: a hexadecimal float, infinity, NaN (with an optional n-char sequence),
#: a decimal float (the exponent only when digits follow it).
_HEX = re.compile(r"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
                  r"(?:[pP][+-]?[0-9]+)?", re.ASCII)
_SPECIAL = re.compile(r"[+-]?(?:inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)", re.ASCII | re.I)
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


def _skip_space(text: str) -> int:
    start = 0
    while start < len(text) and text[start] in _SPACE:
        start += 1
    return start


def c_atol(text: str) -> tuple[int, int]:
    """``(value, read)``: C's ``atol(text)`` (``strtol`` base 10: saturated at the bounds
    of a 64-bit long) and the count of characters it read (0: no number, value 0).

    Examples
    --------
    >>> c_atol("1_0"), c_atol(" +23.4"), c_atol("٣"), c_atol("x")
    ((1, 1), (23, 4), (0, 0), (0, 0))
    """
    start = _skip_space(text)
    match = _INTEGER.match(text, start)
    if match is None:
        return 0, 0
    return max(_LONG_MIN, min(_LONG_MAX, int(match.group()))), match.end()


def c_atof(text: str) -> tuple[float, int]:
    """``(value, read)``: C's ``atof(text)`` (``strtod``: decimal or hexadecimal, ``inf``,
    ``nan``, correctly rounded) and the count of characters it read (0: no number).

    Examples
    --------
    >>> c_atof("0.5x"), c_atof("1e"), c_atof("0x1p-1"), c_atof("٣")
    ((0.5, 3), (1.0, 1), (0.5, 6), (0.0, 0))
    """
    start = _skip_space(text)
    for pattern in (_HEX, _SPECIAL, _DECIMAL):
        match = pattern.match(text, start)
        if match is None:
            continue
        number = match.group()
        if pattern is _HEX:
            value = float.fromhex(number)
        elif pattern is _SPECIAL:
            value = float(number.split("(")[0])
        else:
            value = float(number)
        return value, match.end()
    return 0.0, 0

"""Formatting results the way the papers print them (effect sizes, p-values, marks)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from biaslib.stats.multiple_testing import holm_bonferroni

__all__ = [
    "bold_marks",
    "format_d",
    "format_p",
    "format_tail_p",
    "holm_marks",
    "marked_table",
    "robust_format",
    "round_table",
    "significance_flag",
    "significance_mark",
]


def format_p(p: float, digits: int = 2) -> str:
    """A p-value as printed in tables: ``0.023``, ``4.0e-05``; ``"–"`` for a missing one."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "–"
    if not 0 <= p <= 1:
        raise ValueError(f"not a p-value: {p}")
    if p == 0:
        return "0"
    if p >= 10 ** -(digits + 1):
        return f"{p:.{digits + 1}f}".rstrip("0").rstrip(".") if p < 1 else "1"
    return f"{p:.{digits - 1}e}"


def robust_format(value: float, spec: str = ".2f", rel: float = 1e-4, atol: float = 1e-6,
                  *, unsigned_zero: bool = False) -> str:
    """``format(value, spec)``, refused when noise could print it otherwise.

    A number computed live from a neural model differs between CPUs in its last bits
    (CONTRIBUTING §2), so a notebook may print it only to digits that such noise cannot
    change. This checks ``value·(1 ± rel) ± atol`` (``atol`` for values near 0)
    against the same format; a value on a rounding boundary raises instead of printing a
    digit that another machine would print differently.

    With ``unsigned_zero`` a value that rounds to zero prints without its sign (``0.00``,
    not ``-0.00``), so noise that carries it across zero prints the same.

    Raises
    ------
    ValueError
        If a nudged value formats differently, naming the value and the format.
    """
    def printed(v: float) -> str:
        text = format(v, spec)
        if unsigned_zero and text.startswith("-") and not any(c in "123456789" for c in text):
            return text[1:]
        return text

    text = printed(value)
    for nudged in (value * (1 + rel) + atol, value * (1 - rel) - atol):
        if printed(nudged) != text:
            raise ValueError(
                f"{value!r} lies on a rounding boundary of {spec!r}: noise of {rel:g} "
                f"could print {printed(nudged)!r} instead of {text!r}; print fewer digits"
            )
    return text


def format_tail_p(p: float, digits: int = 2) -> str:
    """A p-value read off a normal or χ² tail, where 0 means the tail underflowed.

    ``scipy.stats.norm.sf`` returns 0 below about 1e-308; such a p-value is
    printed as ``"< 1e-300"`` rather than as a p of exactly zero. Otherwise as
    :func:`format_p`.
    """
    return "< 1e-300" if p == 0 else format_p(p, digits)


def significance_mark(p: float, alpha: float = 0.01, corrected: bool | None = None) -> str:
    """Significance marks of May et al. (2019), Table 4.

    ``*``: significant at ``alpha``; ``**``: also after the multiple-testing correction.

    Parameters
    ----------
    p
        Uncorrected p-value.
    alpha
        Significance level (May et al.: 0.01).
    corrected
        Whether the test is still significant after the Holm–Bonferroni
        correction (``None``: not computed, so at most one star).
    """
    if not p <= alpha:
        return ""
    return "**" if corrected else "*"


def holm_marks(p_values: Sequence[float], alpha: float = 0.01) -> list[str]:
    """May et al.'s marks for a whole family of tests: ``*`` p ≤ alpha, ``**`` also after Holm.

    Missing p-values (tests that could not run) get no mark and are left out
    of the family.
    """
    p = np.asarray(p_values, dtype=float)
    ok = ~np.isnan(p)
    corrected = np.zeros(p.size, dtype=bool)
    if ok.any():
        corrected[ok] = holm_bonferroni(p[ok], alpha)[0]
    return [
        "" if not ok[i] else significance_mark(float(p[i]), alpha, bool(corrected[i]))
        for i in range(p.size)
    ]


def round_table(frame: pd.DataFrame, digits: int = 4) -> pd.DataFrame:
    """Round a table's numeric columns for display, showing no ``-0.0``.

    A value that is zero up to float noise (a cosine of orthogonal vectors,
    an effect size of a symmetric construction) rounds to ``-0.0`` or ``0.0``
    depending on the sign the noise happens to take, which can differ between
    CPUs; adding ``0.0`` turns ``-0.0`` into ``0.0`` (IEEE 754), so the shown
    digits do not depend on it.

    Examples
    --------
    >>> round_table(pd.DataFrame({"x": [-1e-17, 0.12345], "n": [1, 2], "w": ["a", "b"]}), 3)
           x  n  w
    0  0.000  1  a
    1  0.123  2  b
    """
    out = frame.round(digits)
    floats = out.select_dtypes("floating").columns  # integer columns stay integers
    out[floats] = out[floats] + 0.0
    return out


def format_d(d: float, mark: str = "") -> str:
    """An effect size as the papers print it (two decimals, minus sign, marks); ``–`` if missing."""
    if d is None or (isinstance(d, float) and math.isnan(d)):
        return "–"
    return f"{d:.2f}{mark}".replace("-", "−")


def significance_flag(value: object) -> bool:
    """A significance flag from a table cell: a bool, or its text ("True", "false") from a CSV.

    Raises
    ------
    ValueError
        If a text cell is neither ``true`` nor ``false`` (any case).
    """
    if isinstance(value, str):
        if value.strip().lower() not in ("true", "false"):
            raise ValueError(f"not a significance flag: {value!r}")
        return value.strip().lower() == "true"
    return bool(value)


def bold_marks(sig: pd.Series) -> list[str]:
    """``*`` where a published result is bold (``sig`` True), else nothing (False, unknown)."""
    return sig.map({True: "*", False: ""}).fillna("").tolist()


def marked_table(
    frame: pd.DataFrame,
    *,
    index: str | Sequence[str],
    columns: str,
    values: str,
    marks: Sequence[str],
    order: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Effect sizes as the papers print them, one column per value of ``columns``.

    Each cell is :func:`format_d` of ``frame[values]`` with its mark from
    ``marks`` (one per row of ``frame``). Columns follow ``order`` (those
    present), or their first appearance in ``frame``.
    """
    cells = [format_d(d, m) for d, m in zip(frame[values], marks, strict=True)]
    wide = frame.assign(_cell=cells).pivot_table(index=index, columns=columns, values="_cell",
                                                 aggfunc="first")
    order = list(dict.fromkeys(frame[columns])) if order is None else order
    return wide[[c for c in order if c in wide.columns]]

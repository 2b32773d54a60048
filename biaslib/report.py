"""Formatting results the way the papers print them (effect sizes, p-values, marks)."""

from __future__ import annotations

import math

__all__ = ["format_p", "significance_mark"]


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

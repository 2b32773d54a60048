r"""Confidence intervals of a correlation coefficient through Fisher's z-transform.

:func:`fisher_interval` gives
:math:`\tanh(\operatorname{artanh} r \pm z_{1-\alpha/2}\,\mathrm{SE})` for Pearson's
:math:`r`, Spearman's :math:`\rho` or Kendall's :math:`\tau`, each with its own
standard error (:data:`_SE_RULES`). scipy offers the interval only for Pearson's
:math:`r` (:meth:`scipy.stats.PearsonRResult.confidence_interval`, the ``"fisher"``
rule here, which the tests check against it); the rank correlations' rules
(Bonett & Wright 2000; Fieller, Hartley & Pearson 1957) are in neither scipy nor
statsmodels. The agreement chapter (``biasbook.agree``) puts them on
the rank correlations between bias metrics, as Mind Your Bias's Table 5 does with
Pearson's :math:`r` between methods.

References
----------
Bonett, D. G. & Wright, T. A. (2000). Sample size requirements for estimating Pearson,
Kendall and Spearman correlations. *Psychometrika* 65(1), 23–28.
Fieller, E. C., Hartley, H. O. & Pearson, E. S. (1957). Tests for rank correlation
coefficients. I. *Biometrika* 44(3/4), 470–481.
"""

from __future__ import annotations

import math
from typing import Literal

from scipy import stats

__all__ = ["fisher_interval"]

#: The standard error of :math:`\operatorname{artanh} r` for ``n`` pairs, by rule.
_SE_RULES = {
    "fisher": lambda r, n: 1.0 / math.sqrt(n - 3),
    "bonett-wright": lambda r, n: math.sqrt((1.0 + r * r / 2.0) / (n - 3)),
    "fieller": lambda r, n: math.sqrt(0.437 / (n - 4)),
}


def fisher_interval(r: float, n: int, se: Literal["fisher", "bonett-wright", "fieller"],
                    confidence: float = 0.95) -> tuple[float, float]:
    r"""A confidence interval for a correlation through Fisher's z-transform.

    :math:`\tanh(\operatorname{artanh} r \pm z_{1-\alpha/2}\,\mathrm{SE})`, with the standard
    error of ``se``: ``"fisher"`` :math:`1/\sqrt{n-3}` (Pearson's r; what
    :meth:`scipy.stats.PearsonRResult.confidence_interval` uses), ``"bonett-wright"``
    :math:`\sqrt{(1 + r^2/2)/(n-3)}` (Spearman's ρ; Bonett & Wright 2000, Psychometrika
    65(1), eq. 4's variance), ``"fieller"`` :math:`\sqrt{0.437/(n-4)}` (Kendall's τ;
    Fieller, Hartley & Pearson 1957). At :math:`|r| = 1` the transform is infinite and
    the interval is the point :math:`(r, r)`.

    Raises
    ------
    ValueError
        If ``n`` is too small for the rule (4 for Fisher and Bonett–Wright, 5 for
        Fieller), ``r`` lies outside [−1, 1] or ``se`` is unknown.

    Examples
    --------
    >>> lo, hi = fisher_interval(0.5, 12, "fisher")
    >>> round(lo, 3), round(hi, 3)
    (-0.104, 0.834)
    """
    if se not in _SE_RULES:
        raise ValueError(f"se must be one of {sorted(_SE_RULES)}, got {se!r}")
    least = 5 if se == "fieller" else 4
    if n < least:
        raise ValueError(f"a {se} interval needs at least {least} pairs, got {n}")
    if not -1.0 <= r <= 1.0:
        raise ValueError(f"a correlation lies in [-1, 1], got {r}")
    if abs(r) == 1.0:
        return r, r
    z = math.atanh(r)
    half = stats.norm.ppf(0.5 + confidence / 2) * _SE_RULES[se](r, n)
    return math.tanh(z - half), math.tanh(z + half)

r"""Confidence intervals of a standardised mean difference such as the WEAT's :math:`d`.

The WEAT's effect size (and SEAT's, w-SEAT's and ML-EAT's level 1) comes with
a permutation p-value but no interval of its own. :func:`d_confidence_interval`
gives the large-sample normal approximation for a standardised mean
difference (Hedges & Olkin 1985, eq. 5.14):

.. math::

    \widehat{\operatorname{Var}}(d) = \frac{n_X + n_Y}{n_X n_Y} + \frac{d^2}{2 (n_X + n_Y)},
    \qquad d \pm z_{1-\alpha/2} \sqrt{\widehat{\operatorname{Var}}(d)}

Neither scipy nor statsmodels offers this from :math:`d` and the two sizes:
``scipy.stats`` has no effect-size interval, and
``statsmodels.stats.meta_analysis.effectsize_smd`` starts from the groups'
means and SDs, applies Hedges' small-sample correction to :math:`d` and
divides :math:`d^2` by :math:`2(n - 3.94)` instead of :math:`2n` — a different
(bias-corrected) interval, which would change the book's numbers.

References
----------
Hedges, L. V. & Olkin, I. (1985). *Statistical Methods for Meta-Analysis*. Academic Press.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["d_confidence_interval"]


def d_confidence_interval(
    d: float, n_x: int, n_y: int, confidence: float = 0.95
) -> tuple[float, float]:
    r"""Approximate CI of a standardised mean difference (Hedges & Olkin 1985).

    :math:`d \pm z \sqrt{(n_X + n_Y)/(n_X n_Y) + d^2 / (2 (n_X + n_Y))}`, the
    large-sample normal approximation. It is only approximate for the WEAT's
    :math:`d`: it assumes independent, normally distributed association scores
    and a pooled within-group SD, while the WEAT's :math:`d` divides by the SD
    of all :math:`n_X + n_Y` scores, and template sentences share words (so
    the items are not independent and the interval is too narrow for them).
    NaN bounds when :math:`d` is NaN or a size is below 2.

    Parameters
    ----------
    d
        The effect size.
    n_x, n_y
        The numbers of target items (words or sentences) it was computed on.
    confidence
        The interval's coverage, in (0, 1).

    Returns
    -------
    tuple of float
        The lower and upper bound.

    Raises
    ------
    ValueError
        If ``confidence`` is not in (0, 1).

    Examples
    --------
    >>> lo, hi = d_confidence_interval(1.0, 25, 25)
    >>> round(lo, 3), round(hi, 3)
    (0.412, 1.588)
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    if not np.isfinite(d) or n_x < 2 or n_y < 2:
        return float("nan"), float("nan")
    n = n_x + n_y
    se = float(np.sqrt(n / (n_x * n_y) + d * d / (2 * n)))
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    return float(d - z * se), float(d + z * se)

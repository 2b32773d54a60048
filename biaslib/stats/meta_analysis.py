r"""Random-effects meta-analysis: DerSimonian & Laird's combination of effect sizes.

CEAT (Guo & Caliskan, 2021) combines the effect sizes of its :math:`N` samples
with the DerSimonian–Laird random-effects model; with within variances
:math:`v_i` and weights :math:`w_i = 1/v_i`:

.. math::

    \begin{aligned}
    Q &= \sum_i w_i d_i^2 - \frac{(\sum_i w_i d_i)^2}{\sum_i w_i}, \qquad
    c = \sum_i w_i - \frac{\sum_i w_i^2}{\sum_i w_i}, \\
    \tau^2 &= \max\!\left(0, \frac{Q - (N-1)}{c}\right), \qquad
    w_i^* = \frac{1}{v_i + \tau^2}, \\
    \mathrm{CES} &= \frac{\sum_i w_i^* d_i}{\sum_i w_i^*}, \qquad
    \mathrm{SE} = \sqrt{1 / \textstyle\sum_i w_i^*}, \qquad
    z = \mathrm{CES} / \mathrm{SE},
    \end{aligned}

one-sided :math:`p = 1 - \Phi(z)` (the original CEAT), two-sided
:math:`2(1 - \Phi(|z|))` (Mind Your Bias), and with them the 95% confidence
interval, Cochran's :math:`Q` test, :math:`I^2` and Mind Your Bias's "weighted
SD" (the weighted variance of the :math:`d_i`).

References
----------
DerSimonian, R. & Laird, N. (1986). Meta-analysis in clinical trials.
Controlled Clinical Trials 7(3), 177–188.
Borenstein, M., Hedges, L. V., Higgins, J. P. T. & Rothstein, H. R. (2009).
Introduction to Meta-Analysis, ch. 12 and 16.
Higgins, J. P. T. & Thompson, S. G. (2002). Quantifying heterogeneity in a
meta-analysis. Statistics in Medicine 21, 1539–1558.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from biaslib.validation import real_array

__all__ = ["META_TAILS", "MetaAnalysis", "MetaTail", "random_effects"]

#: The tail of the combined effect size's p-value: ``"greater"``: one-sided
#: :math:`1 - \Phi(z)`; ``"two-sided"``: :math:`2(1 - \Phi(|z|))` (two of the
#: permutation test's tails, :data:`biaslib.stats.permutation.Tail`).
MetaTail = Literal["greater", "two-sided"]
#: The values of :data:`MetaTail`.
META_TAILS = ("greater", "two-sided")


@dataclass(frozen=True)
class MetaAnalysis:
    r"""DerSimonian–Laird random-effects combination of per-sample effect sizes.

    Attributes
    ----------
    ces
        Combined effect size (weighted mean with weights :math:`1/(v_i+\tau^2)`).
    se
        Its standard error :math:`\sqrt{1/\sum_i w_i^*}`.
    z
        ``ces / se``.
    p_value
        P-value for ``tail``.
    tail
        ``"greater"`` or ``"two-sided"``.
    tau2
        Between-sample variance :math:`\tau^2`.
    q
        Cochran's :math:`Q` (weights :math:`1/v_i`).
    df
        :math:`N - 1`.
    c
        The scaling factor :math:`\sum w - \sum w^2 / \sum w`.
    n
        Number of effect sizes combined.
    weighted_variance
        The weighted variance of the per-sample effect sizes,
        :math:`\frac{\sum_i w_i^* (d_i - \mathrm{CES})^2}{\sum_i w_i^*}
        \cdot \frac{N}{N-1}` — what Mind Your Bias's result file and tables
        call "weighted SD" (their column is about the square of the SD of the
        :math:`d_i`, i.e. a variance, not :math:`1/\sum_i w_i^*`).
    """

    ces: float
    se: float
    z: float
    p_value: float
    tail: MetaTail
    tau2: float
    q: float
    df: int
    c: float
    n: int
    weighted_variance: float

    @property
    def variance(self) -> float:
        r""":math:`\mathrm{SE}^2 = 1/\sum_i w_i^*`, the variance of the CES itself."""
        return self.se**2

    def conf_int(self, alpha: float = 0.05) -> tuple[float, float]:
        r"""Normal confidence interval of the CES.

        :math:`\mathrm{CES} \pm z_{1-\alpha/2}\,\mathrm{SE}`: the same interval as
        ``statsmodels``' ``CombineResults.conf_int(use_t=False)`` for the
        random-effects mean.
        """
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {alpha}")
        half = float(stats.norm.isf(alpha / 2)) * self.se
        return self.ces - half, self.ces + half

    @property
    def i2(self) -> float:
        r"""Higgins & Thompson's :math:`I^2 = \max(0, (Q - \mathrm{df})/Q)`.

        The share of the spread of the :math:`d_i` beyond what their within
        variances explain.
        """
        return max(0.0, (self.q - self.df) / self.q) if self.q > 0 else 0.0

    @property
    def q_p_value(self) -> float:
        r"""Cochran's test of homogeneity: :math:`P(\chi^2_{\mathrm{df}} \ge Q)`."""
        return float(stats.chi2.sf(self.q, self.df))

    @property
    def p_one_sided(self) -> float:
        r""":math:`1 - \Phi(z)` (the original CEAT's p-value)."""
        return float(stats.norm.sf(self.z))

    @property
    def p_two_sided(self) -> float:
        r""":math:`2(1 - \Phi(|z|))` (Mind Your Bias's p-value)."""
        return float(2 * stats.norm.sf(abs(self.z)))


def random_effects(
    effects: ArrayLike, variances: ArrayLike, tail: MetaTail = "two-sided"
) -> MetaAnalysis:
    r"""Combine effect sizes with the DerSimonian–Laird random-effects model.

    The formulas of the module docstring (DerSimonian & Laird, 1986;
    Borenstein et al., 2009, ch. 12), as both CEAT implementations compute
    them. :math:`Q` is computed in the numerically stable form
    :math:`\sum_i w_i (d_i - \bar d_w)^2`, algebraically equal to
    :math:`\sum w d^2 - (\sum w d)^2 / \sum w`.

    Written here rather than delegated to
    ``statsmodels.stats.meta_analysis.combine_effects(method_re="dl")``:
    statsmodels does not truncate :math:`\tau^2` at zero, so for homogeneous
    samples (:math:`Q < N-1`) it returns a negative :math:`\tau^2` and a
    different CES, while DerSimonian–Laird and both CEAT implementations set
    :math:`\tau^2 = 0`. The tests check this function against statsmodels
    where the two agree (:math:`Q > N-1`), against CEAT's own formulation and
    against a hand-worked example.

    Parameters
    ----------
    effects
        Per-sample effect sizes :math:`d_i`, shape ``(N,)``.
    variances
        Per-sample within variances :math:`v_i > 0`, shape ``(N,)``.
    tail
        ``"greater"`` (one-sided, the original CEAT) or ``"two-sided"``
        (Mind Your Bias).

    Returns
    -------
    MetaAnalysis

    Raises
    ------
    ValueError
        For mismatched shapes, fewer than two effect sizes, non-finite
        values, or a non-positive variance.

    Examples
    --------
    Four effect sizes that vary more than their within variances explain
    (:math:`Q > N - 1`), so :math:`\tau^2 > 0`:

    >>> from biaslib.stats.meta_analysis import random_effects
    >>> meta = random_effects([0.2, 0.9, 0.6, 1.1], [0.01, 0.02, 0.01, 0.02])
    >>> round(meta.ces, 4), round(meta.se, 4), round(meta.tau2, 4), round(meta.q, 4)
    (0.6902, 0.1958, 0.1385, 33.0)
    >>> round(meta.p_value, 4), round(meta.p_one_sided, 4), round(meta.i2, 4)
    (0.0004, 0.0002, 0.9091)
    >>> [round(bound, 4) for bound in meta.conf_int()]
    [0.3065, 1.0739]

    Homogeneous effect sizes (:math:`Q < N - 1`): :math:`\tau^2` is truncated
    at zero and the CES is the fixed-effect mean.

    >>> random_effects([0.5, 0.7, 0.6, 0.4], [0.04, 0.05, 0.04, 0.06]).tau2
    0.0
    """
    d = real_array(effects, "effects").ravel()
    v = real_array(variances, "variances").ravel()
    if d.shape != v.shape:
        raise ValueError(f"effects {d.shape} and variances {v.shape} differ in shape")
    if d.size < 2:
        raise ValueError("a random-effects model needs at least two effect sizes")
    if not (np.isfinite(d).all() and np.isfinite(v).all()):
        raise ValueError("effect sizes and variances must be finite")
    if (v <= 0).any():
        raise ValueError("within-sample variances must be positive")
    if tail not in META_TAILS:
        raise ValueError(f"tail must be one of {META_TAILS}")
    w = 1.0 / v
    sw = w.sum()
    mean_fixed = float((w * d).sum() / sw)
    q = float((w * (d - mean_fixed) ** 2).sum())
    df = d.size - 1
    c = float(sw - (w**2).sum() / sw)
    tau2 = max(0.0, (q - df) / c) if c > 0 else 0.0
    w_star = 1.0 / (v + tau2)
    ces = float((w_star * d).sum() / w_star.sum())
    se = float(np.sqrt(1.0 / w_star.sum()))
    z = ces / se
    p = stats.norm.sf(z) if tail == "greater" else 2 * stats.norm.sf(abs(z))
    weighted_variance = float((w_star * (d - ces) ** 2).sum() / w_star.sum() * d.size / df)
    return MetaAnalysis(ces=ces, se=se, z=float(z), p_value=float(p), tail=tail,
                        tau2=float(tau2), q=q, df=df, c=c, n=int(d.size),
                        weighted_variance=weighted_variance)

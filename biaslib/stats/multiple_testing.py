"""Holm–Bonferroni correction for families of tests (May et al. 2019, Table 4)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from statsmodels.stats.multitest import multipletests

__all__ = ["holm_bonferroni"]


def holm_bonferroni(
    p_values: ArrayLike, alpha: float = 0.01
) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    r"""Holm's step-down correction (Holm, 1979), via statsmodels.

    With the :math:`m` p-values sorted ascending, :math:`p_{(1)} \le \dots \le p_{(m)}`,
    hypothesis :math:`(k)` is rejected when
    :math:`p_{(j)} \le \alpha / (m - j + 1)` for every :math:`j \le k`. The
    adjusted p-values are
    :math:`\tilde p_{(k)} = \max_{j \le k} \min(1, (m - j + 1)\, p_{(j)})`.

    May et al. (2019) apply it at :math:`\alpha = 0.01` over *all* their tests
    and models ("**" in Table 4), so the family passed here decides the result.

    Parameters
    ----------
    p_values
        One p-value per test in the family.
    alpha
        Family-wise error rate.

    Returns
    -------
    reject, p_adjusted
        Boolean array (reject at ``alpha``) and Holm-adjusted p-values, in the
        input order.
    """
    p = np.asarray(p_values, dtype=np.float64).ravel()
    if p.size == 0:
        raise ValueError("Holm–Bonferroni needs at least one p-value")
    if not np.isfinite(p).all() or (p < 0).any() or (p > 1).any():
        raise ValueError("p-values must be finite numbers in [0, 1]")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    reject, p_adj, _, _ = multipletests(p, alpha=alpha, method="holm")
    return reject.astype(bool), p_adj.astype(np.float64)

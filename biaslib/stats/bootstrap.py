r"""Bootstrap intervals: the percentile bootstrap of a mean, drawn in one vectorised step.

Used for SAME's interval in an audit (:mod:`biaslib.audit.parts`): SAME (Schröder et al.
2021, eq. 37) is a mean of per-word scores, so resampling the scored words shows how
much it depends on which words were chosen.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from biaslib.validation import check_int, check_seed, real_array

__all__ = ["bootstrap_mean_interval"]


def bootstrap_mean_interval(
    scores: ArrayLike, *, n_resamples: int = 10_000, seed: int = 1111,
    confidence: float = 0.95,
) -> tuple[float, float]:
    r"""Percentile bootstrap interval of the mean of ``scores`` (Efron & Tibshirani 1993, ch. 13).

    Draws :math:`B` = ``n_resamples`` samples of the :math:`N` scores with replacement,
    all at once as one ``(B, N)`` index matrix
    ``numpy.random.default_rng(seed).integers(0, N, size=(B, N))``, takes each sample's
    mean :math:`\bar s^*_b`, and returns the :math:`(1-c)/2` and :math:`(1+c)/2`
    percentiles of the :math:`\bar s^*_b` (``numpy.percentile``, linear interpolation),
    :math:`c` = ``confidence``. The draw is written out rather than left to
    :func:`scipy.stats.bootstrap`, whose batching and percentile rule have changed
    between scipy versions: here the same seed gives the same interval everywhere numpy
    keeps :class:`~numpy.random.PCG64` stable.

    For SAME (Schröder et al. 2021, eq. 37) the scores are the attribute words'
    :math:`|\cos(w, \hat x - \hat y)|`: the interval shows how much SAME depends on which
    attribute words were chosen, with the bias direction held fixed.

    Parameters
    ----------
    scores
        The :math:`N \ge 2` finite scores whose mean is the statistic.
    n_resamples
        :math:`B`, at least 1.
    seed
        Seed of :func:`numpy.random.default_rng`.
    confidence
        Coverage, in (0, 1).

    Returns
    -------
    tuple of float
        The lower and upper bound.

    Raises
    ------
    ValueError
        For fewer than two scores, a NaN or infinite score, ``n_resamples`` below 1 or
        ``confidence`` outside (0, 1).
    TypeError
        For scores that are not real numbers, an ``n_resamples`` that is not an int or a
        seed that is not one (:mod:`biaslib.validation`).
    """
    values = real_array(scores, "scores").ravel()
    n_resamples = check_int(n_resamples, "n_resamples", minimum=1)
    seed = check_seed(seed)
    if values.size < 2:
        raise ValueError(f"scores: a bootstrap interval needs at least 2 scores, got "
                         f"{values.size}")
    if not np.isfinite(values).all():
        raise ValueError("scores contain NaN or infinite values: a bootstrap needs finite "
                         "scores")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    rng = np.random.default_rng(seed)
    index = rng.integers(0, values.size, size=(n_resamples, values.size))
    means = values[index].mean(axis=1)
    low, high = np.percentile(means, [50 * (1 - confidence), 50 * (1 + confidence)])
    return float(low), float(high)

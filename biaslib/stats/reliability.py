r"""Reliability coefficients: how much of a score's spread is signal, as psychometrics asks.

Three classical coefficients, each with its confidence interval:

- :func:`intraclass_correlation` — the intraclass correlation of :math:`n` subjects
  rated by :math:`k` raters (Shrout & Fleiss 1979; McGraw & Wong 1996). In the book the
  subjects are bias tests or words and the "raters" are embeddings retrained with
  different seeds: test–retest reliability across training runs (Du, Fang & Nguyen 2021).
- :func:`cronbach_alpha` — internal consistency of a score that sums :math:`k` items
  (Cronbach 1951), with Feldt's (1965) interval.
- :func:`split_half_reliability` — the correlation between the scores of two random
  halves of the items, stepped up to full length by the Spearman–Brown formula
  (:func:`spearman_brown`), averaged over many random splits (Parsons, Kruijt & Fox
  2019), with the words a test needs for a target reliability (:func:`items_needed`).

For a bias test the *subjects* are the words a test scores and the *items* are the
words it scores them against: the WEAT's association :math:`s(w, A, B)` of a target
word is the mean of its cosines with the attribute words of :math:`A` minus that with
:math:`B`, so each attribute word is one item (:mod:`biaslib.evaluate.reliability`).

The coefficients are written out here (no peer library is a dependency of biaslib);
``tests/test_reliability.py`` checks every value and interval against pingouin's
``intraclass_corr`` and ``cronbach_alpha``. Pure numpy/scipy.

References
----------
Cronbach, L. J. (1951). Coefficient alpha and the internal structure of tests.
*Psychometrika* 16(3), 297–334.
Feldt, L. S. (1965). The approximate sampling distribution of Kuder–Richardson
reliability coefficient twenty. *Psychometrika* 30(3), 357–370.
McGraw, K. O. & Wong, S. P. (1996). Forming inferences about some intraclass correlation
coefficients. *Psychological Methods* 1(1), 30–46.
Parsons, S., Kruijt, A.-W. & Fox, E. (2019). Psychological science needs a standard
practice of reporting the reliability of cognitive-behavioral measurements. *Advances in
Methods and Practices in Psychological Science* 2(4), 378–395.
Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater
reliability. *Psychological Bulletin* 86(2), 420–428.
Spearman, C. (1910); Brown, W. (1910). *British Journal of Psychology* 3, 271–295; 296–322.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from biaslib.stats.correlation_ci import fisher_interval
from biaslib.validation import check_int, check_number, check_seed, real_array

__all__ = ["ICC_MODELS", "Reliability", "SplitHalf", "cronbach_alpha", "distinct_splits",
           "intraclass_correlation",
           "items_needed", "random_halves", "spearman_brown", "spearman_brown_factor",
           "split_half_from_halves", "split_half_reliability", "stratified_alpha"]

#: The intraclass correlations :func:`intraclass_correlation` computes, by McGraw & Wong's
#: names (Shrout & Fleiss's in brackets): one-way random (ICC(1)), two-way absolute
#: agreement (ICC(2)), two-way consistency (ICC(3)).
ICC_MODELS = ("oneway", "agreement", "consistency")


@dataclass(frozen=True)
class Reliability:
    """A reliability coefficient with its interval.

    Attributes
    ----------
    value
        The coefficient (at most 1; it can be negative when the parts disagree more than
        chance would make them).
    ci_low, ci_high
        Its ``confidence`` interval.
    method
        Which coefficient, e.g. ``"ICC(A,1)"``, ``"Cronbach's alpha"``.
    n_subjects
        The subjects (rows) it was computed over.
    n_items
        The items, raters or (split-half) items split in two (columns).
    confidence
        The interval's coverage.
    """

    value: float
    ci_low: float
    ci_high: float
    method: str
    n_subjects: int
    n_items: int
    confidence: float = 0.95


@dataclass(frozen=True)
class SplitHalf(Reliability):
    """A split-half reliability (:func:`split_half_reliability`).

    Attributes
    ----------
    uncorrected
        The mean over splits of the half-length correlation (before Spearman–Brown).
    split_low, split_high
        The 2.5th and 97.5th percentiles of the Spearman–Brown corrected coefficient over
        the random splits: how much the estimate depends on the split (not a confidence
        interval; ``ci_low`` and ``ci_high`` are).
    n_splits
        The splits averaged.
    exhaustive
        Whether they are every distinct split (:func:`random_halves` enumerates them when
        there are no more than it was asked to draw) rather than a random sample.
    """

    uncorrected: float = float("nan")
    split_low: float = float("nan")
    split_high: float = float("nan")
    n_splits: int = 0
    exhaustive: bool = False

    def splits_text(self) -> str:
        """``"all 6 splits"`` or ``"1,000 random splits"``."""
        return (f"all {self.n_splits:,} splits" if self.exhaustive
                else f"{self.n_splits:,} random splits")


def _matrix(values: ArrayLike, name: str, rows: str, columns: str) -> NDArray[np.float64]:
    """A finite 2-D array with at least two rows and two columns, or a clear error."""
    array = real_array(values, name)
    if array.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array ({rows} × {columns}), got shape "
                         f"{array.shape}")
    n, k = array.shape
    if n < 2 or k < 2:
        raise ValueError(f"{name} needs at least 2 {rows} and 2 {columns}, got {n} × {k}")
    if not np.isfinite(array).all():
        bad = np.argwhere(~np.isfinite(array))[0]
        raise ValueError(f"{name} holds a NaN or infinite value (row {bad[0]}, column "
                         f"{bad[1]}); drop that {rows[:-1]} or fill it before computing a "
                         "reliability")
    return array


def _confidence(confidence: float) -> float:
    value = check_number(confidence, "confidence", minimum=0.0, maximum=1.0)
    if value in (0.0, 1.0):
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    return float(value)  # type: ignore[arg-type]


def _groups(groups: ArrayLike, signs: ArrayLike | None, k: int
            ) -> tuple[NDArray, NDArray, NDArray[np.float64]]:
    """One label per item, the sorted unique labels and a sign per label (default +1)."""
    labels = np.asarray(groups)
    if labels.shape != (k,):
        raise ValueError(f"groups must give one label per item ({k}), got shape "
                         f"{labels.shape}")
    unique = np.unique(labels)
    weights = np.ones(unique.size) if signs is None else real_array(signs, "signs")
    if weights.shape != unique.shape:
        raise ValueError(f"signs must give one sign per group ({unique.size}), got "
                         f"{weights.shape}")
    return labels, unique, weights


def _step(f: float, k: float) -> float:
    r""":math:`(F-1)/(F+k-1)`, written :math:`1 - k/(F+k-1)` so that :math:`F=\infty` gives 1."""
    return 1.0 - k / (f + k - 1.0)


def intraclass_correlation(
    ratings: ArrayLike, *, model: Literal["oneway", "agreement", "consistency"] = "agreement",
    unit: Literal["single", "average"] = "single", confidence: float = 0.95,
) -> Reliability:
    r"""The intraclass correlation of :math:`n` subjects × :math:`k` raters, with its interval.

    From the two-way ANOVA without replication of the ratings :math:`x_{ij}` (subject
    :math:`i`, rater :math:`j`): the mean squares between subjects :math:`MS_R`, between
    raters :math:`MS_C`, of the residual :math:`MS_E`, and within subjects
    :math:`MS_W = (SS_C + SS_E)/(n(k-1))` (McGraw & Wong 1996, Table 4):

    .. math::

        \text{ICC(1)} = \frac{MS_R - MS_W}{MS_R + (k-1) MS_W}

    .. math::

        \text{ICC(A,1)} = \frac{MS_R - MS_E}{MS_R + (k-1) MS_E + \frac{k}{n}(MS_C - MS_E)}

    .. math::

        \text{ICC(C,1)} = \frac{MS_R - MS_E}{MS_R + (k-1) MS_E}

    and their averages over the :math:`k` raters (``unit="average"``): ICC(1,k)
    :math:`= (MS_R - MS_W)/MS_R`, ICC(A,k) :math:`= (MS_R - MS_E)/(MS_R + (MS_C - MS_E)/n)`,
    ICC(C,k) :math:`= (MS_R - MS_E)/MS_R`. The intervals are McGraw & Wong's: exact F
    intervals for the one-way and consistency forms, the Satterthwaite-type approximation
    for absolute agreement (their Table 7); pingouin computes the same.

    Which form: ``"agreement"`` (Shrout & Fleiss's ICC(2)) asks whether one rater's score
    equals another's — for retrained embeddings, whether one training run's bias score is
    the number another run would give, shifts included; ``"consistency"`` (ICC(3))
    forgives a constant shift between raters; ``"oneway"`` (ICC(1)) treats the raters as
    exchangeable draws for each subject. ``"single"`` is the reliability of one rater's
    score (one training run, one published number), ``"average"`` that of the mean of
    the :math:`k`.

    Parameters
    ----------
    ratings
        An ``(n, k)`` array: one row per subject (a test, a word), one column per rater
        (a training run), :math:`n, k \ge 2`, finite.
    model
        ``"oneway"``, ``"agreement"`` or ``"consistency"`` (:data:`ICC_MODELS`).
    unit
        ``"single"`` or ``"average"``.
    confidence
        The interval's coverage, in (0, 1).

    Returns
    -------
    Reliability
        ``method`` names the form as McGraw & Wong do: ``"ICC(1,1)"``, ``"ICC(A,1)"``,
        ``"ICC(C,1)"``, or with ``k`` for the average.

    Raises
    ------
    ValueError
        For fewer than two subjects or raters, a NaN, an unknown ``model`` or ``unit``, or
        ratings that do not vary at all (every coefficient is 0/0).
    """
    if model not in ICC_MODELS:
        raise ValueError(f"model must be one of {ICC_MODELS}, got {model!r}")
    if unit not in ("single", "average"):
        raise ValueError(f"unit must be 'single' or 'average', got {unit!r}")
    level = _confidence(confidence)
    x = _matrix(ratings, "ratings", "subjects", "raters")
    n, k = x.shape
    grand = x.mean()
    ss_rows = k * float(((x.mean(axis=1) - grand) ** 2).sum())
    ss_cols = n * float(((x.mean(axis=0) - grand) ** 2).sum())
    ss_total = float(((x - grand) ** 2).sum())
    ss_error = max(ss_total - ss_rows - ss_cols, 0.0)  # rounding can make it -1e-17
    if ss_total == 0.0 or (ss_rows == 0.0 and ss_error == 0.0):
        raise ValueError("the ratings do not vary between subjects nor within them: every "
                         "intraclass correlation is 0/0")
    df_r, df_c, df_e = n - 1, k - 1, (n - 1) * (k - 1)
    ms_r, ms_c, ms_e = ss_rows / df_r, ss_cols / df_c, ss_error / df_e
    ms_w = (ss_cols + ss_error) / (n * (k - 1))
    tail = (1.0 - level) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        if model == "oneway":
            f_obs = ms_r / ms_w if ms_w > 0 else math.inf
            f_low = f_obs / stats.f.ppf(1 - tail, df_r, n * (k - 1))
            f_high = f_obs * stats.f.ppf(1 - tail, n * (k - 1), df_r)
            if unit == "single":
                value = (ms_r - ms_w) / (ms_r + (k - 1) * ms_w)
                low, high = _step(f_low, k), _step(f_high, k)
            else:
                value = (ms_r - ms_w) / ms_r if ms_r > 0 else -math.inf
                low, high = 1.0 - 1.0 / f_low, 1.0 - 1.0 / f_high
        elif model == "consistency":
            f_obs = ms_r / ms_e if ms_e > 0 else math.inf
            f_low = f_obs / stats.f.ppf(1 - tail, df_r, df_e)
            f_high = f_obs * stats.f.ppf(1 - tail, df_e, df_r)
            if unit == "single":
                value = (ms_r - ms_e) / (ms_r + (k - 1) * ms_e)
                low, high = _step(f_low, k), _step(f_high, k)
            else:
                value = (ms_r - ms_e) / ms_r if ms_r > 0 else -math.inf
                low, high = 1.0 - 1.0 / f_low, 1.0 - 1.0 / f_high
        else:
            icc = (ms_r - ms_e) / (ms_r + (k - 1) * ms_e + k * (ms_c - ms_e) / n)
            # McGraw & Wong (1996), Table 7, case 2A: Satterthwaite's degrees of freedom.
            if icc < 1 and ms_e > 0:
                a, b = k * icc / (n * (1 - icc)), 1 + k * icc * (n - 1) / (n * (1 - icc))
                v = (a * ms_c + b * ms_e) ** 2 / ((a * ms_c) ** 2 / df_c + (b * ms_e) ** 2 / df_e)
            else:  # no residual: the approximation's degrees of freedom go to infinity
                v = math.inf
            f_up = stats.f.ppf(1 - tail, df_r, v)
            f_dn = stats.f.ppf(1 - tail, v, df_r)
            denom_low = f_up * (k * ms_c + (k * n - k - n) * ms_e) + n * ms_r
            low = n * (ms_r - f_up * ms_e) / denom_low
            high = n * (f_dn * ms_r - ms_e) / (k * ms_c + (k * n - k - n) * ms_e
                                               + n * f_dn * ms_r)
            if unit == "single":
                value = icc
            else:
                value = (ms_r - ms_e) / (ms_r + (ms_c - ms_e) / n)
                low, high = (spearman_brown(low, k), spearman_brown(high, k))
    names = {"oneway": "1", "agreement": "A", "consistency": "C"}
    label = f"ICC({names[model]},{1 if unit == 'single' else 'k'})"
    if not np.isfinite(value):
        raise ValueError(f"{label} is undefined for these ratings (no variance between "
                         "subjects)")
    return Reliability(float(value), float(low), float(high), label, n, k, level)


def cronbach_alpha(items: ArrayLike, *, confidence: float = 0.95) -> Reliability:
    r"""Cronbach's alpha of a score that sums :math:`k` items, with Feldt's interval.

    .. math::

        \alpha = \frac{k}{k-1}\Bigl(1 - \frac{\sum_j \sigma^2_j}{\sigma^2_T}\Bigr)

    with :math:`\sigma^2_j` the variance of item :math:`j` over the :math:`n` subjects and
    :math:`\sigma^2_T` that of the subjects' sums (ddof 1; Cronbach 1951). The interval is
    Feldt's (1965): :math:`1 - (1-\alpha) F_{q}(n-1, (n-1)(k-1))` at
    :math:`q = 1 - (1-c)/2` and :math:`q = (1-c)/2` — what pingouin and R's ``psych``
    report.

    Items that the score subtracts (the WEAT's :math:`B` words) enter negated, so that
    every item points the same way (:mod:`biaslib.evaluate.reliability`).

    Parameters
    ----------
    items
        An ``(n, k)`` array: one row per subject, one column per item, :math:`n, k \ge 2`.
    confidence
        The interval's coverage, in (0, 1).

    Raises
    ------
    ValueError
        For fewer than two subjects or items, a NaN, or sums that do not vary
        (:math:`\sigma^2_T = 0`: alpha is undefined).
    """
    level = _confidence(confidence)
    x = _matrix(items, "items", "subjects", "items")
    n, k = x.shape
    total = x.sum(axis=1).var(ddof=1)
    if total <= 0:
        raise ValueError("the subjects' summed scores do not vary: Cronbach's alpha is "
                         "undefined (0/0)")
    alpha = k / (k - 1) * (1.0 - x.var(axis=0, ddof=1).sum() / total)
    tail = (1.0 - level) / 2.0
    df1, df2 = n - 1, (n - 1) * (k - 1)
    low = 1.0 - (1.0 - alpha) * stats.f.isf(tail, df1, df2)
    high = 1.0 - (1.0 - alpha) * stats.f.isf(1.0 - tail, df1, df2)
    return Reliability(float(alpha), float(low), float(high), "Cronbach's alpha", n, k, level)


def stratified_alpha(
    items: ArrayLike, groups: ArrayLike, signs: ArrayLike | None = None, *,
    confidence: float = 0.95, n_resamples: int = 2000, seed: int | None = 1111,
) -> Reliability:
    r"""Stratified alpha of a score that adds (or subtracts) the means of item groups.

    A WEAT association is a *difference* of two group means (:math:`A` minus :math:`B`).
    Plain alpha over the signed items is the wrong coefficient for it: a word close to
    every word has high cosines with both groups, which the difference cancels but
    alpha counts as disagreement between items (it can fall far below 0). Stratified
    alpha (Cronbach, Schönemann & McKie 1965) takes each group's own alpha
    :math:`\alpha_g` and the variance :math:`\sigma^2_g` of its signed mean
    :math:`T_g = \sigma_g \overline{x}_{i,g}`:

    .. math::

        \alpha_{\text{strat}} = 1 - \frac{\sum_g \sigma^2_g (1 - \alpha_g)}
        {\sigma^2\bigl(\sum_g T_g\bigr)}

    With one group it is Cronbach's alpha. Its interval is a seeded percentile
    bootstrap over the subjects (``n_resamples`` resamples drawn at once; no closed form
    is known), drawn as multinomial counts of the subjects.

    Parameters
    ----------
    items
        ``(n, k)``: subjects × items.
    groups
        One label per item; every group needs at least 2 items.
    signs
        One sign per group, aligned with the sorted unique labels (default all +1).
    confidence, n_resamples, seed
        The bootstrap interval's coverage, resamples and seed.

    Raises
    ------
    ValueError
        As :func:`cronbach_alpha`, per group and for the total.
    """
    level = _confidence(confidence)
    x = _matrix(items, "items", "subjects", "items")
    labels, unique, weights = _groups(groups, signs, x.shape[1])
    for label in unique:
        if (labels == label).sum() < 2:
            raise ValueError(f"group {label!r} has fewer than 2 items: it has no alpha")
    m = check_int(n_resamples, "n_resamples", minimum=1)
    n = x.shape[0]
    rng = np.random.default_rng(check_seed(seed))
    # Row 0 is the data, rows 1.. the bootstrap samples, each as how often it drew each
    # subject: every variance below is a weighted one, one matrix product for all samples
    # (no (samples × subjects × items) array).
    counts = np.vstack([np.ones(n), rng.multinomial(n, np.full(n, 1.0 / n), size=m)])
    x = x - x.mean(axis=0)  # centred: the weighted E[x²] − E[x]² loses no digits

    def var(values: NDArray[np.float64]) -> NDArray[np.float64]:
        mean = counts @ values / n
        return (counts @ values**2 / n - mean**2) * n / (n - 1)

    total = np.zeros(n)
    error = np.zeros(counts.shape[0])
    for label, sign in zip(unique, weights, strict=True):
        part = x[:, labels == label]
        k = part.shape[1]
        with np.errstate(divide="ignore", invalid="ignore"):
            alpha_g = k / (k - 1) * (1 - var(part).sum(axis=1) / var(part.sum(axis=1)))
        mean_g = sign * part.mean(axis=1)
        error += var(mean_g) * (1 - alpha_g)
        total += mean_g
    with np.errstate(divide="ignore", invalid="ignore"):
        alphas = 1.0 - error / var(total)
    if not np.isfinite(alphas[0]):
        raise ValueError("the subjects' scores (or a group's sums) do not vary: stratified "
                         "alpha is undefined (0/0)")
    boot = alphas[1:][np.isfinite(alphas[1:])]
    tail = (1.0 - level) / 2.0
    low, high = np.percentile(boot, [100 * tail, 100 * (1 - tail)]) if boot.size else (
        np.nan, np.nan)
    return Reliability(float(alphas[0]), float(low), float(high), "stratified alpha",
                       x.shape[0], x.shape[1], level)


def spearman_brown(reliability: ArrayLike, factor: float = 2.0) -> NDArray[np.float64] | float:
    r"""The Spearman–Brown prophecy: the reliability of a test :math:`m` times as long.

    .. math:: \rho^* = \frac{m\,\rho}{1 + (m-1)\,\rho}

    With :math:`m = 2` it steps a split-half correlation up to the full test
    (Spearman 1910; Brown 1910). Vectorised over ``reliability``.

    Parameters
    ----------
    reliability
        :math:`\rho` (a number or an array), each at most 1.
    factor
        :math:`m > 0`, the new length over the old.

    Raises
    ------
    ValueError
        If ``factor`` is not positive or a reliability exceeds 1.
    """
    m = check_number(factor, "factor", minimum=0.0)
    if m == 0.0:
        raise ValueError("factor must be positive (the new length over the old), got 0")
    rho = real_array(reliability, "reliability")
    if (rho > 1 + 1e-12).any():
        raise ValueError("a reliability cannot exceed 1")
    with np.errstate(divide="ignore", invalid="ignore"):
        out = m * rho / (1.0 + (m - 1.0) * rho)
    return float(out) if out.ndim == 0 else out


def spearman_brown_factor(reliability: float, target: float = 0.8) -> float:
    r"""How many times longer a test must be to reach ``target``: Spearman–Brown inverted.

    .. math:: m = \frac{\rho^*(1-\rho)}{\rho(1-\rho^*)}

    Returns ``inf`` when :math:`\rho \le 0` (no length helps a score that is all noise).
    """
    rho = check_number(reliability, "reliability", maximum=1.0)
    goal = check_number(target, "target", minimum=0.0, maximum=1.0)
    if not 0.0 < goal < 1.0:  # type: ignore[operator]
        raise ValueError(f"target must lie strictly between 0 and 1, got {target!r}")
    if rho <= 0.0:  # type: ignore[operator]
        return math.inf
    if rho == 1.0:
        return 0.0
    return goal * (1.0 - rho) / (rho * (1.0 - goal))  # type: ignore[operator]


def items_needed(reliability: float, n_items: int, target: float = 0.8) -> float:
    """The items (words) a test needs for reliability ``target``: ⌈n × Spearman–Brown factor⌉.

    ``inf`` when the reliability is not positive; never less than 2 (one per half).
    """
    n = check_int(n_items, "n_items", minimum=2)
    factor = spearman_brown_factor(reliability, target)
    if not math.isfinite(factor):
        return math.inf
    return float(max(2, math.ceil(n * factor - 1e-9)))


def distinct_splits(groups: ArrayLike) -> int:
    r"""How many distinct within-group splits :func:`random_halves` can draw.

    :math:`\prod_g \binom{g}{\lfloor g/2 \rfloor}` for groups of :math:`g` items.
    """
    labels = np.asarray(groups)
    return math.prod(math.comb(int(c), int(c) // 2)
                     for c in np.unique(labels, return_counts=True)[1])


def random_halves(groups: ArrayLike, n_splits: int = 1000, *, seed: int | None = 1111
                  ) -> NDArray[np.bool_]:
    r"""Halves of the items, split within each group: an ``(n_splits, k)`` mask.

    ``True`` marks the first half. Each group's items (the WEAT's :math:`A` words, its
    :math:`B` words) are split on their own, ⌊g/2⌋ into the first half and the rest into
    the second, so that both halves keep the test's structure. When there are no more
    distinct splits (:math:`\prod_g \binom{g}{\lfloor g/2 \rfloor}`) than
    ``n_splits``, every one of them is returned, in a fixed order (fewer rows than
    asked: an exact average, as for two templates with their one split); otherwise
    ``n_splits`` random ones, seeded (:func:`numpy.random.default_rng`): the same call
    gives the same splits.

    Raises
    ------
    ValueError
        If a group has fewer than two items (it cannot be split).
    """
    labels = np.asarray(groups)
    if labels.ndim != 1 or labels.size < 2:
        raise ValueError(f"groups must be one label per item (at least 2 items), got shape "
                         f"{labels.shape}")
    m = check_int(n_splits, "n_splits", minimum=1)
    rng = np.random.default_rng(check_seed(seed))
    members = [np.flatnonzero(labels == label) for label in dict.fromkeys(labels.tolist())]
    for label, where in zip(dict.fromkeys(labels.tolist()), members, strict=True):
        if where.size < 2:
            raise ValueError(f"group {label!r} has {where.size} item; a split-half needs at "
                             "least 2 items in every group")
    distinct = distinct_splits(labels)
    if distinct <= m:
        choices = [itertools.combinations(w.tolist(), w.size // 2) for w in members]
        masks = np.zeros((distinct, labels.size), dtype=bool)
        for row, picks in enumerate(itertools.product(*choices)):
            masks[row, [i for pick in picks for i in pick]] = True
        return masks
    masks = np.zeros((m, labels.size), dtype=bool)
    for where in members:
        order = rng.permuted(np.tile(where, (m, 1)), axis=1)
        rows = np.repeat(np.arange(m), where.size // 2)
        masks[rows, order[:, : where.size // 2].ravel()] = True
    return masks


def split_half_from_halves(half1: ArrayLike, half2: ArrayLike, *, confidence: float = 0.95,
                           exhaustive: bool = False) -> SplitHalf:
    r"""Split-half reliability from the subjects' scores on two halves, over many splits.

    For each split :math:`s` the Pearson correlation :math:`r_s` between the
    :math:`n` subjects' first-half and second-half scores is stepped up by
    :func:`spearman_brown` (:math:`m = 2`; floored at :math:`-1`, which it passes for
    :math:`r_s < -1/3`, where halves that disagree have no reliability to step up); the
    estimate is the mean of the corrected :math:`r_s` (Parsons, Kruijt & Fox 2019). Its
    interval covers the sampling of subjects: the Fisher interval of the mean
    half-length :math:`\bar r` at :math:`n` subjects
    (:func:`~biaslib.stats.correlation_ci.fisher_interval`), stepped up by
    Spearman–Brown (monotone, so the bounds map to bounds). The spread of the corrected
    :math:`r_s` over the splits is reported apart (``split_low``, ``split_high``).

    Parameters
    ----------
    half1, half2
        ``(n_splits, n)`` arrays (or ``(n,)`` for one split): each subject's score on the
        first and on the second half of the items, :math:`n \ge 4` (the Fisher interval
        needs :math:`n > 3`).
    confidence
        The interval's coverage.
    exhaustive
        Whether the splits are every distinct split (recorded in the result).

    Raises
    ------
    ValueError
        For mismatched shapes, fewer than 4 subjects, NaNs, or a split on which one
        half's scores do not vary (no correlation).
    """
    level = _confidence(confidence)
    a = np.atleast_2d(real_array(half1, "half1"))
    b = np.atleast_2d(real_array(half2, "half2"))
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"half1 and half2 must have the same (n_splits, n_subjects) shape, "
                         f"got {a.shape} and {b.shape}")
    n = a.shape[1]
    if n < 4:
        raise ValueError(f"a split-half reliability needs at least 4 subjects, got {n}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("the half scores hold a NaN or infinite value")
    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    norm = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
    if (norm == 0).any():
        raise ValueError("on some split one half's scores do not vary across the subjects: "
                         "their correlation is undefined")
    r = np.clip((a * b).sum(axis=1) / norm, -1.0, 1.0)
    # Spearman-Brown steps r = -1/3 down to -1 and anything lower below -1, where it
    # means nothing: halves that disagree have no reliability, so the floor is -1.
    corrected = np.maximum(np.atleast_1d(np.asarray(spearman_brown(r, 2.0))), -1.0)
    mean_r = float(r.mean())
    value = float(np.mean(corrected))
    if abs(mean_r) < 1.0:
        low_r, high_r = fisher_interval(mean_r, n, "fisher", level)
        low, high = (max(float(spearman_brown(low_r)), -1.0),
                     max(float(spearman_brown(high_r)), -1.0))
    else:
        low = high = float(spearman_brown(mean_r))
    split_low, split_high = np.percentile(corrected, [2.5, 97.5])
    return SplitHalf(value, low, high, "split-half (Spearman-Brown)", n, -1, level,
                     uncorrected=mean_r, split_low=float(split_low),
                     split_high=float(split_high), n_splits=int(r.size),
                     exhaustive=bool(exhaustive))


def split_half_reliability(
    items: ArrayLike, *, groups: ArrayLike | None = None, signs: ArrayLike | None = None,
    n_splits: int = 1000, seed: int | None = 1111, confidence: float = 0.95,
) -> SplitHalf:
    r"""Split-half reliability of a score that is a signed sum of group means of items.

    A subject's score is :math:`\sum_g \sigma_g \,\overline{x}_{i,g}`, the mean of its
    items in each group :math:`g` times the group's sign :math:`\sigma_g` — the WEAT's
    association :math:`s(w, A, B) = \overline{\cos(w, A)} - \overline{\cos(w, B)}` with
    groups :math:`A, B` and signs :math:`+1, -1`; a plain mean with one group. Each of
    ``n_splits`` random splits (:func:`random_halves`, within each group) scores every
    subject on both halves in one matrix product, and :func:`split_half_from_halves`
    turns the two score matrices into the estimate and its interval.

    Parameters
    ----------
    items
        ``(n, k)``: subjects × items.
    groups
        One label per item (default: one group).
    signs
        Label → sign, as a sequence aligned with the sorted unique labels, or ``None``
        for :math:`+1` everywhere. With the WEAT's labels ``0`` (A) and ``1`` (B),
        ``signs=(1, -1)``.
    n_splits, seed
        The random splits and their seed.
    confidence
        The interval's coverage.

    Returns
    -------
    SplitHalf
        With ``n_items`` = :math:`k`.
    """
    x = _matrix(items, "items", "subjects", "items")
    k = x.shape[1]
    labels, unique, weights = _groups(np.zeros(k, dtype=int) if groups is None else groups,
                                      signs, k)
    masks = random_halves(labels, n_splits, seed=seed)
    exhaustive = distinct_splits(labels) <= n_splits
    first = np.zeros((masks.shape[0], x.shape[0]))
    second = np.zeros_like(first)
    for label, sign in zip(unique, weights, strict=True):
        in_group = labels == label
        m1 = masks[:, in_group].astype(np.float64)
        m2 = 1.0 - m1
        cols = x[:, in_group]
        first += sign * (m1 @ cols.T) / m1.sum(axis=1, keepdims=True)
        second += sign * (m2 @ cols.T) / m2.sum(axis=1, keepdims=True)
    result = split_half_from_halves(first, second, confidence=confidence,
                                    exhaustive=exhaustive)
    return SplitHalf(**{**result.__dict__, "n_items": k})

r"""Internal consistency of every static bias metric: split-half reliability, Spearman–Brown.

A bias score is read as a psychometric test score (Du, Fang & Nguyen 2021): the words it
is computed from are its *items*, and two random halves of them should rank the things it
scores alike. For each random split :math:`s` the Pearson correlation :math:`r_s` of the
*subjects'* scores on the two halves is stepped up to full length by the Spearman–Brown
formula (Spearman 1910; Brown 1910),

.. math:: \rho_s = \frac{2 r_s}{1 + r_s},

and the estimate is the mean of :math:`\rho_s` over many random splits (Parsons, Kruijt &
Fox 2019), with the Fisher interval of the mean :math:`\bar r` over the subjects, stepped
up (:func:`~biaslib.stats.reliability.split_half_from_halves`). Two kinds, in the framing
of :mod:`biaslib.evaluate.metrics` (targets :math:`X, Y` are the groups, the attribute
words :math:`A \cup B` are measured):

``"word scores"`` (:func:`metric_split_half`)
    Subjects: the measured words :math:`A \cup B` of one test; items: the group words
    :math:`X` and :math:`Y`, halved within :math:`X` and within :math:`Y` (the *pairs*
    :math:`(X_i, Y_i)` for the metrics that read pairs). Each half defines the metric's
    direction, relation vector or group means, and every measured word gets a score on
    each (:func:`metric_word_scores`). Only the metrics whose test score is built from
    per-word scores of the measured words have this kind (:data:`WORD_SCORE_METRICS`);
    WEAT's :math:`d` is the exception the other way round: its word scores are the
    targets' :math:`s(w, A, B)` over the attribute words, and it is routed to
    :func:`~biaslib.evaluate.reliability.association_reliability` (subjects the targets,
    items :math:`A` and :math:`B`).
``"tests"`` (:func:`across_tests_split_half`)
    Subjects: the tests; items: all their words. Each split halves each of the four sets
    of every test at random (pairs kept together for the metrics that read pairs), the
    metric runs on both halves of every test
    (:func:`~biaslib.evaluate.metrics.run_metric`), and the two test-level scores are
    correlated over the tests. Every metric of :data:`~biaslib.evaluate.metrics.METRICS`
    has this kind: it asks whether a metric would rank the tests alike with other words
    for the same concepts — the reliability of the number a table of test results prints.
    Signed metrics are compared on their signed score, unsigned ones on their magnitude
    (:attr:`~biaslib.evaluate.metrics.Metric.to_magnitude`), as in the agreement chapter
    (:mod:`biasbook.agree`).

:func:`consistency_table` computes both kinds for the agreement chapter's tests on one of
its vector sets (:data:`biasbook.agree.VECTORS`); the chapter stores both, for both vector sets, as
``trust_consistency`` (:mod:`biasbook.trust`). Seeded: the same call gives the same table.

Cost. The word-score kind averages :data:`~biaslib.evaluate.reliability.RELIABILITY_SPLITS`
(1,000) splits per test and metric by default. The tests kind runs every metric twice per
test and split; RNSB's classifier and Gonen & Goldberg's k-means take 0.1–0.2 s a run
(the other metrics under 1 ms), so it averages :data:`TEST_SPLITS` (100) splits, and
:data:`SLOW_TEST_SPLITS` (10) for :data:`SLOW_METRICS`. What fewer splits cost is Monte
Carlo error only: the estimate is a mean of :math:`n` split coefficients :math:`\rho_s`,
whose standard error is :math:`\operatorname{SD}(\rho_s)/\sqrt{n}` (the ``mc_error``
column). Over the 11 GloVe tests :math:`\operatorname{SD}(\rho_s)` is 0.02–0.7, so about
0.00–0.07 at 100 splits; at 10 splits the error is 0.14 for RNSB and 0.09 for G&G
cluster (0.22 on the 5 Google News tests) — still inside the Fisher interval over 11
tests (typically from below 0 to 0.9), which no number of splits narrows. Measured on 2 busy cores:
:func:`consistency_table` takes about 18 s (word scores) + 60 s (tests; 45 s of it RNSB
and G&G cluster) on GloVe 6B 50d, 11 s + 37 s on the Google News subset; one test's word
scores (``tests=["C7"]``) about 1 s. Leave :data:`SLOW_METRICS` out (``metrics=``) for a
table in about 30 s.

References
----------
Brown, W. (1910). Some experimental results in the correlation of mental abilities.
*British Journal of Psychology* 3(3), 296–322.
Du, Y., Fang, Q. & Nguyen, D. (2021). Assessing the reliability of word embedding gender
bias measures. *EMNLP 2021*, 10012–10034.
Parsons, S., Kruijt, A.-W. & Fox, E. (2019). Psychological science needs a standard
practice of reporting the reliability of cognitive-behavioral measurements. *Advances in
Methods and Practices in Psychological Science* 2(4), 378–395.
Spearman, C. (1910). Correlation calculated from faulty data. *British Journal of
Psychology* 3(3), 271–295.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import zlib
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from biasbook.agree import VECTORS, sets_of
from biaslib.evaluate.metrics import METRIC_SEED, METRICS, FourSets, Metric, metric, run_metric
from biaslib.evaluate.reliability import (
    RELIABILITY_SEED,
    RELIABILITY_SPLITS,
    RELIABILITY_TARGET,
    association_reliability,
    same_reliability,
)
from biaslib.methods.ripa import relation_vector
from biaslib.methods.rnd import rnd_word
from biaslib.methods.same import (
    SAME_PAPER,
    direct_bias_space,
    direct_bias_word,
    mac_word,
    same_signed_word,
)
from biaslib.methods.weat import association
from biaslib.stats.correlation_ci import fisher_interval
from biaslib.stats.reliability import (
    SplitHalf,
    distinct_splits,
    items_needed,
    random_halves,
    spearman_brown,
    split_half_from_halves,
)

__all__ = [
    "SLOW_METRICS",
    "SLOW_TEST_SPLITS",
    "TEST_SPLITS",
    "WORD_SCORE_METRICS",
    "across_test_masks",
    "across_tests_split_half",
    "consistency_table",
    "metric_split_half",
    "metric_word_scores",
]

logger = logging.getLogger(__name__)

#: The two kinds of :func:`consistency_table`'s rows.
_KINDS = ("word scores", "tests")
#: Random splits of the tests kind (:func:`across_tests_split_half`) by default.
TEST_SPLITS = 100
#: Its splits for :data:`SLOW_METRICS` (0.1–0.2 s a run: 11 tests × 2 halves × 10 splits
#: take 20–30 s each).
SLOW_TEST_SPLITS = 10
#: The metrics that take 0.1 s or more a run (a classifier, k-means with restarts).
SLOW_METRICS = ("RNSB", "G&G cluster")
#: Fewest tests a split of the tests kind correlates (Fisher's interval needs n > 3).
_MIN_TESTS = 4
#: The columns of :func:`consistency_table`.
_COLUMNS = ("vectors", "kind", "test", "metric", "subjects", "items", "reliability", "low",
           "high", "uncorrected", "split_low", "split_high", "splits", "exhaustive",
           "mc_error", "items_needed", "note")

_WordScore = Callable[[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]],
                      NDArray[np.float64]]


def _skew_word(w: NDArray[np.float64], x: NDArray[np.float64], y: NDArray[np.float64]
               ) -> NDArray[np.float64]:
    return same_signed_word(w, x, y, SAME_PAPER.sign)


def _same_word(w: NDArray[np.float64], x: NDArray[np.float64], y: NDArray[np.float64]
               ) -> NDArray[np.float64]:
    # Two groups: SAME's word score |cos(w, x̂ − ŷ)| is the skew's score without its sign.
    return np.abs(same_signed_word(w, x, y, SAME_PAPER.sign))


def _ripa_word(w: NDArray[np.float64], x: NDArray[np.float64], y: NDArray[np.float64]
               ) -> NDArray[np.float64]:
    return w @ relation_vector(x, y, convention="paper")


def _rnd_word(w: NDArray[np.float64], x: NDArray[np.float64], y: NDArray[np.float64]
              ) -> NDArray[np.float64]:
    return rnd_word(w, x, y)  # the front door's rnd(..., convention="paper") defaults


def _gweat_word(w: NDArray[np.float64], x: NDArray[np.float64], y: NDArray[np.float64]
                ) -> NDArray[np.float64]:
    # Two groups, unit vectors, group centres: GWEAT = ½(x̄ − ȳ)·(ā − b̄)
    # = mean_A ½ s(a, X, Y) − mean_B ½ s(b, X, Y) (biaslib.methods.gweat's docstring).
    return association(w, x, y) / 2.0


def _mac_word(w: NDArray[np.float64], x: NDArray[np.float64], y: NDArray[np.float64]
              ) -> NDArray[np.float64]:
    return mac_word(w, [x, y])


def _direct_bias_word(w: NDArray[np.float64], x: NDArray[np.float64], y: NDArray[np.float64]
                      ) -> NDArray[np.float64]:
    return direct_bias_word(w, direct_bias_space([x, y]))


#: The metrics with a word-score split-half (:func:`metric_word_scores`), each with the
#: library function its word score comes from. WEAT's d is computed by
#: :func:`~biaslib.evaluate.reliability.association_reliability` (its subjects are the
#: targets); ECT (a rank correlation over the words), RNSB (a classifier's KL divergence),
#: Indirect Bias (pairs of measured words) and Gonen & Goldberg's tests (clusters, a
#: classifier, neighbours) have no per-word score of the measured words.
WORD_SCORE_METRICS: dict[str, str] = {
    "WEAT d": "biaslib.methods.weat.association (s(w, A, B) of the targets)",
    "skew": "biaslib.methods.same.same_signed_word",
    "RIPA": "w · biaslib.methods.ripa.relation_vector",
    "RND": "biaslib.methods.rnd.rnd_word",
    "generalized WEAT": "½ biaslib.methods.weat.association(w, X, Y)",
    "SAME": "|biaslib.methods.same.same_signed_word|",
    "MAC": "biaslib.methods.same.mac_word",
    "Direct Bias": "biaslib.methods.same.direct_bias_word",
}
_WORD_SCORES: dict[str, _WordScore] = {
    "skew": _skew_word, "RIPA": _ripa_word, "RND": _rnd_word, "generalized WEAT": _gweat_word,
    "SAME": _same_word, "MAC": _mac_word, "Direct Bias": _direct_bias_word,
}


# ------------------------------------------------------------------------ word scores


def metric_word_scores(sets: FourSets, metric_name: str | Metric) -> NDArray[np.float64] | None:
    r"""The measured words' scores from which ``metric_name``'s test-level score is built.

    :math:`A` then :math:`B`, scored against the groups :math:`X, Y`; a signed metric's
    test score is their mean over :math:`A` minus their mean over :math:`B`, an unsigned
    one's their mean (the generalized WEAT's word score is :math:`\tfrac12 s(w, X, Y)`,
    whose contrast is Swinger et al.'s statistic for two groups). ``None`` for the
    metrics without one (not in :data:`WORD_SCORE_METRICS`, and WEAT's d, whose word
    scores are the targets').
    """
    m = metric(metric_name)
    score = _WORD_SCORES.get(m.name)
    if score is None:
        return None
    return score(sets.measured, sets.X, sets.Y)


def _check_pairs(m: Metric, sets: FourSets) -> None:
    if m.needs_pairs and not sets.paired:
        raise ValueError(f"{m.name} reads the targets as pairs X[i], Y[i]; {sets.test}'s "
                         "vectors are not paired")


def _needed(reliability: float, n_units: int, per_unit: int = 1) -> float:
    """Words needed for :data:`RELIABILITY_TARGET`; NaN where no length reaches it."""
    if not math.isfinite(reliability) or n_units < 2:
        return math.nan
    units = items_needed(reliability, n_units, RELIABILITY_TARGET)
    return units * per_unit if math.isfinite(units) else math.nan


def metric_split_half(sets: FourSets, metric_name: str | Metric, *,
                      n_splits: int = RELIABILITY_SPLITS, seed: int | None = RELIABILITY_SEED
                      ) -> SplitHalf | None:
    r"""Split-half reliability of a metric's word scores over the group words, on one test.

    Subjects: the :math:`n_A + n_B` measured words; items: the group words. Each of
    ``n_splits`` random splits (:func:`~biaslib.stats.reliability.random_halves`) halves
    :math:`X` and :math:`Y` each (⌊n/2⌋ words to the first half), or, for the metrics
    that read pairs (RIPA, Direct Bias), the pairs :math:`(X_i, Y_i)`, the same index to
    the same half in both. Every measured word is scored against each half
    (:func:`metric_word_scores`); for split :math:`s` the correlation :math:`r_s` of the
    two score vectors over the words is stepped up, :math:`\rho_s = 2r_s/(1+r_s)`
    (Spearman–Brown), and the estimate is the mean :math:`\rho_s`
    (:func:`~biaslib.stats.reliability.split_half_from_halves`; Parsons, Kruijt & Fox
    2019). When there are no more distinct splits than ``n_splits`` every one is used
    (``exhaustive``). SAME goes through
    :func:`~biaslib.evaluate.reliability.same_reliability` (the same splits), WEAT's d
    through :func:`~biaslib.evaluate.reliability.association_reliability` (subjects the
    targets, items the attribute words :math:`A`, :math:`B`).

    Parameters
    ----------
    sets
        One test's vectors (:func:`~biaslib.evaluate.metrics.four_sets`), at least 2
        words (pairs) in each of X and Y and 4 measured words.
    metric_name
        A metric of :data:`~biaslib.evaluate.metrics.METRICS` (or the :class:`Metric`).
    n_splits, seed
        The random splits and their seed.

    Returns
    -------
    SplitHalf or None
        ``n_items`` the group words :math:`n_X + n_Y`. ``None`` for a metric without a
        word score (:data:`WORD_SCORE_METRICS`). A split on which the metric refuses a
        half (a ``ValueError`` such as
        :class:`~biaslib.errors.DegenerateTestError`) is left out and logged; ``None``,
        logged, when none is left.

    Raises
    ------
    ValueError
        For a metric that reads pairs on unpaired sets, or sets too small to split.
    """
    m = metric(metric_name)
    if m.name == "WEAT d":
        return association_reliability(sets.X, sets.Y, sets.A, sets.B, n_splits=n_splits,
                                       seed=seed).split_half
    if m.name == "SAME":
        return same_reliability(sets.X, sets.Y, sets.measured, n_splits=n_splits,
                                seed=seed).split_half
    score = _WORD_SCORES.get(m.name)
    if score is None:
        return None
    _check_pairs(m, sets)
    n_x, n_y = len(sets.X), len(sets.Y)
    if m.needs_pairs:
        groups = np.zeros(n_x, dtype=int)
    else:
        groups = np.r_[np.zeros(n_x, dtype=int), np.ones(n_y, dtype=int)]
    masks = random_halves(groups, n_splits, seed=seed)
    exhaustive = distinct_splits(groups) <= n_splits
    if m.needs_pairs:
        mask_x = mask_y = masks
    else:
        mask_x, mask_y = masks[:, :n_x], masks[:, n_x:]
    words = sets.measured
    first, second, failed = [], [], []
    for row in range(masks.shape[0]):
        mx, my = mask_x[row], mask_y[row]
        try:
            h1 = score(words, sets.X[mx], sets.Y[my])
            h2 = score(words, sets.X[~mx], sets.Y[~my])
        except ValueError as err:  # DegenerateTestError among them
            failed.append(str(err))
            continue
        first.append(h1)
        second.append(h2)
    if failed:
        logger.info("%s on %s: %d of %d splits left out, the metric refused a half (first: "
                    "%s)", m.name, sets.test, len(failed), masks.shape[0], failed[0])
    half = _combine(first, second, exhaustive, f"{m.name} word scores on {sets.test}")
    if half is None:
        return None
    return dataclasses.replace(half, n_items=n_x + n_y)


# ------------------------------------------------------------------------ across tests


def _split_seed(seed: int, test: str, split: int) -> int:
    """A seed for one test's one split: the same whichever other tests are computed."""
    entropy = [seed, zlib.crc32(test.encode("utf-8")), split]
    return int(np.random.SeedSequence(entropy).generate_state(1)[0])


def across_test_masks(sets: FourSets, n_splits: int, *, seed: int = RELIABILITY_SEED,
                      pairs: bool = False) -> NDArray[np.bool_]:
    r"""The halves of one test's four sets for :func:`across_tests_split_half`.

    Row :math:`s` is split :math:`s`: :func:`~biaslib.stats.reliability.random_halves`
    with one split, seeded by ``seed``, the test's name and :math:`s` (so a test's splits
    do not depend on which other tests, nor on how many splits, are computed). Columns:
    :math:`X`, :math:`Y`, :math:`A`, :math:`B` (``pairs=False``: each set halved on its
    own) or the pairs :math:`(X_i, Y_i)`, :math:`A`, :math:`B` (``pairs=True``: the same
    half for both members). ``True`` marks the first half (⌊n/2⌋ words of each set).
    """
    sizes = ([len(sets.X)] if pairs else [len(sets.X), len(sets.Y)]) + [len(sets.A),
                                                                         len(sets.B)]
    groups = np.repeat(np.arange(len(sizes)), sizes)
    return np.vstack([random_halves(groups, 1, seed=_split_seed(seed, sets.test, s))[:1]
                      for s in range(n_splits)])


def _halves(sets: FourSets, mask: NDArray[np.bool_], pairs: bool) -> tuple[FourSets, FourSets]:
    """The two halves of ``sets`` under one row of :func:`across_test_masks`."""
    n_x, n_y, n_a = len(sets.X), len(sets.Y), len(sets.A)
    if pairs:
        parts = {"X": mask[:n_x], "Y": mask[:n_x], "A": mask[n_x:n_x + n_a],
                 "B": mask[n_x + n_a:]}
    else:
        parts = {"X": mask[:n_x], "Y": mask[n_x:n_x + n_y],
                 "A": mask[n_x + n_y:n_x + n_y + n_a], "B": mask[n_x + n_y + n_a:]}
    out = []
    for keep in (parts, {role: ~m for role, m in parts.items()}):
        words = {role: tuple(w for w, k in zip(sets.words[role], keep[role], strict=True) if k)
                 for role in keep if len(sets.words.get(role, ())) == len(keep[role])}
        out.append(dataclasses.replace(
            sets, X=sets.X[keep["X"]], Y=sets.Y[keep["Y"]], A=sets.A[keep["A"]],
            B=sets.B[keep["B"]], words=words, paired=pairs))
    return out[0], out[1]


def _compared_value(m: Metric, half: FourSets) -> float:
    """The metric's test-level score on ``half``, signed or as its magnitude."""
    run = run_metric(m, half, seed=METRIC_SEED)
    return float(run.score) if m.signed else float(run.magnitude)


def _test_splits(m: Metric, n_splits: int | None) -> int:
    if n_splits is not None:
        return n_splits
    return SLOW_TEST_SPLITS if m.name in SLOW_METRICS else TEST_SPLITS


def _across(sets_list: Sequence[FourSets], metrics: Sequence[Metric], splits: dict[str, int],
            seed: int) -> dict[str, SplitHalf | None]:
    """The tests kind for several metrics at once: each half is built once per split."""
    names = [s.test for s in sets_list]
    if len(set(names)) != len(names):
        raise ValueError(f"the tests must have distinct names (they seed the splits), got "
                         f"{names}")
    out: dict[str, SplitHalf | None] = {}
    if len(sets_list) < _MIN_TESTS:
        for m in metrics:
            logger.warning("%s across tests: %d tests, fewer than %d; no reliability",
                           m.name, len(sets_list), _MIN_TESTS)
            out[m.name] = None
        return out
    values = {m.name: np.full((2, splits[m.name], len(sets_list)), np.nan) for m in metrics}
    errors: dict[tuple[str, str], list[str]] = {}
    for t, sets in enumerate(sets_list):
        for pairs in (False, True):
            chosen = [m for m in metrics if m.needs_pairs == pairs]
            if not chosen:
                continue
            if pairs and not sets.paired:
                for m in chosen:
                    errors[(m.name, sets.test)] = ["the targets are not paired"] * splits[m.name]
                continue
            masks = across_test_masks(sets, max(splits[m.name] for m in chosen), seed=seed,
                                      pairs=pairs)
            for s in range(masks.shape[0]):
                halves = _halves(sets, masks[s], pairs)
                for m in chosen:
                    if s >= splits[m.name]:
                        continue
                    for h, half in enumerate(halves):
                        try:
                            value = _compared_value(m, half)
                        except ValueError as err:  # DegenerateTestError, too few words…
                            errors.setdefault((m.name, sets.test), []).append(str(err))
                            break
                        if not math.isfinite(value):
                            errors.setdefault((m.name, sets.test), []).append(
                                "the score is not finite on a half")
                            break
                        values[m.name][h, s, t] = value
    for (name, test), said in errors.items():
        logger.info("%s across tests: %s left out of %d of %d splits, the metric failed on "
                    "a half (first: %s)", name, test, len(said), splits[name], said[0])
    for m in metrics:
        first, second = values[m.name]
        kept = np.isfinite(first) & np.isfinite(second)
        out[m.name] = _combine([first[s, kept[s]] for s in range(first.shape[0])],
                               [second[s, kept[s]] for s in range(first.shape[0])],
                               False, f"{m.name} across tests", min_subjects=_MIN_TESTS)
        if out[m.name] is not None:
            sizes = [len(s.X) + len(s.Y) + len(s.A) + len(s.B) for s in sets_list]
            out[m.name] = dataclasses.replace(out[m.name], n_items=int(np.median(sizes)))
    return out


def across_tests_split_half(sets_list: Sequence[FourSets], metric_name: str | Metric, *,
                            n_splits: int | None = None, seed: int = RELIABILITY_SEED
                            ) -> SplitHalf | None:
    r"""Split-half reliability of a metric's test-level score over tests.

    Subjects: the tests; items: their words. For each split :math:`s` every test's four
    sets are halved at random (:func:`across_test_masks`; the pairs :math:`(X_i, Y_i)`
    kept together for the metrics that read pairs), the metric runs on both halves
    (:func:`~biaslib.evaluate.metrics.run_metric`, seed
    :data:`~biaslib.evaluate.metrics.METRIC_SEED`) giving :math:`h_{1,t}, h_{2,t}` for
    each test :math:`t` (the signed score, or for an unsigned metric its magnitude
    :attr:`~biaslib.evaluate.metrics.Metric.to_magnitude`); :math:`r_s` is their
    Pearson correlation over the tests, :math:`\rho_s = 2r_s/(1+r_s)` (Spearman–Brown,
    floored at −1), and the estimate is the mean of :math:`\rho_s` (Parsons, Kruijt &
    Fox 2019) with the Fisher interval of the mean :math:`\bar r`, stepped up
    (:func:`~biaslib.stats.reliability.split_half_from_halves`).

    A test on which the metric refuses a half (a ``ValueError``: a
    :class:`~biaslib.errors.DegenerateTestError`, too few words for a classifier's folds…)
    or scores it NaN is left out of that split, logged; a split keeping fewer than
    :data:`_MIN_TESTS` tests, or on which a half's scores do not vary over the tests, is
    left out, logged. Then the interval is computed at the fewest tests any kept split
    correlated (``n_subjects``).

    Parameters
    ----------
    sets_list
        The tests' vectors, with distinct names (the names seed the splits).
    metric_name
        A metric of :data:`~biaslib.evaluate.metrics.METRICS`.
    n_splits
        Random splits; ``None``: :data:`TEST_SPLITS`, :data:`SLOW_TEST_SPLITS` for
        :data:`SLOW_METRICS`. The Monte Carlo standard error of the estimate is
        :math:`\operatorname{SD}(\rho_s)/\sqrt{n}` (the module docstring).
    seed
        Seeds the splits (with each test's name and the split's number).

    Returns
    -------
    SplitHalf or None
        ``n_items`` the median number of words of a test. ``None``, logged, when fewer
        than :data:`_MIN_TESTS` tests are given or no split is left.
    """
    m = metric(metric_name)
    return _across(list(sets_list), [m], {m.name: _test_splits(m, n_splits)}, seed)[m.name]


# ------------------------------------------------------------------------ combining splits


@dataclasses.dataclass(frozen=True)
class _ConsistencySplitHalf(SplitHalf):
    """A :class:`~biaslib.stats.reliability.SplitHalf` with the spread of its splits.

    Attributes
    ----------
    split_sd
        The standard deviation of the Spearman–Brown corrected coefficients over the
        splits; :attr:`mc_error` is the Monte Carlo standard error of their mean.
    """

    split_sd: float = float("nan")

    @property
    def mc_error(self) -> float:
        r""":math:`\operatorname{SD}(\rho_s)/\sqrt{n}`: how far other random splits may move it."""
        if self.n_splits < 2:
            return math.nan
        return self.split_sd / math.sqrt(self.n_splits)


def _corrected(first: NDArray[np.float64], second: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each split's Spearman–Brown corrected r, floored at −1 (as split_half_from_halves)."""
    a = first - first.mean(axis=1, keepdims=True)
    b = second - second.mean(axis=1, keepdims=True)
    r = np.clip((a * b).sum(axis=1) / np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1)),
                -1.0, 1.0)
    return np.maximum(np.atleast_1d(np.asarray(spearman_brown(r, 2.0))), -1.0)


def _combine(first: Sequence[NDArray[np.float64]], second: Sequence[NDArray[np.float64]],
             exhaustive: bool, what: str, *, min_subjects: int = 4
             ) -> _ConsistencySplitHalf | None:
    """Split-half from the subjects' half scores of each split, leaving out unusable splits.

    Splits with fewer than ``min_subjects`` subjects or whose half scores do not vary are
    left out (logged). When every kept split has the same number of subjects this is
    :func:`~biaslib.stats.reliability.split_half_from_halves`; otherwise the same
    estimate (the mean Spearman–Brown corrected r over the splits, each floored at −1)
    with the Fisher interval at the fewest subjects of a kept split.
    """
    short = flat = 0
    kept1, kept2 = [], []
    for a, b in zip(first, second, strict=True):
        if a.size < min_subjects:
            short += 1
        elif np.ptp(a) == 0 or np.ptp(b) == 0:
            flat += 1
        else:
            kept1.append(a)
            kept2.append(b)
    if short or flat:
        logger.info("%s: %d of %d splits left out (%d with fewer than %d subjects, %d on "
                    "which a half's scores do not vary)", what, short + flat, len(first),
                    short, min_subjects, flat)
    if not kept1:
        logger.warning("%s: no split left; no reliability", what)
        return None
    sizes = {a.size for a in kept1}
    if len(sizes) == 1:
        one, two = np.vstack(kept1), np.vstack(kept2)
        half = split_half_from_halves(one, two,
                                      exhaustive=exhaustive and len(kept1) == len(first))
        corrected = _corrected(one, two)
        return _ConsistencySplitHalf(**half.__dict__, split_sd=_sd(corrected))
    parts = [split_half_from_halves(a, b) for a, b in zip(kept1, kept2, strict=True)]
    corrected = np.array([p.value for p in parts])
    mean_r = float(np.mean([p.uncorrected for p in parts]))
    n = min(sizes)
    if abs(mean_r) < 1.0:
        low_r, high_r = fisher_interval(mean_r, n, "fisher", parts[0].confidence)
        low, high = (max(float(spearman_brown(low_r)), -1.0),
                     max(float(spearman_brown(high_r)), -1.0))
    else:
        low = high = float(spearman_brown(mean_r))
    split_low, split_high = np.percentile(corrected, [2.5, 97.5])
    return _ConsistencySplitHalf(
        float(corrected.mean()), low, high, "split-half (Spearman-Brown)", n, -1,
        parts[0].confidence, uncorrected=mean_r, split_low=float(split_low),
        split_high=float(split_high), n_splits=len(parts), exhaustive=False,
        split_sd=_sd(corrected))


def _sd(values: NDArray[np.float64]) -> float:
    return float(np.std(values, ddof=1)) if values.size > 1 else math.nan


# ------------------------------------------------------------------------ the table


def _row(vectors: str, kind: str, test: str, m: Metric, half: SplitHalf | None,
         subjects: int, items: int, needed: float, note: str = "") -> dict[str, object]:
    if half is None:
        return {"vectors": vectors, "kind": kind, "test": test, "metric": m.name,
                "subjects": subjects, "items": items, "reliability": math.nan,
                "low": math.nan, "high": math.nan, "uncorrected": math.nan,
                "split_low": math.nan, "split_high": math.nan, "splits": 0,
                "exhaustive": False, "mc_error": math.nan, "items_needed": math.nan,
                "note": note or "no split left"}
    return {"vectors": vectors, "kind": kind, "test": test, "metric": m.name,
            "subjects": half.n_subjects, "items": items, "reliability": half.value,
            "low": half.ci_low, "high": half.ci_high, "uncorrected": half.uncorrected,
            "split_low": half.split_low, "split_high": half.split_high,
            "splits": half.n_splits, "exhaustive": half.exhaustive,
            "mc_error": getattr(half, "mc_error", math.nan), "items_needed": needed,
            "note": note}


def consistency_table(vectors_name: str, *, n_splits: int = RELIABILITY_SPLITS,
                      test_splits: int | None = None, tests: Sequence[str] | None = None,
                      metrics: Sequence[str] | None = None,
                      kinds: Sequence[str] = _KINDS, seed: int = RELIABILITY_SEED
                      ) -> pd.DataFrame:
    r"""Split-half reliability of every metric, per test and across tests, on one vector set.

    The agreement chapter's tests on ``vectors_name`` (:func:`biasbook.agree.sets_of`:
    Caliskan et al.'s C1–C10 that run on the vectors and the SAME paper's gender and
    occupation test). ``"word scores"`` rows: :func:`metric_split_half` for each test and
    each metric with word scores (:data:`WORD_SCORE_METRICS`); ``"tests"`` rows:
    :func:`across_tests_split_half` over all the tests for each metric.

    Parameters
    ----------
    vectors_name
        One of :data:`biasbook.agree.VECTORS`.
    n_splits
        Random splits of the word-score kind.
    test_splits
        Random splits of the tests kind; ``None``: :data:`TEST_SPLITS`
        (:data:`SLOW_TEST_SPLITS` for :data:`SLOW_METRICS`).
    tests, metrics
        Only these tests (by name; the tests kind then correlates over them) and metrics
        (default: all): a slice is computed alone, cheaply, with the same splits.
    kinds
        Which kinds of :data:`_KINDS`.
    seed
        Seeds the splits.

    Returns
    -------
    pandas.DataFrame
        :data:`_COLUMNS`: ``vectors``, ``kind`` (:data:`_KINDS`), ``test`` (``"all"`` for
        the tests kind), ``metric``, ``subjects`` (words scored, or tests), ``items``
        (group words :math:`n_X + n_Y`; for WEAT's d the attribute words; for the tests
        kind the median words of a test), ``reliability`` (the mean Spearman–Brown
        corrected split-half r), ``low``, ``high`` (its 95 % interval over the
        subjects), ``uncorrected`` (the mean half-length r), ``split_low``,
        ``split_high`` (2.5th and 97.5th percentiles over splits), ``splits``,
        ``exhaustive``, ``mc_error`` (the Monte Carlo standard error of the mean over
        splits, :attr:`_ConsistencySplitHalf.mc_error`; NaN for WEAT's d and SAME's word
        scores, whose splits the library averages), ``items_needed`` (words for a reliability of
        :data:`~biaslib.evaluate.reliability.RELIABILITY_TARGET`:
        :func:`~biaslib.stats.reliability.items_needed`, in pairs × 2 for the metrics
        that read pairs; NaN where the reliability is not positive) and ``note``.
    """
    if vectors_name not in VECTORS:
        raise ValueError(f"vectors_name must be one of {VECTORS}, got {vectors_name!r}")
    unknown = set(kinds) - set(_KINDS)
    if unknown:
        raise ValueError(f"kinds must be among {_KINDS}, got {sorted(unknown)}")
    available = sets_of(vectors_name)
    if tests is not None:
        missing = [t for t in tests if t not in available]
        if missing:
            raise ValueError(f"no vectors for tests {missing} on {vectors_name}; it runs "
                             f"{list(available)}")
        available = {t: available[t] for t in tests}
    chosen = [metric(m) for m in (metrics if metrics is not None else [m.name for m in METRICS])]
    rows = []
    if "word scores" in kinds:
        for name, sets in available.items():
            for m in chosen:
                if m.name not in WORD_SCORE_METRICS:
                    continue
                half = metric_split_half(sets, m, n_splits=n_splits, seed=seed)
                if m.name == "WEAT d":
                    subjects, items, per = len(sets.X) + len(sets.Y), len(sets.measured), 1
                    n_units = items
                else:
                    subjects, items = len(sets.measured), len(sets.X) + len(sets.Y)
                    per = 2 if m.needs_pairs else 1
                    n_units = items // per
                needed = math.nan if half is None else _needed(half.value, n_units, per)
                rows.append(_row(vectors_name, "word scores", name, m, half, subjects, items,
                                 needed))
    if "tests" in kinds:
        sets_list = list(available.values())
        splits = {m.name: _test_splits(m, test_splits) for m in chosen}
        halves = _across(sets_list, chosen, splits, seed)
        items = int(np.median([len(s.X) + len(s.Y) + len(s.A) + len(s.B) for s in sets_list]))
        for m in chosen:
            half = halves[m.name]
            needed = math.nan if half is None else _needed(half.value, items)
            note = "" if half is not None else (
                f"fewer than {_MIN_TESTS} tests" if len(sets_list) < _MIN_TESTS
                else "no split left")
            rows.append(_row(vectors_name, "tests", "all", m, half, len(sets_list), items,
                             needed, note))
    return pd.DataFrame(rows, columns=list(_COLUMNS))

r"""How reliable is one bias score? Split-half and alpha over the words a test scores against.

A bias test is read here as a psychometric test (Du, Fang & Nguyen 2021): the
*subjects* are the words (or sentences) whose scores the test compares, the *items* are
the words it scores them against.

- WEAT, s-SEAT, w-SEAT and ML-EAT's level 1 compare the target words' associations
  :math:`s(w, A, B) = \operatorname{mean}_{a\in A}\cos(w,a) -
  \operatorname{mean}_{b\in B}\cos(w,b)` (Caliskan et al. 2017, eq. 3) between X and Y:
  subjects the :math:`n_X + n_Y` targets, items the :math:`n_A + n_B` attribute words
  (:func:`association_reliability`).
- SAME (Schröder et al. 2021, eq. 37) averages :math:`|\cos(w, \hat x - \hat y)|` over the
  attribute words: subjects the attribute words, items the target words that span
  :math:`\hat x - \hat y` (:func:`same_reliability`).
- LPBS (Kurita et al. 2019) compares the attribute words' bias scores, one per template:
  subjects the attribute words, items the templates (:func:`lpbs_reliability`).

The split-half coefficient (:func:`~biaslib.stats.reliability.split_half_reliability`)
says how well two random halves of the items rank the subjects alike; Spearman–Brown
steps it up to the full test. A standardised effect size like the WEAT's :math:`d`
divides by the spread of the subjects' scores, which measurement noise inflates: with
reliability :math:`\rho` the observed :math:`d` is attenuated by about
:math:`\sqrt{\rho}`, and another draw of attribute words would rank the targets
differently. :func:`~biaslib.stats.reliability.items_needed` says how many items a test
would need for :math:`\rho = 0.8`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biaslib.stats.reliability import (
    Reliability,
    SplitHalf,
    cronbach_alpha,
    distinct_splits,
    items_needed,
    random_halves,
    split_half_from_halves,
    split_half_reliability,
    stratified_alpha,
)
from biaslib.stats.similarity import unit_rows
from biaslib.validation import real_array

__all__ = ["RELIABILITY_SEED", "RELIABILITY_SPLITS", "RELIABILITY_TARGET", "ScoreReliability",
           "association_reliability", "lpbs_reliability", "same_reliability"]

#: Random splits averaged by every split-half coefficient of the book and the audit.
RELIABILITY_SPLITS = 1000
#: Their seed (biaslib's resampling seed).
RELIABILITY_SEED = 1111
#: The reliability a test's items should reach (Nunnally's 0.8 for basic research).
RELIABILITY_TARGET = 0.8


@dataclass(frozen=True)
class ScoreReliability:
    """The reliability of one bias score over its items.

    Attributes
    ----------
    split_half
        Spearman–Brown corrected split-half reliability, with its interval.
    alpha
        Cronbach's alpha over the items, stratified by group where the score is a
        difference of group means (``None`` where the subject's score is not a sum
        over items, as for SAME; ``alpha_note`` says why).
    items_needed
        Items for a split-half reliability of :data:`RELIABILITY_TARGET`
        (:func:`~biaslib.stats.reliability.items_needed`; ``inf`` if not positive).
    subjects, items
        What was correlated and what was split, in words.
    alpha_note
        Why there is no alpha, or ``""``.
    """

    split_half: SplitHalf
    alpha: Reliability | None
    items_needed: float
    subjects: str
    items: str
    alpha_note: str = ""

    def describe(self) -> str:
        """One line: what the coefficients were computed over."""
        return (f"subjects: {self.subjects}; items: {self.items} "
                f"({self.split_half.splits_text()}, seed {RELIABILITY_SEED})")


def association_reliability(
    X: ArrayLike, Y: ArrayLike, A: ArrayLike, B: ArrayLike, *,
    n_splits: int = RELIABILITY_SPLITS, seed: int | None = RELIABILITY_SEED,
    confidence: float = 0.95,
) -> ScoreReliability:
    r"""Reliability of the targets' WEAT associations :math:`s(w, A, B)` over the attribute words.

    Items: the cosines :math:`\cos(w, a)` of each target :math:`w \in X \cup Y` with each
    :math:`a \in A` and :math:`-\cos(w, b)` with each :math:`b \in B`. The split-half
    coefficient halves :math:`A` and :math:`B` each at random and scores every target on
    both halves exactly as the WEAT does (mean over A minus mean over B). The alpha is
    stratified by A and B (:func:`~biaslib.stats.reliability.stratified_alpha`): plain
    alpha over the signed cosines would count a word's closeness to every word, which the
    difference cancels, as disagreement between the items.

    Parameters
    ----------
    X, Y, A, B
        The four sets' vectors, ``(n, d)`` each; A and B need at least 2 words each (one
        per half), X and Y together at least 4.
    n_splits, seed, confidence
        As for :func:`~biaslib.stats.reliability.split_half_reliability`.
    """
    # unit_rows validates each set (2-D, non-empty, finite, no zero vector)
    targets = np.vstack([unit_rows(X, "X"), unit_rows(Y, "Y")])
    attrs_a, attrs_b = unit_rows(A, "A"), unit_rows(B, "B")
    cos = targets @ np.vstack([attrs_a, attrs_b]).T
    groups = np.r_[np.zeros(len(attrs_a), int), np.ones(len(attrs_b), int)]
    half = split_half_reliability(cos, groups=groups, signs=(1.0, -1.0), n_splits=n_splits,
                                  seed=seed, confidence=confidence)
    return ScoreReliability(
        split_half=half,
        alpha=stratified_alpha(cos, groups, (1.0, -1.0), confidence=confidence, seed=seed),
        items_needed=items_needed(half.value, cos.shape[1], RELIABILITY_TARGET),
        subjects=f"the {len(targets)} target items' associations s(w, A, B)",
        items=f"the {len(attrs_a)} + {len(attrs_b)} attribute items of A and B")


def same_reliability(
    X: ArrayLike, Y: ArrayLike, W: ArrayLike, *,
    n_splits: int = RELIABILITY_SPLITS, seed: int | None = RELIABILITY_SEED,
    confidence: float = 0.95,
) -> ScoreReliability:
    r"""Reliability of SAME's word scores :math:`|\cos(w, \hat x - \hat y)|` over X and Y.

    SAME's direction is the difference of the mean unit vectors of the two groups
    (:func:`~biaslib.methods.same.attribute_means`); each random split halves X and Y,
    so that each half gives a direction and every scored word :math:`w \in W` a score on
    each. All splits at once: the half means are one matrix product. SAME's word score is
    not a sum over the words of X and Y, so there is no Cronbach's alpha.

    Parameters
    ----------
    X, Y
        The words that span the bias direction (at least 2 each).
    W
        The scored words (at least 4).
    n_splits, seed, confidence
        As for :func:`association_reliability`.
    """
    x, y, words = unit_rows(X, "X"), unit_rows(Y, "Y"), unit_rows(W, "W")
    groups = np.r_[np.zeros(len(x), int), np.ones(len(y), int)]
    masks = random_halves(groups, n_splits, seed=seed)
    spanning = np.vstack([x, y])
    sign = np.where(groups == 0, 1.0, -1.0)

    def scores(mask: NDArray[np.bool_]) -> NDArray[np.float64]:
        weights = mask.astype(np.float64)
        for g in (0, 1):
            cols = groups == g
            weights[:, cols] /= weights[:, cols].sum(axis=1, keepdims=True)
        directions = (weights * sign) @ spanning
        norms = np.linalg.norm(directions, axis=1, keepdims=True)
        if (norms == 0).any():
            raise ValueError("a half of X and a half of Y have the same mean unit vector: "
                             "SAME's direction is zero on that split")
        return np.abs(np.clip(words @ (directions / norms).T, -1.0, 1.0)).T

    half = split_half_from_halves(scores(masks), scores(~masks), confidence=confidence,
                                  exhaustive=distinct_splits(groups) <= n_splits)
    return ScoreReliability(
        split_half=SplitHalf(**{**half.__dict__, "n_items": len(spanning)}), alpha=None,
        items_needed=items_needed(half.value, len(spanning), RELIABILITY_TARGET),
        subjects=f"the {len(words)} scored words' |cos(w, x̂ − ŷ)|",
        items=f"the {len(x)} + {len(y)} words of X and Y that span the direction",
        alpha_note="SAME's word score is not a sum over items")


def lpbs_reliability(
    scores_a: ArrayLike, scores_b: ArrayLike, *,
    n_splits: int = RELIABILITY_SPLITS, seed: int | None = RELIABILITY_SEED,
    confidence: float = 0.95,
) -> ScoreReliability:
    r"""Reliability of LPBS's attribute-word bias scores over the templates.

    Subjects: the attribute words of A and B; items: the templates; a word's score on a
    set of templates is the mean of its bias scores (Kurita et al. 2019's increased log
    probability of one target over the other) on them. Split-half halves the templates;
    alpha treats the templates as items.

    Parameters
    ----------
    scores_a, scores_b
        ``(n_templates, n_A)`` and ``(n_templates, n_B)``: one bias score per template
        and attribute word, at least 2 templates and 4 words in all.
    n_splits, seed, confidence
        As for :func:`association_reliability`.
    """
    a, b = real_array(scores_a, "scores_a"), real_array(scores_b, "scores_b")
    if a.ndim != 2 or b.ndim != 2 or a.shape[0] != b.shape[0]:
        raise ValueError("scores_a and scores_b must be (n_templates, n_words) arrays with "
                         f"the same templates, got shapes {a.shape} and {b.shape}")
    items = np.hstack([a, b]).T  # words × templates
    half = split_half_reliability(items, n_splits=n_splits, seed=seed, confidence=confidence)
    return ScoreReliability(
        split_half=half, alpha=cronbach_alpha(items, confidence=confidence),
        items_needed=items_needed(half.value, items.shape[1], RELIABILITY_TARGET),
        subjects=f"the {a.shape[1]} + {b.shape[1]} attribute words' bias scores",
        items=f"the {items.shape[1]} templates")

r"""The SAME paper's properties of bias scores, as numerical checks.

Schröder et al. (seed 004) require a bias score to be *magnitude-comparable*
(Definition 5: its extremes, for a fixed number of words, do not depend on the
attribute sets) and *unbiased-trustworthy* (Definition 6: it reports "no bias"
only when every word is equally similar to every group), and classify scores
as *skew-* and *stereotype-sensitive* (Definitions 7–8). Their Tables 1 and 4
summarise which score has which property. This module turns each claim into a
computation that can fail:

* :func:`attainable_range` — a word score's extremes over all word vectors and
  the vectors that attain them, for given attribute sets (comparability);
* :func:`weat_d_bound`, :func:`lemma1_bound`, :func:`extremal_scores` —
  Lemma 1 and Theorem 5: the bound of WEAT's effect size for given set sizes
  and ``ddof`` (for 2 + 2 words and ``ddof=1``: :math:`\sqrt 3 = 1.7321`,
  beside which the paper's §3.1 value 1.7299 sits);
* :func:`weat_zero_counterexample`, :func:`direct_bias_counterexample`,
  :func:`mac_counterexample` — Theorems 4, 12 and 8: biased words that a score
  calls unbiased, or the reverse;
* :func:`skew_stereotype_sets` — Theorems 15–16: a purely skewed and a purely
  stereotyped set of words;
* :func:`weat_same_identity` — eq. 46–48: :math:`s(w,A,B) = \lVert\hat a_A -
  \hat a_B\rVert\, b(w,A,B)`.

Everything is numpy on the vectors given. The chapter runs these checks on
GloVe, and ``biasbook.same.property_matrix`` gathers them into the
paper's Table 4 with our verdicts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biaslib.methods.same import (
    attribute_means,
    direct_bias,
    direct_bias_space,
    direct_bias_word,
    mac,
    mac_word,
    same_multi_word,
    same_signed_word,
    same_space,
    weat_d,
    weat_word,
)

__all__ = [
    "Counterexample",
    "attainable_range",
    "direct_bias_counterexample",
    "extremal_scores",
    "lemma1_bound",
    "mac_counterexample",
    "orthogonal_unit",
    "skew_stereotype_sets",
    "weat_d_bound",
    "weat_same_identity",
    "weat_zero_counterexample",
]


# --------------------------------------------------------------------------- WEAT's bound


def lemma1_bound(m: int, n: int) -> float:
    r"""Lemma 1: :math:`|\sum_{j \le m} (x_{i_j} - \hat\mu)/\hat\sigma| \le \sqrt{m(n-m)}`.

    :math:`\hat\sigma` is the population standard deviation (``ddof=0``), as in
    the lemma's proof (:math:`\hat\sigma^2 = \frac1n x^\top x - \hat\mu^2`).
    """
    if not 0 <= m <= n or n < 1:
        raise ValueError(f"need 0 <= m <= n and n >= 1, got m={m}, n={n}")
    return math.sqrt(m * (n - m))


def weat_d_bound(n_x: int, n_y: int, ddof: int = 1) -> float:
    r"""The largest :math:`|d(X, Y, A, B)|` for :math:`|X| = n_x`, :math:`|Y| = n_y`.

    With :math:`n = n_x + n_y`, :math:`\bar s_X - \bar s_Y = \frac{n}{n_x n_y}
    \sum_{x}(s_x - \hat\mu)`, so Lemma 1 gives :math:`|d| \le n / \sqrt{n_x
    n_y}` for ``ddof=0`` (2 for equal sizes: Theorem 5), and
    :math:`\sqrt{n(n-1)/(n_x n_y)}` for ``ddof=1``
    (:math:`2\sqrt{(n-1)/n}` for equal sizes). Attained when every x shares one
    score and every y another (:func:`extremal_scores`).

    Examples
    --------
    The paper's §3.1 uses two words per group; with the sample standard
    deviation (``ddof=1``, as WEAT and the authors' ``weat.py`` at every commit,
    0328011 of 2022-03-02 to 5e72d36 of 2024-04-22) the bound is
    :math:`\sqrt 3`:

    >>> from biaslib.methods.same_properties import weat_d_bound
    >>> round(weat_d_bound(2, 2), 4), round(weat_d_bound(2, 2, ddof=0), 4)
    (1.7321, 2.0)
    """
    if n_x < 1 or n_y < 1:
        raise ValueError("each target set needs at least one word")
    if ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 or 1, got {ddof!r}")
    n = n_x + n_y
    if ddof == 1 and n < 2:
        raise ValueError("ddof=1 needs at least two words")
    bound = n / math.sqrt(n_x * n_y)
    return bound * math.sqrt((n - 1) / n) if ddof == 1 else bound


def extremal_scores(n_x: int, n_y: int, high: float = 1.0, low: float = -1.0
                    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Association scores that attain :func:`weat_d_bound`: every x ``high``, every y ``low``."""
    if high == low:
        raise ValueError("the two values must differ (d would be 0/0)")
    return np.full(n_x, float(high)), np.full(n_y, float(low))


# --------------------------------------------------------------------------- ranges


def orthogonal_unit(directions: ArrayLike, seed: int = 0) -> NDArray[np.float64]:
    """A seeded random unit vector orthogonal to every row of ``directions``."""
    dirs = np.atleast_2d(np.asarray(directions, dtype=np.float64))
    q, _ = np.linalg.qr(dirs.T)
    if q.shape[1] >= dirs.shape[1]:
        raise ValueError("the directions span the whole space: no orthogonal vector exists")
    v = np.random.default_rng(seed).normal(size=dirs.shape[1])
    v -= q @ (q.T @ v)
    return v / np.linalg.norm(v)


def attainable_range(
    score: str, attribute_sets: Sequence[ArrayLike], *, seed: int = 0
) -> dict[str, object]:
    r"""The extremes of a word score over all word vectors, and whether they are attained.

    Parameters
    ----------
    score
        ``"SAME"`` (signed binary), ``"SAME multi (paper)"``, ``"SAME multi
        (code)"``, ``"WEAT"`` (:math:`s(w,A,B)`, two sets), ``"MAC"``
        (per-set mean), ``"Direct Bias"`` (two paired sets, k=1, c=1).
    attribute_sets
        The attribute sets (vectors).
    seed
        For the random direction orthogonal to the bias space (the minimum).

    Returns
    -------
    dict
        ``theory_min``, ``theory_max`` (from the paper's algebra: e.g.
        :math:`\pm\lVert\hat a_A - \hat a_B\rVert` for WEAT, eq. 49–50),
        ``attained_min``, ``attained_max`` (the score of the extremal vectors
        built here), ``depends_on_attributes`` (whether the theoretical range
        is a function of the attribute sets).
    """
    sets = [np.asarray(a, dtype=np.float64) for a in attribute_sets]
    means = attribute_means(sets)
    if score == "SAME":
        d = means[0] - means[1]
        g = d / np.linalg.norm(d)
        hi, lo = same_signed_word(np.stack([g, -g]), sets[0], sets[1])
        out = (-1.0, 1.0, float(lo), float(hi), False)
    elif score in ("SAME multi (paper)", "SAME multi (code)"):
        space = same_space(sets)
        rule = "norm" if score.endswith("(paper)") else "code-sum"
        weights = np.concatenate([[1.0], space.raw_norms[1:]])
        if rule == "norm":
            best, top = space.basis[0], 1.0
        else:  # Cauchy–Schwarz: sum_i c_i |cos_i| <= ||c|| with equality along c
            best, top = weights @ space.basis, float(np.linalg.norm(weights))
        zero = orthogonal_unit(space.basis, seed)
        vals = same_multi_word(np.stack([best, zero]), space, rule)
        out = (0.0, top, float(vals[1]), float(vals[0]), rule == "code-sum" and space.dim > 1)
    elif score == "WEAT":
        d = means[0] - means[1]
        g = d / np.linalg.norm(d)
        hi, lo = weat_word(np.stack([g, -g]), sets[0], sets[1])
        r = float(np.linalg.norm(d))
        out = (-r, r, float(lo), float(hi), True)
    elif score == "MAC":
        centre = means.mean(axis=0)  # per-set mean of the unit attribute vectors
        r = float(np.linalg.norm(centre))
        g = centre / r
        lo, hi = mac_word(np.stack([g, -g]), sets, "per_set")
        out = (1.0 - r, 1.0 + r, float(lo), float(hi), True)
    elif score == "Direct Bias":
        space = direct_bias_space(sets)
        vals = direct_bias_word(np.stack([space.basis[0], orthogonal_unit(space.basis, seed)]),
                                space)
        out = (0.0, 1.0, float(vals[1]), float(vals[0]), False)
    else:
        raise ValueError(f"unknown score {score!r}")
    keys = ("theory_min", "theory_max", "attained_min", "attained_max", "depends_on_attributes")
    return {"score": score, **dict(zip(keys, out, strict=True))}


# --------------------------------------------------------------------------- counterexamples


def _num(x: float) -> str:
    """Four decimals, never ``-0.0000`` (float noise around 0 may take either sign)."""
    return f"{round(float(x), 4) + 0.0:.4f}"


@dataclass(frozen=True)
class Counterexample:
    """A configuration where a score contradicts the paper's bias definition.

    Attributes
    ----------
    theorem
        Which of the paper's results it illustrates.
    score
        The score that fails.
    reported
        What the score reports.
    unbiased_value
        :math:`b_0`, the score's "no bias" value.
    truly_biased
        Whether the words are biased by Definition 1/2 (some word is more
        similar to one group than to another).
    word_bias
        SAME's word biases of the words, for comparison.
    vectors
        The word vectors used (rows).
    """

    theorem: str
    score: str
    reported: float
    unbiased_value: float
    truly_biased: bool
    word_bias: tuple[float, ...]
    vectors: NDArray[np.float64]

    def to_dict(self) -> dict[str, object]:
        """A flat record without the vectors."""
        return {"theorem": self.theorem, "score": self.score, "reported": self.reported,
                "no-bias value": self.unbiased_value, "words biased": self.truly_biased,
                "SAME word biases": ", ".join(f"{_num(b)}" for b in self.word_bias)}


def weat_zero_counterexample(
    attr_a: ArrayLike, attr_b: ArrayLike, alpha: float = 1.0, seed: int = 0
) -> Counterexample:
    r"""Theorem 4 / Figure 4: WEAT's effect size is 0 although every word is biased.

    With :math:`g` the unit bias direction and :math:`u \perp g`:
    :math:`x_1 = \alpha g + u`, :math:`x_2 = -\alpha g + u`,
    :math:`y_1 = \alpha g - u`, :math:`y_2 = -\alpha g - u`. Then
    :math:`s(x_1) = s(y_1) \ne 0` and :math:`s(x_2) = s(y_2) \ne 0`, so
    :math:`d(X, Y) = 0`, while each word's SAME bias is
    :math:`\pm\alpha/\sqrt{1+\alpha^2}`.
    """
    means = attribute_means([attr_a, attr_b])
    g = (means[0] - means[1]) / np.linalg.norm(means[0] - means[1])
    u = orthogonal_unit(g, seed)
    X = np.stack([alpha * g + u, -alpha * g + u])
    Y = np.stack([alpha * g - u, -alpha * g - u])
    d = weat_d(X, Y, attr_a, attr_b).effect_size
    b = same_signed_word(np.concatenate([X, Y]), attr_a, attr_b)
    return Counterexample("Theorem 4 (Figure 4)", "WEAT d", d, 0.0, bool(np.abs(b).min() > 0),
                          tuple(float(v) for v in b), np.concatenate([X, Y]))


def direct_bias_counterexample(x: float = 1.0, r: float = 2.0) -> tuple[Counterexample, ...]:
    r"""Theorem 12: PCA finds the within-group spread, not the contrast between groups.

    :math:`a_1 = (-x, rx) = -c_1`, :math:`a_2 = (-x, -rx) = -c_2`, :math:`r > 1`:
    the first principal component is :math:`(0, 1)`. The word :math:`(0, 1)`,
    equally similar to both groups, gets Direct Bias 1; the word
    :math:`(1, 0)`, maximally biased, gets 0. SAME's direction is
    :math:`\hat a_A - \hat a_C \parallel (-1, 0)`.
    """
    if r <= 1:
        raise ValueError("Theorem 12 needs r > 1")
    A = np.array([[-x, r * x], [-x, -r * x]])
    C = -A
    out = []
    for w in (np.array([[0.0, 1.0]]), np.array([[1.0, 0.0]])):
        db = direct_bias(w, [A, C], unit_attributes=False).effect_size
        b = same_signed_word(w, A, C)
        biased = bool(abs(b[0]) > 1e-12)
        out.append(Counterexample("Theorem 12", "Direct Bias", db, 0.0, biased,
                                  (float(b[0]),), w))
    return tuple(out)


def mac_counterexample(theta: float, alpha: float) -> Counterexample:
    r"""Theorem 8: MAC in the plane with :math:`A_1 = \{(1,0)\}` and :math:`A_2` at angle θ.

    The word at angle α gets :math:`1 - (\cos\alpha + \cos(\theta - \alpha))/2`.
    With :math:`\theta = \pi` every word scores 1 (MAC's "no bias") although
    words with :math:`\alpha \ne \pi/2` are biased; with :math:`\alpha =
    \theta/2`, an unbiased word, MAC is :math:`1 - \cos(\theta/2) \ne 1` unless
    :math:`\theta = \pi`.
    """
    a1 = np.array([[1.0, 0.0]])
    a2 = np.array([[math.cos(theta), math.sin(theta)]])
    w = np.array([[math.cos(alpha), math.sin(alpha)]])
    value = mac(w, [a1, a2]).effect_size
    b = float(same_signed_word(w, a1, a2)[0])  # 0 iff s(w, A1) = s(w, A2)
    return Counterexample("Theorem 8", "MAC", value, 1.0, abs(b) > 1e-12, (b,), w)


def skew_stereotype_sets(
    attr_a: ArrayLike, attr_b: ArrayLike, alpha: float = 0.5, seed: int = 0
) -> dict[str, NDArray[np.float64]]:
    r"""Word sets that are purely skewed or purely stereotyped (Definitions 3–4, Thm 15–16).

    ``"skewed"``: two different words with the same bias
    :math:`\alpha/\sqrt{1+\alpha^2}` towards the first set (skew, no stereotype);
    ``"stereotyped"``: two words with opposite biases (stereotype, no skew).
    """
    means = attribute_means([attr_a, attr_b])
    g = (means[0] - means[1]) / np.linalg.norm(means[0] - means[1])
    u = orthogonal_unit(g, seed)
    v = orthogonal_unit(np.stack([g, u]), seed + 1)
    return {"skewed": np.stack([alpha * g + u, alpha * g + v]),
            "stereotyped": np.stack([alpha * g + u, -alpha * g + u])}


def weat_same_identity(targets: ArrayLike, attr_a: ArrayLike, attr_b: ArrayLike) -> float:
    r"""Largest :math:`|s(w,A,B) - \lVert\hat a_A - \hat a_B\rVert\, b(w,A,B)|` over the words.

    Eq. 46–48: WEAT's word score is SAME's binary score times the distance of
    the mean unit attribute vectors, for every word — so both correlate equally
    with anything (Figure 5/6 report them together).
    """
    means = attribute_means([attr_a, attr_b])
    scale = float(np.linalg.norm(means[0] - means[1]))
    return float(np.abs(weat_word(targets, attr_a, attr_b)
                        - scale * same_signed_word(targets, attr_a, attr_b)).max())

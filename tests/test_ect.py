"""ECT (Dev & Phillips 2019): hand computations (with ties), a loop re-implementation and
scipy, the test's properties, the normalisation option, and bad input."""

import math

import numpy as np
import pytest
from peer_code import needs_wefe, wefe_metric
from scipy.stats import spearmanr

from biaslib.errors import DegenerateTestError
from biaslib.methods.ect import ect, ect_similarities, spearman

R = 1 / math.sqrt(2)


def _rng_sets(seed=0, m=12, d=5):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(m, d)), rng.normal(size=(4, d)) + 0.5, rng.normal(size=(6, d)) - 0.5


# --------------------------------------------------------------------------- hand computations


def test_reversed_order_by_hand():
    r = ect([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], [[2.0, 0.0]], [[0.0, 3.0]])
    assert r.method == "ECT" and r.effect_size == -1.0
    assert r.word_scores == pytest.approx([1.0, 0.0, -1.0])
    assert (r.n_words, r.n_groups) == (3, 2)


def test_ties_by_hand():
    # X̄ = (1, 0), Ȳ ∝ (1, 1). cos with X̄: [1, 0, r, r]; with Ȳ: [r, r, 1, 0] (r = 1/√2).
    # Average ranks [4, 1, 2.5, 2.5] and [2.5, 2.5, 4, 1]; centred, [1.5, −1.5, 0, 0] and
    # [0, 0, 1.5, −1.5]: their products sum to 0, so ρ = 0.
    W = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, -1.0]]
    r = ect(W, [[1.0, 0.0]], [[2.0, 2.0]])
    assert r.effect_size == 0.0
    assert r.word_scores == pytest.approx([1 - R, -R, R - 1, R])
    assert ect_similarities(W, [[1.0, 0.0]], [[2.0, 2.0]]) == pytest.approx(
        np.array([[1, R], [0, R], [R, 1], [R, 0]]))


def test_spearman_by_hand():
    # Ranks 1 2 3 4 and 2 1 4 3: Σd² = 4, ρ = 1 − 6·4 / (4·15) = 0.6.
    assert spearman([0.1, 0.2, 0.3, 0.4], [0.2, 0.1, 0.4, 0.3]) == pytest.approx(0.6)
    # A tie: ranks 1, 2.5, 2.5, 4 against 1..4 → 4.5 / √(4.5 · 5) = 0.948683.
    assert spearman([1.0, 2.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0]) == pytest.approx(
        4.5 / math.sqrt(22.5))


def test_normalize_by_hand():
    # X = {(10, 0), (0, 1)}: raw mean (5, 0.5), unit mean (0.5, 0.5) — different directions.
    W = [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
    X, Y = [[10.0, 0.0], [0.0, 1.0]], [[1.0, 0.2]]
    raw = ect_similarities(W, X, Y)[:, 0]
    unit = ect_similarities(W, X, Y, normalize=True)[:, 0]
    assert raw == pytest.approx([5 / math.hypot(5, 0.5), 5.5 / math.hypot(5, 0.5) * R,
                                 0.5 / math.hypot(5, 0.5)])
    assert unit == pytest.approx([R, 1.0, R])
    # With unit vectors the two groups order the words in opposite ways:
    # cos with X̄: [r, 1, r] (ranks 1.5, 3, 1.5); with Ȳ: decreasing in the angle (3, 2, 1).
    assert ect(W, X, Y).effect_size == pytest.approx(1.0)
    assert ect(W, X, Y, normalize=True).effect_size == pytest.approx(0.0)
    assert ect(W, X, Y, normalize=True).options["normalize"] is True


# --------------------------------------------------------------------------- brute force


def _ranks(values):
    out = []
    for v in values:
        below = sum(1 for u in values if u < v)
        equal = sum(1 for u in values if u == v)
        out.append(below + (equal + 1) / 2)
    return out


def _pearson(a, b):
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    cov = sum((x - ma) * (y - mb) for x, y in zip(a, b, strict=True))
    return cov / math.sqrt(sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b))


def _cos(u, v):
    return sum(a * b for a, b in zip(u, v, strict=True)) / math.sqrt(
        sum(a * a for a in u) * sum(b * b for b in v))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_matches_a_loop_and_scipy(seed):
    W, X, Y = _rng_sets(seed)
    xb = [sum(c) / len(X) for c in zip(*X.tolist(), strict=True)]
    yb = [sum(c) / len(Y) for c in zip(*Y.tolist(), strict=True)]
    cx = [_cos(w, xb) for w in W.tolist()]
    cy = [_cos(w, yb) for w in W.tolist()]
    r = ect(W, X, Y)
    assert r.effect_size == pytest.approx(_pearson(_ranks(cx), _ranks(cy)))
    assert r.effect_size == pytest.approx(spearmanr(cx, cy).statistic)
    assert r.word_scores == pytest.approx(np.subtract(cx, cy))


def test_spearman_matches_scipy_with_many_ties():
    rng = np.random.default_rng(5)
    a, b = rng.integers(0, 4, size=30).astype(float), rng.integers(0, 3, size=30).astype(float)
    assert spearman(a, b) == pytest.approx(spearmanr(a, b).statistic)


# --------------------------------------------------------------------------- properties


def test_one_when_the_group_means_coincide():
    W, _, _ = _rng_sets(6, d=2)
    assert ect(W, [[1.0, 0.0], [0.0, 1.0]], [[0.5, 0.5]]).effect_size == pytest.approx(1.0)
    assert ect(W, [[1.0, 0.0], [0.0, 1.0]], [[3.0, 3.0]]).effect_size == pytest.approx(1.0)


def test_symmetric_in_the_groups_and_signed_word_scores_flip():
    W, X, Y = _rng_sets(7)
    r, s = ect(W, X, Y), ect(W, Y, X)
    assert s.effect_size == pytest.approx(r.effect_size)
    assert s.word_scores == pytest.approx(-r.word_scores)


def test_in_minus_one_one():
    for seed in range(5):
        assert -1.0 <= ect(*_rng_sets(seed)).effect_size <= 1.0


def test_invariant_to_monotone_transformations_of_the_similarities():
    rng = np.random.default_rng(8)
    a, b = rng.uniform(-1, 1, size=20), rng.uniform(-1, 1, size=20)
    assert spearman(np.exp(3 * a), b**3) == pytest.approx(spearman(a, b))
    assert spearman(-a, b) == pytest.approx(-spearman(a, b))


def test_invariant_to_rotations_word_lengths_and_group_scale():
    W, X, Y = _rng_sets(9)
    q, _ = np.linalg.qr(np.random.default_rng(2).normal(size=(5, 5)))
    lengths = np.random.default_rng(3).uniform(0.1, 10, size=(len(W), 1))
    value = ect(W, X, Y).effect_size
    assert ect(W @ q, X @ q, Y @ q).effect_size == pytest.approx(value)
    assert ect(W * lengths, X, Y).effect_size == pytest.approx(value)
    assert ect(W, 4.0 * X, 0.25 * Y).effect_size == pytest.approx(value)


def test_word_order_does_not_matter():
    W, X, Y = _rng_sets(10)
    order = np.random.default_rng(0).permutation(len(W))
    assert ect(W[order], X, Y).effect_size == pytest.approx(ect(W, X, Y).effect_size)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("words", "X", "Y", "error", "match"),
    [
        ([[1.0, 0.0]], [[1.0, 0.0]], [[0.0, 1.0]], ValueError, "at least two"),
        (np.empty((0, 2)), [[1.0, 0.0]], [[0.0, 1.0]], ValueError, "empty"),
        ([[1.0, 0.0], [0.0, 1.0]], np.empty((0, 2)), [[0.0, 1.0]], ValueError, "empty"),
        ([[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0, 0.0]], [[0.0, 1.0]], ValueError, "dimension"),
        ([[1.0, 0.0], [0.0, np.nan]], [[1.0, 0.0]], [[0.0, 1.0]], ValueError, "NaN"),
        ([[1.0, 0.0], [0.0, 0.0]], [[1.0, 0.0]], [[0.0, 1.0]], ValueError, "zero vector"),
        ([[1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [-1.0, -1.0]], [[0.0, 1.0]],
         DegenerateTestError, "mean of X"),
        # Both words equally similar to Ȳ = (1, 1): no ranking, ρ = 0/0.
        ([[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0]], [[1.0, 1.0]], DegenerateTestError, "constant"),
    ],
)
def test_bad_input(words, X, Y, error, match):
    with pytest.raises(error, match=match):
        ect(words, X, Y)


def test_bad_spearman_input():
    with pytest.raises(ValueError, match="same length"):
        spearman([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="normalize"):
        ect([[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0]], [[0.0, 1.0]], normalize=None)


def test_options_name_the_convention():
    r = ect([[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.2]], [[0.1, 1.0]])
    assert r.convention_name == "paper" and r.options["ties"] == "average ranks"


@needs_wefe
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reproduces_wefes_code(seed):
    W, X, Y = _rng_sets(seed)
    theirs = wefe_metric("ECT")()._ECT__calculate_embedding_coherence(list(X), list(Y), list(W))
    assert ect(W, X, Y).effect_size == pytest.approx(float(theirs), abs=1e-12)

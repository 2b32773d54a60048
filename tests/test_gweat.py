"""Generalized WEAT (Swinger et al. 2019) and its relation to WEAT."""

import itertools

import numpy as np
import pytest

from biaslib.errors import UnknownNameError
from biaslib.methods.gweat import generalized_weat
from biaslib.methods.weat import association, effect_size, test_statistic


def _brute(targets, attributes):
    """The definition with plain loops over coordinates and words (unit vectors, group centres)."""
    def unit(v):
        return [c / sum(x * x for x in v) ** 0.5 for c in v]

    def mean(vs):
        return [sum(col) / len(vs) for col in zip(*vs, strict=True)]

    xm = [mean([unit(v) for v in t]) for t in targets]
    am = [mean([unit(v) for v in a]) for a in attributes]
    xc, ac = mean(xm), mean(am)
    total = 0.0
    for xi, ai in zip(xm, am, strict=True):
        total += sum((p - q) * (r - s) for p, q, r, s in zip(xi, xc, ai, ac, strict=True))
    return total


def _sets(rng, sizes, d=6):
    return [rng.normal(size=(m, d)) for m in sizes]


def test_hand_computation():
    # X1 = {(1,0)}, X2 = {(0,1)}, A1 = {(1,0)}, A2 = {(0,1)}: centre (½,½);
    # terms (½,-½)·(½,-½) = ½ twice → 1.
    r = generalized_weat([[[1.0, 0.0]], [[0.0, 1.0]]], [[[5.0, 0.0]], [[0.0, 2.0]]])
    assert r.effect_size == pytest.approx(1.0)
    assert r.word_scores.tolist() == pytest.approx([0.5, 0.5])
    assert r.method == "Generalized WEAT" and r.n_groups == 2 and r.n_words == 2


def test_matches_brute_force_three_groups_unequal_sizes():
    rng = np.random.default_rng(0)
    t, a = _sets(rng, [3, 5, 2]), _sets(rng, [4, 2, 6])
    assert generalized_weat(t, a).effect_size == pytest.approx(_brute(t, a), rel=1e-12)
    # Derived: with the group centre of A, Σ_i (ā_i - ā) = 0 and the target centre drops out.
    unit = [[m / np.linalg.norm(m, axis=1, keepdims=True) for m in s] for s in (t, a)]
    am = np.array([m.mean(0) for m in unit[1]])
    no_centre = sum(x.mean(0) @ (ai - am.mean(0)) for x, ai in zip(unit[0], am, strict=True))
    assert generalized_weat(t, a).effect_size == pytest.approx(no_centre)


def test_two_groups_is_half_weats_mean_difference():
    rng = np.random.default_rng(1)
    for nx, ny, na, nb in [(5, 5, 4, 4), (3, 7, 2, 9)]:
        X, Y, A, B = _sets(rng, [nx, ny, na, nb])
        s_x, s_y = association(X, A, B), association(Y, A, B)
        g = generalized_weat([X, Y], [A, B]).effect_size
        assert g == pytest.approx((s_x.mean() - s_y.mean()) / 2)
        # … and half the numerator of the effect size d:
        d = effect_size(s_x, s_y)
        assert g == pytest.approx(d * np.std(np.concatenate([s_x, s_y]), ddof=1) / 2)
        if nx == ny:  # S(X, Y, A, B) / (2m)
            assert g == pytest.approx(test_statistic(s_x, s_y) / (2 * nx))


def test_two_groups_pooled_centre_weights_by_sizes():
    rng = np.random.default_rng(2)
    X, Y, A, B = _sets(rng, [3, 8, 2, 7])
    unit = [m / np.linalg.norm(m, axis=1, keepdims=True) for m in (X, Y, A, B)]
    dot = (unit[0].mean(0) - unit[1].mean(0)) @ (unit[2].mean(0) - unit[3].mean(0))
    pooled = generalized_weat([X, Y], [A, B], center="pooled").effect_size
    assert pooled == pytest.approx((3 * 2 + 8 * 7) / (11 * 9) * dot)
    assert generalized_weat([X, Y], [A, B]).effect_size == pytest.approx(dot / 2)
    # Equal attribute sizes: the pooled centre gives ½ too, whatever the target sizes.
    A2 = rng.normal(size=(7, 6))
    assert generalized_weat([X, Y], [A2, B], center="pooled").effect_size == pytest.approx(
        generalized_weat([X, Y], [A2, B]).effect_size)


def test_target_centre_irrelevant_attribute_centre_matters():
    rng = np.random.default_rng(3)
    t, a = _sets(rng, [2, 6, 3]), _sets(rng, [5, 5, 5])
    # equal attribute sizes: the pooled and group centres of A coincide; the target centre
    # (different sizes) differs but cancels.
    assert generalized_weat(t, a, center="pooled").effect_size == pytest.approx(
        generalized_weat(t, a).effect_size)
    a2 = _sets(rng, [1, 9, 3])
    assert generalized_weat(t, a2, center="pooled").effect_size != pytest.approx(
        generalized_weat(t, a2).effect_size)


def test_joint_permutation_invariance_and_swaps():
    rng = np.random.default_rng(4)
    t, a = _sets(rng, [3, 4, 5, 2]), _sets(rng, [2, 3, 4, 5])
    v = generalized_weat(t, a).effect_size
    for perm in itertools.permutations(range(4)):
        assert generalized_weat([t[i] for i in perm], [a[i] for i in perm]).effect_size == (
            pytest.approx(v))
    X, Y, A, B = _sets(rng, [4, 4, 3, 3])
    g = generalized_weat([X, Y], [A, B]).effect_size
    assert generalized_weat([Y, X], [A, B]).effect_size == pytest.approx(-g)
    assert generalized_weat([X, Y], [B, A]).effect_size == pytest.approx(-g)


def test_scale_invariant_when_normalized_not_otherwise():
    rng = np.random.default_rng(5)
    t, a = _sets(rng, [3, 3]), _sets(rng, [3, 3])
    scaled = [m * rng.uniform(0.1, 10, size=(m.shape[0], 1)) for m in t]
    assert generalized_weat(scaled, a).effect_size == pytest.approx(
        generalized_weat(t, a).effect_size)
    assert generalized_weat(scaled, a, normalize=False).effect_size != pytest.approx(
        generalized_weat(t, a, normalize=False).effect_size)
    assert (generalized_weat(t, a, convention="ebs").effect_size
            == generalized_weat(t, a).effect_size)


def test_options_recorded():
    r = generalized_weat([[[1.0, 0.0]], [[0.0, 1.0]]], [[[1.0, 0.0]], [[0.0, 1.0]]],
                         center="pooled", normalize=False)
    assert r.options == {"convention": "paper", "normalize": False, "center": "pooled"}


def test_bad_input():
    ok = [[[1.0, 0.0]], [[0.0, 1.0]]]
    with pytest.raises(ValueError, match="2 target sets but 3"):
        generalized_weat(ok, [*ok, [[1.0, 1.0]]])
    with pytest.raises(ValueError, match="at least two"):
        generalized_weat(ok[:1], ok[:1])
    with pytest.raises(ValueError, match="dimension"):
        generalized_weat(ok, [[[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]]])
    with pytest.raises(ValueError, match="dimension"):
        generalized_weat([[[1.0, 0.0]], [[0.0, 1.0, 1.0]]], ok)
    with pytest.raises(ValueError):
        generalized_weat([np.empty((0, 2)), [[1.0, 0.0]]], ok)
    with pytest.raises(ValueError, match="zero"):
        generalized_weat([[[0.0, 0.0]], [[0.0, 1.0]]], ok)
    with pytest.raises(ValueError, match=r"NaN|finite"):
        generalized_weat([[[np.nan, 0.0]], [[0.0, 1.0]]], ok)
    with pytest.raises(TypeError):
        generalized_weat(np.eye(2), ok)
    with pytest.raises(UnknownNameError):
        generalized_weat(ok, ok, convention="wefe")
    with pytest.raises(UnknownNameError):
        generalized_weat(ok, ok, center="median")

"""WEAT association, statistic and effect size: hand computation, properties, bad input."""

import math
import warnings

import numpy as np
import pytest

from biaslib.errors import DegenerateTestError
from biaslib.methods.weat import association, effect_size, test_statistic, weat
from biaslib.stats.conventions import BIASLIB

SQRT2 = math.sqrt(2.0)

# Hand-worked example (2-D): A = {e1}, B = {e2}.
#   x1 = (1, 0):  cos(x1,a) = 1,     cos(x1,b) = 0      -> s = 1
#   x2 = (1, 1):  cos = 1/√2, 1/√2                      -> s = 0
#   y1 = (0, 1):  cos = 0, 1                            -> s = -1
#   y2 = (1,-1):  cos = 1/√2, -1/√2                     -> s = √2
# pooled s = {1, 0, -1, √2}: mean √2/4, sum of squares about the mean 4 - 0.5 = 3.5.
HX = np.array([[1.0, 0.0], [1.0, 1.0]])
HY = np.array([[0.0, 1.0], [1.0, -1.0]])
HA = np.array([[1.0, 0.0]])
HB = np.array([[0.0, 1.0]])
H_NUMERATOR = 0.5 - (SQRT2 - 1) / 2  # mean s_X - mean s_Y = (2 - √2) / 2


def random_sets(seed=0, n=8, d=20, shift=0.5):
    rng = np.random.default_rng(seed)
    A, B = rng.normal(size=(n, d)), rng.normal(size=(n, d))
    X = rng.normal(size=(n, d)) + shift * A.mean(0)
    Y = rng.normal(size=(n, d)) + shift * B.mean(0)
    return X, Y, A, B


class TestHandWorked:
    def test_association(self):
        assert association(HX, HA, HB) == pytest.approx([1.0, 0.0])
        assert association(HY, HA, HB) == pytest.approx([-1.0, SQRT2])

    def test_statistic(self):
        assert test_statistic([1.0, 0.0], [-1.0, SQRT2]) == pytest.approx(2 - SQRT2)

    @pytest.mark.parametrize(("ddof", "ss_divisor"), [(1, 3), (0, 4)])
    def test_effect_size(self, ddof, ss_divisor):
        expected = H_NUMERATOR / math.sqrt(3.5 / ss_divisor)
        assert effect_size([1.0, 0.0], [-1.0, SQRT2], ddof=ddof) == pytest.approx(expected)

    def test_weat_end_to_end(self):
        res = weat(HX, HY, HA, HB)
        assert res.effect_size == pytest.approx(H_NUMERATOR / math.sqrt(3.5 / 3))
        assert res.statistic == pytest.approx(2 - SQRT2)
        assert res.p_value == pytest.approx(3 / 6)  # see test_permutation.TestHandWorked
        assert (res.n_x, res.n_y, res.n_a, res.n_b) == (2, 2, 1, 1)


def test_association_with_unequal_attribute_sizes_matches_loops():
    rng = np.random.default_rng(1)
    W, A, B = rng.normal(size=(4, 5)), rng.normal(size=(3, 5)), rng.normal(size=(6, 5))

    def cos(u, v):
        return u @ v / (np.linalg.norm(u) * np.linalg.norm(v))

    expected = [np.mean([cos(w, a) for a in A]) - np.mean([cos(w, b) for b in B]) for w in W]
    assert association(W, A, B) == pytest.approx(expected)


def test_ddof_ratio_for_n8():
    # CONVENTIONS.md: for n = 8 per group the ddof=0 value is sqrt(16/15) times the ddof=1 value.
    X, Y, A, B = random_sets(n=8)
    d1 = weat(X, Y, A, B).effect_size
    d0 = weat(X, Y, A, B, convention="wefe").effect_size
    assert d0 / d1 == pytest.approx(math.sqrt(16 / 15))


class TestProperties:
    def test_swapping_targets_flips_sign(self):
        X, Y, A, B = random_sets(2)
        fwd, rev = weat(X, Y, A, B), weat(Y, X, A, B)
        assert rev.effect_size == pytest.approx(-fwd.effect_size)
        assert rev.statistic == pytest.approx(-fwd.statistic)
        # The upper tail of (Y, X) is the lower tail of (X, Y).
        lower = weat(X, Y, A, B, convention=BIASLIB.replace(tail="less"))
        assert rev.p_value == pytest.approx(lower.p_value)

    def test_swapping_attributes_flips_sign(self):
        X, Y, A, B = random_sets(3)
        fwd, rev = weat(X, Y, A, B), weat(X, Y, B, A)
        assert rev.effect_size == pytest.approx(-fwd.effect_size)
        assert rev.statistic == pytest.approx(-fwd.statistic)

    def test_scaling_vectors_changes_nothing(self):
        X, Y, A, B = random_sets(4)
        rng = np.random.default_rng(5)

        def scale(M):
            return M * rng.uniform(0.1, 10, size=(M.shape[0], 1))

        a, b = weat(X, Y, A, B), weat(scale(X), scale(Y), scale(A), scale(B))
        assert b.effect_size == pytest.approx(a.effect_size)
        assert b.p_value == pytest.approx(a.p_value)

    def test_same_seed_same_result_for_sampled_tests(self):
        X, Y, A, B = random_sets(6, n=25)
        r1, r2 = weat(X, Y, A, B), weat(X, Y, A, B)
        assert r1.permutation.method == "sampled"
        assert r1.p_value == r2.p_value

    def test_effect_size_bound(self):
        # For two groups of n (N = 2n pooled scores, ddof=1) the numerator is at most
        # 2 sd_0 = 2 sd_1 sqrt((N-1)/N), reached when every s_x = a and every s_y = b.
        n = 5
        X, Y, A, B = random_sets(7, n=n, shift=50.0)
        bound = 2 * math.sqrt((2 * n - 1) / (2 * n))
        assert 0 < weat(X, Y, A, B).effect_size <= bound
        assert effect_size([1.0] * n, [0.0] * n) == pytest.approx(bound)


class TestBadInput:
    def test_empty_set(self):
        X, _, A, B = random_sets()
        with pytest.raises(ValueError, match="'Y' is empty"):
            weat(X, np.empty((0, X.shape[1])), A, B)

    def test_zero_vector(self):
        X, Y, A, B = random_sets()
        A[3] = 0
        with pytest.raises(ValueError, match=r"'A': rows \[3\] are zero vectors"):
            weat(X, Y, A, B)

    def test_nan_vector(self):
        X, Y, A, B = random_sets()
        X[1, 2] = np.nan
        with pytest.raises(ValueError, match=r"'X': rows \[1\] contain NaN"):
            weat(X, Y, A, B)

    def test_dimension_mismatch(self):
        X, Y, A, B = random_sets()
        with pytest.raises(ValueError, match="different dimensions"):
            weat(X, Y, A[:, :5], B)

    def test_one_dimensional_input(self):
        X, Y, A, B = random_sets()
        with pytest.raises(ValueError, match="2-D"):
            weat(X[0], Y, A, B)

    def test_degenerate_scores(self):
        # Every target identical -> every s(w, A, B) equal -> d = 0/0.
        X, Y, A, B = random_sets()
        X[:] = X[0]
        Y[:] = X[0]
        with pytest.raises(DegenerateTestError, match="standard deviation 0"):
            weat(X, Y, A, B)

    def test_x_identical_to_y(self):
        # Not constant vectors, so every score is defined: d would be 0 and p 1, a
        # "measured" absence of bias for a test that compares a set with itself.
        X, _, A, B = random_sets()
        with pytest.raises(DegenerateTestError, match="X and Y are the same vectors"):
            weat(X, X.copy(), A, B)

    @pytest.mark.parametrize("scale", [1e300, 1e-300, 1e-170])
    def test_extreme_scales_change_nothing(self, scale):
        X, Y, A, B = random_sets(3)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no overflow or underflow on the way
            res = weat(X * scale, Y, A * scale, B)
        assert res.effect_size == pytest.approx(weat(X, Y, A, B).effect_size, rel=1e-12)

    def test_complex_vectors(self):
        X, Y, A, B = random_sets()
        with pytest.raises(TypeError, match="complex"):
            weat(X + 1j, Y, A, B)

    def test_unequal_targets_where_forbidden(self):
        X, Y, A, B = random_sets()
        with pytest.raises(ValueError, match="requires equal target set sizes"):
            weat(X, Y[:-1], A, B, convention="sent-bias")

    def test_unequal_attributes_where_forbidden(self):
        X, Y, A, B = random_sets()
        with pytest.raises(ValueError, match="requires equal attribute set sizes"):
            weat(X, Y, A[:-1], B, convention="responsibly")

    def test_unknown_convention(self):
        X, Y, A, B = random_sets()
        with pytest.raises(ValueError, match="unknown convention 'seat'"):
            weat(X, Y, A, B, convention="seat")

    def test_effect_size_needs_both_groups(self):
        with pytest.raises(ValueError, match="at least one score in each"):
            effect_size([1.0], [], ddof=1)

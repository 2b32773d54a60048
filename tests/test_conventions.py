"""Each preset does what its docstring says the original implementation did."""

import math

import numpy as np
import pytest

from biaslib.methods.weat import weat
from biaslib.stats.conventions import (
    BIASLIB,
    CALISKAN,
    MIND_YOUR_BIAS,
    PRESETS,
    RESPONSIBLY,
    SENT_BIAS,
    WEFE,
    Convention,
    get_convention,
)
from biaslib.stats.permutation import normal_approximation_p, permutation_test


def sets(n_x=8, n_y=8, n_attr=8, d=16, seed=0):
    rng = np.random.default_rng(seed)
    A, B = rng.normal(size=(n_attr, d)), rng.normal(size=(n_attr, d))
    X = rng.normal(size=(n_x, d)) + 0.4 * A.mean(0)
    Y = rng.normal(size=(n_y, d)) + 0.4 * B.mean(0)
    return X, Y, A, B


def test_presets_are_registered_by_name():
    assert set(PRESETS) == {"biaslib", "sent-bias", "caliskan", "wefe", "responsibly",
                            "mind-your-bias"}
    for name, conv in PRESETS.items():
        assert get_convention(name) is conv
        assert conv.description


def test_replace_marks_the_name():
    assert BIASLIB.replace(ddof=0).name == "biaslib*"
    assert BIASLIB.replace(ddof=0, name="x").name == "x"


@pytest.mark.parametrize("bad", [{"ddof": 2}, {"unequal_targets": "drop"}, {"p_method": "t"},
                                 {"n_resamples": 0}, {"seed": -1}, {"tail": "upper"},
                                 {"statistic": "median"}, {"exact_limit": 10**9}])
def test_invalid_fields(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        Convention(name="bad", **bad)


@pytest.mark.parametrize("bad", [{"n_resamples": 1e5}, {"n_resamples": "100"},
                                 {"n_resamples": True}, {"seed": 1.5}, {"seed": "1"},
                                 {"exact_limit": 1e5}, {"plus_one": 1}])
def test_wrongly_typed_fields(bad):
    with pytest.raises(TypeError, match=next(iter(bad))):
        Convention(name="bad", **bad)


def test_get_convention_refuses_other_types():
    with pytest.raises(TypeError, match="preset name"):
        get_convention(["wefe"])


class TestSentBias:
    def test_exact_for_small_tests(self):
        # C(16, 8) = 12,870 <= 100,000: all splits enumerated, the observed one included.
        res = weat(*sets(), SENT_BIAS)
        assert res.permutation.method == "exact"
        assert res.permutation.n_resamples == math.comb(16, 8)

    def test_sampled_for_large_tests_counts_observed_once(self):
        # n = 25: 99,999 shuffles plus the observed split -> denominator 100,000.
        res = weat(*sets(25, 25, 25), SENT_BIAS)
        assert res.permutation.method == "sampled"
        assert res.permutation.n_resamples == 99_999
        assert res.p_value * 100_000 == pytest.approx(round(res.p_value * 100_000))
        assert res.p_value >= 1e-5

    def test_ddof_1_and_ties_counted(self):
        assert (SENT_BIAS.ddof, SENT_BIAS.ties, SENT_BIAS.tail) == (1, "ge", "greater")

    def test_equal_sizes_asserted(self):
        with pytest.raises(ValueError, match="equal target set sizes"):
            weat(*sets(8, 7), SENT_BIAS)


def test_caliskan_uses_the_normal_fit():
    X, Y, A, B = sets(25, 25, 25)
    res = weat(X, Y, A, B, CALISKAN, keep_distribution=True)
    null = res.permutation.null_distribution
    assert null.size == 100_000
    assert res.p_value == pytest.approx(
        normal_approximation_p(res.permutation.statistic, null, "greater"))
    assert res.to_dict()["p_method"] == "normal"


class TestWefe:
    def test_population_sd_and_resampling_with_replacement(self):
        res = weat(*sets(), WEFE)
        assert res.permutation.method == "sampled-with-replacement"
        assert res.permutation.n_resamples == 10_000
        assert res.effect_size == pytest.approx(
            weat(*sets(), BIASLIB).effect_size * math.sqrt(16 / 15))

    def test_strict_inequality_and_plus_one(self):
        assert WEFE.ties == "gt"
        res = weat(*sets(), WEFE)
        assert res.p_value == pytest.approx((res.permutation.n_extreme + 1) / 10_001)


def wefe_p_value(s_x, s_y, runs, seed):
    """WEFE's approximate p-value, as its WEAT._calc_p_value computes it (dccuchile/wefe,
    metrics/WEAT.py): each run draws len(X)+len(Y) targets WITH replacement from the pool,
    the first len(X) form X_i; statistic sum_X_i s - sum_Y_i s; strict '>'; (k+1)/(runs+1).
    (WEFE also skips repeated draws; with 5+30 targets a repeat never occurs.)"""
    pool = np.concatenate([s_x, s_y])
    observed = s_x.sum() - s_y.sum()
    draws = np.random.default_rng(seed).choice(pool.size, size=(runs, pool.size))
    stats = pool[draws[:, :s_x.size]].sum(1) - pool[draws[:, s_x.size:]].sum(1)
    return (int((stats > observed).sum()) + 1) / (runs + 1)


class TestWefeUnequalSizes:
    """With unequal target sizes WEFE's null is that of the difference of *sums*."""

    RUNS = 50_000
    rng = np.random.default_rng(7)
    S_X, S_Y = rng.normal(0.12, 0.03, 5), rng.normal(0.08, 0.03, 30)

    def mc_tolerance(self, p):
        return 5 * math.sqrt(2 * p * (1 - p) / self.RUNS)

    def test_preset_matches_wefes_method(self):
        conv = WEFE.replace(n_resamples=self.RUNS)
        ours = permutation_test(self.S_X, self.S_Y, tail=conv.tail, ties=conv.ties,
                                plus_one=conv.plus_one, n_resamples=conv.n_resamples,
                                exact_limit=conv.exact_limit, replacement=conv.replacement,
                                seed=conv.seed, statistic=conv.statistic)
        reference = wefe_p_value(self.S_X, self.S_Y, self.RUNS, seed=123)
        assert ours.statistic == pytest.approx(self.S_X.sum() - self.S_Y.sum())
        assert abs(ours.p_value - reference) < self.mc_tolerance(reference)

    def test_the_mean_statistic_would_not(self):
        means = permutation_test(self.S_X, self.S_Y, ties="gt", n_resamples=self.RUNS,
                                 exact_limit=None, replacement=True, seed=0)
        reference = wefe_p_value(self.S_X, self.S_Y, self.RUNS, seed=123)
        assert reference > 5 * means.p_value
        assert abs(means.p_value - reference) > self.mc_tolerance(reference)

    def test_null_of_sums_is_centred_on_the_size_difference(self):
        res = permutation_test(self.S_X, self.S_Y, n_resamples=self.RUNS, exact_limit=None,
                               replacement=True, seed=0, statistic="sum",
                               keep_distribution=True)
        pool = np.concatenate([self.S_X, self.S_Y])
        null = res.null_distribution
        # E[sum X_i - sum Y_i] = (|X| - |Y|) mean(pool); Var = (|X| + |Y|) var(pool).
        sd = math.sqrt(35 * pool.var())
        assert null.mean() == pytest.approx(-25 * pool.mean(), abs=5 * sd / math.sqrt(self.RUNS))
        assert null.std() == pytest.approx(sd, rel=0.02)

    def test_equal_sizes_give_the_same_p_as_the_mean(self):
        X, Y, A, B = sets()
        res = weat(X, Y, A, B, WEFE)
        assert res.p_value == weat(X, Y, A, B, WEFE.replace(statistic="mean")).p_value


class TestResponsibly:
    def test_exact_strict_no_plus_one(self):
        X, Y, A, B = sets()
        res = weat(X, Y, A, B, RESPONSIBLY)
        assert res.permutation.method == "exact"
        assert res.p_value == pytest.approx(res.permutation.n_extreme / math.comb(16, 8))
        ours = weat(X, Y, A, B, BIASLIB)
        # Same splits; strict '>' can only lower the count.
        assert res.permutation.n_extreme <= ours.permutation.n_extreme

    def test_equal_attribute_sizes_required(self):
        X, Y, A, B = sets()
        with pytest.raises(ValueError, match="equal attribute set sizes"):
            weat(X, Y, A[:-1], B, RESPONSIBLY)


class TestMindYourBias:
    def test_subsamples_the_larger_target_set(self):
        X, Y, A, B = sets(10, 7)
        res = weat(X, Y, A, B, MIND_YOUR_BIAS)
        assert res.n_x == res.n_y == 7
        assert res.x_kept.size == 7 and len(set(res.x_kept)) == 7
        assert np.array_equal(res.y_kept, np.arange(7))
        # Seeded: the same subsample every time.
        again = weat(X, Y, A, B, MIND_YOUR_BIAS)
        assert np.array_equal(res.x_kept, again.x_kept)
        assert res.effect_size == again.effect_size

    def test_equals_sent_bias_on_equal_sizes(self):
        a = weat(*sets(), MIND_YOUR_BIAS)
        b = weat(*sets(), SENT_BIAS)
        assert (a.effect_size, a.p_value) == (b.effect_size, b.p_value)


def test_biaslib_default_allows_unequal_targets():
    res = weat(*sets(10, 7), BIASLIB)
    assert (res.n_x, res.n_y) == (10, 7)

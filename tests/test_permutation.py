"""Permutation test: hand-worked cases, brute force, and the conventions' documented behaviour."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from biaslib.stats.permutation import normal_approximation_p, permutation_test

SQRT2 = math.sqrt(2.0)
# Association scores of the hand-worked example in test_weat.py: s_X = [1, 0], s_Y = [-1, √2].
S_X, S_Y = [1.0, 0.0], [-1.0, SQRT2]


def brute_force_p(x, y, tail="greater", ties="ge"):
    """Straightforward reference: loop over every subset of the pool as X_i."""
    pooled = list(x) + list(y)
    n_x = len(x)
    observed = np.mean(x) - np.mean(y)
    hits = total = 0
    for subset in itertools.combinations(range(len(pooled)), n_x):
        xi = [pooled[i] for i in subset]
        yi = [pooled[i] for i in range(len(pooled)) if i not in subset]
        t = np.mean(xi) - np.mean(yi)
        if tail == "greater":
            hit = t >= observed - 1e-12 if ties == "ge" else t > observed + 1e-12
        elif tail == "less":
            hit = t <= observed + 1e-12 if ties == "ge" else t < observed - 1e-12
        else:
            a, o = abs(t), abs(observed)
            hit = a >= o - 1e-12 if ties == "ge" else a > o + 1e-12
        hits += hit
        total += 1
    return hits / total


class TestHandWorked:
    # The six splits of {1, 0, -1, √2} into two pairs give T in
    # {0.2929 (observed), -0.7071, 1.7071, -1.7071, 0.7071, -0.2929}.
    @pytest.mark.parametrize(
        ("tail", "ties", "expected"),
        [
            ("greater", "ge", 3 / 6),
            ("greater", "gt", 2 / 6),
            ("less", "ge", 4 / 6),
            ("less", "gt", 3 / 6),
            ("two-sided", "ge", 6 / 6),
            ("two-sided", "gt", 4 / 6),
        ],
    )
    def test_exact_p_values(self, tail, ties, expected):
        res = permutation_test(S_X, S_Y, tail=tail, ties=ties)
        assert res.method == "exact"
        assert res.n_resamples == 6
        assert res.p_value == pytest.approx(expected)

    def test_observed_statistic_is_difference_of_means(self):
        res = permutation_test(S_X, S_Y)
        assert res.statistic == pytest.approx(0.5 - (SQRT2 - 1) / 2)

    def test_null_distribution_is_every_split(self):
        res = permutation_test(S_X, S_Y, keep_distribution=True)
        expected = sorted([1 - SQRT2 / 2, -SQRT2 / 2, (2 + SQRT2) / 2,
                           -(2 + SQRT2) / 2, SQRT2 / 2, -(1 - SQRT2 / 2)])
        assert np.sort(res.null_distribution) == pytest.approx(expected)


@pytest.mark.parametrize(("n_x", "n_y"), [(6, 6), (8, 8), (5, 7), (3, 9)])
@pytest.mark.parametrize("tail", ["greater", "less", "two-sided"])
@pytest.mark.parametrize("ties", ["ge", "gt"])
def test_exact_matches_brute_force(n_x, n_y, tail, ties):
    rng = np.random.default_rng(n_x * 100 + n_y)
    x = rng.normal(0.3, 1, n_x)
    y = rng.normal(0, 1, n_y)
    res = permutation_test(x, y, tail=tail, ties=ties)
    assert res.method == "exact"
    assert res.p_value == pytest.approx(brute_force_p(x, y, tail, ties), abs=1e-12)


def test_ties_rule_on_exactly_representable_scores():
    # Integer scores: many splits tie with the observed one exactly.
    x, y = [2.0, 1.0, 1.0], [1.0, 0.0, 1.0]
    ge = permutation_test(x, y, ties="ge")
    gt = permutation_test(x, y, ties="gt")
    assert ge.p_value == pytest.approx(brute_force_p(x, y, ties="ge"))
    assert gt.p_value == pytest.approx(brute_force_p(x, y, ties="gt"))
    assert ge.p_value > gt.p_value


def test_ties_are_decided_up_to_rounding():
    # The same multiset summed in a different order can differ in the last bit;
    # those splits still tie with the observed one.
    x = [0.1, 0.2, 0.3]
    y = [0.3, 0.2, 0.1]
    res = permutation_test(x, y, ties="ge", tail="two-sided")
    assert res.p_value == pytest.approx(brute_force_p(x, y, "two-sided", "ge"))


def test_two_sided_is_twice_one_sided_for_equal_sizes():
    # Equal sizes: (X_i, Y_i) and (Y_i, X_i) are both splits, so T is symmetric around 0.
    rng = np.random.default_rng(3)
    x, y = rng.normal(0.5, 1, 7), rng.normal(0, 1, 7)
    greater = permutation_test(x, y, tail="greater")
    less = permutation_test(x, y, tail="less")
    two = permutation_test(x, y, tail="two-sided")
    assert two.p_value == pytest.approx(2 * min(greater.p_value, less.p_value))


def test_swapping_groups_mirrors_the_tails():
    rng = np.random.default_rng(4)
    x, y = rng.normal(0.2, 1, 6), rng.normal(0, 1, 8)
    fwd = permutation_test(x, y, tail="greater")
    rev = permutation_test(y, x, tail="less")
    assert rev.statistic == pytest.approx(-fwd.statistic)
    assert rev.p_value == pytest.approx(fwd.p_value)


class TestSampling:
    def test_sampled_converges_to_exact(self):
        rng = np.random.default_rng(5)
        x, y = rng.normal(0.4, 1, 8), rng.normal(0, 1, 8)
        exact = permutation_test(x, y)
        sampled = permutation_test(x, y, exact_limit=0, n_resamples=200_000, seed=7)
        assert sampled.method == "sampled"
        se = math.sqrt(exact.p_value * (1 - exact.p_value) / 200_000)
        assert abs(sampled.p_value - exact.p_value) < 4 * se + 1e-5

    def test_sampled_splits_are_uniform(self):
        # Each item should land in X with probability n_x / n.
        pooled_x, pooled_y = np.zeros(4), np.zeros(6)
        pooled_x[0] = 1.0  # only item 0 has a non-zero score
        res = permutation_test(pooled_x, pooled_y, exact_limit=0, n_resamples=100_000,
                               keep_distribution=True, seed=11)
        # T = 1/4 when item 0 is in X, -1/6 otherwise.
        frac_in_x = np.mean(res.null_distribution > 0)
        assert frac_in_x == pytest.approx(0.4, abs=0.01)

    def test_same_seed_same_p_and_different_seed_differs(self):
        rng = np.random.default_rng(6)
        x, y = rng.normal(0.1, 1, 25), rng.normal(0, 1, 25)
        a = permutation_test(x, y, n_resamples=5_000, seed=1)
        b = permutation_test(x, y, n_resamples=5_000, seed=1)
        c = permutation_test(x, y, n_resamples=5_000, seed=2)
        assert a.p_value == b.p_value
        assert a.method == "sampled"
        assert a.p_value != c.p_value

    def test_plus_one(self):
        x, y = np.arange(25.0) + 100, np.arange(25.0)  # perfectly separated
        with_one = permutation_test(x, y, n_resamples=999, plus_one=True)
        without = permutation_test(x, y, n_resamples=999, plus_one=False)
        assert with_one.n_extreme == 0
        assert with_one.p_value == pytest.approx(1 / 1000)
        assert without.p_value == 0.0

    def test_exact_limit_switches_method(self):
        x, y = np.arange(8.0), np.arange(8.0) + 0.5
        assert permutation_test(x, y, exact_limit=math.comb(16, 8)).method == "exact"
        assert permutation_test(x, y, exact_limit=math.comb(16, 8) - 1).method == "sampled"
        assert permutation_test(x, y, exact_limit=None).method == "sampled"

    def test_with_replacement(self):
        rng = np.random.default_rng(8)
        x, y = rng.normal(0, 1, 10), rng.normal(0, 1, 10)
        wr = permutation_test(x, y, replacement=True, n_resamples=50_000, keep_distribution=True)
        wo = permutation_test(x, y, exact_limit=0, n_resamples=50_000, keep_distribution=True)
        assert wr.method == "sampled-with-replacement"
        # Var(T) is sigma^2 (1/n_x + 1/n_y) for independent draws with replacement,
        # and N^2 sigma^2 / (n_x n_y (N - 1)) for re-splits of the pool (N = 20):
        # the ratio is (N - 1) / N.
        ratio = wr.null_distribution.var() / wo.null_distribution.var()
        assert ratio == pytest.approx(19 / 20, rel=0.03)


def test_wefe_abs_tail_is_wrong_for_negative_observed_values():
    # WEFE's two-sided compares |T_i| with the signed observed value: every |T_i|
    # exceeds a negative t, so p = 1 however strong the (negative) effect.
    x, y = np.arange(6.0), np.arange(6.0) + 10
    wefe = permutation_test(x, y, tail="wefe-abs", ties="gt")
    proper = permutation_test(x, y, tail="two-sided", ties="gt")
    assert wefe.statistic < 0
    assert wefe.p_value == 1.0
    assert proper.p_value < 0.01


class TestNormalApproximation:
    def test_matches_scipy_on_the_fitted_normal(self):
        null = np.random.default_rng(9).normal(0.1, 2.0, 1000)
        mu, sd = null.mean(), null.std(ddof=1)
        assert normal_approximation_p(3.0, null, "greater") == pytest.approx(
            stats.norm.sf(3.0, mu, sd))
        assert normal_approximation_p(3.0, null, "less") == pytest.approx(
            stats.norm.cdf(3.0, mu, sd))
        assert normal_approximation_p(-3.0, null, "two-sided") == pytest.approx(
            2 * stats.norm.sf(abs(-3.0 - mu) / sd))

    def test_degenerate_null_raises(self):
        with pytest.raises(ValueError, match="zero spread"):
            normal_approximation_p(1.0, np.ones(10))

    def test_rejects_wefe_tail(self):
        with pytest.raises(ValueError, match="greater/less/two-sided"):
            normal_approximation_p(1.0, np.arange(10.0), "wefe-abs")


class TestBadInput:
    @pytest.mark.parametrize(("x", "y"), [([], [1.0]), ([1.0], [])])
    def test_empty_group(self, x, y):
        with pytest.raises(ValueError, match="empty"):
            permutation_test(x, y)

    def test_nan_scores(self):
        with pytest.raises(ValueError, match="NaN"):
            permutation_test([1.0, np.nan], [0.0, 1.0])

    def test_bad_options(self):
        with pytest.raises(ValueError, match="tail"):
            permutation_test([1.0], [0.0], tail="left")
        with pytest.raises(ValueError, match="ties"):
            permutation_test([1.0], [0.0], ties=">=")
        with pytest.raises(ValueError, match="n_resamples"):
            permutation_test([1.0, 2.0], [0.0, 3.0], n_resamples=0)
        with pytest.raises(ValueError, match="statistic"):
            permutation_test([1.0], [0.0], statistic="median")

    @pytest.mark.parametrize(("option", "value"), [
        ("n_resamples", 1e5), ("n_resamples", "100"), ("n_resamples", True), ("seed", 2.0),
        ("seed", "1111"), ("exact_limit", 1e5)])
    def test_wrongly_typed_numbers(self, option, value):
        with pytest.raises(TypeError, match=option):
            permutation_test([1.0, 2.0], [0.0, 3.0], **{option: value})

    @pytest.mark.parametrize(("option", "value"), [("n_resamples", -5), ("seed", -1)])
    def test_negative_numbers(self, option, value):
        with pytest.raises(ValueError, match=option):
            permutation_test([1.0, 2.0], [0.0, 3.0], **{option: value})

    def test_an_exact_limit_beyond_reach_is_refused_before_any_work(self):
        # C(40, 20) = 1.4e11 splits: numpy would be asked for terabytes.
        with pytest.raises(ValueError, match="exact_limit"):
            permutation_test(np.arange(20.0), np.arange(20.0) + 1, exact_limit=10**12)


def test_exact_enumeration_is_streamed_in_chunks(monkeypatch):
    """Memory stays bounded: the splits arrive in chunks, and the result is unchanged."""
    from biaslib.stats import permutation

    x, y = np.array([0.3, 0.1, 0.5, 0.9]), np.array([0.2, 0.4, 0.0, 0.7, 0.6])
    whole = permutation_test(x, y, keep_distribution=True)
    monkeypatch.setattr(permutation, "_CHUNK_ENTRIES", 12)  # 3 splits of 4 per chunk
    sizes = []
    real = permutation._combination_chunks

    def spy(n_total, k, chunk):
        for block in real(n_total, k, chunk):
            sizes.append(len(block))
            yield block

    monkeypatch.setattr(permutation, "_combination_chunks", spy)
    chunked = permutation_test(x, y, keep_distribution=True)
    assert max(sizes) == 3 and sum(sizes) == math.comb(9, 4)
    np.testing.assert_array_equal(chunked.null_distribution, whole.null_distribution)
    assert chunked.p_value == whole.p_value


def test_sum_statistic_equals_mean_statistic_for_equal_sizes():
    rng = np.random.default_rng(2)
    x, y = rng.normal(0.1, 1, 12), rng.normal(0, 1, 12)
    for replacement in (False, True):
        kw = {"n_resamples": 20_000, "exact_limit": 1000, "replacement": replacement}
        mean = permutation_test(x, y, **kw)
        total = permutation_test(x, y, statistic="sum", **kw)
        assert total.statistic == pytest.approx(12 * mean.statistic)
        assert total.p_value == mean.p_value and total.statistic_kind == "sum"


@pytest.mark.parametrize(
    ("n_x", "n_y", "tail"),
    [(n_x, n_y, tail) for n_x, n_y in [(5, 5), (6, 4), (7, 7)]
     for tail in ("greater", "less", "two-sided")
     # scipy's two-sided p doubles the smaller tail, ours counts |T| >= |t|: the two
     # agree only when the null is symmetric, i.e. for equal sizes.
     if not (tail == "two-sided" and n_x != n_y)],
)
def test_exact_agrees_with_scipy(n_x, n_y, tail):
    # scipy.stats.permutation_test enumerates every split exactly when n_resamples
    # exceeds their number, and counts ties as extreme (our ties="ge").
    rng = np.random.default_rng(n_x + 10 * n_y)
    x, y = rng.normal(0.5, 1, n_x), rng.normal(0, 1, n_y)
    ref = stats.permutation_test(
        (x, y), lambda a, b, axis: a.mean(axis=axis) - b.mean(axis=axis),
        permutation_type="independent", alternative=tail, n_resamples=10**6, vectorized=True,
    )
    ours = permutation_test(x, y, tail=tail, ties="ge")
    assert ours.method == "exact"
    assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-9)


# --------------------------------------------------------------------------- sampled re-splits
# Sampled re-splits are bit masks drawn by rejection (biaslib.stats.permutation's module
# docstring): these tests pin the mechanism's promises — uniform subsets of the right size,
# the documented draw order, results that depend on nothing but the inputs and the seed,
# agreement in law with the exact test, and a bounded cache.


def mask_bits(masks, n_total):
    """(rows, w) mask words -> (rows, n_total) 0/1 membership matrix."""
    from biaslib.stats import permutation

    return np.unpackbits(permutation._little_bytes(masks), axis=1,
                         bitorder="little")[:, :n_total]


def draw_masks(n_x, n_total, n_resamples, seed):
    from biaslib.stats import permutation

    return np.concatenate(list(permutation._split_masks(
        n_x, n_total, n_resamples, np.random.default_rng(seed))))


@pytest.fixture
def fresh_cache(monkeypatch):
    """An empty mask cache for the test (restored afterwards)."""
    from biaslib.stats import permutation

    cache = permutation._MaskCache(permutation._MASK_CACHE_BYTES)
    monkeypatch.setattr(permutation, "_MASK_CACHE", cache)
    return cache


class TestSplitMasks:
    @pytest.mark.parametrize(("n_x", "n_total"), [(3, 8), (4, 12), (1, 10), (2, 13), (9, 12)])
    def test_rows_are_uniform_subsets_of_the_right_size(self, n_x, n_total):
        # Every one of the C(n, k) subsets, equally often up to chance (chi-square).
        masks = draw_masks(n_x, n_total, 200_000, seed=n_total)
        assert (mask_bits(masks, n_total).sum(axis=1) == n_x).all()
        _, counts = np.unique(masks[:, 0], return_counts=True)
        assert counts.size == math.comb(n_total, n_x)
        assert stats.chisquare(counts).pvalue > 1e-3

    @pytest.mark.parametrize(("n_x", "n_total"), [(40, 90), (3, 70), (64, 128), (100, 130)])
    def test_masks_of_more_than_64_items(self, n_x, n_total):
        # Several words per row: the right number of bits, none past the last item, and
        # every item in X with probability n_x / n.
        masks = draw_masks(n_x, n_total, 40_000, seed=3)
        assert masks.shape == (40_000, -(-n_total // 64))
        bits = np.unpackbits(masks.view(np.uint8).reshape(len(masks), -1), axis=1,
                             bitorder="little")
        assert (bits[:, n_total:] == 0).all()
        assert (bits.sum(axis=1) == n_x).all()
        p = n_x / n_total
        se = math.sqrt(p * (1 - p) / 40_000)
        assert np.abs(bits[:, :n_total].mean(axis=0) - p).max() < 5 * se

    def test_documented_draw_order(self):
        # For 25 + 25 items each candidate is one raw 64-bit word of PCG64(seed), cut to its
        # low 50 bits, kept when 25 of them are set: re-derived here one word at a time.
        bits = np.random.default_rng(2024).bit_generator
        expected = []
        while len(expected) < 20:
            word = int(bits.random_raw()) & ((1 << 50) - 1)
            if word.bit_count() == 25:
                expected.append(word)
        assert draw_masks(25, 50, 20, seed=2024)[:, 0].tolist() == expected

    def test_bit_probability_is_exact_and_accepts_often(self):
        from biaslib.stats import permutation

        assert permutation._bit_probability(25, 50)[:2] == (1, 1)  # fair bits
        for n_total in (2, 3, 9, 50, 64, 65, 200, 1000, permutation._MAX_MASK_ITEMS):
            for n_x in sorted({1, 2, n_total // 3, n_total // 2, n_total - 1} - {0}):
                a, r, acceptance = permutation._bit_probability(n_x, n_total)
                assert a % 2 == 1 and 0 < a < 2**r
                # The float acceptance (used only to size blocks) is P(Bin(n, a/2^r) = n_x).
                assert acceptance == pytest.approx(
                    stats.binom.pmf(n_x, n_total, a / 2**r), rel=1e-9)
                assert acceptance > 0.01


class TestSampledDeterminism:
    def test_same_seed_same_null_distribution_with_and_without_cache(self, fresh_cache):
        rng = np.random.default_rng(12)
        x, y = rng.normal(0.2, 1, 25), rng.normal(0, 1, 25)
        first = permutation_test(x, y, exact_limit=0, keep_distribution=True, seed=5)
        assert len(fresh_cache) == 1
        again = permutation_test(x, y, exact_limit=0, keep_distribution=True, seed=5)
        fresh_cache.clear()
        fresh = permutation_test(x, y, exact_limit=0, keep_distribution=True, seed=5)
        for other in (again, fresh):
            np.testing.assert_array_equal(other.null_distribution, first.null_distribution)
            assert other.p_value == first.p_value

    @pytest.mark.parametrize(("n_x", "n_y"), [(25, 25), (7, 30), (40, 50)])
    def test_block_and_chunk_sizes_do_not_change_the_result(self, monkeypatch, fresh_cache,
                                                            n_x, n_y):
        from biaslib.stats import permutation

        rng = np.random.default_rng(n_x)
        x, y = rng.normal(0.1, 1, n_x), rng.normal(0, 1, n_y)
        kw = {"exact_limit": 0, "n_resamples": 30_001, "keep_distribution": True, "seed": 9}
        whole = permutation_test(x, y, **kw)
        for raw_words, chunk_bytes, sum_rows in [(1, 8, 1), (100, 808, 7), (4096, 24_000, 999)]:
            fresh_cache.clear()
            monkeypatch.setattr(permutation, "_RAW_BLOCK_WORDS", raw_words)
            monkeypatch.setattr(permutation, "_MASK_CHUNK_BYTES", chunk_bytes)
            monkeypatch.setattr(permutation, "_SUM_ROWS", sum_rows)
            small = permutation_test(x, y, **kw)
            np.testing.assert_array_equal(small.null_distribution, whole.null_distribution)
            assert small.p_value == whole.p_value

    def test_table_sums_equal_direct_sums(self):
        # The byte-table X sums are the scores of the set bits, summed (to rounding).
        from biaslib.stats import permutation

        rng = np.random.default_rng(13)
        pooled = rng.normal(size=77)
        masks = draw_masks(30, 77, 5_000, seed=1)
        out = np.empty(len(masks))
        permutation._mask_statistics(masks, permutation._byte_tables(pooled), pooled.sum(),
                                     30, 47, "sum", out)
        member = mask_bits(masks, 77).astype(bool)
        direct = np.array([pooled[m].sum() - pooled[~m].sum() for m in member])
        np.testing.assert_allclose(out, direct, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("n_x", "n_y"), [(8, 8), (5, 11), (3, 14), (12, 4)])
@pytest.mark.parametrize("statistic", ["mean", "sum"])
def test_sampled_p_within_monte_carlo_error_of_exact(n_x, n_y, statistic):
    # In law the sampled test is the exact one: p within 4 standard errors.
    rng = np.random.default_rng(n_x * 31 + n_y)
    x, y = rng.normal(0.4, 1, n_x), rng.normal(0, 1, n_y)
    for tail in ("greater", "two-sided"):
        exact = permutation_test(x, y, tail=tail, statistic=statistic)
        sampled = permutation_test(x, y, tail=tail, statistic=statistic, exact_limit=0,
                                   n_resamples=100_000, plus_one=False, seed=17)
        assert exact.method == "exact" and sampled.method == "sampled"
        se = math.sqrt(exact.p_value * (1 - exact.p_value) / 100_000)
        assert abs(sampled.p_value - exact.p_value) < 4 * se + 1e-5


def test_pools_beyond_the_mask_limit_draw_random_keys(monkeypatch, fresh_cache):
    from biaslib.stats import permutation

    monkeypatch.setattr(permutation, "_MAX_MASK_ITEMS", 10)
    rng = np.random.default_rng(21)
    x, y = rng.normal(0.4, 1, 7), rng.normal(0, 1, 8)
    exact = permutation_test(x, y)
    sampled = permutation_test(x, y, exact_limit=0, n_resamples=50_000, plus_one=False)
    assert len(fresh_cache) == 0  # no masks drawn
    se = math.sqrt(exact.p_value * (1 - exact.p_value) / 50_000)
    assert abs(sampled.p_value - exact.p_value) < 4 * se + 1e-5


class TestMaskCache:
    def test_memory_is_bounded_and_least_recently_used_goes_first(self, monkeypatch):
        from biaslib.stats import permutation

        entry = 2_000 * 8  # 2,000 re-splits of at most 64 items
        cache = permutation._MaskCache(3 * entry)
        monkeypatch.setattr(permutation, "_MASK_CACHE", cache)
        x = np.arange(10.0)
        for n_y in range(5, 12):
            permutation_test(x, np.arange(float(n_y)), exact_limit=0, n_resamples=2_000)
            assert cache.nbytes <= 3 * entry
        assert len(cache) == 3
        assert cache.get((10, 21, 2_000, 1111)) is not None  # the most recent ones are kept
        assert cache.get((10, 15, 2_000, 1111)) is None  # the oldest are gone

    def test_cached_masks_are_read_only_and_large_draws_are_not_kept(self, monkeypatch):
        from biaslib.stats import permutation

        cache = permutation._MaskCache(10_000)
        monkeypatch.setattr(permutation, "_MASK_CACHE", cache)
        permutation_test(np.arange(5.0), np.arange(6.0), exact_limit=0, n_resamples=1_000)
        masks = cache.get((5, 11, 1_000, 1111))
        assert masks is not None and not masks.flags.writeable
        permutation_test(np.arange(5.0), np.arange(6.0), exact_limit=0, n_resamples=2_000)
        assert cache.get((5, 11, 2_000, 1111)) is None  # 16,000 bytes: over the limit
        assert len(cache) == 1

    def test_unseeded_draws_are_not_cached(self, fresh_cache):
        a = permutation_test(np.arange(9.0), np.arange(9.0) + 0.5, exact_limit=0,
                             n_resamples=5_000, seed=None, keep_distribution=True)
        b = permutation_test(np.arange(9.0), np.arange(9.0) + 0.5, exact_limit=0,
                             n_resamples=5_000, seed=None, keep_distribution=True)
        assert len(fresh_cache) == 0
        assert not np.array_equal(a.null_distribution, b.null_distribution)


def test_popcount_without_numpy_2_gives_the_same_draws(monkeypatch, fresh_cache):
    # numpy < 2.0 has no bitwise_count: the SWAR fallback must count the same bits, so
    # that a seed gives the same p-value under either numpy.
    from biaslib.stats import permutation

    words = np.random.default_rng(4).bit_generator.random_raw(3_000).reshape(1_000, 3)
    fast = permutation._popcount(words)
    rng = np.random.default_rng(6)
    x, y = rng.normal(0.1, 1, 20), rng.normal(0, 1, 30)
    with_count = permutation_test(x, y, exact_limit=0, n_resamples=20_000,
                                  keep_distribution=True)
    fresh_cache.clear()
    monkeypatch.delattr(np, "bitwise_count")
    np.testing.assert_array_equal(permutation._popcount(words), fast)
    without = permutation_test(x, y, exact_limit=0, n_resamples=20_000, keep_distribution=True)
    np.testing.assert_array_equal(without.null_distribution, with_count.null_distribution)

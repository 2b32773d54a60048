"""Property-based tests (Hypothesis) of the statistics layer: permutation tests and meta-analysis.

Random valid inputs must give results within the proven ranges and agree with a
brute-force enumeration; random invalid inputs must give the library's own
errors (a :mod:`biaslib.errors` type, or a TypeError/ValueError naming the
argument), never a bare numpy message. The examples are derandomised by the
``biaslib`` Hypothesis profile in ``tests/conftest.py``.

Scores are drawn as small integers (optionally scaled): sums of integers are
exact in float64, so a tie in the library is a tie in exact arithmetic and the
brute force can use :class:`fractions.Fraction` without tolerances.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import assume, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from library_errors import assert_library_error, raised  # noqa: E402

from biaslib import errors  # noqa: E402
from biaslib.stats.meta_analysis import random_effects  # noqa: E402
from biaslib.stats.permutation import (  # noqa: E402
    STATISTICS,
    TAILS,
    TIES,
    permutation_test,
)
from biaslib.stats.resampling import MAX_RESAMPLES, Resampling, resampled_test  # noqa: E402

#: Integer scores: exact sums, so ties are exact ties.
int_scores = st.lists(st.integers(-10, 10), min_size=1, max_size=5)
tails = st.sampled_from(TAILS)
ties = st.sampled_from(TIES)
statistics = st.sampled_from(STATISTICS)


def _varies(*groups):
    """Whether the pooled scores differ (all-equal scores are a DegenerateTestError)."""
    pooled = np.concatenate([np.asarray(g, dtype=float) for g in groups])
    return pooled.max() > pooled.min() + 1e-10 * np.abs(pooled).max()


def brute_force_p(x: list[int], y: list[int], tail: str, ties: str, statistic: str) -> Fraction:
    """Exact permutation p-value by enumerating every |X|-subset of the pool, in exact fractions."""
    pooled = [Fraction(v) for v in (*x, *y)]
    n_x, n_y = len(x), len(y)

    def stat(xs: list[Fraction], ys: list[Fraction]) -> Fraction:
        if statistic == "sum":
            return sum(xs, Fraction(0)) - sum(ys, Fraction(0))
        return sum(xs, Fraction(0)) / n_x - sum(ys, Fraction(0)) / n_y

    observed = stat(pooled[:n_x], pooled[n_x:])
    hits = total = 0
    for idx in itertools.combinations(range(len(pooled)), n_x):
        chosen = set(idx)
        t = stat([pooled[i] for i in idx], [p for i, p in enumerate(pooled) if i not in chosen])
        value, target = {"greater": (t, observed), "less": (-t, -observed),
                         "two-sided": (abs(t), abs(observed)),
                         "wefe-abs": (abs(t), observed)}[tail]
        hits += value >= target if ties == "ge" else value > target
        total += 1
    return Fraction(hits, total)


# --------------------------------------------------------------------------- permutation tests


@given(int_scores, int_scores, tails, ties, statistics)
def test_exact_p_equals_brute_force(x, y, tail, tie, statistic):
    assume(len(set(x + y)) > 1)  # all equal: degenerate, tested below
    res = permutation_test(x, y, tail=tail, ties=tie, statistic=statistic)
    assert res.method == "exact"
    assert res.n_resamples == math.comb(len(x) + len(y), len(x))
    assert res.p_value == float(brute_force_p(x, y, tail, tie, statistic))
    assert res.n_extreme == round(res.p_value * res.n_resamples)


@given(int_scores, int_scores, tails, statistics)
def test_exact_p_in_unit_interval_with_ties_counted(x, y, tail, statistic):
    assume(_varies(x, y))
    # The observed split is one of the enumerated ones and, with ties="ge", counts itself.
    res = permutation_test(x, y, tail=tail, ties="ge", statistic=statistic)
    assert 1 / res.n_resamples <= res.p_value <= 1


@given(int_scores, int_scores, ties, st.booleans(), statistics,
       st.integers(1, 300), st.integers(0, 2**32))
def test_sampled_p_with_plus_one_in_unit_interval(x, y, tie, replacement, statistic, m, seed):
    assume(_varies(x, y))
    res = permutation_test(x, y, ties=tie, plus_one=True, exact_limit=None, n_resamples=m,
                           replacement=replacement, seed=seed, statistic=statistic)
    assert res.method.startswith("sampled")
    assert res.n_resamples == m
    assert 0 < res.p_value <= 1
    assert res.p_value == (res.n_extreme + 1) / (m + 1)


@given(int_scores, int_scores, statistics)
def test_greater_tails_of_swapped_groups_cover_every_split(x, y, statistic):
    assume(_varies(x, y))
    # Swapping X and Y negates every split's statistic: p(X,Y,>=) + p(Y,X,>=) counts
    # every split once and the ties twice, so it is 1 + P(T = t) >= 1; with "gt" it is
    # 1 - P(T = t) <= 1; and "less" is "greater" with the groups swapped.
    ge = (permutation_test(x, y, ties="ge", statistic=statistic).p_value
          + permutation_test(y, x, ties="ge", statistic=statistic).p_value)
    assert ge >= 1 - 1e-12
    assume(len(set(x + y)) > 1)
    gt = (permutation_test(x, y, ties="gt", statistic=statistic).p_value
          + permutation_test(y, x, ties="gt", statistic=statistic).p_value)
    assert gt <= 1 + 1e-12
    assert ge + gt == pytest.approx(2)
    for tie in TIES:
        assert (permutation_test(x, y, tail="less", ties=tie, statistic=statistic).p_value
                == permutation_test(y, x, tail="greater", ties=tie,
                                    statistic=statistic).p_value)


@given(int_scores, int_scores, tails, ties, statistics, st.integers(-50, 50),
       st.floats(0.01, 100), st.booleans())
def test_p_invariant_to_shift_and_positive_scale(x, y, tail, tie, statistic, shift, scale,
                                                 exact):
    assume(len(set(x + y)) > 1)
    kwargs = {"tail": tail, "ties": tie, "statistic": statistic, "n_resamples": 200,
              "exact_limit": 100_000 if exact else None, "seed": 7}
    base = permutation_test(x, y, **kwargs).p_value
    shifted = permutation_test(np.add(x, shift), np.add(y, shift), **kwargs).p_value
    scaled = permutation_test(np.multiply(x, scale), np.multiply(y, scale), **kwargs).p_value
    if tail == "wefe-abs":  # |T_i| vs the *signed* t: a shift of the sum statistic moves t
        assume(statistic == "mean" or len(x) == len(y))
    assert shifted == base
    assert scaled == base


@given(st.lists(st.floats(-1, 1), min_size=2, max_size=12),
       st.lists(st.floats(-1, 1), min_size=2, max_size=12), st.integers(0, 2**32),
       st.booleans())
def test_same_seed_same_p_and_resampled_test_agrees(x, y, seed, replacement):
    assume(_varies(x, y))
    options = Resampling(exact_limit=None, n_resamples=500, seed=seed, replacement=replacement)
    first = resampled_test(x, y, options, keep_distribution=True)
    again = resampled_test(x, y, options, keep_distribution=True)
    direct = permutation_test(x, y, keep_distribution=True, **options.as_kwargs())
    assert first.p_value == again.p_value == direct.p_value
    np.testing.assert_array_equal(first.null_distribution, again.null_distribution)
    np.testing.assert_array_equal(first.null_distribution, direct.null_distribution)


@given(st.integers(1, 4), st.integers(1, 4), st.floats(-5, 5))
def test_all_equal_scores_are_not_significant(n_x, n_y, value):
    # Every split has the same statistic: no evidence at all, so p = 0 would be wrong.
    for tail in TAILS:
        try:
            res = permutation_test([value] * n_x, [value] * n_y, tail=tail, ties="gt")
        except errors.DegenerateTestError:
            continue
        assert res.p_value > 0


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_huge_scores_do_not_overflow():
    assert permutation_test([1e308] * 2, [-1e308] * 2).p_value == pytest.approx(1 / 6)


# --------------------------------------------------------------------------- invalid input

finite = st.floats(-1e3, 1e3)
bad_values = st.sampled_from([math.nan, math.inf, -math.inf])


@given(st.lists(finite, max_size=3), st.integers(0, 3), bad_values, st.booleans())
def test_non_finite_scores_are_refused(scores, where, bad, in_x):
    scores = list(scores)
    scores.insert(min(where, len(scores)), bad)
    x, y = (scores, [0.0, 1.0]) if in_x else ([0.0, 1.0], scores)
    exc = raised(lambda: permutation_test(x, y))
    assert_library_error(exc, "x_scores" if in_x else "y_scores")


@given(st.sampled_from(["x", "y"]), st.sampled_from([[], [[1.0, 2.0]], [[1.0], [2.0]]]))
def test_empty_or_multidimensional_scores_are_refused(side, bad):
    x, y = (bad, [1.0, 2.0]) if side == "x" else ([1.0, 2.0], bad)
    assert_library_error(raised(lambda: permutation_test(x, y)), f"{side}_scores")


@given(st.lists(st.text(min_size=1, max_size=3), min_size=1, max_size=3))
def test_string_scores_are_refused_by_name(words):
    assert_library_error(raised(lambda: permutation_test(words, [1.0, 2.0])), "x_scores")


@given(st.complex_numbers(allow_nan=False, allow_infinity=False, max_magnitude=10)
       .filter(lambda z: z.imag != 0))
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_complex_scores_are_refused_by_name(z):
    assert_library_error(raised(lambda: permutation_test([z, 1.0], [1.0, 2.0])), "x_scores")


@given(st.sampled_from(["n_resamples", "exact_limit", "seed"]),
       st.sampled_from([1.5, "10", True, None, [3]]))
def test_non_int_counts_are_refused_by_name(name, value):
    if value is None and name in ("exact_limit", "seed"):
        return  # documented: None means "never enumerate" / "fresh entropy"
    exc = raised(lambda: permutation_test([1.0, 2.0], [3.0], **{name: value}))
    assert isinstance(exc, TypeError)
    assert_library_error(exc, name)
    exc = raised(lambda: Resampling(**{name: value}))
    assert isinstance(exc, TypeError)
    assert_library_error(exc, name)


@given(st.sampled_from(["n_resamples", "exact_limit", "seed"]), st.integers(1, 10**6))
def test_numpy_integers_are_accepted_where_ints_are(name, value):
    value = value % 1000 + 1
    plain = permutation_test([1.0, 2.0, 5.0], [3.0, 0.5], **{name: value})
    numpy = permutation_test([1.0, 2.0, 5.0], [3.0, 0.5], **{name: np.int64(value)})
    assert plain.p_value == numpy.p_value
    assert Resampling(**{name: np.int32(value)}) == Resampling(**{name: value})


@given(st.sampled_from(["tail", "ties", "statistic"]),
       st.one_of(st.text(max_size=8), st.integers(), st.just(["greater"])))
def test_unknown_options_are_refused_by_name(name, value):
    assume(value not in (*TAILS, *TIES, *STATISTICS))
    assert_library_error(raised(lambda: permutation_test([1.0, 2.0], [3.0], **{name: value})),
                         name)
    assert_library_error(raised(lambda: Resampling(**{name: value})), name)


@given(st.sampled_from(["plus_one", "replacement"]), st.sampled_from(["no", "False", 0, 1, None]))
def test_resampling_refuses_non_bool_flags(name, value):
    exc = raised(lambda: Resampling(**{name: value}))
    assert isinstance(exc, TypeError)
    assert_library_error(exc, name)


@pytest.mark.parametrize("name", ["plus_one", "replacement"])
def test_permutation_test_refuses_non_bool_flags(name):
    exc = raised(lambda: permutation_test([1.0, 2.0], [3.0, 4.0], exact_limit=None,
                                          n_resamples=10, **{name: "False"}))
    assert_library_error(exc, name)


@given(st.integers(MAX_RESAMPLES + 1, 10**15))
def test_resampling_bounds_n_resamples(n):
    assert_library_error(raised(lambda: Resampling(n_resamples=n)), "n_resamples")


def test_permutation_test_bounds_n_resamples():
    exc = raised(lambda: permutation_test([1.0, 2.0], [3.0, 4.0], exact_limit=None,
                                          n_resamples=10**12))
    assert_library_error(exc, "n_resamples")


# --------------------------------------------------------------------------- meta-analysis

effects = st.lists(st.floats(-3, 3), min_size=2, max_size=30)


@given(effects, st.data(), st.sampled_from(["greater", "two-sided"]))
def test_random_effects_ranges(d, data, tail):
    v = data.draw(st.lists(st.floats(1e-4, 2), min_size=len(d), max_size=len(d)))
    meta = random_effects(d, v, tail=tail)
    assert meta.tau2 >= 0
    assert 0 <= meta.i2 <= 1
    assert meta.se > 0 and math.isfinite(meta.se)
    assert 0 <= meta.p_value <= 1
    assert meta.q >= 0
    assert meta.df == len(d) - 1 and meta.n == len(d)
    lo, hi = meta.conf_int()
    assert lo <= meta.ces <= hi
    # The CES is a weighted mean of the effect sizes, so it lies between them.
    assert min(d) - 1e-9 <= meta.ces <= max(d) + 1e-9
    # tau2 = 0 exactly when Q <= df (DerSimonian-Laird truncation).
    assert (meta.tau2 == 0) == (meta.q <= meta.df)


@given(st.floats(-3, 3), st.integers(2, 10), st.floats(1e-3, 1))
def test_random_effects_of_identical_samples(d, n, v):
    meta = random_effects([d] * n, [v] * n)
    assert meta.ces == pytest.approx(d)
    assert meta.tau2 == 0 and meta.i2 == 0
    assert meta.se == pytest.approx(math.sqrt(v / n))


@given(st.sampled_from([
    ([0.1], [0.1]),  # fewer than two
    ([0.1, 0.2], [0.1]),  # mismatched shapes
    ([0.1, 0.2], [0.1, 0.0]),  # non-positive variance
    ([0.1, math.nan], [0.1, 0.1]),
    ([0.1, 0.2], [0.1, math.inf]),
]))
def test_random_effects_refuses_bad_input(case):
    d, v = case
    assert_library_error(raised(lambda: random_effects(d, v)), "effects", "variances", "variance")


@pytest.mark.parametrize("d", [[0.1, "a"], [0.1, 0.2j]])
def test_random_effects_refuses_non_numbers_by_name(d):
    assert_library_error(raised(lambda: random_effects(d, [0.1, 0.1])), "effects")

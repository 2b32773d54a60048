"""Issue 20, statistics and cosine methods: each bad input gets a named error and a test."""

from __future__ import annotations

import math

import numpy as np
import pytest

from biaslib.errors import DegenerateTestError
from biaslib.methods.ceat import row_effect_sizes
from biaslib.methods.mleat import level3, ml_eat
from biaslib.methods.same import direct_bias, same, weat_d
from biaslib.methods.weat import effect_size, weat
from biaslib.stats.conventions import Convention
from biaslib.stats.permutation import MAX_RESAMPLES, normal_approximation_p, permutation_test
from biaslib.stats.similarity import as_vectors
from biaslib.validation import check_bool, check_ddof, check_number, real_array

A, B = [[1.0, 0.0]], [[0.0, 1.0]]
W = [[3.0, 4.0], [4.0, 3.0]]


def _at(*degrees: float) -> np.ndarray:
    rad = np.deg2rad(degrees)
    return np.column_stack([np.cos(rad), np.sin(rad)])


# ------------------------------------------------------------------ degenerate score sets

@pytest.mark.parametrize("ties", ["ge", "gt"])
@pytest.mark.parametrize("tail", ["greater", "less", "two-sided", "wefe-abs"])
@pytest.mark.parametrize("sampled", [False, True])
def test_all_equal_scores_are_refused_not_p0(ties, tail, sampled):
    # Before: ties="gt" gave p = 0.0 (exact) or 1/(m+1) (sampled) for no evidence at all.
    kwargs = {"exact_limit": None, "n_resamples": 99} if sampled else {}
    with pytest.raises(DegenerateTestError, match="all 6 scores are equal"):
        permutation_test([0.5] * 3, [0.5] * 3, ties=ties, tail=tail, **kwargs)


def test_nearly_equal_scores_are_still_tested():
    # One score apart by far more than the tie tolerance: a real (if tiny) test.
    res = permutation_test([0.5, 0.5, 0.5 + 1e-6], [0.5] * 3)
    assert res.p_value == pytest.approx(10 / 20)


def test_zero_spread_normal_fit_is_degenerate():
    with pytest.raises(DegenerateTestError, match="zero spread"):
        normal_approximation_p(0.1, [0.5, 0.5, 0.5])


def test_mleat_same_targets_are_refused():
    X = _at(10, 20)
    with pytest.raises(DegenerateTestError, match="X and Y are the same vectors"):
        ml_eat(X, X[::-1], _at(0, 5), _at(85, 90))


# ------------------------------------------------------------------ flags and counts

@pytest.mark.parametrize("name", ["plus_one", "replacement", "keep_distribution"])
@pytest.mark.parametrize("value", ["no", "False", 0, 1, None])
def test_non_bool_flags_are_refused(name, value):
    with pytest.raises(TypeError, match=f"{name} must be True or False"):
        permutation_test([0.9, 0.8], [0.1, 0.2], **{name: value})


def test_numpy_bools_and_ints_are_accepted():
    plain = permutation_test([0.9, 0.8, 0.7], [0.1, 0.2, 0.35], exact_limit=None,
                             n_resamples=50, seed=3, plus_one=True)
    numpy = permutation_test([0.9, 0.8, 0.7], [0.1, 0.2, 0.35], exact_limit=np.int64(0),
                             n_resamples=np.int32(50), seed=np.uint8(3), plus_one=np.bool_(True))
    assert numpy == plain or numpy.p_value == plain.p_value


def test_n_resamples_is_bounded():
    with pytest.raises(ValueError, match=r"n_resamples=1,000,000,000,000 .* at most"):
        permutation_test([0.9, 0.8], [0.1, 0.2], n_resamples=10**12, exact_limit=None)
    with pytest.raises(ValueError, match="at most"):
        permutation_test([0.9, 0.8], [0.1, 0.2], n_resamples=MAX_RESAMPLES + 1)


# ------------------------------------------------------------------ scores that are no numbers

@pytest.mark.parametrize(("x", "error", "match"), [
    (["a", "b"], TypeError, "x_scores must hold real numbers"),
    ([1 + 1j, 2.0], TypeError, "x_scores holds complex"),
    ([None, 1.0], TypeError, "x_scores must hold real numbers"),
    ([[1.0, 2.0], [3.0]], ValueError, "x_scores is ragged"),
])
def test_bad_scores_are_named(x, error, match):
    with pytest.raises(error, match=match):
        permutation_test(x, [0.1, 0.2])


def test_complex_scores_are_refused_by_effect_size():
    with pytest.raises(TypeError, match="s_y holds complex"):
        effect_size([0.1, 0.2], [0.3 + 0j, 0.4])


# ------------------------------------------------------------------ overflow

def test_huge_scores_do_not_overflow_into_p0():
    # 4 scores, C(4, 2) = 6 splits; only the observed one has X's two highest: p = 1/6.
    res = permutation_test([1e308] * 2, [-1e308] * 2)
    assert res.method == "exact" and res.p_value == pytest.approx(1 / 6)
    assert res.statistic == math.inf  # the true 2e308 exceeds float64
    assert permutation_test([1e308] * 2, [-1e308] * 2, tail="two-sided",
                            statistic="sum").p_value == pytest.approx(2 / 6)


def test_rescaling_leaves_p_value_and_statistic_unchanged():
    # A power-of-two scale is exact: the same p and the same (scaled) statistic.
    x, y = np.array([0.9, 0.8, 0.3]), np.array([0.1, 0.2, 0.35])
    small = permutation_test(x, y)
    big = permutation_test(x * 2.0**1000, y * 2.0**1000)
    assert big.p_value == small.p_value
    assert big.statistic == small.statistic * 2.0**1000


# ------------------------------------------------------------------ ddof

@pytest.mark.parametrize("ddof", [2, -1, 0.0, 1.5, True, "1", None])
def test_ddof_outside_0_1_is_refused_everywhere(ddof):
    s_x, s_y = [0.3, 0.2, 0.1], [-0.1, 0.0, 0.1]
    calls = [
        lambda: effect_size(s_x, s_y, ddof=ddof),
        lambda: weat_d(W, [[1.0, 2.0], [2.0, 1.5]], A, B, ddof=ddof),
        lambda: level3(_at(10, 20), _at(50, 60), _at(0, 5), _at(85, 90), ddof=ddof),
        lambda: row_effect_sizes(np.array([[0.3, 0.1, 0.0, 0.2]]), 2, ddof),
        lambda: Convention(name="x", ddof=ddof),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=r"ddof must be 0 .* or 1"):
            call()


def test_numpy_int_ddof_is_accepted():
    s_x, s_y = [0.3, 0.2, 0.1], [-0.1, 0.0, 0.1]
    assert effect_size(s_x, s_y, ddof=np.int64(0)) == effect_size(s_x, s_y, ddof=0)
    assert type(Convention(name="x", ddof=np.int64(0)).ddof) is int


# ------------------------------------------------------------------ SAME and Direct Bias

def test_same_refuses_a_dict_of_sets():
    with pytest.raises(TypeError, match=r"not a dict .*list\(attribute_sets.values\(\)\)"):
        same(W, {"f": A, "m": B})


def test_direct_bias_accepts_numpy_int_k():
    res = direct_bias(W, [A, B], k=np.int64(1))
    assert res.effect_size == direct_bias(W, [A, B], k=1).effect_size
    assert type(res.options["k"]) is int


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"c": "1"}, TypeError, "c must be a finite number"),
    ({"c": None}, TypeError, "c must be a finite number"),
    ({"c": float("nan")}, ValueError, "c must be a finite number"),
    ({"c": 1j}, TypeError, "c must be a finite number"),
    ({"min_explained_variance": "high"}, TypeError, "min_explained_variance must be"),
    ({"min_explained_variance": 1.5}, ValueError, "min_explained_variance must be"),
    ({"k": 1.0}, TypeError, "k must be a positive int"),
    ({"unit_attributes": "no"}, TypeError, "unit_attributes must be True or False"),
])
def test_direct_bias_bad_options(kwargs, error, match):
    with pytest.raises(error, match=match):
        direct_bias(W, [A, B], **kwargs)


# ------------------------------------------------------------------ WEAT sets

@pytest.mark.parametrize("role", ["X", "Y", "A", "B"])
def test_ragged_set_is_named(role):
    sets = {"X": _at(10, 20), "Y": _at(50, 60), "A": _at(0, 5), "B": _at(85, 90)}
    sets[role] = [[1.0, 2.0], [3.0]]
    with pytest.raises(ValueError, match=f"set '{role}' is ragged"):
        weat(**sets)


def test_as_vectors_ragged_names_the_set():
    with pytest.raises(ValueError, match="set 'Flowers' is ragged"):
        as_vectors([[1.0, 2.0], [3.0]], "Flowers")


def test_x_equal_to_y_in_another_order_is_degenerate():
    X = _at(10, 20, 30, 40)
    with pytest.raises(DegenerateTestError, match="X and Y are the same vectors"):
        weat(X, X[::-1], _at(0, 5), _at(85, 90))


def test_a_equal_to_b_is_degenerate():
    # Every association is 0; the message is the effect size's, which stored tables record.
    with pytest.raises(DegenerateTestError, match="all association scores are equal"):
        weat(_at(10, 20), _at(50, 60), _at(0, 5), _at(5, 0))
    with pytest.raises(DegenerateTestError, match="all association scores are equal"):
        ml_eat(_at(10, 20), _at(50, 60), _at(0, 5), _at(5, 0))


def test_partial_overlap_is_still_a_test():
    # Sharing one vector is a legitimate (if odd) test; d is defined.
    res = weat(_at(10, 20, 30), _at(30, 60, 70), _at(0, 5), _at(85, 90))
    assert 0 < res.effect_size and 0 < res.p_value <= 1


# ------------------------------------------------------------------ the shared checks

def test_check_bool_and_number_and_ddof():
    assert check_bool(np.bool_(False), "f") is False
    assert check_number(np.float32(0.5), "x", minimum=0, maximum=1) == 0.5
    assert check_number(None, "x", allow_none=True) is None
    with pytest.raises(TypeError):
        check_number(True, "x")
    assert check_ddof(np.int8(1)) == 1
    assert real_array([1, 2], "x").dtype == np.float64


def test_weat_dimension_mismatch_names_the_target_set():
    # X's vectors have 3 dimensions, A's and B's 2: the message names X, not "words".
    X, Y = np.ones((2, 3)), np.eye(2)
    with pytest.raises(ValueError, match=r"'X'"):
        weat(X, Y, np.eye(2), np.eye(2)[::-1])

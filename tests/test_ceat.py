"""CEAT: the random-effects meta-analysis, the sampling, the vectorised effect sizes
and the missing-word policy (the chapter's tables: test_ceat_tables.py)."""

from fractions import Fraction

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.meta_analysis import combine_effects

from biaslib.errors import DegenerateTestError, DroppedStimuliWarning, MissingWordsError
from biaslib.methods.ceat import (
    CEAT_MIND_YOUR_BIAS,
    CEAT_ORIGINAL,
    CeatConvention,
    ceat,
    missing_policy,
    sample_effect_sizes,
    sample_effect_sizes_loop,
    sample_indices,
)
from biaslib.methods.weat import association, effect_size
from biaslib.stats.meta_analysis import random_effects
from biaslib.stats.sets import ROLES

# --------------------------------------------------------------------------- meta-analysis


def test_random_effects_hand_worked():
    """d = (0.5, 1, 1.5), v = (0.1, 0.2, 0.4), worked with fractions:

    w = (10, 5, 2.5); sum w = 35/2; sum w d = 55/4; sum w d^2 = 105/8
    Q = 105/8 - (55/4)^2 / (35/2) = 65/28; df = 2; c = 35/2 - (525/4)/(35/2) = 10
    tau^2 = (65/28 - 2) / 10 = 9/280; w* = 1/(v + tau^2) = (280/37, 56/13, 280/121)
    CES = sum w* d / sum w* = 12017/14747; SE = sqrt(1 / sum w*)
    """
    res = random_effects([0.5, 1.0, 1.5], [0.1, 0.2, 0.4], tail="greater")
    w_star = [Fraction(280, 37), Fraction(56, 13), Fraction(280, 121)]
    assert res.q == pytest.approx(65 / 28, rel=1e-12)
    assert res.df == 2 and res.c == pytest.approx(10, rel=1e-12)
    assert res.tau2 == pytest.approx(9 / 280, rel=1e-12)
    assert res.ces == pytest.approx(12017 / 14747, rel=1e-12)
    assert res.se == pytest.approx(float(1 / sum(w_star)) ** 0.5, rel=1e-12)
    assert res.variance == pytest.approx(float(1 / sum(w_star)), rel=1e-12)
    # Mind Your Bias's "weighted SD": sum w* (d - CES)^2 / sum w* * N/(N-1)
    d, ces = [Fraction(1, 2), Fraction(1), Fraction(3, 2)], Fraction(12017, 14747)
    wvar = sum(w * (x - ces) ** 2 for w, x in zip(w_star, d, strict=True)) / sum(w_star)
    assert res.weighted_variance == pytest.approx(float(wvar * 3 / 2), rel=1e-12)
    # I^2 = (Q - df) / Q = (65/28 - 2) / (65/28) = 9/65; Q test: chi2(2) tail = exp(-Q/2)
    assert res.i2 == pytest.approx(9 / 65, rel=1e-12)
    assert res.q_p_value == pytest.approx(np.exp(-65 / 56), rel=1e-12)
    low, high = res.conf_int()
    assert (low + high) / 2 == pytest.approx(res.ces) and high - low == pytest.approx(
        2 * 1.959963984540054 * res.se)
    assert res.z == pytest.approx(res.ces / res.se)
    assert res.p_value == pytest.approx(stats.norm.sf(res.z))
    assert res.p_two_sided == pytest.approx(2 * res.p_value)
    assert res.n == 3


def test_no_excess_heterogeneity_gives_tau2_zero():
    res = random_effects([0.3, 0.3, 0.3, 0.3], [0.1, 0.2, 0.3, 0.4])
    assert res.tau2 == 0 and res.q == pytest.approx(0) and res.i2 == 0
    # with tau^2 = 0 the CES is the fixed-effect (inverse-variance) mean
    assert res.ces == pytest.approx(0.3)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_effects_matches_statsmodels_dersimonian_laird(seed):
    rng = np.random.default_rng(seed)
    d = rng.normal(0.4, 0.3, size=500)
    v = rng.uniform(0.01, 0.2, size=500)
    ours = random_effects(d, v)
    ref = combine_effects(d, v, method_re="dl")
    assert ours.ces == pytest.approx(ref.mean_effect_re, rel=1e-10)
    assert ours.se == pytest.approx(ref.sd_eff_w_re, rel=1e-10)
    assert ours.tau2 == pytest.approx(ref.tau2, rel=1e-10)
    assert ours.q == pytest.approx(ref.q, rel=1e-10)
    assert ours.i2 == pytest.approx(ref.i2, rel=1e-10)
    assert ours.q_p_value == pytest.approx(ref.test_homogeneity().pvalue, rel=1e-8)
    # conf_int(use_t=False): (low, high) of fixed, random (DL), fixed HKSJ, random HKSJ
    np.testing.assert_allclose(ours.conf_int(), ref.conf_int(use_t=False)[1], rtol=1e-10)


def test_weighted_variance_is_the_sample_variance_for_equal_weights():
    """Mind Your Bias's "weighted SD" column is about SD^2 of the per-sample effects."""
    d = np.random.default_rng(3).normal(0.5, 0.2, size=400)
    res = random_effects(d, np.full(400, 0.05))
    assert res.weighted_variance == pytest.approx(d.var(ddof=1), rel=1e-12)
    assert res.weighted_variance != pytest.approx(res.variance)


@pytest.mark.filterwarnings("ignore:invalid value encountered in sqrt:RuntimeWarning")
def test_tau2_is_truncated_at_zero_where_statsmodels_is_not():
    """Homogeneous effects (Q < df): DerSimonian-Laird and CEAT's code set tau^2 = 0;
    statsmodels' combine_effects(method_re="dl") returns the negative moment estimate —
    the reason random_effects is computed here rather than delegated."""
    d, v = [0.30, 0.31, 0.29, 0.30], [0.1, 0.2, 0.3, 0.4]
    ref = combine_effects(np.array(d), np.array(v), method_re="dl")
    assert ref.tau2 < 0
    ours = random_effects(d, v)
    assert ours.tau2 == 0
    w = 1 / np.array(v)
    assert ours.ces == pytest.approx(np.sum(w * d) / np.sum(w), rel=1e-12)


def test_random_effects_matches_the_original_formulation():
    """CEAT's code: Q = sum w e^2 - (sum w e)^2 / sum w, tau^2 only when Q > df."""
    rng = np.random.default_rng(5)
    e = rng.normal(0.2, 0.5, size=1000)
    v = rng.uniform(0.05, 0.3, size=1000)
    w = 1 / v
    q = np.sum(w * e**2) - np.sum(w * e) ** 2 / np.sum(w)
    df = len(e) - 1
    tau2 = (q - df) / (np.sum(w) - np.sum(w**2) / np.sum(w)) if q > df else 0
    w_star = 1 / (v + tau2)
    ces = np.sum(w_star * e) / np.sum(w_star)
    z = ces / np.sqrt(1 / np.sum(w_star))
    ours = random_effects(e, v, tail="greater")
    assert ours.ces == pytest.approx(ces, rel=1e-10)
    assert ours.p_value == pytest.approx(stats.norm.sf(z), rel=1e-8)
    assert random_effects(e, v).p_value == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-8)


@pytest.mark.parametrize(("d", "v", "match"), [
    ([1.0], [0.1], "at least two"),
    ([1.0, 2.0], [0.1], "differ in shape"),
    ([1.0, np.nan], [0.1, 0.1], "finite"),
    ([1.0, 2.0], [0.1, 0.0], "positive"),
])
def test_random_effects_rejects_bad_input(d, v, match):
    with pytest.raises(ValueError, match=match):
        random_effects(d, v)


# --------------------------------------------------------------------------- conventions


def test_presets_are_the_published_conventions():
    orig, myb = CEAT_ORIGINAL, CEAT_MIND_YOUR_BIAS
    assert (orig.n_samples, orig.replacement, orig.tail, orig.ddof) == (
        1_000, "always", "greater", 1)
    assert (myb.n_samples, myb.replacement, myb.tail, myb.seed) == (
        10_000, "if_fewer", "two-sided", 1111)
    assert CeatConvention.of("ceat-original") is CEAT_ORIGINAL
    assert CEAT_MIND_YOUR_BIAS.replace(n_samples=100).name == "mind-your-bias*"
    with pytest.raises(KeyError, match="known"):
        CeatConvention.of("wefe")
    with pytest.raises(ValueError, match="replacement"):
        CEAT_MIND_YOUR_BIAS.replace(replacement="sometimes")


@pytest.mark.parametrize(("change", "error"), [
    ({"n_samples": 1}, ValueError), ({"n_samples": 1e4}, TypeError),
    ({"n_samples": "10000"}, TypeError), ({"seed": 1.0}, TypeError), ({"seed": -3}, ValueError),
    ({"ddof": True}, ValueError)])
def test_conventions_refuse_odd_parameters(change, error):
    with pytest.raises(error, match=next(iter(change))):
        CEAT_MIND_YOUR_BIAS.replace(**change)


def test_a_word_in_both_target_or_attribute_sets_is_refused():
    vec = random_vectors()
    vec["Y"]["X0"] = vec["X"]["X0"]
    with pytest.raises(ValueError, match=r"both X and Y: \['X0'\]"):
        ceat(vec, convention=CEAT_ORIGINAL)
    vec = random_vectors()
    vec["B"]["A1"] = vec["A"]["A1"]
    with pytest.raises(ValueError, match="both A and B"):
        ceat(vec, convention=CEAT_ORIGINAL)


# --------------------------------------------------------------------------- sampling


def test_sample_indices():
    rng = np.random.default_rng(0)
    idx = sample_indices([5, 300, 1], 200, "if_fewer", rng)
    assert idx.shape == (200, 3)
    assert idx[:, 0].max() < 5 and (idx[:, 2] == 0).all()
    # a word with at least N contexts gets N distinct ones
    assert len(set(idx[:, 1])) == 200 and idx[:, 1].max() < 300
    always = sample_indices([300], 200, "always", np.random.default_rng(0))
    assert len(set(always[:, 0])) < 200  # with replacement: repeats (birthday problem)
    with pytest.raises(ValueError, match="at least 200"):
        sample_indices([300, 5], 200, "never", np.random.default_rng(0))
    with pytest.raises(ValueError, match="at least one context"):
        sample_indices([3, 0], 10, "always", np.random.default_rng(0))
    a = sample_indices([7, 9], 50, "always", np.random.default_rng(3))
    assert np.array_equal(a, sample_indices([7, 9], 50, "always", np.random.default_rng(3)))


def random_vectors(seed=0, sizes=(5, 6, 4, 4), contexts=(1, 12), dim=16, shift=0.4):
    """Role -> word -> (n_contexts, dim), with X and A drawn towards each other."""
    rng = np.random.default_rng(seed)
    direction = rng.normal(size=dim)
    out = {}
    for role, n in zip(ROLES, sizes, strict=True):
        sign = 1 if role in "XA" else -1
        out[role] = {f"{role}{j}": rng.normal(size=(int(rng.integers(*contexts)), dim))
                     + sign * shift * direction for j in range(n)}
    return out


def draws(vectors, n, replacement="always", seed=0):
    rng = np.random.default_rng(seed)
    return {r: sample_indices([len(m) for m in vectors[r].values()], n, replacement, rng)
            for r in ROLES}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vectorised_effect_sizes_equal_the_per_sample_loop(dtype):
    vec = random_vectors()
    idx = draws(vec, 300)
    arrays = [list(vec[r].values()) for r in ROLES]
    fast = sample_effect_sizes(*arrays, idx, dtype=dtype, chunk_size=64)
    slow = sample_effect_sizes_loop(*arrays, idx)
    tol = 1e-5 if dtype is np.float32 else 1e-11
    np.testing.assert_allclose(fast[0], slow[0], atol=tol)
    np.testing.assert_allclose(fast[1], slow[1], rtol=tol * 10)


def test_a_sample_is_one_weat_with_one_context_per_word():
    """Per-sample d_i is weat.effect_size on one context per word; v_i is its squared SD."""
    vec = random_vectors(seed=3)
    idx = draws(vec, 5, seed=4)
    d, v = sample_effect_sizes(*[list(vec[r].values()) for r in ROLES], idx, dtype=np.float64)
    i = 3
    pick = {r: np.stack([m[idx[r][i, j]] for j, m in enumerate(vec[r].values())])
            for r in ROLES}
    s_x = association(pick["X"], pick["A"], pick["B"])
    s_y = association(pick["Y"], pick["A"], pick["B"])
    assert d[i] == pytest.approx(effect_size(s_x, s_y, ddof=1), rel=1e-10)
    assert v[i] == pytest.approx(np.concatenate([s_x, s_y]).std(ddof=1) ** 2, rel=1e-10)


def test_ceat_is_deterministic_and_seeded():
    vec = random_vectors()
    a, b = ceat(vec, convention=CEAT_ORIGINAL), ceat(vec, convention=CEAT_ORIGINAL)
    assert np.array_equal(a.effect_sizes, b.effect_sizes) and a.ces == b.ces
    c = ceat(vec, convention=CEAT_ORIGINAL.replace(seed=2))
    assert not np.array_equal(a.effect_sizes, c.effect_sizes)
    assert a.meta.n == 1000 and a.meta.tail == "greater"
    assert ceat(vec, convention="mind-your-bias").meta.n == 10_000
    loop = ceat(vec, convention=CEAT_ORIGINAL.replace(n_samples=200), method="loop")
    fast = ceat(vec, convention=CEAT_ORIGINAL.replace(n_samples=200))
    assert loop.ces == pytest.approx(fast.ces, abs=1e-5)


def test_ceat_finds_the_planted_association():
    res = ceat(random_vectors(shift=0.6), convention=CEAT_MIND_YOUR_BIAS)
    assert res.ces > 0.5 and res.p_value < 1e-10
    rec = res.to_dict()
    assert rec["n_x"] == 5 and rec["n_y"] == 6 and rec["dropped"] == ""
    assert rec["q025"] <= rec["median_d"] <= rec["q975"]
    assert rec["ci_low"] < rec["ces"] < rec["ci_high"]
    assert rec["weighted_variance"] == pytest.approx(res.meta.weighted_variance)
    assert 0 <= rec["i2"] <= 1 and 0 <= rec["q_p_value"] <= 1


def test_swapping_targets_negates_every_sample():
    vec = random_vectors(seed=7)
    idx = draws(vec, 100, seed=1)
    arrays = {r: list(vec[r].values()) for r in ROLES}
    d, v = sample_effect_sizes(arrays["X"], arrays["Y"], arrays["A"], arrays["B"], idx)
    swapped = {**idx, "X": idx["Y"], "Y": idx["X"]}
    d2, v2 = sample_effect_sizes(arrays["Y"], arrays["X"], arrays["A"], arrays["B"], swapped)
    np.testing.assert_allclose(d2, -d, atol=1e-6)
    np.testing.assert_allclose(v2, v, rtol=1e-5)
    swapped_ab = {**idx, "A": idx["B"], "B": idx["A"]}
    d3, _ = sample_effect_sizes(arrays["X"], arrays["Y"], arrays["B"], arrays["A"], swapped_ab)
    np.testing.assert_allclose(d3, -d, atol=1e-6)


def test_ceat_is_invariant_to_vector_scale():
    vec = random_vectors(seed=8)
    scaled = {r: {w: m * (3.0 + k) for k, (w, m) in enumerate(ws.items())}
              for r, ws in vec.items()}
    assert ceat(scaled, convention=CEAT_ORIGINAL).ces == pytest.approx(
        ceat(vec, convention=CEAT_ORIGINAL).ces, abs=1e-6)


def test_degenerate_sample_raises():
    same = np.ones((3, 4))
    vec = {r: {f"{r}{j}": same for j in range(3)} for r in ROLES}
    with pytest.raises(DegenerateTestError, match="standard deviation 0"):
        ceat(vec, convention=CEAT_ORIGINAL)


# --------------------------------------------------------------------------- missing words


def test_words_without_contexts_are_dropped_and_reported():
    vec = random_vectors(sizes=(6, 6, 5, 5))
    vec["Y"]["Y0"] = np.empty((0, 16))
    vec["A"]["A4"] = None
    with pytest.warns(DroppedStimuliWarning, match="Y: Y0; A: A4"):
        res = ceat(vec, convention=CEAT_ORIGINAL)
    assert res.dropped["Y"] == ("Y0",) and res.dropped["A"] == ("A4",)
    assert "Y0" not in res.words["Y"] and len(res.words["Y"]) == 5
    assert res.to_dict()["dropped"] == "Y: Y0; A: A4"
    assert np.isfinite(res.ces)


def test_too_many_missing_words_refuse_instead_of_a_nan():
    vec = random_vectors(sizes=(6, 6, 5, 5))
    for w in ("Y0", "Y1"):
        vec["Y"][w] = np.empty((0, 16))
    with pytest.raises(MissingWordsError, match=r"Y: 2/6 words lack contexts"):
        ceat(vec, convention=CEAT_ORIGINAL)
    dropped = ceat(vec, convention=CEAT_ORIGINAL, max_missing_fraction=0.5).dropped
    assert dropped["Y"] == ("Y0", "Y1")
    vec["B"] = {w: np.empty((0, 16)) for w in vec["B"]}
    with pytest.raises(MissingWordsError, match="B: 5/5"):
        ceat(vec, convention=CEAT_ORIGINAL, max_missing_fraction=1.0)


def test_min_contexts():
    counts = {"X": {"a": 1, "b": 5}, "Y": {"c": 5, "d": 5}, "A": {"e": 2}, "B": {"f": 9}}
    kept, dropped = missing_policy(counts, min_contexts=2, max_missing_fraction=0.5)
    assert dropped["X"] == ("a",) and kept["A"] == ("e",)
    with pytest.raises(ValueError, match="at least 1"):
        missing_policy(counts, min_contexts=0)

"""SAME, skew, stereotype, MAC, Direct Bias and WEAT's word scores (Schröder et al.).

Hand-computed 2-D and 3-D examples, the paper's properties and counterexamples,
the options where the paper and its authors' code differ, and bad input.
"""

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from offline_wheels import needs_glove

from biasbook.findings import Finding
from biasbook.same import (
    INJECTION,
    InjectionSettings,
    figure2_word_scores,
    fill_template,
    findings,
    gender_words,
    injection_grid,
    occupation_ratings,
    occupations,
    predefined_bias,
    property_matrix,
    r_squared,
    stereotype_groups,
    test_sentences,
    training_sentences,
)
from biaslib.errors import DegenerateTestError, DroppedStimuliWarning, UnknownNameError
from biaslib.methods.same import (
    SAME_CODE,
    SAME_CODE_PRE_2022_10,
    SAME_PAPER,
    SameConvention,
    attribute_means,
    direct_bias,
    direct_bias_space,
    mac,
    mac_word,
    pairwise_skew_stereotype,
    same,
    same_multi_word,
    same_signed_word,
    same_space,
    skew,
    stereotype,
    weat_d,
    weat_word,
)
from biaslib.methods.same_properties import (
    attainable_range,
    direct_bias_counterexample,
    extremal_scores,
    lemma1_bound,
    mac_counterexample,
    orthogonal_unit,
    skew_stereotype_sets,
    weat_d_bound,
    weat_same_identity,
    weat_zero_counterexample,
)
from biaslib.methods.weat import effect_size
from biaslib.stimuli.data import load_published

X_AXIS, Y_AXIS = [[1.0, 0.0]], [[0.0, 1.0]]


def at(*degrees):
    rad = np.deg2rad(degrees)
    return np.column_stack([np.cos(rad), np.sin(rad)])


def rng_vectors(n, d=8, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


# --------------------------------------------------------------------------- hand-computed


def test_attribute_means_are_means_of_unit_vectors():
    means = attribute_means([[[2.0, 0.0], [0.0, 5.0]], [[-3.0, 0.0]]])
    assert means.tolist() == [[0.5, 0.5], [-1.0, 0.0]]


def test_binary_same_by_hand():
    # Direction x - y; w at 30 degrees: cos(30° , -45°) = cos(75°).
    b = same_signed_word(at(30, 60, 45), X_AXIS, Y_AXIS)
    assert b == pytest.approx([math.cos(math.radians(75)), -math.cos(math.radians(75)), 0.0],
                              abs=1e-15)
    result = same(at(30, 60, 45), [X_AXIS, Y_AXIS])
    assert result.effect_size == pytest.approx(2 * math.cos(math.radians(75)) / 3)
    assert result.method == "SAME" and result.n_words == 3 and result.n_groups == 2


def test_weat_word_is_the_association_of_the_weat_module():
    w = at(10, 50)
    assert weat_word(w, X_AXIS, Y_AXIS) == pytest.approx(
        [math.cos(math.radians(10)) - math.sin(math.radians(10)),
         math.cos(math.radians(50)) - math.sin(math.radians(50))])


def test_multi_attribute_same_by_hand():
    # Group means e1, e2, e3: b1 = (e2 - e1)/sqrt2, b2' = (-1/2, -1/2, 1), ||b2'|| = sqrt(1.5).
    sets = [[[1.0, 0, 0]], [[0, 1.0, 0]], [[0, 0, 1.0]]]
    space = same_space(sets)
    assert space.dim == 2 and space.kept == (1, 2) and space.left_out == ()
    assert space.raw_norms == pytest.approx([math.sqrt(2), math.sqrt(1.5)])
    assert space.basis[1] == pytest.approx(np.array([-0.5, -0.5, 1.0]) / math.sqrt(1.5))
    words = np.array([[0, 0, 1.0], [1.0, 1.0, 1.0], [0, 1.0, 0]])
    paper = same_multi_word(words, space, "norm")
    code = same_multi_word(words, space, "code-sum")
    assert paper == pytest.approx([1 / math.sqrt(1.5), 0.0, math.sqrt(0.5 + 1 / 6)], abs=1e-12)
    # Code: |cos b1| + |cos b2| * ||b2'||: for e3 exactly 1, for e2 1/sqrt2 + 1/2 > 1.
    assert code == pytest.approx([1.0, 0.0, 1 / math.sqrt(2) + 0.5], abs=1e-12)
    assert code[2] > 1.0 >= paper.max()


def test_two_groups_multi_rules_agree():
    w = rng_vectors(20)
    A, B = rng_vectors(5, seed=1), rng_vectors(6, seed=2)
    assert same(w, [A, B], convention=SAME_PAPER).effect_size == pytest.approx(
        same(w, [A, B], convention=SAME_CODE).effect_size)
    assert same(w, [A, B]).word_scores == pytest.approx(np.abs(same_signed_word(w, A, B)))


def test_stereotype_eq45_is_np_std_over_sqrt_w():
    W = at(10, 80, 30, 60, 45)
    b = same_signed_word(W, X_AXIS, Y_AXIS)
    assert stereotype(W, X_AXIS, Y_AXIS, convention=SAME_CODE).effect_size == pytest.approx(
        np.std(b))
    assert stereotype(W, X_AXIS, Y_AXIS, convention=SAME_PAPER).effect_size == pytest.approx(
        math.sqrt(((b - b.mean()) ** 2).sum()) / 5)
    paper = stereotype(W, X_AXIS, Y_AXIS, convention=SAME_PAPER).effect_size
    assert paper == pytest.approx(np.std(b) / math.sqrt(5))


def test_eq45_maximum_shrinks_with_the_number_of_words():
    # Half the words at +1, half at -1: np.std = 1 at any size, eq. 45 = 1/sqrt(|W|).
    for n in (2, 10, 258):
        W = np.array([[1.0, 0.0]] * (n // 2) + [[0.0, 1.0]] * (n // 2))
        A, B = [[1.0, 0.0]], [[0.0, 1.0]]
        g = np.array([1.0, -1.0]) / math.sqrt(2)
        W = np.array([g] * (n // 2) + [-g] * (n // 2))
        assert stereotype(W, A, B, convention=SAME_CODE).effect_size == pytest.approx(1.0)
        assert stereotype(W, A, B, convention=SAME_PAPER).effect_size == pytest.approx(
            1 / math.sqrt(n))


def test_mac_by_hand_per_set_vs_flat():
    sets = [[[1.0, 0.0]], [[0.0, 1.0], [0.0, 2.0], [0.0, 3.0]]]
    assert mac_word([[1.0, 0.0]], sets, "per_set")[0] == pytest.approx(0.5)
    assert mac_word([[1.0, 0.0]], sets, "flat")[0] == pytest.approx(0.75)
    equal = [[[1.0, 0.0], [1.0, 1.0]], [[0.0, 1.0], [-1.0, 1.0]]]
    w = rng_vectors(4, 2)
    assert mac(w, equal, mean="per_set").effect_size == pytest.approx(
        mac(w, equal, mean="flat").effect_size)
    with pytest.raises(ValueError, match="per_set"):
        mac_word(w, equal, "mean")


def test_direct_bias_pca_by_hand():
    # Pairs (a_i, c_i) symmetric about 0; spread along y dominates.
    a = [[-1.0, 2.0], [-1.0, -2.0]]
    c = [[1.0, -2.0], [1.0, 2.0]]
    space = direct_bias_space([a, c], unit_attributes=False)
    assert abs(space.basis[0] @ [0.0, 1.0]) == pytest.approx(1.0)
    assert space.explained_variance_ratio[0] == pytest.approx(16 / 20)
    words = at(0, 30, 90)
    assert direct_bias(words, [a, c], unit_attributes=False).word_scores == pytest.approx(
        [0.0, 0.5, 1.0], abs=1e-12)
    assert direct_bias(words, [a, c], unit_attributes=False, c=2.0).word_scores == pytest.approx(
        [0.0, 0.25, 1.0], abs=1e-12)


def test_direct_bias_k2_norm_and_sum():
    A = rng_vectors(6, 5, seed=3)
    B = rng_vectors(6, 5, seed=4)
    w = rng_vectors(10, 5, seed=5)
    norm = direct_bias(w, [A, B], k=2, subspace="norm").word_scores
    total = direct_bias(w, [A, B], k=2, subspace="sum").word_scores
    assert (total >= norm - 1e-12).all() and (norm <= 1 + 1e-12).all()
    space = direct_bias_space([A, B], 2)
    u = w / np.linalg.norm(w, axis=1, keepdims=True)
    assert norm == pytest.approx(np.linalg.norm(u @ space.basis.T, axis=1))
    # k = 1: both rules are |cos(w, g)|.
    assert direct_bias(w, [A, B], subspace="sum").effect_size == pytest.approx(
        direct_bias(w, [A, B]).effect_size)


def test_weat_d_is_the_weat_effect_size():
    X, Y = at(10, 20, 30), at(60, 70, 85)
    s_x, s_y = weat_word(X, X_AXIS, Y_AXIS), weat_word(Y, X_AXIS, Y_AXIS)
    assert weat_d(X, Y, X_AXIS, Y_AXIS).effect_size == pytest.approx(effect_size(s_x, s_y))
    assert weat_d(X, Y, X_AXIS, Y_AXIS, ddof=0).effect_size == pytest.approx(
        effect_size(s_x, s_y, ddof=0))


def test_results_are_frozen_and_flatten():
    r = same(at(10, 20), [X_AXIS, Y_AXIS])
    with pytest.raises(AttributeError):
        r.effect_size = 0.0  # type: ignore[misc]
    row = r.to_frame().iloc[0]
    assert row["method"] == "SAME" and row["option_convention"] == "same-paper"
    assert row["effect_size"] == r.effect_size


# --------------------------------------------------------------------------- properties


def test_sign_flips_when_attribute_sets_swap():
    w = rng_vectors(15)
    A, B = rng_vectors(4, seed=1), rng_vectors(4, seed=2)
    assert same_signed_word(w, A, B) == pytest.approx(-same_signed_word(w, B, A))
    assert weat_word(w, A, B) == pytest.approx(-weat_word(w, B, A))
    assert skew(w, A, B).effect_size == pytest.approx(-skew(w, B, A).effect_size)
    for unsigned in (lambda a, b: same(w, [a, b]).effect_size,
                     lambda a, b: stereotype(w, a, b).effect_size,
                     lambda a, b: mac(w, [a, b]).effect_size,
                     lambda a, b: direct_bias(w, [a, b]).effect_size):
        assert unsigned(A, B) == pytest.approx(unsigned(B, A))


def test_sign_conventions_of_the_code():
    w = at(20, 70)
    # Paper / code since Oct 2022: positive towards the first set.
    assert same_signed_word(w, X_AXIS, Y_AXIS, "first")[0] > 0
    assert skew(w[:1], X_AXIS, Y_AXIS, convention=SAME_PAPER).effect_size > 0
    assert skew(w[:1], X_AXIS, Y_AXIS, convention=SAME_CODE).effect_size > 0
    # Before Oct 2022: cos(w, mean(A_1) - mean(A_0)), positive towards the second set.
    before = skew(w[:1], X_AXIS, Y_AXIS, convention=SAME_CODE_PRE_2022_10).effect_size
    assert before == pytest.approx(-skew(w[:1], X_AXIS, Y_AXIS, convention=SAME_PAPER).effect_size)


def test_scores_ignore_vector_length():
    w = rng_vectors(12)
    A, B = rng_vectors(3, seed=1), rng_vectors(3, seed=2)
    scale = np.linspace(0.01, 100, 12)[:, None]
    for f in (lambda t, a: same_signed_word(t, a, B), lambda t, a: mac_word(t, [a, B]),
              lambda t, a: direct_bias(t, [a, B]).word_scores):
        assert f(w * scale, A * 7.0) == pytest.approx(f(w, A))


def test_weat_same_identity():
    w = rng_vectors(50, seed=9)
    A, B = rng_vectors(7, seed=10), rng_vectors(4, seed=11)
    assert weat_same_identity(w, A, B) < 1e-14
    means = attribute_means([A, B])
    ratio = weat_word(w, A, B) / same_signed_word(w, A, B)
    assert ratio == pytest.approx(np.full(50, np.linalg.norm(means[0] - means[1])))
    # Hence the same R² with anything.
    target = np.random.default_rng(0).normal(size=50)
    assert r_squared(weat_word(w, A, B), target) == pytest.approx(
        r_squared(same_signed_word(w, A, B), target))


def test_lemma1_and_the_weat_bound():
    assert lemma1_bound(2, 4) == 2.0
    assert weat_d_bound(2, 2) == pytest.approx(math.sqrt(3))
    assert weat_d_bound(2, 2, ddof=0) == pytest.approx(2.0)
    assert weat_d_bound(25, 25) == pytest.approx(2 * math.sqrt(49 / 50))
    assert weat_d_bound(3, 5, ddof=0) == pytest.approx(8 / math.sqrt(15))
    for n_x, n_y in ((2, 2), (3, 5), (10, 10)):
        for ddof in (0, 1):
            hi, lo = extremal_scores(n_x, n_y, 0.3, -0.1)
            assert effect_size(hi, lo, ddof=ddof) == pytest.approx(weat_d_bound(n_x, n_y, ddof))
    # No sample of scores beats the bound (brute force over random scores).
    rng = np.random.default_rng(0)
    for _ in range(2000):
        s = rng.normal(size=4)
        assert abs(effect_size(s[:2], s[2:])) <= weat_d_bound(2, 2) + 1e-12
    # §3.1: the published 1.7299 sits just below the 2 + 2-word bound sqrt(3) = 1.7321.
    published = load_published("same_numbers")
    d31 = published.loc[published["quantity"].str.startswith("d(X, Y, A, B)"), "value"].item()
    assert d31 < weat_d_bound(2, 2) and weat_d_bound(2, 2) - d31 < 0.003
    assert d31 > weat_d_bound(2, 2, ddof=0) - 0.3  # ddof=0 would allow up to 2


def test_comparability_ranges():
    A, B = rng_vectors(4, seed=1), rng_vectors(4, seed=2)
    C, D = rng_vectors(2, seed=3), rng_vectors(2, seed=4)
    for score in ("SAME", "Direct Bias", "SAME multi (paper)"):
        r1, r2 = attainable_range(score, [A, B]), attainable_range(score, [C, D])
        assert (r1["theory_min"], r1["theory_max"]) == (r2["theory_min"], r2["theory_max"])
        for r in (r1, r2):
            assert r["attained_max"] == pytest.approx(r["theory_max"])
            assert r["attained_min"] == pytest.approx(r["theory_min"], abs=1e-12)
    for score in ("WEAT", "MAC"):
        r1, r2 = attainable_range(score, [A, B]), attainable_range(score, [C, D])
        assert r1["depends_on_attributes"] and r1["theory_max"] != pytest.approx(r2["theory_max"])
        assert r1["attained_max"] == pytest.approx(r1["theory_max"])
    # The code's multi-attribute SAME exceeds 1, by an amount set by the attribute sets.
    three = [A, B, C]
    code = attainable_range("SAME multi (code)", three)
    space = same_space(three)
    assert code["theory_max"] == pytest.approx(math.sqrt(1 + space.raw_norms[1] ** 2))
    assert code["attained_max"] == pytest.approx(code["theory_max"]) and code["theory_max"] > 1


def test_weat_zero_counterexample():
    A, B = rng_vectors(3, seed=1), rng_vectors(3, seed=2)
    ex = weat_zero_counterexample(A, B, alpha=1.0)
    assert ex.reported == pytest.approx(0.0, abs=1e-12)
    assert ex.truly_biased and min(abs(b) for b in ex.word_bias) == pytest.approx(1 / math.sqrt(2))
    assert same(ex.vectors, [A, B]).effect_size == pytest.approx(1 / math.sqrt(2))


def test_direct_bias_counterexample_theorem_12():
    neutral, biased = direct_bias_counterexample(x=1.0, r=2.0)
    assert neutral.reported == pytest.approx(1.0) and not neutral.truly_biased
    assert biased.reported == pytest.approx(0.0, abs=1e-12) and biased.truly_biased
    assert abs(biased.word_bias[0]) == pytest.approx(1.0)  # SAME: maximal
    with pytest.raises(ValueError, match="r > 1"):
        direct_bias_counterexample(r=0.5)


@pytest.mark.parametrize("alpha", [0.1, 0.7, 1.2, 2.5])
def test_mac_counterexample_theorem_8(alpha):
    ex = mac_counterexample(math.pi, alpha)
    assert ex.reported == pytest.approx(1.0) and ex.truly_biased
    theta = 2.0
    fair = mac_counterexample(theta, theta / 2)
    assert not fair.truly_biased
    assert fair.reported == pytest.approx(1 - math.cos(theta / 2))


def test_figure2_word_scores_by_hand():
    # Figure 2: s(w, A, B) = mean cos(w, a) - mean cos(w, b), A = male, B = female terms.
    female, male = ("she", "her"), ("he", "his")
    plane = {"footballer": [2.0, 1.0], "bishop": [3.0, 1.0], "lawmaker": [1.0, 0.0],
             "hairdresser": [1.0, 3.0], "sociologist": [1.0, 1.0], "nurse": [0.0, 2.0],
             "she": [0.0, 1.0], "her": [1.0, 2.0], "he": [1.0, 0.0], "his": [2.0, 1.0]}
    lookup = {w: np.asarray(v) for w, v in plane.items()}
    table = figure2_word_scores(lookup, "toy", female, male)
    assert list(table["word"]) == ["footballer", "bishop", "lawmaker",
                                   "hairdresser", "sociologist", "nurse"]
    assert list(table["stereotype"]) == ["male"] * 3 + ["female"] * 3
    assert list(table["sets"]) == ["X, X'", "X", "X'", "Y, Y'", "Y", "Y'"]
    assert set(table["model"]) == {"toy"}
    # bishop (3, 1) by hand: cos to he = 3/sqrt(10), to his = 7/sqrt(50);
    # to she = 1/sqrt(10), to her = 5/sqrt(50).
    by_hand = ((3 / math.sqrt(10) + 7 / math.sqrt(50)) / 2
               - (1 / math.sqrt(10) + 5 / math.sqrt(50)) / 2)
    scores = table.set_index("word")["s(w, A, B)"]
    assert scores["bishop"] == pytest.approx(by_hand, abs=1e-12)
    assert scores["sociologist"] == pytest.approx(0.0, abs=1e-12)  # symmetric to both sides
    assert scores["lawmaker"] > 0 > scores["nurse"]


def test_skew_and_stereotype_are_not_trustworthy():
    # §4.4.3 (Theorems 15-16) against Table 4, which marks both trustworthy.
    A, B = rng_vectors(3, seed=1), rng_vectors(3, seed=2)
    sets = skew_stereotype_sets(A, B)
    skewed, stereotyped = sets["skewed"], sets["stereotyped"]
    assert np.abs(same_signed_word(skewed, A, B)).min() > 0.1
    assert np.abs(same_signed_word(stereotyped, A, B)).min() > 0.1
    assert stereotype(skewed, A, B).effect_size == pytest.approx(0.0, abs=1e-12)
    assert skew(stereotyped, A, B).effect_size == pytest.approx(0.0, abs=1e-12)
    assert skew(skewed, A, B).effect_size > 0.1 and stereotype(stereotyped, A, B).effect_size > 0.1
    assert same(skewed, [A, B]).effect_size > 0.1 and same(stereotyped, [A, B]).effect_size > 0.1
    with pytest.raises(DegenerateTestError):
        weat_d(skewed[:1], skewed[1:], A, B)  # d is 0/0: the paper reads it as 0


def test_orthogonal_unit():
    d = rng_vectors(3, 6)
    u = orthogonal_unit(d, seed=4)
    assert np.abs(d @ u).max() < 1e-12 and np.linalg.norm(u) == pytest.approx(1)
    with pytest.raises(ValueError, match="whole space"):
        orthogonal_unit(np.eye(2))


@needs_glove
def test_property_matrix_on_glove_against_table_4():
    from biasbook.same import glove_vectors

    female, male = gender_words()
    F, M = glove_vectors(female), glove_vectors(male)
    matrix = property_matrix([F, M], [glove_vectors(["she"]), glove_vectors(["he"])],
                             glove_vectors(occupations()))
    pub = load_published("same_properties")
    pub["row"] = np.where(pub["level"] == "word", pub["score"] + " (word)", pub["score"])
    pub = pub.set_index("row")
    disagree = []
    for row in matrix.index:
        for col in ("comparable", "trustworthy", "skew", "stereotype"):
            paper = str(pub.loc[row, col]) if pd.notna(pub.loc[row, col]) else "–"
            ours = matrix.loc[row, col]
            if paper.strip("()") != ours.split(" ")[0]:
                disagree.append((row, col, paper, ours))
    # Exactly the two cells where Table 4 contradicts §4.4.3.
    assert disagree == [("SAME stereotype", "trustworthy", "yes", "no"),
                        ("SAME skew", "trustworthy", "yes", "no")]


@needs_glove
def test_glove_identity_and_ranges_on_occupations():
    from biasbook.same import glove_vectors

    female, male = gender_words()
    F, M, W = glove_vectors(female), glove_vectors(male), glove_vectors(occupations())
    assert weat_same_identity(W, M, F) < 1e-14
    b = same_signed_word(W, M, F)
    assert np.abs(b).max() < 1 and len(b) == 258


# --------------------------------------------------------------------------- options and errors


def test_conventions():
    assert SameConvention.of("same-code") is SAME_CODE
    with pytest.raises(UnknownNameError, match="same-paper"):
        SameConvention.of("same")
    with pytest.raises(ValueError, match="stereotype"):
        SameConvention("x", stereotype="var")  # type: ignore[arg-type]
    assert SAME_PAPER.replace(stereotype="std").name == "same-paper*"
    assert (SAME_CODE_PRE_2022_10.multi, SAME_CODE_PRE_2022_10.sign) == ("code-sum", "second")


def test_dependent_direction_is_left_out_visibly():
    with pytest.warns(DroppedStimuliWarning, match=r"attribute sets \[2\]"):
        result = same([[1.0, 1.0]], [X_AXIS, Y_AXIS, [[1.0, 0.0], [0.0, 1.0]]])
    assert result.notes == ("attribute set 2 left out (linearly dependent direction)",)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same([[1.0, 1.0, 0.0]], [[[1.0, 0, 0]], [[0, 1.0, 0]], [[0, 0, 1.0]]])


def test_zero_direction_raises():
    with pytest.raises(DegenerateTestError, match="same mean"):
        same([[1.0, 1.0]], [X_AXIS, [[2.0, 0.0]]])
    with pytest.raises(DegenerateTestError, match="same mean"):
        same_signed_word([[1.0, 1.0]], X_AXIS, [[3.0, 0.0]])


@pytest.mark.parametrize(("call", "match"), [
    (lambda: same([[1.0, 0.0]], [X_AXIS]), "at least 2"),
    (lambda: same([[1.0, 0.0]], [X_AXIS, np.empty((0, 2))]), "empty"),
    (lambda: same([[np.nan, 0.0]], [X_AXIS, Y_AXIS]), "NaN"),
    (lambda: same([[0.0, 0.0]], [X_AXIS, Y_AXIS]), "zero vector"),
    (lambda: same([[1.0, 0.0, 0.0]], [X_AXIS, Y_AXIS]), "dimension"),
    (lambda: same([[1.0, 0.0]], np.eye(2)), "list of"),
    (lambda: direct_bias([[1.0, 0.0]], [X_AXIS, [[0.0, 1.0], [1.0, 1.0]]]), "paired"),
    (lambda: direct_bias([[1.0, 0.0]], [X_AXIS, Y_AXIS], k=2), "rank"),
    (lambda: direct_bias([[1.0, 0.0]], [X_AXIS, Y_AXIS], k=0), "positive"),
    (lambda: direct_bias([[1.0, 0.0]], [X_AXIS, Y_AXIS], c=-1.0), "c must"),
    (lambda: direct_bias([[1.0, 0.0]], [X_AXIS, Y_AXIS], subspace="max"), "subspace"),
    (lambda: same_signed_word([[1.0, 0.0]], X_AXIS, Y_AXIS, "left"), "sign"),
    (lambda: weat_d_bound(0, 2), "at least one"),
    (lambda: lemma1_bound(5, 4), "m <= n"),
])
def test_bad_input_raises(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_min_explained_variance_guard():
    A = rng_vectors(5, 6, seed=1)
    B = rng_vectors(5, 6, seed=2)
    ratio = direct_bias_space([A, B]).explained_variance_ratio[0]
    with pytest.raises(ValueError, match="explain"):
        direct_bias([[1.0] * 6], [A, B], min_explained_variance=ratio + 0.01)
    direct_bias([[1.0] * 6], [A, B], min_explained_variance=ratio - 0.01)


def test_identical_defining_sets_raise():
    with pytest.raises(DegenerateTestError, match="no variance"):
        direct_bias_space([X_AXIS, X_AXIS])


def test_pairwise_skew_stereotype():
    w = rng_vectors(10)
    sets = [rng_vectors(3, seed=s) for s in (1, 2, 3)]
    table = pairwise_skew_stereotype(w, sets, ["a", "b", "c"])
    assert list(zip(table["first"], table["second"], strict=True)) == [
        ("a", "b"), ("a", "c"), ("b", "c")]
    assert table.loc[0, "skew"] == pytest.approx(skew(w, sets[0], sets[1]).effect_size)
    with pytest.raises(ValueError, match="names"):
        pairwise_skew_stereotype(w, sets, ["a"])


# --------------------------------------------------------------------------- experiment data


def test_fill_template():
    assert fill_template("[MASK] is a OCCUPATION", "architect") == "[MASK] is an architect"
    assert fill_template("[MASK] is a OCCUPATION", "nurse") == "[MASK] is a nurse"
    assert fill_template("the OCCUPATION is very skilled. [MASK] has a lot of experience",
                         "baker") == "the baker is very skilled. [MASK] has a lot of experience"
    assert fill_template("[MASK] is one of the OCCUPATIONs", "cab driver", "<m>") == (
        "<m> is one of the cab drivers")


def test_training_sentences_follow_table_6():
    occs = list(occupations())
    probs = predefined_bias(len(occs), 0.5, 0.3, 1234)
    data = training_sentences(occs, probs, seed=0)
    assert len(data) == 258 * 35 and data["template"].nunique() == 35
    assert (data["split"] == "validation").sum() == round(0.3 * len(data))
    assert set(data["pronoun"]) == {"he", "she", "his", "her"}
    assert (data["masked"].str.count(r"\[MASK\]") == 1).all()
    # Seeded: the same seed gives the same pronouns and split; another seed others.
    again = training_sentences(occs, probs, seed=0)
    pd.testing.assert_frame_equal(data, again)
    assert not training_sentences(occs, probs, seed=1)["male"].equals(data["male"])
    # Pronouns follow the probabilities: share of male pronouns correlates with p.
    share = data.groupby("occupation", sort=False)["male"].mean().to_numpy()
    assert r_squared(share, probs) > 0.7


def test_predefined_bias_and_test_sentences():
    p = predefined_bias(1000, 0.7, 0.35, 1)
    assert p.min() >= 0 and p.max() <= 1 and abs(np.median(p) - 0.7) < 0.05
    assert (p == predefined_bias(1000, 0.7, 0.35, 1)).all()
    with pytest.raises(ValueError, match="mu"):
        predefined_bias(5, 1.5, 0.1, 0)
    tests = test_sentences(["nurse", "engineer"])
    assert len(tests) == 40 and set(tests["male"]) == {"he", "his"}


def test_stereotype_groups_and_ratings():
    ratings = occupation_ratings()
    assert len(ratings) == 258 and ratings["stereotype"].isna().sum() == 1
    assert ratings.set_index("occupation").loc["nurse", "stereotype"] == -0.9
    X, Y = stereotype_groups()
    assert len(X) == len(Y) == 50 and not set(X) & set(Y)
    rated = ratings.set_index("occupation")["stereotype"]
    assert rated[list(X)].min() >= rated[list(Y)].max()
    assert "flight attendant" not in X + Y


def test_gender_words_are_paired():
    female, male = gender_words()
    assert len(female) == len(male) == 9
    assert (female[2], male[2]) == ("she", "he") and (female[6], male[6]) == ("her", "his")


def test_grid_and_settings():
    grid = injection_grid()
    trained = [s for s in grid if (s.lr, s.epochs) == (INJECTION["lr"], INJECTION["epochs"])]
    assert len(trained) == len(INJECTION["distributions"]) * len(INJECTION["data_seeds"])
    assert len({s.group for s in trained}) == len(INJECTION["distributions"])
    assert grid[-1].lr == 5e-5 and grid[-1].epochs == 5
    assert InjectionSettings(0.5, 0.3).model_id == "mu0.50-sd0.30-s0"
    assert "lr5e-05-e5" in grid[-1].model_id


def test_r_squared():
    assert r_squared([1, 2, 3, 4], [2, 4, 6, 8]) == pytest.approx(1.0)
    assert r_squared([1, 2, 3, 4], [-1, -2, -3, -4]) == pytest.approx(1.0)
    with pytest.raises(DegenerateTestError):
        r_squared([1, 1, 1], [1, 2, 3])
    with pytest.raises(ValueError, match="non-finite"):
        r_squared([1, np.nan, 3], [1, 2, 3])


# ------------------------------------------------------------------------------ findings


@needs_glove
def test_findings_records_and_labels():
    found = findings()
    assert found and all(isinstance(f, Finding) for f in found)
    assert {f.paper for f in found} == {"Schröder et al. (2021)"}


@needs_glove
def test_findings_against_the_stored_runs_by_hand():
    """Figure 6's word-level R² and the unmasking bar, recomputed with plain pandas."""
    by_claim = {f.claim: f for f in findings()}
    runs = pd.read_csv(Path(__file__).resolve().parents[1] / "data" / "results"
                       / "same_injection_runs.csv")
    models = pd.read_csv(Path(__file__).resolve().parents[1] / "data" / "results"
                         / "same_injection_models.csv")
    grid = runs[runs["group"].fillna("") != ""]
    kept = grid.loc[grid["unmask_r2"] >= 0.7, "model"]
    rows = models[(models["pooling"] == "all") & models["model"].isin(kept)]
    mean = {s: rows[f"R2 {s} ~ training"].mean() for s in ("SAME", "MAC", "Direct Bias")}
    word = by_claim["Word level: WEAT/SAME track the bias better than the Direct Bias, MAC worst"]
    assert (f"SAME/WEAT {mean['SAME']:.2f}, Direct Bias {mean['Direct Bias']:.2f}, "
            f"MAC {mean['MAC']:.2f}") in word.ours
    assert word.holds is bool(mean["SAME"] > mean["Direct Bias"] > mean["MAC"])
    bar = next(f for c, f in by_claim.items() if c.startswith("Fine-tuning at the pronoun"))
    for sigma, group in grid.groupby("sigma"):
        passed = int((group["unmask_r2"] >= 0.7).sum())
        assert f"σ = {sigma}: {passed} of {len(group)} runs pass" in bar.ours

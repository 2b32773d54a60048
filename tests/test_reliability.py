"""Reliability coefficients (biaslib.stats.reliability, biaslib.evaluate.reliability).

Checked against pingouin (a peer implementation of the ICC and Cronbach's alpha), against
hand computation, against brute force (loops over splits with the methods' own word
scores) and against the properties the coefficients have by construction.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from biaslib.evaluate.reliability import (
    association_reliability,
    lpbs_reliability,
    same_reliability,
)
from biaslib.methods.same import same_signed_word
from biaslib.methods.weat import association
from biaslib.stats.reliability import (
    cronbach_alpha,
    distinct_splits,
    intraclass_correlation,
    items_needed,
    random_halves,
    spearman_brown,
    spearman_brown_factor,
    split_half_from_halves,
    split_half_reliability,
    stratified_alpha,
)

pg = pytest.importorskip("pingouin", reason="pingouin (the test extra) is the peer checked")


def _ratings(seed: int = 0, n: int = 15, k: int = 4) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 1)) + 0.8 * rng.normal(size=(n, k)) + np.arange(k) * 0.4


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_icc_matches_pingouin_all_six_forms(seed: int) -> None:
    x = _ratings(seed)
    long = pd.DataFrame([(i, j, x[i, j]) for i in range(x.shape[0]) for j in range(x.shape[1])],
                        columns=["subject", "rater", "score"])
    peer = pg.intraclass_corr(long, "subject", "rater", "score").set_index("Type")
    for model, tag in (("oneway", "1"), ("agreement", "A"), ("consistency", "C")):
        for unit, size in (("single", "1"), ("average", "k")):
            ours = intraclass_correlation(x, model=model, unit=unit)
            row = peer.loc[f"ICC({tag},{size})"]
            assert ours.method == f"ICC({tag},{size})"
            assert ours.value == pytest.approx(row["ICC"], abs=1e-12)
            # pingouin rounds its interval to 2 decimals
            assert ours.ci_low == pytest.approx(row["CI95"][0], abs=0.005 + 1e-9)
            assert ours.ci_high == pytest.approx(row["CI95"][1], abs=0.005 + 1e-9)


def test_icc_by_hand_and_properties() -> None:
    # Shrout & Fleiss (1979), Table 2: 6 targets rated by 4 judges; their ICC(1,1) = .17,
    # ICC(2,1) = .29, ICC(3,1) = .71, ICC(1,4) = .44, ICC(2,4) = .62, ICC(3,4) = .91.
    x = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9],
                  [6, 2, 4, 7]], dtype=float)
    expected = {("oneway", "single"): 0.17, ("agreement", "single"): 0.29,
                ("consistency", "single"): 0.71, ("oneway", "average"): 0.44,
                ("agreement", "average"): 0.62, ("consistency", "average"): 0.91}
    for (model, unit), value in expected.items():
        assert intraclass_correlation(x, model=model, unit=unit).value == pytest.approx(
            value, abs=0.005)
    # raters that agree exactly: every form is 1
    same = np.repeat(np.arange(5.0)[:, None], 3, axis=1)
    assert intraclass_correlation(same).value == pytest.approx(1.0)
    # a constant shift of one rater leaves consistency at 1 and lowers agreement
    shifted = same + np.array([0.0, 0.0, 3.0])
    assert intraclass_correlation(shifted, model="consistency").value == pytest.approx(1.0)
    assert intraclass_correlation(shifted, model="agreement").value < 0.9


def test_cronbach_alpha_matches_pingouin_hand_and_icc() -> None:
    x = _ratings(4, n=20, k=6)
    peer, interval = pg.cronbach_alpha(pd.DataFrame(x))
    ours = cronbach_alpha(x)
    assert ours.value == pytest.approx(peer, abs=1e-12)
    assert (ours.ci_low, ours.ci_high) == pytest.approx(tuple(interval), abs=5e-4 + 1e-9)
    k = x.shape[1]
    by_hand = k / (k - 1) * (1 - sum(np.var(x[:, j], ddof=1) for j in range(k))
                             / np.var(x.sum(axis=1), ddof=1))
    assert ours.value == pytest.approx(by_hand)
    # alpha is the consistency ICC of the average rater (McGraw & Wong 1996)
    assert ours.value == pytest.approx(
        intraclass_correlation(x, model="consistency", unit="average").value)


def test_spearman_brown_by_hand_and_inverse() -> None:
    assert spearman_brown(0.5) == pytest.approx(2 / 3)
    assert spearman_brown(0.6, 3) == pytest.approx(1.8 / 2.2)
    np.testing.assert_allclose(spearman_brown([0.0, 1.0]), [0.0, 1.0])
    for rho in (0.2, 0.5, 0.9):
        for m in (0.5, 2.0, 7.0):
            assert spearman_brown_factor(float(spearman_brown(rho, m)), 0.8) == pytest.approx(
                0.8 * (1 - spearman_brown(rho, m)) / (spearman_brown(rho, m) * 0.2))
            assert spearman_brown(rho, spearman_brown_factor(rho, 0.8)) == pytest.approx(0.8)
    assert spearman_brown_factor(-0.1) == math.inf
    assert items_needed(0.5, 10) == 40  # 10 × 0.8·0.5/(0.5·0.2) = 40
    assert items_needed(-0.2, 10) == math.inf
    assert items_needed(0.99, 50) == 3  # 50 × 0.8·0.01/(0.99·0.2) = 2.02, rounded up
    assert items_needed(0.999, 50) == 2  # never fewer than one item per half
    with pytest.raises(ValueError, match="factor must be positive"):
        spearman_brown(0.5, 0)
    with pytest.raises(ValueError, match="cannot exceed 1"):
        spearman_brown(1.2)


def test_random_halves_stratified_and_seeded() -> None:
    groups = np.array([0] * 9 + [1] * 8)
    assert distinct_splits(groups) == math.comb(9, 4) * math.comb(8, 4)  # 8,820
    masks = random_halves(groups, 200, seed=3)
    assert masks.shape == (200, 17)
    assert (masks[:, :9].sum(axis=1) == 4).all() and (masks[:, 9:].sum(axis=1) == 4).all()
    np.testing.assert_array_equal(masks, random_halves(groups, 200, seed=3))
    assert not np.array_equal(masks, random_halves(groups, 200, seed=4))
    assert len({tuple(m) for m in masks}) > 150  # the splits vary


def test_random_halves_enumerates_when_there_are_few_splits() -> None:
    groups = np.array([0] * 5 + [1] * 4)  # C(5,2) × C(4,2) = 60 distinct splits
    masks = random_halves(groups, 200, seed=3)
    assert masks.shape == (60, 9) and len({tuple(m) for m in masks}) == 60
    assert (masks[:, :5].sum(axis=1) == 2).all() and (masks[:, 5:].sum(axis=1) == 2).all()
    np.testing.assert_array_equal(masks, random_halves(groups, 200, seed=99))  # no draw
    two = random_halves([0, 0], 1000)  # two templates: one split, both ways
    assert two.shape == (2, 2)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(10, 1)) + rng.normal(size=(10, 4))
    result = split_half_reliability(x, n_splits=1000)
    assert result.exhaustive and result.n_splits == 6 and result.splits_text() == "all 6 splits"
    assert not split_half_reliability(x, n_splits=3).exhaustive
    with pytest.raises(ValueError, match="at least 2 items in every group"):
        random_halves([0, 0, 1], 5)


def test_split_half_equals_a_loop_over_the_splits() -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(size=(12, 1)) + rng.normal(size=(12, 10))
    groups = np.array([0] * 6 + [1] * 4)
    ours = split_half_reliability(x, groups=groups, signs=(1.0, -1.0), n_splits=50, seed=9)
    masks = random_halves(groups, 50, seed=9)
    corrected = []
    for mask in masks:
        def score(m: np.ndarray) -> np.ndarray:
            return (x[:, m & (groups == 0)].mean(axis=1) - x[:, m & (groups == 1)].mean(axis=1))
        r = stats.pearsonr(score(mask), score(~mask)).statistic
        corrected.append(max(2 * r / (1 + r), -1.0))
    assert ours.value == pytest.approx(np.mean(corrected))
    assert ours.n_splits == 50 and ours.n_items == 10 and ours.n_subjects == 12
    assert ours.ci_low < ours.value < ours.ci_high
    assert ours.split_low <= ours.value <= ours.split_high


def test_split_half_extremes() -> None:
    rng = np.random.default_rng(6)
    true = rng.normal(size=(30, 1))
    consistent = split_half_reliability(true + 0.01 * rng.normal(size=(30, 20)))
    noise = split_half_reliability(rng.normal(size=(30, 20)), n_splits=400)
    assert consistent.value > 0.99
    assert abs(noise.value) < 0.3 and noise.ci_low < 0 < noise.ci_high


def test_stratified_alpha_by_hand_and_one_group() -> None:
    x = _ratings(7, n=25, k=8)
    one = stratified_alpha(x, np.zeros(8, int))
    assert one.value == pytest.approx(cronbach_alpha(x).value)
    groups = np.array([0] * 5 + [1] * 3)
    ours = stratified_alpha(x, groups, (1.0, -1.0), n_resamples=300)
    parts = [x[:, :5].mean(axis=1), -x[:, 5:].mean(axis=1)]
    alphas = [cronbach_alpha(x[:, :5]).value, cronbach_alpha(x[:, 5:]).value]
    by_hand = 1 - sum(np.var(p, ddof=1) * (1 - a) for p, a in zip(parts, alphas, strict=True)
                      ) / np.var(parts[0] + parts[1], ddof=1)
    assert ours.value == pytest.approx(by_hand)
    assert ours.ci_low < ours.value < ours.ci_high


@pytest.mark.parametrize("bad, match", [
    (np.ones((5, 3)), "do not vary"),
    (np.array([[1.0, np.nan], [2.0, 3.0], [1.0, 1.0]]), "NaN"),
    (np.arange(6.0), "2-D"),
    (np.ones((1, 4)), "at least 2 subjects"),
])
def test_bad_input_is_refused_clearly(bad: np.ndarray, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        intraclass_correlation(bad)
    with pytest.raises(ValueError, match=match):
        cronbach_alpha(bad)


def test_split_half_is_floored_at_minus_one() -> None:
    # halves that disagree: r = -0.6 would step up to -3; the floor keeps -1
    first = np.array([[1.0, 2.0, 3.0, 4.0, 5.0]])
    second = -first + np.array([[0.0, 3.0, -3.0, 3.0, 0.0]])
    r = stats.pearsonr(first[0], second[0]).statistic
    assert 2 * r / (1 + r) < -1
    result = split_half_from_halves(first, second)
    assert result.value == -1.0 and result.ci_low >= -1.0
    assert result.uncorrected == pytest.approx(r)


def test_split_half_needs_four_subjects_and_varying_halves() -> None:
    with pytest.raises(ValueError, match="at least 4 subjects"):
        split_half_from_halves(np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="do not vary"):
        split_half_from_halves(np.ones((1, 5)), np.arange(5.0)[None])


def _sets(seed: int = 8) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    axis = rng.normal(size=20)
    X = rng.normal(size=(8, 20)) + 0.5 * axis
    Y = rng.normal(size=(8, 20)) - 0.5 * axis
    A = rng.normal(size=(6, 20)) + axis
    B = rng.normal(size=(6, 20)) - axis
    return X, Y, A, B


def test_association_reliability_is_the_weat_association_on_halves() -> None:
    X, Y, A, B = _sets()
    ours = association_reliability(X, Y, A, B, n_splits=40, seed=2)
    masks = random_halves(np.r_[np.zeros(6, int), np.ones(6, int)], 40, seed=2)
    targets = np.vstack([X, Y])
    corrected = []
    for mask in masks:
        first = association(targets, A[mask[:6]], B[mask[6:]])
        second = association(targets, A[~mask[:6]], B[~mask[6:]])
        r = stats.pearsonr(first, second).statistic
        corrected.append(2 * r / (1 + r))
    assert ours.split_half.value == pytest.approx(np.mean(corrected))
    assert ours.alpha is not None and ours.alpha.method == "stratified alpha"
    assert ours.items_needed >= 2


def test_same_reliability_is_same_on_halves() -> None:
    X, Y, A, B = _sets(9)
    W = np.vstack([A, B])
    ours = same_reliability(X, Y, W, n_splits=30, seed=4)
    masks = random_halves(np.r_[np.zeros(8, int), np.ones(8, int)], 30, seed=4)
    corrected = []
    for mask in masks:
        first = np.abs(same_signed_word(W, X[mask[:8]], Y[mask[8:]]))
        second = np.abs(same_signed_word(W, X[~mask[:8]], Y[~mask[8:]]))
        r = stats.pearsonr(first, second).statistic
        corrected.append(2 * r / (1 + r))
    assert ours.split_half.value == pytest.approx(np.mean(corrected))
    assert ours.alpha is None and ours.alpha_note


def test_lpbs_reliability_over_templates() -> None:
    rng = np.random.default_rng(10)
    word_bias = rng.normal(size=10)
    scores = word_bias + 0.2 * rng.normal(size=(6, 10))
    ours = lpbs_reliability(scores[:, :5], scores[:, 5:])
    assert ours.split_half.value > 0.9 and ours.alpha is not None
    assert ours.alpha.value == pytest.approx(cronbach_alpha(scores.T).value)
    with pytest.raises(ValueError, match="same templates"):
        lpbs_reliability(scores[:4, :5], scores[:, 5:])

"""Split-half reliability of every static metric (biasbook.trust_consistency).

Checked against hand computations (a loop, np.corrcoef and Spearman–Brown's 2r/(1+r)),
brute force over the splits, the library's own reliability functions, and properties:
signal plus small noise is reliable, pure noise is not, pairs stay together, seeds repeat.
"""

from __future__ import annotations

import itertools
import logging
import math

import numpy as np
import pytest
from offline_wheels import needs_glove

from biasbook import trust_consistency as tc
from biaslib.evaluate.metrics import METRIC_SEED, FourSets, metric, run_metric
from biaslib.evaluate.reliability import association_reliability, same_reliability
from biaslib.methods.ripa import relation_vector
from biaslib.methods.rnd import rnd_word
from biaslib.stats.reliability import random_halves

WORD_LOOP = ("skew", "RIPA", "RND", "generalized WEAT", "MAC", "Direct Bias")


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def _signal_sets(name: str = "T", *, n_pairs: int = 10, n_measured: int = 20,
                 noise: float = 0.01, dim: int = 60, seed: int = 0,
                 strength: float = 1.0, shift: float = 0.0, spread: float = 1.0) -> FourSets:
    """X_i = h + g + ε, Y_i = h − g + ε; measured words c g + e h + their own noise.

    Every word score the metrics give is a fixed function of (c, e) plus what the group
    words' noise moves: with small ``noise`` both halves give the same scores. A's c lie
    ``shift`` above B's (a test-level bias), each within ±``spread``.
    """
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(dim, 2)))[0].T
    g, h = basis[0] * strength, basis[1]
    X = h + g + noise * rng.normal(size=(n_pairs, dim))
    Y = h - g + noise * rng.normal(size=(n_pairs, dim))
    c = spread * rng.uniform(-1.0, 1.0, size=2 * n_measured)
    c[:n_measured] += shift / 2
    c[n_measured:] -= shift / 2
    e = rng.uniform(0.3, 1.5, size=2 * n_measured)
    own = 0.05 * rng.normal(size=(2 * n_measured, dim))
    words = c[:, None] * basis[0] + e[:, None] * h + own
    return FourSets(name, X, Y, words[:n_measured], words[n_measured:])


def _noise_sets(name: str = "N", *, n_pairs: int = 10, n_measured: int = 20, dim: int = 300,
                seed: int = 1) -> FourSets:
    rng = np.random.default_rng(seed)
    X, Y = rng.normal(size=(2, n_pairs, dim))
    A, B = rng.normal(size=(2, n_measured, dim))
    return FourSets(name, X, Y, A, B)


def _sb(r: float) -> float:
    return max(2 * r / (1 + r), -1.0)


# ----------------------------------------------------------------------- word scores


@pytest.mark.parametrize("name", [*WORD_LOOP, "SAME"])
def test_word_scores_are_the_metrics_own(name):
    # The word scores split-half correlates are those the metric's test score is built from.
    sets = _signal_sets(noise=0.2)
    words = tc.metric_word_scores(sets, name)
    run = run_metric(name, sets)
    if metric(name).signed:  # the generalized WEAT too: its statistic is this contrast
        assert words[: sets.n_a].mean() - words[sets.n_a:].mean() == pytest.approx(run.score)
    else:
        assert words.mean() == pytest.approx(run.score)
    if name != "generalized WEAT":  # its result's word_scores are the two groups' terms
        np.testing.assert_allclose(words, run.result.word_scores)


def test_gweat_contrast_holds_for_unequal_sets():
    rng = np.random.default_rng(3)
    sets = FourSets("u", *rng.normal(size=(2, 5, 8)), rng.normal(size=(3, 8)),
                    rng.normal(size=(7, 8)))
    words = tc.metric_word_scores(sets, "generalized WEAT")
    assert words[:3].mean() - words[3:].mean() == pytest.approx(
        run_metric("generalized WEAT", sets).score)


@pytest.mark.parametrize("name", [*WORD_LOOP, "SAME"])
def test_signal_with_small_noise_is_reliable(name):
    half = tc.metric_split_half(_signal_sets(), name, n_splits=100)
    assert half.value > 0.95
    assert half.n_subjects == 40 and half.n_items == 20


@pytest.mark.parametrize("name", [*WORD_LOOP, "SAME"])
def test_pure_noise_is_not_reliable(name):
    # One data set's mean r over splits still varies (SD about 0.12 for the skew: its
    # halves' directions happen to agree or not); over 12 data sets it is near 0. The
    # Spearman–Brown corrected mean is pulled below 0 (2r/(1+r) is concave).
    halves = [tc.metric_split_half(_noise_sets(seed=s), name, n_splits=30) for s in range(12)]
    assert abs(np.mean([h.uncorrected for h in halves])) < 0.1
    assert np.mean([h.value for h in halves]) < 0.1
    assert np.mean([h.ci_low < 0 < h.ci_high for h in halves]) >= 0.75


def test_reliability_falls_with_the_noise():
    values = [tc.metric_split_half(_signal_sets(noise=s), "RIPA", n_splits=70).value
              for s in (0.01, 0.2, 1.0)]
    assert values[0] > values[1] > values[2]


@pytest.mark.parametrize("name", ["RND", "skew", "MAC"])
def test_one_split_by_hand(name):
    sets = _signal_sets(noise=0.5, n_pairs=7)
    groups = np.r_[np.zeros(7, int), np.ones(7, int)]
    masks = random_halves(groups, 5, seed=42)
    score = {"RND": lambda w, x, y: rnd_word(w, x, y),
             "skew": lambda w, x, y: tc.metric_word_scores(FourSets("s", x, y, w[:1], w[1:]),
                                                           "skew"),
             "MAC": lambda w, x, y: tc.metric_word_scores(FourSets("s", x, y, w[:1], w[1:]),
                                                          "MAC")}[name]
    corrected, raw = [], []
    for mask in masks:
        mx, my = mask[:7], mask[7:]
        h1 = score(sets.measured, sets.X[mx], sets.Y[my])
        h2 = score(sets.measured, sets.X[~mx], sets.Y[~my])
        r = np.corrcoef(h1, h2)[0, 1]
        raw.append(r)
        corrected.append(_sb(r))
    half = tc.metric_split_half(sets, name, n_splits=5, seed=42)
    assert half.value == pytest.approx(np.mean(corrected))
    assert half.uncorrected == pytest.approx(np.mean(raw))
    assert half.n_splits == 5 and not half.exhaustive
    assert half.split_sd == pytest.approx(np.std(corrected, ddof=1))


def test_ripa_splits_the_pairs_exhaustively_by_hand():
    # 6 pairs: C(6, 3) = 20 distinct splits, all of them when 20 or more are asked for.
    sets = _signal_sets(noise=0.5, n_pairs=6)
    corrected = []
    for mask in random_halves(np.zeros(6, int), 1000, seed=7):
        b1 = relation_vector(sets.X[mask], sets.Y[mask])
        b2 = relation_vector(sets.X[~mask], sets.Y[~mask])
        corrected.append(_sb(np.corrcoef(sets.measured @ b1, sets.measured @ b2)[0, 1]))
    half = tc.metric_split_half(sets, "RIPA", n_splits=1000, seed=7)
    assert half.n_splits == 20 and half.exhaustive
    assert half.value == pytest.approx(np.mean(corrected))


def test_paired_metrics_keep_pairs_together(monkeypatch):
    # X[i] − Y[i] is the same vector u for every true pair: any split that kept pairs
    # together gives halves whose X − Y rows are all u.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(8, 12))
    u = rng.normal(size=12)
    sets = FourSets("p", X, X - u, rng.normal(size=(6, 12)), rng.normal(size=(6, 12)))
    seen = []

    def spy(w, x, y):
        seen.append(x - y)
        return w @ relation_vector(x, y)

    monkeypatch.setitem(tc._WORD_SCORES, "RIPA", spy)
    tc.metric_split_half(sets, "RIPA", n_splits=30)
    assert len(seen) == 2 * 30 and all(np.allclose(d, u) for d in seen)
    assert {len(d) for d in seen} == {4}

    halves = []
    real = tc.run_metric

    def record(m, s, *args, **kwargs):
        halves.append((metric(m).name, s))
        return real(m, s, *args, **kwargs)

    monkeypatch.setattr(tc, "run_metric", record)
    many = [FourSets(f"p{i}", X, X - u, rng.normal(size=(6, 12)), rng.normal(size=(6, 12)))
            for i in range(4)]
    tc._across(many, [metric("RIPA"), metric("RND")], {"RIPA": 5, "RND": 5}, 1)
    ripa = [s for name, s in halves if name == "RIPA"]
    rnd = [s for name, s in halves if name == "RND"]
    assert len(ripa) == len(rnd) == 4 * 5 * 2
    assert all(s.paired and np.allclose(s.X - s.Y, u) for s in ripa)
    assert not any(s.paired for s in rnd)
    assert not all(np.allclose(s.X - s.Y, u) for s in rnd)  # unpaired sets split apart


def test_weat_d_and_same_are_the_librarys():
    sets = _signal_sets(noise=0.3)
    weat = tc.metric_split_half(sets, "WEAT d", n_splits=50)
    assert weat == association_reliability(sets.X, sets.Y, sets.A, sets.B,
                                           n_splits=50).split_half
    same = tc.metric_split_half(sets, "SAME", n_splits=50)
    assert same == same_reliability(sets.X, sets.Y, sets.measured, n_splits=50).split_half
    # ... and SAME's library split-half is the generic loop's over |skew word score|
    corrected = []
    groups = np.r_[np.zeros(10, int), np.ones(10, int)]
    for mask in random_halves(groups, 50, seed=tc.RELIABILITY_SEED):
        mx, my = mask[:10], mask[10:]
        h = [np.abs(tc.metric_word_scores(FourSets("s", x, y, sets.A, sets.B), "skew"))
             for x, y in ((sets.X[mx], sets.Y[my]), (sets.X[~mx], sets.Y[~my]))]
        corrected.append(_sb(np.corrcoef(*h)[0, 1]))
    assert same.value == pytest.approx(np.mean(corrected))


@pytest.mark.parametrize("name", ["ECT", "RNSB", "Indirect Bias", "G&G cluster",
                                  "G&G classification", "G&G neighbours"])
def test_metrics_without_word_scores_give_none(name):
    sets = _signal_sets()
    assert tc.metric_split_half(sets, name) is None
    assert tc.metric_word_scores(sets, name) is None


def test_word_level_is_seeded():
    sets = _signal_sets(noise=0.5)
    first = tc.metric_split_half(sets, "RND", n_splits=40, seed=3)
    assert first == tc.metric_split_half(sets, "RND", n_splits=40, seed=3)
    assert first.value != tc.metric_split_half(sets, "RND", n_splits=40, seed=4).value


def test_paired_metric_on_unpaired_sets_is_refused():
    rng = np.random.default_rng(0)
    sets = FourSets("u", rng.normal(size=(4, 6)), rng.normal(size=(5, 6)),
                    rng.normal(size=(3, 6)), rng.normal(size=(3, 6)), paired=False)
    with pytest.raises(ValueError, match="pairs"):
        tc.metric_split_half(sets, "RIPA")


# ----------------------------------------------------------------------- across tests


def _tests(n: int = 6) -> list[FourSets]:
    # Tests of different strength, so that the test-level scores differ between tests.
    return [_signal_sets(f"T{i}", noise=0.6, n_pairs=6, n_measured=6, dim=20, seed=10 + i,
                         strength=0.2 + 0.3 * i) for i in range(n)]


def _brute(sets_list, name, n_splits, seed):
    m = metric(name)
    values = np.zeros((2, n_splits, len(sets_list)))
    for t, sets in enumerate(sets_list):
        masks = tc.across_test_masks(sets, n_splits, seed=seed, pairs=m.needs_pairs)
        nx, ny, na = len(sets.X), len(sets.Y), len(sets.A)
        for s, mask in enumerate(masks):
            if m.needs_pairs:
                mx = my = mask[:nx]
                rest = mask[nx:]
            else:
                mx, my, rest = mask[:nx], mask[nx:nx + ny], mask[nx + ny:]
            ma, mb = rest[:na], rest[na:]
            for h, keep in enumerate((True, False)):
                half = FourSets(sets.test, sets.X[mx == keep], sets.Y[my == keep],
                                sets.A[ma == keep], sets.B[mb == keep], paired=m.needs_pairs)
                score = run_metric(m, half, seed=METRIC_SEED).score
                values[h, s, t] = score if m.signed else m.to_magnitude(score)
    r = [np.corrcoef(values[0, s], values[1, s])[0, 1] for s in range(n_splits)]
    return np.mean([_sb(x) for x in r]), np.mean(r)


@pytest.mark.parametrize("name", ["skew", "RIPA", "SAME", "MAC", "ECT"])
def test_across_tests_is_the_brute_force_loop(name):
    sets_list = _tests()
    value, raw = _brute(sets_list, name, 8, 5)
    half = tc.across_tests_split_half(sets_list, name, n_splits=8, seed=5)
    assert half.value == pytest.approx(value)
    assert half.uncorrected == pytest.approx(raw)
    assert half.n_subjects == 6 and half.n_splits == 8


def test_across_test_masks_halve_each_set():
    sets = _tests(1)[0]
    for pairs, sizes in ((False, (6, 6, 6, 6)), (True, (6, 6, 6))):
        masks = tc.across_test_masks(sets, 30, seed=2, pairs=pairs)
        assert masks.shape == (30, sum(sizes))
        edges = np.cumsum((0, *sizes))
        for lo, hi in itertools.pairwise(edges):
            assert (masks[:, lo:hi].sum(axis=1) == (hi - lo) // 2).all()
        assert len({m.tobytes() for m in masks}) > 20  # random, not one split repeated
    # A test's splits do not depend on the other tests nor on how many splits are drawn
    np.testing.assert_array_equal(tc.across_test_masks(sets, 10, seed=2),
                                  tc.across_test_masks(sets, 30, seed=2)[:10])


def test_across_tests_is_seeded_and_sliceable():
    sets_list = _tests()
    first = tc.across_tests_split_half(sets_list, "RND", n_splits=6, seed=9)
    assert first == tc.across_tests_split_half(sets_list, "RND", n_splits=6, seed=9)
    assert first != tc.across_tests_split_half(sets_list, "RND", n_splits=6, seed=10)
    both = tc._across(sets_list, [metric("RND"), metric("MAC")], {"RND": 6, "MAC": 3}, 9)
    assert both["RND"] == first
    assert both["MAC"] == tc.across_tests_split_half(sets_list, "MAC", n_splits=3, seed=9)


def test_signal_across_tests_is_reliable():
    # Tests whose A lean towards X by different amounts, each word close to its test's lean.
    sets_list = [_signal_sets(f"S{i}", noise=0.01, n_pairs=6, n_measured=6, dim=20,
                              seed=20 + i, shift=0.3 * i, spread=0.05) for i in range(6)]
    for name in ("skew", "RIPA", "RND", "SAME"):
        assert tc.across_tests_split_half(sets_list, name, n_splits=10).value > 0.9, name
    noise = [_noise_sets(f"N{i}", n_pairs=6, n_measured=6, seed=i) for i in range(8)]
    assert tc.across_tests_split_half(noise, "skew", n_splits=10).value < 0.5


def test_a_failing_test_is_left_out_and_logged(caplog):
    # G&G classification needs 5 words of each class per fold: 3 + 3 measured words per
    # half of the small tests are too few, so they drop out of every split.
    big = [_signal_sets(f"B{i}", noise=0.3, n_pairs=6, n_measured=12, dim=20, seed=30 + i,
                        strength=0.3 + 0.2 * i) for i in range(4)]
    small = _tests(2)
    with caplog.at_level(logging.INFO, logger=tc.__name__):
        half = tc.across_tests_split_half([*big, *small], "G&G classification", n_splits=3)
    assert "T0 left out of 3 of 3 splits" in caplog.text
    assert half is None or half.n_subjects == 4
    with caplog.at_level(logging.INFO, logger=tc.__name__):
        none = tc.across_tests_split_half([*big[:3], *small], "G&G classification",
                                          n_splits=2)
    assert none is None
    assert "no split left" in caplog.text


def test_fewer_than_four_tests_give_none(caplog):
    with caplog.at_level(logging.WARNING, logger=tc.__name__):
        assert tc.across_tests_split_half(_tests(3), "skew", n_splits=2) is None
    assert "fewer than 4" in caplog.text


def test_ragged_splits_use_the_fewest_tests_for_the_interval():
    rng = np.random.default_rng(0)
    first = [rng.normal(size=6), rng.normal(size=5)]
    second = [a + rng.normal(size=a.size) for a in first]
    half = tc._combine(first, second, False, "ragged")
    r = [np.corrcoef(a, b)[0, 1] for a, b in zip(first, second, strict=True)]
    assert half.value == pytest.approx(np.mean([_sb(x) for x in r]))
    assert half.n_subjects == 5 and half.n_splits == 2


# ----------------------------------------------------------------------- real vectors


@needs_glove
def test_c6_on_glove():
    from biasbook.agree import VECTORS, sets_of

    c6 = sets_of(VECTORS[0])["C6"]
    ripa = tc.metric_split_half(c6, "RIPA", n_splits=100)
    assert ripa.exhaustive and ripa.n_splits == math.comb(8, 4)
    assert ripa.n_subjects == 16 and -1 <= ripa.value <= 1
    table = tc.consistency_table(VECTORS[0], n_splits=20, tests=["C6"], kinds=("word scores",),
                                 metrics=["RIPA", "ECT", "WEAT d"])
    assert list(table.columns) == list(tc._COLUMNS)
    assert table["metric"].tolist() == ["RIPA", "WEAT d"]  # ECT has no word scores
    assert table.loc[0, "reliability"] == pytest.approx(
        tc.metric_split_half(c6, "RIPA", n_splits=20).value)
    assert table.loc[1, "subjects"] == 16 and table.loc[1, "items"] == 16
    assert table.equals(tc.consistency_table(VECTORS[0], n_splits=20, tests=["C6"],
                                             kinds=("word scores",),
                                             metrics=["RIPA", "ECT", "WEAT d"]))

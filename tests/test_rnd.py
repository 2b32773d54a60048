"""RND (Garg et al. 2018): hand computations, loop re-implementations (the paper's and
WEFE's), its properties, the sum/mean conventions, WEFE's signs, and bad input."""

import math

import numpy as np
import pytest
from peer_code import needs_wefe, wefe_metric

from biaslib.errors import DegenerateTestError, UnknownNameError
from biaslib.methods.rnd import (
    RND_PAPER,
    RND_WEFE,
    RndConvention,
    rnd,
    rnd_word,
)


def _rng_sets(seed=0, m=8, d=4):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(m, d)), rng.normal(size=(5, d)) + 1.0,
            rng.normal(size=(3, d)) - 1.0)


def _norm(v):
    return math.sqrt(sum(x * x for x in v))


def _mean(rows):
    return [sum(col) / len(rows) for col in zip(*rows, strict=True)]


def _cos(u, v):
    return sum(a * b for a, b in zip(u, v, strict=True)) / (_norm(u) * _norm(v))


def _unit(rows):
    return [[x / _norm(r) for x in r] for r in rows]


# --------------------------------------------------------------------------- hand computations


def test_word_score_by_hand():
    # (3, 4) is 4 from X̄ = (3, 0) and 3 from Ȳ = (0, 4): 3 − 4 = −1 (closer to Y).
    assert rnd_word([[3.0, 4.0]], [[3.0, 0.0]], [[0.0, 4.0]], normalize=False).tolist() == [-1.0]
    # X̄ = (1, 1), Ȳ = (−1, 0), w = (1, 0): ‖w − Ȳ‖ = 2, ‖w − X̄‖ = 1.
    assert rnd_word([[1.0, 0.0]], [[2.0, 0.0], [0.0, 2.0]], [[-1.0, 0.0]],
                    normalize=False).tolist() == [1.0]


def test_sum_and_mean_by_hand():
    # X = {(1, 0)}, Y = {(−1, 0)}: (2,0) → 3 − 1 = 2; (−3,0) → 2 − 4 = −2; (0,1) → 0; (1,0) → 2.
    W = [[2.0, 0.0], [-3.0, 0.0], [0.0, 1.0], [1.0, 0.0]]
    paper = rnd(W, [[1.0, 0.0]], [[-1.0, 0.0]], normalize=False)
    wefe = rnd(W, [[1.0, 0.0]], [[-1.0, 0.0]], normalize=False, convention="wefe")
    assert paper.word_scores == pytest.approx([2.0, -2.0, 0.0, 2.0])
    assert paper.effect_size == pytest.approx(2.0)  # the paper's sum
    assert wefe.effect_size == pytest.approx(0.5)  # WEFE's mean: sum / 4
    assert paper.method == wefe.method == "RND"
    assert (paper.options["convention"], wefe.options["convention"]) == ("paper", "wefe")
    assert (paper.options["aggregate"], wefe.options["aggregate"]) == ("sum", "mean")


def test_normalize_by_hand():
    # Unit X: (1, 0), (0, 1) → X̄ = (0.5, 0.5); unit Y: (−1, 0). w = (1, 0):
    # ‖w − Ȳ‖ − ‖w − X̄‖ = 2 − √0.5. Unnormalised: X̄ = (1, 1.5), Ȳ = (−5, 0): 6 − 1.5.
    X, Y, w = [[2.0, 0.0], [0.0, 3.0]], [[-5.0, 0.0]], [[1.0, 0.0]]
    assert rnd(w, X, Y).effect_size == pytest.approx(2.0 - math.sqrt(0.5))
    assert rnd(w, X, Y, normalize=False).effect_size == pytest.approx(4.5)


def test_cosine_distance_by_hand():
    # X̄ = (1, 0), Ȳ = (0, 1): (2, 0) → cos 1 vs 0 → 1; (1, 1) → 0; (0, 3) → −1.
    r = rnd([[2.0, 0.0], [1.0, 1.0], [0.0, 3.0]], [[1.0, 0.0]], [[0.0, 1.0]], distance="cos")
    assert r.word_scores == pytest.approx([1.0, 0.0, -1.0])
    assert r.options["distance"] == "cos"


def test_wefe_signs_on_a_toy_example():
    # WEFE's word score is d(w, X̄) − d(w, Ȳ): for the Euclidean norm that is −s(w); for its
    # "cos" (a cosine similarity) it is cos(w, X̄) − cos(w, Ȳ) = +s(w).
    W = [[2.0, 0.0], [-3.0, 0.0], [0.0, 1.0], [1.0, 0.0]]
    r = rnd(W, [[1.0, 0.0]], [[-1.0, 0.0]], normalize=False, convention="wefe")
    wefe_norm = np.mean([_norm([a - 1.0, b]) - _norm([a + 1.0, b]) for a, b in W])  # −0.5
    assert wefe_norm == pytest.approx(-0.5)
    assert wefe_norm == pytest.approx(-r.effect_size)
    assert "reports -effect_size" in r.notes[0]
    c = rnd(W, [[1.0, 0.0]], [[-1.0, 0.0]], normalize=False, convention="wefe", distance="cos")
    wefe_cos = np.mean([_cos(w, [1.0, 0.0]) - _cos(w, [-1.0, 0.0]) for w in W])
    assert wefe_cos == pytest.approx(c.effect_size)
    assert "reports +effect_size" in c.notes[0]
    assert not rnd(W, [[1.0, 0.0]], [[-1.0, 0.0]]).notes  # the paper's preset: no note


# --------------------------------------------------------------------------- brute force


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("normalize", [True, False])
def test_matches_a_loop(seed, normalize):
    W, X, Y = (a.tolist() for a in _rng_sets(seed))
    if normalize:
        W, X, Y = _unit(W), _unit(X), _unit(Y)
    xb, yb = _mean(X), _mean(Y)
    norm_scores = [_norm([a - b for a, b in zip(w, yb, strict=True)])
                   - _norm([a - b for a, b in zip(w, xb, strict=True)]) for w in W]
    cos_scores = [(1 - _cos(w, yb)) - (1 - _cos(w, xb)) for w in W]
    args = _rng_sets(seed)
    r = rnd(*args, normalize=normalize)
    assert r.word_scores == pytest.approx(norm_scores)
    assert r.effect_size == pytest.approx(sum(norm_scores))
    c = rnd(*args, normalize=normalize, distance="cos", convention="wefe")
    assert c.word_scores == pytest.approx(cos_scores)
    assert c.effect_size == pytest.approx(sum(cos_scores) / len(cos_scores))


# --------------------------------------------------------------------------- properties


@pytest.mark.parametrize("distance", ["norm", "cos"])
@pytest.mark.parametrize("normalize", [True, False])
def test_swapping_the_groups_flips_the_sign(distance, normalize):
    W, X, Y = _rng_sets(3)
    r = rnd(W, X, Y, distance=distance, normalize=normalize)
    s = rnd(W, Y, X, distance=distance, normalize=normalize)
    assert s.word_scores == pytest.approx(-r.word_scores)
    assert s.effect_size == pytest.approx(-r.effect_size)


@pytest.mark.parametrize("distance", ["norm", "cos"])
def test_zero_when_the_group_means_coincide(distance):
    # Different sets, same mean (1, 1)/2.
    W, _, _ = _rng_sets(4, d=2)
    r = rnd(W, [[1.0, 0.0], [0.0, 1.0]], [[0.5, 0.5]], distance=distance, normalize=False)
    assert r.word_scores == pytest.approx(np.zeros(len(W)), abs=1e-12)
    assert r.effect_size == pytest.approx(0.0, abs=1e-12)


def test_positive_towards_x():
    _, X, Y = _rng_sets(5)
    r = rnd(X, X, Y)
    assert r.effect_size > 0
    assert rnd(Y, X, Y).effect_size < 0


def test_translation_invariance_of_the_euclidean_score():
    W, X, Y = _rng_sets(6)
    shift = np.array([3.0, -2.0, 0.5, 1.0])
    assert rnd(W + shift, X + shift, Y + shift, normalize=False).word_scores == pytest.approx(
        rnd(W, X, Y, normalize=False).word_scores)


def test_normalize_makes_it_invariant_to_vector_lengths():
    W, X, Y = _rng_sets(7)
    rng = np.random.default_rng(1)
    def stretch(a):
        return a * rng.uniform(0.1, 10.0, size=(len(a), 1))

    assert rnd(stretch(W), stretch(X), stretch(Y)).word_scores == pytest.approx(
        rnd(W, X, Y).word_scores)


def test_one_word_groups_are_their_own_mean():
    r = rnd([[1.0, 2.0]], [[3.0, 0.0]], [[0.0, 1.0]], normalize=False)
    assert r.effect_size == pytest.approx(_norm([1.0, 1.0]) - _norm([-2.0, 2.0]))


# --------------------------------------------------------------------------- conventions


def test_presets():
    assert RndConvention.of("paper") is RND_PAPER and RndConvention.of("wefe") is RND_WEFE
    assert "wefe/metrics/RND.py" in RND_WEFE.description
    with pytest.raises(UnknownNameError):
        rnd([[1.0, 0.0]], [[1.0, 0.0]], [[0.0, 1.0]], convention="garg")
    with pytest.raises(ValueError, match="aggregate"):
        RndConvention(name="x", aggregate="median")


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("words", "X", "Y", "kwargs", "error", "match"),
    [
        (np.empty((0, 2)), [[1.0, 0.0]], [[0.0, 1.0]], {}, ValueError, "empty"),
        ([[1.0, 0.0]], np.empty((0, 2)), [[0.0, 1.0]], {}, ValueError, "empty"),
        ([[1.0, 0.0, 1.0]], [[1.0, 0.0]], [[0.0, 1.0]], {}, ValueError, "dimension"),
        ([[1.0, 0.0]], [[1.0, 0.0]], [[0.0, 1.0, 2.0]], {}, ValueError, "dimension"),
        ([[1.0, np.nan]], [[1.0, 0.0]], [[0.0, 1.0]], {}, ValueError, "NaN"),
        ([[1.0, 0.0]], [[0.0, 0.0]], [[0.0, 1.0]], {}, ValueError, "zero vector"),
        ([[1.0, 0.0]], [[1.0, 0.0]], [[0.0, 1.0]], {"distance": "cosine"}, ValueError,
         "distance"),
        ([[1.0, 0.0]], [[1.0, 0.0], [-1.0, 0.0]], [[0.0, 1.0]], {"distance": "cos"},
         DegenerateTestError, "mean of X"),
        ([[1.0, 0.0]], [[1.0, 0.0]], [[0.0, 1.0]], {"normalize": "yes"}, TypeError,
         "normalize"),
    ],
)
def test_bad_input(words, X, Y, kwargs, error, match):
    with pytest.raises(error, match=match):
        rnd(words, X, Y, **kwargs)


# --------------------------------------------------------------------------- WEFE's own code


@needs_wefe
@pytest.mark.parametrize("distance", ["norm", "cos"])
@pytest.mark.parametrize("seed", [0, 1])
def test_wefe_preset_reproduces_wefes_code_up_to_its_sign(distance, seed):
    W, X, Y = _rng_sets(seed)
    value, per_word = wefe_metric("RND")()._RND__calc_rnd(X, Y, W, [f"w{i}" for i in range(len(W))],
                                                          distance)
    ours = rnd(W, X, Y, distance=distance, normalize=False, convention="wefe")
    sign = -1.0 if distance == "norm" else 1.0  # what the notes say
    assert sign * ours.effect_size == pytest.approx(float(value), abs=1e-12)
    assert sign * ours.word_scores == pytest.approx(
        [per_word[f"w{i}"] for i in range(len(W))], abs=1e-12)

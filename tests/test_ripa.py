"""RIPA (Ethayarajh, Duvenaud & Hirst 2019): hand computations, a loop re-implementation,
the paper's properties, the three conventions (paper, WEFE, EBS) and bad input."""

import math

import numpy as np
import pytest
from peer_code import ebs_class, needs_ebs, needs_wefe, wefe_metric
from sklearn.decomposition import PCA

from biaslib.errors import DegenerateTestError, UnknownNameError
from biaslib.methods.ripa import (
    RIPA_EBS,
    RIPA_PAPER,
    RIPA_WEFE,
    RipaConvention,
    relation_vector,
    ripa,
)

# Differences (3, 1) and (1, 3): D^T D = [[10, 6], [6, 10]], eigenvalues 16 along (1, 1)/√2
# and 4 along (1, -1)/√2. WEFE's mean of unit differences is (2, 2)/√10.
X2 = [[4.0, 2.0], [2.0, 4.0]]
Y2 = [[1.0, 1.0], [1.0, 1.0]]


def _rng_sets(seed=0, n=6, m=9, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) + 0.8
    Y = rng.normal(size=(n, d)) - 0.8
    W = rng.normal(size=(m, d)) * rng.uniform(0.5, 3.0, size=(m, 1))
    return W, X, Y


# --------------------------------------------------------------------------- hand computations


def test_single_pair_by_hand():
    # he = (1, 0), she = (-1, 0): b = (1, 0); the score is the first coordinate, length kept.
    r = ripa([[3.0, 4.0], [-2.0, 0.0]], [[1.0, 0.0]], [[-1.0, 0.0]])
    assert r.method == "RIPA"
    assert r.word_scores.tolist() == [3.0, -2.0]
    assert r.effect_size == 0.5
    assert (r.n_words, r.n_groups) == (2, 2)
    assert r.options["convention"] == "paper" and r.options["n_pairs"] == 1


def test_pca_relation_vector_by_hand():
    b = relation_vector(X2, Y2)
    assert b == pytest.approx([1 / math.sqrt(2), 1 / math.sqrt(2)])
    assert np.linalg.norm(b) == pytest.approx(1.0)


def test_wefe_relation_vector_by_hand_is_not_unit():
    b = relation_vector(X2, Y2, convention="wefe")
    assert b == pytest.approx([2 / math.sqrt(10), 2 / math.sqrt(10)])
    assert np.linalg.norm(b) == pytest.approx(math.sqrt(0.8))  # < 1: the pairs disagree


def test_paper_and_wefe_differ_on_a_toy_example():
    # w = (1, 0): paper 1/√2 = 0.70711 (principal component); WEFE 2/√10 = 0.63246 (mean over
    # pairs of w·(x−y)/‖x−y‖ = (3/√10 + 1/√10) / 2).
    paper = ripa([[1.0, 0.0]], X2, Y2).effect_size
    wefe = ripa([[1.0, 0.0]], X2, Y2, convention="wefe").effect_size
    assert paper == pytest.approx(1 / math.sqrt(2))
    assert wefe == pytest.approx((3 / math.sqrt(10) + 1 / math.sqrt(10)) / 2)
    assert paper - wefe == pytest.approx(0.0746512, abs=1e-7)


def test_ebs_takes_the_absolute_value():
    # b = (1, 0): the paper scores −1 and 3 (mean 1), EBS 1 and 3 (mean 2).
    W = [[-1.0, 5.0], [3.0, -7.0]]
    paper = ripa(W, [[1.0, 0.0]], [[-1.0, 0.0]])
    ebs = ripa(W, [[1.0, 0.0]], [[-1.0, 0.0]], convention="ebs")
    assert paper.word_scores.tolist() == [-1.0, 3.0] and paper.effect_size == 1.0
    assert ebs.word_scores.tolist() == [1.0, 3.0] and ebs.effect_size == 2.0
    assert ebs.options["absolute"] is True and ebs.options["convention"] == "ebs"


def test_hand_example_with_three_pairs():
    # Differences (2, 0), (2, 0), (0, 1): the principal component is (1, 0) (eigenvalue 8 vs 1);
    # WEFE's mean is ((1,0) + (1,0) + (0,1)) / 3 = (2/3, 1/3).
    X = [[3.0, 1.0], [2.0, 5.0], [1.0, 2.0]]
    Y = [[1.0, 1.0], [0.0, 5.0], [1.0, 1.0]]
    w = [[3.0, 6.0]]
    assert ripa(w, X, Y).effect_size == pytest.approx(3.0)
    assert ripa(w, X, Y, convention="wefe").effect_size == pytest.approx(2 / 3 * 3 + 1 / 3 * 6)


# --------------------------------------------------------------------------- brute force


def _loop_wefe(W, X, Y):
    out = []
    for w in W:
        total = 0.0
        for x, y in zip(X, Y, strict=True):
            diff = [xi - yi for xi, yi in zip(x, y, strict=True)]
            norm = math.sqrt(sum(v * v for v in diff))
            total += sum(wi * v / norm for wi, v in zip(w, diff, strict=True))
        out.append(total / len(X))
    return out


def _loop_pca(X, Y):
    """Power iteration on sum_i d_i d_i^T, written as loops; oriented towards X."""
    d = len(X[0])
    diffs = [[xi - yi for xi, yi in zip(x, y, strict=True)] for x, y in zip(X, Y, strict=True)]
    M = [[sum(v[i] * v[j] for v in diffs) for j in range(d)] for i in range(d)]
    b = [1.0] * d
    for _ in range(2000):
        nb = [sum(M[i][j] * b[j] for j in range(d)) for i in range(d)]
        norm = math.sqrt(sum(v * v for v in nb))
        b = [v / norm for v in nb]
    if sum(sum(v[i] * b[i] for i in range(d)) for v in diffs) < 0:
        b = [-v for v in b]
    return b


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_wefe_matches_a_loop_over_pairs(seed):
    W, X, Y = _rng_sets(seed)
    r = ripa(W, X, Y, convention="wefe")
    assert r.word_scores == pytest.approx(_loop_wefe(W.tolist(), X.tolist(), Y.tolist()))
    assert r.effect_size == pytest.approx(np.mean(_loop_wefe(W.tolist(), X.tolist(), Y.tolist())))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pca_matches_power_iteration(seed):
    W, X, Y = _rng_sets(seed)
    b = _loop_pca(X.tolist(), Y.tolist())
    assert relation_vector(X, Y) == pytest.approx(b, abs=1e-8)
    assert ripa(W, X, Y).word_scores == pytest.approx(W @ np.asarray(b), abs=1e-8)


@pytest.mark.parametrize("seed", [0, 3])
def test_pca_is_bolukbasis_pca_of_pair_centred_vectors(seed):
    # EBS's DirectBias.pca_bias_subspace: sklearn PCA of x - mu, y - mu (mu the pair mean).
    _, X, Y = _rng_sets(seed)
    mu = (X + Y) / 2
    component = PCA().fit(np.concatenate([X - mu, Y - mu])).components_[0]
    assert abs(float(component @ relation_vector(X, Y))) == pytest.approx(1.0)


# --------------------------------------------------------------------------- properties


@pytest.mark.parametrize("convention", ["paper", "wefe"])
def test_swapping_the_groups_flips_the_sign(convention):
    W, X, Y = _rng_sets(4)
    r = ripa(W, X, Y, convention=convention)
    s = ripa(W, Y, X, convention=convention)
    assert s.word_scores == pytest.approx(-r.word_scores)
    assert s.effect_size == pytest.approx(-r.effect_size)


def test_ebs_does_not_change_when_the_groups_swap():
    W, X, Y = _rng_sets(5)
    assert ripa(W, Y, X, convention="ebs").word_scores == pytest.approx(
        ripa(W, X, Y, convention="ebs").word_scores)


@pytest.mark.parametrize("convention", ["paper", "wefe", "ebs"])
@pytest.mark.parametrize("scale", [1e-3, 7.0, 1e5])
def test_relation_vector_is_scale_invariant(convention, scale):
    _, X, Y = _rng_sets(6)
    assert relation_vector(scale * X, scale * Y, convention=convention) == pytest.approx(
        relation_vector(X, Y, convention=convention))


def test_scores_scale_with_the_word_length():
    # RIPA is an inner product, not a cosine: a word twice as long scores twice as much.
    W, X, Y = _rng_sets(7)
    assert ripa(2.0 * W, X, Y).word_scores == pytest.approx(2.0 * ripa(W, X, Y).word_scores)


@pytest.mark.parametrize("convention", ["paper", "wefe"])
def test_pair_order_does_not_matter(convention):
    W, X, Y = _rng_sets(8)
    order = np.array([3, 0, 5, 1, 4, 2])
    assert ripa(W, X[order], Y[order], convention=convention).word_scores == pytest.approx(
        ripa(W, X, Y, convention=convention).word_scores)


def test_one_pair_gives_the_normalised_difference_for_every_convention():
    x, y = np.array([[2.0, -1.0, 0.5]]), np.array([[0.5, 1.0, 0.5]])
    expected = (x - y)[0] / np.linalg.norm(x - y)
    for convention in ("paper", "wefe", "ebs"):
        assert relation_vector(x, y, convention=convention) == pytest.approx(expected)


def test_the_component_is_oriented_towards_x():
    _, X, Y = _rng_sets(9)
    b = relation_vector(X, Y)
    assert float(((X - Y) @ b).sum()) > 0
    assert relation_vector(Y, X) == pytest.approx(-b)


def test_normalize_uses_unit_vectors_everywhere():
    W, X, Y = _rng_sets(10)
    unit = [v / np.linalg.norm(v, axis=1, keepdims=True) for v in (W, X, Y)]
    for convention in ("paper", "wefe"):
        assert ripa(W, X, Y, convention=convention, normalize=True).word_scores == pytest.approx(
            ripa(*unit, convention=convention).word_scores)
    r = ripa(W, X, Y, normalize=True)
    assert r.options["normalize"] is True
    assert np.all(np.abs(r.word_scores) <= 1.0 + 1e-12)  # unit word · unit b


def test_tied_components_are_noted():
    r = ripa([[1.0, 1.0]], [[2.0, 0.0], [0.0, 2.0]], [[1.0, 0.0], [0.0, 1.0]])
    assert any("not unique" in n for n in r.notes)
    assert not ripa(*_rng_sets(11)).notes


def test_cancelling_pairs():
    # Differences (1, 0) and (-1, 0): WEFE's mean is the zero vector; the component is (±1, 0),
    # oriented by the first pair, with a note.
    X, Y = [[2.0, 1.0], [1.0, 1.0]], [[1.0, 1.0], [2.0, 1.0]]
    with pytest.raises(DegenerateTestError, match="cancel"):
        ripa([[1.0, 0.0]], X, Y, convention="wefe")
    r = ripa([[1.0, 0.0]], X, Y)
    assert r.word_scores == pytest.approx([1.0])
    assert any("first pair" in n for n in r.notes)


# --------------------------------------------------------------------------- conventions


def test_presets():
    assert RipaConvention.of("paper") is RIPA_PAPER
    assert (RIPA_PAPER.relation, RIPA_PAPER.absolute) == ("pca", False)
    assert (RIPA_WEFE.relation, RIPA_WEFE.absolute) == ("mean", False)
    assert (RIPA_EBS.relation, RIPA_EBS.absolute) == ("pca", True)
    assert "wefe/metrics/RIPA.py" in RIPA_WEFE.description
    assert "geometrical_bias/ripa.py" in RIPA_EBS.description
    custom = RIPA_PAPER.replace(absolute=True)
    assert ripa([[1.0, -3.0]], [[0.0, 1.0]], [[0.0, -1.0]], convention=custom).options[
        "convention"] == "paper*"
    with pytest.raises(UnknownNameError, match="wefe"):
        ripa([[1.0, 0.0]], [[1.0, 0.0]], [[0.0, 1.0]], convention="WEFE")
    with pytest.raises(ValueError, match="relation"):
        RipaConvention(name="x", relation="svd")


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("words", "X", "Y", "error", "match"),
    [
        (np.empty((0, 2)), [[1.0, 0.0]], [[0.0, 1.0]], ValueError, "empty"),
        ([[1.0, 0.0]], np.empty((0, 2)), np.empty((0, 2)), ValueError, "empty"),
        ([[1.0, 0.0, 0.0]], [[1.0, 0.0]], [[0.0, 1.0]], ValueError, "dimension"),
        ([[1.0, 0.0]], [[1.0, 0.0]], [[0.0, 1.0, 0.0]], ValueError, "dimension"),
        ([[np.nan, 0.0]], [[1.0, 0.0]], [[0.0, 1.0]], ValueError, "NaN"),
        ([[1.0, 0.0]], [[np.inf, 0.0]], [[0.0, 1.0]], ValueError, "infinite"),
        ([[0.0, 0.0]], [[1.0, 0.0]], [[0.0, 1.0]], ValueError, "zero vector"),
        ([[1.0, 0.0]], [[1.0, 0.0], [2.0, 0.0]], [[0.0, 1.0]], ValueError, "pairs"),
        ([[1.0, 0.0]], [[1.0, 0.0], [2.0, 0.0]], [[0.0, 1.0], [2.0, 0.0]],
         DegenerateTestError, r"pairs \[1\]"),
        ([1.0, 0.0], [[1.0, 0.0]], [[0.0, 1.0]], ValueError, "2-D"),
    ],
)
def test_bad_input(words, X, Y, error, match):
    with pytest.raises(error, match=match):
        ripa(words, X, Y)


def test_bad_flags():
    with pytest.raises(TypeError, match="normalize"):
        ripa([[1.0, 0.0]], [[1.0, 0.0]], [[0.0, 1.0]], normalize=1)
    with pytest.raises(ValueError, match="pairs"):
        relation_vector([[1.0, 0.0]], [[0.0, 1.0], [1.0, 1.0]])


# --------------------------------------------------------------------------- the peers' own code


@needs_wefe
@pytest.mark.parametrize("seed", [0, 1])
def test_wefe_preset_reproduces_wefes_code(seed):
    W, X, Y = _rng_sets(seed)
    value, per_word = wefe_metric("RIPA")()._calc_metric(
        [{f"x{i}": v for i, v in enumerate(X)}, {f"y{i}": v for i, v in enumerate(Y)}],
        [{f"w{i}": v for i, v in enumerate(W)}])
    ours = ripa(W, X, Y, convention="wefe")
    assert ours.effect_size == pytest.approx(float(value), abs=1e-12)
    assert ours.word_scores == pytest.approx([per_word[f"w{i}"]["mean"] for i in range(len(W))],
                                             abs=1e-12)


@needs_ebs
@pytest.mark.parametrize("seed", [0, 1])
def test_ebs_preset_reproduces_ebs_code(seed):
    W, X, Y = _rng_sets(seed)
    model = ebs_class("RIPA")()
    model.define_bias_space([X.copy(), Y.copy()])
    ours = ripa(W, X, Y, convention="ebs")
    assert ours.effect_size == pytest.approx(model.mean_individual_bias(list(W)), abs=1e-12)
    assert ours.word_scores == pytest.approx([model.individual_bias(w) for w in W], abs=1e-12)

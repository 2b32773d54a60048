r"""RNSB, the relative negative sentiment bias (Sweeney & Najafian 2019).

Sweeney & Najafian, *A Transparent Framework for Evaluating Unintended
Demographic Bias in Word Embeddings* (ACL 2019, §3) train a logistic regression
on the vectors of negative and positive sentiment words (Hu & Liu's opinion
lexicon), ask it for the probability that each identity term (*Mexican*,
*German*…) is negative, normalise these probabilities to a distribution
:math:`P` and compare it with the uniform distribution :math:`U`:

.. math::

    P(t) = \frac{p(\text{negative} \mid t)}{\sum_{t'} p(\text{negative} \mid t')},

.. math::

    \text{RNSB} = D_{KL}(P \,\Vert\, U) = \sum_t P(t) \log \frac{P(t)}{1/|T|}
               = \log |T| - H(P) \;\ge 0 ,

(natural logarithm). RNSB is 0 exactly when every identity term is equally
likely to be read as negative, and at most :math:`\log |T|`.

Here :math:`A` are the negative attribute words (label 1) and :math:`B` the
positive ones (label 0); the terms :math:`t` are every word of every group, in
order. Internally the classifier is fitted, as both peers fit it, on the rows
:math:`[B; A]` with labels :math:`+1` (positive) and :math:`-1` (negative), so
that a seed gives the same train/test split as the peers' ``random_state``.

Where the authors' code and WEFE differ, each choice is a field of an
:class:`RnsbConvention`, with presets (``convention=``):

============  =========================  ======================  =======================
field         ``"paper"`` (notebook)     ``"wefe"``              ``"biaslib"`` (default)
============  =========================  ======================  =======================
held out      ``test_size=0.1``,         ``0.2``, stratified     as ``"paper"``
              not stratified
solver, C     ``lbfgs``, :math:`C = 2`   ``liblinear``,          ``newton-cholesky``,
              (see below)                :math:`C=1`             :math:`C = 2`
``tol``       ``1e-4`` (sklearn's        ``1e-4`` (liblinear's   ``1e-10``
              default)                   default)
``max_iter``  100 (sklearn's default     10 000                  1 000
              then)
============  =========================  ======================  =======================

``"paper"``
    The paper gives no classifier settings; its authors' notebook
    (``ChristopherSweeney/AIFairness``,
    ``python_notebooks/Measuring_and_Mitigating_Word_Embedding_Bias.ipynb``, cell 7)
    holds out 10% of the lexicon (``train_test_split(test_size=0.1,
    random_state=0)``) and fits ``LogisticRegression(random_state=0,
    solver='lbfgs', multi_class='multinomial')`` with labels :math:`\pm 1`. A
    two-class *multinomial* model with penalty :math:`\tfrac12(\lVert w_0\rVert^2 +
    \lVert w_1 \rVert^2)` is the binary logistic regression of :math:`v = w_1 - w_0`
    with penalty :math:`\tfrac14 \lVert v \rVert^2`, i.e. with :math:`C` doubled
    (the optimum has :math:`w_1 = -w_0 = v/2`); recent scikit-learn has dropped
    ``multi_class``, so the preset fits the binary model with :math:`C = 2`
    (``tests/test_rnsb.py`` checks the equivalence by fitting the softmax
    objective directly). With 100 iterations lbfgs may stop before it converges
    on a real lexicon, with scikit-learn's ``ConvergenceWarning`` — as it did in
    the notebook; ``RNSB_PAPER.replace(max_iter=...)`` lets it run longer.
``"biaslib"``
    The paper preset's model (the same split, penalty and :math:`C`) fitted to
    its optimum: Newton's method (``newton-cholesky``; the same objective as
    ``lbfgs``, the intercept unpenalised) until every entry of the objective's
    gradient is below ``tol=1e-10``, a few iterations. ``lbfgs`` cannot reach
    such a tolerance: scikit-learn stops it when the objective changes by
    less than 64 machine epsilons, about :math:`10^{-6}` from the optimum in
    the coefficients. A fit that stops at ``max_iter`` first is reported with a
    :class:`~sklearn.exceptions.ConvergenceWarning` naming the tolerance.
solver tolerance
    ``tol`` is the solver's stopping tolerance. The authors' notebook and WEFE
    pass none, so they stop at scikit-learn's default :math:`10^{-4}` — far from
    the optimum: on 2 × 120 random 50-d words the ``lbfgs`` coefficients at
    :math:`10^{-4}` are :math:`8 \cdot 10^{-3}` from the exact fit. On the book's
    16 tests and vector sets (:mod:`biasbook.agree`: GloVe 6B 50d and the Google
    News subset, seed 0) the paper preset's probabilities are up to
    :math:`3.2 \cdot 10^{-3}` from those of the same model at its optimum, and
    its RNSB up to 0.5 % (C5 on GloVe: 0.03722 against 0.03704; the order of
    the tests does not change); an independent check found up to
    :math:`3.7 \cdot 10^{-3}` and 1 % on other vectors. ``tests/test_rnsb.py``
    checks the ``"biaslib"`` fit against a direct minimisation. The paper preset keeps
    :math:`10^{-4}`, the argument the notebook passed; but since
    scikit-learn 1.4 (PR #26721) the ``lbfgs`` objective is the *mean* log-loss,
    where the 2019 notebook's was the sum, so the same ``tol`` now stops about
    :math:`n` (training words) times earlier than the notebook did, and its
    exact stopping point cannot be replayed. The ``"wefe"`` preset keeps
    liblinear's :math:`10^{-4}`, which is what WEFE computes (agreement to 1e-12).
``"wefe"``
    WEFE's ``RNSB._train_classifier`` (``wefe/metrics/RNSB.py`` lines 140–206, at
    1998132, 2025-07-29): ``train_test_split(test_size=0.2, stratify=labels,
    shuffle=True, random_state=random_state)`` and ``LogisticRegression(
    solver="liblinear", max_iter=10000)`` (``run_query`` defaults, line 284).
    liblinear also penalises the intercept, which lbfgs does not. WEFE's
    ``random_state`` defaults to ``None`` — an unseeded split, a different RNSB on
    every call; here the split and the solver always take ``seed``. WEFE's first
    attribute set is its *positive* class (label 1, line 145) and the second its
    negative class, although its class docstring says the opposite (lines 56–57):
    this ``rnsb(groups, A, B)`` is WEFE's query with ``attribute_sets=[B, A]``.
    Two slips in WEFE's holdout check (lines 173–185): it refuses a split that
    leaves *one* positive training word (``== 1``, meant ``< 1``), and its
    messages speak of ``test_size=0.1`` while the split uses 0.2. And
    ``run_query`` logs and skips an iteration that raises (line 873), so a query
    whose every fit fails returns the mean of no divergences, NaN; here the error
    is raised.
repeated fits
    WEFE's ``n_iterations`` re-splits and refits, then returns the *mean of the
    KL divergences* (line 877) and the mean probabilities; ``n_iterations`` here
    does the same with seeds ``seed, seed + 1, …`` (WEFE refuses a seed with more
    than one iteration, since its iterations would all be alike). The mean of the
    divergences is not the divergence of the mean probabilities: WEFE's
    ``negative_sentiment_distribution`` (lines 882–886, the normalised mean
    probabilities) is not the distribution whose divergence it reports.
per word or per group
    The paper has one identity term per group. WEFE flattens every word of
    every target set into one distribution (``_calc_rnsb``, lines 237–266), so a
    group with more words weighs more; that is ``aggregate="words"`` (both
    presets). ``aggregate="groups"`` averages each group's probabilities first
    and compares the distribution over *groups* with the uniform one — what the
    paper's definition gives when a group is described by several words.
unit-length vectors
    Neither peer normalises by default; ``normalize=True`` scales every vector
    to unit length first (WEFE's ``normalize=True``).

``tests/test_rnsb.py`` runs WEFE's ``RNSB._train_classifier`` and ``_calc_rnsb``
(from a git mirror) with the same ``random_state``: the ``"wefe"`` preset gives the same
split, probabilities, divergence and held-out accuracy, to 1e-12.

References
----------
Sweeney, C. & Najafian, M. (2019). A Transparent Framework for Evaluating
Unintended Demographic Bias in Word Embeddings. ACL 2019, 1662–1667.
Hu, M. & Liu, B. (2004). Mining and Summarizing Customer Reviews. KDD 2004.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from biaslib.errors import DegenerateTestError, warn_dropped
from biaslib.methods.result import BiasScoreResult
from biaslib.stats.conventions import ConventionBase
from biaslib.stats.similarity import as_vectors, same_vectors, unit_rows
from biaslib.validation import check_bool, check_int, check_number, check_seed

__all__ = [
    "RNSB_BIASLIB",
    "RNSB_PAPER",
    "RNSB_PRESETS",
    "RNSB_WEFE",
    "RnsbConvention",
    "kl_from_uniform",
    "negative_probabilities",
    "rnsb",
]

#: Over what RNSB compares its distribution with the uniform one.
RnsbAggregate = Literal["words", "groups"]
Solver = Literal["lbfgs", "liblinear", "newton-cholesky"]
_SOLVERS = ("lbfgs", "liblinear", "newton-cholesky")


@dataclass(frozen=True)
class RnsbConvention(ConventionBase):
    """The classifier and aggregation choices that differ between RNSB's implementations.

    Attributes
    ----------
    name
        Short identifier (a preset's key).
    test_size
        Share of the attribute words held out of training (0: train on all).
    stratify
        Keep the negative/positive ratio in the held-out split.
    solver
        scikit-learn's ``"lbfgs"``, ``"newton-cholesky"`` (the same objective) or
        ``"liblinear"`` (which also penalises the intercept).
    C
        Inverse L2 regularisation strength of the binary model.
    tol
        The solver's stopping tolerance (scikit-learn's ``tol``; its default
        ``1e-4`` in the paper and WEFE presets, ``1e-10`` in ``"biaslib"``). For
        ``lbfgs`` and ``newton-cholesky`` a bound on the gradient of the mean
        log-loss plus penalty.
    max_iter
        The solver's iteration limit.
    aggregate
        ``"words"``: one distribution over every word of every group (WEFE);
        ``"groups"``: over the groups, each its words' mean probability.
    description
        Where the convention comes from.
    """

    kind: ClassVar[str] = "RNSB convention"

    test_size: float = 0.1
    stratify: bool = False
    solver: Solver = "lbfgs"
    C: float = 2.0
    tol: float = 1e-4
    max_iter: int = 100
    aggregate: RnsbAggregate = "words"

    def __post_init__(self) -> None:
        super().__post_init__()
        check_number(self.test_size, "test_size", minimum=0.0, maximum=0.9)
        check_bool(self.stratify, "stratify")
        if self.solver not in _SOLVERS:
            raise ValueError(f"solver must be one of {_SOLVERS}, got {self.solver!r}")
        for name in ("C", "tol"):
            value = getattr(self, name)
            check_number(value, name)
            if value <= 0:
                raise ValueError(f"{name} must be > 0, got {value!r}")
        check_int(self.max_iter, "max_iter", minimum=1)
        if self.aggregate not in ("words", "groups"):
            raise ValueError(f"aggregate must be 'words' or 'groups', got {self.aggregate!r}")


#: The authors' notebook: 10% held out (not stratified), lbfgs multinomial = binary with C = 2.
RNSB_PAPER = RnsbConvention(
    name="paper", test_size=0.1, stratify=False, solver="lbfgs", C=2.0, tol=1e-4, max_iter=100,
    aggregate="words",
    description="Sweeney & Najafian 2019 (ACL) as their notebook ChristopherSweeney/AIFairness "
                "python_notebooks/Measuring_and_Mitigating_Word_Embedding_Bias.ipynb computes "
                "it: train_test_split(test_size=0.1), LogisticRegression(lbfgs, multinomial) "
                "= binary with C=2, scikit-learn's default tol=1e-4",
)
#: WEFE ``wefe/metrics/RNSB.py`` (1998132, 2025-07-29): 20% stratified holdout, liblinear.
RNSB_WEFE = RnsbConvention(
    name="wefe", test_size=0.2, stratify=True, solver="liblinear", C=1.0, tol=1e-4,
    max_iter=10000,
    aggregate="words",
    description="WEFE wefe/metrics/RNSB.py lines 140-206, 284: train_test_split(test_size=0.2, "
                "stratify), LogisticRegression(solver='liblinear', max_iter=10000); one "
                "distribution over all target words",
)
#: The paper preset's model fitted to its optimum: Newton's method to a gradient below 1e-10.
RNSB_BIASLIB = RnsbConvention(
    name="biaslib", test_size=0.1, stratify=False, solver="newton-cholesky", C=2.0, tol=1e-10,
    max_iter=1000, aggregate="words",
    description="the paper preset's split and model (binary, C=2, intercept unpenalised) "
                "fitted to the optimum: newton-cholesky until the gradient is below 1e-10",
)
#: Preset name → convention (``RnsbConvention.of(name)`` looks one up).
RNSB_PRESETS = RnsbConvention.declare_presets(RNSB_PAPER, RNSB_WEFE, RNSB_BIASLIB)


def kl_from_uniform(weights: ArrayLike) -> float:
    r""":math:`D_{KL}(P \Vert U)` of the distribution :math:`P` proportional to ``weights``.

    :math:`\sum_i P_i \log(n P_i)` in nats, with :math:`0 \log 0 = 0`; the weights
    are normalised first (they need not sum to 1).

    Raises
    ------
    ValueError
        If the weights are empty, negative, not finite, or all zero.

    Examples
    --------
    >>> import math
    >>> from biaslib.methods.rnsb import kl_from_uniform
    >>> kl_from_uniform([0.2, 0.2, 0.2]), round(kl_from_uniform([1.0, 0.0]) / math.log(2), 12)
    (0.0, 1.0)
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"need a non-empty list of weights, got shape {w.shape}")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("weights must be finite and non-negative")
    total = float(w.sum())
    if total <= 0.0:
        raise DegenerateTestError("every weight is 0: no distribution to compare")
    p = w / total
    nz = p > 0
    return float(max(0.0, (p[nz] * np.log(p[nz] * p.size)).sum()))


def _groups(groups: Sequence[ArrayLike]) -> list[NDArray[np.float64]]:
    if isinstance(groups, np.ndarray) and groups.ndim == 2:
        raise TypeError("groups must be a list of (n_i, d) arrays, one per identity group, not "
                        "a single matrix (pass [matrix] for one group, or one row per group "
                        "as [[row] for row in matrix])")
    if isinstance(groups, Mapping):
        raise TypeError("groups must be a list of (n_i, d) arrays, not a dict (keys "
                        f"{list(groups)[:5]}); pass list(groups.values())")
    if isinstance(groups, str | bytes) or not isinstance(groups, Iterable):
        raise TypeError(f"groups must be a list of (n_i, d) arrays, got {type(groups).__name__}")
    sets = [as_vectors(g, f"group {i}") for i, g in enumerate(groups)]
    if not sets:
        raise ValueError("groups is empty: RNSB needs identity words to compare")
    return sets


def _refuse_identical(sets: Sequence[NDArray[np.float64]], a: NDArray[np.float64],
                       b: NDArray[np.float64]) -> None:
    """The library's rule for a set compared with itself (as WEAT's X = Y): refuse it.

    A = B leaves the classifier nothing to learn (every probability 0.5, RNSB 0); two
    identical groups compare a group with itself. Either would read as a measured result.
    The vectors as given are compared (a scaled copy is another set, as for WEAT).
    """
    if same_vectors(a, b):
        raise DegenerateTestError(
            "A and B are the same vectors (in some order): the classifier would learn "
            "nothing and every probability would be 0.5; pass two different attribute sets")
    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            if same_vectors(sets[i], sets[j]):
                raise DegenerateTestError(
                    f"groups {i} and {j} are the same vectors (in some order): RNSB "
                    "would compare a group with itself; pass different groups")


def _seed(seed: object) -> int:
    checked = check_seed(seed)
    if checked is None:
        raise TypeError("seed must be an int >= 0: RNSB's split and solver are always seeded "
                        "(same call, same result)")
    return checked


def _fit(A: NDArray[np.float64], B: NDArray[np.float64], conv: RnsbConvention,
         seed: int) -> tuple[LogisticRegression, float]:
    """Fit on rows [B; A] with labels +1 / -1 (as both peers); held-out accuracy or NaN."""
    rows = np.concatenate([B, A])
    labels = np.concatenate([np.ones(B.shape[0]), -np.ones(A.shape[0])])
    accuracy = float("nan")
    if conv.test_size > 0:
        try:
            train, test, y_train, y_test = train_test_split(
                rows, labels, test_size=conv.test_size, shuffle=True, random_state=seed,
                stratify=labels if conv.stratify else None)
        except ValueError as err:  # sklearn: too few words to split (and stratify)
            raise ValueError(f"the attribute sets ({A.shape[0]} negative, {B.shape[0]} positive "
                             f"words) are too small to hold out {conv.test_size:g} of them: "
                             f"{err}") from None
        missing = [name for name, label in (("negative (A)", -1.0), ("positive (B)", 1.0))
                   if not (y_train == label).any()]
        if missing:
            raise ValueError(f"after holding out {conv.test_size:g} of the attribute words no "
                             f"{' or '.join(missing)} word is left to train on; use larger sets "
                             "or a convention with test_size=0")
    else:
        train, y_train, test, y_test = rows, labels, None, None
    model = LogisticRegression(C=conv.C, solver=conv.solver, tol=conv.tol,
                               max_iter=conv.max_iter, random_state=seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model.fit(train, y_train)
    for w in caught:  # others (deprecations) go on as they came
        if not issubclass(w.category, ConvergenceWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if any(issubclass(w.category, ConvergenceWarning) for w in caught):
        # sklearn's message names neither RNSB nor the convention field that fixes it.
        warn_dropped(
            f"RNSB's classifier ({conv.solver}, tol={conv.tol:g}) failed to converge within "
            f"max_iter={conv.max_iter} iterations (convention {conv.name!r}): the probabilities "
            "are not those of the exact fit. Pass convention=<preset>.replace(max_iter=...) "
            "for more iterations", ConvergenceWarning)
    if test is not None:
        accuracy = float(model.score(test, y_test))
    return model, accuracy


def negative_probabilities(
    groups: Sequence[ArrayLike], A: ArrayLike, B: ArrayLike, *, seed: int = 0,
    convention: RnsbConvention | str = RNSB_BIASLIB, normalize: bool = False,
) -> tuple[NDArray[np.float64], float]:
    """P(negative | word) for every word of every group, and the held-out accuracy.

    One fit of :func:`rnsb`'s classifier; the words come group after group, in
    order. The accuracy is on the held-out attribute words (NaN with
    ``test_size=0``).

    Raises
    ------
    DegenerateTestError
        If A and B, or two groups, are the same vectors in some order (as
        WEAT refuses X = Y).

    Warns
    -----
    sklearn.exceptions.ConvergenceWarning
        If the solver stops at ``max_iter`` before reaching ``tol``.
    """
    conv = RnsbConvention.of(convention)
    seed = _seed(seed)
    normalize = check_bool(normalize, "normalize")
    sets = _groups(groups)
    a, b = as_vectors(A, "A"), as_vectors(B, "B")
    _refuse_identical(sets, a, b)
    if normalize:
        a, b = unit_rows(a, "A"), unit_rows(b, "B")
    dims = {"A": a.shape[1], "B": b.shape[1], **{f"group {i}": g.shape[1]
                                                   for i, g in enumerate(sets)}}
    if len(set(dims.values())) != 1:
        raise ValueError(f"the sets differ in dimension: {dims}")
    words = np.concatenate([unit_rows(g) if normalize else g for g in sets])
    model, accuracy = _fit(a, b, conv, seed)
    column = int(np.flatnonzero(model.classes_ == -1.0)[0])
    return model.predict_proba(words)[:, column], accuracy


def rnsb(
    groups: Sequence[ArrayLike], A: ArrayLike, B: ArrayLike, *, seed: int = 0,
    convention: RnsbConvention | str = RNSB_BIASLIB, normalize: bool = False,
    n_iterations: int = 1,
) -> BiasScoreResult:
    r"""RNSB: :math:`D_{KL}(P \Vert U)` of the normalised P(negative) of the identity words.

    Parameters
    ----------
    groups
        The identity groups, a list of ``(n_i, d)`` arrays (one word per group in
        the paper: ``[[v_mexican], [v_german], …]``).
    A, B
        Negative (label 1) and positive (label 0) attribute words.
    seed
        Seeds the held-out split and the solver (same call, same result).
    convention
        ``"biaslib"`` (the default: the paper's model fitted to its optimum),
        ``"paper"`` or ``"wefe"`` (an :class:`RnsbConvention`; see the module
        docstring).
    normalize
        Scale every vector to unit length first.
    n_iterations
        Refit with seeds ``seed, …, seed + n_iterations - 1``; ``effect_size`` is the
        mean of the divergences and ``word_scores`` the mean probabilities (WEFE).

    Returns
    -------
    BiasScoreResult
        ``method="RNSB"``, ``effect_size`` :math:`\ge 0`, ``word_scores`` P(negative |
        word) of every word of every group, in order; ``n_groups`` the number of
        groups; ``options`` the convention's fields, ``seed``, ``n_iterations``
        and the mean held-out ``accuracy``.

    Raises
    ------
    ValueError
        For empty sets, NaN, zero vectors, mismatched dimensions, attribute sets
        too small to hold words out, or ``aggregate="groups"`` with one group.
    TypeError
        If ``groups`` is one matrix or a dict instead of a list of sets.
    DegenerateTestError
        If A and B, or two groups, are the same vectors in some order.

    Warns
    -----
    sklearn.exceptions.ConvergenceWarning
        If the solver stops at ``max_iter`` before reaching the convention's ``tol``.

    Examples
    --------
    Negative words near (−1, 0), positive near (1, 0); identity words at
    (−1, 0), (0, 1) and (1, 0) get decreasing probabilities of being negative:

    >>> from biaslib.methods.rnsb import RNSB_BIASLIB, rnsb
    >>> A = [[-1.0, 0.1], [-1.2, -0.2], [-0.9, 0.3], [-1.1, 0.0]]
    >>> B = [[1.0, 0.2], [1.1, -0.1], [0.8, 0.1], [1.2, 0.3]]
    >>> all_words = RNSB_BIASLIB.replace(test_size=0.0)  # too few words to hold any out
    >>> r = rnsb([[[-1.0, 0.0]], [[0.0, 1.0]], [[1.0, 0.0]]], A, B, convention=all_words)
    >>> bool(r.word_scores[0] > r.word_scores[1] > r.word_scores[2]), r.effect_size > 0
    (True, True)
    """
    conv = RnsbConvention.of(convention)
    n_iterations = check_int(n_iterations, "n_iterations", minimum=1)
    seed = _seed(seed)
    sets = _groups(groups)
    sizes = [g.shape[0] for g in sets]
    if conv.aggregate == "groups" and len(sets) < 2:
        raise ValueError("aggregate='groups' compares groups: need at least two, got 1")
    if conv.aggregate == "words" and sum(sizes) < 2:
        raise ValueError("RNSB compares identity words: need at least two, got 1")
    probs, divergences, accuracies = [], [], []
    for i in range(n_iterations):
        p, acc = negative_probabilities(sets, A, B, seed=seed + i, convention=conv,
                                        normalize=normalize)
        weights = p if conv.aggregate == "words" else np.array(
            [part.mean() for part in np.split(p, np.cumsum(sizes)[:-1])])
        probs.append(p)
        divergences.append(kl_from_uniform(weights))
        accuracies.append(acc)
    word_scores = np.mean(probs, axis=0)
    options = {"convention": conv.name, **{k: v for k, v in conv.to_dict().items()
                                           if k not in ("name", "description")},
               "normalize": bool(normalize), "seed": seed, "n_iterations": n_iterations,
               "accuracy": float(np.mean(accuracies))}
    return BiasScoreResult(method="RNSB", effect_size=float(np.mean(divergences)),
                           word_scores=word_scores, n_words=int(word_scores.size),
                           n_groups=len(sets), options=options)

r"""SAME, skew, stereotype, MAC, Direct Bias and WEAT's word scores (Schröder et al.).

Every cosine-based bias score of Schröder et al., *Evaluating metrics for bias in
word embeddings* (SAME paper, seed 004), has one shape: **define a bias space from
attribute sets, score each word, aggregate over a set of words.** This module
implements the five families in that shape, arrays in and a frozen
:class:`~biaslib.methods.result.BiasScoreResult` out (no torch):

========================  ======================================  =========================
score                     word score :math:`b(w, A)`              set score :math:`b(W, A)`
========================  ======================================  =========================
SAME (binary, eq. 36–37)  :math:`\cos(w, \hat a_i - \hat a_j)`    mean of :math:`|b(w)|`
SAME (multi, eq. 38–43)   :math:`\lVert w_B \rVert`               mean of :math:`b(w)`
skew (eq. 44)             signed binary SAME                      mean of :math:`b(w)`
stereotype (eq. 45)       signed binary SAME                      spread of :math:`b(w)`
WEAT (Caliskan, eq. 3–4)  :math:`s(w, A, B)`                      effect size :math:`d`
MAC (Manzini, eq. 7–8)    :math:`\operatorname{mean}_j S(w,A_j)`  mean over words
Direct Bias (eq. 9)       :math:`|\cos(w, g)|^c`                  mean over words
========================  ======================================  =========================

with :math:`\hat a_i = \operatorname{mean}_{a \in A_i} a / \lVert a \rVert` the mean of
the *unit* attribute vectors of group :math:`i` (eq. 30–32).

Where the paper and its authors' code (``HammerLabML/EmbeddingBiasScores``,
``geometrical_bias/``) differ, both are named options of a
:class:`SameConvention` (presets :data:`SAME_PAPER`, :data:`SAME_CODE`,
:data:`SAME_CODE_PRE_2022_10`) or of the function. The code changed over time in
ways that matter here, so every statement below names the commits it holds at
(short hash and date; ``data/published/same_authors_code.csv`` lists them with
full hashes and the code's own output on GloVe, and
``tests/test_same_authors_code.py`` re-runs the code at those commits when a
copy of the repository is at hand):

multi-attribute SAME
    paper (eq. 42): the norm of the vector of cosines with the orthonormal basis,
    :math:`\lVert (\cos(w, b_1), \dots, \cos(w, b_n)) \rVert`; code
    (``SAME.individual_bias``, 46c9cfa 2022-04-08 to 5e72d36 2024-04-22):
    :math:`|\cos(w, b_1)| + \sum_{i \ge 2} |\cos(w, b'_i)| \, \lVert b'_i \rVert`,
    a sum of absolute cosines in which the later Gram–Schmidt residuals
    :math:`b'_i` keep their length. Its maximum is
    :math:`\sqrt{1 + \sum_{i\ge2} \lVert b'_i \rVert^2}` — it depends on the
    attribute sets, so the code's score is not magnitude-comparable. (At
    0328011 and dc6490a, March 2022, three groups raise a ``TypeError``.)
stereotype
    paper (eq. 45): :math:`\frac{1}{|W|}\sqrt{\sum_w (b(w) - b_{skew})^2}`,
    which is ``np.std`` divided by :math:`\sqrt{|W|}`; code
    (``SAME.stereotype_pairwise``, every commit from 0328011 2022-03-02 to
    5e72d36 2024-04-22): ``np.std`` (``ddof=0``). Eq. 45's maximum is
    :math:`1/\sqrt{|W|}`, not the 1 of the paper's Theorem 18.
sign of the binary score and of the skew
    ``"first"``: positive when :math:`w` is closer to the first attribute set
    (eq. 33 and 44 with :math:`(A_i, A_j)` = (first, second); WEAT's
    :math:`s(w, A, B)`); ``"second"``: positive when closer to the second set.
    The code has two signed functions, and they are oriented *opposite to each
    other at every commit*; commit 0bf1acb (2022-10-17, "switch sign for same
    to match weat") reversed both:

    ==============================  ==========================  ==========================
    code function                   46c9cfa/0328011 – 43f2cce   0bf1acb – 5e72d36
                                    (2022-04-08/03-02 – 10-17)  (2022-10-17 – 2024-04-22)
    ==============================  ==========================  ==========================
    ``signed_individual_bias``      ``"second"``                ``"first"``
    ``skew_pairwise(W, i, j)``      ``"first"``                 ``"second"``
    ==============================  ==========================  ==========================

    (``signed_individual_bias`` exists from 46c9cfa, ``skew_pairwise`` from
    0328011.) The presets follow ``signed_individual_bias``; the code's
    ``skew_pairwise`` is reproduced by the other sign.
MAC's mean
    ``"per_set"``: eq. 7–8 with :math:`N = |A_j|` — the mean cosine distance to
    each attribute set, then the mean over sets (Manzini et al.; WEFE);
    ``"flat"``: one mean over all attribute words of all sets (the authors'
    ``MAC.individual_bias`` at every commit, 0328011 to 5e72d36). They differ
    only when the sets differ in size.
Direct Bias with :math:`k > 1`
    ``subspace="norm"``: the cosine of :math:`w` with its projection onto the
    :math:`k`-dimensional subspace, :math:`\lVert \operatorname{proj}_B \hat w
    \rVert` (the authors' ``DirectBias.individual_bias`` since 1fe40a7,
    2024-01-26, "fix direct bias for multi attribute"); ``"sum"``:
    :math:`\sum_k |\cos(w, b_k)|` (the same function from 0328011, 2022-03-02,
    to 86aea8f, 2023-11-07). Both are :math:`|\cos(w, g)|` for :math:`k = 1`.
    The code's PCA takes the attribute vectors as given, at every commit:
    ``unit_attributes=False`` reproduces it (the default ``True`` scales them
    to unit length first).

Decisions taken on the user's behalf are visible: a multi-attribute direction
that is linearly dependent on the earlier ones is left out of the bias space
(eq. 40's remark) with a :class:`~biaslib.errors.DroppedStimuliWarning`, and is
named in ``result.notes``. Zero directions (two groups with the same mean),
empty sets, unpaired Direct-Bias attribute sets and NaN raise.

References
----------
Schröder, S., Schulz, A., Kenneweg, P., Feldhans, R., Hinder, F. & Hammer, B.
Evaluating Metrics for Bias in Word Embeddings (arXiv 2111.07864; seed 004).
Caliskan, A., Bryson, J. J. & Narayanan, A. (2017). Science 356(6334).
Manzini, T., Lim, Y. C., Tsvetkov, Y. & Black, A. W. (2019). NAACL.
Bolukbasi, T., Chang, K.-W., Zou, J., Saligrama, V. & Kalai, A. (2016). NeurIPS.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from biaslib.errors import DegenerateTestError, warn_dropped
from biaslib.methods.result import BiasScoreResult
from biaslib.methods.weat import association, effect_size
from biaslib.stats.conventions import ConventionBase
from biaslib.stats.similarity import as_vectors, cosine_matrix, unit_rows
from biaslib.validation import check_bool, check_int, check_number

__all__ = [
    "SAME_CODE",
    "SAME_CODE_PRE_2022_10",
    "SAME_PAPER",
    "SAME_PRESETS",
    "SCORE_RANGES",
    "BiasSpace",
    "SameConvention",
    "attribute_means",
    "direct_bias",
    "direct_bias_space",
    "direct_bias_word",
    "mac",
    "mac_word",
    "pairwise_skew_stereotype",
    "same",
    "same_multi_word",
    "same_signed_word",
    "same_space",
    "skew",
    "stereotype",
    "weat_d",
    "weat_word",
]

Sign = Literal["first", "second"]
MultiRule = Literal["norm", "code-sum"]
StereotypeRule = Literal["eq45", "std"]
MacMean = Literal["per_set", "flat"]
Subspace = Literal["norm", "sum"]

#: Relative size below which a Gram–Schmidt residual counts as zero (linearly dependent).
DEPENDENCE_TOL = 1e-10


# --------------------------------------------------------------------------- conventions


@dataclass(frozen=True)
class SameConvention(ConventionBase):
    r"""The choices that differ between the SAME paper and its authors' code.

    SAME computes scores, not p-values: it holds no
    :class:`~biaslib.stats.resampling.Resampling`.

    Attributes
    ----------
    name
        Short identifier.
    multi
        ``"norm"`` (paper, eq. 42: :math:`\lVert w_B \rVert`) or ``"code-sum"``
        (code: :math:`|\cos(w,b_1)| + \sum_{i\ge2}|\cos(w,b'_i)|\,\lVert b'_i\rVert`).
    stereotype
        ``"eq45"`` (paper: ``np.std`` / :math:`\sqrt{|W|}`) or ``"std"`` (code:
        ``np.std``, ``ddof=0``).
    sign
        ``"first"``: the binary score is positive when a word is closer to the
        first attribute set (paper eq. 33, WEAT; the code's
        ``signed_individual_bias`` from 0bf1acb, 2022-10-17); ``"second"``:
        closer to the second (``signed_individual_bias`` before 0bf1acb). The
        code's ``skew_pairwise`` is oriented the other way at every commit (see
        the module docstring).
    description
        Where the convention comes from.
    """

    kind: ClassVar[str] = "SAME convention"

    multi: MultiRule = "norm"
    stereotype: StereotypeRule = "eq45"
    sign: Sign = "first"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.multi not in ("norm", "code-sum"):
            raise ValueError(f"multi must be 'norm' or 'code-sum', got {self.multi!r}")
        if self.stereotype not in ("eq45", "std"):
            raise ValueError(f"stereotype must be 'eq45' or 'std', got {self.stereotype!r}")
        if self.sign not in ("first", "second"):
            raise ValueError(f"sign must be 'first' or 'second', got {self.sign!r}")


#: The paper: eq. 42 (norm of the cosine vector), eq. 45 (stereotype as printed), eq. 33's
#: sign (positive towards the first attribute set, like WEAT's s(w, A, B)).
SAME_PAPER = SameConvention(
    name="same-paper", multi="norm", stereotype="eq45", sign="first",
    description="Schröder et al., eq. 33, 42, 44, 45 as printed",
)
#: The authors' code (HammerLabML/EmbeddingBiasScores, geometrical_bias/same.py) from commit
#: 0bf1acb (2022-10-17) to 5e72d36 (2024-04-22, the newest commit checked): sum of absolute
#: cosines with unnormalised later directions, np.std for the stereotype, and the sign of
#: ``signed_individual_bias``, positive towards the first set. Its ``skew_pairwise(W, i, j)``
#: is positive towards the *second* set:
#: ``skew(..., convention=SAME_CODE.replace(sign="second"))``.
SAME_CODE = SameConvention(
    name="same-code", multi="code-sum", stereotype="std", sign="first",
    description="EmbeddingBiasScores geometrical_bias/same.py at 0bf1acb (2022-10-17) to "
                "5e72d36 (2024-04-22): |cos b1| + sum |cos b'_i| ||b'_i||, np.std, "
                "signed_individual_bias positive towards the first set (its skew_pairwise "
                "is positive towards the second)",
)
#: The same code from 46c9cfa (2022-04-08, where ``signed_individual_bias`` appears) to
#: 43f2cce (2022-10-17), before 0bf1acb reversed the sign: ``signed_individual_bias`` was
#: cos(w, â_1 − â_0), positive towards the second attribute set. Its ``skew_pairwise(W, i,
#: j)`` was positive towards the *first* set, like :data:`SAME_PAPER`.
SAME_CODE_PRE_2022_10 = SAME_CODE.replace(
    name="same-code-pre-2022-10", sign="second",
    description="EmbeddingBiasScores geometrical_bias/same.py at 46c9cfa (2022-04-08) to "
                "43f2cce (2022-10-17): as same-code, but signed_individual_bias "
                "cos(w, mean(A_1) - mean(A_0)) is positive towards the second set (its "
                "skew_pairwise is positive towards the first)",
)
#: Preset name → convention (``SameConvention.of(name)`` looks one up).
SAME_PRESETS = SameConvention.declare_presets(SAME_PAPER, SAME_CODE, SAME_CODE_PRE_2022_10)


#: Score name → (b_min, b_0, b_max) as the paper states them (§3.2, §4); ``nan`` where the
#: bound depends on the attribute sets or on the number of words (see
#: :mod:`biaslib.methods.same_properties`). WEAT's ±2 is the paper's bound for equal set
#: sizes; with :math:`n_X \ne n_Y` the sample-SD effect size reaches
#: :math:`\sqrt{n(n-1)/(n_X n_Y)}`, :math:`n = n_X + n_Y` (about 2.449 for 5 words against 1:
#: :func:`~biaslib.methods.same_properties.weat_d_bound`).
SCORE_RANGES: dict[str, tuple[float, float, float]] = {
    "SAME": (0.0, 0.0, 1.0),
    "SAME (signed word)": (-1.0, 0.0, 1.0),
    "skew": (-1.0, 0.0, 1.0),
    "stereotype": (0.0, 0.0, 1.0),
    "WEAT (word)": (math.nan, 0.0, math.nan),
    "WEAT d": (-2.0, 0.0, 2.0),
    "MAC": (0.0, 1.0, 2.0),
    "Direct Bias": (0.0, 0.0, 1.0),
}


# --------------------------------------------------------------------------- bias spaces


@dataclass(frozen=True)
class BiasSpace:
    r"""A bias space built from attribute sets.

    Attributes
    ----------
    kind
        ``"same"`` (mean directions, Gram–Schmidt) or ``"direct_bias"`` (PCA).
    basis
        Orthonormal rows :math:`b_1, \dots, b_k`, shape ``(k, d)``.
    raw_norms
        SAME: :math:`\lVert b'_i \rVert` of each kept direction before
        normalisation (:math:`b'_1 = \hat a_1 - \hat a_0`); Direct Bias: the
        singular values of the centred defining-set matrix.
    means
        SAME: the group means :math:`\hat a_i` of unit attribute vectors,
        shape ``(n, d)``; Direct Bias: the defining-set means :math:`\mu_i`.
    kept
        SAME: the group index :math:`i` of each kept direction
        :math:`\hat a_i - \hat a_0`; Direct Bias: the component numbers.
    left_out
        SAME: groups whose direction was linearly dependent on earlier ones.
    explained_variance_ratio
        Direct Bias: the share of variance of each of the ``k`` components
        (empty for SAME).
    """

    kind: str
    basis: NDArray[np.float64] = field(repr=False)
    raw_norms: NDArray[np.float64] = field(repr=False)
    means: NDArray[np.float64] = field(repr=False)
    kept: tuple[int, ...]
    left_out: tuple[int, ...] = ()
    explained_variance_ratio: tuple[float, ...] = ()

    @property
    def dim(self) -> int:
        """Number of basis vectors (the bias space's dimension)."""
        return int(self.basis.shape[0])


# --------------------------------------------------------------------------- helpers


def _sets(attribute_sets: Sequence[ArrayLike], minimum: int = 2) -> list[NDArray[np.float64]]:
    if isinstance(attribute_sets, np.ndarray) and attribute_sets.ndim == 2:
        raise TypeError("attribute_sets must be a list of (n_i, d) arrays, one per group, "
                        "not a single matrix")
    if isinstance(attribute_sets, Mapping):
        # Iterating a dict gives its keys: the names, not the vectors.
        raise TypeError("attribute_sets must be a list of (n_i, d) arrays, one per group, not a "
                        f"dict (keys {list(attribute_sets)[:5]}); pass "
                        "list(attribute_sets.values())")
    if isinstance(attribute_sets, str | bytes) or not isinstance(attribute_sets, Iterable):
        raise TypeError("attribute_sets must be a list of (n_i, d) arrays, one per group, got "
                        f"{type(attribute_sets).__name__}")
    sets = [as_vectors(a, f"attribute set {i}") for i, a in enumerate(attribute_sets)]
    if len(sets) < minimum:
        raise ValueError(f"need at least {minimum} attribute sets to measure bias, "
                         f"got {len(sets)}")
    dims = {a.shape[1] for a in sets}
    if len(dims) != 1:
        raise ValueError(f"attribute sets differ in dimension: {sorted(dims)}")
    return sets


def _targets(targets: ArrayLike, dim: int) -> NDArray[np.float64]:
    w = as_vectors(targets, "targets")
    if w.shape[1] != dim:
        raise ValueError(f"targets have dimension {w.shape[1]}, attribute sets {dim}")
    return w


def attribute_means(attribute_sets: Sequence[ArrayLike]) -> NDArray[np.float64]:
    r"""The mean :math:`\hat a_i` of the unit attribute vectors of each group (eq. 30–32).

    With unit attribute vectors, :math:`s(w, A_i) = \operatorname{mean}_{a}\cos(w,a)
    = \hat w \cdot \hat a_i`.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_groups, d)``.

    Examples
    --------
    >>> from biaslib.methods.same import attribute_means
    >>> attribute_means([[[2.0, 0.0], [0.0, 3.0]], [[0.0, -1.0]]]).tolist()
    [[0.5, 0.5], [0.0, -1.0]]
    """
    return np.stack([unit_rows(a, f"attribute set {i}").mean(axis=0)
                     for i, a in enumerate(_sets(attribute_sets, minimum=1))])


def _cos_with(words: NDArray[np.float64], directions: NDArray[np.float64]) -> NDArray[np.float64]:
    """Cosine of each (unit) word with each unit direction, shape (n_words, k)."""
    return np.clip(unit_rows(words, "targets") @ directions.T, -1.0, 1.0)


# --------------------------------------------------------------------------- bias spaces


def same_space(attribute_sets: Sequence[ArrayLike], *, tol: float = DEPENDENCE_TOL) -> BiasSpace:
    r"""SAME's bias space: directions :math:`\hat a_i - \hat a_0`, orthonormalised (eq. 38–40).

    :math:`b_1 = (\hat a_1 - \hat a_0) / \lVert\cdot\rVert`; every later direction has
    its components along the earlier basis vectors removed (modified
    Gram–Schmidt) and is normalised. A direction whose residual is below ``tol``
    times its length is linearly dependent on the earlier ones: it is left out,
    as eq. 40's remark allows, with a warning and in :attr:`BiasSpace.left_out`.

    Raises
    ------
    DegenerateTestError
        If :math:`\hat a_1 = \hat a_0` (or any group's mean equals
        :math:`\hat a_0`): the direction is zero and no cosine is defined.
    ValueError
        For fewer than two sets, empty sets, NaN or zero vectors.

    Examples
    --------
    Three groups in the plane: the third group's mean, (0.5, 0.5), lies on the
    line through the first two, so its direction adds nothing; the space has
    one dimension and the third group is left out.

    >>> import warnings
    >>> from biaslib.methods.same import same_space
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     space = same_space([[[1.0, 0.0]], [[0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]]])
    >>> space.dim, space.kept, space.left_out
    (1, (1,), (2,))
    """
    sets = _sets(attribute_sets)
    means = attribute_means(sets)
    basis: list[NDArray[np.float64]] = []
    norms: list[float] = []
    kept: list[int] = []
    left_out: list[int] = []
    for i in range(1, len(sets)):
        direction = means[i] - means[0]
        length = float(np.linalg.norm(direction))
        if length <= tol * max(1.0, float(np.abs(means).max())):
            raise DegenerateTestError(
                f"attribute sets 0 and {i} have the same mean unit vector: their bias direction "
                "is the zero vector and no cosine with it is defined")
        residual = direction.copy()
        for b in basis:
            residual -= (residual @ b) * b
        r = float(np.linalg.norm(residual))
        if r <= tol * length:
            left_out.append(i)
            continue
        basis.append(residual / r)
        norms.append(r)
        kept.append(i)
    if left_out:
        warn_dropped(f"SAME: the directions of attribute sets {left_out} (relative to set 0) are "
                     "linearly dependent on earlier ones and were left out of the bias space "
                     f"(dimension {len(basis)} instead of {len(sets) - 1})")
    return BiasSpace(kind="same", basis=np.stack(basis), raw_norms=np.asarray(norms),
                     means=means, kept=tuple(kept), left_out=tuple(left_out))


def direct_bias_space(
    attribute_sets: Sequence[ArrayLike],
    k: int = 1,
    *,
    unit_attributes: bool = True,
    min_explained_variance: float | None = None,
) -> BiasSpace:
    r"""Bolukbasi et al.'s bias subspace: the first ``k`` principal components (§2.2.3).

    The attribute sets are *paired*: row :math:`r` of every set forms the
    defining set :math:`D_r = \{a_{1r}, \dots, a_{nr}\}` (e.g. she/he). Each
    defining set is centred on its mean :math:`\mu_r`, and the principal
    components of all :math:`a_{ir} - \mu_r` span the subspace (they are
    centred already, so PCA is an SVD).

    Parameters
    ----------
    attribute_sets
        ``n`` arrays of the same shape ``(n_pairs, d)``, row ``r`` of each
        belonging to defining set ``r``.
    k
        Dimension of the subspace (1: the gender direction :math:`g`).
    unit_attributes
        Scale attribute vectors to unit length first (debiaswe normalises its
        embeddings; the SAME authors' ``DirectBias`` does not).
    min_explained_variance
        If given, raise when the ``k`` components explain less than this share
        of the variance: the direction would then describe the attribute
        words' spread more than the contrast between groups (the paper's
        Theorem 12).

    Raises
    ------
    ValueError
        If sets differ in size (unpaired), ``k`` exceeds the rank, or the
        explained variance is below ``min_explained_variance``.
    DegenerateTestError
        If every defining set has identical members (no variance at all).
    """
    sets = _sets(attribute_sets)
    sizes = {a.shape[0] for a in sets}
    if len(sizes) != 1:
        raise ValueError("Direct Bias needs paired attribute sets (one defining set per row), "
                         f"got sizes {[a.shape[0] for a in sets]}")
    k = check_int(k, "k", minimum=1)
    unit_attributes = check_bool(unit_attributes, "unit_attributes")
    min_explained_variance = check_number(min_explained_variance, "min_explained_variance",
                                          minimum=0.0, maximum=1.0, allow_none=True)
    stack = np.stack([unit_rows(a) if unit_attributes else a for a in sets])  # (n, pairs, d)
    centres = stack.mean(axis=0)
    rows = (stack - centres[None]).reshape(-1, stack.shape[2])
    _, sing, vt = np.linalg.svd(rows, full_matrices=False)
    total = float((sing**2).sum())
    if total <= 1e-24 * max(1.0, float(np.abs(stack).max())) ** 2:
        raise DegenerateTestError("the defining sets have no variance: every pair is one vector")
    rank = int((sing > 1e-12 * sing[0]).sum())
    if k > rank:
        raise ValueError(f"k={k} exceeds the rank {rank} of the centred defining sets")
    ratio = tuple(float(s**2 / total) for s in sing[:k])
    if min_explained_variance is not None and sum(ratio) < min_explained_variance:
        raise ValueError(f"the first {k} component(s) explain {sum(ratio):.3f} of the variance, "
                         f"less than min_explained_variance={min_explained_variance}")
    basis = vt[:k].copy()
    # Orient each component towards the first set's side, so that directions are comparable.
    signs = np.sign((centres - stack[0]).mean(axis=0) @ basis.T)
    basis *= np.where(signs == 0, 1.0, -signs)[:, None]
    return BiasSpace(kind="direct_bias", basis=basis, raw_norms=sing[:k].copy(), means=centres,
                     kept=tuple(range(1, k + 1)), explained_variance_ratio=ratio)


# --------------------------------------------------------------------------- word scores


def same_signed_word(
    targets: ArrayLike, attr_a: ArrayLike, attr_b: ArrayLike, sign: Sign = "first"
) -> NDArray[np.float64]:
    r"""SAME's binary word bias :math:`b(w, A, B) = \cos(w, \hat a_A - \hat a_B)` (eq. 33–36).

    Parameters
    ----------
    targets
        Word vectors, ``(n, d)``.
    attr_a, attr_b
        The two attribute sets.
    sign
        ``"first"`` (positive when closer to ``attr_a``; paper, WEAT, the code's
        ``signed_individual_bias`` from 0bf1acb, 2022-10-17) or ``"second"``
        (``signed_individual_bias`` before 0bf1acb; ``skew_pairwise`` from it).

    Raises
    ------
    DegenerateTestError
        If both sets have the same mean unit vector (zero direction).

    Examples
    --------
    >>> from biaslib.methods.same import same_signed_word
    >>> w = [[3.0, 4.0], [4.0, 3.0]]
    >>> same_signed_word(w, [[1.0, 0.0]], [[0.0, 1.0]]).round(4).tolist()
    [-0.1414, 0.1414]
    >>> same_signed_word(w, [[1.0, 0.0]], [[0.0, 1.0]], sign="second").round(4).tolist()
    [0.1414, -0.1414]
    """
    if sign not in ("first", "second"):
        raise ValueError(f"sign must be 'first' or 'second', got {sign!r}")
    means = attribute_means([attr_a, attr_b])
    direction = means[0] - means[1]
    length = float(np.linalg.norm(direction))
    if length <= DEPENDENCE_TOL * max(1.0, float(np.abs(means).max())):
        raise DegenerateTestError("both attribute sets have the same mean unit vector: the bias "
                                  "direction is zero")
    w = _targets(targets, direction.size)
    b = _cos_with(w, (direction / length)[None])[:, 0]
    return b if sign == "first" else -b


def same_multi_word(
    targets: ArrayLike, space: BiasSpace, rule: MultiRule = "norm"
) -> NDArray[np.float64]:
    r"""SAME's word bias magnitude over a bias space (eq. 41–42, or the code's sum).

    ``rule="norm"``: :math:`\lVert w_B \rVert = \lVert(\cos(w,b_1), \dots,
    \cos(w,b_n))\rVert` (paper, in :math:`[0, 1]`); ``"code-sum"``:
    :math:`|\cos(w,b_1)| + \sum_{i\ge2} |\cos(w,b_i)|\,\lVert b'_i\rVert`
    (code, in :math:`[0, \sqrt{1 + \sum_{i\ge2}\lVert b'_i\rVert^2}]`). For two
    groups both are :math:`|\cos(w, \hat a_1 - \hat a_0)|`.
    """
    if space.kind != "same":
        raise ValueError("same_multi_word needs a SAME bias space (same_space)")
    w = _targets(targets, space.basis.shape[1])
    cos = _cos_with(w, space.basis)
    if rule == "norm":
        return np.sqrt((cos**2).sum(axis=1))
    if rule == "code-sum":
        weights = np.concatenate([[1.0], space.raw_norms[1:]])
        return np.abs(cos) @ weights
    raise ValueError(f"rule must be 'norm' or 'code-sum', got {rule!r}")


def weat_word(targets: ArrayLike, attr_a: ArrayLike, attr_b: ArrayLike) -> NDArray[np.float64]:
    r"""WEAT's word score :math:`s(w, A, B)` (eq. 3): :func:`biaslib.methods.weat.association`.

    For unit attribute vectors :math:`s(w,A,B) = \lVert\hat a_A - \hat a_B\rVert
    \cdot b(w, A, B)` (eq. 46–48): WEAT's word score is SAME's scaled by a
    factor that depends on the attribute sets (Theorem 2).
    """
    return association(targets, attr_a, attr_b)


def mac_word(
    targets: ArrayLike, attribute_sets: Sequence[ArrayLike], mean: MacMean = "per_set"
) -> NDArray[np.float64]:
    r"""MAC of each word: the mean cosine distance :math:`1 - \cos(t, a)` to the attributes.

    ``mean="per_set"``: :math:`\frac{1}{|A|}\sum_j \frac{1}{|A_j|}\sum_{a \in A_j}
    (1 - \cos(t, a))` (Manzini et al., eq. 7–8 with :math:`N = |A_j|`; WEFE);
    ``"flat"``: the mean over all attribute words of all sets at once (the
    SAME authors' ``MAC.individual_bias``). Equal set sizes give equal values.

    Examples
    --------
    >>> from biaslib.methods.same import mac_word
    >>> sets = [[[1.0, 0.0]], [[0.0, 1.0], [0.0, 2.0], [0.0, 3.0]]]
    >>> float(mac_word([[1.0, 0.0]], sets, "per_set")[0]), float(mac_word([[1.0, 0.0]], sets,
    ...                                                                     "flat")[0])
    (0.5, 0.75)
    """
    sets = _sets(attribute_sets)
    w = _targets(targets, sets[0].shape[1])
    dist = [1.0 - cosine_matrix(w, a, "targets", f"attribute set {i}")
            for i, a in enumerate(sets)]
    if mean == "per_set":
        return np.mean([d.mean(axis=1) for d in dist], axis=0)
    if mean == "flat":
        return np.concatenate(dist, axis=1).mean(axis=1)
    raise ValueError(f"mean must be 'per_set' or 'flat', got {mean!r}")


def direct_bias_word(
    targets: ArrayLike, space: BiasSpace, c: float = 1.0, subspace: Subspace = "norm"
) -> NDArray[np.float64]:
    r"""Direct Bias of each word, :math:`|\cos(w, g)|^c` (Bolukbasi et al.; eq. 9).

    For a ``k``-dimensional space: ``subspace="norm"`` uses
    :math:`\lVert \operatorname{proj}_B \hat w \rVert` (the cosine of :math:`w`
    with the subspace; the SAME authors' ``DirectBias`` since 1fe40a7,
    2024-01-26), ``"sum"`` :math:`\sum_k |\cos(w, b_k)|` (their code from
    0328011, 2022-03-02, to 86aea8f, 2023-11-07). ``c`` is the strictness
    (:math:`c \ge 0`; Theorem 11).
    """
    if space.kind != "direct_bias":
        raise ValueError("direct_bias_word needs a Direct Bias space (direct_bias_space)")
    c = check_number(c, "c", minimum=0.0)
    w = _targets(targets, space.basis.shape[1])
    cos = _cos_with(w, space.basis)
    if subspace == "norm":
        base = np.sqrt((cos**2).sum(axis=1))
    elif subspace == "sum":
        base = np.abs(cos).sum(axis=1)
    else:
        raise ValueError(f"subspace must be 'norm' or 'sum', got {subspace!r}")
    return base**c


# --------------------------------------------------------------------------- set scores


def same(
    targets: ArrayLike,
    attribute_sets: Sequence[ArrayLike],
    *,
    convention: SameConvention | str = SAME_PAPER,
) -> BiasScoreResult:
    r"""SAME of a set of words: the mean word bias magnitude (eq. 37 and 43).

    Two attribute sets: :math:`\frac{1}{|W|}\sum_w |\cos(w, \hat a_0 - \hat a_1)|`;
    more: :math:`\frac{1}{|W|}\sum_w \lVert w_B\rVert` over :func:`same_space`
    (or the code's sum, by ``convention.multi``). In :math:`[0, 1]` for the
    paper's rule (Theorem 14); 0 exactly when every word is equally similar to
    all groups (Theorem 13).

    Examples
    --------
    >>> from biaslib.methods.same import same
    >>> result = same([[3.0, 4.0], [4.0, 3.0]], [[[1.0, 0.0]], [[0.0, 1.0]]])
    >>> result.method, round(result.effect_size, 4), result.n_groups
    ('SAME', 0.1414, 2)
    """
    conv = SameConvention.of(convention)
    space = same_space(attribute_sets)
    words = same_multi_word(targets, space, conv.multi)
    notes = tuple(f"attribute set {i} left out (linearly dependent direction)"
                  for i in space.left_out)
    return BiasScoreResult(method="SAME", effect_size=float(words.mean()), word_scores=words,
                           n_words=words.size, n_groups=len(space.means),
                           options={"convention": conv.name, "multi": conv.multi}, notes=notes)


def skew(
    targets: ArrayLike, attr_a: ArrayLike, attr_b: ArrayLike, *,
    convention: SameConvention | str = SAME_PAPER,
) -> BiasScoreResult:
    r"""SAME's skew: the mean signed word bias, :math:`\frac{1}{|W|}\sum_w b(w, A, B)` (eq. 44).

    Skew-sensitive but not stereotype-sensitive (Theorem 15): two words biased
    equally in opposite directions give 0.
    """
    conv = SameConvention.of(convention)
    b = same_signed_word(targets, attr_a, attr_b, conv.sign)
    return BiasScoreResult(method="skew", effect_size=float(b.mean()), word_scores=b,
                           n_words=b.size, n_groups=2,
                           options={"convention": conv.name, "sign": conv.sign})


def stereotype(
    targets: ArrayLike, attr_a: ArrayLike, attr_b: ArrayLike, *,
    convention: SameConvention | str = SAME_PAPER,
) -> BiasScoreResult:
    r"""SAME's stereotype: the spread of the signed word biases (eq. 45, or ``np.std``).

    Paper (eq. 45): :math:`\frac{1}{|W|}\sqrt{\sum_w (b(w) - b_{skew})^2}
    = \operatorname{std}_0(b) / \sqrt{|W|}`; code: :math:`\operatorname{std}_0(b)`
    (``np.std``, ``ddof=0``). Stereotype-sensitive but not skew-sensitive
    (Theorem 16). Eq. 45 reaches at most :math:`1/\sqrt{|W|}` — the 1 of
    Theorem 18 only for a single word, where it is 0.

    Examples
    --------
    >>> import numpy as np
    >>> from biaslib.methods.same import SAME_CODE, stereotype
    >>> rad = np.deg2rad([10.0, 80.0, 30.0, 60.0])
    >>> W = np.column_stack([np.cos(rad), np.sin(rad)])
    >>> paper = stereotype(W, [[1.0, 0.0]], [[0.0, 1.0]]).effect_size
    >>> code = stereotype(W, [[1.0, 0.0]], [[0.0, 1.0]], convention=SAME_CODE).effect_size
    >>> round(code / paper, 6)  # sqrt(|W|)
    2.0
    """
    conv = SameConvention.of(convention)
    b = same_signed_word(targets, attr_a, attr_b, conv.sign)
    sd = float(b.std(ddof=0))
    value = sd / math.sqrt(b.size) if conv.stereotype == "eq45" else sd
    return BiasScoreResult(method="stereotype", effect_size=value, word_scores=b, n_words=b.size,
                           n_groups=2, options={"convention": conv.name,
                                                "stereotype": conv.stereotype})


def pairwise_skew_stereotype(
    targets: ArrayLike,
    attribute_sets: Sequence[ArrayLike],
    names: Sequence[str] | None = None,
    *,
    convention: SameConvention | str = SAME_PAPER,
) -> pd.DataFrame:
    """Skew and stereotype for every pair of attribute sets (§4.4.2, multiple attributes).

    Returns
    -------
    pandas.DataFrame
        One row per pair ``(first, second)`` with ``skew`` and ``stereotype``.
    """
    sets = _sets(attribute_sets)
    names = list(names) if names is not None else [str(i) for i in range(len(sets))]
    if len(names) != len(sets):
        raise ValueError(f"{len(names)} names for {len(sets)} attribute sets")
    rows = []
    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            rows.append({"first": names[i], "second": names[j],
                         "skew": skew(targets, sets[i], sets[j],
                                      convention=convention).effect_size,
                         "stereotype": stereotype(targets, sets[i], sets[j],
                                                  convention=convention).effect_size})
    return pd.DataFrame(rows)


def mac(
    targets: ArrayLike, attribute_sets: Sequence[ArrayLike], *, mean: MacMean = "per_set"
) -> BiasScoreResult:
    r"""MAC (Manzini et al. 2019): the mean over words of :func:`mac_word` (eq. 8).

    0 means every target coincides with every attribute, 1 "no bias" in the
    paper's reading (:math:`b_0 = 1`), 2 the opposite of every attribute.
    Neither trustworthy nor comparable (Theorems 8–10).
    """
    words = mac_word(targets, attribute_sets, mean)
    return BiasScoreResult(method="MAC", effect_size=float(words.mean()), word_scores=words,
                           n_words=words.size, n_groups=len(attribute_sets),
                           options={"mean": mean})


def direct_bias(
    targets: ArrayLike,
    attribute_sets: Sequence[ArrayLike],
    *,
    k: int = 1,
    c: float = 1.0,
    subspace: Subspace = "norm",
    unit_attributes: bool = True,
    min_explained_variance: float | None = None,
) -> BiasScoreResult:
    r"""Direct Bias (Bolukbasi et al. 2016): :math:`\frac{1}{|W|}\sum_w |\cos(w, g)|^c`.

    The subspace comes from :func:`direct_bias_space` (PCA over the paired
    attribute sets' defining sets); ``k``, ``c``, ``subspace``,
    ``unit_attributes`` and ``min_explained_variance`` are passed on.

    Examples
    --------
    The paper's Theorem 12: with :math:`r > 1`, the first principal component
    of the defining sets is the y-axis, so a word on the y-axis — equally
    similar to both groups — gets the maximal bias 1:

    >>> from biaslib.methods.same import direct_bias
    >>> a = [[-1.0, 2.0], [-1.0, -2.0]]
    >>> c = [[1.0, -2.0], [1.0, 2.0]]
    >>> round(direct_bias([[0.0, 1.0]], [a, c], unit_attributes=False).effect_size, 6)
    1.0
    >>> round(direct_bias([[1.0, 0.0]], [a, c], unit_attributes=False).effect_size, 6)
    0.0
    """
    k = check_int(k, "k", minimum=1)  # numpy ints accepted, stored as Python ones
    check_number(c, "c", minimum=0.0)  # options keep c as given
    space = direct_bias_space(attribute_sets, k, unit_attributes=unit_attributes,
                              min_explained_variance=min_explained_variance)
    words = direct_bias_word(targets, space, c, subspace)
    return BiasScoreResult(
        method="Direct Bias", effect_size=float(words.mean()), word_scores=words,
        n_words=words.size, n_groups=len(attribute_sets),
        options={"k": k, "c": c, "subspace": subspace, "unit_attributes": unit_attributes,
                 "explained_variance": round(sum(space.explained_variance_ratio), 6)})


def weat_d(
    X: ArrayLike, Y: ArrayLike, attr_a: ArrayLike, attr_b: ArrayLike, *, ddof: int = 1
) -> BiasScoreResult:
    r"""WEAT's effect size :math:`d(X, Y, A, B)` (eq. 4) as a set score.

    :func:`biaslib.methods.weat.effect_size` on :func:`weat_word`; ``ddof=1``
    as Caliskan et al. and the SAME authors' ``weat.py`` (``np.std(..., ddof=1)`` at
    every commit, 0328011 of 2022-03-02 to 5e72d36 of 2024-04-22).
    ``word_scores`` holds :math:`s(w, A, B)` of X then Y.
    """
    s_x = weat_word(X, attr_a, attr_b)
    s_y = weat_word(Y, attr_a, attr_b)
    d = effect_size(s_x, s_y, ddof=ddof)
    return BiasScoreResult(method="WEAT d", effect_size=d, word_scores=np.concatenate([s_x, s_y]),
                           n_words=s_x.size + s_y.size, n_groups=2,
                           options={"ddof": ddof, "n_x": s_x.size, "n_y": s_y.size})

r"""Indirect bias of Bolukbasi et al. (2016), with the bias direction it needs.

Bolukbasi, Chang, Zou, Saligrama & Kalai, *Man is to Computer Programmer as
Woman is to Homemaker? Debiasing Word Embeddings* (NeurIPS 2016), §5
("Indirect bias"): split each unit word vector into its part along the gender
direction :math:`g` and the rest, :math:`w = w_g + w_\perp` with
:math:`w_g = (w \cdot g)\, g`. The share of the similarity of two words that is
due to :math:`g` is

.. math::

    \beta(w, v) = \Bigl(w \cdot v - \frac{w_\perp \cdot v_\perp}
                  {\lVert w_\perp \rVert_2 \, \lVert v_\perp \rVert_2}\Bigr)
                  \Big/ \, (w \cdot v).

The direction :math:`g` is the first principal component of the defining pairs
(§5, "Identifying the gender subspace"): each pair :math:`(x_i, y_i)` is centred
on its mean and the principal components of the centred vectors are taken
(:func:`biaslib.methods.same.direct_bias_space`, shared with Direct Bias).

What follows from the definition (tested in ``tests/test_indirect_bias.py``), for
unit :math:`w, v`, :math:`a = w \cdot g`, :math:`b = v \cdot g` and
:math:`c = \cos(w_\perp, v_\perp)`, so that
:math:`w \cdot v = ab + \sqrt{1-a^2}\sqrt{1-b^2}\,c`:

* :math:`\beta = 0` when both words are orthogonal to :math:`g` (then
  :math:`w_\perp = w`, :math:`v_\perp = v`);
* :math:`\beta = 1 - 1/\lVert v_\perp \rVert \le 0` when only :math:`w` is
  orthogonal to :math:`g`: an indirect bias can be negative;
* :math:`\beta = 1` when :math:`w_\perp \perp v_\perp` (all similarity through
  :math:`g`);
* :math:`\beta \le 1` if and only if :math:`c` and :math:`w \cdot v` do not have
  opposite signs. :math:`w \cdot v > 0` alone does **not** bound :math:`\beta`:
  :math:`w = 0.8 g + 0.6 e`, :math:`v = 0.8 g - 0.6 e` give :math:`w \cdot v = 0.28`,
  :math:`c = -1` and :math:`\beta = 1 + 1/0.28`;
* :math:`\beta` is symmetric in :math:`w, v`, and unchanged by :math:`g \to -g`
  and by scaling either word (words are scaled to unit length first).

Where the peers differ (the formula of :math:`\beta` is the same in all of them):

direction
    ``method="pca"`` (paper §5; Bolukbasi's ``debiaswe`` code; responsibly
    ``responsibly/we/bias.py`` ``_identify_subspace_by_pca``: pairs centred on
    their mean, sklearn PCA, first component); ``"difference"``:
    :math:`\operatorname{unit}(\bar{\hat x} - \bar{\hat y})`, the mean unit
    vector of X minus that of Y (responsibly's ``method='single'`` for one pair,
    :math:`\operatorname{unit}(\hat x - \hat y)`; Gonen & Goldberg's he − she);
    ``"sum"``: :math:`\operatorname{unit}(\operatorname{unit}(\sum x) -
    \operatorname{unit}(\sum y))` (responsibly's ``method='sum'``). The paper's
    text says "the ten gender pair difference vectors" and PCA; its code and
    responsibly centre the pairs instead: for a pair, :math:`x - \mu = (x-y)/2`
    and :math:`y - \mu = -(x-y)/2`, so the two agree only if the difference
    vectors are not centred again (sklearn's PCA of the raw differences would
    subtract their mean, the gender direction itself).
unit vectors before the PCA
    paper/``debiaswe`` and responsibly normalise every vector (``normalize``);
    EBS ``geometrical_bias/direct_bias.py`` (``DirectBias.pca_bias_subspace``,
    which has no indirect bias) takes the vectors as given.
explained variance
    responsibly raises ``RuntimeError`` when the first component explains less
    than 0.5 of the variance (``FIRST_PC_THRESHOLD``, ``bias.py`` line 104, used
    in ``_identify_direction``); the ``"responsibly"`` convention sets
    ``min_explained_variance=0.5`` (a :class:`ValueError` here). It also fits 10
    components, so it needs at least 5 pairs; here any number of pairs works.
zero denominators
    responsibly (``calc_indirect_bias``) divides by :math:`w \cdot v` and by the
    norms of :math:`w_\perp, v_\perp` without a check (NaN or inf); here both
    raise :class:`~biaslib.errors.DegenerateTestError`.

The sign of :math:`g` (oriented towards X) does not change :math:`\beta`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biaslib.errors import DegenerateTestError, UnknownNameError
from biaslib.methods.result import BiasScoreResult
from biaslib.methods.same import direct_bias_space
from biaslib.stats.conventions import ConventionBase
from biaslib.stats.similarity import as_vectors, unit_rows
from biaslib.validation import check_bool, check_number, real_array

__all__ = [
    "INDIRECT_EBS",
    "INDIRECT_PAPER",
    "INDIRECT_PRESETS",
    "INDIRECT_RESPONSIBLY",
    "IndirectBiasConvention",
    "bias_direction",
    "indirect_bias",
    "indirect_bias_pair",
]

#: How the bias direction is found (:func:`bias_direction`).
Method = Literal["pca", "difference", "sum"]


@dataclass(frozen=True)
class IndirectBiasConvention(ConventionBase):
    """How the peers find the bias direction :math:`g` (the module docstring).

    Attributes
    ----------
    name
        Short identifier (a preset's key).
    normalize
        Scale every vector to unit length before the direction is found.
    min_explained_variance
        For ``method="pca"``: refuse a first component that explains less than
        this share of the variance (``None``: no floor).
    description
        Where the convention comes from.
    """

    kind: ClassVar[str] = "indirect-bias convention"

    normalize: bool = True
    min_explained_variance: float | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        check_bool(self.normalize, "normalize")
        check_number(self.min_explained_variance, "min_explained_variance", minimum=0.0,
                     maximum=1.0, allow_none=True)


#: Bolukbasi et al. (2016) §5 and their ``debiaswe`` code.
INDIRECT_PAPER = IndirectBiasConvention(
    name="paper", normalize=True, min_explained_variance=None,
    description="Bolukbasi et al. 2016 §5 and debiaswe: unit vectors, PCA of centred pairs",
)
#: responsibly's ``BiasWordEmbedding`` (``responsibly/we/bias.py``).
INDIRECT_RESPONSIBLY = IndirectBiasConvention(
    name="responsibly", normalize=True, min_explained_variance=0.5,
    description="responsibly/we/bias.py _identify_direction: unit vectors, PCA, first "
                "component must explain >= 0.5",
)
#: EBS's ``DirectBias.pca_bias_subspace`` (it has no indirect bias): the vectors as given.
INDIRECT_EBS = IndirectBiasConvention(
    name="ebs", normalize=False, min_explained_variance=None,
    description="EmbeddingBiasScores geometrical_bias/direct_bias.py: PCA of the vectors as "
                "given",
)
#: Preset name → convention (``IndirectBiasConvention.of(name)`` looks one up).
INDIRECT_PRESETS = IndirectBiasConvention.declare_presets(
    INDIRECT_PAPER, INDIRECT_RESPONSIBLY, INDIRECT_EBS)

#: Relative size below which a dot product or a norm counts as zero.
_ZERO_TOL = 1e-12


def _pair_sets(X: ArrayLike, Y: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    x, y = as_vectors(X, "X"), as_vectors(Y, "Y")
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"X and Y differ in dimension: {x.shape[1]} vs {y.shape[1]}")
    return x, y


def _unit(v: NDArray[np.float64], what: str) -> NDArray[np.float64]:
    n = float(np.linalg.norm(v))
    if n <= _ZERO_TOL * max(1.0, float(np.abs(v).max(initial=0.0))) or n == 0.0:
        raise DegenerateTestError(f"{what} is the zero vector: no direction is defined "
                                  "(X and Y have the same mean)")
    return v / n


def bias_direction(
    X: ArrayLike,
    Y: ArrayLike,
    *,
    method: Method = "pca",
    convention: IndirectBiasConvention | str = INDIRECT_PAPER,
    normalize: bool | None = None,
) -> NDArray[np.float64]:
    r"""The unit bias direction :math:`g` of the pairs :math:`(X_i, Y_i)`, oriented towards X.

    Parameters
    ----------
    X, Y
        ``(n, d)`` arrays; for ``method="pca"`` row ``i`` of X and row ``i`` of Y
        form a defining pair (she/he), so both need ``n`` rows. The other
        methods take sets of any sizes.
    method
        ``"pca"``: first principal component of the pairs centred on their
        means (Bolukbasi et al. 2016 §5; responsibly's ``'pca'``);
        ``"difference"``: :math:`\operatorname{unit}(\operatorname{mean}\hat x -
        \operatorname{mean}\hat y)` (responsibly's ``'single'`` for one pair);
        ``"sum"``: :math:`\operatorname{unit}(\operatorname{unit}(\sum x) -
        \operatorname{unit}(\sum y))` (responsibly's ``'sum'``, raw vectors summed).
    convention
        ``"paper"``, ``"responsibly"`` or ``"ebs"`` (module docstring), or an
        :class:`IndirectBiasConvention`: whether vectors are scaled to unit length
        and, for responsibly, the 0.5 explained-variance floor of the first component.
    normalize
        Override the convention's unit scaling (``None``: the convention's).

    Returns
    -------
    numpy.ndarray
        Shape ``(d,)``, unit length, with :math:`g \cdot (\bar x - \bar y) \ge 0`.

    Raises
    ------
    ValueError
        Empty sets, NaN, zero vectors, dimension mismatch, unpaired sets for
        ``"pca"``, an unknown method, or too little explained variance.
    DegenerateTestError
        If the direction is zero (every pair is one vector; equal means).

    Examples
    --------
    Two pairs that differ only along the first axis:

    >>> from biaslib.methods.indirect_bias import bias_direction
    >>> X = [[1.0, 1.0], [1.0, -1.0]]
    >>> Y = [[-1.0, 1.0], [-1.0, -1.0]]
    >>> bias_direction(X, Y).round(6).tolist()
    [1.0, 0.0]
    >>> bias_direction(Y, X, method="difference").round(6).tolist()
    [-1.0, 0.0]
    """
    conv = IndirectBiasConvention.of(convention)
    unit = conv.normalize if normalize is None else check_bool(normalize, "normalize")
    x, y = _pair_sets(X, Y)
    if method == "pca":
        if x.shape[0] != y.shape[0]:
            raise ValueError("method='pca' needs paired sets (row i of X with row i of Y), got "
                             f"{x.shape[0]} and {y.shape[0]} rows")
        space = direct_bias_space([x, y], 1, unit_attributes=bool(unit),
                                  min_explained_variance=conv.min_explained_variance)
        g = space.basis[0].copy()
    elif method == "difference":
        xs, ys = (unit_rows(x, "X"), unit_rows(y, "Y")) if unit else (x, y)
        g = _unit(xs.mean(axis=0) - ys.mean(axis=0), "the difference of the means of X and Y")
    elif method == "sum":
        g = _unit(_unit(x.sum(axis=0), "the sum of X") - _unit(y.sum(axis=0), "the sum of Y"),
                  "the difference of the normalised sums of X and Y")
    else:
        raise UnknownNameError("bias-direction method", method, ("pca", "difference", "sum"))
    # Orient towards X whatever the method (PCA's sign is arbitrary).
    if g @ (x.mean(axis=0) - y.mean(axis=0)) < 0:
        g = -g
    return g


def _vector(v: ArrayLike, name: str, dim: int | None = None) -> NDArray[np.float64]:
    arr = real_array(v, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one vector (1-D), got shape {arr.shape}")
    out = as_vectors(arr[None, :], name)[0]
    if dim is not None and out.shape[0] != dim:
        raise ValueError(f"{name} has dimension {out.shape[0]}, expected {dim}")
    return out


def _beta(w: NDArray[np.float64], v: NDArray[np.float64], g: NDArray[np.float64],
          w_name: str = "w", v_name: str = "v") -> NDArray[np.float64]:
    """β for every pair of rows of unit ``w`` (n, d) and unit ``v`` (m, d); shape (n, m)."""
    dots = w @ v.T
    wp = w - np.outer(w @ g, g)
    vp = v - np.outer(v @ g, g)
    wn = np.linalg.norm(wp, axis=1)
    vn = np.linalg.norm(vp, axis=1)
    for norms, name in ((wn, w_name), (vn, v_name)):
        bad = np.flatnonzero(norms <= 1e-10)
        if bad.size:
            raise DegenerateTestError(
                f"{name} {bad[:5].tolist()} lie(s) along g: the part orthogonal to g is zero "
                "and beta's cosine of the orthogonal parts is undefined")
    zero = np.argwhere(np.abs(dots) <= _ZERO_TOL)
    if zero.size:
        i, j = zero[0]
        raise DegenerateTestError(
            f"w . v = 0 for {w_name} {int(i)} and {v_name} {int(j)} ({len(zero)} pair(s)): "
            "beta divides by w . v and is undefined for orthogonal words")
    perp = np.clip((wp @ vp.T) / np.outer(wn, vn), -1.0, 1.0)
    return (dots - perp) / dots


def indirect_bias_pair(w: ArrayLike, v: ArrayLike, g: ArrayLike) -> float:
    r"""Indirect bias :math:`\beta(w, v)` of two words given the direction :math:`g` (§5).

    .. math::

        \beta(w, v) = \Bigl(w \cdot v - \frac{w_\perp \cdot v_\perp}
                      {\lVert w_\perp \rVert \lVert v_\perp \rVert}\Bigr) \Big/ (w \cdot v)

    with :math:`w_\perp = w - (w \cdot g) g`. ``w``, ``v`` and ``g`` are scaled
    to unit length first, as the paper's vectors are (and responsibly's
    ``calc_indirect_bias`` does).

    Raises
    ------
    ValueError
        Not 1-D vectors, different dimensions, NaN, zero vectors.
    DegenerateTestError
        If :math:`w \cdot v = 0` or a word lies along :math:`g`.

    Examples
    --------
    Half of the similarity of two words through g:

    >>> from biaslib.methods.indirect_bias import indirect_bias_pair
    >>> round(indirect_bias_pair([1.0, 1.0, 0.0], [1.0, 0.0, 1.0], [1.0, 0.0, 0.0]), 6)
    1.0
    >>> round(indirect_bias_pair([0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [1.0, 0.0, 0.0]), 6)
    -0.414214
    """
    gv = _vector(g, "g")
    wv = _vector(w, "w", gv.shape[0])
    vv = _vector(v, "v", gv.shape[0])
    unit = unit_rows(np.stack([wv, vv, gv]))
    return float(_beta(unit[:1], unit[1:2], unit[2])[0, 0])


def indirect_bias(
    words_a: ArrayLike,
    words_b: ArrayLike,
    X: ArrayLike,
    Y: ArrayLike,
    *,
    convention: IndirectBiasConvention | str = INDIRECT_PAPER,
    method: Method = "pca",
    direction: ArrayLike | None = None,
) -> BiasScoreResult:
    r"""Mean indirect bias :math:`\beta(a, b)` over all pairs :math:`(a, b) \in A \times B`.

    :math:`g` is :func:`bias_direction` of the pairs (X, Y) with ``method`` and
    ``convention``, or ``direction`` when given (then X and Y only check the
    dimension). Bolukbasi et al. (2016, §5) report :math:`\beta` word by word
    (softball/football with receptionist…); the mean is this library's set score.

    Returns
    -------
    BiasScoreResult
        ``method="Indirect Bias"``, ``effect_size`` the mean of ``word_scores``, the
        :math:`|A| \cdot |B|` values :math:`\beta(a_i, b_j)` flattened row-major
        (index ``i * |B| + j``); ``options`` name convention, method and the
        normalisation.

    Raises
    ------
    DegenerateTestError
        If some :math:`a \cdot b = 0` or a word lies along :math:`g`.

    Examples
    --------
    >>> from biaslib.methods.indirect_bias import indirect_bias
    >>> X, Y = [[1.0, 1.0, 0.0], [1.0, -1.0, 0.0]], [[-1.0, 1.0, 0.0], [-1.0, -1.0, 0.0]]
    >>> r = indirect_bias([[1.0, 1.0, 0.0]], [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]], X, Y)
    >>> r.word_scores.round(6).tolist(), round(r.effect_size, 6)
    ([1.0, -0.414214], 0.292893)
    """
    conv = IndirectBiasConvention.of(convention)
    x, y = _pair_sets(X, Y)
    a, b = as_vectors(words_a, "words_a"), as_vectors(words_b, "words_b")
    for arr, name in ((a, "words_a"), (b, "words_b")):
        if arr.shape[1] != x.shape[1]:
            raise ValueError(f"{name} has dimension {arr.shape[1]}, X and Y {x.shape[1]}")
    notes: tuple[str, ...] = ()
    if direction is None:
        g = bias_direction(x, y, method=method, convention=conv)
    else:
        g = unit_rows(_vector(direction, "direction", x.shape[1])[None, :], "direction")[0]
        notes = ("direction given by the caller; X and Y were not used to find it",)
    beta = _beta(unit_rows(a, "words_a"), unit_rows(b, "words_b"), g, "words_a", "words_b")
    scores = beta.ravel()
    return BiasScoreResult(
        method="Indirect Bias", effect_size=float(scores.mean()), word_scores=scores,
        n_words=a.shape[0] + b.shape[0], n_groups=2,
        options={"convention": conv.name, "method": method if direction is None else "given",
                 "normalize": conv.normalize, "n_a": a.shape[0], "n_b": b.shape[0]},
        notes=notes)


r"""RIPA, the relational inner product association (Ethayarajh, Duvenaud & Hirst 2019).

Ethayarajh et al., *Understanding Undesirable Word Embedding Associations* (ACL
2019, §5) measure the association of a word :math:`w` with a relation such as
gender by the inner product of the word vector with a unit *relation vector*
:math:`b`:

.. math::

    \beta(w; b) = \langle w, b \rangle, \qquad
    b = \text{first principal component of } \{x_i - y_i : (x_i, y_i) \in S\},

where :math:`S` is a set of ordered word pairs that define the relation
(*man*/*woman*, *king*/*queen*…). The vectors are used as they are — the paper
argues that a word's length carries information, which cosine-based tests
(WEAT) throw away. For a single pair, :math:`b = (x - y) / \lVert x - y \rVert`.
RIPA is signed; here it is positive when :math:`w` lies on the side of the first
group :math:`X` (its pairs' first members), the orientation of every signed score
of :mod:`biaslib.methods`.

Where the paper and the peers' code differ, each choice is a field of a
:class:`RipaConvention`, with three presets (``convention=``):

==========  ======================================  ===================  ========
preset      relation vector :math:`b`               word score           source
==========  ======================================  ===================  ========
``paper``   first principal component (``"pca"``)   :math:`w\cdot b`     §5
``wefe``    mean of the unit pair differences       :math:`w\cdot b`     WEFE
            (``"mean"``)
``ebs``     first principal component (``"pca"``)   :math:`|w\cdot b|`   EBS
==========  ======================================  ===================  ========

relation vector
    ``"pca"``: the first right singular vector of the matrix of differences
    :math:`D = (x_i - y_i)_i`, the direction :math:`b` that maximises
    :math:`\sum_i ((x_i - y_i)\cdot b)^2`. This is Bolukbasi et al.'s PCA of the
    pair-centred vectors :math:`x_i - \mu_i, y_i - \mu_i` (which are
    :math:`\pm (x_i - y_i)/2`), and what the SAME authors' ``RIPA`` computes: it
    inherits ``DirectBias.pca_bias_subspace`` (``geometrical_bias/direct_bias.py``
    lines 41–48, sklearn ``PCA`` of the pair-centred vectors, all commits from
    0328011, 2022-03-02, to 5e72d36, 2024-04-22). A principal component has no
    sign; it is oriented here so that :math:`\sum_i (x_i - y_i)\cdot b > 0`.
    (Read literally, "principal component of the differences" could mean a PCA
    that centres the differences on their mean first; that would remove the very
    direction the pairs share — for two pairs it is :math:`\pm(d_1 - d_2)` — so it
    is not offered.)
    ``"mean"``: WEFE's ``RIPA._calc_metric`` (``wefe/metrics/RIPA.py`` lines
    118–130, at 1998132, 2025-07-29) scores every word against every pair's unit
    direction :math:`b_i = (x_i - y_i)/\lVert x_i - y_i \rVert` (``_b_vec``, lines
    62–66) and averages: :math:`\frac1n\sum_i w\cdot b_i = w \cdot \bar b` with
    :math:`\bar b = \frac1n \sum_i b_i`. :math:`\bar b` is *not* a unit vector:
    :math:`\lVert \bar b \rVert \le 1`, with equality only when every pair points
    the same way, so WEFE's scores shrink as the pairs disagree.
    :func:`relation_vector` returns :math:`\bar b` as it is for this rule.
word score
    ``absolute=False``: the signed :math:`w\cdot b` (paper, WEFE).
    ``absolute=True``: :math:`|w\cdot b|`, as EBS's ``RIPA.individual_bias``
    (``geometrical_bias/ripa.py`` line 12, every commit: ``abs(pow(sum(abs(
    inner(target, b)) for b in bias_space), c))``, with its defaults ``k=1``,
    ``c=1``). EBS's ``k > 1`` (a sum over several components) and ``c != 1`` are
    not reproduced. EBS also asserts more pairs than groups
    (``direct_bias.py`` line 42: at least three pairs); any number of pairs
    works here, one included.
unit-length word vectors
    None of the three normalises by default (the paper's point; WEFE's
    ``run_query(normalize=False)``; EBS uses the vectors given).
    ``normalize=True`` scales every vector — words and pair members — to unit
    length first, as WEFE's ``normalize=True`` does.
per-word spread
    WEFE also reports, per word, the standard deviation of :math:`w\cdot b_i`
    over the pairs (lines 129–140); it is not computed here.
unequal sets
    WEFE pairs ``X[i]`` with ``Y[i]`` for ``i < len(X)`` (line 107): a longer
    ``Y`` is cut silently, a shorter one raises ``IndexError``. Here sets of
    different sizes raise a :class:`ValueError`.

``tests/test_ripa.py`` runs WEFE's ``RIPA._calc_metric`` and EBS's ``RIPA`` (read
from git mirrors, ``tests/peer_code.py``) on random vectors: the ``"wefe"`` and ``"ebs"``
presets agree with them to 1e-12.

References
----------
Ethayarajh, K., Duvenaud, D. & Hirst, G. (2019). Understanding Undesirable Word
Embedding Associations. ACL 2019, 1696–1705 (§5, RIPA).
Bolukbasi, T., Chang, K.-W., Zou, J., Saligrama, V. & Kalai, A. (2016). NeurIPS.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biaslib.errors import DegenerateTestError
from biaslib.methods.result import BiasScoreResult
from biaslib.stats.conventions import ConventionBase
from biaslib.stats.similarity import as_vectors, unit_rows
from biaslib.validation import check_bool

__all__ = [
    "RIPA_EBS",
    "RIPA_PAPER",
    "RIPA_PRESETS",
    "RIPA_WEFE",
    "RipaConvention",
    "relation_vector",
    "ripa",
]

Relation = Literal["pca", "mean"]

#: Relative gap below which the first two singular values count as tied (no unique component).
_TIE_TOL = 1e-9


@dataclass(frozen=True)
class RipaConvention(ConventionBase):
    r"""The choices that differ between the RIPA paper, WEFE and EBS.

    Attributes
    ----------
    name
        Short identifier (a preset's key).
    relation
        ``"pca"`` (first principal component of the pair differences; paper,
        EBS) or ``"mean"`` (mean of the unit pair differences; WEFE).
    absolute
        Score :math:`|w\cdot b|` instead of :math:`w\cdot b` (EBS).
    description
        Where the convention comes from.
    """

    kind: ClassVar[str] = "RIPA convention"

    relation: Relation = "pca"
    absolute: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.relation not in ("pca", "mean"):
            raise ValueError(f"relation must be 'pca' or 'mean', got {self.relation!r}")
        check_bool(self.absolute, "absolute")


#: Ethayarajh et al. (2019), §5: b is the first principal component of the differences;
#: the score is the signed inner product.
RIPA_PAPER = RipaConvention(
    name="paper", relation="pca", absolute=False,
    description="Ethayarajh, Duvenaud & Hirst 2019, §5: <w, b>, b the first principal "
                "component of the pair differences",
)
#: WEFE's ``wefe/metrics/RIPA.py`` (1998132, 2025-07-29): the mean over pairs of w·(x−y)/‖x−y‖.
RIPA_WEFE = RipaConvention(
    name="wefe", relation="mean", absolute=False,
    description="WEFE wefe/metrics/RIPA.py lines 62-66, 118-130: mean over pairs of "
                "w . (x_i - y_i)/||x_i - y_i||",
)
#: EBS's ``geometrical_bias/ripa.py`` (0328011 to 5e72d36): :math:`|w \cdot b|`,
#: b from DirectBias's PCA.
RIPA_EBS = RipaConvention(
    name="ebs", relation="pca", absolute=True,
    description="EmbeddingBiasScores geometrical_bias/ripa.py line 12 (0328011 2022-03-02 to "
                "5e72d36 2024-04-22): |w . b|, b = DirectBias.pca_bias_subspace, k=1, c=1",
)
#: Preset name → convention (``RipaConvention.of(name)`` looks one up).
RIPA_PRESETS = RipaConvention.declare_presets(RIPA_PAPER, RIPA_WEFE, RIPA_EBS)


def _pairs(X: ArrayLike, Y: ArrayLike, normalize: bool) -> NDArray[np.float64]:
    """The pair differences ``X[i] - Y[i]``, checked: same shape, no identical pair."""
    x = unit_rows(X, "X") if normalize else as_vectors(X, "X")
    y = unit_rows(Y, "Y") if normalize else as_vectors(Y, "Y")
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"sets 'X' and 'Y' have different dimensions ({x.shape[1]} vs "
                         f"{y.shape[1]})")
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"RIPA needs pairs: X[i] is paired with Y[i], but X has {x.shape[0]} "
                         f"vectors and Y {y.shape[0]}")
    diff = x - y
    scale = np.maximum(np.abs(x).max(axis=1), np.abs(y).max(axis=1))
    same = np.flatnonzero(np.abs(diff).max(axis=1) <= 1e-12 * scale)
    if same.size:
        raise DegenerateTestError(f"pairs {same.tolist()} have X[i] = Y[i]: their difference is "
                                  "the zero vector and defines no relation")
    return diff


def _relation(diff: NDArray[np.float64], relation: Relation) -> tuple[NDArray[np.float64],
                                                                      tuple[str, ...]]:
    notes: list[str] = []
    if relation == "mean":
        unit = diff / np.linalg.norm(diff, axis=1, keepdims=True)
        b = unit.mean(axis=0)
        if np.linalg.norm(b) <= 1e-12:
            raise DegenerateTestError("the unit pair differences cancel out: their mean is the "
                                      "zero vector")
        return b, ()
    _, sing, vt = np.linalg.svd(diff, full_matrices=False)
    b = vt[0].copy()
    if sing.size > 1 and sing[1] >= sing[0] * (1.0 - _TIE_TOL):
        notes.append("the first principal component is not unique (the first two singular "
                     f"values of the pair differences are equal, {sing[0]:.6g}); one of the "
                     "tied directions was taken")
    along = float((diff @ b).sum())
    if abs(along) <= 1e-12 * float(sing[0]) * diff.shape[0]:
        notes.append("the pair differences project to a sum of 0 on the component; it was "
                     "oriented towards the first pair's X member")
        along = float(diff[0] @ b)
    if along < 0:
        b = -b
    return b, tuple(notes)


def relation_vector(
    X: ArrayLike, Y: ArrayLike, *, convention: RipaConvention | str = RIPA_PAPER,
    normalize: bool = False,
) -> NDArray[np.float64]:
    r"""The relation vector :math:`b` of the pairs ``(X[i], Y[i])``, oriented towards X.

    Parameters
    ----------
    X, Y
        The two members of each pair, ``(n, d)`` each; row ``i`` of ``X`` is paired
        with row ``i`` of ``Y``.
    convention
        ``"paper"`` / ``"ebs"``: the unit first principal component of the
        differences :math:`x_i - y_i`, signed so that the differences project
        positively on it; ``"wefe"``: :math:`\frac1n\sum_i (x_i - y_i)/\lVert x_i -
        y_i\rVert`, of length :math:`\le 1` (see the module docstring).
    normalize
        Scale the pair members to unit length first.

    Raises
    ------
    ValueError
        If ``X`` and ``Y`` differ in size or dimension, are empty, or hold NaN,
        infinite or zero vectors.
    DegenerateTestError
        If a pair has ``X[i] = Y[i]``, or (``"wefe"``) the unit differences cancel.

    Examples
    --------
    Two pairs whose differences are (2, 0) and (0, 1): the principal component
    is the longer difference's direction; WEFE's mean of unit differences is
    (0.5, 0.5), of length 0.707.

    >>> from biaslib.methods.ripa import relation_vector
    >>> relation_vector([[3.0, 0.0], [1.0, 2.0]], [[1.0, 0.0], [1.0, 1.0]]).round(6).tolist()
    [1.0, 0.0]
    >>> relation_vector([[3.0, 0.0], [1.0, 2.0]], [[1.0, 0.0], [1.0, 1.0]],
    ...                 convention="wefe").tolist()
    [0.5, 0.5]
    """
    conv = RipaConvention.of(convention)
    normalize = check_bool(normalize, "normalize")
    b, _ = _relation(_pairs(X, Y, normalize), conv.relation)
    return b


def ripa(
    words: ArrayLike, X: ArrayLike, Y: ArrayLike, *,
    convention: RipaConvention | str = RIPA_PAPER, normalize: bool = False,
) -> BiasScoreResult:
    r"""RIPA of every word, :math:`\beta(w; b) = w \cdot b`, and their mean (Ethayarajh et al. §5).

    Parameters
    ----------
    words
        The words measured, ``(m, d)`` (occupations, attribute words…).
    X, Y
        The pairs that define the relation, ``(n, d)`` each, ``X[i]`` paired with
        ``Y[i]``; scores are positive on ``X``'s side.
    convention
        ``"paper"``, ``"wefe"`` or ``"ebs"`` (a :class:`RipaConvention`; see the
        module docstring for what each reproduces).
    normalize
        Scale every vector (words and pairs) to unit length first (WEFE's
        ``normalize=True``); the paper uses the vectors as they are.

    Returns
    -------
    BiasScoreResult
        ``method="RIPA"``, ``word_scores`` the per-word :math:`w\cdot b` (absolute
        under ``"ebs"``), ``effect_size`` their mean, ``n_groups=2``; ``options`` name
        the convention, the relation rule, ``absolute``, ``normalize`` and
        ``n_pairs``; ``notes`` say when the principal component was not unique.

    Raises
    ------
    ValueError
        For empty sets, NaN or infinite values, zero vectors, mismatched
        dimensions, or ``X`` and ``Y`` of different sizes.
    DegenerateTestError
        If a pair has ``X[i] = Y[i]``.

    Examples
    --------
    One pair, he = (1, 0) and she = (−1, 0): b = (1, 0), and the score is the
    first coordinate — the word's length counts (a cosine would give 0.6 and 1):

    >>> from biaslib.methods.ripa import ripa
    >>> r = ripa([[3.0, 4.0], [-2.0, 0.0]], [[1.0, 0.0]], [[-1.0, 0.0]])
    >>> r.method, r.word_scores.tolist(), r.effect_size
    ('RIPA', [3.0, -2.0], 0.5)
    >>> ripa([[3.0, 4.0], [-2.0, 0.0]], [[1.0, 0.0]], [[-1.0, 0.0]],
    ...      convention="ebs").effect_size
    2.5
    """
    conv = RipaConvention.of(convention)
    normalize = check_bool(normalize, "normalize")
    diff = _pairs(X, Y, normalize)
    w = unit_rows(words, "words") if normalize else as_vectors(words, "words")
    if w.shape[1] != diff.shape[1]:
        raise ValueError(f"words have dimension {w.shape[1]}, the pairs {diff.shape[1]}")
    b, notes = _relation(diff, conv.relation)
    scores = w @ b
    if conv.absolute:
        scores = np.abs(scores)
    return BiasScoreResult(
        method="RIPA", effect_size=float(scores.mean()), word_scores=scores,
        n_words=int(w.shape[0]), n_groups=2,
        options={"convention": conv.name, "relation": conv.relation,
                 "absolute": conv.absolute, "normalize": normalize,
                 "n_pairs": int(diff.shape[0])},
        notes=notes)

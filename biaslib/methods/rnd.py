r"""RND, the relative norm distance (Garg, Schiebinger, Jurafsky & Zou 2018).

Garg et al., *Word embeddings quantify 100 years of gender and ethnic
stereotypes* (PNAS 115(16), 2018; "Materials and Methods", relative norm
distance) measure how much closer a set of neutral words :math:`M`
(occupations, adjectives) is to one group than to another, each group
represented by the average :math:`v_1, v_2` of its (unit-length) word vectors:

.. math::

    \text{relative norm distance} = \sum_{v_m \in M}
        \lVert v_m - v_1 \rVert_2 - \lVert v_m - v_2 \rVert_2 .

Each term is positive when :math:`v_m` is closer to :math:`v_2`. Here the word
score follows the orientation of every signed score of :mod:`biaslib.methods`,
positive when the word is closer to the first group :math:`X`:

.. math::

    s(w) = \lVert w - \bar Y \rVert - \lVert w - \bar X \rVert ,

Garg's term with :math:`v_1 = \bar Y`, :math:`v_2 = \bar X`. With
``distance="cos"`` the distance is the cosine distance :math:`1 - \cos`, so
:math:`s(w) = \cos(w, \bar X) - \cos(w, \bar Y)`.

Where the paper and WEFE differ (:class:`RndConvention`, ``convention=``):

aggregate
    ``"sum"`` over words (the paper's formula; preset ``"paper"``) or ``"mean"``
    (WEFE's ``RND.__calc_rnd``, ``wefe/metrics/RND.py`` line 104,
    ``sum_of_distances / len(distance_by_words)``, at 1998132, 2025-07-29; preset
    ``"wefe"``). Garg et al.'s own code averages too:
    ``calc_distance_over_time_averagevectorsfirst`` in their
    ``changes_over_time.py`` takes ``np.mean`` of the distances over the neutral
    words.
sign
    WEFE's word score is ``d(w, mean(T_0)) - d(w, mean(T_1))`` (lines 82–90)
    with ``d`` the Euclidean norm for ``distance="norm"`` — positive when the word
    is closer to the *second* set, the opposite of :math:`s(w)` — but the cosine
    *similarity* for ``distance="cos"`` (lines 56–59, ``cosine_similarity``, not a
    distance, though its docstring says "cosine distance"; inherited from Garg
    et al.'s ``calc_distance_between_vectors``, which also returns ``cossim``) —
    positive when closer to the *first* set, the same as :math:`s(w)`. So WEFE's
    ``result`` is ``-effect_size`` for ``"norm"`` and ``+effect_size`` for
    ``"cos"`` (under the ``"wefe"`` preset); the result says so in its notes.
    Word scores here are always positive towards :math:`X`.
unit-length vectors
    Garg et al. use normalised vectors (their code reads
    ``vectors/normalized_clean``); ``normalize=True`` scales every word and group
    vector to unit length before the group means are taken (the means are not
    re-normalised), as WEFE's ``normalize=True`` does. WEFE's own default is
    ``normalize=False``: pass it to reproduce WEFE's default call.

``tests/test_rnd.py`` runs WEFE's ``RND.__calc_rnd`` (from a git mirror) on random
vectors: the ``"wefe"`` preset agrees with it to 1e-12, up to the sign stated above.

References
----------
Garg, N., Schiebinger, L., Jurafsky, D. & Zou, J. (2018). Word embeddings quantify
100 years of gender and ethnic stereotypes. PNAS 115(16), E3635–E3644.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biaslib.errors import DegenerateTestError
from biaslib.methods.result import BiasScoreResult
from biaslib.stats.conventions import ConventionBase
from biaslib.stats.similarity import as_vectors, same_vectors, unit_rows
from biaslib.validation import check_bool

__all__ = [
    "RND_PAPER",
    "RND_PRESETS",
    "RND_WEFE",
    "RndConvention",
    "rnd",
    "rnd_word",
]

#: How RND aggregates its word scores.
RndAggregate = Literal["sum", "mean"]
Distance = Literal["norm", "cos"]


@dataclass(frozen=True)
class RndConvention(ConventionBase):
    """How RND's word scores are aggregated: the paper's sum or WEFE's mean.

    Attributes
    ----------
    name
        Short identifier (a preset's key).
    aggregate
        ``"sum"`` (Garg et al.'s formula) or ``"mean"`` (WEFE, Garg et al.'s code).
    description
        Where the convention comes from.
    """

    kind: ClassVar[str] = "RND convention"

    aggregate: RndAggregate = "sum"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.aggregate not in ("sum", "mean"):
            raise ValueError(f"aggregate must be 'sum' or 'mean', got {self.aggregate!r}")


#: Garg et al. (2018): the sum over words of ‖w − v1‖ − ‖w − v2‖.
RND_PAPER = RndConvention(
    name="paper", aggregate="sum",
    description="Garg, Schiebinger, Jurafsky & Zou 2018 (PNAS), relative norm distance: "
                "sum over the neutral words",
)
#: WEFE ``wefe/metrics/RND.py`` line 104: the mean over words.
RND_WEFE = RndConvention(
    name="wefe", aggregate="mean",
    description="WEFE wefe/metrics/RND.py line 104 (1998132, 2025-07-29): mean over the "
                "words; its own sign is reversed for distance='norm' (lines 82-90)",
)
#: Preset name → convention (``RndConvention.of(name)`` looks one up).
RND_PRESETS = RndConvention.declare_presets(RND_PAPER, RND_WEFE)


def _vectors(values: ArrayLike, name: str, normalize: bool) -> NDArray[np.float64]:
    return unit_rows(values, name) if normalize else as_vectors(values, name)


def rnd_word(
    words: ArrayLike, X: ArrayLike, Y: ArrayLike, *, distance: Distance = "norm",
    normalize: bool = True,
) -> NDArray[np.float64]:
    r"""Each word's :math:`d(w, \bar Y) - d(w, \bar X)`: positive when closer to ``X``.

    ``distance="norm"``: Euclidean distance; ``"cos"``: cosine distance
    :math:`1 - \cos`. ``normalize`` scales every vector to unit length before
    the group means :math:`\bar X, \bar Y` are taken.

    Raises
    ------
    ValueError
        For empty sets, NaN or infinite values, zero vectors, mismatched
        dimensions, or an unknown ``distance``.
    DegenerateTestError
        If X and Y are the same vectors in some order, as given: every score
        would be 0, which would read as a measured absence of bias (WEAT refuses
        X = Y the same way; like WEAT, a scaled copy is not the same vectors). With
        ``distance="cos"``, if a group's mean is the zero vector.

    Examples
    --------
    (3, 4) is 4 from X = {(3, 0)} and 3 from Y = {(0, 4)}: 3 − 4 = −1, closer to Y.

    >>> from biaslib.methods.rnd import rnd_word
    >>> rnd_word([[3.0, 4.0]], [[3.0, 0.0]], [[0.0, 4.0]], normalize=False).tolist()
    [-1.0]
    >>> rnd_word([[1.0, 0.0]], [[1.0, 0.0]], [[0.0, 1.0]]).round(6).tolist()
    [1.414214]
    """
    if distance not in ("norm", "cos"):
        raise ValueError(f"distance must be 'norm' or 'cos', got {distance!r}")
    normalize = check_bool(normalize, "normalize")
    w = _vectors(words, "words", normalize)
    x, y = as_vectors(X, "X"), as_vectors(Y, "Y")
    if same_vectors(x, y):  # the vectors as given: WEAT's rule
        raise DegenerateTestError(
            "X and Y are the same vectors (in some order): RND would compare a group with "
            "itself (every word scores 0); pass two different groups")
    if normalize:
        x, y = unit_rows(x, "X"), unit_rows(y, "Y")
    dims = {"words": w.shape[1], "X": x.shape[1], "Y": y.shape[1]}
    if len(set(dims.values())) != 1:
        raise ValueError(f"the sets differ in dimension: {dims}")
    x_bar, y_bar = x.mean(axis=0), y.mean(axis=0)
    if distance == "norm":
        return np.linalg.norm(w - y_bar, axis=1) - np.linalg.norm(w - x_bar, axis=1)
    for name, bar, rows in (("X", x_bar, x), ("Y", y_bar, y)):
        if np.linalg.norm(bar) <= 1e-12 * float(np.abs(rows).max()):
            raise DegenerateTestError(f"the mean of {name} is the zero vector: its cosine with "
                                      "a word is undefined")
    unit_w = w / np.linalg.norm(w, axis=1, keepdims=True)
    cos_x = np.clip(unit_w @ (x_bar / np.linalg.norm(x_bar)), -1.0, 1.0)
    cos_y = np.clip(unit_w @ (y_bar / np.linalg.norm(y_bar)), -1.0, 1.0)
    return (1.0 - cos_y) - (1.0 - cos_x)


def rnd(
    words: ArrayLike, X: ArrayLike, Y: ArrayLike, *, distance: Distance = "norm",
    normalize: bool = True, convention: RndConvention | str = RND_PAPER,
) -> BiasScoreResult:
    r"""RND over a set of words: :math:`\sum_w \lVert w - \bar Y\rVert - \lVert w - \bar X\rVert`.

    Parameters
    ----------
    words
        The neutral words measured, ``(m, d)``.
    X, Y
        The two groups, ``(n_x, d)`` and ``(n_y, d)`` (any sizes; a one-word
        group is its own mean).
    distance
        ``"norm"`` (Euclidean; the paper) or ``"cos"`` (cosine distance).
    normalize
        Unit-length vectors before the means (Garg et al.; WEFE's default is
        ``False``).
    convention
        ``"paper"`` (sum over words) or ``"wefe"`` (mean over words).

    Returns
    -------
    BiasScoreResult
        ``method="RND"``, ``word_scores`` :func:`rnd_word` (positive: closer to
        ``X``), ``effect_size`` their sum or mean. Under ``"wefe"`` the notes give the
        sign of WEFE's own ``result`` relative to ``effect_size``.

    Raises
    ------
    DegenerateTestError
        If X and Y are the same vectors in some order (:func:`rnd_word`).

    Examples
    --------
    Groups at (1, 0) and (0, 1); a word at (1, 0) scores √2 − 0, one at (0, 1)
    scores 0 − √2, one at (1, 1)/√2 scores 0:

    >>> import numpy as np
    >>> from biaslib.methods.rnd import rnd
    >>> W = [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    >>> r = rnd(W, [[1.0, 0.0]], [[0.0, 1.0]])
    >>> r.method, round(r.effect_size, 6), round(rnd(W, [[1.0, 0.0]], [[0.0, 1.0]],
    ...                                        convention="wefe").effect_size, 6)
    ('RND', 1.414214, 0.353553)
    """
    conv = RndConvention.of(convention)
    scores = rnd_word(words, X, Y, distance=distance, normalize=normalize)
    value = float(scores.sum() if conv.aggregate == "sum" else scores.mean())
    notes: tuple[str, ...] = ()
    if conv.name == RND_WEFE.name:
        why = ("its norm distance is positive towards the second set" if distance == "norm"
               else "its cosine similarity is positive towards the first set")
        sign = "-effect_size" if distance == "norm" else "+effect_size"
        notes = (f"WEFE's RND.run_query(distance={distance!r}) reports {sign}: {why}",)
    return BiasScoreResult(
        method="RND", effect_size=value, word_scores=scores, n_words=int(scores.size), n_groups=2,
        options={"convention": conv.name, "aggregate": conv.aggregate, "distance": distance,
                 "normalize": bool(normalize)},
        notes=notes)

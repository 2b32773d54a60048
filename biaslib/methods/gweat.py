r"""Generalized WEAT (Swinger, De-Arteaga, Heffernan, Leiserson & Kalai 2019).

Swinger et al., *What are the Biases in My Word Embedding?* (AIES 2019),
generalise WEAT from two target and two attribute sets to :math:`n` target sets
:math:`X_1, \dots, X_n` (e.g. names of :math:`n` groups) matched with :math:`n`
attribute sets :math:`A_1, \dots, A_n`. With unit vectors, group means
:math:`\bar x_i = \operatorname{mean}_{x \in X_i} \hat x`,
:math:`\bar a_i = \operatorname{mean}_{a \in A_i} \hat a` and their centres
:math:`\bar x = \frac1n \sum_i \bar x_i`, :math:`\bar a = \frac1n \sum_i \bar a_i`,

.. math::

    \mathrm{GWEAT}(X_{1..n}, A_{1..n}) = \sum_{i=1}^{n}
        (\bar x_i - \bar x) \cdot (\bar a_i - \bar a).

Positive when each target group lies towards its own attribute group. The
formula is the one of the EBS implementation (``geometrical_bias/generalized_weat.py``,
``GeneralizedWEAT.group_bias``), which cites the paper; the paper's text is not
among this project's seeds, so the equation number could not be checked here.

Properties (``tests/test_gweat.py``):

* **the target centre does not matter** with the group centre of the
  attributes: then :math:`\sum_i (\bar a_i - \bar a) = 0`, so
  :math:`\mathrm{GWEAT} = \sum_i \bar x_i \cdot (\bar a_i - \bar a)` for any
  :math:`\bar x`. ``center="pooled"`` changes the value only when the
  attribute sets differ in size (then the target centre matters too);
* permuting the pairs :math:`(X_i, A_i)` leaves it unchanged;
* **two targets, two attributes** (X, Y, A, B): :math:`\bar x_{1,2} - \bar x =
  \pm(\bar x_1 - \bar x_2)/2`, so

  .. math::

      \mathrm{GWEAT} = \tfrac12 (\bar x - \bar y) \cdot (\bar a - \bar b)
      = \tfrac12 \Bigl(\operatorname{mean}_{x \in X} s(x, A, B)
        - \operatorname{mean}_{y \in Y} s(y, A, B)\Bigr),

  half the numerator of WEAT's effect size :math:`d` (Caliskan et al. 2017),
  and :math:`S(X, Y, A, B) / (2m)` for WEAT's test statistic :math:`S` when
  :math:`|X| = |Y| = m`; for any set sizes with the group centres. With
  ``center="pooled"`` it is
  :math:`\frac{m_1 k_1 + m_2 k_2}{(m_1+m_2)(k_1+k_2)} (\bar x - \bar y) \cdot (\bar a - \bar b)`
  (:math:`m_i` target and :math:`k_i` attribute set sizes): the same when
  :math:`|A| = |B|`. It flips sign when X ↔ Y or A ↔ B.

Where implementations differ:

unit vectors
    EBS normalises every target and attribute vector (``normalize_vectors``);
    without it (``normalize=False``) the relation to WEAT's cosines is lost.
target centre
    EBS at dc6490a (2022-03-08) to 0bf1acb (2022-10-17): the pooled mean
    ``np.mean(np.mean(X, axis=0), axis=0)``, which fails for target sets of
    different sizes; from bc463b1 (2022-10-20) to 5e72d36 (2024-04-22) the mean
    of the group means. Same value (first property above).
a word's score
    EBS (0bf1acb on, "not from the paper") scores one word by
    :math:`\max_i w \cdot (\bar a_i - \bar a)`; not offered here. ``word_scores``
    are the :math:`n` terms of the sum instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biaslib.errors import DegenerateTestError, UnknownNameError
from biaslib.methods.result import BiasScoreResult
from biaslib.stats.conventions import ConventionBase
from biaslib.stats.similarity import as_vectors, same_vectors, unit_rows
from biaslib.validation import check_bool

__all__ = [
    "GWEAT_EBS",
    "GWEAT_PAPER",
    "GWEAT_PRESETS",
    "GweatConvention",
    "generalized_weat",
]

#: The centres of the group means: the mean of the means, or of all vectors.
Center = Literal["groups", "pooled"]
_CENTERS = ("groups", "pooled")


@dataclass(frozen=True)
class GweatConvention(ConventionBase):
    r"""The choices of a generalized WEAT (module docstring).

    Attributes
    ----------
    name
        Short identifier (a preset's key).
    normalize
        Scale every target and attribute vector to unit length first (EBS's
        ``normalize_vectors``).
    center
        ``"groups"``: :math:`\bar x`, :math:`\bar a` are the means of the group
        means (EBS); ``"pooled"``: the means of all vectors.
    description
        Where the convention comes from.
    """

    kind: ClassVar[str] = "generalized-WEAT convention"

    normalize: bool = True
    center: Center = "groups"

    def __post_init__(self) -> None:
        super().__post_init__()
        check_bool(self.normalize, "normalize")
        if self.center not in _CENTERS:
            raise UnknownNameError("generalized-WEAT center", self.center, _CENTERS)


#: Swinger et al. (2019) as EBS's implementation states the formula: unit vectors, the
#: mean of the group means.
GWEAT_PAPER = GweatConvention(
    name="paper", normalize=True, center="groups",
    description="Swinger et al. 2019 (AIES), the formula as EBS cites it: unit vectors, "
                "centres the means of the group means",
)
#: EBS ``geometrical_bias/generalized_weat.py`` (``GeneralizedWEAT.group_bias``): the same
#: options — EBS implements the formula it cites.
GWEAT_EBS = GweatConvention(
    name="ebs", normalize=True, center="groups",
    description="EmbeddingBiasScores geometrical_bias/generalized_weat.py "
                "GeneralizedWEAT.group_bias (bc463b1 2022-10-20 to 5e72d36 2024-04-22): "
                "normalize_vectors, the mean of the group means",
)
#: Preset name → convention (``GweatConvention.of(name)`` looks one up). The two agree.
GWEAT_PRESETS = GweatConvention.declare_presets(GWEAT_PAPER, GWEAT_EBS)


def _groups(sets: Sequence[ArrayLike], what: str) -> list[NDArray[np.float64]]:
    if (isinstance(sets, np.ndarray) and sets.ndim == 2) or isinstance(sets, str | bytes | Mapping):
        raise TypeError(f"{what}s must be a list of (n_i, d) arrays, one per group, got "
                        f"{type(sets).__name__}")
    out = [as_vectors(s, f"{what} {i}") for i, s in enumerate(sets)]
    if len(out) < 2:
        raise ValueError(f"generalized WEAT needs at least two {what}s, got {len(out)}")
    dims = {s.shape[1] for s in out}
    if len(dims) != 1:
        raise ValueError(f"{what}s differ in dimension: {sorted(dims)}")
    return out


def _refuse_identical(sets: list[NDArray[np.float64]], what: str) -> None:
    """Refuse two sets of the same vectors, in any order, as WEAT refuses X = Y.

    Two target (or attribute) groups that are one set would be compared with
    themselves: with two groups the statistic is exactly 0, with more their terms
    still measure nothing about the pair. The vectors as given are compared (a
    scaled copy is another set, as for WEAT).
    """
    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            if same_vectors(sets[i], sets[j]):
                raise DegenerateTestError(
                    f"{what}s {i} and {j} are the same vectors (in some order): generalized "
                    f"WEAT would compare a group with itself; pass different {what}s")


def _centre(sets: list[NDArray[np.float64]], means: NDArray[np.float64],
            center: str) -> NDArray[np.float64]:
    if center == "groups":
        return means.mean(axis=0)
    if center == "pooled":
        return np.concatenate(sets).mean(axis=0)
    raise UnknownNameError("generalized-WEAT center", center, _CENTERS)


def generalized_weat(
    target_sets: Sequence[ArrayLike],
    attribute_sets: Sequence[ArrayLike],
    *,
    convention: GweatConvention | str = GWEAT_PAPER,
    normalize: bool | None = None,
    center: Center | None = None,
) -> BiasScoreResult:
    r"""Generalized WEAT :math:`\sum_i (\bar x_i - \bar x) \cdot (\bar a_i - \bar a)`.

    Parameters
    ----------
    target_sets
        :math:`n \ge 2` arrays ``(m_i, d)``: the target groups.
    attribute_sets
        :math:`n` arrays ``(k_i, d)``; attribute set :math:`i` belongs with
        target set :math:`i`.
    convention
        ``"paper"`` or ``"ebs"`` (the same options; module docstring), or a
        :class:`GweatConvention`.
    normalize
        Scale every vector to unit length first (default: the convention's, True).
    center
        ``"groups"``: :math:`\bar x`, :math:`\bar a` are the means of the group
        means (EBS); ``"pooled"``: the means of all vectors (weighted by set
        size). Same value as ``"groups"`` when the attribute sets are of equal size.

    Returns
    -------
    BiasScoreResult
        ``method="Generalized WEAT"``; ``word_scores`` the :math:`n` terms
        :math:`(\bar x_i - \bar x) \cdot (\bar a_i - \bar a)`, ``n_words`` the
        number of target vectors, ``n_groups`` :math:`n`.

    Raises
    ------
    ValueError
        Fewer than two groups, different numbers of target and attribute sets,
        empty sets, mismatched dimensions, NaN, zero vectors.
    DegenerateTestError
        If two target sets, or two attribute sets, are the same vectors in some
        order, as given.

    Examples
    --------
    Two targets and two attributes: half the difference of the mean
    associations :math:`s(w, A, B)` (here 1 and -1):

    >>> from biaslib.methods.gweat import generalized_weat
    >>> r = generalized_weat([[[1.0, 0.0]], [[0.0, 1.0]]], [[[2.0, 0.0]], [[0.0, 3.0]]])
    >>> r.effect_size, r.word_scores.tolist()
    (1.0, [0.5, 0.5])
    """
    conv = GweatConvention.of(convention)
    normalize = conv.normalize if normalize is None else check_bool(normalize, "normalize")
    center = conv.center if center is None else center
    targets = _groups(target_sets, "target set")
    attributes = _groups(attribute_sets, "attribute set")
    if len(targets) != len(attributes):
        raise ValueError(f"{len(targets)} target sets but {len(attributes)} attribute sets: "
                         "generalized WEAT pairs target set i with attribute set i")
    if targets[0].shape[1] != attributes[0].shape[1]:
        raise ValueError(f"target sets have dimension {targets[0].shape[1]}, attribute sets "
                         f"{attributes[0].shape[1]}")
    _refuse_identical(targets, "target set")
    _refuse_identical(attributes, "attribute set")
    if normalize:
        targets = [unit_rows(t, f"target set {i}") for i, t in enumerate(targets)]
        attributes = [unit_rows(a, f"attribute set {i}") for i, a in enumerate(attributes)]
    x_means = np.stack([t.mean(axis=0) for t in targets])
    a_means = np.stack([a.mean(axis=0) for a in attributes])
    terms = ((x_means - _centre(targets, x_means, str(center)))
             * (a_means - _centre(attributes, a_means, str(center)))).sum(axis=1)
    return BiasScoreResult(
        method="Generalized WEAT", effect_size=float(terms.sum()), word_scores=terms,
        n_words=sum(t.shape[0] for t in targets), n_groups=len(targets),
        options={"convention": conv.name, "normalize": bool(normalize), "center": center})

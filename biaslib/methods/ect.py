r"""ECT, the embedding coherence test (Dev & Phillips 2019).

Dev & Phillips, *Attenuating Bias in Word Vectors* (AISTATS 2019, the Embedding
Coherence Test) ask whether two groups (male and female names, say) relate to a
list of neutral words :math:`W` (professions) in the same way. Each group is
represented by the mean of its vectors, :math:`\bar X` and :math:`\bar Y`; every
word gets a cosine similarity with each mean, and ECT is the Spearman rank
correlation of the two lists:

.. math::

    \text{ECT} = \rho_S\big( (\cos(w, \bar X))_{w \in W},\;
                             (\cos(w, \bar Y))_{w \in W} \big) \in [-1, 1].

1 means the two groups order the words alike (no bias in this sense); lower
values mean the groups disagree about which words are close. The word score here
is the signed difference :math:`\cos(w, \bar X) - \cos(w, \bar Y)`, positive when
the word is closer to :math:`X` (the orientation of every signed score of
:mod:`biaslib.methods`); ECT itself is symmetric in :math:`X` and :math:`Y`.

What the implementations share and where they part:

ties
    Spearman's :math:`\rho` with *average* ranks for ties (``scipy.stats.spearmanr``,
    used by the authors' ``ECT.py`` in ``sunipa/Attenuating-Bias-in-Word-Vec`` and by
    WEFE's ``ECT.__calculate_embedding_coherence``, ``wefe/metrics/ECT.py`` line 230,
    at 1998132, 2025-07-29). :math:`\rho` is then the Pearson correlation of the
    two rank vectors.
unit-length vectors
    Neither normalises by default: the authors' script has the normalisation
    commented out as "optional", and WEFE's ``run_query(normalize=False)``.
    ``normalize=True`` scales every vector to unit length before the means (WEFE's
    ``normalize=True``); the means change direction, so ECT can change.
constant similarities
    If every word has the same similarity to a group mean, :math:`\rho` is 0/0:
    scipy (and so WEFE) returns NaN with a warning; here it is a
    :class:`~biaslib.errors.DegenerateTestError`, as are fewer than two words.
duplicates
    The authors' script builds its word list with ``set()`` and so scores each
    word once; here the rows given are scored as they are.
the authors' script
    ``ECT.py`` (d71b4c3) does not run as published: ``return spearmanr(sim1,
    sim2))`` has a stray parenthesis, and ``meanList`` sums rows of an undefined
    ``X`` (the vectors are loaded as ``A``). Read for its intent, it is the
    formula above: means of the (optionally normalised) group vectors,
    ``1 - scipy.spatial.distance.cosine`` with each word, ``spearmanr``.

``tests/test_ect.py`` runs WEFE's ``ECT.__calculate_embedding_coherence`` (from a
git mirror) on random vectors and agrees with it to 1e-12.

References
----------
Dev, S. & Phillips, J. (2019). Attenuating Bias in Word Vectors. AISTATS 2019,
PMLR 89:879–887.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from biaslib.errors import DegenerateTestError
from biaslib.methods.result import BiasScoreResult
from biaslib.stats.similarity import as_vectors, same_vectors, unit_rows
from biaslib.validation import check_bool

__all__ = ["ect", "ect_similarities", "spearman"]


def spearman(a: ArrayLike, b: ArrayLike) -> float:
    """Spearman's rank correlation with average ranks for ties (``scipy.stats.spearmanr``).

    Raises
    ------
    ValueError
        If the lists differ in length or have fewer than two entries.
    DegenerateTestError
        If either list is constant (the correlation is 0/0).

    Examples
    --------
    >>> from biaslib.methods.ect import spearman
    >>> spearman([1.0, 2.0, 3.0], [10.0, 30.0, 20.0])
    0.5
    """
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"need two lists of the same length, got shapes {x.shape}, {y.shape}")
    if x.size < 2:
        raise ValueError(f"a rank correlation needs at least two words, got {x.size}")
    # scipy warns and returns NaN for a constant list; say why instead.
    constant = [bool(np.all(v == v[0])) for v in (x, y)]
    if any(constant):
        which = "both lists are" if all(constant) else "a list is"
        raise DegenerateTestError(f"{which} constant (every word equally similar to a group "
                                  "mean): the rank correlation is 0/0")
    return float(stats.spearmanr(x, y).statistic)


def ect_similarities(
    words: ArrayLike, X: ArrayLike, Y: ArrayLike, *, normalize: bool = False
) -> NDArray[np.float64]:
    r"""The cosines :math:`\cos(w, \bar X)` and :math:`\cos(w, \bar Y)`, shape ``(m, 2)``.

    Raises
    ------
    ValueError
        For empty sets, NaN or infinite values, zero vectors or mismatched
        dimensions.
    DegenerateTestError
        If a group's mean is the zero vector, or X and Y are the same vectors in
        some order, as given: ECT would be 1, "no bias", for a group compared
        with itself (WEAT refuses X = Y the same way).
    """
    normalize = check_bool(normalize, "normalize")
    w = unit_rows(words, "words")
    sets = {name: as_vectors(v, name) for name, v in (("X", X), ("Y", Y))}
    if same_vectors(sets["X"], sets["Y"]):  # the vectors as given: WEAT's rule
        raise DegenerateTestError(
            "X and Y are the same vectors (in some order): ECT would compare a group with "
            "itself (rho = 1); pass two different groups")
    if normalize:
        sets = {name: unit_rows(v, name) for name, v in sets.items()}
    dims = {"words": w.shape[1], **{k: v.shape[1] for k, v in sets.items()}}
    if len(set(dims.values())) != 1:
        raise ValueError(f"the sets differ in dimension: {dims}")
    cols = []
    for name, rows in sets.items():
        bar = rows.mean(axis=0)
        length = float(np.linalg.norm(bar))
        if length <= 1e-12 * float(np.abs(rows).max()):
            raise DegenerateTestError(f"the mean of {name} is the zero vector: its cosine with "
                                      "a word is undefined")
        cols.append(np.clip(w @ (bar / length), -1.0, 1.0))
    return np.column_stack(cols)


def ect(words: ArrayLike, X: ArrayLike, Y: ArrayLike, *, normalize: bool = False
        ) -> BiasScoreResult:
    r"""ECT: Spearman's :math:`\rho` between :math:`\cos(w, \bar X)` and :math:`\cos(w, \bar Y)`.

    Parameters
    ----------
    words
        The neutral words, ``(m, d)`` with :math:`m \ge 2`.
    X, Y
        The two groups, ``(n_x, d)`` and ``(n_y, d)``.
    normalize
        Unit-length group vectors before the means (WEFE's ``normalize=True``);
        the word vectors' lengths never matter (cosines).

    Returns
    -------
    BiasScoreResult
        ``method="ECT"``, ``effect_size`` :math:`\rho \in [-1, 1]` (1: no bias),
        ``word_scores`` :math:`\cos(w, \bar X) - \cos(w, \bar Y)`;
        ``options["convention"]`` is ``"paper"`` (the authors' script and WEFE
        compute the same number; only ``normalize`` differs between calls).

    Raises
    ------
    ValueError
        For fewer than two words, empty sets, NaN, zero vectors or mismatched
        dimensions.
    DegenerateTestError
        If a group mean is zero, every word is equally similar to a group mean,
        or X and Y are the same vectors in some order.

    Examples
    --------
    Three words at 0°, 45° and 90°, X̄ at 0° and Ȳ at 90°: the words nearest X
    are farthest from Y, so the groups order them in reverse, ρ = −1:

    >>> import numpy as np
    >>> from biaslib.methods.ect import ect
    >>> W = [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
    >>> r = ect(W, [[2.0, 0.0]], [[0.0, 3.0]])
    >>> r.method, r.effect_size, r.word_scores.round(6).tolist()
    ('ECT', -1.0, [1.0, 0.0, -1.0])
    """
    normalize = check_bool(normalize, "normalize")
    sims = ect_similarities(words, X, Y, normalize=normalize)
    if sims.shape[0] < 2:
        raise ValueError(f"ECT needs at least two words to rank, got {sims.shape[0]}")
    rho = spearman(sims[:, 0], sims[:, 1])
    scores = sims[:, 0] - sims[:, 1]
    return BiasScoreResult(method="ECT", effect_size=rho, word_scores=scores,
                           n_words=int(scores.size), n_groups=2,
                           options={"convention": "paper", "normalize": normalize,
                                    "ties": "average ranks"})

r"""One front door for every static-vector metric: a test and a word table in, tidy rows out.

The methods of :mod:`biaslib.methods` take their arguments in the order their papers
think in: WEAT scores targets against attributes, SAME, RIPA, RND and ECT measure words
against two groups, RNSB trains on attributes and reads targets. This module runs every
one of them on the same four-set test with one framing, so that their numbers can be put
side by side (the book's chapter "Do the metrics agree?" and ``biaslib audit``).

The framing
-----------
A four-set test (:class:`~biaslib.stimuli.data.StimulusTest`) has target sets
:math:`X, Y` and attribute sets :math:`A, B`. The **targets are the groups**: they define
the direction, the relation vector, the centroids, the subspace; the **attribute words**
:math:`A \cup B` **are the words measured**, and every signed word score is positive
towards :math:`X`. A signed metric's test-level score is

.. math::

    \text{score} = \operatorname{mean}_{a \in A} b(a) - \operatorname{mean}_{b' \in B} b(b'),

the mean word score over :math:`A` minus the mean over :math:`B`: positive when
:math:`A` leans towards :math:`X` more than :math:`B` does, the direction of WEAT's
:math:`d > 0`. This is WEFE's query roles for RIPA, RND and ECT. The exceptions are WEAT
itself (Caliskan's :math:`s(w, A, B)` scores the targets against the attributes; its
difference of means is symmetric in the two roles, see
:func:`~biaslib.methods.gweat.generalized_weat`) and RNSB, whose classifier is trained on
the attribute words (:math:`A` labelled 1, "negative") and applied to the target words,
as in its paper and in WEFE. Unsigned metrics are compared on a magnitude
(:attr:`Metric.to_magnitude`: larger = more bias).

The metrics (:data:`METRICS`, each a :class:`Metric`; :func:`framing_table` prints them)
and their papers: WEAT's :math:`d` (Caliskan, Bryson & Narayanan 2017), SAME's skew and
SAME (Schröder et al. 2021), RIPA (Ethayarajh, Duvenaud & Hirst 2019), RND (Garg et al.
2018), the generalized WEAT (Swinger et al. 2019), MAC (Manzini et al. 2019), Direct Bias
and Indirect Bias (Bolukbasi et al. 2016), ECT (Dev & Phillips 2019), RNSB (Sweeney &
Najafian 2019) and Gonen & Goldberg's (2019) cluster, classification and neighbour tests.
Each runs at its paper's preset (:attr:`Metric.convention`); the method modules document
where the peers' code differs.

Words and vectors
-----------------
:func:`four_sets` looks a test's words up in a word table: a
:class:`~biaslib.embeddings.static.StaticEmbeddings` or any other
:class:`~biaslib.embeddings.base.Embedder` (the same ``embed(words)`` look-up; a
contextual model's words encoded alone are
:class:`~biaslib.embeddings.base.WordsAlone`). The missing-words rule is
:func:`~biaslib.embeddings.base.embed_test`'s: a word without a vector is dropped and
reported (:class:`~biaslib.errors.DroppedStimuliWarning`); a set that loses more than
``max_missing`` of its printed words refuses the test
(:class:`~biaslib.errors.MissingWordsError`). The targets stay *paired by position*
(RIPA's relation vector, Direct Bias's and Indirect Bias's principal component are
computed from the pairs :math:`X_i - Y_i`): a target without a vector takes its partner
with it, reported in a second warning. Every metric then sees the same words.

Entry points, as for every method of :mod:`biaslib.evaluate`: :func:`run_metric` runs one
metric on one test (a :class:`MetricRun`, holding the method's own result), and
:func:`metric_table` runs many metrics on many tests (a tidy frame whose first columns are
:data:`~biaslib.methods.result.CORE_COLUMNS`). Importing this module loads no vectors and
no scikit-learn.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from biaslib.embeddings.base import Embedder, WordsAlone, embed_test
from biaslib.errors import MissingWordsError, UnknownNameError, warn_dropped
from biaslib.evaluate.tidy import layer_label, paper_test, pooling_label
from biaslib.methods import gonen_goldberg as gg
from biaslib.methods.ect import ect
from biaslib.methods.gweat import generalized_weat
from biaslib.methods.indirect_bias import indirect_bias
from biaslib.methods.result import (
    CORE_COLUMNS,
    NOT_APPLICABLE,
    RECORD_COLUMNS,
    BiasResult,
    core_record,
)
from biaslib.methods.ripa import ripa
from biaslib.methods.rnd import rnd
from biaslib.methods.same import SAME_PAPER, direct_bias, mac, same, skew, weat_d
from biaslib.stats.sets import ROLES
from biaslib.stimuli.data import StimulusTest, load_test
from biaslib.validation import check_int, check_number, check_words, no_string

__all__ = [
    "MAX_MISSING",
    "METRICS",
    "METRIC_SEED",
    "TABLE_COLUMNS",
    "FourSets",
    "Metric",
    "MetricRun",
    "centred_projection",
    "four_sets",
    "framing_table",
    "metric",
    "metric_table",
    "run_metric",
]

logger = logging.getLogger(__name__)

#: Most of its printed words a set may lose to missing vectors before the test is refused
#: (:func:`~biaslib.embeddings.base.embed_test`'s default; WEFE's
#: ``lost_vocabulary_threshold``).
MAX_MISSING = 0.2
#: Neighbours of Gonen & Goldberg's neighbour test, as a share of the measured words
#: (they took 100 of 5,000 words; 16 to 100 words need a larger share to have neighbours).
_NEIGHBOUR_SHARE = 0.25
#: Folds of Gonen & Goldberg's classification test (stratified cross-validation, as EBS;
#: their one split trains on a fifth of the words, 3 of the 16 words of most Caliskan
#: tests).
_CV_FOLDS = 5
#: The default seed of the metrics' random choices (RNSB's classifier, Gonen & Goldberg's
#: k-means and SVM); the agreement chapter and the audit run with it.
METRIC_SEED = 0
#: The columns of :func:`metric_table` after :data:`CORE_COLUMNS` and :data:`RECORD_COLUMNS`.
TABLE_COLUMNS = ("stimuli", "signed", "magnitude", "method_effect_size", "n_x", "n_y", "n_a",
                 "n_b", "dropped", "note")


# --------------------------------------------------------------------------- the four sets


def _as_matrix(values: ArrayLike, role: str) -> NDArray[np.float64]:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] == 0:
        raise ValueError(f"{role} must be a non-empty (n, d) array of vectors, got shape "
                         f"{arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{role} holds NaN or infinite values")
    return arr


@dataclass(frozen=True)
class FourSets:
    """One test's vectors: targets ``X``, ``Y`` (paired by position), attributes ``A``, ``B``.

    Usually made by :func:`four_sets`; build one by hand to run the metrics on arrays.

    Attributes
    ----------
    test
        The stimulus test's name (``"C1"``, ``"MYB-Occ-name"``…).
    X, Y, A, B
        Vector arrays ``(n, d)`` of one dimension ``d``; when ``paired``, ``X[i]`` and
        ``Y[i]`` are the i-th printed pair.
    words
        The words behind each array, by role.
    dropped
        Words dropped, by role: no vector, or (targets) the partner of a word without one.
    missing
        Words without a vector, by role (a subset of ``dropped``).
    paired
        Whether ``X[i]`` and ``Y[i]`` form a pair (:attr:`Metric.needs_pairs`).
    embedder
        The word table the vectors came from, by its name (``""`` for arrays by hand).
    level, pooling, layer
        Where the vectors were read: ``"word"`` and
        :data:`~biaslib.methods.result.NOT_APPLICABLE` for a static table; ``"sentence"``,
        the encoder's sentence pooling and its layer for words encoded alone.

    Raises
    ------
    ValueError
        If an array is empty, not 2-D or not finite, the dimensions differ, or the
        targets are ``paired`` but differ in size.
    """

    test: str
    X: NDArray[np.float64]
    Y: NDArray[np.float64]
    A: NDArray[np.float64]
    B: NDArray[np.float64]
    words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    dropped: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    missing: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    paired: bool = True
    embedder: str = ""
    level: str = "word"
    pooling: str = NOT_APPLICABLE
    layer: str = NOT_APPLICABLE

    def __post_init__(self) -> None:
        arrays = {role: _as_matrix(getattr(self, role), role) for role in ROLES}
        dims = {role: a.shape[1] for role, a in arrays.items()}
        if len(set(dims.values())) > 1:
            raise ValueError(f"{self.test}: the sets differ in dimension: {dims}")
        if self.paired and len(arrays["X"]) != len(arrays["Y"]):
            raise ValueError(f"{self.test}: paired targets need as many X as Y vectors, got "
                             f"{len(arrays['X'])} and {len(arrays['Y'])}")
        for role, a in arrays.items():
            object.__setattr__(self, role, a)

    @property
    def measured(self) -> NDArray[np.float64]:
        """The measured words: ``A`` then ``B``."""
        return np.vstack([self.A, self.B])

    @property
    def n_a(self) -> int:
        """Number of words of ``A``."""
        return len(self.A)


def four_sets(test: StimulusTest | str, table: Embedder, *, max_missing: float = MAX_MISSING,
              pairs: bool = True) -> FourSets:
    """The vectors of ``test``'s four sets in ``table``, targets paired by position.

    Parameters
    ----------
    test
        A :class:`~biaslib.stimuli.data.StimulusTest` or its name
        (:func:`~biaslib.stimuli.data.load_test`).
    table
        The word table: :class:`~biaslib.embeddings.static.StaticEmbeddings` (looked up
        under its case mode), or any :class:`~biaslib.embeddings.base.Embedder`, e.g.
        :class:`~biaslib.embeddings.base.WordsAlone` for a contextual model's words.
    max_missing
        A word without a vector is dropped; a set that loses more than this share of its
        printed words refuses the test (:func:`~biaslib.embeddings.base.embed_test`'s
        rule; partners dropped below do not count).
    pairs
        Keep the targets paired by position: a target without a vector takes its partner
        along (RIPA, Direct Bias and Indirect Bias need the pairs). ``False``: keep every
        target that has a vector, the sizes may then differ, and the metrics that need
        pairs refuse the sets (:func:`run_metric`).

    Returns
    -------
    FourSets

    Warns
    -----
    DroppedStimuliWarning
        Naming the words without a vector, and (``pairs``) the partners dropped with them.

    Raises
    ------
    MissingWordsError
        If a set loses more than ``max_missing`` of its printed words.
    ValueError
        If ``pairs`` and the printed target sets differ in size (they cannot pair up).

    Examples
    --------
    >>> from biaslib.embeddings.static import StaticEmbeddings
    >>> from biaslib.stimuli.data import StimulusTest, WordSet
    >>> def ws(key, *words):
    ...     return WordSet(key, key, words)
    >>> test = StimulusTest("T", "toy", ws("X", "he", "man"), ws("Y", "she", "woman"),
    ...                     ws("A", "doctor", "pilot"), ws("B", "nurse", "dancer"), "", "")
    >>> vocab = ["he", "man", "she", "doctor", "pilot", "nurse", "dancer"]  # no "woman"
    >>> table = StaticEmbeddings(vocab, np.eye(7), name="toy")
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as said:
    ...     warnings.simplefilter("always")
    ...     sets = four_sets(test, table, max_missing=0.5)
    >>> sets.words["X"], sets.words["Y"], sets.dropped["X"], sets.missing["Y"]
    (('he',), ('she',), ('man',), ('woman',))
    >>> len(said)  # the word without a vector, and its partner
    2
    """
    if isinstance(test, str):
        test = load_test(test)
    if not isinstance(test, StimulusTest):
        raise TypeError(f"test must be a StimulusTest or a test name, got {type(test).__name__}")
    if not isinstance(table, Embedder):
        raise TypeError(f"table must be a word table (an Embedder: StaticEmbeddings, "
                        f"WordsAlone…), got {type(table).__name__}")
    check_number(max_missing, "max_missing", minimum=0.0)
    printed = {role: test.sets[role].words for role in ROLES}
    if pairs and len(printed["X"]) != len(printed["Y"]):
        raise ValueError(f"{test.name}: X has {len(printed['X'])} words, Y "
                         f"{len(printed['Y'])}; the targets must pair up (or pairs=False)")
    embedded = embed_test(test, table, max_missing)  # refuses, or warns about the missing
    keep, rows = {}, {}
    for role in ROLES:
        found = embedded.sets[role]
        lacking = set(found.missing)
        present = [w not in lacking for w in check_words(printed[role], role)]
        keep[role] = [i for i, ok in enumerate(present) if ok]
        rows[role] = {i: k for k, i in enumerate(keep[role])}  # printed index -> vector row
    if pairs:
        both = [i for i in keep["X"] if i in rows["Y"]]
        partners = {role: [printed[role][i] for i in keep[role] if i not in both]
                    for role in ("X", "Y")}
        keep["X"] = keep["Y"] = both
        said = "; ".join(f"{role}: {words}" for role, words in partners.items() if words)
        if said:
            warn_dropped(f"{test.name} on {table.name}: dropped the partners of target words "
                         f"without a vector, to keep X and Y paired by position — {said}")
    arrays = {role: embedded.sets[role].vectors[[rows[role][i] for i in keep[role]]]
              for role in ROLES}
    words = {role: tuple(printed[role][i] for i in keep[role]) for role in ROLES}
    dropped = {role: tuple(w for i, w in enumerate(printed[role]) if i not in set(keep[role]))
               for role in ROLES}
    missing = {role: tuple(w for i, w in enumerate(printed[role]) if i not in rows[role])
               for role in ROLES}
    return FourSets(test.name, arrays["X"], arrays["Y"], arrays["A"], arrays["B"], words,
                    dropped, missing, paired=pairs, embedder=table.name, **_where(table))


def _where(table: Embedder | None) -> dict[str, str]:
    """Level, pooling and layer of a table's vectors (a static table has neither of the last)."""
    if isinstance(table, WordsAlone):
        return {"level": "sentence", "layer": layer_label(table.encoder),
                "pooling": pooling_label(table.encoder, "sentence", table.pooling)}
    return {"level": "word", "pooling": NOT_APPLICABLE, "layer": NOT_APPLICABLE}


# --------------------------------------------------------------------------- the metrics


@dataclass(frozen=True)
class Metric:
    """One metric in the framing of a four-set test (the module docstring).

    Attributes
    ----------
    name
        As the tables print it (the ``method`` of its rows).
    signed
        Whether the test-level score has a direction (positive = WEAT's direction: ``A``
        leans towards ``X`` more than ``B`` does).
    groups, measured
        Which sets play the method's groups and which are measured, in words.
    score_text
        The test-level score, in words.
    magnitude_text
        How the score is compared with other metrics' on magnitude, in words.
    reading
        What a number means: where "no bias" lies and what a larger number says.
    compute
        ``(sets, seed) → result``: the method's own result
        (a :class:`~biaslib.methods.result.BiasResult`).
    contrast
        Whether the test-level score is the mean of the result's ``word_scores`` over
        ``A`` minus their mean over ``B``; otherwise it is the result's ``effect_size``.
    to_magnitude
        Test-level score → magnitude (larger = more bias).
    source
        The biaslib function computed.
    convention
        The preset it runs under (the ``convention`` of its rows when the result names
        none).
    needs_pairs
        Whether it reads the targets as pairs ``X[i]``, ``Y[i]`` (:attr:`FourSets.paired`).
    """

    name: str
    signed: bool
    groups: str
    measured: str
    score_text: str
    magnitude_text: str
    reading: str
    compute: Callable[[FourSets, int], BiasResult]
    contrast: bool
    to_magnitude: Callable[[float], float]
    source: str
    convention: str
    needs_pairs: bool = False

    def score(self, result: BiasResult, sets: FourSets) -> float:
        """The test-level score of ``result``, computed on ``sets`` (:attr:`contrast`)."""
        if not self.contrast:
            return float(result.effect_size)
        return _contrast(np.asarray(result.word_scores, dtype=np.float64), sets.n_a)


def _contrast(word_scores: NDArray[np.float64], n_a: int) -> float:
    """Mean word score over ``A`` minus the mean over ``B`` (the first ``n_a`` are A)."""
    return float(word_scores[:n_a].mean() - word_scores[n_a:].mean())


def _weat(s: FourSets, seed: int) -> BiasResult:
    return weat_d(s.X, s.Y, s.A, s.B)


def _skew(s: FourSets, seed: int) -> BiasResult:
    return skew(s.measured, s.X, s.Y, convention=SAME_PAPER)


def _same(s: FourSets, seed: int) -> BiasResult:
    return same(s.measured, [s.X, s.Y], convention=SAME_PAPER)


def _mac(s: FourSets, seed: int) -> BiasResult:
    return mac(s.measured, [s.X, s.Y])


def _direct_bias(s: FourSets, seed: int) -> BiasResult:
    return direct_bias(s.measured, [s.X, s.Y])


def _ripa(s: FourSets, seed: int) -> BiasResult:
    return ripa(s.measured, s.X, s.Y, convention="paper")


def _rnd(s: FourSets, seed: int) -> BiasResult:
    return rnd(s.measured, s.X, s.Y, convention="paper")


def _ect(s: FourSets, seed: int) -> BiasResult:
    return ect(s.measured, s.X, s.Y)


def _rnsb(s: FourSets, seed: int) -> BiasResult:
    from biaslib.methods.rnsb import rnsb  # scikit-learn, on first use

    return rnsb([s.X, s.Y], s.A, s.B, seed=seed, convention="paper")


def _indirect(s: FourSets, seed: int) -> BiasResult:
    return indirect_bias(s.A, s.B, s.X, s.Y, convention="paper")


def _gweat(s: FourSets, seed: int) -> BiasResult:
    return generalized_weat([s.X, s.Y], [s.A, s.B], convention="paper")


def _neighbours_k(n: int) -> int:
    return max(1, min(n - 1, round(_NEIGHBOUR_SHARE * n)))


def centred_projection(s: FourSets) -> NDArray[np.float64]:
    r"""Gonen & Goldberg's projection bias of the measured words, minus its median.

    :func:`~biaslib.methods.gonen_goldberg.projection_bias` of :math:`A \cup B` on the
    :math:`X - Y` direction. Their "male-" and "female-biased" words are the most biased
    on each side of the gender direction among 50,000 words, centred near 0. The measured
    words of a test often lie all on one side of the :math:`X - Y` direction (every
    attribute word of Caliskan's C7 leans towards the arts), which would leave one class;
    measuring from the median word makes the two halves the most :math:`X`- and the most
    :math:`Y`-leaning words, as in their selection.

    Examples
    --------
    >>> s = FourSets("t", [[1.0, 0.0]], [[-1.0, 0.0]], [[1.0, 1.0], [0.0, 1.0]],
    ...              [[-1.0, 1.0]])
    >>> centred_projection(s).round(4).tolist()  # cosines 0.7071, 0, −0.7071; median 0
    [0.7071, 0.0, -0.7071]
    """
    bias = np.asarray(gg.projection_bias(s.measured, s.X, s.Y), dtype=np.float64)
    return bias - np.median(bias)


def _gg(kind: str) -> Callable[[FourSets, int], BiasResult]:
    def compute(s: FourSets, seed: int) -> BiasResult:
        words, bias = s.measured, centred_projection(s)
        if kind == "neighbours":
            return gg.neighbour_test(words, bias, k=_neighbours_k(len(words)),
                                     convention="paper")
        keep = bias != 0  # the median word itself, when the number of words is odd
        words, labels = words[keep], (bias[keep] > 0).astype(int)
        if kind == "cluster":
            return gg.cluster_test(words, labels, seed=seed, convention="paper")
        return gg.classification_test(words, labels, seed=seed, cv_folds=_CV_FOLDS,
                                      convention="paper")

    compute.__name__ = f"_gg_{kind}"
    return compute


def _identity(v: float) -> float:
    return v


def _from_one(v: float) -> float:
    return abs(1.0 - v)


def _below_one(v: float) -> float:
    return 1.0 - v


_T, _M = "X, Y", "A, B"
_DIFF = "mean over A − mean over B"
_SIGNED = ("> 0: A leans towards X more than B does (WEAT's direction), < 0: towards Y; "
           "0: no difference")

#: Every metric, signed ones first (the order of the agreement chapter's tables).
METRICS: tuple[Metric, ...] = (
    Metric("WEAT d", True, "A, B (s(w, A, B))", "X, Y", "Caliskan et al.'s effect size d",
           "|d|", _SIGNED, _weat, False, abs, "biaslib.methods.same.weat_d", "caliskan"),
    Metric("skew", True, _T, _M, f"SAME's signed word score, {_DIFF}", "|score|", _SIGNED,
           _skew, True, abs, "biaslib.methods.same.skew", SAME_PAPER.name),
    Metric("RIPA", True, _T + " (pairs X[i], Y[i])", _M, f"RIPA's word score, {_DIFF}",
           "|score|", _SIGNED, _ripa, True, abs, "biaslib.methods.ripa.ripa", "paper",
           needs_pairs=True),
    Metric("RND", True, _T, _M, f"RND's word score, {_DIFF}", "|score|", _SIGNED, _rnd, True,
           abs, "biaslib.methods.rnd.rnd", "paper"),
    Metric("generalized WEAT", True, _T, _M, "Swinger et al.'s statistic", "|score|", _SIGNED,
           _gweat, False, abs, "biaslib.methods.gweat.generalized_weat", "paper"),
    Metric("SAME", False, _T, "A ∪ B", "SAME of the measured words", "SAME",
           "0: every measured word as similar to X as to Y; larger: more bias (at most 1)",
           _same, False, _identity, "biaslib.methods.same.same", SAME_PAPER.name),
    Metric("MAC", False, _T, "A ∪ B", "MAC of the measured words", "|1 − MAC|",
           "1: no bias (the paper's reading); further from 1: more (0 to 2)", _mac, False,
           _from_one, "biaslib.methods.same.mac", "paper"),
    Metric("Direct Bias", False, _T + " (pairs; first principal component)", "A ∪ B",
           "Direct Bias (c = 1)", "Direct Bias",
           "0: every measured word orthogonal to the X − Y direction; larger: more bias "
           "(at most 1)", _direct_bias, False, _identity, "biaslib.methods.same.direct_bias",
           "paper", needs_pairs=True),
    Metric("ECT", False, _T + " (means)", "A ∪ B", "Spearman ρ of the cosines (1 = no bias)",
           "1 − ρ", "1: the words rank alike by X and by Y (no bias); lower: more bias "
           "(down to −1)", _ect, False, _below_one, "biaslib.methods.ect.ect", "paper"),
    Metric("RNSB", False, "A, B (classifier's training sets)", "X ∪ Y",
           "KL divergence from uniform", "KL",
           "0: every target word equally likely read as A; larger: more bias (at most "
           "log |X ∪ Y|)", _rnsb, False, _identity, "biaslib.methods.rnsb.rnsb", "paper"),
    Metric("Indirect Bias", False, _T + " (direction)", "pairs A × B", "mean β over A × B",
           "|mean β|", "0: the X − Y direction adds nothing to the similarity of A and B "
           "words; further from 0: more", _indirect, False, abs,
           "biaslib.methods.indirect_bias.indirect_bias", "paper", needs_pairs=True),
    Metric("G&G cluster", False, _T + " (projection labels)", "A ∪ B",
           "k-means accuracy (0.5 = none)", "accuracy",
           "0.5: two clusters ignore the X and Y sides; towards 1: more bias", _gg("cluster"),
           False, _identity, "biaslib.methods.gonen_goldberg.cluster_test", "paper"),
    Metric("G&G classification", False, _T + " (projection labels)", "A ∪ B",
           "SVM accuracy on held-out words", "accuracy",
           "0.5: the side of X or Y is not predictable from a word's vector; towards 1: more "
           "bias", _gg("classification"), False, _identity,
           "biaslib.methods.gonen_goldberg.classification_test", "paper"),
    Metric("G&G neighbours", False, _T + " (projection)", "A ∪ B",
           "Pearson r, bias vs neighbours' share", "r",
           "0: a word's neighbours do not share its side; towards 1: more bias",
           _gg("neighbours"), False, _identity,
           "biaslib.methods.gonen_goldberg.neighbour_test", "paper"),
)

_BY_NAME = {m.name: m for m in METRICS}


def metric(name: str | Metric) -> Metric:
    """The metric ``name`` of :data:`METRICS` (a :class:`Metric` is returned as it is).

    Raises
    ------
    biaslib.errors.UnknownNameError
        For a name that is not in :data:`METRICS`; the message lists them.

    Examples
    --------
    >>> metric("RIPA").signed, metric("ECT").to_magnitude(0.25)
    (True, 0.75)
    """
    if isinstance(name, Metric):
        return name
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise UnknownNameError("metric", name, tuple(_BY_NAME)) from None


def framing_table(metrics: Sequence[Metric | str] = METRICS) -> pd.DataFrame:
    """The framing of a four-set test for every metric: one row each, indexed by metric.

    Columns: ``groups``, ``measured``, ``test-level score``, ``signed`` (``"yes"`` or
    ``"no"``), ``compared as`` (the magnitude).
    """
    rows = [metric(m) for m in no_string(metrics, "metrics")]
    return pd.DataFrame(
        [{"metric": m.name, "groups": m.groups, "measured": m.measured,
          "test-level score": m.score_text, "signed": "yes" if m.signed else "no",
          "compared as": m.magnitude_text}
         for m in rows]).set_index("metric")


# --------------------------------------------------------------------------- entry points


@dataclass(frozen=True)
class MetricRun:
    """One metric run on one test: the sets, the method's result and the test-level score.

    Attributes
    ----------
    metric
        The :class:`Metric`.
    sets
        The vectors it ran on.
    result
        The method's own result (:class:`~biaslib.methods.result.BiasResult`; its
        ``word_scores`` and ``options`` are the method's).
    score
        The test-level score (:meth:`Metric.score`): for signed metrics positive in WEAT's
        direction.
    seed
        The seed of the metric's random choices (RNSB's classifier, the G&G tests).
    """

    metric: Metric
    sets: FourSets
    result: BiasResult
    score: float
    seed: int

    @property
    def magnitude(self) -> float:
        """The score as compared on magnitude (:attr:`Metric.to_magnitude`)."""
        return float(self.metric.to_magnitude(self.score))

    def tidy_row(self, model: str | None = None) -> dict[str, object]:
        """:data:`~biaslib.methods.result.CORE_COLUMNS`, the record, then :data:`TABLE_COLUMNS`.

        ``effect_size`` is the test-level :attr:`score`; ``method_effect_size`` the
        result's own (RIPA's and RND's aggregate over all measured words, the skew's mean).
        """
        return _row(self.metric, self.sets, model, self.result, self.score)


def _row(m: Metric, sets: FourSets, model: str | None, result: BiasResult | None,
         score: float, note: str = "") -> dict[str, object]:
    test, variant = paper_test(sets.test)
    labels = {"test": test, "variant": variant, "model": model or sets.embedder or "unnamed",
              "level": sets.level, "pooling": sets.pooling, "layer": sets.layer}
    if result is None:
        core = {"method": m.name, **labels, "convention": m.convention,
                "effect_size": math.nan, "p_value": math.nan, "ci_low": math.nan,
                "ci_high": math.nan, "n": len(sets.A) + len(sets.B)}
        own = math.nan
    else:
        core = core_record(result, method=m.name, **labels)
        core["convention"] = result.convention_name or m.convention
        own = core["effect_size"]
        core["effect_size"] = float(score)
    return {**{c: core[c] for c in (*CORE_COLUMNS, *RECORD_COLUMNS)},
            "stimuli": sets.test, "signed": m.signed,
            "magnitude": float(m.to_magnitude(core["effect_size"])),
            "method_effect_size": own, "n_x": len(sets.X), "n_y": len(sets.Y),
            "n_a": len(sets.A), "n_b": len(sets.B), "dropped": _by_role(sets.dropped),
            "note": note}


def _by_role(words: Mapping[str, tuple[str, ...]]) -> str:
    return "; ".join(f"{role}: {', '.join(w)}" for role, w in words.items() if w)


def _sets(test: StimulusTest | str | FourSets, table: Embedder | None, max_missing: float,
          pairs: bool) -> FourSets:
    if isinstance(test, FourSets):
        return test
    if table is None:
        raise TypeError("a word table is needed to look the test's words up (or pass the "
                        "FourSets of four_sets)")
    return four_sets(test, table, max_missing=max_missing, pairs=pairs)


def run_metric(m: Metric | str, test: StimulusTest | str | FourSets,
               table: Embedder | None = None, *, seed: int = METRIC_SEED,
               max_missing: float = MAX_MISSING, pairs: bool = True) -> MetricRun:
    """Run one metric on one test: look its words up (:func:`four_sets`) and compute.

    Parameters
    ----------
    m
        A :class:`Metric` or its name in :data:`METRICS`.
    test
        A stimulus test, its name, or the :class:`FourSets` already looked up.
    table
        The word table (not needed for a :class:`FourSets`).
    seed
        Seeds the metric's random choices (RNSB's classifier, the G&G tests).
    max_missing, pairs
        :func:`four_sets`'s rule for words without a vector.

    Returns
    -------
    MetricRun

    Raises
    ------
    biaslib.errors.UnknownNameError
        For an unknown metric.
    biaslib.errors.MissingWordsError
        If a set loses more than ``max_missing`` of its words.
    ValueError
        If the metric needs paired targets and the sets are not paired, or the metric's
        own checks refuse the vectors (a
        :class:`~biaslib.errors.DegenerateTestError` among them).

    Examples
    --------
    Caliskan et al.'s C6 (male and female names, career and family words) on GloVe 6B
    50d; every signed metric is positive in WEAT's direction:

    >>> from biaslib.embeddings.static import glove_6b_50d
    >>> glove = glove_6b_50d()
    >>> runs = {name: run_metric(name, "C6", glove) for name in ("WEAT d", "RIPA", "ECT")}
    >>> round(runs["WEAT d"].score, 2), runs["RIPA"].score > 0, runs["RIPA"].result.method
    (1.71, True, 'RIPA')
    >>> round(runs["ECT"].score, 2), round(runs["ECT"].magnitude, 2)  # 1 would be no bias
    (-0.04, 1.04)
    """
    m = metric(m)
    seed = check_int(seed, "seed", minimum=0)
    sets = _sets(test, table, max_missing, pairs)
    if m.needs_pairs and not sets.paired:
        raise ValueError(f"{m.name} reads the targets as pairs X[i], Y[i]; {sets.test}'s "
                         "vectors were looked up with pairs=False")
    result = m.compute(sets, seed)
    return MetricRun(m, sets, result, m.score(result, sets), seed)


def metric_table(tests: Iterable[StimulusTest | str | FourSets], table: Embedder | None = None,
                 metrics: Sequence[Metric | str] = METRICS, *, seed: int = METRIC_SEED,
                 max_missing: float = MAX_MISSING, pairs: bool = True,
                 model: str | None = None) -> pd.DataFrame:
    """Every metric on every test: one row per test × metric, in that order.

    Each test is looked up once (:func:`four_sets`) and every metric runs on the same
    vectors. Nothing is left out silently: a test that :func:`four_sets` refuses gives
    each metric a row with no score and the reason in ``note``; a metric whose own checks
    refuse the vectors (a ``ValueError``, e.g. a
    :class:`~biaslib.errors.DegenerateTestError`, or a classifier with one class) gives
    its row no score and the message in ``note``.

    Parameters
    ----------
    tests
        Stimulus tests, their names, or :class:`FourSets` already looked up.
    table
        The word table (:func:`four_sets`); not needed if every test is a
        :class:`FourSets`.
    metrics
        Metrics or their names (default: all of :data:`METRICS`).
    seed
        Seeds the metrics' random choices (RNSB's classifier, the G&G tests).
    max_missing, pairs
        :func:`four_sets`'s rule for words without a vector.
    model
        The model's short name for the ``model`` column (default: the table's name).

    Returns
    -------
    pandas.DataFrame
        :data:`~biaslib.methods.result.CORE_COLUMNS` (``method``: the metric;
        ``test``, ``variant``: :func:`~biaslib.evaluate.tidy.paper_test`; ``level``
        ``"word"`` and ``pooling``, ``layer``
        :data:`~biaslib.methods.result.NOT_APPLICABLE` for a static table;
        ``convention``: the preset; ``effect_size``: the test-level score;
        ``p_value`` NaN, none of these metrics has one), then
        :data:`~biaslib.methods.result.RECORD_COLUMNS`, then :data:`TABLE_COLUMNS`:
        ``stimuli`` (the stimulus test), ``signed``, ``magnitude``
        (:attr:`Metric.to_magnitude`), ``method_effect_size`` (the result's own),
        the sizes ``n_x``, ``n_y``, ``n_a``, ``n_b``, ``dropped`` (by role) and
        ``note`` (``""``, or why there is no score).

    Examples
    --------
    >>> from biaslib.embeddings.static import glove_6b_50d
    >>> rows = metric_table(["C6", "C7"], glove_6b_50d(), ["WEAT d", "SAME"])
    >>> rows[["method", "test", "level", "convention"]].to_numpy().tolist()[:2]
    [['WEAT d', 'C6', 'word', 'caliskan'], ['SAME', 'C6', 'word', 'same-paper']]
    >>> rows["effect_size"].round(2).tolist()
    [1.71, 0.22, 1.5, 0.24]
    """
    chosen = [metric(m) for m in no_string(metrics, "metrics")]
    if not chosen:
        raise ValueError("no metric to run")
    seed = check_int(seed, "seed", minimum=0)
    rows = []
    for test in no_string(tests, "tests"):
        try:
            sets = _sets(test, table, max_missing, pairs)
        except MissingWordsError as err:
            name = test if isinstance(test, str) else test.name  # type: ignore[union-attr]
            logger.info("metrics not run on %s: %s", name, err)
            rows += _refused(chosen, name, table, model, str(err))
            continue
        for m in chosen:
            try:
                run = run_metric(m, sets, seed=seed)
            except ValueError as err:  # the metric's own checks: an undefined score
                logger.info("%s on %s: %s", m.name, sets.test, err)
                rows.append(_row(m, sets, model, None, math.nan, str(err)))
            else:
                rows.append(run.tidy_row(model))
    columns = [*CORE_COLUMNS, *RECORD_COLUMNS, *TABLE_COLUMNS]
    frame = pd.DataFrame(rows, columns=columns)
    return frame.astype({"signed": bool})


def _refused(chosen: Sequence[Metric], name: str, table: Embedder | None, model: str | None,
             note: str) -> list[dict[str, object]]:
    """The rows of a test :func:`four_sets` refused: no score, the reason in ``note``."""
    empty = np.zeros((1, 1))
    placeholder = FourSets(name, empty, empty, empty, empty,
                           embedder=getattr(table, "name", ""), **_where(table))
    out = []
    for m in chosen:
        row = _row(m, placeholder, model, None, math.nan, note)
        row.update(n=math.nan, n_x=math.nan, n_y=math.nan, n_a=math.nan, n_b=math.nan)
        out.append(row)
    return out

r"""The chapter "Do the metrics agree?": every bias metric on the same tests and vectors.

Mind Your Bias (Husse & Spitz 2022) correlated four methods for contextual models over
the same tests (their Table 5) and found that design choices move the score. This chapter
asks the same of the metrics for *static* word vectors: WEAT's effect size, SAME's score
and skew, MAC, Direct Bias, RIPA, RND, ECT, RNSB, Indirect Bias, Gonen & Goldberg's
cluster, classification and neighbour tests and the generalized WEAT — each on
Caliskan et al.'s ten tests and on the SAME paper's gender/occupation sets, on GloVe 6B
50d and on the Google News word2vec subset — and correlates their test-level scores.

One framing serves every metric (:data:`METRICS`; the chapter prints it as a table,
:func:`framing_table`). A four-set test has target sets :math:`X, Y` and attribute sets
:math:`A, B`. The targets play the API's *groups* (they define the direction, the
relation vector, the centroids, the subspace); the attribute words are the *words*
measured, and every signed word score is positive towards :math:`X`. A signed metric's
test-level score is the mean word score over :math:`A` minus the mean over :math:`B`:
positive when :math:`A` leans towards :math:`X` more than :math:`B` does, which is the
direction of WEAT's :math:`d > 0`. RNSB is the one exception: as its paper and WEFE do,
its classifier is trained on the attribute sets (:math:`A` labelled 1) and it scores the
target words. Unsigned metrics are compared on a magnitude (:attr:`Metric.magnitude`).

Everything is computed live from the static vectors (CONTRIBUTING rule 1) in seconds; no
table is stored. Importing this module loads no vectors.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats

from biasbook.findings import Finding
from biaslib.reporting.format import robust_format
from biaslib.stats.correlation_ci import fisher_interval
from biaslib.stimuli.data import CALISKAN_TESTS, StimulusTest, WordSet, load_test

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

    from biaslib.embeddings.static import StaticEmbeddings

__all__ = [
    "CONFIDENCE",
    "COSINE_METRICS",
    "COUNT_METRICS",
    "FAMILY_LABELS",
    "FROM_NEUTRAL",
    "METRICS",
    "MIN_TESTS",
    "MIN_TESTS_CI",
    "PAPER_VECTORS",
    "SAME_TEST",
    "SECTIONS",
    "VECTORS",
    "FourSets",
    "Metric",
    "agreement_with",
    "between",
    "centred_projection",
    "correlation_heatmap",
    "correlation_matrix",
    "correlation_table",
    "dropped_words",
    "families",
    "family_table",
    "findings",
    "four_sets",
    "framing_table",
    "metric",
    "paper_label",
    "paper_scores",
    "rank_correlations",
    "same_test",
    "score_frame",
    "score_table",
    "scores",
    "shown",
    "shown_score",
    "sign_flips",
    "sign_table",
    "vector_sign_flips",
]

#: The name of the test built from the SAME paper's word sets (:func:`same_test`).
SAME_TEST = "SAME"
#: The two static vector sets (short names, in the chapter's order).
VECTORS: tuple[str, ...] = ("GloVe 6B 50d", "word2vec Google News (subset)")
#: Most words a set may lose before its test is left out (weat_static's and ML-EAT's rule).
MAX_MISSING = 0.2
#: Fewest tests for a correlation (Mind Your Bias's Table 5 rule, as the synthesis chapter).
MIN_TESTS = 3
#: Fewest tests for a Spearman interval (Fisher's z needs n > 3); Kendall's needs one more.
MIN_TESTS_CI = 4
#: Confidence level of the intervals.
CONFIDENCE = 0.95
#: Neighbours of Gonen & Goldberg's neighbour test, as a share of the measured words
#: (they took 100 of 5,000 words; 16 to 100 words need a larger share to have neighbours).
NEIGHBOUR_SHARE = 0.25
#: Folds of Gonen & Goldberg's classification test (stratified cross-validation, as EBS; their
#: one split trains on a fifth of the words, 3 of the 16 words of most Caliskan tests).
CV_FOLDS = 5
#: The metrics computed from cosines (unit vectors), as Mind Your Bias's "cosine-based
#: methods": RIPA (raw inner products), RND (Euclidean distances), RNSB (a classifier) and
#: Gonen & Goldberg's tests (clusters, an SVM, neighbours) are not.
COSINE_METRICS: tuple[str, ...] = ("WEAT d", "skew", "generalized WEAT", "SAME", "MAC",
                                   "Direct Bias", "ECT", "Indirect Bias")
#: Where the chapter shows the evidence (MyST labels in notebooks/agree).
SECTIONS = {"correlations": "agree-correlations", "signs": "agree-signs"}


# --------------------------------------------------------------------------- the tests


def same_test(n: int = 50) -> StimulusTest:
    """The SAME paper's word sets as a four-set test.

    ``X``, ``Y``: debiaswe's male and female definitional words (nine pairs, paired by
    position: *man*/*woman*, *he*/*she*…); ``A``, ``B``: the ``n`` most male- and most
    female-stereotyped of the SAME paper's occupations by debiaswe's ratings
    (:func:`biasbook.same.stereotype_groups`, the groups of its WEAT experiment).
    The gender words play the targets, so that in this chapter's framing they define the
    direction and the occupations are measured, as in Bolukbasi et al. and the SAME paper.
    """
    from biasbook.same import gender_words, stereotype_groups

    female, male = gender_words()
    male_occ, female_occ = stereotype_groups(n)
    src = "SAME paper (Schröder et al.), debiaswe's definitional words and occupation ratings"
    return StimulusTest(
        name=SAME_TEST, title="Male vs female terms, male- vs female-stereotyped occupations",
        X=WordSet("male_terms", "male terms", male, src),
        Y=WordSet("female_terms", "female terms", female, src),
        A=WordSet("male_occupations", f"{n} male-stereotyped occupations", male_occ, src),
        B=WordSet("female_occupations", f"{n} female-stereotyped occupations", female_occ, src),
        provenance=src, source="same_schroeder")


@dataclass(frozen=True)
class FourSets:
    """One test's vectors: targets ``X``, ``Y`` (paired by position), attributes ``A``, ``B``.

    Attributes
    ----------
    test
        The test's name (``"C1"``… or :data:`SAME_TEST`).
    X, Y, A, B
        Vector arrays, ``(n, d)``; ``X[i]`` and ``Y[i]`` are the i-th printed pair.
    words
        The words behind each array, by role.
    dropped
        Words dropped, by role: no vector, or (targets) the partner of a word without one.
    """

    test: str
    X: NDArray[np.float64]
    Y: NDArray[np.float64]
    A: NDArray[np.float64]
    B: NDArray[np.float64]
    words: Mapping[str, tuple[str, ...]]
    dropped: Mapping[str, tuple[str, ...]]

    @property
    def measured(self) -> NDArray[np.float64]:
        """The measured words: ``A`` then ``B``."""
        return np.vstack([self.A, self.B])

    @property
    def n_a(self) -> int:
        """Number of words of ``A``."""
        return len(self.A)


def _vector(table: StaticEmbeddings, word: str) -> NDArray[np.float64] | None:
    key = table.key_for(word)
    return None if key is None else np.asarray(table.vectors[table.index[key]], dtype=np.float64)


def four_sets(test: StimulusTest, table: StaticEmbeddings, *,
              max_missing: float = MAX_MISSING) -> FourSets | None:
    """The vectors of ``test`` in ``table``, or ``None`` if a set loses too many words.

    A word without a vector is dropped. The targets stay *paired by position* (RIPA's
    relation vector and Direct Bias's principal component are computed from pairs
    ``X[i] − Y[i]``): a target without a vector takes its partner with it. The test is
    left out (``None``) when a set loses more than ``max_missing`` of its printed words
    to missing vectors, the rule of the WEAT chapter (partners dropped do not count).

    Raises
    ------
    ValueError
        If the printed target sets differ in size (they cannot be paired).
    """
    printed = {role: ws.words for role, ws in test.sets.items()}
    if len(printed["X"]) != len(printed["Y"]):
        raise ValueError(f"{test.name}: X has {len(printed['X'])} words, Y "
                         f"{len(printed['Y'])}; the targets must pair up")
    vecs = {role: [_vector(table, w) for w in words] for role, words in printed.items()}
    for role, words in printed.items():
        lost = sum(v is None for v in vecs[role])
        if lost / len(words) > max_missing:
            return None
    pairs = [i for i in range(len(printed["X"]))
             if vecs["X"][i] is not None and vecs["Y"][i] is not None]
    keep = {"X": pairs, "Y": pairs}
    for role in ("A", "B"):
        keep[role] = [i for i, v in enumerate(vecs[role]) if v is not None]
    arrays = {role: np.vstack([vecs[role][i] for i in keep[role]]) for role in printed}
    words = {role: tuple(printed[role][i] for i in keep[role]) for role in printed}
    dropped = {role: tuple(w for i, w in enumerate(printed[role]) if i not in set(keep[role]))
               for role in printed}
    return FourSets(test.name, arrays["X"], arrays["Y"], arrays["A"], arrays["B"], words,
                    dropped)


def _tests(googlenews: bool) -> list[StimulusTest]:
    """The chapter's tests: C1–C10 and the SAME test (:func:`same_test`).

    C1–C10 with Caliskan et al.'s stimuli, or with ML-EAT's for the Google News vectors
    (:func:`biasbook.mleat.googlenews_test`).
    """
    if not googlenews:
        return [*map(load_test, CALISKAN_TESTS), same_test()]
    from biasbook.mleat import googlenews_test

    return [*map(googlenews_test, CALISKAN_TESTS), same_test()]


def _table(vectors: str) -> StaticEmbeddings:
    if vectors == VECTORS[0]:
        from biaslib.embeddings import glove_6b_50d

        return glove_6b_50d(case="lower")
    if vectors == VECTORS[1]:
        from biaslib.embeddings.vector_files import googlenews_subset

        return googlenews_subset("exact")
    raise ValueError(f"vectors must be one of {VECTORS}, got {vectors!r}")


@functools.cache
def _all_sets(vectors: str) -> tuple[tuple[str, FourSets | None, StimulusTest], ...]:
    table = _table(vectors)
    tests = _tests(googlenews=vectors != VECTORS[0])
    return tuple((t.name, four_sets(t, table), t) for t in tests)


def dropped_words(vectors: str) -> pd.DataFrame:
    """Which words each test lost on ``vectors``, and which tests were left out.

    GloVe 6B 50d is looked up in lower case (it was trained on lowercased text), the Google
    News subset exactly as printed (word2vec is cased; ML-EAT's stimuli for it,
    :func:`biasbook.mleat.googlenews_test`). Returns one row per set that lost a
    word: its printed size, the words without a vector (for a test left out, how many),
    the target partners dropped with them, and whether the test runs (no set loses more
    than :data:`MAX_MISSING`). Index: (test, set).
    """
    table = _table(vectors)
    rows = []
    for name, sets, test in _all_sets(vectors):
        missing = {role: [w for w in ws.words if _vector(table, w) is None]
                   for role, ws in test.sets.items()}
        for role, ws in test.sets.items():
            partners = [] if sets is None else [w for w in sets.dropped[role]
                                                 if w not in missing[role]]
            if not missing[role] and not partners:
                continue
            n = len(ws.words)
            lacking = (", ".join(missing[role]) if sets is not None and missing[role]
                       else f"{len(missing[role])} of {n}" if missing[role] else "—")
            rows.append({"test": name, "set": role, "of": n, "no vector": lacking,
                         "partner dropped": ", ".join(partners) or "—",
                         "test runs": "yes" if sets is not None else "no"})
    return pd.DataFrame(rows, columns=["test", "set", "of", "no vector", "partner dropped",
                                       "test runs"]).set_index(["test", "set"])


# --------------------------------------------------------------------------- the metrics


@dataclass(frozen=True)
class Metric:
    """One metric in the chapter's framing.

    Attributes
    ----------
    name
        As the tables print it.
    signed
        Whether the test-level score has a direction (positive = WEAT's direction).
    groups, words
        Which sets play the API's groups and which are measured (the framing table).
    score
        The test-level score, in words.
    magnitude
        How the score is compared with others on magnitude, in words.
    compute
        ``FourSets, seed → score`` (signed metrics: the signed score).
    to_magnitude
        Score → magnitude (larger = more bias).
    source
        The biaslib function.
    """

    name: str
    signed: bool
    groups: str
    words: str
    score: str
    magnitude: str
    compute: Callable[[FourSets, int], float]
    to_magnitude: Callable[[float], float]
    source: str


def _contrast(word_scores: NDArray[np.float64], n_a: int) -> float:
    """Mean word score over ``A`` minus the mean over ``B`` (the first ``n_a`` are A)."""
    s = np.asarray(word_scores, dtype=np.float64)
    return float(s[:n_a].mean() - s[n_a:].mean())


def _weat(s: FourSets, seed: int) -> float:
    from biaslib.methods.same import weat_d

    return weat_d(s.X, s.Y, s.A, s.B).value


def _skew(s: FourSets, seed: int) -> float:
    from biaslib.methods.same import same_signed_word

    return _contrast(same_signed_word(s.measured, s.X, s.Y, "first"), s.n_a)


def _same(s: FourSets, seed: int) -> float:
    from biaslib.methods.same import same

    return same(s.measured, [s.X, s.Y]).value


def _mac(s: FourSets, seed: int) -> float:
    from biaslib.methods.same import mac

    return mac(s.measured, [s.X, s.Y]).value


def _direct_bias(s: FourSets, seed: int) -> float:
    from biaslib.methods.same import direct_bias

    return direct_bias(s.measured, [s.X, s.Y]).value


def _ripa(s: FourSets, seed: int) -> float:
    from biaslib.methods.ripa import ripa

    return _contrast(ripa(s.measured, s.X, s.Y).word_scores, s.n_a)


def _rnd(s: FourSets, seed: int) -> float:
    from biaslib.methods.rnd import rnd

    return _contrast(rnd(s.measured, s.X, s.Y).word_scores, s.n_a)


def _ect(s: FourSets, seed: int) -> float:
    from biaslib.methods.ect import ect

    return ect(s.measured, s.X, s.Y).value


def _rnsb(s: FourSets, seed: int) -> float:
    from biaslib.methods.rnsb import rnsb

    return rnsb([s.X, s.Y], s.A, s.B, seed=seed).value


def _indirect(s: FourSets, seed: int) -> float:
    from biaslib.methods.indirect_bias import indirect_bias

    return indirect_bias(s.A, s.B, s.X, s.Y).value


def _neighbours_k(n: int) -> int:
    return max(1, min(n - 1, round(NEIGHBOUR_SHARE * n)))


def centred_projection(s: FourSets) -> NDArray[np.float64]:
    """Gonen & Goldberg's projection bias of the measured words, minus its median.

    Their "male-" and "female-biased" words are the most biased on each side of the
    gender direction among 50,000 words, centred near 0. The measured words of a test
    often lie all on one side of the :math:`X - Y` direction (every attribute word of C7
    leans towards the arts), which would leave one class; measuring from the median word
    makes the two halves the most :math:`X`- and the most :math:`Y`-leaning words, as in
    their selection.
    """
    from biaslib.methods.gonen_goldberg import projection_bias

    bias = np.asarray(projection_bias(s.measured, s.X, s.Y), dtype=np.float64)
    return bias - np.median(bias)


def _gg(kind: str) -> Callable[[FourSets, int], float]:
    def compute(s: FourSets, seed: int) -> float:
        from biaslib.methods import gonen_goldberg as gg

        words, bias = s.measured, centred_projection(s)
        if kind == "neighbours":
            return gg.neighbour_test(words, bias, k=_neighbours_k(len(words))).value
        keep = bias != 0  # the median word itself, when the number of words is odd
        words, labels = words[keep], (bias[keep] > 0).astype(int)
        if kind == "cluster":
            return gg.cluster_test(words, labels, seed=seed).value
        return gg.classification_test(words, labels, seed=seed, cv_folds=CV_FOLDS).value

    return compute


def _gweat(s: FourSets, seed: int) -> float:
    from biaslib.methods.gweat import generalized_weat

    return generalized_weat([s.X, s.Y], [s.A, s.B]).value


def _identity(v: float) -> float:
    return v


_T, _M = "X, Y", "A, B"
_DIFF = "mean over A − mean over B"

#: Every metric of the chapter, in the order of its tables (signed first).
METRICS: tuple[Metric, ...] = (
    Metric("WEAT d", True, "A, B (s(w, A, B))", "X, Y",
           "Caliskan et al.'s effect size d", "|d|", _weat, abs,
           "biaslib.methods.same.weat_d"),
    Metric("skew", True, _T, _M, f"SAME's signed word score, {_DIFF}", "|score|", _skew, abs,
           "biaslib.methods.same.same_signed_word"),
    Metric("RIPA", True, _T + " (pairs X[i], Y[i])", _M, f"RIPA's word score, {_DIFF}",
           "|score|", _ripa, abs, "biaslib.methods.ripa.ripa"),
    Metric("RND", True, _T, _M, f"RND's word score, {_DIFF}", "|score|", _rnd, abs,
           "biaslib.methods.rnd.rnd"),
    Metric("generalized WEAT", True, _T, _M, "Swinger et al.'s statistic", "|score|", _gweat,
           abs, "biaslib.methods.gweat.generalized_weat"),
    Metric("SAME", False, _T, "A ∪ B", "SAME of the measured words", "SAME", _same,
           _identity, "biaslib.methods.same.same"),
    Metric("MAC", False, _T, "A ∪ B", "MAC of the measured words", "|1 − MAC|", _mac,
           lambda v: abs(1.0 - v), "biaslib.methods.same.mac"),
    Metric("Direct Bias", False, _T + " (pairs; first principal component)", "A ∪ B",
           "Direct Bias (c = 1)", "Direct Bias", _direct_bias, _identity,
           "biaslib.methods.same.direct_bias"),
    Metric("ECT", False, _T + " (means)", "A ∪ B", "Spearman ρ of the cosines (1 = no bias)",
           "1 − ρ", _ect, lambda v: 1.0 - v, "biaslib.methods.ect.ect"),
    Metric("RNSB", False, "A, B (classifier's training sets)", "X ∪ Y",
           "KL divergence from uniform", "KL", _rnsb, _identity,
           "biaslib.methods.rnsb.rnsb"),
    Metric("Indirect Bias", False, _T + " (direction)", "pairs A × B", "mean β over A × B",
           "|mean β|", _indirect, abs, "biaslib.methods.indirect_bias.indirect_bias"),
    Metric("G&G cluster", False, _T + " (projection labels)", "A ∪ B",
           "k-means accuracy (0.5 = none)", "accuracy", _gg("cluster"), _identity,
           "biaslib.methods.gonen_goldberg.cluster_test"),
    Metric("G&G classification", False, _T + " (projection labels)", "A ∪ B",
           "SVM accuracy on held-out words", "accuracy", _gg("classification"), _identity,
           "biaslib.methods.gonen_goldberg.classification_test"),
    Metric("G&G neighbours", False, _T + " (projection)", "A ∪ B",
           "Pearson r, bias vs neighbours' share", "r", _gg("neighbours"), _identity,
           "biaslib.methods.gonen_goldberg.neighbour_test"),
)

_BY_NAME = {m.name: m for m in METRICS}


def metric(name: str) -> Metric:
    """The metric ``name`` of :data:`METRICS`.

    Raises
    ------
    biaslib.errors.UnknownNameError
        For a name that is not in :data:`METRICS`.
    """
    from biaslib.errors import UnknownNameError

    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise UnknownNameError("metric", name, tuple(_BY_NAME)) from None


def framing_table(metrics: Sequence[Metric] = METRICS) -> pd.DataFrame:
    """The framing of a four-set test for every metric: one row each, indexed by metric."""
    return pd.DataFrame(
        [{"metric": m.name, "groups": m.groups, "measured": m.words, "test-level score": m.score,
          "signed": "yes" if m.signed else "no", "compared as": m.magnitude}
         for m in metrics]).set_index("metric")


# --------------------------------------------------------------------------- scores


def score_table(sets: Sequence[FourSets], metrics: Sequence[Metric] = METRICS, *,
                seed: int = 0) -> pd.DataFrame:
    """Every metric on every test: one row per test × metric.

    Columns: ``test``, ``metric``, ``signed``, ``score`` (the test-level score; for signed
    metrics positive in WEAT's direction), ``magnitude`` (:attr:`Metric.to_magnitude`) and
    ``note``: empty, or why the score is undefined on that test (the metric's
    ``ValueError``; the score is then NaN and the test drops out of that metric's pairs).
    ``seed`` seeds the metrics' random choices (RNSB's
    classifier, the G&G tests).
    """
    rows = []
    for s in sets:
        for m in metrics:
            note = ""
            try:
                value = float(m.compute(s, seed))
            except ValueError as error:  # the project's checks: an undefined score
                value, note = math.nan, str(error)
            rows.append({"test": s.test, "metric": m.name, "signed": m.signed,
                         "score": value, "magnitude": float(m.to_magnitude(value)),
                         "note": note})
    return pd.DataFrame(rows, columns=["test", "metric", "signed", "score", "magnitude",
                                       "note"])


@functools.cache
def scores(vectors: str) -> pd.DataFrame:
    """:func:`score_table` of every test that runs on ``vectors`` (cached per process)."""
    sets = [s for _, s, _ in _all_sets(vectors) if s is not None]
    return score_table(sets)


def _wide(scores_: pd.DataFrame, column: str) -> pd.DataFrame:
    order = list(dict.fromkeys(scores_["metric"]))
    tests = list(dict.fromkeys(scores_["test"]))
    return scores_.pivot(index="test", columns="metric", values=column).reindex(
        index=tests, columns=order)


def shown(value: float, digits: int = 2) -> str:
    """A live static-vector number to ``digits`` decimals with a true minus sign.

    :func:`~biaslib.reporting.format.robust_format` with static vectors' noise (1e-9
    relative, 1e-12 absolute): refused (``ValueError``) if that noise could print another
    digit; a value that rounds to zero prints without a sign; ``–`` for NaN.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return robust_format(float(value), f".{digits}f", rel=1e-9, atol=1e-12,
                         unsigned_zero=True).replace("-", "−")


#: Metrics whose score is a ratio of counts (accuracies): float noise cannot reach them, and
#: a ratio such as 10/16 = 0.625 sits on a rounding boundary by construction.
COUNT_METRICS: tuple[str, ...] = ("G&G cluster", "G&G classification")


def shown_score(metric_name: str, value: float) -> str:
    """A metric's score as the chapter prints it: :func:`shown`, accuracies to 3 decimals.

    The accuracies of :data:`COUNT_METRICS` are ratios of counts, printed as computed
    (three decimals: 10/16 prints 0.625).
    """
    if metric_name in COUNT_METRICS and not math.isnan(value):
        return format(value, ".3f")
    return shown(value)


def score_frame(scores_: pd.DataFrame, column: str = "score", *, signed_only: bool = False
                ) -> pd.DataFrame:
    """Scores (or magnitudes) as the chapter prints them: one row per metric, a column per test.

    Through :func:`shown_score`. Index: metric.
    """
    rows = scores_[scores_["signed"]] if signed_only else scores_
    wide = _wide(rows, column).T
    return pd.DataFrame({t: [shown_score(m, v) for m, v in wide[t].items()] for t in wide},
                        index=wide.index).rename_axis("metric")


def sign_table(scores_: pd.DataFrame) -> pd.DataFrame:
    """The signed metrics' scores per test (rows: tests, columns: metrics), printed."""
    signed = scores_[scores_["signed"]]
    return _wide(signed, "score").map(shown)


#: The papers' own static vectors, read on Colab (``RUN_PAPER_MODELS``) from their release
#: files as the WEAT chapter reads them (:data:`biasbook.weat_static.PAPER_VECTORS`).
PAPER_VECTORS: tuple[str, ...] = ("GloVe 840B 300d", "word2vec Google News 300d")


def paper_label(model: str) -> str:
    """The column label of a vector set's correlations in :func:`agreement_with`.

    For a paper model's vectors it is what only the Colab run shows.
    """
    return f"ρ (95 % interval), {model}"


def paper_scores(model: str, *, fetch: Callable[[str, object], None] | None = None
                 ) -> pd.DataFrame:
    """:func:`score_table` on a paper's own vectors (:data:`PAPER_VECTORS`), for Colab.

    The release file is downloaded once into the biaslib cache (GloVe 840B: 2 GB; Google
    News: 1.6 GB) and streamed, keeping only the stimuli
    (:func:`biaslib.embeddings.vector_files.paper_vectors`). Both are cased: the words are
    looked up as printed, with Caliskan et al.'s stimuli on GloVe 840B and ML-EAT's on
    Google News (:func:`biasbook.mleat.googlenews_test`), and the SAME test on both.
    ``fetch`` replaces the download (tests serve stand-in files with it).
    """
    from biasbook.weat_static import PAPER_VECTORS as RELEASES
    from biaslib.embeddings.vector_files import paper_vectors

    if model not in PAPER_VECTORS:
        raise ValueError(f"model must be one of {PAPER_VECTORS}, got {model!r}")
    release, _ = RELEASES[model]
    tests = _tests(googlenews=not model.startswith("GloVe"))
    words = list(dict.fromkeys(w for t in tests for ws in t.sets.values() for w in ws.words))
    table = paper_vectors(release, words, case="exact", fetch=fetch)  # type: ignore[arg-type]
    sets = [s for s in (four_sets(t, table) for t in tests) if s is not None]
    return score_table(sets)


# --------------------------------------------------------------------------- correlations


def _compared(scores_: pd.DataFrame, a: str, b: str) -> tuple[pd.Series, pd.Series]:
    """The two metrics' values over the tests both score.

    Signed values when both metrics are signed, magnitudes otherwise.
    """
    signed = _wide(scores_, "signed")
    both = bool(signed[a].iloc[0]) and bool(signed[b].iloc[0])
    wide = _wide(scores_, "score" if both else "magnitude")
    pair = wide[[a, b]].astype(float).dropna()
    return pair[a], pair[b]


def rank_correlations(scores_: pd.DataFrame, method: Literal["spearman", "kendall"] = "spearman",
                      *, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Rank correlation of every pair of metrics over the tests, with a confidence interval.

    Two signed metrics are compared on their signed scores, any pair with an unsigned one
    on magnitudes (:attr:`Metric.to_magnitude`). ``spearman``: Spearman's ρ, interval by
    Fisher's z with Bonett & Wright's standard error; ``kendall``: Kendall's τ-b, Fisher's z
    with Fieller et al.'s (:func:`fisher_interval`). Fewer than :data:`MIN_TESTS` tests: no
    correlation (NaN); too few for the interval: NaN bounds. A metric that is constant
    over the tests has no rank correlation (NaN).

    Returns
    -------
    pandas.DataFrame
        One row per pair (in :data:`METRICS` order): ``metric_a``, ``metric_b``,
        ``compared`` ("signed" / "magnitude"), ``n``, ``r``, ``ci_low``, ``ci_high``.
    """
    if method not in ("spearman", "kendall"):
        raise ValueError(f"method must be 'spearman' or 'kendall', got {method!r}")
    names = list(dict.fromkeys(scores_["metric"]))
    signed = scores_.drop_duplicates("metric").set_index("metric")["signed"]
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            x, y = _compared(scores_, a, b)
            n = len(x)
            r = lo = hi = math.nan
            if n >= MIN_TESTS and x.nunique() > 1 and y.nunique() > 1:
                if method == "spearman":
                    r = float(stats.spearmanr(x, y).statistic)
                    rule = "bonett-wright"
                else:
                    r = float(stats.kendalltau(x, y).statistic)
                    rule = "fieller"
                if n >= (MIN_TESTS_CI if method == "spearman" else MIN_TESTS_CI + 1):
                    lo, hi = fisher_interval(r, n, rule, confidence)  # type: ignore[arg-type]
            rows.append({"metric_a": a, "metric_b": b,
                         "compared": "signed" if signed[a] and signed[b] else "magnitude",
                         "n": n, "r": r, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows, columns=["metric_a", "metric_b", "compared", "n", "r", "ci_low",
                                       "ci_high"])


def correlation_matrix(pairs: pd.DataFrame) -> pd.DataFrame:
    """The pairs of :func:`rank_correlations` as a symmetric matrix (1 on the diagonal)."""
    names = list(dict.fromkeys([*pairs["metric_a"], *pairs["metric_b"]]))
    matrix = pd.DataFrame(np.eye(len(names)), index=names, columns=names)
    for a, b, r in pairs[["metric_a", "metric_b", "r"]].itertuples(index=False):
        matrix.loc[a, b] = matrix.loc[b, a] = r
    return matrix


def correlation_table(pairs: pd.DataFrame, with_metric: str | None = None) -> pd.DataFrame:
    """Rank correlations as the chapter prints them: ρ [95 % interval], n, how compared.

    ``with_metric``: only the pairs that include it (the other metric is the index).
    """
    rows = pairs
    if with_metric is not None:
        rows = pairs[(pairs["metric_a"] == with_metric) | (pairs["metric_b"] == with_metric)]
    table = pd.DataFrame({
        "pair": [b if with_metric == a else a if with_metric == b else f"{a} | {b}"
                 for a, b in rows[["metric_a", "metric_b"]].itertuples(index=False)],
        "r": rows["r"].map(shown).to_numpy(),
        "95 % interval": [("–" if math.isnan(lo) else "none at |ρ| = 1" if lo == hi
                           else f"{shown(lo)} to {shown(hi)}")
                          for lo, hi in rows[["ci_low", "ci_high"]].itertuples(index=False)],
        "tests": rows["n"].astype(int).to_numpy(),
        "compared on": rows["compared"].to_numpy(),
    })
    return table.set_index("pair")


def agreement_with(pairs: Mapping[str, pd.DataFrame], with_metric: str = "WEAT d"
                   ) -> pd.DataFrame:
    """Every metric's ρ with ``with_metric`` and its interval, one column per vector set.

    ``pairs``: vector set → :func:`rank_correlations`. Cells read ``"0.75 (0.18 to
    0.94)"``; the last column says how the pair is compared (signed or magnitude). Index:
    the other metric.
    """
    columns = {}
    compared = None
    for vectors, frame in pairs.items():
        table = correlation_table(frame, with_metric)
        columns[paper_label(vectors)] = [
            r if ci == "–" else f"{r} ({ci})"
            for r, ci in table[["r", "95 % interval"]].itertuples(index=False)]
        compared = table["compared on"]
        index = table.index
    out = pd.DataFrame(columns, index=index)
    out["compared on"] = compared
    return out.rename_axis(f"with {with_metric}")


def correlation_heatmap(matrices: Mapping[str, pd.DataFrame], *, width: float = 7.5,
                        fontsize: float = 10.0) -> plt.Figure:
    """The correlation matrices as heat maps, one panel per vector set, stacked.

    Lower triangle only, annotated with ρ to two decimals (a leading zero dropped), on a
    diverging scale from −1 to 1; a missing ρ stays blank.
    """
    import matplotlib.pyplot as plt
    import seaborn as sns

    n = max(len(m) for m in matrices.values())
    fig, axes = plt.subplots(len(matrices), 1, figsize=(width, len(matrices) * (0.42 * n + 1.6)),
                             squeeze=False)
    for ax, (title, matrix) in zip(axes[:, 0], matrices.items(), strict=True):
        matrix = matrix.iloc[1:, :-1]  # the first row and last column hold only the diagonal
        mask = np.triu(np.ones(matrix.shape, dtype=bool), k=1)
        annot = matrix.map(lambda r: "" if pd.isna(r) else
                           shown(r).replace("0.", ".").replace("1.00", "1"))
        sns.heatmap(matrix.astype(float), mask=mask, annot=annot, fmt="", cmap="RdBu_r",
                    vmin=-1, vmax=1, ax=ax, square=False, cbar_kws={"label": "Spearman ρ"},
                    annot_kws={"fontsize": fontsize - 1 if n > 12 else fontsize})
        ax.set_title(title, loc="left", fontsize=fontsize + 1)
        ax.tick_params(labelsize=fontsize)
        ax.figure.axes[-1].tick_params(labelsize=fontsize)
        ax.figure.axes[-1].yaxis.label.set_size(fontsize)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------- sign flips


def sign_flips(scores_: pd.DataFrame, reference: str = "WEAT d") -> pd.DataFrame:
    """Per test, which signed metrics disagree in sign with ``reference`` (and each other).

    A score of exactly 0 has no sign and disagrees with nothing. Returns one row per test:
    ``reference``'s sign (``+``/``−``), ``disagree`` (the metrics of the other sign, or
    ``"—"``), and ``split`` (``"yes"`` when the signed metrics do not all share one sign).
    Index: test.
    """
    wide = _wide(scores_[scores_["signed"]], "score")
    if reference not in wide.columns:
        raise ValueError(f"{reference!r} is not a signed metric of the scores")
    rows = []
    for test, row in wide.iterrows():
        signs = np.sign(row.astype(float))
        ref = signs[reference]
        against = [m for m in wide.columns if m != reference and signs[m] * ref < 0]
        nonzero = {s for s in signs.dropna() if s != 0}
        rows.append({"test": test, reference: {1.0: "+", -1.0: "−"}.get(ref, "0"),
                     "disagree": ", ".join(against) or "—",
                     "split": "yes" if len(nonzero) > 1 else "no"})
    return pd.DataFrame(rows).set_index("test")


def vector_sign_flips(first: pd.DataFrame, second: pd.DataFrame) -> pd.DataFrame:
    """Signed scores whose sign differs between two vector sets, per test and metric.

    Over the tests both score. Returns one row per test: the metrics whose signs differ
    (``"—"`` for none) and the number of signed metrics compared. Index: test.
    """
    a = _wide(first[first["signed"]], "score")
    b = _wide(second[second["signed"]], "score")
    tests = [t for t in a.index if t in b.index]
    cols = [m for m in a.columns if m in b.columns]
    rows = []
    for t in tests:
        flipped = [m for m in cols if np.sign(a.loc[t, m]) * np.sign(b.loc[t, m]) < 0]
        rows.append({"test": t, "sign differs": ", ".join(flipped) or "—",
                     "signed metrics": len(cols)})
    return pd.DataFrame(rows, columns=["test", "sign differs", "signed metrics"]
                        ).set_index("test")


# --------------------------------------------------------------------------- findings


_MYB = "Husse & Spitz (2022)"
_SAME = "Schröder et al. (2021)"
#: Metrics that measure how far the measured words lie from neutral on the X − Y direction,
#: whichever side: they do not contrast A with B.
FROM_NEUTRAL: tuple[str, ...] = ("SAME", "Direct Bias")


def between(pairs: pd.DataFrame, first: Sequence[str], second: Sequence[str] | None = None
            ) -> pd.DataFrame:
    """The rows of :func:`rank_correlations` within ``first`` (or between it and ``second``)."""
    a, b = pairs["metric_a"], pairs["metric_b"]
    if second is None:
        return pairs[a.isin(first) & b.isin(first)]
    return pairs[(a.isin(first) & b.isin(second)) | (a.isin(second) & b.isin(first))]


def families(pairs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The correlations the chapter's findings read, by family of metrics.

    ``"signed"``: among the signed metrics (the contrasts of A with B); ``"neutral"``:
    among :data:`FROM_NEUTRAL`; ``"across"``: each signed metric with each of
    :data:`FROM_NEUTRAL`; ``"cosine"``: among :data:`COSINE_METRICS`.
    """
    signed = [m.name for m in METRICS if m.signed]
    return {"signed": between(pairs, signed), "neutral": between(pairs, FROM_NEUTRAL),
            "across": between(pairs, signed, FROM_NEUTRAL),
            "cosine": between(pairs, COSINE_METRICS)}


def _span(frame: pd.DataFrame) -> str:
    low, high = shown(frame["r"].min()), shown(frame["r"].max())
    return low if low == high else f"{low} to {high}"


#: The families of :func:`families` as the chapter's table names them.
FAMILY_LABELS = {"signed": "signed with signed", "neutral": "SAME with Direct Bias",
                 "across": "signed with SAME or Direct Bias",
                 "cosine": "cosine-based with cosine-based"}


def family_table(per_vectors: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Spearman's ρ and Kendall's τ by family of metric pairs, per vector set.

    ``per_vectors``: vector set → :func:`score_table`. One row per family
    (:data:`FAMILY_LABELS`) and correlation; per vector set (the upper column level) the
    range of the correlations and how many of the pairs' intervals lie above 0 (``"3 of
    10"``). Index: (pairs, correlation).
    """
    found = {(v, label): families(rank_correlations(frame, method))
             for v, frame in per_vectors.items()
             for method, label in (("spearman", "Spearman ρ"), ("kendall", "Kendall τ"))}
    rows = {}
    for family, name in FAMILY_LABELS.items():
        for label in ("Spearman ρ", "Kendall τ"):
            row = {}
            for vectors in per_vectors:
                pairs = found[(vectors, label)][family]
                row[(vectors, "range")] = _span(pairs)
                row[(vectors, "intervals above 0")] = (f"{int((pairs['ci_low'] > 0).sum())} "
                                                       f"of {len(pairs)}")
            rows[(name, label)] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index = pd.MultiIndex.from_tuples(table.index, names=["pairs", "correlation"])
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    return table


@dataclass(frozen=True, eq=False)
class _AgreeEvidence:
    """What the claims read, per vector set, computed once.

    The pair families' correlations, the sign flips and the number of tests
    (:func:`families`, :func:`sign_flips` of :func:`scores`).
    """

    fam: Mapping[str, Mapping[str, pd.DataFrame]]
    flips: Mapping[str, pd.DataFrame]
    n: Mapping[str, int]


_SHORT_VECTORS = {VECTORS[0]: VECTORS[0], VECTORS[1]: "Google News subset"}
_BOTH_VECTORS = "; ".join(VECTORS)


def _claim_cosine_correlate(ev: _AgreeEvidence) -> Finding:
    """Mind Your Bias §4.2: the cosine-based methods correlate positively."""
    glove, cos = VECTORS[0], {v: ev.fam[v]["cosine"] for v in VECTORS}
    text = "; ".join(
        f"{_SHORT_VECTORS[v]} {int((c['r'] > 0).sum())} of {len(c)} pairs ρ > 0 "
        f"({int((c['ci_low'] > 0).sum())} with the interval above 0)" for v, c in cos.items())
    all_positive = all(bool((c["r"] > 0).all()) for c in cos.values())
    return Finding(_MYB, "§4.2: the cosine-based methods correlate positively",
                   "Table 5 (contextual models, Pearson r over the tests): “a relatively "
                   "consistent positive correlation”",
                   f"among the {len(COSINE_METRICS)} cosine-based metrics: {text}; "
                   f"{FROM_NEUTRAL[0]} and {FROM_NEUTRAL[1]} against the signed metrics on "
                   f"{glove}: ρ {_span(ev.fam[glove]['across'])}",
                   _BOTH_VECTORS, True if all_positive else "partly", SECTIONS["correlations"])


def _claim_methods_disagree(ev: _AgreeEvidence) -> Finding:
    """Mind Your Bias §5: the methods disagree fundamentally."""
    (glove, w2v), g = VECTORS, ev.fam[VECTORS[0]]
    splits = {v: int((f["split"] == "yes").sum()) for v, f in ev.flips.items()}
    every = ("every interval above 0" if bool((g["signed"]["ci_low"] > 0).all()) else
             f"{int((g['signed']['ci_low'] > 0).sum())} of {len(g['signed'])} intervals "
             "above 0")
    disagree = (any(splits.values()) or bool((g["across"]["r"] < 0).any()))
    return Finding(_MYB, "§5: the methods disagree fundamentally",
                   "§5: “a fundamental disagreement between methods”; minor design choices "
                   "yield divergent bias scores",
                   f"signed metrics: one sign on every test ({splits[glove]} of {ev.n[glove]} "
                   f"split on {glove}, {splits[w2v]} of {ev.n[w2v]} on the "
                   f"{_SHORT_VECTORS[w2v]}), alike ranks on {glove} (ρ {_span(g['signed'])}, "
                   f"{every}); {FROM_NEUTRAL[0]} and {FROM_NEUTRAL[1]} against them "
                   f"(ρ {_span(g['across'])})", _BOTH_VECTORS,
                   "partly" if disagree and not any(splits.values()) else disagree,
                   SECTIONS["signs"])


def _claim_weat_is_scaled_same(ev: _AgreeEvidence) -> Finding:
    """Schröder et al. §5: WEAT's word score is SAME's times a factor fixed by the attributes."""
    skew_vs_d = {v: int(f["disagree"].str.contains(r"\bskew\b").sum())
                 for v, f in ev.flips.items()}
    return Finding(_SAME, "§5: WEAT's word score is SAME's times a factor fixed by the "
                          "attribute sets",
                   "§5, eq. 46–48: “Eq. 3 of WEAT only differs from our pairwise bias "
                   "(Eq. 36) by a constant factor”",
                   "d and the skew differ in sign on " + " and ".join(
                       f"{skew_vs_d[v]} of {ev.n[v]} tests ({_SHORT_VECTORS[v]})"
                       for v in VECTORS),
                   _BOTH_VECTORS, not any(skew_vs_d.values()), SECTIONS["signs"])


def findings() -> list[Finding]:
    """The claims this chapter checks on GloVe 6B 50d and the Google News subset.

    Computed live from the static vectors (seconds; :func:`scores` caches them).

    Returns
    -------
    list of Finding
        Mind Your Bias's positive correlation of the cosine methods (§4.2) and its
        "fundamental disagreement between methods" (§5), and the SAME paper's statement
        that WEAT's word score is SAME's times a factor fixed by the attribute sets (§5),
        whose consequence — WEAT's d and SAME's skew always share their sign — is
        checked on every test; a ``_claim_*`` function each.
    """
    per = {v: scores(v) for v in VECTORS}
    ev = _AgreeEvidence({v: families(rank_correlations(s)) for v, s in per.items()},
                        {v: sign_flips(s) for v, s in per.items()},
                        {v: per[v]["test"].nunique() for v in VECTORS})
    return [_claim_cosine_correlate(ev), _claim_methods_disagree(ev),
            _claim_weat_is_scaled_same(ev)]

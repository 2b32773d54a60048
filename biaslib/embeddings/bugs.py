"""Three extraction bugs of the published SEAT/w-SEAT code, reproduced on purpose.

The numbers of a bias test are only as good as the vectors fed to it. Three
errors in the code behind SEAT (May et al. 2019, ``W4ngatang/sent-bias``) and
w-SEAT (Tan & Celis 2019, ``yichern/social-biases-contextualized``) changed
which vectors were compared. ELMo and GPT-2 cannot be run here, so this module
replays each *mechanism* on a :class:`~biaslib.embeddings.transformer.TransformerEncoder`
(torch is only touched through it):

**The ELMo tokenization bug** (Mind Your Bias, App. D). AllenNLP's
``ElmoEmbedder.embed_sentence(tokens)`` expects a list of tokens; sent-bias
(``sentbias/encoders/elmo.py`` line 10, ``encode``: ``elmo.embed_sentence(sent)``)
and w-SEAT (``elmo.py`` at commit 32cb24f, ``encode_sent`` line 20 and
``encode_c_word`` line 65) pass the sentence as one string. Iterating a string
yields characters, so every character — letters, blanks and the final period —
became a "token":

* s-SEAT's sentence vector is the mean over time of these *character* vectors
  (:func:`elmo_sentence_vectors`);
* w-SEAT's word vector is ``vec_seq[:, idx]`` where ``idx`` is the position of
  the stimulus among the *words* of ``text[:-1].split()`` — so it is the
  vector of the character at position ``idx`` of the sentence
  (:func:`wseat_word_index`, :func:`wseat_elmo_word_vectors`).

**The w-SEAT GPT-2 offset bug** (``gpt2.py``, ``subword_tokenize`` and
``encode_c_word``): each word of ``text[:-1].split()`` is tokenized on its own
(so byte-level BPE never produces its leading-space ``Ġ`` tokens), and the
words' start positions are ``1 + cumsum([0] + lengths[:-1])`` — a ``+1`` for a
``[CLS]`` that GPT-2 does not have. The vector read is the token *after* the
word's first subword: its second subword, the next word's first one, or — for
the last word — a padding position (the input was padded with id 0 to 1,024
positions without an attention mask) (:func:`gpt2_offset_input`,
:func:`wseat_gpt2_word_vectors`).

**sent-bias's BERT input** (``sentbias/encoders/bert.py``, ``encode``:
``tokenizer.tokenize(text)`` adds no ``[CLS]``, then ``enc[:, 0, :]``; the
``BertTokenizer`` default ``do_lower_case=True`` lowercased the cased model's
input; sent-bias issue #1) needs no code here:
``TransformerEncoder(add_special_tokens=False, lowercase=True)`` with sentence
pooling ``"first"`` feeds the model what sent-bias fed it and reads the first
wordpiece.

:class:`BugEncoder` wraps the first two (buggy or fixed) as a SEAT encoder, so
:func:`biaslib.evaluate.seat.embed_contexts` and :func:`biaslib.evaluate.seat.seat_table` run the
tests on it unchanged. A bug can leave a test degenerate — all association
scores equal, e.g. when no vector depends on the stimulus — and
:func:`biaslib.methods.weat.weat` then raises
:class:`~biaslib.errors.DegenerateTestError`.

References
----------
Mind Your Bias: A Critical Review of Bias Detection Methods for Contextual
Language Models, Appendix D ("SEAT Implementation Error").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
from numpy.typing import NDArray

from biaslib.embeddings.base import ContextEncoder, check_contexts, check_sentences
from biaslib.stimuli.contexts import Context

if TYPE_CHECKING:
    from biaslib.embeddings.elmo import ElmoEncoder
    from biaslib.embeddings.transformer import TransformerEncoder, WordPooling

__all__ = [
    "PAD_ID",
    "Bug",
    "BugEncoder",
    "OffsetInput",
    "elmo_sentence_vectors",
    "gpt2_offset_input",
    "wseat_elmo_word_vectors",
    "wseat_gpt2_word_vectors",
    "wseat_word_index",
]

#: ``"elmo"``: characters as tokens (s-SEAT and w-SEAT); ``"gpt2-offset"``: w-SEAT's
#: separate-word tokenization with the ``+1`` offset (word level only).
Bug = Literal["elmo", "gpt2-offset"]

#: The id w-SEAT padded GPT-2's input with (``torch.zeros``), whatever token it is.
PAD_ID = 0


def wseat_word_index(context: Context) -> int:
    """The stimulus' position among the words of ``text[:-1].split()``, as w-SEAT finds it.

    w-SEAT (``elmo.py`` lines 53–56 and ``gpt2.py`` lines 84–87, ``encode_c_word``,
    at commit 32cb24f) drops the sentence's
    last character (the period), splits on whitespace and keeps the index of the
    *last* word whose lower-cased form is one of the stimulus words (a
    multi-word stimulus such as "deaf person" is matched word by word, so its
    last word wins). The original matched against every word of the role
    (with plural/singular variants); here the context's own stimulus and surface
    form are used, which agrees for template sentences holding one stimulus.

    Examples
    --------
    >>> from biaslib.stimuli.contexts import find_context
    >>> wseat_word_index(find_context("This is a tulip.", "tulip"))
    3

    Raises
    ------
    ValueError
        If no word matches (w-SEAT stopped in the debugger there).
    """
    targets = {w.lower() for w in f"{context.word} {context.form}".split()}
    idx = None
    for i, token in enumerate(context.text[:-1].split()):
        if token.lower() in targets:
            idx = i
    if idx is None:
        raise ValueError(
            f"no word of {context.text[:-1]!r}.split() matches {context.form!r} "
            "(w-SEAT would have stopped in pdb here)"
        )
    return idx


def elmo_sentence_vectors(
    encoder: TransformerEncoder, texts: Sequence[str], buggy: bool
) -> NDArray[np.float32]:
    """s-SEAT sentence vectors the ELMo way: the mean over time of the token vectors.

    Parameters
    ----------
    encoder
        The model that stands in for ELMo.
    texts
        The sentences.
    buggy
        ``True`` reproduces sent-bias ``sentbias/encoders/elmo.py`` (``encode``,
        line 10: ``elmo.embed_sentence(sent)`` with ``sent`` a string, then
        ``vec_seq.mean(axis=1)``, the ``--time_combine_method mean`` default of
        ``main.py``) and w-SEAT ``elmo.py`` ``encode_sent`` (line 20): the
        "tokens" are the sentence's characters, ``list(text)``, including every
        blank and the final period, and the vector is their mean — Mind Your
        Bias, App. D (which calls it a "product"; the code averages). A
        WordPiece or BPE vocabulary has no token for a lone space (ELMo's
        character CNN embedded it like any other character), so
        the tokenizer's unknown token stands in for each blank character
        (``encode_tokens(..., blank_tokens="unk")``); the sentence vector still
        averages exactly ``len(text)`` character vectors.
        ``False`` is Mind Your Bias's fix (``embed_sentence(sent.split())``):
        whitespace tokens, so "tulip." stays one token as ELMo's own
        whitespace-tokenized input would have it; each token's vector is the
        mean of the model tokens that cover it, and the sentence vector the mean
        over tokens. ``[CLS]``/``[SEP]`` are in the input (the model expects
        them) but never averaged, as ELMo's sentence boundary markers were not.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(texts), dim)``.
    """
    texts = check_sentences(texts)
    if buggy:
        per_token = encoder.encode_tokens([list(t) for t in texts], blank_tokens="unk")
    else:
        per_token = encoder.encode_tokens([t.split() for t in texts])
    return np.stack([v.mean(axis=0) for v in per_token])


def wseat_elmo_word_vectors(
    encoder: TransformerEncoder,
    contexts: Sequence[Context],
    buggy: bool,
    pooling: WordPooling = "mean",
) -> NDArray[np.float32]:
    """w-SEAT word vectors with or without the ELMo bug.

    Parameters
    ----------
    encoder
        The model that stands in for ELMo.
    contexts
        The stimuli in their sentences.
    buggy
        ``True`` reproduces w-SEAT ``elmo.py`` ``encode_c_word`` (Mind Your Bias,
        App. D: the bug "propagated into w-SEAT"): ``idx`` is the stimulus'
        *word* index (:func:`wseat_word_index`, lines 53–56), but
        ``embed_sentence(text)`` got the string (line 65), so ``vec_seq[:, idx]``
        (line 68) is the
        vector of the *character* ``text[idx]`` — for "This is a tulip." and
        "tulip" (word 3) the "s" of "This". The character vectors are those of
        :func:`elmo_sentence_vectors` (same call, same cache entries).
        ``False``: the vector of the stimulus' own tokens
        (:meth:`~biaslib.embeddings.transformer.TransformerEncoder.encode_words`).
    pooling
        Subword pooling of the fixed vectors (Mind Your Bias: ``"mean"``).

    Returns
    -------
    numpy.ndarray
        Shape ``(len(contexts), dim)``.
    """
    contexts = check_contexts(contexts)
    if not buggy:
        return encoder.encode_words(contexts, pooling)
    indices = [wseat_word_index(c) for c in contexts]
    chars = encoder.encode_tokens([list(c.text) for c in contexts], blank_tokens="unk")
    return np.stack([v[i] for v, i in zip(chars, indices, strict=True)])


@dataclass(frozen=True)
class OffsetInput:
    """What w-SEAT's GPT-2 code feeds the model for one context, and which position it reads.

    Attributes
    ----------
    words
        ``text[:-1].split()``.
    tokens
        Each word tokenized on its own, concatenated, then the padding id
        (:data:`PAD_ID`) that sits after the last word in w-SEAT's padded input.
    ids
        Their ids.
    word_index
        The stimulus' word index (:func:`wseat_word_index`).
    first_subword
        Position of the stimulus' first subword in ``tokens``.
    selected
        The position w-SEAT reads: ``first_subword + offset`` (``offset`` 1 in
        the original).
    """

    words: tuple[str, ...]
    tokens: tuple[str, ...]
    ids: tuple[int, ...]
    word_index: int
    first_subword: int
    selected: int

    @property
    def selected_token(self) -> str:
        """The token whose vector w-SEAT takes as the stimulus' vector."""
        return self.tokens[self.selected]


def gpt2_offset_input(
    encoder: TransformerEncoder, context: Context, offset: int = 1
) -> OffsetInput:
    """Rebuild the input and the read position of w-SEAT's GPT-2 ``encode_c_word``.

    w-SEAT ``gpt2.py`` (commit 32cb24f): ``tokens = text[:-1].split()`` (line 84);
    ``subword_tokenize`` runs the BPE tokenizer on every word separately (line
    46: no leading-space ``Ġ`` tokens), and the word start positions are ``1 +
    cumsum([0] + lengths[:-1])`` (line 49) — the ``+1`` is the one BERT's
    ``[CLS]`` needs (``bert.py`` has the same helper), and GPT-2's input has no
    such token; ``convert_tokens_to_ids`` pads with id 0 to 1,024 positions (line
    37), and the model runs without an attention mask (line 108). Mind Your Bias
    (§4.1) could not explain their GPT-2 w-SEAT divergence from Tan & Celis; their
    App. D covers the ELMo bug only. In a causal model the padding after a
    position does not change it, so one padding id after the last word is
    enough to reproduce every vector the original could read.

    Parameters
    ----------
    encoder
        A model without ``[CLS]`` (a GPT-2-style decoder such as SmolLM2).
    context
        The stimulus in its sentence.
    offset
        ``1`` reproduces the bug; ``0`` keeps the separate-word tokenization but
        reads the word's own first subword (the offset alone removed).
    """
    if offset not in (0, 1):
        raise ValueError(f"offset must be 0 or 1, got {offset!r}")
    if encoder.has_cls:
        raise ValueError(
            f"{encoder.name} puts [CLS] at position 0; there the +1 of w-SEAT's helper is right"
        )
    if encoder.lowercase:
        raise ValueError("the GPT-2 offset bug is reproduced on unmodified (cased) input only")
    tokenizer = encoder.tokenizer
    words = tuple(context.text[:-1].split())
    index = wseat_word_index(context)
    pieces = [tokenizer.tokenize(w) for w in words]
    starts = np.cumsum([0] + [len(p) for p in pieces[:-1]])
    tokens = [tok for p in pieces for tok in p]
    ids = [*tokenizer.convert_tokens_to_ids(tokens), PAD_ID]
    tokens.append(tokenizer.convert_ids_to_tokens(PAD_ID))
    first = int(starts[index])
    return OffsetInput(words=words, tokens=tuple(tokens), ids=tuple(int(i) for i in ids),
                       word_index=index, first_subword=first, selected=first + offset)


def wseat_gpt2_word_vectors(
    encoder: TransformerEncoder,
    contexts: Sequence[Context],
    buggy: bool,
    *,
    offset: int = 1,
    pooling: WordPooling = "first",
) -> NDArray[np.float32]:
    """w-SEAT word vectors of a GPT-2-style model with or without the offset bug.

    Parameters
    ----------
    encoder
        A decoder without ``[CLS]``.
    contexts
        The stimuli in their sentences.
    buggy
        ``True``: the vector at :attr:`OffsetInput.selected` of the input
        :func:`gpt2_offset_input` rebuilds (w-SEAT ``gpt2.py``
        ``encode_c_word``: ``gpt2_token_reprs[0][idx]``), from the encoder's
        layer; vectors are cached like the encoder's own. ``False``: the
        stimulus' own tokens located by character offsets in the normally
        tokenized sentence
        (:meth:`~biaslib.embeddings.transformer.TransformerEncoder.encode_words`).
    offset
        With ``buggy``: ``1`` (the original) or ``0`` (separate-word
        tokenization only).
    pooling
        Subword pooling of the fixed vectors; ``"first"`` (default) is what
        w-SEAT meant to read, so buggy vs fixed differ by the bug alone.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(contexts), dim)``.
    """
    contexts = check_contexts(contexts)
    if not buggy:
        return encoder.encode_words(contexts, pooling)
    inputs = [gpt2_offset_input(encoder, c, offset) for c in contexts]
    return encoder.encode_token_ids(
        [r.ids for r in inputs], [r.selected for r in inputs], kind="wseat-gpt2-offset-bug",
        variant=f"offset {offset}", keys=[[c.text, c.start, c.end, c.form, c.word]
                                          for c in contexts])


_LABELS = {
    ("elmo", True): "characters as tokens (sent-bias/w-SEAT ELMo bug)",
    ("elmo", False): "whitespace tokens (Mind Your Bias's fix)",
    ("gpt2-offset", True): "words tokenized alone, +1 offset (w-SEAT GPT-2 bug)",
    ("gpt2-offset", False): "stimulus' tokens in context (fixed)",
}


class BugEncoder(ContextEncoder):
    """A SEAT encoder that extracts vectors through one of the bugs, or through its fix.

    It has what :func:`biaslib.evaluate.seat.embed_contexts` needs (``name``,
    ``encode_sentences``, ``encode_words``), so
    ``seat_table(tests, BugEncoder(enc, "elmo", buggy=True), myb_contexts)``
    runs s-SEAT and w-SEAT exactly as for any other encoder.

    Parameters
    ----------
    encoder
        The encoder whose vectors are read: a transformer standing in for ELMo,
        or, for ``"elmo"``, the real ELMo
        (:class:`~biaslib.embeddings.elmo.ElmoEncoder`, which takes the same
        ``encode_tokens`` call, so the bug runs on the model it was found in).
    bug
        ``"elmo"`` (sentence and word level) or ``"gpt2-offset"`` (word level only).
    buggy
        Reproduce the bug (``True``) or extract the fixed vectors (``False``).
    offset
        For ``"gpt2-offset"`` with ``buggy``: see :func:`wseat_gpt2_word_vectors`.
    """

    def __init__(
        self, encoder: TransformerEncoder | ElmoEncoder, bug: Bug, buggy: bool = True, *,
        offset: int = 1
    ) -> None:
        if bug not in ("elmo", "gpt2-offset"):
            raise ValueError(f"bug must be 'elmo' or 'gpt2-offset', got {bug!r}")
        if offset not in (0, 1):
            raise ValueError(f"offset must be 0 or 1, got {offset!r}")
        self.encoder = encoder
        self.bug = bug
        self.buggy = buggy
        self.offset = offset
        #: The weights read (those of ``encoder``).
        self.fingerprint = encoder.fingerprint

    @property
    def layer(self) -> object:
        """The layer read: the wrapped encoder's."""
        return self.encoder.layer

    @property
    def default_word_pooling(self) -> str:
        """``"mean"`` for the ELMo replay, ``"first"`` (what w-SEAT meant to read) for GPT-2's.

        The one default of :class:`~biaslib.embeddings.base.Pooling`: a caller
        that leaves the word pooling unset gets it whichever levels it asks for.
        """
        return "mean" if self.bug == "elmo" else "first"

    @property
    def label(self) -> str:
        """How the vectors are extracted, without the model."""
        if self.bug == "gpt2-offset" and self.buggy and self.offset == 0:
            return "words tokenized alone, own first subword (w-SEAT GPT-2 bug without the +1)"
        return _LABELS[(self.bug, self.buggy)]

    @property
    def name(self) -> str:
        """The model, its options and the extraction, for result rows."""
        return f"{self.encoder.name}, {self.label}"

    def encode_sentences(
        self, texts: Sequence[str], pooling: str | None = None
    ) -> NDArray[np.float32]:
        """s-SEAT vectors (:func:`elmo_sentence_vectors`); the pooling is always the mean."""
        if self.bug != "elmo":
            raise ValueError("the GPT-2 offset bug is a word-level bug: use levels=('word',)")
        if pooling not in (None, "mean"):
            raise ValueError(f"ELMo's sentence vector is the mean over tokens, not {pooling!r}")
        return elmo_sentence_vectors(self.encoder, texts, self.buggy)

    def encode_words(
        self, contexts: Sequence[Context], pooling: WordPooling | None = None
    ) -> NDArray[np.float32]:
        """w-SEAT vectors through the bug or its fix (``pooling`` applies to the fix)."""
        pooling = pooling or self.default_word_pooling
        if self.bug == "elmo":
            return wseat_elmo_word_vectors(self.encoder, contexts, self.buggy, pooling)
        return wseat_gpt2_word_vectors(self.encoder, contexts, self.buggy, offset=self.offset,
                                       pooling=pooling)

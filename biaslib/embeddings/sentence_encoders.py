"""May et al.'s (2019) sentence encoders that are not on the hub: InferSent, GenSen, USE.

SEAT's Table 4 (May et al., 2019, Table 3 lists the models) ran InferSent (Conneau et
al., 2017), GenSen (Subramanian et al., 2018) and the Universal Sentence Encoder (Cer et
al., 2018) from their authors' releases, through sent-bias (github.com/W4ngatang/sent-bias,
``sentbias/encoders/infersent.py``, ``gensen.py`` and ``main.py``). This module rebuilds the
two PyTorch encoders from their released weights and reads USE from TF-Hub:

* :class:`InferSentEncoder` — a one-layer BiLSTM over word vectors, max-pooled over time
  (facebookresearch/InferSent ``models.py``), reading the released state dicts
  ``infersent1.pkl`` (GloVe 840B) or ``infersent2.pkl`` (fastText crawl-300d-2M).
* :class:`GenSenEncoder` — a bidirectional GRU whose last hidden states are the sentence
  vector, with GenSen's vocabulary expansion: a word outside the model's vocabulary gets
  a linear map of its GloVe 840B vector (Maluuba/gensen ``gensen.py``).
* :class:`UniversalSentenceEncoder` — a thin wrapper around a TF-Hub module;
  ``tensorflow_hub`` is needed only when one is built (Colab has it).

The word vectors are a :class:`~biaslib.embeddings.static.StaticEmbeddings` (on Colab
``biaslib.embeddings.vector_files.paper_vectors``). Every sentence is tokenized with NLTK's
Treebank word tokenizer, as both releases do (``nltk.word_tokenize``).
"""

from __future__ import annotations

import io
import logging
import os
import pickle
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from biaslib import downloads as _downloads
from biaslib.embeddings.base import ContextEncoder, check_sentences
from biaslib.embeddings.models import file_digest
from biaslib.embeddings.static import StaticEmbeddings
from biaslib.validation import nfc

__all__ = [
    "GENSEN_PAPER_MODEL",
    "GENSEN_URL",
    "INFERSENT_URLS",
    "INFERSENT_VECTORS",
    "USE_PAPER_HANDLE",
    "GenSenEncoder",
    "InferSentEncoder",
    "UniversalSentenceEncoder",
    "model_file",
    "word_tokenize",
]

logger = logging.getLogger(__name__)

#: The authors' InferSent releases (facebookresearch/InferSent README): version 1 was trained
#: on AllNLI with GloVe 840B — the model sent-bias loaded (its ``infersent.allnli.pickle``, the
#: same encoder pickled whole, which is no longer distributed); version 2 with fastText.
INFERSENT_URLS = {1: "https://dl.fbaipublicfiles.com/infersent/infersent1.pkl",
                  2: "https://dl.fbaipublicfiles.com/infersent/infersent2.pkl"}
#: The word vectors each InferSent version was trained with (names of ``paper_vectors``).
INFERSENT_VECTORS = {1: "glove.840B.300d", 2: "crawl-300d-2M"}
#: GenSen's model files (Maluuba/gensen ``data/models/download_models.sh``; sent-bias README).
GENSEN_URL = "https://genseniclr2018.blob.core.windows.net/models/{file}"
#: The GenSen model May et al. ran: +STN +Fr +De +NLI +L +STP +Par (their Table 3), i.e.
#: sent-bias's ``--gensen_version nli_large_bothskip_parse`` (``scripts/qsub/qsub_gensen_*.bash``).
GENSEN_PAPER_MODEL = "nli_large_bothskip_parse"
#: The USE sent-bias loaded: the DAN version 2 on TF-Hub (``sentbias/main.py``).
USE_PAPER_HANDLE = "https://tfhub.dev/google/universal-sentence-encoder/2"

# NLTK's word_tokenize first splits text into sentences with Punkt (a data download) and
# then runs the Treebank tokenizer on each; the Treebank tokenizer splits a period off
# only at the end of its input. A split after . ! ? before a capital or quote stands in
# for Punkt (no data needed); the template sentences are single sentences anyway.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'`])")


def word_tokenize(text: str) -> list[str]:
    """``nltk.word_tokenize(text)`` without the Punkt data: the Treebank tokens of each sentence.

    Examples
    --------
    >>> word_tokenize("He isn't here. Bye.")
    ['He', 'is', "n't", 'here', '.', 'Bye', '.']
    """
    try:
        from nltk.tokenize import NLTKWordTokenizer
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("InferSent and GenSen tokenize with NLTK: pip install nltk "
                          "(or 'biaslib[encoders]')") from err
    tokenizer = NLTKWordTokenizer()
    return [tok for part in _SENTENCE_END.split(nfc(text)) for tok in tokenizer.tokenize(part)]


def model_file(url: str, folder: str | os.PathLike[str] | None = None, *,
               fetch: _downloads.Fetch | None = None) -> Path:
    """A released model file, downloaded once into a cache folder (needs internet).

    Parameters
    ----------
    url
        Where the authors publish the file (:data:`INFERSENT_URLS`, :data:`GENSEN_URL`).
    folder
        Destination; default ``$BIASLIB_CACHE_DIR/releases`` or ``~/.cache/biaslib/releases``.
    fetch
        ``fetch(url, destination)`` (:data:`biaslib.downloads.Fetch`); default an HTTP
        download with a progress bar.

    Returns
    -------
    pathlib.Path
        The file (a file already there is not fetched again; a cut-off download leaves none).

    Raises
    ------
    DownloadError
        If the file is not there and downloads are off
        (:data:`biaslib.downloads.OFFLINE_ENV`), or the download fails
        (:func:`biaslib.downloads.download`).
    """
    target = Path(folder) if folder is not None else _downloads.cache_folder("releases")
    # No published sizes or checksums: the file is checked when its loader reads it.
    return _downloads.download(url, target / url.rstrip("/").rsplit("/", 1)[-1], fetch=fetch)


def _load_state_dict(path: str | os.PathLike[str], allow_pickle: bool = False
                    ) -> dict[str, torch.Tensor]:
    """A released state dict (name → tensor), read with ``torch.load(weights_only=True)``.

    ``allow_pickle`` lets a file that only loads as a full pickle (old PyTorch versions
    saved some that way) load without the restriction: only for the authors' own files.

    Raises
    ------
    FileNotFoundError
        If there is no file.
    ValueError
        If the file is not a state dict of tensors (e.g. a whole pickled model).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no model file at {path}")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as err:
        if not allow_pickle:
            raise ValueError(f"{path} is not a plain state dict ({err}); a file from the "
                             "authors' own release may be read with allow_pickle=True") from err
        logger.warning("%s loads only as a full pickle; reading it as one", path)
        state = torch.load(path, map_location="cpu", weights_only=False)
    if not isinstance(state, Mapping) or not all(isinstance(v, torch.Tensor)
                                                 for v in state.values()):
        raise ValueError(f"{path} holds a {type(state).__name__}, not a state dict of tensors "
                         "(the whole-model pickle infersent.allnli.pickle is not read: use "
                         "infersent1.pkl, the same encoder as a state dict)")
    return dict(state)


def _check_keys(state: Mapping[str, torch.Tensor], expected: Sequence[str], path: object) -> None:
    missing = [k for k in expected if k not in state]
    extra = sorted(set(state) - set(expected))
    if missing or extra:
        raise ValueError(f"{path}: not the released layout; missing keys {missing}, "
                         f"unexpected keys {extra}")


def _rnn_keys(prefix: str, layers: int) -> list[str]:
    return [f"{prefix}.{kind}_l{layer}{rev}" for layer in range(layers)
            for rev in ("", "_reverse")
            for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]


def _device(device: str | None) -> torch.device:
    return torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))


class _InferSentNet(nn.Module):
    """The state-dict layout of InferSent's ``models.InferSent``: one module, ``enc_lstm``."""

    def __init__(self, word_dim: int, hidden: int) -> None:
        super().__init__()
        self.enc_lstm = nn.LSTM(word_dim, hidden, 1, bidirectional=True)


class InferSentEncoder(ContextEncoder):
    """InferSent (Conneau et al., 2017): a BiLSTM over word vectors, max-pooled over time.

    Follows facebookresearch/InferSent ``models.py``: each sentence is tokenized
    (``tokenize=True``; version 2 splits "isn't" the Moses way, ``isn 't``), wrapped in
    ``<s>``/``</s>`` (version 2: ``<p>``/``</p>``), and every token without a word vector is
    dropped — the boundary tokens too, when the table lacks them (a sentence of unknown
    words is its boundary tokens alone; the release's fallback to the end token for a
    sentence left empty can only fire when that token has no vector, and here raises). The
    BiLSTM's outputs (``2 × hidden``: 4096 for the release) are max-pooled over the
    sentence's own tokens only. That is what sent-bias computed, since it encoded one
    sentence at a time (``bsize=1``); version 1 batched would also take the max over the
    zero outputs at padded positions (the release README calls this "inconvenient"), so here
    a vector never depends on its batch.

    Parameters
    ----------
    path
        The released state dict (``infersent1.pkl``, ``infersent2.pkl``).
    vectors
        The word vectors the version was trained with (:data:`INFERSENT_VECTORS`), of the
        LSTM's input size.
    version
        1 (GloVe, Treebank tokens, ``<s>``) or 2 (fastText, Moses-like tokens, ``<p>``).
    batch_size, device
        Sentences per forward pass; ``"cpu"``/``"cuda"`` (default: CUDA when available).
    allow_pickle
        See :func:`_load_state_dict`.

    Attributes
    ----------
    oov
        Tokens dropped for want of a vector, with counts.
    """

    default_sentence_pooling = "max"

    def __init__(self, path: str | os.PathLike[str], vectors: StaticEmbeddings, version: int = 1,
                 batch_size: int = 64, device: str | None = None,
                 allow_pickle: bool = False) -> None:
        if version not in (1, 2):
            raise ValueError(f"InferSent version must be 1 or 2, got {version!r}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        state = _load_state_dict(path, allow_pickle)
        _check_keys(state, _rnn_keys("enc_lstm", 1), path)
        hidden, word_dim = state["enc_lstm.weight_hh_l0"].shape[1], \
            state["enc_lstm.weight_ih_l0"].shape[1]
        if vectors.vectors.shape[1] != word_dim:
            raise ValueError(f"{path} takes {word_dim}-dimensional word vectors; "
                             f"{vectors.name} has {vectors.vectors.shape[1]}")
        self.device = _device(device)
        self.net = _InferSentNet(word_dim, hidden)
        try:
            self.net.load_state_dict(state)
        except RuntimeError as err:
            raise ValueError(f"{path}: weights of unexpected shapes: {err}") from err
        self.net.to(self.device).eval()
        self.vectors, self.version, self.batch_size = vectors, version, batch_size
        self.bos, self.eos = ("<s>", "</s>") if version == 1 else ("<p>", "</p>")
        self.oov: Counter[str] = Counter()
        self.name = (f"InferSent v{version} ({Path(path).name}, BiLSTM-max {2 * hidden}d) on "
                     f"{vectors.name}")
        self.short_name = f"InferSent v{version}"
        self.fingerprint = (f"infersent:v{version}:{file_digest(Path(path))}:"
                            f"{vectors.fingerprint}")

    def tokenize(self, text: str) -> list[str]:
        """The tokens InferSent reads for ``text``, boundary tokens included, before look-up."""
        tokens = word_tokenize(text)
        if self.version == 2:  # models.py: a hack "to get ~MOSES tokenization"
            tokens = " ".join(tokens).replace(" n't ", "n 't ").split()
        return [self.bos, *tokens, self.eos]

    def _rows(self, text: str) -> NDArray[np.float32]:
        """The vectors of the tokens of ``text`` that have one (InferSent's ``prepare_samples``)."""
        rows = []
        for tok in self.tokenize(text):
            key = self.vectors.key_for(tok)
            if key is None:
                self.oov[tok] += 1
            else:
                rows.append(self.vectors.index[key])
        if not rows:  # the release would encode the end token, which has no vector either
            raise KeyError(f"no token of {text!r} has a vector in {self.vectors.name}, "
                           f"not even {self.eos!r}")
        return np.asarray(self.vectors.vectors[rows], dtype=np.float32)

    @torch.no_grad()
    def _forward(self, seqs: list[NDArray[np.float32]]) -> NDArray[np.float32]:
        lengths = torch.tensor([len(s) for s in seqs])
        batch = nn.utils.rnn.pad_sequence([torch.from_numpy(s) for s in seqs]).to(self.device)
        packed = nn.utils.rnn.pack_padded_sequence(batch, lengths, enforce_sorted=False)
        out, _ = nn.utils.rnn.pad_packed_sequence(self.net.enc_lstm(packed)[0],
                                                  padding_value=float("-inf"))
        return out.max(dim=0).values.float().cpu().numpy()

    def encode_sentences(self, texts: Sequence[str], pooling: str | None = None
                         ) -> NDArray[np.float64]:
        """One max-pooled BiLSTM vector per sentence (``pooling``: ``"max"`` or None)."""
        texts = check_sentences(texts)
        if pooling not in (None, "max"):
            raise ValueError(f"InferSent pools by max over time, not {pooling!r}")
        seqs = [self._rows(t) for t in texts]
        return np.concatenate([self._forward(seqs[i:i + self.batch_size])
                               for i in range(0, len(seqs), self.batch_size)]
                              ).astype(np.float64)


class _RestrictedUnpickler(pickle.Unpickler):
    """Plain containers only: GenSen's vocabulary pickle is a dict of dicts."""

    def find_class(self, module: str, name: str) -> object:
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from a vocabulary file")


def _load_gensen_vocab(path: str | os.PathLike[str]) -> dict[str, int]:
    """``word2id`` of a GenSen ``*_vocab.pkl`` (a Python 2 pickle: ``latin1`` strings).

    Raises
    ------
    ValueError
        If the file is not a pickled mapping with a ``word2id`` dict, or its ids repeat.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no GenSen vocabulary at {path}")
    try:
        vocab = _RestrictedUnpickler(io.BytesIO(path.read_bytes()), encoding="latin1").load()
    except (pickle.UnpicklingError, EOFError, ValueError) as err:
        raise ValueError(f"{path} is not a GenSen vocabulary pickle: {err}") from err
    word2id = vocab.get("word2id") if isinstance(vocab, dict) else None
    if not isinstance(word2id, dict) or not all(
            isinstance(w, str) and isinstance(i, int) for w, i in word2id.items()):
        raise ValueError(f"{path} has no 'word2id' mapping of words to ids")
    if len(set(word2id.values())) != len(word2id):
        raise ValueError(f"{path}: two words share an id")
    return word2id


class _GenSenNet(nn.Module):
    """The state-dict layout of GenSen's ``Encoder``: ``src_embedding`` and ``encoder`` (a GRU)."""

    def __init__(self, vocab: int, word_dim: int, hidden: int, layers: int) -> None:
        super().__init__()
        self.src_embedding = nn.Embedding(vocab, word_dim)
        self.encoder = nn.GRU(word_dim, hidden, layers, batch_first=True, bidirectional=True)


class GenSenEncoder(ContextEncoder):
    """GenSen (Subramanian et al., 2018): the last hidden states of a multi-task BiGRU.

    Follows Maluuba/gensen ``gensen.py`` as sent-bias ran it (``GenSenSingle``,
    ``pool="last"``, ``tokenize=True``): NLTK tokens wrapped in ``<s>``/``</s>``; each token
    in the model's vocabulary takes its own embedding; any other token with a GloVe 840B
    vector takes that vector mapped into the model's embedding space by a least-squares
    linear map with intercept (scikit-learn's ``LinearRegression`` there), fitted on every
    word that both have (``vocab_expansion``); the rest take ``<unk>``'s embedding. The
    sentence vector is the last layer's final backward state, then its final forward
    state (``torch.cat((h_t[-1], h_t[-2]), 1)``). Padding never changes a vector (packed
    sequences), so neither does the batch.

    Parameters
    ----------
    model_path, vocab_path
        ``<prefix>.model`` (state dict) and ``<prefix>_vocab.pkl`` of a release
        (:data:`GENSEN_PAPER_MODEL` for May et al.'s).
    vectors
        GloVe 840B (the release's ``glove.840B.300d.h5``), for the vocabulary expansion.
    batch_size, device, allow_pickle
        As for :class:`InferSentEncoder`.

    Attributes
    ----------
    expanded, unknown
        Tokens that took a mapped GloVe vector / ``<unk>``'s embedding, with counts.
    """

    default_sentence_pooling = "last"

    def __init__(self, model_path: str | os.PathLike[str], vocab_path: str | os.PathLike[str],
                 vectors: StaticEmbeddings, batch_size: int = 64, device: str | None = None,
                 allow_pickle: bool = False) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        state = _load_state_dict(model_path, allow_pickle)
        layers = sum(1 for k in state if re.fullmatch(r"encoder\.weight_ih_l\d+", k))
        _check_keys(state, ["src_embedding.weight", *_rnn_keys("encoder", layers)], model_path)
        if layers < 1:
            raise ValueError(f"{model_path}: no GRU weights (encoder.weight_ih_l0)")
        emb = state["src_embedding.weight"]
        self.word2id = _load_gensen_vocab(vocab_path)
        for tok in ("<s>", "</s>", "<unk>"):
            if tok not in self.word2id:
                raise ValueError(f"{vocab_path}: GenSen's vocabulary must hold {tok!r}")
        if max(self.word2id.values()) >= emb.shape[0] or min(self.word2id.values()) < 0:
            raise ValueError(f"{vocab_path}: ids beyond the {emb.shape[0]} rows of "
                             f"src_embedding.weight in {model_path}")
        self.device = _device(device)
        self.net = _GenSenNet(emb.shape[0], emb.shape[1], state["encoder.weight_hh_l0"].shape[1],
                              layers)
        try:
            self.net.load_state_dict(state)
        except RuntimeError as err:
            raise ValueError(f"{model_path}: weights of unexpected shapes: {err}") from err
        self.net.to(self.device).eval()
        self.embedding = emb.float().numpy()
        self.vectors, self.batch_size = vectors, batch_size
        self.weights, self.bias = self._fit_expansion()
        self.expanded: Counter[str] = Counter()
        self.unknown: Counter[str] = Counter()
        hidden = 2 * state["encoder.weight_hh_l0"].shape[1]
        self.name = (f"GenSen {Path(model_path).stem} (BiGRU last state, {hidden}d) on "
                     f"{vectors.name}")
        self.short_name = f"GenSen {Path(model_path).stem}"
        self.fingerprint = (f"gensen:{file_digest(Path(model_path))}:"
                            f"{file_digest(Path(vocab_path))}:{vectors.fingerprint}")

    def _fit_expansion(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Least squares ``model embedding ≈ glove @ W + b`` over the words both have."""
        pairs = [(self.vectors.index[key], i) for w, i in self.word2id.items()
                 if (key := self.vectors.key_for(w)) is not None]
        dim = self.vectors.vectors.shape[1]
        if len(pairs) <= dim:
            raise ValueError(f"only {len(pairs)} words of the GenSen vocabulary have a vector in "
                             f"{self.vectors.name}: too few to fit the {dim}-dimensional "
                             "vocabulary expansion")
        rows, ids = map(list, zip(*pairs, strict=True))
        x = np.asarray(self.vectors.vectors[rows], dtype=np.float64)
        design = np.hstack([x, np.ones((len(x), 1))])
        coef, *_ = np.linalg.lstsq(design, self.embedding[ids].astype(np.float64), rcond=None)
        return coef[:-1], coef[-1]

    def token_vector(self, token: str) -> NDArray[np.float32]:
        """The input embedding GenSen reads for ``token`` (own, mapped GloVe, or ``<unk>``)."""
        if token in self.word2id:
            return self.embedding[self.word2id[token]]
        key = self.vectors.key_for(token)
        if key is not None:
            self.expanded[token] += 1
            x = np.asarray(self.vectors.vectors[self.vectors.index[key]], dtype=np.float64)
            return (x @ self.weights + self.bias).astype(np.float32)
        self.unknown[token] += 1
        return self.embedding[self.word2id["<unk>"]]

    @torch.no_grad()
    def _forward(self, seqs: list[NDArray[np.float32]]) -> NDArray[np.float32]:
        lengths = torch.tensor([len(s) for s in seqs])
        batch = nn.utils.rnn.pad_sequence([torch.from_numpy(s) for s in seqs],
                                          batch_first=True).to(self.device)
        packed = nn.utils.rnn.pack_padded_sequence(batch, lengths, batch_first=True,
                                                   enforce_sorted=False)
        _, h_t = self.net.encoder(packed)  # (layers * 2, batch, hidden), in input order
        return torch.cat((h_t[-1], h_t[-2]), 1).float().cpu().numpy()

    def encode_sentences(self, texts: Sequence[str], pooling: str | None = None
                         ) -> NDArray[np.float64]:
        """One vector per sentence: GenSen's last states (``pooling``: ``"last"`` or None)."""
        texts = check_sentences(texts)
        if pooling not in (None, "last"):
            raise ValueError(f"GenSen's sentence vector is its last state, not {pooling!r}")
        seqs = [np.stack([self.token_vector(t) for t in ["<s>", *word_tokenize(x), "</s>"]])
                for x in texts]
        return np.concatenate([self._forward(seqs[i:i + self.batch_size])
                               for i in range(0, len(seqs), self.batch_size)]
                              ).astype(np.float64)


class UniversalSentenceEncoder(ContextEncoder):
    """The Universal Sentence Encoder (Cer et al., 2018) from TF-Hub: sentences in, vectors out.

    sent-bias loaded version 2 (DAN; :data:`USE_PAPER_HANDLE`) as a TF1 ``hub.Module`` and
    called it on a list of sentences. Here ``tensorflow_hub.load`` reads the handle; a
    loaded object that is callable (a TF2 SavedModel, version 4 on) is called on the
    sentences, else its ``"default"`` signature is, with the sentences as its one named
    input (``hub.load`` reads the deprecated TF1 Hub format "to the extent that
    tf.saved_model.load() in TF2 does": as signatures; TF-Hub's ``hub.load`` documentation).
    The model does its own tokenizing and pooling (May et al.'s Table 3: aggregation "N/A").

    Parameters
    ----------
    handle
        A TF-Hub URL or a local SavedModel folder.
    batch_size
        Sentences per call.

    Raises
    ------
    ImportError
        Naming what to install, when ``tensorflow`` or ``tensorflow_hub`` is missing.
    """

    default_sentence_pooling = "model"

    def __init__(self, handle: str = USE_PAPER_HANDLE, batch_size: int = 256) -> None:
        try:
            import tensorflow as tf
            import tensorflow_hub as hub
        except ImportError as err:
            raise ImportError("the Universal Sentence Encoder needs TensorFlow and TF-Hub "
                              "(on Colab both are installed): pip install tensorflow "
                              "tensorflow-hub") from err
        self._tf, self.handle, self.batch_size = tf, str(handle), batch_size
        self.model = hub.load(self.handle)
        self.name = f"Universal Sentence Encoder ({self.handle})"
        self.short_name = "Universal Sentence Encoder"
        self.fingerprint = f"tfhub:{self.handle}"

    def _call(self, texts: list[str]) -> NDArray[np.float32]:
        inputs = self._tf.constant(texts)
        if callable(self.model):
            out = self.model(inputs)
        else:
            # A TF1 Hub module (USE 2): its signatures take their inputs by name.
            signature = self.model.signatures["default"]
            _, named = signature.structured_input_signature
            if len(named) != 1:
                raise ValueError(f"{self.handle}: the default signature takes "
                                 f"{sorted(named)}, not one batch of sentences")
            out = signature(**{next(iter(named)): inputs})
        if isinstance(out, Mapping):
            out = out["default"] if "default" in out else next(iter(out.values()))
        return np.asarray(out)

    def encode_sentences(self, texts: Sequence[str], pooling: str | None = None
                         ) -> NDArray[np.float64]:
        """The model's vector of each sentence (``pooling``: ``"model"`` or None)."""
        texts = check_sentences(texts)
        if pooling not in (None, "model"):
            raise ValueError(f"USE pools inside the model; pooling {pooling!r} cannot apply")
        out = np.concatenate([self._call(texts[i:i + self.batch_size])
                              for i in range(0, len(texts), self.batch_size)])
        if out.ndim != 2 or out.shape[0] != len(texts):
            raise ValueError(f"{self.handle} returned shape {out.shape} for {len(texts)} "
                             "sentences; expected one vector per sentence")
        return out.astype(np.float64)

"""ELMo from AllenNLP's release files (``options.json``, ``weights.hdf5``) in torch, no allennlp.

May et al. (2019, SEAT Table 4) and Mind Your Bias ran ELMo through AllenNLP's
``ElmoEmbedder`` (sent-bias ``sentbias/encoders/elmo.py``: ``ElmoEmbedder()``
with its defaults, i.e. the *original* ``elmo_2x4096_512_2048cnn_2xhighway``
model, 3 layers of 1,024 dimensions). ``allennlp`` pins ``torch < 1.13`` and cannot
be installed beside the book, so this module reads the release files itself
and recomputes what AllenNLP computes. It follows, and cites, AllenNLP's code
(``github:allenai/allennlp``, commit 80fb606 unless noted):

* ``allennlp/data/token_indexers/elmo_indexer.py``, ``ELMoCharacterMapper``:
  every token becomes 50 character ids — the UTF-8 bytes (at most 48), framed
  by begin-of-word 258 and end-of-word 259, padded with 260; the sentence
  boundary tokens ``<S>``/``</S>`` are ``[258, 256 or 257, 259, 260, …]``; all
  ids are shifted by +1 so that 0 is a padded (absent) token
  (:func:`char_ids`, :data:`BOS_CHAR_IDS`, :data:`EOS_CHAR_IDS`).
* ``allennlp/modules/elmo.py``, ``_ElmoCharacterEncoder``: BOS/EOS tokens are
  added around every sentence; character embedding (row 0, the padding id, is
  zero), one ``Conv1d`` per ``options["char_cnn"]["filters"]`` entry, max over
  the 50 positions, then the CNN activation; ``n_highway`` highway layers
  (always ReLU); a linear projection to ``projection_dim``.
* ``allennlp/modules/elmo_lstm.py`` (``ElmoLstm``) and
  ``allennlp/modules/lstm_cell_with_projection.py``: per direction and layer an
  LSTM cell whose memory is clipped to ``cell_clip`` and whose output is
  projected (no bias) and clipped to ``proj_clip``; the backward LSTM reads the
  sentence from its last real token; from the second layer on the layer's input
  is added to its output (the residual connection, ``use_skip_connections``).
* ``_ElmoBiLm.forward``: layer 0 is the character-CNN token vector *repeated*
  for both directions, ``[token; token]``; layers 1 and 2 are
  ``[forward; backward]`` LSTM outputs.
* ``allennlp/commands/elmo.py`` (removed in allennlp 1.0; read at 08874e9^),
  ``ElmoEmbedder.embed_sentence``/``embed_batch``: the three layers with the
  boundary tokens removed, shape ``(3, n_tokens, 1024)``
  (:meth:`ElmoEncoder.embed_batch`).

The hdf5 layout, read exactly as AllenNLP's loaders read it
(``_load_char_embedding``, ``_load_cnn_weights``, ``_load_highway``,
``_load_projection``, ``ElmoLstm.load_weights``):

==========================================================  =====================================
key                                                         shape (TensorFlow layout)
==========================================================  =====================================
``char_embed``                                              ``(n_chars, char_dim)``
``CNN/W_cnn_{i}``, ``CNN/b_cnn_{i}``                        ``(1, width, char_dim, n)``, ``(n,)``
``CNN_high_{k}/W_transform``, ``W_carry``                   ``(F, F)`` each (``F`` = Σ filters)
``CNN_high_{k}/b_transform``, ``b_carry``                   ``(F,)`` each
``CNN_proj/W_proj``, ``CNN_proj/b_proj``                    ``(F, P)``, ``(P,)``
``RNN_{d}/RNN/MultiRNNCell/Cell{l}/LSTMCell/W_0``           ``(in + P, 4 C)``, gates i, j, f, o
``RNN_{d}/RNN/MultiRNNCell/Cell{l}/LSTMCell/B``             ``(4 C,)``
``RNN_{d}/RNN/MultiRNNCell/Cell{l}/LSTMCell/W_P_0``         ``(C, P)``
==========================================================  =====================================

(``d`` = 0 forward, 1 backward; ``P`` = ``projection_dim``, ``C`` = ``lstm.dim``.)
As AllenNLP's loader does, TensorFlow's gate order (input, new memory, forget,
output) is reordered to (input, forget, new memory, output) and 1.0 is added to
the forget gate's bias (TensorFlow's ``LSTMCell(forget_bias=1.0)`` added it at
run time). AllenNLP's highway computes ``g·x + (1−g)·f(x)`` and so negates the
carry weights; here the TensorFlow form ``(1−t)·x + t·relu(W_T x + b_T)``,
``t = σ(W_C x + b_C)`` is computed directly, which is the same function.

**State.** AllenNLP's ``ElmoLstm`` is *stateful*: the final LSTM states of one
call are the initial states of the next, so a sentence's vectors depend on
what was encoded before it (its ``ElmoEmbedder`` docstring warns of this).
:class:`ElmoEncoder` is stateless by default — every sentence starts from zero
states, so results do not depend on order, batching or the cache.
``stateful=True`` carries the states as AllenNLP and bilm-tf do: row ``i``
of a batch starts from row ``i``'s final states of the previous batch (rows
of an earlier, larger batch are kept), and inputs are encoded in the order
given. On AllenNLP's own fixture (``test_fixtures/elmo``: ``lm_weights.hdf5``
and bilm-tf's outputs ``lm_embeddings_{0,1,2}.hdf5``, 10 stateful batches of
3) the top layer matches to 1.2e-6 (``tests/test_elmo.py``, on a copy in
``tests/fixtures/allennlp_elmo``). sent-bias
(``sentbias/encoders/elmo.py``, ``encode``) built a new ``ElmoEmbedder()`` for
each of a test's four sets (``main.py`` calls ``encode`` once per set) and
called ``embed_sentence`` one sentence at a time, so its states ran on from
sentence to sentence within a set: ``stateful=True, batch_size=1``, with
:meth:`ElmoEncoder.reset_states` before each set and the set's sentences in
its file's order, replays that.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn
from tqdm.auto import tqdm

from biaslib.downloads import Fetch, cache_folder, download
from biaslib.embeddings.base import ContextEncoder, check_contexts, check_sentences
from biaslib.embeddings.cache import VectorCache, cache_key, open_cache
from biaslib.embeddings.models import file_digest
from biaslib.stimuli.contexts import Context

__all__ = [
    "BOS_CHAR_IDS",
    "ELMO_RELEASES",
    "EOS_CHAR_IDS",
    "PAPER_ELMO_RELEASE",
    "ElmoBiLM",
    "ElmoEncoder",
    "ElmoFileError",
    "ElmoRelease",
    "batch_char_ids",
    "char_ids",
    "download_release",
    "load_elmo",
    "whitespace_tokens",
]

logger = logging.getLogger(__name__)

# ---------------------------------------------------------------- character ids

#: Characters per token (``ELMoCharacterMapper.max_word_length``).
_MAX_CHARS = 50
# ELMoCharacterMapper's special characters (ids 0–255 are UTF-8 bytes), before the +1 shift.
_BOS_CHAR, _EOS_CHAR, _BOW_CHAR, _EOW_CHAR, _PAD_CHAR = 256, 257, 258, 259, 260


def _frame(chars: Sequence[int]) -> list[int]:
    """Begin-of-word, ``chars``, end-of-word, padding to 50; +1 so that 0 means no token."""
    ids = [_PAD_CHAR] * _MAX_CHARS
    ids[0] = _BOW_CHAR
    ids[1 : len(chars) + 1] = chars
    ids[len(chars) + 1] = _EOW_CHAR
    return [i + 1 for i in ids]


#: The character ids of the sentence-start token ``<S>`` (``beginning_of_sentence_characters`` + 1).
BOS_CHAR_IDS: tuple[int, ...] = tuple(_frame([_BOS_CHAR]))
#: The character ids of the sentence-end token ``</S>`` (``end_of_sentence_characters`` + 1).
EOS_CHAR_IDS: tuple[int, ...] = tuple(_frame([_EOS_CHAR]))


def char_ids(token: str) -> list[int]:
    """The 50 character ids ELMo reads for ``token`` (``convert_word_to_char_ids``).

    The token's UTF-8 bytes, cut to 48, between begin- and end-of-word marks,
    padded, all shifted by +1. As in AllenNLP, the literal tokens ``"<S>"`` and
    ``"</S>"`` map to the sentence-boundary ids.

    Examples
    --------
    >>> char_ids("a")[:4]
    [259, 98, 260, 261]
    """
    if not isinstance(token, str) or not token:
        raise ValueError(f"a token must be a non-empty string, got {token!r}")
    if token == "<S>":
        return list(BOS_CHAR_IDS)
    if token == "</S>":
        return list(EOS_CHAR_IDS)
    return _frame(list(token.encode("utf-8", "ignore")[: _MAX_CHARS - 2]))


def batch_char_ids(token_lists: Sequence[Sequence[str]]) -> NDArray[np.int64]:
    """Character ids of a batch, shape ``(batch, longest, 50)``; absent tokens are all 0.

    AllenNLP's ``batch_to_ids``; the boundary tokens are *not* included (the
    model adds them, as ``_ElmoCharacterEncoder.forward`` does).
    """
    longest = max(len(t) for t in token_lists)
    out = np.zeros((len(token_lists), longest, _MAX_CHARS), dtype=np.int64)
    for b, tokens in enumerate(token_lists):
        for t, tok in enumerate(tokens):
            out[b, t] = char_ids(tok)
    return out


def whitespace_tokens(text: str) -> list[tuple[str, int, int]]:
    """``text.split()`` with each token's character span: Mind Your Bias's fixed ELMo input."""
    out, pos = [], 0
    for tok in text.split():
        start = text.index(tok, pos)
        out.append((tok, start, start + len(tok)))
        pos = start + len(tok)
    return out


# ---------------------------------------------------------------- files


class ElmoFileError(ValueError):
    """An ELMo options or weights file that is not in AllenNLP's layout (names the file and key)."""


def _read_options(path: str | os.PathLike[str]) -> dict:
    """Read and check an ELMo ``options.json`` (the keys :func:`load_elmo` uses).

    Raises
    ------
    ElmoFileError
        If the file is not JSON or lacks a key; the message names the file and key.
    """
    path = Path(path)
    try:
        options = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ElmoFileError(f"{path}: not a readable ELMo options file ({err})") from err
    needed = {"lstm": ("projection_dim", "dim", "n_layers", "cell_clip", "proj_clip"),
              "char_cnn": ("filters", "n_highway", "embedding", "activation",
                           "max_characters_per_token")}
    for section, keys in needed.items():
        if not isinstance(options.get(section), dict):
            raise ElmoFileError(f"{path}: options lack the section {section!r}")
        for key in keys:
            if key not in options[section]:
                raise ElmoFileError(f"{path}: options lack {section}.{key}")
    cnn = options["char_cnn"]
    if cnn["activation"] not in ("relu", "tanh"):
        raise ElmoFileError(f"{path}: char_cnn.activation must be 'relu' or 'tanh', "
                            f"got {cnn['activation']!r}")
    if cnn["max_characters_per_token"] != _MAX_CHARS:
        raise ElmoFileError(f"{path}: char_cnn.max_characters_per_token must be {_MAX_CHARS} "
                            f"(ELMoCharacterMapper), got {cnn['max_characters_per_token']!r}")
    if not options["lstm"].get("use_skip_connections"):
        # _ElmoBiLm refuses these too: "We only support pretrained biLMs with residual connections".
        raise ElmoFileError(f"{path}: lstm.use_skip_connections must be true (AllenNLP's rule)")
    return options


def _array(h5: object, key: str, shape: tuple[int, ...] | None, weights: Path) -> NDArray:
    """The dataset ``key`` of an open hdf5 file as float32, checked against ``shape``."""
    try:
        data = h5[key][...]  # type: ignore[index]
    except KeyError as err:
        raise ElmoFileError(f"{weights}: weights lack the key {key!r}") from err
    if shape is not None and tuple(data.shape) != shape:
        raise ElmoFileError(f"{weights}: {key!r} has shape {tuple(data.shape)}, "
                            f"the options need {shape}")
    return np.asarray(data, dtype=np.float32)


# ---------------------------------------------------------------- the model


class _CharEncoder(nn.Module):
    """The context-insensitive token vector: char embedding → CNN → highway → projection."""

    def __init__(self, options: dict, h5: object, weights: Path) -> None:
        super().__init__()
        cnn, proj = options["char_cnn"], options["lstm"]["projection_dim"]
        char_dim = cnn["embedding"]["dim"]
        table = _array(h5, "char_embed", None, weights)
        if table.ndim != 2 or table.shape[1] != char_dim or table.shape[0] < _PAD_CHAR + 1:
            raise ElmoFileError(f"{weights}: 'char_embed' has shape {table.shape}, the options "
                                f"need (>= {_PAD_CHAR + 1}, {char_dim})")
        # Row 0 is the padding id of absent tokens (_load_char_embedding: zeros, then the file).
        self.embedding = nn.Parameter(torch.from_numpy(
            np.concatenate([np.zeros((1, char_dim), np.float32), table])), requires_grad=False)
        self.convs = nn.ModuleList()
        for i, (width, n) in enumerate(cnn["filters"]):
            w = _array(h5, f"CNN/W_cnn_{i}", (1, width, char_dim, n), weights)
            conv = nn.Conv1d(char_dim, n, width)
            conv.weight.data = torch.from_numpy(np.ascontiguousarray(w[0].transpose(2, 1, 0)))
            conv.bias.data = torch.from_numpy(_array(h5, f"CNN/b_cnn_{i}", (n,), weights))
            self.convs.append(conv)
        n_filters = sum(n for _, n in cnn["filters"])
        self.highways = nn.ModuleList()
        for k in range(cnn["n_highway"]):
            pair = nn.ModuleList()
            for part in ("transform", "carry"):
                lin = nn.Linear(n_filters, n_filters)
                lin.weight.data = torch.from_numpy(np.ascontiguousarray(_array(
                    h5, f"CNN_high_{k}/W_{part}", (n_filters, n_filters), weights).T))
                lin.bias.data = torch.from_numpy(
                    _array(h5, f"CNN_high_{k}/b_{part}", (n_filters,), weights))
                pair.append(lin)
            self.highways.append(pair)
        self.projection = nn.Linear(n_filters, proj)
        self.projection.weight.data = torch.from_numpy(np.ascontiguousarray(
            _array(h5, "CNN_proj/W_proj", (n_filters, proj), weights).T))
        self.projection.bias.data = torch.from_numpy(
            _array(h5, "CNN_proj/b_proj", (proj,), weights))
        self.activation = torch.relu if cnn["activation"] == "relu" else torch.tanh

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """``(n, 50)`` character ids → ``(n, projection_dim)`` token vectors."""
        x = nn.functional.embedding(ids, self.embedding).transpose(1, 2)
        # Max over all 50 positions, padding included, then the activation (as AllenNLP).
        h = torch.cat([self.activation(conv(x).max(dim=-1).values) for conv in self.convs], -1)
        for transform, carry in self.highways:
            t = torch.sigmoid(carry(h))
            h = t * torch.relu(transform(h)) + (1 - t) * h
        return self.projection(h)


class _LstmWithProjection(nn.Module):
    """One direction of one layer: AllenNLP's ``LstmCellWithProjection`` with its loaded weights."""

    def __init__(self, options: dict, h5: object, weights: Path, direction: int, layer: int,
                 ) -> None:
        super().__init__()
        lstm = options["lstm"]
        c, p = lstm["dim"], lstm["projection_dim"]
        self.cell_size, self.cell_clip, self.proj_clip = c, lstm["cell_clip"], lstm["proj_clip"]
        prefix = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
        w = _array(h5, f"{prefix}/W_0", (p + p, 4 * c), weights).T  # (4C, in + P)
        b = _array(h5, f"{prefix}/B", (4 * c,), weights).copy()
        b[2 * c : 3 * c] += 1.0  # TensorFlow's forget_bias=1.0, added at load (as load_weights)
        order = np.r_[0:c, 2 * c : 3 * c, c : 2 * c, 3 * c : 4 * c]  # (i, j, f, o) → (i, f, j, o)
        w, b = w[order], b[order]
        self.input_weight = nn.Parameter(torch.from_numpy(np.ascontiguousarray(w[:, :p])),
                                         requires_grad=False)
        self.state_weight = nn.Parameter(torch.from_numpy(np.ascontiguousarray(w[:, p:])),
                                         requires_grad=False)
        self.bias = nn.Parameter(torch.from_numpy(b), requires_grad=False)
        self.projection = nn.Parameter(torch.from_numpy(np.ascontiguousarray(
            _array(h5, f"{prefix}/W_P_0", (c, p), weights).T)), requires_grad=False)

    def step(self, x: torch.Tensor, h: torch.Tensor, mem: torch.Tensor
             ) -> tuple[torch.Tensor, torch.Tensor]:
        """One time step: ``(input, state, memory)`` → ``(new state, new memory)``."""
        return self._step(x @ self.input_weight.T + self.bias, h, mem)

    def _step(self, projected_input: torch.Tensor, h: torch.Tensor, mem: torch.Tensor
              ) -> tuple[torch.Tensor, torch.Tensor]:
        c = self.cell_size
        gates = projected_input + h @ self.state_weight.T
        i, f = torch.sigmoid(gates[:, :c]), torch.sigmoid(gates[:, c : 2 * c])
        j, o = torch.tanh(gates[:, 2 * c : 3 * c]), torch.sigmoid(gates[:, 3 * c :])
        mem = i * j + f * mem
        if self.cell_clip:
            mem = mem.clamp(-self.cell_clip, self.cell_clip)
        h = (o * torch.tanh(mem)) @ self.projection.T
        if self.proj_clip:
            h = h.clamp(-self.proj_clip, self.proj_clip)
        return h, mem

    def forward(self, inputs: torch.Tensor, mask: torch.Tensor, forward: bool,
                state: tuple[torch.Tensor, torch.Tensor]
                ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        """Run over ``(batch, time, in)``; padded steps leave the state alone and output 0.

        The backward direction thus starts each sentence at its last real token
        from the initial state, as ``LstmCellWithProjection`` does with sorted
        batch lengths.
        """
        h, mem = state
        # The input's share of the gates for every step at once: one matrix product.
        projected = inputs @ self.input_weight.T + self.bias
        out = inputs.new_zeros(*inputs.shape[:2], h.shape[-1])
        steps = range(inputs.shape[1]) if forward else reversed(range(inputs.shape[1]))
        for t in steps:
            new_h, new_mem = self._step(projected[:, t], h, mem)
            keep = mask[:, t].unsqueeze(-1)
            h, mem = torch.where(keep, new_h, h), torch.where(keep, new_mem, mem)
            out[:, t] = torch.where(keep, new_h, torch.zeros_like(new_h))
        return out, (h, mem)


class ElmoBiLM(nn.Module):
    """AllenNLP's ``_ElmoBiLm``: character ids in, the three layers of activations out.

    Build it with :func:`load_elmo`. ``forward`` takes ``(batch, tokens, 50)``
    character ids (:func:`batch_char_ids`, without boundary tokens) and returns
    ``(activations, mask)``: ``(n_layers + 1, batch, tokens + 2, 2 P)`` with the
    ``<S>``/``</S>`` positions included, and the ``(batch, tokens + 2)`` mask.
    """

    def __init__(self, options: dict, weights: str | os.PathLike[str]) -> None:
        super().__init__()
        import h5py  # an optional dependency (the colab/test extras)

        weights = Path(weights)
        try:
            h5 = h5py.File(weights, "r")
        except OSError as err:
            raise ElmoFileError(f"{weights}: not a readable hdf5 weights file ({err})") from err
        with h5:
            self.char_encoder = _CharEncoder(options, h5, weights)
            self.n_lstm_layers = options["lstm"]["n_layers"]
            self.lstms = nn.ModuleList(
                nn.ModuleList(_LstmWithProjection(options, h5, weights, d, layer)
                              for d in (0, 1))
                for layer in range(self.n_lstm_layers))
        self.options = options
        self.projection_dim = options["lstm"]["projection_dim"]
        self.cell_size = options["lstm"]["dim"]
        self.register_buffer("bos", torch.tensor(BOS_CHAR_IDS), persistent=False)
        self.register_buffer("eos", torch.tensor(EOS_CHAR_IDS), persistent=False)

    @property
    def output_dim(self) -> int:
        """Dimension of each layer's vectors: ``2 × projection_dim`` (1,024 for the original)."""
        return 2 * self.projection_dim

    def zero_states(self, batch: int) -> list[list[tuple[torch.Tensor, torch.Tensor]]]:
        """Zero ``(state, memory)`` per layer and direction for ``batch`` rows."""
        p, c = self.projection_dim, self.cell_size
        z = self.bos.new_zeros
        return [[(z(batch, p, dtype=torch.float32), z(batch, c, dtype=torch.float32))
                 for _ in (0, 1)] for _ in range(self.n_lstm_layers)]

    def forward(self, ids: torch.Tensor,
                states: list[list[tuple[torch.Tensor, torch.Tensor]]] | None = None,
                ) -> tuple[torch.Tensor, torch.Tensor, list]:
        """Activations, mask and final states (``states``: initial states, default zeros)."""
        batch, n, _ = ids.shape
        mask = (ids > 0).any(-1)
        lengths = mask.sum(-1)
        # add_sentence_boundary_token_ids: <S> first, </S> right after each sentence's last token.
        framed = ids.new_zeros(batch, n + 2, _MAX_CHARS)
        framed[:, 1:-1] = ids
        framed[:, 0] = self.bos
        # Index tensors on the model's device (a GPU run mixes no devices).
        framed[torch.arange(batch, device=ids.device), lengths + 1] = self.eos
        positions = torch.arange(n + 2, device=ids.device)
        mask = positions.unsqueeze(0) < (lengths + 2).unsqueeze(1)
        tokens = self.char_encoder(framed.view(-1, _MAX_CHARS)).view(batch, n + 2, -1)
        layers = [torch.cat([tokens, tokens], -1) * mask.unsqueeze(-1)]
        states = states if states is not None else self.zero_states(batch)
        finals = []
        fwd_in = bwd_in = tokens
        for layer, (fwd, bwd) in enumerate(self.lstms):
            fwd_out, fwd_state = fwd(fwd_in, mask, True, states[layer][0])
            bwd_out, bwd_state = bwd(bwd_in, mask, False, states[layer][1])
            if layer > 0:  # the residual connection (ElmoLstm._lstm_forward)
                fwd_out, bwd_out = fwd_out + fwd_in, bwd_out + bwd_in
            layers.append(torch.cat([fwd_out, bwd_out], -1))
            finals.append([fwd_state, bwd_state])
            fwd_in, bwd_in = fwd_out, bwd_out
        return torch.stack(layers), mask, finals


def load_elmo(options_file: str | os.PathLike[str], weight_file: str | os.PathLike[str]
              ) -> ElmoBiLM:
    """The ELMo biLM of an AllenNLP release (``options.json`` and ``weights.hdf5``), in eval mode.

    Raises
    ------
    ElmoFileError
        If a file is unreadable, an option is missing, or a weight is missing
        or has the wrong shape (the message names the file and the hdf5 key).
    """
    return ElmoBiLM(_read_options(options_file), weight_file).eval()


# ---------------------------------------------------------------- release files


@dataclass(frozen=True)
class ElmoRelease:
    """One of AllenNLP's published ELMo models: where its two files are.

    Attributes
    ----------
    name
        The release's name (its file-name stem).
    options_url, weights_url
        The files on AllenNLP's public storage, as AllenNLP's code names them.
    approx_bytes
        The weights file's approximate size (for the user's information; the
        download is checked by loading it, as no checksum is published).
    """

    name: str
    options_url: str
    weights_url: str
    approx_bytes: int

    @property
    def filenames(self) -> tuple[str, str]:
        """The two files' names in the cache folder."""
        return f"{self.name}_options.json", f"{self.name}_weights.hdf5"


_S3 = "https://allennlp.s3.amazonaws.com/models/elmo"

#: The release sent-bias ran: ``ElmoEmbedder()``'s defaults ``DEFAULT_OPTIONS_FILE`` /
#: ``DEFAULT_WEIGHT_FILE`` (allennlp/commands/elmo.py), also ``ElmoTokenEmbedder``'s.
#: 93.6 M parameters (allennlp.org/elmo), so about 374 MB of float32.
PAPER_ELMO_RELEASE = "elmo_2x4096_512_2048cnn_2xhighway"

#: The named releases.
ELMO_RELEASES: dict[str, ElmoRelease] = {
    PAPER_ELMO_RELEASE: ElmoRelease(
        PAPER_ELMO_RELEASE,
        f"{_S3}/2x4096_512_2048cnn_2xhighway/{PAPER_ELMO_RELEASE}_options.json",
        f"{_S3}/2x4096_512_2048cnn_2xhighway/{PAPER_ELMO_RELEASE}_weights.hdf5",
        374_000_000),
}

def download_release(
    release: str | ElmoRelease = PAPER_ELMO_RELEASE,
    folder: str | os.PathLike[str] | None = None,
    *,
    fetch: Fetch | None = None,
    progress: bool = True,
) -> tuple[Path, Path]:
    """The release's ``options.json`` and ``weights.hdf5``, downloaded once into the cache folder.

    Each file comes through :func:`biaslib.downloads.download`: written whole
    or not at all (a ``.part`` file renamed onto it), so an interrupted
    download leaves nothing that a later call would take for the file (the
    ``.part`` is resumed). A file already there is used as is.

    Parameters
    ----------
    release
        A name in :data:`ELMO_RELEASES` or an :class:`ElmoRelease`.
    folder
        Where the files go; default ``<biaslib cache>/elmo/<name>``, the biaslib
        cache being ``$BIASLIB_CACHE_DIR`` or ``~/.cache/biaslib``.
    fetch
        ``fetch(url, path)`` (:data:`biaslib.downloads.Fetch`); default an HTTP
        download; tests pass a stand-in.
    progress
        Show a progress bar per file.

    Raises
    ------
    KeyError
        For an unknown release name (the message lists the known ones).
    DownloadError
        If a download fails or is cut short (fewer bytes than announced), or
        downloads are off (``BIASLIB_OFFLINE``/``HF_HUB_OFFLINE``).
    """
    if isinstance(release, str):
        if release not in ELMO_RELEASES:
            raise KeyError(f"unknown ELMo release {release!r}; known: {sorted(ELMO_RELEASES)}")
        release = ELMO_RELEASES[release]
    folder = Path(folder) if folder is not None else cache_folder("elmo") / release.name
    folder.mkdir(parents=True, exist_ok=True)
    # No published checksums: a file is checked when load_elmo reads it.
    options, weights = (download(url, folder / name, fetch=fetch, progress=progress,
                                 what=f"ELMo {release.name} {name.rsplit('_', 1)[1]}")
                        for url, name in zip((release.options_url, release.weights_url),
                                             release.filenames, strict=True))
    return options, weights


# ---------------------------------------------------------------- the encoder

#: Which ELMo layer a vector is: 0 (character CNN), 1, 2 (biLSTM), ``"last"``, a tuple
#: (summed) or ``"sum"`` (all three: sent-bias's ``layer_combine_method="add"``).
_ElmoLayer = int | tuple[int, ...] | Literal["last", "sum"]
_SENTENCE_POOLINGS = ("mean", "max", "first", "last")
_WORD_POOLINGS = ("first", "last", "mean")


class ElmoEncoder(ContextEncoder):
    """ELMo as a :class:`~biaslib.embeddings.base.ContextEncoder`: sentences and words in context.

    Sentences are split on whitespace (``text.split()``: Mind Your Bias's fix
    of sent-bias's input, so ``"tulip."`` is one token as in ELMo's own
    whitespace-tokenized training data). A sentence vector is the mean over its
    tokens (sent-bias ``--time_combine_method mean``, the default) of the
    selected layers' sum (``--layer_combine_method add``: all three layers);
    a stimulus' vector pools the whitespace tokens that overlap its span.
    :meth:`encode_tokens` takes token lists as ``ElmoEmbedder.embed_sentence``
    does, so :class:`~biaslib.embeddings.bugs.BugEncoder` can feed it a
    sentence's characters — the ELMo bug, on the real model.

    Parameters
    ----------
    release
        A name in :data:`ELMO_RELEASES` (default :data:`PAPER_ELMO_RELEASE`, the model of
        SEAT Table 4), downloaded once by :func:`download_release`; ignored when
        ``options_file`` and ``weight_file`` are given.
    options_file, weight_file
        Local release files (both or neither).
    layer
        ``"sum"`` (default), ``"last"`` (= 2), 0, 1, 2, or a tuple of layers to sum.
    device
        ``"cpu"``, ``"cuda"``…; default CUDA when available.
    batch_size
        Sentences per forward pass.
    cache
        As for :class:`~biaslib.embeddings.transformer.TransformerEncoder`
        (``True``: the default cache file). Stateful encoders never cache.
    progress
        Progress bars for downloads and for encodes of more than one batch.
    stateful
        Carry LSTM states from batch to batch, as AllenNLP did (see the module
        docstring). Default ``False``: every sentence starts from zero states.
    fetch
        The downloader passed to :func:`download_release` (tests).

    Raises
    ------
    ElmoFileError
        If a release file is not in AllenNLP's layout (names the file and key).
    ValueError
        For a layer ELMo does not have, a non-positive ``batch_size``, or only
        one of ``options_file``/``weight_file``.
    OSError
        If the download fails.
    """

    default_sentence_pooling = "mean"
    default_word_pooling = "mean"

    def __init__(
        self,
        release: str | ElmoRelease = PAPER_ELMO_RELEASE,
        *,
        options_file: str | os.PathLike[str] | None = None,
        weight_file: str | os.PathLike[str] | None = None,
        layer: _ElmoLayer = "sum",
        device: str | None = None,
        batch_size: int = 64,
        cache: bool | str | Path | VectorCache | None = True,
        progress: bool = True,
        stateful: bool = False,
        fetch: Fetch | None = None,
    ) -> None:
        from biaslib.embeddings.transformer import check_device
        from biaslib.validation import check_int

        self.batch_size = check_int(batch_size, "batch_size", minimum=1)
        self.device = check_device(device)  # before a download, so a typo fails at once
        if (options_file is None) != (weight_file is None):
            raise ValueError("give both options_file and weight_file, or neither")
        if options_file is None:
            options_file, weight_file = download_release(release, fetch=fetch, progress=progress)
        assert weight_file is not None  # both or neither, checked above
        if weight_file is not None and release == PAPER_ELMO_RELEASE and Path(weight_file).name != (
                ELMO_RELEASES[PAPER_ELMO_RELEASE].filenames[1]):
            # Local files: name them by their weights file, not by the default release.
            self.release = Path(weight_file).stem.removesuffix("_weights")
        else:
            self.release = release.name if isinstance(release, ElmoRelease) else str(release)
        self.model = load_elmo(options_file, weight_file).to(self.device)  # type: ignore[arg-type]
        self.n_layers = self.model.n_lstm_layers + 1
        self.layer = self._check_layer(layer)
        self.progress = progress
        self.stateful = bool(stateful)
        self._states: list | None = None
        self.cache = None if self.stateful else open_cache(cache)
        self.fingerprint = file_digest(Path(weight_file))  # type: ignore[arg-type]

    # ------------------------------------------------------------ description

    def _check_layer(self, layer: object) -> _ElmoLayer:
        n = self.n_layers
        if layer in ("sum", "last"):
            return layer  # type: ignore[return-value]
        indices = layer if isinstance(layer, tuple) else (layer,)
        if not indices or not all(isinstance(i, int) and not isinstance(i, bool)
                                  and -n <= i < n for i in indices):
            raise ValueError(f"layer must be 'sum', 'last', or layers in [-{n}, {n - 1}] "
                             f"(ELMo has {n}: 0 = character CNN), got {layer!r}")
        return tuple(i % n for i in indices) if isinstance(layer, tuple) else layer % n

    @property
    def layers(self) -> tuple[int, ...]:
        """The layers summed into every vector."""
        if self.layer == "sum":
            return tuple(range(self.n_layers))
        if self.layer == "last":
            return (self.n_layers - 1,)
        return self.layer if isinstance(self.layer, tuple) else (self.layer,)

    @property
    def short_name(self) -> str:
        """The model's short name (a table's ``model``): ``"ELMo <release>"``."""
        return f"ELMo {self.release}"

    @property
    def name(self) -> str:
        """The release, the layers and the statefulness, for result rows."""
        if self.layer == "sum":
            text = f"sum of the {self.n_layers} layers"
        else:
            text = "layer " + "+".join(map(str, self.layers))
        state = ", stateful" if self.stateful else ""
        return f"ELMo {self.release}, {text}{state}"

    def reset_states(self) -> None:
        """Forget carried LSTM states (stateful encoders): the next batch starts from zeros."""
        self._states = None

    # ------------------------------------------------------------ AllenNLP's API

    def tokenize(self, text: str) -> list[str]:
        """ELMo's input tokens for ``text``: ``text.split()``."""
        return text.split()

    @torch.no_grad()
    def embed_batch(self, token_lists: Sequence[Sequence[str]]) -> list[NDArray[np.float32]]:
        """``ElmoEmbedder.embed_batch``: per sentence ``(3, n_tokens, 1024)``, boundaries removed.

        One forward pass, whatever the batch size; the stateful encoder carries
        its states from here to the next call.
        """
        token_lists = [self._check_tokens(t) for t in token_lists]
        ids = torch.from_numpy(batch_char_ids(token_lists)).to(self.device)
        states = self._carried(len(token_lists)) if self.stateful else None
        acts, _, finals = self.model(ids, states)
        if self.stateful:
            self._keep(finals)
        acts = acts.float().cpu().numpy()
        return [acts[:, b, 1 : len(t) + 1] for b, t in enumerate(token_lists)]

    def embed_sentence(self, tokens: Sequence[str]) -> NDArray[np.float32]:
        """``ElmoEmbedder.embed_sentence``: ``(3, n_tokens, 1024)`` for one token list."""
        return self.embed_batch([tokens])[0]

    def _carried(self, batch: int) -> list:
        """Row ``i`` starts from row ``i`` of the last final states (zeros where there is none)."""
        init = self.model.zero_states(batch)
        if self._states is not None:
            for layer, dirs in enumerate(self._states):
                for d, (h, mem) in enumerate(dirs):
                    rows = min(batch, h.shape[0])
                    init[layer][d][0][:rows] = h[:rows]
                    init[layer][d][1][:rows] = mem[:rows]
        return init

    def _keep(self, finals: list) -> None:
        """Store final states; rows of an earlier, larger batch beyond this one are kept."""
        if self._states is None:
            self._states = finals
            return
        for layer, dirs in enumerate(finals):
            for d, (h, mem) in enumerate(dirs):
                old_h, old_mem = self._states[layer][d]
                if old_h.shape[0] > h.shape[0]:
                    h = torch.cat([h, old_h[h.shape[0]:]])
                    mem = torch.cat([mem, old_mem[mem.shape[0]:]])
                self._states[layer][d] = (h, mem)

    @staticmethod
    def _check_tokens(tokens: Sequence[str]) -> list[str]:
        if isinstance(tokens, str):
            raise TypeError(
                f"expected a list of tokens, got the string {tokens[:40]!r}: iterating it would "
                "yield characters (the sent-bias ELMo bug); pass tokens, or list(text) on purpose")
        tokens = list(tokens)
        if not tokens or not all(isinstance(t, str) and t for t in tokens):
            raise ValueError(f"a token list must be non-empty and hold non-empty strings, "
                             f"got {tokens[:5]!r}")
        return tokens

    # ------------------------------------------------------------ ContextEncoder

    def encode_tokens(
        self,
        token_lists: Sequence[Sequence[str]],
        pooling: str = "mean",
        *,
        blank_tokens: Literal["error", "unk"] = "error",
    ) -> list[NDArray[np.float32]]:
        """One vector per given token (the selected layers summed), ``(len(tokens), 1024)`` each.

        The signature of :meth:`TransformerEncoder.encode_tokens
        <biaslib.embeddings.transformer.TransformerEncoder.encode_tokens>`, so
        the ELMo bug replay (:mod:`biaslib.embeddings.bugs`) runs on ELMo.
        Each given token is one ELMo token, so ``pooling`` has nothing to pool.
        ``blank_tokens``: ``"error"`` refuses a whitespace-only token; with
        ``"unk"`` it is embedded as itself — ELMo's character CNN reads a
        lone blank like any character (byte 32), as it did in sent-bias's
        bugged call, so no stand-in is needed.
        """
        if isinstance(token_lists, str):
            raise TypeError("expected a list of token lists, got a single string")
        token_lists = [self._check_tokens(t) for t in token_lists]
        if not token_lists:
            raise ValueError("no token lists to encode")
        if pooling not in _WORD_POOLINGS:
            raise ValueError(f"pooling must be one of {_WORD_POOLINGS}, got {pooling!r}")
        if blank_tokens not in ("error", "unk"):
            raise ValueError(f"blank_tokens must be 'error' or 'unk', got {blank_tokens!r}")
        if blank_tokens == "error":
            for tokens in token_lists:
                blank = [t for t in tokens if not t.strip()]
                if blank:
                    raise ValueError(f"token {blank[0]!r} is blank (blank_tokens='error')")
        return self._encode(token_lists)

    def encode_sentences(self, texts: Sequence[str], pooling: str | None = None
                         ) -> NDArray[np.float32]:
        """One vector per sentence: its whitespace tokens' vectors pooled (default the mean).

        ``pooling``: ``"mean"`` (sent-bias's default), ``"max"``, ``"first"``, ``"last"``.
        """
        pooling = pooling or self.default_sentence_pooling
        if pooling not in _SENTENCE_POOLINGS:
            raise ValueError(f"ELMo sentence pooling must be one of {_SENTENCE_POOLINGS}, "
                             f"got {pooling!r}")
        texts = check_sentences(texts)
        return np.stack([_pool(v, pooling) for v in self._encode([t.split() for t in texts])])

    def encode_words(self, contexts: Sequence[Context], pooling: str | None = None
                     ) -> NDArray[np.float32]:
        """One vector per stimulus: the whitespace tokens overlapping its span, pooled."""
        return self.encode_contexts(contexts, "mean", pooling)[1]

    def encode_contexts(self, contexts: Sequence[Context], sentence_pooling: str | None = None,
                        word_pooling: str | None = None) -> tuple[NDArray, NDArray]:
        """Sentence vectors and stimulus vectors of ``contexts`` from one pass over each text."""
        sentence_pooling = sentence_pooling or self.default_sentence_pooling
        word_pooling = word_pooling or self.default_word_pooling
        if sentence_pooling not in _SENTENCE_POOLINGS:
            raise ValueError(f"ELMo sentence pooling must be one of {_SENTENCE_POOLINGS}, "
                             f"got {sentence_pooling!r}")
        if word_pooling not in _WORD_POOLINGS:
            raise ValueError(f"ELMo word pooling must be one of {_WORD_POOLINGS}, "
                             f"got {word_pooling!r}")
        contexts = check_contexts(contexts)
        spans = [whitespace_tokens(c.text) for c in contexts]
        vectors = self._encode([[tok for tok, _, _ in s] for s in spans])
        words = []
        for ctx, span, vec in zip(contexts, spans, vectors, strict=True):
            rows = [i for i, (_, a, b) in enumerate(span) if a < ctx.end and ctx.start < b]
            words.append(_pool(vec[rows], word_pooling))
        return np.stack([_pool(v, sentence_pooling) for v in vectors]), np.stack(words)

    # ------------------------------------------------------------ internals

    def _encode(self, token_lists: list[list[str]]) -> list[NDArray[np.float32]]:
        """Vectors of each token list: cached, or computed (shortest first unless stateful)."""
        config = {"model": self.fingerprint, "kind": "elmo-tokens", "layers": list(self.layers),
                  "dtype": "float32"}
        keys = [cache_key(config, t) for t in token_lists]
        results: dict[int, NDArray[np.float32]] = {}
        if self.cache is not None:
            hits = self.cache.get_many(keys)
            results = {i: hits[k] for i, k in enumerate(keys) if k in hits}
        first_of: dict[str, int] = {}
        if self.stateful:  # in the given order, every input computed: the order matters
            todo = list(range(len(token_lists)))
        else:
            for i, k in enumerate(keys):
                if i not in results:
                    first_of.setdefault(k, i)
            todo = sorted(first_of.values(), key=lambda i: len(token_lists[i]))
        batches = [todo[j : j + self.batch_size] for j in range(0, len(todo), self.batch_size)]
        layers = list(self.layers)
        for batch in tqdm(batches, desc=f"ELMo {self.release}", unit="batch",
                          disable=not self.progress or len(batches) < 2):
            acts = self.embed_batch([token_lists[i] for i in batch])
            fresh = []
            for i, a in zip(batch, acts, strict=True):
                results[i] = a[layers].sum(axis=0).astype(np.float32)
                fresh.append((keys[i], results[i]))
            if self.cache is not None:
                self.cache.put_many(fresh)
        if self.stateful:
            return [results[i] for i in range(len(keys))]
        return [results[i] if i in results else results[first_of[k]] for i, k in enumerate(keys)]


def _pool(rows: NDArray[np.float32], pooling: str) -> NDArray[np.float32]:
    if pooling == "mean":
        return rows.mean(axis=0)
    if pooling == "max":
        return rows.max(axis=0)
    return rows[0] if pooling == "first" else rows[-1]


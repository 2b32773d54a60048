"""A tiny ELMo release (options.json + weights.hdf5) in AllenNLP's exact layout, random weights.

The layout is that of AllenNLP's loaders (``allennlp/modules/elmo.py``
``_ElmoCharacterEncoder._load_*``, ``allennlp/modules/elmo_lstm.py``
``ElmoLstm.load_weights``): TensorFlow shapes, LSTM gates in TensorFlow's order
(i, j, f, o). Used by ``tests/test_elmo.py`` and, for the Colab-path tests, as a
stand-in for the 374 MB original release.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

#: Small filters, 2 highway layers, tiny dimensions; clips low enough to be reached.
TINY_OPTIONS = {
    "lstm": {"cell_clip": 0.5, "use_skip_connections": True, "n_layers": 2,
             "proj_clip": 0.4, "projection_dim": 6, "dim": 8},
    "char_cnn": {"embedding": {"dim": 4}, "filters": [[1, 4], [2, 6], [3, 6]], "n_highway": 2,
                 "n_characters": 262, "max_characters_per_token": 50, "activation": "relu"},
}


#: The shapes of AllenNLP's original release (``elmo_2x4096_512_2048cnn_2xhighway``), for timings.
ORIGINAL_OPTIONS = {
    "lstm": {"cell_clip": 3, "use_skip_connections": True, "n_layers": 2, "proj_clip": 3,
             "projection_dim": 512, "dim": 4096},
    "char_cnn": {"embedding": {"dim": 16}, "n_highway": 2, "n_characters": 262,
                 "filters": [[1, 32], [2, 32], [3, 64], [4, 128], [5, 256], [6, 512], [7, 1024]],
                 "max_characters_per_token": 50, "activation": "relu"},
}


def write_tiny_release(folder: Path, *, seed: int = 0, n_layers: int = 2,
                       symmetric: bool = False, name: str = "tiny",
                       options: dict | None = None) -> tuple[Path, Path]:
    """Write ``<name>_options.json`` and ``<name>_weights.hdf5`` into ``folder``.

    ``symmetric``: the backward LSTM gets the forward LSTM's weights and the
    sentence-end character the sentence-start one's embedding (for the reversal
    property). ``options``: other shapes (default :data:`TINY_OPTIONS`).
    """
    import h5py

    rng = np.random.default_rng(seed)
    options = json.loads(json.dumps(options or TINY_OPTIONS))
    options["lstm"]["n_layers"] = n_layers
    cnn, lstm = options["char_cnn"], options["lstm"]
    d, p, c = cnn["embedding"]["dim"], lstm["projection_dim"], lstm["dim"]
    n_filters = sum(n for _, n in cnn["filters"])

    def rand(*shape: int, scale: float = 0.5) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    folder.mkdir(parents=True, exist_ok=True)
    options_path = folder / f"{name}_options.json"
    weights_path = folder / f"{name}_weights.hdf5"
    options_path.write_text(json.dumps(options))
    with h5py.File(weights_path, "w") as h5:
        table = rand(261, d, scale=1.0)  # 261 rows: ids 1..261 after the +1
        if symmetric:  # <S> and </S> alike, so a reversed sentence is the mirror image
            table[257] = table[256]
        h5["char_embed"] = table
        for i, (width, n) in enumerate(cnn["filters"]):
            h5[f"CNN/W_cnn_{i}"] = rand(1, width, d, n)
            h5[f"CNN/b_cnn_{i}"] = rand(n, scale=0.1)
        for k in range(cnn["n_highway"]):
            for part in ("transform", "carry"):
                h5[f"CNN_high_{k}/W_{part}"] = rand(n_filters, n_filters, scale=0.3)
                h5[f"CNN_high_{k}/b_{part}"] = rand(n_filters, scale=0.1)
        h5["CNN_proj/W_proj"] = rand(n_filters, p, scale=0.3)
        h5["CNN_proj/b_proj"] = rand(p, scale=0.1)
        for layer in range(n_layers):
            cell = {"W_0": rand(p + p, 4 * c), "B": rand(4 * c, scale=0.3),
                    "W_P_0": rand(c, p)}
            for direction in (0, 1):
                if direction == 1 and not symmetric:
                    cell = {"W_0": rand(p + p, 4 * c), "B": rand(4 * c, scale=0.3),
                            "W_P_0": rand(c, p)}
                prefix = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
                for key, value in cell.items():
                    h5[f"{prefix}/{key}"] = value
    return options_path, weights_path


def install_standin_elmo(cache_dir: Path) -> tuple[Path, Path]:
    """A tiny release under the paper release's name where its download leaves it.

    ``cache_dir`` is a kernel's ``BIASLIB_CACHE_DIR``: the chapters' ELMo
    (:data:`biasbook.models.PAPER_ELMO`) then finds its two files there and
    downloads nothing (the Colab-path tests run offline).
    """
    from biaslib.embeddings.elmo import PAPER_ELMO_RELEASE

    return write_tiny_release(Path(cache_dir) / "elmo" / PAPER_ELMO_RELEASE,
                              name=PAPER_ELMO_RELEASE)

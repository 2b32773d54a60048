"""Write the word sets and vectors the peer implementations run on (book environment).

The peers (WEFE, responsibly, EmbeddingBiasScores) are run by ``run_peers.py`` in an
environment of their own, which has no biaslib. This script, run with biaslib, writes
everything they need into one ``.npz`` file (a path outside the repository)::

    python scripts/peers/export_inputs.py /tmp/peer_inputs.npz

The word sets, on GloVe 6B 50d (:func:`biaslib.embeddings.static.glove_6b_50d`,
lowercase look-up):

* ``C1.X`` … ``C10.B``: Caliskan et al.'s ten tests, each set as the WEAT chapter embeds
  it (:func:`biaslib.embeddings.base.embed_test`, the same as
  :func:`biasbook.weat_static.glove_table`): words without a vector are dropped,
  the rest kept in the printed order, each under its printed spelling;
* ``SAME.female``, ``SAME.male`` (debiaswe's definitional pairs, paired by position) and
  ``SAME.occupations`` (the SAME paper's 258 occupations; a phrase gets the mean of its
  words' vectors), as the SAME chapter builds them (:func:`biasbook.same.glove_vectors`).

Every set is stored as ``words:<name>`` (strings) and ``vectors:<name>`` (float64); the
file also holds ``names`` (the set names, sorted), ``digest`` (:func:`inputs_digest`, which
``run_peers.py`` recomputes and stores in every row of its output and the test recomputes
from GloVe) and ``provenance`` (JSON: the GloVe fingerprint and biaslib's version).

:func:`inputs_digest` is the only part ``run_peers.py`` imports: it needs numpy alone.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

#: Caliskan et al.'s tests exported (the WEAT chapter's ten).
TESTS: tuple[str, ...] = tuple(f"C{i}" for i in range(1, 11))
#: The roles of a stimulus test: targets X, Y; attributes A, B.
ROLES: tuple[str, ...] = ("X", "Y", "A", "B")


def inputs_digest(sets: Mapping[str, tuple[Sequence[str], NDArray[np.float64]]]) -> str:
    """SHA-256 of the word sets: names, words and vectors in a fixed byte order.

    For every set in sorted name order: the name, a NUL, the words joined by NUL (UTF-8),
    a NUL, the vector shape as text, a NUL, then the vectors as little-endian float64 in
    row-major order. Any change of a word, a value, an order or a set changes it.
    """
    h = hashlib.sha256()
    for name in sorted(sets):
        words, vectors = sets[name]
        matrix = np.ascontiguousarray(vectors, dtype="<f8")
        if matrix.ndim != 2 or matrix.shape[0] != len(words):
            raise ValueError(f"set {name!r}: {len(words)} words but vectors of shape "
                             f"{matrix.shape}")
        h.update(name.encode() + b"\0" + "\0".join(words).encode() + b"\0")
        h.update(f"{matrix.shape[0]}x{matrix.shape[1]}".encode() + b"\0")
        h.update(matrix.tobytes())
    return h.hexdigest()


def word_sets() -> dict[str, tuple[tuple[str, ...], NDArray[np.float64]]]:
    """Every exported set: name → (words, float64 vectors), from GloVe 6B 50d."""
    import warnings

    from biasbook import same
    from biaslib.embeddings import glove_6b_50d
    from biaslib.embeddings.base import embed_test
    from biaslib.errors import DroppedStimuliWarning
    from biaslib.stimuli.data import load_test

    table = glove_6b_50d(case="lower")
    out: dict[str, tuple[tuple[str, ...], NDArray[np.float64]]] = {}
    for test in TESTS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DroppedStimuliWarning)
            embedded = embed_test(load_test(test), table)
        for role in ROLES:
            s = embedded.sets[role]
            out[f"{test}.{role}"] = (tuple(s.words), np.asarray(s.vectors, dtype=np.float64))
    female, male = same.gender_words()
    for name, words in (("female", female), ("male", male), ("occupations", same.occupations())):
        out[f"SAME.{name}"] = (tuple(words), same.glove_vectors(words, table))
    return out


def provenance() -> dict[str, str]:
    """Where the vectors come from (no machine path): GloVe's fingerprint, biaslib's version."""
    import biaslib
    from biaslib.embeddings import glove_6b_50d

    return {"vectors": glove_6b_50d().fingerprint, "biaslib": biaslib.__version__}


def write_inputs(path: str | Path) -> str:
    """Write the ``.npz`` (whole or not at all) and return its digest."""
    from biaslib.files import write_atomically

    sets = word_sets()
    digest = inputs_digest(sets)
    arrays: dict[str, NDArray] = {"names": np.array(sorted(sets)), "digest": np.array(digest),
                                  "provenance": np.array(json.dumps(provenance()))}
    for name, (words, vectors) in sets.items():
        arrays[f"words:{name}"] = np.array(words)
        arrays[f"vectors:{name}"] = vectors

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as handle:  # a file object: savez would append ".npz" to a name
            np.savez(handle, **arrays)

    write_atomically(path, write)
    return digest


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python scripts/peers/export_inputs.py OUT.npz", file=sys.stderr)
        return 2
    digest = write_inputs(args[0])
    print(f"wrote {args[0]} (inputs SHA-256 {digest})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

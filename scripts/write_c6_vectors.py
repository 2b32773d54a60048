"""Write the C6 vectors that the CEAT chapter's exercises read without the corpus extract.

C6 (Mind Your Bias's names) in at most 100 sentences per stimulus of the shared corpus
extract, cut to Mind Your Bias's nine-word window, embedded with MiniLM (mean-pooled
subwords), exactly as the chapter's "One test, step by step" embeds them; stored as float16
in ``data/vectors/ceat_c6_minilm.npz`` (about 2.5 MB, vectors only) with their provenance in
``ceat_c6_minilm.json`` (``biasbook.ceat.write_c6_minilm_vectors``). The wheel carries them
as ``biaslib/_data/vectors``. Run after the extract or MiniLM changes, then re-execute the
chapter (``python scripts/execute_notebooks.py notebooks/ceat.ipynb``), whose hidden cell
checks them against fresh ones::

    python scripts/write_c6_vectors.py            # needs ../shared/corpus or $BIASLIB_CORPUS_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

from biasbook.ceat import c6_minilm_vectors, c6_vectors_provenance, write_c6_minilm_vectors

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    try:
        path = write_c6_minilm_vectors(ROOT / "data")
    except FileNotFoundError as err:
        print(err, file=sys.stderr)
        return 1
    meta = c6_vectors_provenance(ROOT / "data")
    n = sum(v.shape[0] for words in c6_minilm_vectors(ROOT / "data").values()
            for v in words.values())
    print(f"{path.relative_to(ROOT)}: {n:,} vectors, {path.stat().st_size:,} bytes, "
          f"sha256 {meta['sha256'][:12]}; {meta['extract']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

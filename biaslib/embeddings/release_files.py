"""The papers' static-vector release files, by name, and a checked download into the cache.

The papers' static vectors are not on the Hugging Face hub; on Colab they come from the
authors' release files (:data:`RELEASE_FILES`). :func:`download` fetches one into the
biaslib cache folder (``$BIASLIB_CACHE_DIR/release_files``, else
``~/.cache/biaslib/release_files``, beside the vector cache of
:mod:`biaslib.embeddings.cache`):

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

The fetch function is injectable (``fetch=``): a callable ``fetch(url, part)`` that
writes (or appends to) ``part``; tests serve a local file with it.
"""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from biaslib.errors import UnknownNameError
from biaslib.files import write_text_atomically

__all__ = [
    "RELEASE_FILES",
    "DownloadError",
    "Fetch",
    "ReleaseFile",
    "download",
    "release_file",
    "release_folder",
]

#: ``fetch(url, part)``: write the bytes of ``url`` to ``part`` (appending to what it holds).
Fetch = Callable[[str, Path], None]


class DownloadError(OSError):
    """A release file could not be fetched whole, or its size or checksum is wrong."""


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


def release_folder() -> Path:
    """``$BIASLIB_CACHE_DIR/release_files``, else ``~/.cache/biaslib/release_files``."""
    root = os.environ.get("BIASLIB_CACHE_DIR") or Path.home() / ".cache" / "biaslib"
    return Path(root) / "release_files"


def _http_fetch(url: str, part: Path) -> None:
    """Download ``url`` into ``part``, resuming after the bytes it holds, with a tqdm bar."""
    from tqdm.auto import tqdm

    have = part.stat().st_size if part.exists() else 0
    request = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
    with urllib.request.urlopen(request, timeout=60) as response:
        if have and response.status != 206:  # the server ignored Range: start again
            have = 0
        length = response.headers.get("Content-Length")
        total = have + int(length) if length else None
        with part.open("ab" if have else "wb") as out, tqdm(
                total=total, initial=have, unit="B", unit_scale=True,
                desc=part.name.removesuffix(".part").lstrip(".")) as bar:
            for block in iter(lambda: response.read(1 << 20), b""):
                out.write(block)
                bar.update(len(block))
    if total is not None and part.stat().st_size != total:
        raise DownloadError(f"{url}: the connection ended at {part.stat().st_size} of "
                            f"{total} bytes; call again to resume")


def _sha256(path: Path) -> str:
    from biaslib.embeddings.vector_files import sha256_of

    return sha256_of(path)


def download(name: str, *, fetch: Fetch | None = None,
             folder: str | os.PathLike[str] | None = None) -> tuple[Path, str]:
    """The release file ``name`` in the cache folder, downloaded if need be; and its SHA-256.

    A file already there with its ``.sha256.json`` record (and the recorded size) is
    returned without fetching. Otherwise the file is fetched into a ``.part`` file
    (resumed if one is left from an interrupted call), its size and SHA-256 checked
    against the registry where known, then renamed onto its name and its SHA-256
    recorded (the first download's hash, where no checksum is published).

    Parameters
    ----------
    name
        A key of :data:`RELEASE_FILES`.
    fetch
        ``fetch(url, part)`` writing the bytes to ``part``; default an HTTP download
        with a progress bar, resuming with ``Range``.
    folder
        Where to keep the file (default :func:`release_folder`).

    Raises
    ------
    DownloadError
        If the fetched file has the wrong size or SHA-256 (the ``.part`` file is
        deleted: nothing half-fetched is kept under either name).
    """
    release = release_file(name)
    folder = Path(folder) if folder is not None else release_folder()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / release.filename
    record_path = folder / f"{release.filename}.sha256.json"
    if target.is_file():
        record = _read_record(record_path)
        if record and record.get("size") == target.stat().st_size and \
                (release.sha256 is None or record.get("sha256") == release.sha256):
            return target, str(record["sha256"])
        # A file put there by hand, or without its record: check it as if fetched.
        digest = _check(target, release, delete=False)
        _write_record(record_path, release, target, digest)
        return target, digest
    part = folder / f".{release.filename}.part"
    (fetch or _http_fetch)(release.url, part)
    if not part.is_file():
        raise DownloadError(f"{release.url}: the fetch wrote nothing to {part}")
    digest = _check(part, release, delete=True)
    os.replace(part, target)
    _write_record(record_path, release, target, digest)
    return target, digest


def _check(path: Path, release: ReleaseFile, *, delete: bool) -> str:
    """The file's SHA-256 after checking its size and checksum against the registry."""
    size = path.stat().st_size
    problem = None
    if release.size is not None and size != release.size:
        problem = f"{size} bytes, {release.size} expected"
    digest = _sha256(path) if problem is None else ""
    if problem is None and release.sha256 is not None and digest != release.sha256:
        problem = f"SHA-256 {digest}, {release.sha256} expected"
    if problem is not None:
        if delete:
            path.unlink(missing_ok=True)
        raise DownloadError(f"{release.filename} from {release.url}: {problem}"
                            + ("; the download was deleted" if delete else
                               f"; delete {path} to download it again"))
    return digest


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

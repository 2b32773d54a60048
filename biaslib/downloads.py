"""Getting a URL's bytes into a local file, whole and verified: the package's one downloader.

Every file that Colab users fetch — the papers' static vectors
(:mod:`biaslib.embeddings.release_files`), InferSent's and GenSen's model files
(:mod:`biaslib.embeddings.sentence_encoders`), ELMo's two files
(:mod:`biaslib.embeddings.elmo`), the corpus' raw sources
(:mod:`biaslib.stimuli.corpus_sources`, :mod:`biaslib.stimuli.corpus`) and the iEAT
images (:mod:`biaslib.stimuli.images`) — comes through :func:`download`. Each of those
modules keeps its own registry of URLs, sizes and hashes; this module holds the
mechanics they share:

* the bytes go to ``.<name>.part`` beside the destination and are renamed onto its name
  only once complete and checked (size, SHA-256 where given): the destination never
  holds half a file;
* a wrong size or SHA-256 deletes the ``.part`` file and raises
  :class:`~biaslib.errors.DownloadError`, as does a failed fetch; only an interrupted
  transfer of the default :func:`http_fetch` (connection lost, timeout, cut short,
  Ctrl-C; or the process killed, as a Colab runtime can be) keeps it, and the next call
  resumes after its bytes with an HTTP ``Range`` request where the server allows;
* downloads are off when ``BIASLIB_OFFLINE`` or ``HF_HUB_OFFLINE`` is set (read as
  ``huggingface_hub`` reads its own: ``1``, ``ON``, ``YES``, ``TRUE``): the tests and
  the book's build run so, and a missing file is then refused at once, naming the URL
  and the setting, before any connection is opened.

The fetch is injectable (``fetch=``, the one :data:`Fetch` signature): tests serve local
bytes with it, and it is the caller's explicit choice, so it is called even offline.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from biaslib.errors import DownloadError

__all__ = [
    "OFFLINE_ENV",
    "Fetch",
    "cache_folder",
    "download",
    "http_fetch",
    "offline_setting",
    "sha256_of",
]

logger = logging.getLogger(__name__)

#: ``fetch(url, path)``: write the bytes of ``url`` to ``path``. ``path`` may hold the first
#: bytes of an interrupted earlier attempt: a fetch may resume after them (HTTP ``Range``,
#: as :func:`http_fetch` does) or overwrite them.
Fetch = Callable[[str, Path], None]

#: The environment variables that turn downloads off: the book's own, and the Hugging Face
#: hub's (which the tests, the book's build and the Colab-path test set).
OFFLINE_ENV = ("BIASLIB_OFFLINE", "HF_HUB_OFFLINE")

_BLOCK = 1 << 20


def cache_folder(name: str) -> Path:
    """``$BIASLIB_CACHE_DIR/<name>``, else ``~/.cache/biaslib/<name>``: where a download goes.

    The folder of the vector cache (:func:`biaslib.embeddings.cache.default_cache_path`);
    it is not created here.
    """
    root = os.environ.get("BIASLIB_CACHE_DIR") or Path.home() / ".cache" / "biaslib"
    return Path(root) / name


def offline_setting() -> str | None:
    """The :data:`OFFLINE_ENV` setting that turns downloads off (``"HF_HUB_OFFLINE=1"``), or None.

    A variable counts when set to ``1``, ``ON``, ``YES`` or ``TRUE`` (any case), as
    ``huggingface_hub`` reads ``HF_HUB_OFFLINE`` (:func:`biaslib.embeddings.models.hub_offline`).
    """
    for name in OFFLINE_ENV:
        value = os.environ.get(name, "")
        if value.strip().upper() in ("1", "ON", "YES", "TRUE"):
            return f"{name}={value}"
    return None


def sha256_of(path: str | os.PathLike[str]) -> str:
    """The full hex SHA-256 of a file (read in 1 MiB blocks)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(_BLOCK), b""):
            digest.update(block)
    return digest.hexdigest()


def http_fetch(url: str, path: Path, *, progress: bool = True, timeout: float = 60) -> None:
    """The default :data:`Fetch`: ``url`` into ``path`` with urllib, resuming what it holds.

    Where ``path`` holds bytes already, a ``Range`` request asks for the rest; a server
    that ignores it (status 200) sends the whole file, which replaces them. A tqdm bar
    shows the transfer, with the size when the server gives ``Content-Length``.

    Raises
    ------
    DownloadError
        If the connection ends before ``Content-Length`` bytes arrived (the bytes stay in
        ``path`` for the next call to resume after).
    urllib.error.URLError
        For an HTTP error or no connection (:func:`download` names the URL and file).
    """
    from tqdm.auto import tqdm

    have = path.stat().st_size if path.exists() else 0
    request = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as err:
        if err.code != 416 or not have:
            raise
        # Nothing to send after ``have`` bytes: complete if the server's length says so.
        length = (err.headers.get("Content-Range") or "").rpartition("/")[2]
        err.close()
        if length.isdigit() and int(length) == have:
            return
        path.unlink()  # more bytes than the file has: start again
        return http_fetch(url, path, progress=progress, timeout=timeout)
    with response:
        if have and response.status != 206:  # the server ignored Range: start again
            have = 0
        length = response.headers.get("Content-Length")
        total = have + int(length) if length and length.isdigit() else None
        name = path.name.removesuffix(".part").removeprefix(".")
        with path.open("ab" if have else "wb") as out, tqdm(
                total=total, initial=have, unit="B", unit_scale=True, desc=name,
                disable=not progress) as bar:
            for block in iter(lambda: response.read(_BLOCK), b""):
                out.write(block)
                bar.update(len(block))
    got = path.stat().st_size
    if total is not None and got != total:
        raise DownloadError(url, path, f"the connection ended after {got} of {total} bytes")


def _mismatch(path: Path, size: int | None, sha256: str | None) -> str | None:
    """What is wrong with ``path`` against ``size`` and ``sha256`` (size first: cheap), or None."""
    got = path.stat().st_size
    if size is not None and got != size:
        return f"{got} bytes, {size} expected"
    if sha256 is not None:
        digest = sha256_of(path)
        if digest != sha256.lower():
            return f"SHA-256 {digest}, {sha256} expected"
    return None


def download(url: str, dest: str | os.PathLike[str], *, size: int | None = None,
             sha256: str | None = None, fetch: Fetch | None = None, what: str = "",
             progress: bool = True) -> Path:
    """The file at ``url`` as ``dest``, downloaded if it is not there, whole and verified.

    A file already at ``dest`` is returned without fetching when it has ``size`` bytes
    and the SHA-256 ``sha256`` (each checked only where given; a SHA-256 means reading the
    file). One that differs is stale (a file changed on disk, an older release): it is
    fetched again, and replaced only once the new bytes are verified (logged as a
    warning). Otherwise the bytes go to ``.<name>.part`` beside ``dest``, are checked, and
    the ``.part`` file is renamed onto ``dest``.

    Parameters
    ----------
    url
        Where the file is.
    dest
        The local file (its folder is created).
    size, sha256
        The expected size in bytes and hex SHA-256, where published (the caller's registry).
    fetch
        ``fetch(url, path)`` (:data:`Fetch`); default :func:`http_fetch` with its progress
        bar and ``Range`` resume. A given fetch is called even when downloads are off.
    what
        The file's name in messages (default ``dest``'s name).
    progress
        Show the default fetch's progress bar.

    Returns
    -------
    pathlib.Path
        ``dest``.

    Raises
    ------
    DownloadError
        When downloads are off and the file is missing (before any connection), when the
        fetch fails with an :class:`OSError` (HTTP error, connection lost, disk full),
        writes nothing, or brings a wrong size or SHA-256. The ``.part`` file is deleted,
        except after an interrupted transfer of the default fetch, which the next call
        resumes. Any other error of the fetch deletes it and propagates as it is. In
        every case ``dest`` is as it was before the call.

    Examples
    --------
    A local fetch standing in for the network (as the tests use it):

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> path = download("https://example.org/a.txt", folder / "a.txt", size=5,
    ...                 fetch=lambda url, part: part.write_bytes(b"hello"))
    >>> path.read_bytes(), sorted(p.name for p in folder.iterdir())
    (b'hello', ['a.txt'])
    """
    dest = Path(dest)
    stale = _mismatch(dest, size, sha256) if dest.is_file() else ""
    if stale is None:
        return dest
    if stale:
        logger.warning("%s: %s; fetching it again from %s", dest, stale, url)
    resumable = fetch is None  # http_fetch resumes a .part; of another fetch nothing is known
    if fetch is None:
        setting = offline_setting()
        if setting is not None:
            there = f"the file there is stale ({stale}); " if stale else ""
            raise DownloadError(url, dest, f"{there}not downloaded: downloads are off "
                                f"({setting}); unset it to download, or put the file there", what)
        fetch = functools.partial(http_fetch, progress=progress)
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(f".{dest.name}.part")
    logger.info("downloading %s to %s", url, dest)
    try:
        fetch(url, part)
    except BaseException as err:
        # An interrupted HTTP transfer (connection lost, timeout, cut short, Ctrl-C) keeps
        # its bytes for the next call to resume after; anything else leaves nothing.
        if not (resumable and isinstance(err, OSError | KeyboardInterrupt)):
            part.unlink(missing_ok=True)
        if not isinstance(err, OSError):
            raise
        reason = err.reason if isinstance(err, DownloadError) else f"{type(err).__name__}: {err}"
        kept = (f"; the {part.stat().st_size} bytes fetched are kept in {part.name} and the "
                "next call resumes after them" if part.is_file() else "")
        raise DownloadError(url, dest, f"{reason}{kept}", what) from err
    if not part.is_file():
        raise DownloadError(url, dest, "the fetch wrote nothing", what)
    problem = _mismatch(part, size, sha256)
    if problem is not None:
        part.unlink()
        raise DownloadError(url, dest, f"{problem}; the download was deleted", what)
    with open(part, "rb") as fh:  # on disk before the rename (ext4 delayed allocation)
        os.fsync(fh.fileno())
    os.replace(part, dest)
    return dest

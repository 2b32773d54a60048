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
* a ``.part`` file is resumed only when the resumed file can be shown to be the same
  file: the server's validators from the first attempt (a strong ``ETag`` or
  ``Last-Modified``, and ``Content-Length``) are kept in a sidecar
  ``.<name>.part.validators.json`` and sent back as ``If-Range`` (RFC 9110 §13.1.5),
  so a server whose file changed sends the whole new file (200), which replaces the
  old bytes; without validators a part is resumed only when a SHA-256 will check the
  result, and otherwise the download starts over. Many callers have no published
  checksum (the Reddit months, ELMo, InferSent and GenSen), and for them appending
  the rest of a changed file to the start of the old one would give a spliced file
  that nothing detects;
* downloads are off when ``BIASLIB_OFFLINE`` or ``HF_HUB_OFFLINE`` is set (read as
  ``huggingface_hub`` reads its own: ``1``, ``ON``, ``YES``, ``TRUE``): the tests and
  the book's build run so, and a missing file is then refused at once, naming the URL
  and the setting, before any connection is opened.

The fetch is injectable (``fetch=``, the one :data:`Fetch` signature): tests serve local
bytes with it, and it is the caller's explicit choice, so it is called even offline.
"""

from __future__ import annotations

import email.utils
import functools
import hashlib
import json
import logging
import os
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from email.message import Message
from pathlib import Path
from typing import TypedDict

from biaslib.errors import DownloadError
from biaslib.files import write_text_atomically

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

#: How far a ``Last-Modified`` must lie before the response's ``Date`` to serve as a
#: strong validator (RFC 9110 §8.8.2.2: enough that a clock difference between the
#: server that set the date and the one that answered cannot hide a second change).
_LAST_MODIFIED_MARGIN_S = 60

_CONTENT_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)\s*$")


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


class _Validators(TypedDict):
    """What the first response said about the file a ``.part`` holds the start of."""

    url: str
    etag: str | None  # a strong ETag, or None
    last_modified: str | None  # a Last-Modified strong by RFC 9110 §8.8.2.2, or None
    length: int | None  # the whole file's Content-Length, where given


def _sidecar(part: Path) -> Path:
    """Where the validators of ``part``'s file are kept: ``.<name>.part.validators.json``."""
    return part.with_name(f"{part.name}.validators.json")


def _discard(part: Path) -> None:
    """Delete ``part`` and its validators (the sidecar first: never a sidecar for other bytes)."""
    _sidecar(part).unlink(missing_ok=True)
    part.unlink(missing_ok=True)


def _strong_validators(url: str, headers: Message) -> _Validators | None:
    """The strong validators of a 200 response, or None where it has none.

    A weak ETag (``W/"…"``) may stay the same when the bytes change, so it is not used
    (RFC 9110 §13.1.5 forbids it in ``If-Range``); a ``Last-Modified`` is used only where
    the response's ``Date`` lies :data:`_LAST_MODIFIED_MARGIN_S` after it, since a file
    changed twice within its one-second resolution would keep the same date.
    """
    etag = (headers.get("ETag") or "").strip()
    if not (len(etag) >= 2 and etag.startswith('"') and etag.endswith('"')):
        etag = ""  # weak (W/"…") or malformed
    modified = (headers.get("Last-Modified") or "").strip()
    try:
        then = email.utils.parsedate_to_datetime(modified)
        now = email.utils.parsedate_to_datetime(headers.get("Date") or "")
        strong = (now - then).total_seconds() >= _LAST_MODIFIED_MARGIN_S
    except (TypeError, ValueError, IndexError):  # missing or unparsable dates
        strong = False
    if not strong:
        modified = ""
    if not (etag or modified):
        return None
    length = (headers.get("Content-Length") or "").strip()
    return {"url": url, "etag": etag or None, "last_modified": modified or None,
            "length": int(length) if length.isdigit() else None}


def _read_validators(part: Path, url: str) -> _Validators | None:
    """The validators kept beside ``part`` for ``url``, or None.

    None where the sidecar is missing or unreadable, is for another URL (a registry
    changed), or holds no strong validator.
    """
    try:
        kept = json.loads(_sidecar(part).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(kept, dict) or kept.get("url") != url:
        return None
    etag, modified, length = kept.get("etag"), kept.get("last_modified"), kept.get("length")
    if not (isinstance(etag, str) or isinstance(modified, str)):
        return None
    return {"url": url, "etag": etag if isinstance(etag, str) else None,
            "last_modified": modified if isinstance(modified, str) else None,
            "length": length if isinstance(length, int) and length >= 0 else None}


def _content_range(headers: Message) -> tuple[int, int | None] | None:
    """``(first byte, whole length or None for *)`` of a ``Content-Range``, or None."""
    found = _CONTENT_RANGE.match((headers.get("Content-Range") or "").strip())
    if found is None:
        return None
    return int(found[1]), None if found[3] == "*" else int(found[3])


def _unsatisfied_total(headers: Message) -> int | None:
    """The whole length of a 416 answer's ``Content-Range: bytes */<length>``, or None."""
    length = (headers.get("Content-Range") or "").rpartition("/")[2].strip()
    return int(length) if length.isdigit() else None


def _continues(response: Message, status: int, have: int, kept: _Validators | None) -> bool:
    """Whether a response to ``Range: bytes=<have>-`` sends the rest of the same file.

    Only a 206 whose ``Content-Range`` starts at ``have`` can; a server honouring
    ``If-Range`` (as RFC 9110 requires of one that honours ``Range``) has also checked
    the validator; the whole length and any ``ETag`` it sends are checked again here,
    against a server that ignores ``If-Range`` while honouring ``Range``.
    """
    if status != 206:
        return False
    sent = _content_range(response)
    if sent is None or sent[0] != have:
        return False
    if kept is None:
        return True  # resumed without validators: the caller's SHA-256 checks the result
    if kept["length"] is not None and sent[1] is not None and sent[1] != kept["length"]:
        return False
    etag = (response.get("ETag") or "").strip()
    return not (kept["etag"] and etag and etag != kept["etag"])


def http_fetch(url: str, path: Path, *, progress: bool = True, timeout: float = 60,
               checksum_follows: bool = False) -> None:
    """The default :data:`Fetch`: ``url`` into ``path`` with urllib, resuming only the same file.

    Bytes already in ``path`` are resumed after only where they can be shown to be the
    start of the file the server has now.

    A fresh transfer keeps the response's strong validators (ETag; Last-Modified;
    Content-Length) in a sidecar beside ``path`` (``<path name>.validators.json``,
    written atomically, before any byte). Where ``path`` holds bytes already:

    * with a sidecar for ``url``, a ``Range`` request asks for the rest, with
      ``If-Range`` naming the kept validator (the ETag, else the date). The server sends
      the rest (206) only if its file still matches, and else the whole file (200), which
      replaces the bytes instead of being appended to them (RFC 9110 §13.1.5). A 206 is
      checked once more (its first byte, whole length and ETag), and a server that
      ignores ``Range`` (200) also sends the whole file;
    * without a sidecar (a part from an older version of this function, a server that
      gave no strong validator, a sidecar for another URL), the bytes cannot be shown to
      belong to the file the server has now, so the transfer starts over; unless
      ``checksum_follows``, where a plain ``Range`` request resumes after them and the
      caller's SHA-256 refuses a spliced result;
    * bytes beyond the file's length kept in the sidecar also mean starting over.

    A tqdm bar shows the transfer, with the size when the server gives ``Content-Length``.

    Parameters
    ----------
    url, path
        The :data:`Fetch` arguments.
    progress
        Show the progress bar.
    timeout
        Seconds to wait for the connection and for each read.
    checksum_follows
        The caller checks the finished file against a published SHA-256
        (:func:`download` sets it where ``sha256`` is given), so bytes without validators
        may be resumed: a changed file then fails that check instead of passing unseen.

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
    kept = _read_validators(path, url) if have else None
    if have and ((kept is None and not checksum_follows)
                 or (kept is not None and kept["length"] is not None and have > kept["length"])):
        logger.info("%s: %d bytes that cannot be shown to belong to the file at %s now; "
                    "starting over", path, have, url)
        _discard(path)
        have = 0
    headers = {}
    if have:
        headers["Range"] = f"bytes={have}-"
        if kept is not None:
            headers["If-Range"] = str(kept["etag"] or kept["last_modified"])
    try:
        response = urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                          timeout=timeout)
    except urllib.error.HTTPError as err:
        if err.code != 416 or not have:
            raise
        # Nothing to send after ``have`` bytes: complete if the server's length says so
        # (and, with If-Range, the validator matched: else it would have sent 200).
        total = _unsatisfied_total(err.headers)
        err.close()
        if total == have and (kept is None or kept["length"] in (None, have)):
            return
        _discard(path)  # more bytes than the file has: start again
        return http_fetch(url, path, progress=progress, timeout=timeout)
    with response:
        if have and not _continues(response.headers, response.status, have, kept):
            if response.status != 200:  # a 206 not for our bytes: ask again for all
                response.close()
                _discard(path)
                return http_fetch(url, path, progress=progress, timeout=timeout)
            have = 0  # the whole (possibly new) file: it replaces the bytes
        sent = _content_range(response.headers) if have else None
        length = response.headers.get("Content-Length")
        total = (sent[1] if sent is not None and sent[1] is not None
                 else have + int(length) if length and length.isdigit() else None)
        name = path.name.removesuffix(".part").removeprefix(".")
        if not have:
            _sidecar(path).unlink(missing_ok=True)  # no sidecar describes other bytes
        with path.open("ab" if have else "wb") as out, tqdm(
                total=total, initial=have, unit="B", unit_scale=True, desc=name,
                disable=not progress) as bar:
            if not have:  # the part is empty now: its sidecar describes what follows
                validators = _strong_validators(url, response.headers)
                if validators is not None:
                    write_text_atomically(_sidecar(path), json.dumps(validators) + "\n")
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

    A ``.part`` file left by an interrupted call is resumed only where the result can be
    shown to be one file, not the start of an old file spliced onto the end of a new
    one (the server's file may change between the two calls):

    * the default fetch (:func:`http_fetch`) resumes it where the first attempt kept the
      server's strong validators (ETag or Last-Modified, beside the part in
      ``.<name>.part.validators.json``) and the server confirms them (``If-Range``); a
      server whose file changed sends the whole new file, which replaces the part;
    * without validators it is resumed only when ``sha256`` is given, since that check
      of the finished file refuses a spliced one (``size`` alone does not: a changed
      file can have the same size); otherwise the download starts over;
    * a part larger than ``size`` is not the start of that file: it is deleted first;
    * a given ``fetch`` receives the part as it is (:data:`Fetch`: it may resume or
      overwrite it).

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
        except after an interrupted transfer of the default fetch that the next call can
        resume (validators kept, or ``sha256`` given). Any other error of the fetch
        deletes it and propagates as it is. In every case ``dest`` is as it was before
        the call.

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
        # Looked up at call time, so that tests can replace the module's http_fetch.
        fetch = functools.partial(http_fetch, progress=progress,
                                  checksum_follows=sha256 is not None)
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(f".{dest.name}.part")
    if size is not None and part.is_file() and part.stat().st_size > size:
        logger.info("%s: %d bytes, more than the %d expected; starting over", part,
                    part.stat().st_size, size)
        _discard(part)
    logger.info("downloading %s to %s", url, dest)
    try:
        fetch(url, part)
    except BaseException as err:
        # An interrupted HTTP transfer (connection lost, timeout, cut short, Ctrl-C) keeps
        # its bytes for the next call to resume after, where it can show they belong to
        # the file it resumes (validators kept, or a SHA-256 to check the result); anything
        # else leaves nothing.
        if not (resumable and isinstance(err, OSError | KeyboardInterrupt) and part.is_file()
                and (sha256 is not None or _read_validators(part, url) is not None)):
            _discard(part)
        if not isinstance(err, OSError):
            raise
        reason = err.reason if isinstance(err, DownloadError) else f"{type(err).__name__}: {err}"
        kept = (f"; the {part.stat().st_size} bytes fetched are kept in {part.name} and the "
                "next call resumes after them" if part.is_file() else "")
        raise DownloadError(url, dest, f"{reason}{kept}", what) from err
    if not part.is_file():
        _sidecar(part).unlink(missing_ok=True)
        raise DownloadError(url, dest, "the fetch wrote nothing", what)
    problem = _mismatch(part, size, sha256)
    if problem is not None:
        _discard(part)
        raise DownloadError(url, dest, f"{problem}; the download was deleted", what)
    with open(part, "rb") as fh:  # on disk before the rename (ext4 delayed allocation)
        os.fsync(fh.fileno())
    os.replace(part, dest)
    _sidecar(part).unlink(missing_ok=True)
    return dest

"""A disk cache for embedding vectors, keyed by everything that changes them.

Re-running a chapter must not embed anything twice. Each cached array is
stored under a SHA-256 key of a JSON record holding the model's weights
fingerprint, every encoder option (layer, pooling, special tokens, casing…)
and the exact input (text and character span). Change any of them and the key
changes, so a stale vector can never be returned.

Storage is one SQLite file (standard library): writes happen in transactions,
so a crash never leaves a half-written entry, and concurrent readers are safe.
Encoders write each batch as soon as it is computed, so an interrupted run
resumes where it stopped.

The cache only saves time, so faults never change a result:

* a file SQLite cannot use (corrupt, truncated, locked…) raises
  :class:`CacheError`, naming the file and how to recover (delete it, or pass
  ``cache=False`` to the encoder);
* a cache that is not writable (file or folder) is opened read-only: it serves
  what it holds, and skipped writes are announced once with a
  :class:`CacheWarning`;
* every array read is checked (size against its shape, finite values); an
  invalid entry is treated as missing — recomputed and overwritten — with a
  :class:`CacheWarning` naming the file, never returned.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sqlite3
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from biaslib.downloads import cache_folder
from biaslib.errors import CacheError, CacheWarning

__all__ = ["VectorCache", "cache_key", "default_cache_path", "open_cache"]

_SCHEMA = "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, shape TEXT, data BLOB)"
_BATCH = 500
_ITEMSIZE = np.dtype(np.float32).itemsize


def default_cache_path() -> Path:
    """``$BIASLIB_CACHE_DIR/vectors.sqlite``, else ``~/.cache/biaslib/vectors.sqlite``."""
    return cache_folder("vectors.sqlite")


def cache_key(config: Mapping[str, object], item: object) -> str:
    """SHA-256 of the canonical JSON of an encoder configuration and one input item."""
    record = json.dumps({"config": config, "item": item}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(record.encode("utf-8")).hexdigest()


def _decode(shape: object, data: object) -> NDArray[np.float32] | str:
    """The stored array, or why the entry is invalid."""
    try:
        dims = tuple(json.loads(shape))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return f"shape {shape!r} is not a list of sizes"
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in dims):
        return f"shape {shape!r} is not a list of sizes"
    if not isinstance(data, bytes):
        return f"data of type {type(data).__name__} instead of bytes"
    expected = math.prod(dims) * _ITEMSIZE
    if len(data) != expected:
        return f"{len(data)} bytes for shape {list(dims)} ({expected} expected)"
    arr = np.frombuffer(data, dtype=np.float32).reshape(dims).copy()
    if not np.isfinite(arr).all():
        return f"NaN or infinite values (shape {list(dims)})"
    return arr


class VectorCache:
    """Arrays stored by key in a SQLite file (float32, any shape).

    Parameters
    ----------
    path
        The SQLite file; default :func:`default_cache_path`. Its folder is
        created if need be.
    read_only
        ``True``: only read the file (it need not exist: then nothing is
        cached), and skip writes with one :class:`CacheWarning`. ``False``:
        read and write. ``None`` (default): read-only exactly when the file or
        its folder is not writable.

    Raises
    ------
    CacheError
        If SQLite cannot use the file (not a database, truncated, malformed,
        unreadable); the message names the file and how to recover.
    """

    def __init__(
        self, path: str | os.PathLike[str] | None = None, *, read_only: bool | None = None
    ) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self.read_only = (not self._writable()) if read_only is None else bool(read_only)
        self._warned_read_only = False
        if not self.read_only:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise CacheError(self._message(f"cannot create its folder ({err})")) from err
        with self._connect() as con:
            if con is not None and not self.read_only:
                con.execute(_SCHEMA)

    def __repr__(self) -> str:
        mode = ", read-only" if self.read_only else ""
        return f"VectorCache({str(self.path)!r}{mode})"

    # ------------------------------------------------------------------ connections

    def _writable(self) -> bool:
        """Whether the file (or, if absent, the folder that would hold it) can be written."""
        if self.path.exists():
            folder = self.path.parent
            # SQLite writes its journal (-wal, -shm) beside the file.
            return os.access(self.path, os.W_OK) and os.access(folder, os.W_OK | os.X_OK)
        folder = self.path.parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        return os.access(folder, os.W_OK | os.X_OK)

    def _message(self, problem: str) -> str:
        return (
            f"vector cache {str(self.path)!r}: {problem}. It holds only cached vectors: delete "
            "the file to start afresh (vectors are recomputed), point BIASLIB_CACHE_DIR "
            "elsewhere, or pass cache=False to the encoder"
        )

    def _diagnosis(self) -> str:
        """What is wrong with a file SQLite reports as corrupt, as far as its header tells."""
        try:
            size = self.path.stat().st_size
            with self.path.open("rb") as fh:
                head = fh.read(100)
        except OSError:
            return "the file is corrupt"
        if len(head) < 100 or not head.startswith(b"SQLite format 3\x00"):
            return f"the file ({size} bytes) is not an SQLite database (corrupt?)"
        page_size = int.from_bytes(head[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        pages = int.from_bytes(head[28:32], "big")
        if head[24:28] == head[92:96] and size < pages * page_size:
            return (f"the file is truncated ({size} bytes, its header says "
                    f"{pages * page_size})")
        return "the file is corrupt"

    def _error(self, err: sqlite3.Error) -> CacheError:
        if isinstance(err, sqlite3.OperationalError | sqlite3.ProgrammingError):
            problem = f"SQLite cannot use it ({err})"
        else:
            problem = f"{self._diagnosis()} (SQLite: {err})"
        return CacheError(self._message(problem))

    def _open(self) -> sqlite3.Connection | None:
        """A connection to the file; ``None`` when read-only and there is no file."""
        if not self.read_only:
            con = sqlite3.connect(self.path, timeout=60)
            try:
                con.execute("PRAGMA journal_mode=WAL")
            except BaseException:
                con.close()
                raise
            return con
        if not self.path.exists():
            return None
        uri = self.path.resolve().as_uri()
        con = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=60)
        try:
            con.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return con
        except sqlite3.OperationalError as err:
            con.close()
            if "readonly" not in str(err) and "unable to open" not in str(err):
                raise
            # A WAL-mode file in a read-only folder: SQLite cannot create the shared-memory
            # index beside it. Read the file as it stands instead.
        except BaseException:
            con.close()
            raise
        return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection | None]:
        """One transaction (committed together or rolled back) on a connection then closed.

        Yields ``None`` for a read-only cache without a file. SQLite errors
        become a :class:`CacheError` naming the file.
        """
        try:
            con = self._open()
        except sqlite3.Error as err:
            raise self._error(err) from err
        if con is None:
            yield None
            return
        try:
            with con:  # one transaction
                yield con
        except sqlite3.Error as err:
            raise self._error(err) from err
        finally:
            con.close()

    @staticmethod
    def _has_table(con: sqlite3.Connection) -> bool:
        query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vectors'"
        return con.execute(query).fetchone() is not None

    # ------------------------------------------------------------------ public API

    def get_many(self, keys: Sequence[str]) -> dict[str, NDArray[np.float32]]:
        """The cached arrays among ``keys`` (missing keys are simply absent).

        Every array is checked: its data must fill its shape exactly and be
        finite. An invalid entry is left out (so the caller recomputes and
        overwrites it), with a :class:`CacheWarning` naming the file.

        Raises
        ------
        CacheError
            If SQLite cannot read the file.
        """
        found: dict[str, NDArray[np.float32]] = {}
        invalid: dict[str, str] = {}
        with self._connect() as con:
            if con is None or (self.read_only and not self._has_table(con)):
                return found
            for start in range(0, len(keys), _BATCH):
                chunk = list(keys[start : start + _BATCH])
                marks = ",".join("?" * len(chunk))
                rows = con.execute(
                    f"SELECT key, shape, data FROM vectors WHERE key IN ({marks})", chunk
                )
                for key, shape, data in rows:
                    arr = _decode(shape, data)
                    if isinstance(arr, str):
                        invalid[key] = arr
                    else:
                        found[key] = arr
        if invalid:
            key, why = next(iter(invalid.items()))
            warnings.warn(
                f"vector cache {str(self.path)!r}: {len(invalid)} invalid "
                f"entr{'y' if len(invalid) == 1 else 'ies'} ignored and recomputed "
                f"(e.g. {key[:12]}…: {why}); if this recurs, delete the file",
                CacheWarning, stacklevel=2,
            )
        return found

    def put_many(self, items: Iterable[tuple[str, NDArray[np.floating]]]) -> None:
        """Store arrays in one transaction (all or nothing).

        Arrays holding NaN or infinite values are not stored (a
        :class:`CacheWarning` says so). A read-only cache stores nothing and
        says so with one :class:`CacheWarning`.

        Raises
        ------
        CacheError
            If SQLite cannot write the file (other than for lack of permission,
            which makes the cache read-only with a warning).
        """
        rows, skipped = [], []
        for key, arr in items:
            data = np.ascontiguousarray(arr, np.float32)
            if np.isfinite(data).all():
                rows.append((key, json.dumps(list(np.shape(arr))), data.tobytes()))
            else:
                skipped.append(key)
        if skipped:
            warnings.warn(
                f"vector cache {str(self.path)!r}: {len(skipped)} arrays with NaN or infinite "
                "values not stored", CacheWarning, stacklevel=2,
            )
        if not rows:
            return
        if not self.read_only:
            try:
                with self._connect() as con:
                    con.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)
                return
            except CacheError as err:
                if "readonly" not in str(err.__cause__):
                    raise
                self.read_only = True
        self._warn_read_only()

    def _warn_read_only(self) -> None:
        if not self._warned_read_only:
            self._warned_read_only = True
            warnings.warn(
                f"vector cache {str(self.path)!r} is read-only: vectors computed now will not "
                "be cached (make the file and its folder writable, set BIASLIB_CACHE_DIR to a "
                "writable folder, or pass cache=False to the encoder)",
                CacheWarning, stacklevel=3,
            )

    def __len__(self) -> int:
        with self._connect() as con:
            if con is None or (self.read_only and not self._has_table(con)):
                return 0
            return int(con.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])

    def clear(self) -> None:
        """Remove every cached array.

        Raises
        ------
        CacheError
            If the cache is read-only or SQLite cannot write the file.
        """
        if self.read_only:
            raise CacheError(self._message("it is read-only, so it cannot be cleared"))
        with self._connect() as con:
            con.execute("DELETE FROM vectors")


def open_cache(cache: bool | str | os.PathLike[str] | VectorCache | None) -> VectorCache | None:
    """The vector cache an encoder's ``cache`` argument asks for.

    ``True``: the default file (:func:`default_cache_path`); ``False`` or
    ``None``: no cache; a :class:`VectorCache`: that one; a path: a cache in
    that file.
    """
    if cache is True:
        return VectorCache()
    if cache is False or cache is None:
        return None
    if isinstance(cache, VectorCache):
        return cache
    return VectorCache(cache)

"""A disk cache for embedding vectors, keyed by everything that changes them.

Re-running a chapter must not embed anything twice. Each cached array is
stored under a SHA-256 key of a JSON record holding the model's weights
fingerprint, every encoder option (layer, pooling, special tokens, casing…)
and the exact input (text and character span). Change any of them and the key
changes, so a stale vector can never be returned.

Storage is one SQLite file (standard library): writes happen in transactions,
so a crash never leaves a half-written entry, and concurrent readers are safe.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

__all__ = ["VectorCache", "cache_key", "default_cache_path"]

_SCHEMA = "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, shape TEXT, data BLOB)"
_BATCH = 500


def default_cache_path() -> Path:
    """``$BIASLIB_CACHE_DIR/vectors.sqlite``, else ``~/.cache/biaslib/vectors.sqlite``."""
    root = os.environ.get("BIASLIB_CACHE_DIR") or Path.home() / ".cache" / "biaslib"
    return Path(root) / "vectors.sqlite"


def cache_key(config: Mapping[str, object], item: object) -> str:
    """SHA-256 of the canonical JSON of an encoder configuration and one input item."""
    record = json.dumps({"config": config, "item": item}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(record.encode("utf-8")).hexdigest()


class VectorCache:
    """Arrays stored by key in a SQLite file (float32, any shape)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as con:
            con.execute(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection whose statements commit together (or roll back) and that is closed."""
        con = sqlite3.connect(self.path, timeout=60)
        try:
            con.execute("PRAGMA journal_mode=WAL")
            with con:  # one transaction
                yield con
        finally:
            con.close()

    def get_many(self, keys: Sequence[str]) -> dict[str, NDArray[np.float32]]:
        """The cached arrays among ``keys`` (missing keys are simply absent)."""
        found: dict[str, NDArray[np.float32]] = {}
        with self._connect() as con:
            for start in range(0, len(keys), _BATCH):
                chunk = list(keys[start : start + _BATCH])
                marks = ",".join("?" * len(chunk))
                rows = con.execute(
                    f"SELECT key, shape, data FROM vectors WHERE key IN ({marks})", chunk
                )
                for key, shape, data in rows:
                    dims = tuple(json.loads(shape))
                    found[key] = np.frombuffer(data, dtype=np.float32).reshape(dims).copy()
        return found

    def put_many(self, items: Iterable[tuple[str, NDArray[np.floating]]]) -> None:
        """Store arrays in one transaction (all or nothing)."""
        rows = [
            (key, json.dumps(list(arr.shape)), np.ascontiguousarray(arr, np.float32).tobytes())
            for key, arr in items
        ]
        with self._connect() as con:
            con.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)

    def __len__(self) -> int:
        with self._connect() as con:
            return int(con.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])

    def clear(self) -> None:
        """Remove every cached array."""
        with self._connect() as con:
            con.execute("DELETE FROM vectors")

"""The vector cache under faults: corrupt, truncated, read-only files and invalid entries.

The cache only saves time, so no fault may change a result: a file SQLite
cannot use is a :class:`CacheError` naming the file and how to recover; a
read-only cache serves reads and says once that it stores nothing; an invalid
entry (too short for its shape, NaN) is recomputed, never returned.
"""

import json
import os
import sqlite3
import warnings

import numpy as np
import pytest

from biaslib.embeddings import cache as cache_module
from biaslib.embeddings.cache import VectorCache, cache_key
from biaslib.errors import CacheError, CacheWarning

MINILM = "all-MiniLM-L6-v2"
RECOVERY = r"delete the file.*cache=False"


def filled(path, n=3, dim=4):
    cache = VectorCache(path)
    cache.put_many((f"k{i}", np.full(dim, i, np.float32)) for i in range(n))
    return cache


def store_raw(path, key, shape, data):
    """Write a row behind the cache's back, as a bug, a crash or another tool could."""
    con = sqlite3.connect(path)
    with con:
        con.execute("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", (key, shape, data))
    con.close()


@pytest.fixture
def no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def test_cache_key_format_is_unchanged():
    # The stored caches of every reader depend on this exact record and hash.
    key = cache_key({"model": "m", "layer": [1, -1], "kind": "word"},
                    ["Ein Satz über Tulpen.", 3, 7])
    assert key == "810692e65af3950b913f29daeaed40977c96f783a7228a41ffc8b43d68582d93"


def test_round_trip_and_storage_format(tmp_path, no_warnings):
    path = tmp_path / "v.sqlite"
    cache = filled(path)
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    cache.put_many([("m", arr)])
    got = cache.get_many(["k0", "k2", "m", "absent"])
    assert sorted(got) == ["k0", "k2", "m"]
    np.testing.assert_array_equal(got["m"], arr)
    # Rows as earlier versions wrote them: JSON shape, raw float32 bytes.
    con = sqlite3.connect(path)
    shape, data = con.execute("SELECT shape, data FROM vectors WHERE key = 'm'").fetchone()
    con.close()
    assert json.loads(shape) == [2, 3] and data == arr.tobytes()
    assert len(cache) == 4


class TestUnusableFile:
    def test_corrupt_file(self, tmp_path):
        path = tmp_path / "v.sqlite"
        path.write_bytes(np.random.default_rng(0).bytes(50_000))
        with pytest.raises(CacheError, match=RECOVERY) as info:
            VectorCache(path)
        assert str(path) in str(info.value) and "not an SQLite database" in str(info.value)
        assert isinstance(info.value.__cause__, sqlite3.DatabaseError)

    def test_corrupt_file_stops_the_encoder_with_the_same_error(self, tmp_path):
        from biaslib.embeddings.transformer import TransformerEncoder

        path = tmp_path / "v.sqlite"
        path.write_bytes(b"\x00not a database" * 1000)
        with pytest.raises(CacheError, match=RECOVERY):
            TransformerEncoder(MINILM, cache=str(path), progress=False)

    def test_truncated_file(self, tmp_path):
        path = tmp_path / "v.sqlite"
        filled(path, n=2000, dim=384)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
        with pytest.raises(CacheError, match=RECOVERY) as info:
            VectorCache(path).get_many([f"k{i}" for i in range(2000)])
        assert str(path) in str(info.value) and "truncated" in str(info.value)


class TestReadOnly:
    def test_serves_reads_and_warns_once_on_writes(self, tmp_path):
        path = tmp_path / "v.sqlite"
        filled(path)
        before = path.read_bytes()
        cache = VectorCache(path, read_only=True)
        assert cache.read_only
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            np.testing.assert_array_equal(cache.get_many(["k1"])["k1"], np.ones(4))
            assert len(cache) == 3
        with pytest.warns(CacheWarning, match="will not be cached") as record:
            cache.put_many([("new", np.ones(4, np.float32))])
            cache.put_many([("newer", np.ones(4, np.float32))])
        assert len(record) == 1 and str(path) in str(record[0].message)
        assert cache.get_many(["new", "newer"]) == {}
        assert path.read_bytes() == before
        with pytest.raises(CacheError, match="read-only"):
            cache.clear()

    def test_unwritable_file_or_folder_is_opened_read_only(self, tmp_path, monkeypatch):
        path = tmp_path / "v.sqlite"
        filled(path)
        real_access = os.access
        for unwritable in (path, tmp_path):
            monkeypatch.setattr(
                cache_module.os, "access",
                lambda p, mode, u=unwritable: False if (mode & os.W_OK and str(p) == str(u))
                else real_access(p, mode),
            )
            cache = VectorCache(path)
            assert cache.read_only
            assert sorted(cache.get_many(["k0", "k2"])) == ["k0", "k2"]

    def test_chmod_read_only_file_and_folder(self, tmp_path):
        folder = tmp_path / "cache"
        filled(folder / "v.sqlite")
        (folder / "v.sqlite").chmod(0o444)
        folder.chmod(0o555)
        try:
            if os.access(folder / "v.sqlite", os.W_OK):
                pytest.skip("running as root: file permissions do not stop writes "
                            "(read-only mode is tested through read_only=True)")
            cache = VectorCache(folder / "v.sqlite")
            assert cache.read_only and len(cache) == 3
            with pytest.warns(CacheWarning, match="will not be cached"):
                cache.put_many([("new", np.ones(4, np.float32))])
        finally:
            folder.chmod(0o755)
            (folder / "v.sqlite").chmod(0o644)

    def test_read_only_without_a_file_is_empty(self, tmp_path):
        cache = VectorCache(tmp_path / "absent" / "v.sqlite", read_only=True)
        assert len(cache) == 0 and cache.get_many(["k"]) == {}
        assert not (tmp_path / "absent").exists()
        with pytest.warns(CacheWarning, match="will not be cached"):
            cache.put_many([("k", np.ones(2, np.float32))])

    def test_encoder_reads_a_read_only_cache_without_running_the_model(self, tmp_path,
                                                                        monkeypatch):
        from biaslib.embeddings.transformer import TransformerEncoder

        path = tmp_path / "v.sqlite"
        texts = ["This is a tulip.", "These are ants."]
        first = TransformerEncoder(MINILM, cache=VectorCache(path), progress=False) \
            .encode_sentences(texts, "mean")
        enc = TransformerEncoder(MINILM, cache=VectorCache(path, read_only=True), progress=False)
        monkeypatch.setattr(enc, "_hidden", lambda *_: pytest.fail("model ran on a cache hit"))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            np.testing.assert_array_equal(enc.encode_sentences(texts, "mean"), first)
        monkeypatch.undo()
        with pytest.warns(CacheWarning, match="read-only"):
            enc.encode_sentences(["A new sentence."], "mean")


class TestInvalidEntries:
    @pytest.mark.parametrize(
        ("shape", "data", "why"),
        [
            ("[4]", np.ones(3, np.float32).tobytes(), "12 bytes for shape"),          # short
            ("[4]", np.ones(5, np.float32).tobytes(), "20 bytes for shape"),          # long
            ("[2, 2]", np.array([1, np.nan, 0, 1], np.float32).tobytes(), "NaN"),     # NaN
            ("[2]", np.array([np.inf, 0], np.float32).tobytes(), "infinite"),
            ("not json", np.ones(4, np.float32).tobytes(), "not a list of sizes"),
            ("[4]", "text", "instead of bytes"),
        ],
    )
    def test_invalid_entry_is_missing_with_a_warning(self, tmp_path, shape, data, why):
        path = tmp_path / "v.sqlite"
        cache = filled(path)
        store_raw(path, "k1", shape, data)
        with pytest.warns(CacheWarning, match=why) as record:
            got = cache.get_many(["k0", "k1", "k2"])
        assert sorted(got) == ["k0", "k2"]  # never returned
        assert str(path) in str(record[0].message)
        # Recomputed and overwritten: valid again.
        cache.put_many([("k1", np.ones(4, np.float32))])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            np.testing.assert_array_equal(cache.get_many(["k1"])["k1"], np.ones(4))

    def test_non_finite_arrays_are_not_stored(self, tmp_path):
        cache = VectorCache(tmp_path / "v.sqlite")
        with pytest.warns(CacheWarning, match="NaN or infinite values not stored"):
            cache.put_many([("bad", np.array([np.nan], np.float32)),
                            ("good", np.ones(1, np.float32))])
        assert len(cache) == 1

    def test_encoder_recomputes_and_overwrites_an_invalid_entry(self, tmp_path):
        from biaslib.embeddings.transformer import TransformerEncoder

        path = tmp_path / "v.sqlite"
        cache = VectorCache(path)
        enc = TransformerEncoder(MINILM, cache=cache, progress=False)
        texts = ["This is a tulip.", "These are ants."]
        first = enc.encode_sentences(texts, "mean")
        con = sqlite3.connect(path)
        key, shape, data = con.execute("SELECT key, shape, data FROM vectors").fetchone()
        con.close()
        nan = np.frombuffer(data, np.float32).copy()
        nan[5] = np.nan
        store_raw(path, key, shape, nan.tobytes())
        with pytest.warns(CacheWarning, match="invalid entry ignored and recomputed"):
            again = enc.encode_sentences(texts, "mean")
        np.testing.assert_allclose(again, first, atol=1e-5)
        assert np.isfinite(again).all()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert np.isfinite(cache.get_many([key])[key]).all()

"""The C6 vectors shipped with the book for CEAT's exercises (``biasbook.ceat``).

``data/vectors/ceat_c6_minilm.npz`` holds C6's MiniLM context vectors as float16 (written by
``scripts/write_c6_vectors.py``), its ``.json`` their provenance and SHA-256. Checked here:
what the shipped file holds and that the wheel carries it; the writer and loader on a fake
encoder (no corpus, no model: atomic, float16, checksummed); and, where the corpus extract
is present, that the writer reproduces the shipped vectors within float16 precision (about
20 s: C6's 3,200 sentences through MiniLM).
"""

from __future__ import annotations

import json
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from shared_paths import require_corpus

from biasbook import ceat as ceat_chapter
from biasbook.ceat import (
    C6_VECTORS_FILE,
    C6_VECTORS_PROVENANCE,
    c6_minilm_vectors,
    c6_vectors_provenance,
    check_c6_vectors,
    no_corpus_message,
    write_c6_minilm_vectors,
)
from biasbook.stored import load_results
from biaslib.embeddings.base import ContextEncoder
from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS, ceat
from biaslib.stats.sets import ROLES
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.data import data_dir, load_test

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- the shipped file


def test_the_shipped_vectors_are_c6_on_minilm_as_the_stored_tables_read_it():
    vectors = c6_minilm_vectors()
    meta = c6_vectors_provenance()
    c6 = load_test(meta["test"])
    assert meta["test"] == ceat_chapter.MYB_TABLE3["C6"]
    assert {role: list(words) for role, words in vectors.items()} == {
        role: list(c6.sets[role].words) for role in ROLES}
    for words in vectors.values():
        for vecs in words.values():
            assert vecs.dtype == np.float64 and vecs.shape == (100, 384)
            assert np.isfinite(vecs).all()
            assert (vecs.astype(np.float16).astype(np.float64) == vecs).all()
    # The extract, model and cap of the stored tables (the chapter's C6 row).
    stored = load_results("ceat_myb")[1]
    assert meta["extract"] == stored["extract"]
    assert meta["extract_sha256"] == stored["extract_sha256"]
    assert meta["model"] == {k: stored["models"]["all-MiniLM-L6-v2"][k]
                             for k in ("name", "weights")}
    assert meta["sentences_per_stimulus"] == ceat_chapter.OFFLINE_CAPS["all-MiniLM-L6-v2"]
    assert "nine-word window" in meta["window"] and meta["word_pooling"].startswith("mean")
    # Numbers only: about 2.5 MB, and no sentence of the corpus in the provenance.
    size = (data_dir() / C6_VECTORS_FILE).stat().st_size
    assert 2_000_000 < size < 3_000_000
    assert set(meta) >= {"sha256", "biaslib_version", "dtype", "words"}


def test_ceat_on_the_shipped_vectors_matches_the_stored_c6_row_roughly():
    # float16 vectors, 1,000 samples: near the stored CES of 10,000 float32 samples.
    result = ceat(c6_minilm_vectors(), convention=CEAT_MIND_YOUR_BIAS.replace(n_samples=1_000))
    rows = load_results("ceat_myb")[0].query(
        "test == 'C6' and column == 'all-MiniLM-L6-v2' and convention == 'mind-your-bias'")
    assert abs(result.ces - rows["effect_size"].item()) < 0.02


def test_the_wheel_carries_the_shipped_vectors():
    # pyproject's force-include maps data/vectors into the package data (data_dir()).
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    include = config["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    folder = Path(C6_VECTORS_FILE).parent.as_posix()
    assert include[f"data/{folder}"] == f"biaslib/_data/{folder}"
    for name in (C6_VECTORS_FILE, C6_VECTORS_PROVENANCE):
        assert (ROOT / "data" / name).is_file(), name


# --------------------------------------------------------------------------- writer, loader


class FakeEncoder(ContextEncoder):
    """Deterministic vectors from the word and the sentence (no model)."""

    name = "fake encoder"
    fingerprint = "fake-weights"

    def encode_words(self, contexts, pooling="mean"):
        out = []
        for c in contexts:
            rng = np.random.default_rng(zlib.crc32(f"{c.word}|{c.text}".encode()))
            out.append(rng.normal(size=6))
        return np.asarray(out, dtype=np.float32)


@pytest.fixture
def fake_c6(monkeypatch):
    """The writer's corpus, model and extract replaced by fakes: C6, three sentences a word."""
    c6 = load_test(ceat_chapter.MYB_TABLE3["C6"])
    contexts = {role: {w: [Context(f"I met {w} {i}.", w, w, 6, 6 + len(w), "fake")
                           for i in range(3)] for w in ws.words}
                for role, ws in c6.sets.items()}
    monkeypatch.setattr(ceat_chapter, "c6_contexts", lambda: contexts)
    monkeypatch.setattr(ceat_chapter, "transformer", lambda *a, **k: FakeEncoder)
    monkeypatch.setattr(ceat_chapter, "describe_extract", lambda: "a fake extract")
    monkeypatch.setattr(ceat_chapter, "extract_sha256", lambda: "0" * 64)
    return {role: {w: FakeEncoder().encode_words(cs) for w, cs in words.items()}
            for role, words in contexts.items()}


def test_write_and_read_back_as_float64_within_float16(fake_c6, tmp_path):
    path = write_c6_minilm_vectors(tmp_path)
    assert path == tmp_path / C6_VECTORS_FILE
    assert sorted(p.name for p in path.parent.iterdir()) == [
        "ceat_c6_minilm.json", "ceat_c6_minilm.npz"]  # no temporary left
    back = c6_minilm_vectors(tmp_path)
    assert check_c6_vectors(fake_c6, back) <= 2.0**-11
    meta = c6_vectors_provenance(tmp_path)
    assert meta["extract"] == "a fake extract" and meta["model"]["weights"] == "fake-weights"
    assert meta["words"]["X"] == {w: 3 for w in fake_c6["X"]}
    # The same vectors give the same bytes (no time stamps in the archive).
    first = path.read_bytes()
    write_c6_minilm_vectors(tmp_path)
    assert path.read_bytes() == first


def test_other_vectors_fail_the_float16_check(fake_c6, tmp_path):
    write_c6_minilm_vectors(tmp_path)
    shipped = c6_minilm_vectors(tmp_path)
    moved = {role: {w: v * (1 + 2.0**-8) for w, v in words.items()}
             for role, words in fake_c6.items()}
    with pytest.raises(AssertionError, match="beyond float16 rounding"):
        check_c6_vectors(moved, shipped)
    fewer = {role: {w: v[:2] for w, v in words.items()} for role, words in fake_c6.items()}
    with pytest.raises(AssertionError, match=r"\(2, 6\) against \(3, 6\)"):
        check_c6_vectors(fewer, shipped)


def test_a_changed_file_or_provenance_is_refused(fake_c6, tmp_path):
    path = write_c6_minilm_vectors(tmp_path)
    data = bytearray(path.read_bytes())
    data[-200] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="does not match the sha256"):
        c6_minilm_vectors(tmp_path)
    write_c6_minilm_vectors(tmp_path)
    meta_path = tmp_path / C6_VECTORS_PROVENANCE
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta["words"]["X"]["John"] = 4
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ValueError, match="John has 3 vectors, its provenance 4"):
        c6_minilm_vectors(tmp_path)


def test_a_failed_write_leaves_the_old_files(fake_c6, tmp_path, monkeypatch):
    path = write_c6_minilm_vectors(tmp_path)
    before = {p.name: p.read_bytes() for p in path.parent.iterdir()}

    def broken(target, arrays):
        target.write_bytes(b"half")
        raise OSError("disk full")

    monkeypatch.setattr(ceat_chapter, "_write_npz", broken)
    with pytest.raises(OSError, match="disk full"):
        write_c6_minilm_vectors(tmp_path)
    assert {p.name: p.read_bytes() for p in path.parent.iterdir()} == before


def test_the_no_corpus_message_fits_the_page():
    err = FileNotFoundError("no corpus extract in ../shared/corpus beside the checkout "
                            "(the default location; $BIASLIB_CORPUS_DIR is not set). " * 3)
    text = no_corpus_message(err)
    assert text.startswith("Not run: no corpus extract")
    assert max(len(line) for line in text.splitlines()) <= 100


# --------------------------------------------------------------------------- with the extract


def test_the_writer_reproduces_the_shipped_vectors(tmp_path):
    require_corpus("embedding C6 from the corpus extract")
    if c6_vectors_provenance()["extract_sha256"] != ceat_chapter.extract_sha256():
        pytest.skip("the corpus extract here is not the one the shipped vectors come from")
    write_c6_minilm_vectors(tmp_path)
    # Within float16 rounding plus the float32 noise of embedding again (raises if not): with
    # an empty vector cache a component near zero can round to the neighbouring float16.
    check_c6_vectors(c6_minilm_vectors(tmp_path), c6_minilm_vectors())
    fresh, shipped = c6_vectors_provenance(tmp_path), c6_vectors_provenance()
    assert {k: v for k, v in fresh.items() if k != "sha256"} == {
        k: v for k, v in shipped.items() if k != "sha256"}

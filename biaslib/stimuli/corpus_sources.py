r"""The raw text behind the corpus extract, as named, versioned, checksummed data.

The shared extract (``../shared/corpus/MANIFEST.md``) was built from five sources
taken in this order — ``reddit_2014``, ``reddit_other``, ``blogs``,
``wikipedia``, ``imdb`` — each a public GitHub repository at a fixed commit. The
project does not ship that extract; this module lets a user with internet
access (Colab) fetch the same raw files and build the same kind of extract
with the project's own code (:func:`build_corpus_extract`).

``corpus_sources.csv`` (beside this module; :func:`load_corpus_sources`) has
one row per unit that is downloaded and verified:

* ``kind == "file"`` — one file, fetched from ``raw.githubusercontent.com`` at
  the commit (:func:`raw_url`) and checked against its ``size`` and ``sha256``:
  the 169 monthly Reddit samples (``roy-elia/MAISProject``,
  ``data/sampled_comments/RC_YYYY-MM.csv``) and the 400 Wikipedia text files
  (``jason-feng/wikiVisual``, ``text/??/wiki_??``).
* ``kind == "tree"`` — every file matching ``pattern`` under a folder, too
  many to fetch one by one: the repository's archive at the commit
  (:func:`archive_url`) is downloaded once and those files are taken from it;
  ``files`` is their number, ``size`` their total size and ``sha256`` the
  digest of their listing (:func:`tree_digest`: the SHA-256 of a
  ``sha256sum``-style listing, one ``<sha256>  <path>`` line per file, sorted
  by path). The Blog Authorship Corpus (``muhwagua/color-bert``, ``blogs/*.xml``,
  19,320 files) and the IMDB reviews (``PVidyadhar/Detection-of-Fraud-apps-
  using-Sentiment-Analysis``, ``aclImdb/{train,test}/{pos,neg}`` and
  ``aclImdb/train/unsup``, 100,000 ``.txt`` files).

The table was written by ``scripts/corpus_sources.py`` from git snapshots of
the four repositories, each of which holds the MANIFEST's commit. Of the
repository's 229 monthly Reddit files, 60 were absent from the snapshot (the
MANIFEST's "169 monthly dumps" are exactly the other 169); they are not
listed and not used. The IMDB bag-of-words ``.feat`` files (absent too) and URL
lists are not text and not used.

Total download: :func:`download_size` (about 2.0 GB: Reddit 0.6 GB, blogs 0.8 GB,
Wikipedia 0.4 GB, the IMDB archive about 0.14 GB of review text). Every source is
needed: leaving out any one of them lowers the median sentences per stimulus or
adds stimuli with fewer than 20 sentences in some Mind Your Bias test (e.g.
without blogs, ``MYB I2`` falls from 1,000 to 524 sentences per stimulus at
the median), so the Colab build fetches all of them.

Readers (one :class:`~biaslib.stimuli.corpus.RawDocument` per document):
:func:`_read_blog_file` (one per ``<post>``), :func:`_read_wikipedia_file` (one per
paragraph line of WikiExtractor output, ``<doc>`` tags dropped),
:func:`_read_imdb_review` (one per review; ``<br />`` tags end paragraphs).
Checked on the 100,000 IMDB reviews when this module was written: they give
1,234,510 sentences (MANIFEST: 1.23M), and the matching sentences per stimulus
(``found_imdb``) equal the shared ``coverage.csv`` for 92% of the book's 1,157
stimuli it lists and are within 1% for 98.6% (986,231 against 986,005 in all).

References
----------
Schler, J., Koppel, M., Argamon, S. & Pennebaker, J. (2006). Effects of age and
gender on blogging. AAAI Spring Symposium on Computational Approaches to
Analyzing Weblogs.
Maas, A. L. et al. (2011). Learning Word Vectors for Sentiment Analysis. ACL 2011.
"""

from __future__ import annotations

import fnmatch
import hashlib
import html
import logging
import os
import re
import shutil
import tarfile
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from biaslib.downloads import Fetch, cache_folder, download
from biaslib.errors import CorpusError, DownloadError, MissingWordsError
from biaslib.methods.ceat import missing_policy
from biaslib.stimuli.corpus import (
    SOURCE_ORDER,
    RawDocument,
    book_stimuli,
    build_extract,
    load_coverage,
    read_reddit_csv,
)
from biaslib.stimuli.data import load_test
from biaslib.validation import check_int, check_words

__all__ = [
    "COLUMNS",
    "archive_url",
    "build_corpus_extract",
    "coverage_by_test",
    "download_size",
    "download_sources",
    "load_corpus_sources",
    "raw_url",
    "tree_digest",
]

logger = logging.getLogger(__name__)

#: The source table shipped with the package.
_SOURCES_FILE = Path(__file__).with_name("corpus_sources.csv")
#: Columns of the source table.
COLUMNS = ("source", "repo", "commit", "path", "kind", "pattern", "files", "size", "sha256")
#: Table sources in the order they are read; "reddit" yields reddit_2014 and reddit_other.
_TABLE_ORDER = ("reddit", "blogs", "wikipedia", "imdb")



# --------------------------------------------------------------------------- the table


def load_corpus_sources(path: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """The source table (default: the one shipped, :data:`_SOURCES_FILE`), checked.

    Raises
    ------
    CorpusError
        If a column is missing, or a row has an unknown kind, a commit that is
        not 40 hex digits, a sha256 that is not 64, a non-positive size or
        file count, or repeats a (repo, path); the message names the row.
    """
    path = Path(path) if path is not None else _SOURCES_FILE
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in COLUMNS if c not in table.columns]
    if missing:
        raise CorpusError(f"{path}: columns {missing} missing (expected {list(COLUMNS)})")
    checks = {
        "kind": lambda v: v in ("file", "tree"),
        "commit": lambda v: re.fullmatch(r"[0-9a-f]{40}", v) is not None,
        "sha256": lambda v: re.fullmatch(r"[0-9a-f]{64}", v) is not None,
        "size": lambda v: v.isdigit() and int(v) > 0,
        "files": lambda v: v.isdigit() and int(v) > 0,
        "repo": lambda v: re.fullmatch(r"[\w.-]+/[\w.-]+", v) is not None,
        "path": lambda v: bool(v) and not v.startswith("/") and ".." not in v.split("/"),
    }
    for i, row in enumerate(table.to_dict("records"), start=2):
        for column, ok in checks.items():
            if not ok(row[column]):
                raise CorpusError(f"{path}, line {i}: bad {column} {row[column]!r}")
        if row["kind"] == "tree" and not row["pattern"]:
            raise CorpusError(f"{path}, line {i}: a tree row needs a pattern")
    dup = table.duplicated(["repo", "path"])
    if dup.any():
        raise CorpusError(f"{path}, line {int(np.argmax(dup)) + 2}: repeats "
                          f"{table.loc[dup, 'path'].iloc[0]!r}")
    table[["files", "size"]] = table[["files", "size"]].astype(int)
    return table


def raw_url(repo: str, commit: str, path: str) -> str:
    """Raw GitHub URL of one file of ``repo`` at ``commit``.

    Examples
    --------
    >>> raw_url("a/b", "c" * 40, "x/y.csv").replace("c" * 40, "<commit>")
    'https://raw.githubusercontent.com/a/b/<commit>/x/y.csv'
    """
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"


def archive_url(repo: str, commit: str) -> str:
    """URL of GitHub's ``.tar.gz`` archive of ``repo`` at ``commit``."""
    return f"https://codeload.github.com/{repo}/tar.gz/{commit}"


def tree_digest(files: Iterable[tuple[str, str]]) -> str:
    r"""SHA-256 of a ``sha256sum`` listing of ``(path, sha256)`` pairs, sorted by path.

    Examples
    --------
    >>> import hashlib
    >>> d = tree_digest([("b", "2" * 64), ("a", "1" * 64)])
    >>> d == hashlib.sha256(("1" * 64 + "  a\n" + "2" * 64 + "  b\n").encode()).hexdigest()
    True
    """
    listing = "".join(f"{sha}  {rel}\n" for rel, sha in sorted(files))
    return hashlib.sha256(listing.encode("utf-8")).hexdigest()


def download_size(table: pd.DataFrame | None = None) -> pd.Series:
    """Bytes of raw text to download per source, and in total (``"total"``)."""
    table = load_corpus_sources() if table is None else table
    sizes = table.groupby("source", sort=False)["size"].sum()
    sizes["total"] = int(sizes.sum())
    return sizes


# --------------------------------------------------------------------------- downloading


def _local(cache: Path, row: Mapping[str, object]) -> Path:
    return cache / str(row["repo"]).replace("/", "+") / str(row["commit"])[:12] / str(row["path"])


def _fetch_file(row: Mapping[str, object], dest: Path, fetch: Fetch | None) -> None:
    """Download one file row, keeping it only if size and sha256 match."""
    repo, commit, path = str(row["repo"]), str(row["commit"]), str(row["path"])
    download(raw_url(repo, commit, path), dest, size=int(str(row["size"])),
             sha256=str(row["sha256"]), fetch=fetch, what=f"{repo}@{commit[:12]}:{path}",
             progress=False)


def _fetch_trees(rows: list[Mapping[str, object]], cache: Path, fetch: Fetch | None) -> None:
    """Download a repository's archive once and keep each tree row's files if they match."""
    repo, commit = str(rows[0]["repo"]), str(rows[0]["commit"])
    base = cache / repo.replace("/", "+") / commit[:12]
    base.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=base, prefix=".archive."))
    try:
        # No size or hash for the archive (GitHub builds it on request): each tree's
        # listing is checked below instead.
        archive = download(archive_url(repo, commit), work / "archive.tar.gz", fetch=fetch,
                           what=f"{repo}@{commit[:12]} archive", progress=False)
        staged = {str(r["path"]): work / f"tree{i}" for i, r in enumerate(rows)}
        sums: dict[str, list[tuple[str, str]]] = {p: [] for p in staged}
        with tarfile.open(archive, "r|gz") as tar:
            for member in tar:
                # GitHub archives hold one top folder, <name>-<commit>/.
                inner = member.name.split("/", 1)[1] if "/" in member.name else ""
                for prefix, folder in staged.items():
                    rel = inner[len(prefix) + 1:] if inner.startswith(prefix + "/") else ""
                    row = next(r for r in rows if r["path"] == prefix)
                    if rel and member.isfile() and fnmatch.fnmatch(rel, str(row["pattern"])):
                        data = tar.extractfile(member).read()  # type: ignore[union-attr]
                        target = folder / rel
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(data)
                        sums[prefix].append((rel, hashlib.sha256(data).hexdigest()))
        for row in rows:
            prefix = str(row["path"])
            got = sums[prefix]
            size = sum((staged[prefix] / rel).stat().st_size for rel, _ in got)
            if (len(got), size, tree_digest(got)) != (row["files"], row["size"], row["sha256"]):
                raise DownloadError(
                    archive_url(repo, commit), base / prefix,
                    f"the archive gave {len(got)} files, {size} bytes, listing sha256 "
                    f"{tree_digest(got)}; expected {row['files']} files, {row['size']} "
                    f"bytes, {row['sha256']}; nothing was kept",
                    f"{repo}@{commit[:12]}:{prefix}/{row['pattern']}")
        # Every tree matched: move each into place whole (a folder rename is atomic).
        for prefix, folder in staged.items():
            dest = base / prefix
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(folder, dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def download_sources(
    cache_dir: str | os.PathLike[str] | None = None,
    sources: Sequence[str] = _TABLE_ORDER,
    *,
    table: pd.DataFrame | None = None,
    fetch: Fetch | None = None,
    progress: bool = True,
) -> dict[str, list[Path]]:
    """Download and verify the raw files of ``sources`` (needs internet; cached).

    A file already in the cache is not fetched again (a file row's cached
    copy is checked by size; tree folders are only ever moved into place
    after their listing matched). A file or tree whose size or sha256 does
    not match the table is refused and leaves nothing in the cache.

    Parameters
    ----------
    cache_dir
        Default ``$BIASLIB_CACHE_DIR/corpus/raw`` or ``~/.cache/biaslib/corpus/raw``.
    sources
        Table sources (``"reddit"``, ``"blogs"``, ``"wikipedia"``, ``"imdb"``).
    table
        The source table (default :func:`load_corpus_sources`).
    fetch
        ``fetch(url, destination)`` (:data:`biaslib.downloads.Fetch`); default an HTTP
        download (:func:`biaslib.downloads.download`, which refuses when
        ``BIASLIB_OFFLINE``/``HF_HUB_OFFLINE`` is set). Tests pass a function serving
        local files.
    progress
        Show a progress bar over files and archives.

    Returns
    -------
    dict
        Source → local files, in the table's order (tree rows: every file of
        the tree, sorted by path).

    Raises
    ------
    DownloadError
        If a download fails, or a file or tree differs from the table.
    """
    from tqdm import tqdm

    table = load_corpus_sources() if table is None else table
    unknown = sorted(set(sources) - set(table["source"]))
    if unknown:
        raise CorpusError(f"unknown corpus source(s) {unknown}; the table has "
                          f"{sorted(set(table['source']))}")
    cache = Path(cache_dir) if cache_dir is not None else cache_folder("corpus") / "raw"
    chosen = table[table["source"].isin(sources)]
    files = chosen[chosen["kind"] == "file"].to_dict("records")
    trees = chosen[chosen["kind"] == "tree"]
    todo = [r for r in files
            if not (_local(cache, r).is_file() and _local(cache, r).stat().st_size == r["size"])]
    groups = [g.to_dict("records") for _, g in trees.groupby(["repo", "commit"], sort=False)
              if not all(_local(cache, r).is_dir() for r in g.to_dict("records"))]
    total = sum(r["size"] for r in todo) + sum(r["size"] for g in groups for r in g)
    with tqdm(total=total, unit="B", unit_scale=True, desc="corpus download",
              disable=not progress) as bar:
        for row in todo:
            _fetch_file(row, _local(cache, row), fetch)
            bar.update(row["size"])
        for group in groups:
            _fetch_trees(group, cache, fetch)
            bar.update(sum(r["size"] for r in group))
    out: dict[str, list[Path]] = {s: [] for s in sources}
    for row in chosen.to_dict("records"):
        local = _local(cache, row)
        out[row["source"]] += ([local] if row["kind"] == "file" else
                               sorted(p for p in local.rglob("*") if p.is_file()))
    return out


# --------------------------------------------------------------------------- readers

_POST = re.compile(r"<post>(.*?)</post>", re.DOTALL)
_DOC_TAG = re.compile(r"^</?doc\b")
_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        # A few Blog Authorship Corpus files are Latin-1.
        return data.decode("latin-1")


def _read_blog_file(path: str | os.PathLike[str], source: str = "blogs") -> Iterator[RawDocument]:
    """Posts of one Blog Authorship Corpus file (``<Blog><date>…</date><post>…</post>…``).

    The files are XML in name only (bare ``&``, ``<`` in text), so posts are
    cut out between ``<post>`` tags; ``row`` is the post's number in the file.

    Raises
    ------
    CorpusError
        If the file holds no ``<post>`` (not a blog file).
    """
    path = Path(path)
    text = _read_text(path)
    posts = _POST.findall(text)
    if not posts and text.strip():
        raise CorpusError(f"{path}: no <post>…</post> found; not a Blog Authorship Corpus file")
    for row, post in enumerate(posts, start=1):
        if post.strip():
            yield RawDocument(text=post, source=source, file=path.name, row=row)


def _read_wikipedia_file(
    path: str | os.PathLike[str], source: str = "wikipedia"
) -> Iterator[RawDocument]:
    """Paragraphs of one WikiExtractor output file (``<doc …>`` … ``</doc>`` blocks).

    One document per non-empty line that is not a ``<doc>`` tag; ``row`` is
    the line number. (A title line is a document too; being one to a few
    words, it is dropped by the 3-token minimum unless it names three.)
    """
    path = Path(path)
    for row, line in enumerate(_read_text(path).splitlines(), start=1):
        if line.strip() and not _DOC_TAG.match(line):
            yield RawDocument(text=line, source=source, file=path.name, row=row)


def _read_imdb_review(path: str | os.PathLike[str], source: str = "imdb") -> Iterator[RawDocument]:
    """The review in one ``aclImdb`` file (``<br />`` tags end paragraphs).

    ``file`` is ``<split>/<label>/<id>_<rating>.txt``, so reviews of the
    different folders stay apart.
    """
    path = Path(path)
    text = _BR.sub("\n\n", _read_text(path))
    if text.strip():
        yield RawDocument(text=html.unescape(text), source=source,
                          file="/".join(path.parts[-3:]), row=1)


_READERS: dict[str, Callable[[Path], Iterator[RawDocument]]] = {
    "reddit": read_reddit_csv,
    "blogs": _read_blog_file,
    "wikipedia": _read_wikipedia_file,
    "imdb": _read_imdb_review,
}


def _read_source(source: str, paths: Iterable[Path]) -> Iterator[RawDocument]:
    """Documents of a table source's files, read with that source's reader."""
    if source not in _READERS:
        raise CorpusError(f"no reader for corpus source {source!r}; known: {sorted(_READERS)}")
    reader = _READERS[source]
    for path in paths:
        yield from reader(Path(path))


# --------------------------------------------------------------------------- building


def build_corpus_extract(
    out_dir: str | os.PathLike[str],
    stimuli: Iterable[str] | None = None,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    table: pd.DataFrame | None = None,
    cap: int = 1000,
    seed: int = 1111,
    fetch: Fetch | None = None,
    progress: bool = True,
) -> Path:
    """Download every source and build the full extract (Colab), in one call.

    ::

        from biaslib.stimuli.corpus_sources import build_corpus_extract
        folder = build_corpus_extract("corpus")   # ~2 GB download, then the build
        os.environ["BIASLIB_CORPUS_DIR"] = str(folder)

    Sources are read in the MANIFEST's order (Reddit — 2014 comments become
    ``reddit_2014``, the others ``reddit_other`` — then blogs, Wikipedia,
    IMDB) into :func:`biaslib.stimuli.corpus.build_extract` with the shared
    extract's cap (1,000 per stimulus) and seed, filling each stimulus from
    the sources in :data:`~biaslib.stimuli.corpus.SOURCE_ORDER`.

    The result is the same kind of extract as ``../shared/corpus`` — same
    sources, files, cap, order and matching rules — but not byte-identical:
    its records carry provenance fields the shared one lacks (``file``,
    ``row``, ``start``, ``end``), the reservoirs are seeded per stimulus and
    source by this module (the shared build's seeds and file order are not
    published), and this matcher fixes the shared build's non-ASCII token
    splits (:mod:`biaslib.stimuli.corpus`). Counts of matching sentences per
    source (``found_<source>`` in ``coverage.csv``) are comparable.

    Parameters
    ----------
    out_dir
        Folder for ``contexts.jsonl.gz``, ``coverage.csv``, ``build.json``.
    stimuli
        Default: every stimulus of the book's tests.
    cache_dir, table, fetch, progress
        See :func:`download_sources`.
    cap, seed
        See :func:`~biaslib.stimuli.corpus.build_extract`.

    Returns
    -------
    pathlib.Path
        ``out_dir``.
    """
    from tqdm import tqdm

    check_int(cap, "cap", minimum=1)
    check_int(seed, "seed")
    if stimuli is not None:
        stimuli = list(dict.fromkeys(check_words(stimuli, "stimuli")))
    table = load_corpus_sources() if table is None else table
    sources = [s for s in _TABLE_ORDER if s in set(table["source"])]
    paths = download_sources(cache_dir, sources, table=table, fetch=fetch, progress=progress)
    files = [(s, p) for s in sources for p in paths[s]]
    docs = (doc for source, path in tqdm(files, desc="reading sources", unit="file",
                                         disable=not progress)
            for doc in _read_source(source, [path]))
    extract = build_extract(docs, stimuli if stimuli is not None else book_stimuli(), cap=cap,
                            seed=seed, source_order=SOURCE_ORDER)
    # Every source gets its coverage columns, as in the shared coverage.csv, even one in
    # which no stimulus was found (a thin subset, a test build).
    cov = extract.coverage
    for prefix in ("found_", "eligible_"):
        for source in SOURCE_ORDER:
            if prefix + source not in cov.columns:
                cov[prefix + source] = 0
    extra = [c for c in cov.columns if c.removeprefix("found_").removeprefix("eligible_")
             not in SOURCE_ORDER and c not in ("stimulus", "kept")]
    extract.coverage = cov[["stimulus", "kept", *[f"found_{s}" for s in SOURCE_ORDER],
                            *[f"eligible_{s}" for s in SOURCE_ORDER], *extra]]
    extract.parameters["sources"] = sorted({f"{r}@{c}" for r, c in
                                            zip(table["repo"], table["commit"], strict=True)})
    extract.parameters["files"] = len(files)
    extract.write(out_dir)
    return Path(out_dir)


# --------------------------------------------------------------------------- coverage


def coverage_by_test(
    tests: Mapping[str, str],
    path: str | os.PathLike[str] | None = None,
    *,
    few: int = 20,
    shown: int = 10,
    max_missing: float = 0.2,
) -> pd.DataFrame:
    """Contexts per stimulus for each test, from an extract's ``coverage.csv``.

    One row per test: ``stimuli``, ``min`` and ``median`` sentences kept per
    stimulus, ``fewer than <few>`` (how many stimuli), ``none`` (stimuli with
    no sentence, with the sources' counts: ``Latisha (0 in every source)``),
    and ``covered``: False where CEAT cannot run the test on this extract because a
    role loses more than ``max_missing`` of its stimuli (or all of them) — the
    chapter's rule, :func:`biaslib.methods.ceat.missing_policy` — with the reason
    in ``why`` (``X: 13 of 23 stimuli have no sentence``).

    Parameters
    ----------
    tests
        Row label → test name (e.g. ``biasbook.ceat.chapter_tests``).
    path
        Extract folder (default :func:`~biaslib.stimuli.corpus.corpus_dir`).
    few
        Threshold for "few" sentences.
    shown
        Most stimuli named in ``none`` (the rest are counted).
    max_missing
        Largest fraction of a role's stimuli that may lack sentences.
    """
    coverage = load_coverage(path).set_index("stimulus")
    found = [c for c in coverage.columns if c.startswith("found_")]
    rows = []
    for label, name in tests.items():
        test = load_test(name)
        words = list(dict.fromkeys(w for ws in test.sets.values() for w in ws.words))
        kept = {w: int(coverage["kept"].get(w, 0)) for w in words}
        none = [w for w in words if kept[w] == 0]

        def why_none(w: str) -> str:
            counts = {c.removeprefix("found_"): int(coverage[c].get(w, 0)) for c in found}
            if not any(counts.values()):
                return f"{w} (0 in every source)"
            return f"{w} ({', '.join(f'{s} {n}' for s, n in counts.items() if n)}, none kept)"

        # The chapter's rule (biaslib.methods.ceat.missing_policy): a role that loses more
        # than max_missing of its stimuli, or all of them, cannot be run.
        lost = {role: sum(kept[w] == 0 for w in ws.words) for role, ws in test.sets.items()}
        try:
            missing_policy({role: {w: kept[w] for w in ws.words}
                            for role, ws in test.sets.items()},
                           max_missing_fraction=max_missing)
            failing: list[str] = []
        except MissingWordsError:
            failing = [role for role, ws in test.sets.items()
                       if lost[role] == len(ws.words)
                       or lost[role] / len(ws.words) > max_missing]
        rows.append({
            "test": label, "stimuli": len(words), "min": min(kept.values()),
            "median": float(np.median(list(kept.values()))),
            f"fewer than {few}": sum(n < few for n in kept.values()),
            "none": "; ".join(why_none(w) for w in none[:shown])
                    + (f" and {len(none) - shown} more" if len(none) > shown else ""),
            "covered": not failing,
            "why": "; ".join(f"{role}: {lost[role]} of {len(test.sets[role].words)} stimuli "
                             "have no sentence" for role in failing),
        })
    return pd.DataFrame(rows)


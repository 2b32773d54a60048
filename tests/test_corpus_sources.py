"""The corpus source table and the Colab build of the full extract (biaslib.stimuli.corpus_sources).

The build runs end to end through a local ``fetch`` serving small real excerpts of each
source (``tests/data/corpus_sources``, see its README), so no test needs the internet.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from pathlib import Path

import pandas as pd
import pytest

from biaslib.errors import CorpusError, DownloadError
from biaslib.stimuli import corpus_sources as cs
from biaslib.stimuli.corpus import SOURCE_ORDER
from biaslib.stimuli.data import load_test

DATA = Path(__file__).parent / "data" / "corpus_sources"
REDDIT = ("roy-elia/MAISProject", "2629f57f76fdeae7c176f13e39fe066aa579b06f")
BLOGS = ("muhwagua/color-bert", "8db0aa36e484494531f03bca15e8cc280020b9ff")
WIKI = ("jason-feng/wikiVisual", "1c0fac92f29f17c1603bfffbe864e0dfdff66897")
IMDB = ("PVidyadhar/Detection-of-Fraud-apps-using-Sentiment-Analysis",
        "81406d56e9c006de30f9d50737fd66177a4a1434")


def test_shipped_table_is_well_formed() -> None:
    table = cs.load_corpus_sources()
    assert list(table["source"].unique()) == ["reddit", "blogs", "wikipedia", "imdb"]
    commits = dict(zip(table["repo"], table["commit"], strict=True))
    assert commits == dict([REDDIT, BLOGS, WIKI, IMDB])  # the MANIFEST's commits
    reddit = table[table["source"] == "reddit"]
    assert len(reddit) == 169 and reddit["path"].str.fullmatch(
        r"data/sampled_comments/RC_\d{4}-\d{2}\.csv").all()
    assert reddit["path"].str.contains("RC_2014-").sum() == 12
    assert (table[table["source"] == "wikipedia"]["kind"] == "file").sum() == 400
    trees = table[table["kind"] == "tree"].set_index("path")["files"]
    assert trees.to_dict() == {"blogs": 19320, "aclImdb/train/pos": 12500,
                               "aclImdb/train/neg": 12500, "aclImdb/train/unsup": 50000,
                               "aclImdb/test/pos": 12500, "aclImdb/test/neg": 12500}
    assert (table.loc[table["kind"] == "file", "files"] == 1).all()
    assert cs.download_size(table)["total"] == table["size"].sum() > 1.9e9
    assert cs.raw_url(*REDDIT, reddit["path"].iloc[0]).startswith(
        f"https://raw.githubusercontent.com/{REDDIT[0]}/{REDDIT[1]}/data/")


def test_bad_table_row_is_named(tmp_path: Path) -> None:
    table = cs.load_corpus_sources().head(3).copy()
    table.loc[1, "sha256"] = "abc"
    bad = tmp_path / "sources.csv"
    table.to_csv(bad, index=False)
    with pytest.raises(CorpusError, match=r"line 3: bad sha256 'abc'"):
        cs.load_corpus_sources(bad)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _small_world(tmp_path: Path) -> tuple[pd.DataFrame, dict[str, bytes]]:
    """A source table for the excerpts, and the bytes a fetch serves per URL."""
    rows, served = [], {}
    for name in ("RC_2014-01.csv", "RC_2013-12.csv"):
        data = (DATA / name).read_bytes()
        rows.append(("reddit", *REDDIT, f"data/sampled_comments/{name}", "file", "", 1,
                     len(data), _sha(data)))
    data = (DATA / "wiki_00").read_bytes()
    rows.append(("wikipedia", *WIKI, "text/AA/wiki_00", "file", "", 1, len(data), _sha(data)))
    for row in rows:
        served[cs.raw_url(row[1], row[2], row[3])] = (DATA / Path(row[3]).name).read_bytes()
    trees = {BLOGS: {"blogs": [DATA / "1000331.female.37.indUnk.Leo.xml"]},
             IMDB: {f"aclImdb/{d}": sorted((DATA / "aclImdb" / d).glob("*.txt"))
                    for d in ("train/pos", "test/neg", "train/unsup")}}
    for (repo, commit), folders in trees.items():
        buf = io.BytesIO()
        top = f"{repo.split('/')[1]}-{commit}"
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            for folder, files in folders.items():
                listing = []
                for f in files:
                    data = f.read_bytes()
                    info = tarfile.TarInfo(f"{top}/{folder}/{f.name}")
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))
                    listing.append((f.name, _sha(data)))
                rows.append(("blogs" if repo == BLOGS[0] else "imdb", repo, commit, folder,
                             "tree", "*.xml" if repo == BLOGS[0] else "*.txt", len(files),
                             sum(f.stat().st_size for f in files), cs.tree_digest(listing)))
            # A file outside the trees, as real archives have.
            info = tarfile.TarInfo(f"{top}/README.md")
            tar.addfile(info, io.BytesIO(b""))
        served[cs.archive_url(repo, commit)] = buf.getvalue()
    path = tmp_path / "sources.csv"
    pd.DataFrame(rows, columns=list(cs.COLUMNS)).to_csv(path, index=False)
    return cs.load_corpus_sources(path), served


def _fetcher(served: dict[str, bytes], log: list[str]):
    def fetch(url: str, dest: Path) -> None:
        log.append(url)
        dest.write_bytes(served[url])
    return fetch


STIMULI = ["rain", "anarchism", "Costner", "money", "tea", "Latisha"]  # + C6 below


def test_colab_build_end_to_end(tmp_path: Path) -> None:
    table, served = _small_world(tmp_path)
    log: list[str] = []
    c6 = sorted({w for ws in load_test("MYB-C6-name").sets.values() for w in ws.words})
    out = cs.build_corpus_extract(tmp_path / "out", STIMULI + c6, cache_dir=tmp_path / "cache",
                                  table=table, fetch=_fetcher(served, log), progress=False)
    assert len(log) == 5  # three raw files, two archives
    with gzip.open(out / "contexts.jsonl.gz", "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    # The MANIFEST's shape: stimulus, source, sentence (+ month, subreddit), sources in order.
    assert all({"stimulus", "source", "sentence", "month", "subreddit"} <= set(r)
               for r in records)
    assert {r["source"] for r in records} == set(SOURCE_ORDER)
    for stim in STIMULI + c6:
        order = [SOURCE_ORDER.index(r["source"]) for r in records if r["stimulus"] == stim]
        assert order == sorted(order)
    coverage = pd.read_csv(out / "coverage.csv").set_index("stimulus")
    assert [c for c in coverage.columns if c.startswith("found_")] == [
        f"found_{s}" for s in SOURCE_ORDER]
    # Counted by hand in the excerpts (tests/data/corpus_sources):
    # "rain": four sentences of the three blog posts ("raining" is another word);
    # "anarchism": nine Wikipedia sentences, one of them the one-token title line (too
    # short to keep); "Costner": four sentences of the test/neg review; "money": one
    # 2014 comment; "tea": one December 2013 comment ("Chai Tea is the Tea of Life.");
    # "home": a 2013 comment and a blog post; "wedding": two sentences of one 2013 comment.
    expected = {"rain": ("blogs", 4, 4), "anarchism": ("wikipedia", 9, 8),
                "Costner": ("imdb", 4, 4), "money": ("reddit_2014", 1, 1),
                "tea": ("reddit_other", 1, 1), "wedding": ("reddit_other", 2, 2)}
    for stim, (source, found, kept) in expected.items():
        assert coverage.loc[stim, f"found_{source}"] == found, stim
        assert coverage.loc[stim, "kept"] == kept, stim
    assert coverage.loc["home", ["found_reddit_other", "found_blogs", "kept"]].tolist() == [
        1, 1, 2]
    assert coverage.loc["Latisha", "kept"] == 0
    # C6: only role B (family words) has sentences (home 2, wedding 2; 6 of its 8 words
    # have none, more than the chapter's fifth), so the test is not covered, and the
    # names and career words are named with "0 in every source".
    cov = cs.coverage_by_test({"MYB C6": "MYB-C6-name"}, out, shown=3).iloc[0]
    assert (cov["stimuli"], cov["min"], cov["median"], cov["fewer than 20"]) == (32, 0, 0, 32)
    assert not cov["covered"]
    assert cov["why"] == ("X: 8 of 8 stimuli have no sentence; Y: 8 of 8 stimuli have no "
                          "sentence; A: 8 of 8 stimuli have no sentence; B: 6 of 8 stimuli "
                          "have no sentence")
    assert cov["none"].endswith("(0 in every source) and 27 more")
    # A second build reuses the cache: nothing is fetched again.
    cs.build_corpus_extract(tmp_path / "out2", STIMULI, cache_dir=tmp_path / "cache",
                            table=table, fetch=_fetcher(served, log), progress=False)
    assert len(log) == 5


def test_table_checksums_are_checked_and_a_mismatch_leaves_no_file(tmp_path: Path) -> None:
    table, served = _small_world(tmp_path)
    url = cs.raw_url(*REDDIT, "data/sampled_comments/RC_2014-01.csv")
    served[url] = served[url].replace(b"PayPal", b"PayPaI")
    with pytest.raises(DownloadError, match=r"RC_2014-01\.csv from .*SHA-256 .* was deleted"):
        cs.download_sources(tmp_path / "cache", ["reddit"], table=table,
                            fetch=_fetcher(served, []), progress=False)
    assert not [p for p in (tmp_path / "cache").rglob("*RC_2014-01*")]
    # A tree whose archive differs from the listing: nothing of it is kept.
    table, served = _small_world(tmp_path)
    table.loc[table["path"] == "blogs", "sha256"] = "0" * 64
    with pytest.raises(DownloadError, match=r"blogs/\*\.xml from .*: the archive gave 1 files"):
        cs.download_sources(tmp_path / "cache2", ["blogs"], table=table,
                            fetch=_fetcher(served, []), progress=False)
    assert not [p for p in (tmp_path / "cache2").rglob("*") if p.is_file()]


def test_table_pins_the_shared_raw_2014_files() -> None:
    """The shared extract's raw 2014 files are, decompressed, the table's Reddit files."""
    from shared_paths import SHARED, require

    raw = require(SHARED / "corpus" / "raw", "the shared corpus' raw Reddit files")
    table = cs.load_corpus_sources().set_index("path")
    files = sorted(raw.glob("RC_2014-*.csv.gz"))
    assert len(files) == 12
    for f in files:
        data = gzip.decompress(f.read_bytes())
        row = table.loc[f"data/sampled_comments/{f.name.removesuffix('.gz')}"]
        assert (len(data), _sha(data)) == (row["size"], row["sha256"]), f.name
    # The test excerpt is the start of the real January file.
    first = gzip.decompress((raw / "RC_2014-01.csv.gz").read_bytes())
    assert first.startswith((DATA / "RC_2014-01.csv").read_bytes())
    # The shared coverage.csv has the columns a Colab build writes first.
    columns = pd.read_csv(require(SHARED / "corpus" / "coverage.csv", "the shared coverage"),
                          nrows=1).columns
    assert list(columns) == ["stimulus", "kept", *[f"found_{s}" for s in SOURCE_ORDER]]


def test_coverage_of_the_shared_extract() -> None:
    """On the book's extract only Dis cannot be covered, for the reason the chapter states."""
    from shared_paths import SHARED, require

    from biasbook.ceat import chapter_tests

    folder = require(SHARED / "corpus" / "coverage.csv", "the shared corpus coverage").parent
    cov = cs.coverage_by_test(chapter_tests(), folder).set_index("test")
    assert list(cov.index[~cov["covered"]]) == ["MYB Dis"]
    # The chapter's ceat_coverage table: Dis's target sets lose 13 and 8 of 23 phrases.
    assert cov.loc["MYB Dis", "why"] == ("X: 13 of 23 stimuli have no sentence; "
                                         "Y: 8 of 23 stimuli have no sentence")
    assert cov.loc["MYB C3", "none"] == "Latisha (0 in every source)"  # as MANIFEST says
    assert cov.loc["MYB C6", "min"] == 1000

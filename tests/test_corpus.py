"""Natural contexts: sentence splitting, stimulus matching, the extract builder and reader.

Tests that need the shared corpus (../shared/corpus, or $BIASLIB_CORPUS_DIR) skip
with a reason when it is absent; the builder is also tested on an inline raw sample.
"""

import csv
import gzip
import hashlib
import io
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from shared_paths import SHARED, require, require_corpus

from biaslib.stimuli import corpus
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.corpus import (
    StimulusMatcher,
    build_extract,
    build_reddit_2014_extract,
    ceat_window,
    context_window,
    contexts_for_test,
    contexts_for_words,
    corpus_dir,
    download_reddit_2014,
    is_case_sensitive,
    load_coverage,
    myb_window,
    read_extract,
    read_reddit_csv,
    read_text_file,
    reddit_raw_url,
    split_sentences,
    to_context,
    tokenize,
)

RAW_DIR = SHARED / "corpus" / "raw"


def shared_extract() -> Path:
    return require_corpus("corpus extract not available")


# --------------------------------------------------------------------------- text rules


def test_tokens_keep_hyphens_and_split_apostrophes():
    assert tokenize("Adam's fried-chicken, e.g. 3-4 times! -- José") == [
        "Adam", "s", "fried-chicken", "e", "g", "3-4", "times", "José"]


@pytest.mark.parametrize(("text", "expected"), [
    ("I saw it. Then I left.", ["I saw it.", "Then I left."]),
    # a lower-case letter after the punctuation continues the sentence
    ("Wait... what? e.g. this one.", ["Wait... what? e.g. this one."]),
    # a closing quote or bracket stays with its sentence
    ('He said "go." Then (really!) She left.', ['He said "go."', "Then (really!)", "She left."]),
    # blank lines separate paragraphs; single line breaks (lists, tables) do not
    ("First line\nsecond line\n\nNew paragraph", ["First line second line", "New paragraph"]),
    # no whitespace after the punctuation: no split (numbers, abbreviations, URLs)
    ("It costs 3.50 now.Really", ["It costs 3.50 now.Really"]),
    ("See https://example.org/a.b and www.x.com today.", ["See and today."]),
    ("I &gt; you &amp; me", ["I > you & me"]),
    ("  \n\n  ", []),
])
def test_split_sentences(text, expected):
    assert split_sentences(text) == expected


def test_case_sensitivity_follows_upper_case_letters():
    assert is_case_sensitive("Jack") and is_case_sensitive("NASA")
    assert is_case_sensitive("a person with Downs syndrome")
    assert not is_case_sensitive("rose") and not is_case_sensitive("fried-chicken")


MATCHER = StimulusMatcher(["Bill", "Jack", "rose", "ant", "short", "short-term", "chicken",
                           "fried-chicken", "African American", "Adam", "José",
                           "a little person"])


@pytest.mark.parametrize(("sentence", "found"), [
    # names are case-sensitive, other words are not
    ("Bill paid the bill.", {"Bill": [(0, 4)]}),
    ("jack the car up, Jack.", {"Jack": [(17, 21)]}),
    ("Rose is a rose.", {"rose": [(0, 4), (10, 14)]}),
    # whole tokens only
    ("A pleasant antelope and an ant.", {"ant": [(27, 30)]}),
    ("Antes de todo", {}),
    # hyphenated tokens are one token
    ("short-term gains, short term", {"short-term": [(0, 10)], "short": [(18, 23)]}),
    ("fried-chicken, fried chicken", {"fried-chicken": [(0, 13)], "chicken": [(21, 28)]}),
    # phrases: whitespace between their words, not hyphens or punctuation
    ("an African American woman", {"African American": [(3, 19)]}),
    ("an African-American woman", {}),
    ("African, American", {}),
    ("Anything with a 'little person' is fun.", {}),
    # the apostrophe ends a token: "Adam's" holds Adam
    ("Adam's apple", {"Adam": [(0, 4)]}),
    # letters beyond ASCII are letters: "Jos" is not "José", "José" is found
    ("Jos vielä jaksaa", {}),
    ("José Mourinho", {"José": [(0, 4)]}),
])
def test_matcher(sentence, found):
    assert MATCHER.find(sentence) == found


def test_matcher_rejects_stimuli_that_are_not_token_sequences():
    with pytest.raises(ValueError, match="not a sequence of whole tokens"):
        StimulusMatcher(["rock 'n' roll"])
    with pytest.raises(ValueError, match="no stimuli"):
        StimulusMatcher([])


def test_to_context_spans_and_phrase_fallback():
    ctx = to_context("Rose is a rose.", "rose")
    assert (ctx.start, ctx.end, ctx.form, ctx.word) == (0, 4, "Rose", "rose")
    assert to_context("Rose is a rose.", "rose", occurrence=1).start == 10
    # the shared extract holds phrases separated by punctuation: accepted on reading
    ctx = to_context("Anything with a 'little person' is fun.", "a little person")
    assert ctx.form == "a 'little person"
    with pytest.raises(ValueError, match="does not occur"):
        to_context("Antes de todo.", "ant")


LONG = "one two three four five six seven eight nine ten eleven twelve thirteen"


def _ctx(text: str, word: str) -> Context:
    return to_context(text, word)


def test_windows_keep_the_stimulus_span():
    ctx = _ctx(LONG, "seven")
    sym = context_window(ctx)
    assert sym.text == "three four five six seven eight nine ten eleven"
    assert sym.text[sym.start:sym.end] == "seven"
    # Mind Your Bias: nine words centred on the stimulus
    assert myb_window(ctx).text == sym.text
    # Guo & Caliskan's slice words[i-4:i+4] keeps only three words after the stimulus
    assert ceat_window(ctx).text == "three four five six seven eight nine ten"
    # near the start or the end: the first or last nine words
    assert ceat_window(_ctx(LONG, "two")).text == " ".join(LONG.split()[:9])
    assert myb_window(_ctx(LONG, "twelve")).text == " ".join(LONG.split()[-9:])
    # short sentences are kept whole
    short = _ctx("a rose is here", "rose")
    assert myb_window(short) == short and ceat_window(short) == short


def test_myb_window_for_phrases_is_thirteen_words():
    words = [f"w{i}" for i in range(30)]
    text = " ".join([*words[:12], "African", "American", *words[12:]])
    ctx = myb_window(_ctx(text, "African American"))
    # ceil((13 - 2) / 2) = 6 words before, 5 after (the original slice's exclusive end)
    assert ctx.text.split() == [*words[6:12], "African", "American", *words[12:17]]
    assert ctx.text[ctx.start:ctx.end] == "African American"


# --------------------------------------------------------------------------- builder, inline


RAW_ROWS = [
    # subreddit, subreddit id, body, created_utc (2014-01-01 00:00 UTC = 1388534400)
    ("flowers", "t5_1", "A rose by any name. Roses are red!\n\nMy rose garden is big.", 1388534400),
    ("bugs", "t5_2", "I hate that ant.\nAnother ant here, honestly.", 1388534460),
    ("bugs", "t5_2", "[deleted]", 1388534470),
    ("names", "t5_3", "Jack said hi. jack it up now. Ant!", 1391212800),  # February
    ("old", "t5_4", "An ant in 2013 was small.", 1357000000),
    ("flowers", "t5_1", "rose " * 120, 1388534400),  # 120 tokens: too long
]


def write_raw(path: Path, rows=RAW_ROWS) -> Path:
    buf = io.StringIO()
    csv.writer(buf, quoting=csv.QUOTE_ALL).writerows(rows)
    with gzip.open(path, "wt", encoding="utf-8", newline="") as fh:
        fh.write(buf.getvalue())
    return path


def test_read_reddit_csv(tmp_path):
    docs = list(read_reddit_csv(write_raw(tmp_path / "RC_2014-01.csv.gz")))
    assert [d.row for d in docs] == [1, 2, 4, 5, 6]  # [deleted] skipped, records counted
    assert docs[0].file == "RC_2014-01.csv" and docs[0].subreddit == "flowers"
    assert [d.month for d in docs] == ["2014-01", "2014-01", "2014-02", "2013-01", "2014-01"]
    assert [d.source for d in docs][-2:] == ["reddit_other", "reddit_2014"]
    assert "\n" in docs[1].text  # a quoted body spanning lines is one record


def test_build_extract_inline(tmp_path):
    docs = list(read_reddit_csv(write_raw(tmp_path / "RC_2014-01.csv.gz")))
    ex = build_extract(docs, ["rose", "ant", "Jack", "Latisha"], cap=1000)
    rec = ex.records
    assert set(rec.columns) >= {"stimulus", "source", "sentence", "month", "subreddit", "file",
                                "row", "start", "end"}
    roses = rec[rec.stimulus == "rose"]
    # "Roses" is another token; the 120-token sentence is too long
    assert list(roses.sentence) == ["A rose by any name.", "My rose garden is big."]
    assert list(roses.row) == [1, 1]
    ants = rec[rec.stimulus == "ant"]
    # a line break after "." before a capital ends the sentence; "Ant!" (one token) is too
    # short; the 2013 comment is reddit_other, filled after the 2014 ones
    assert list(ants.sentence) == ["I hate that ant.", "Another ant here, honestly.",
                                   "An ant in 2013 was small."]
    assert list(ants.source) == ["reddit_2014", "reddit_2014", "reddit_other"]
    # "hi. jack": a lower-case letter continues the sentence; "jack" is not the name
    assert list(rec[rec.stimulus == "Jack"].sentence) == ["Jack said hi. jack it up now."]
    for r in rec.itertuples():
        assert r.sentence[r.start:r.end].casefold() == r.stimulus.casefold()
        assert 3 <= len(tokenize(r.sentence)) <= 100
    cov = ex.coverage.set_index("stimulus")
    assert cov.loc["Latisha", "kept"] == 0
    # found counts every matching sentence; eligible only those within the length limits
    assert cov.loc["ant", "found_reddit_2014"] == 3
    assert cov.loc["ant", "eligible_reddit_2014"] == 2
    assert cov.loc["rose", "found_reddit_2014"] == 3
    assert cov.loc["rose", "eligible_reddit_2014"] == 2
    assert ex.stats["documents"] == 5


def test_reservoir_is_seeded_capped_and_uniform():
    docs = [corpus.RawDocument(f"The ant number {i} walks.", "reddit_2014", "f", i)
            for i in range(10)]
    a = build_extract(docs, ["ant"], cap=3, seed=1).records
    assert len(a) == 3
    assert a.equals(build_extract(docs, ["ant"], cap=3, seed=1).records)
    assert list(a.row) == sorted(a.row)  # kept in document order
    # every candidate is equally likely to be kept: 3/10 each over many seeds
    counts = pd.Series(0, index=range(10))
    for seed in range(400):
        counts[build_extract(docs, ["ant"], cap=3, seed=seed).records.row] += 1
    assert counts.sum() == 1200
    assert counts.between(120 - 40, 120 + 40).all(), counts.tolist()


def test_reservoir_does_not_depend_on_the_other_stimuli():
    docs = [corpus.RawDocument(f"The ant and rose number {i}.", "reddit_2014", "f", i)
            for i in range(50)]
    alone = build_extract(docs, ["ant"], cap=5).records
    together = build_extract(docs, ["rose", "ant"], cap=5).records
    assert list(alone.row) == list(together[together.stimulus == "ant"].row)


def test_fill_order_follows_sources():
    docs = [corpus.RawDocument(f"An ant in blog {i}.", "blogs", "b", i) for i in range(3)]
    docs += [corpus.RawDocument(f"An ant on reddit {i}.", "reddit_2014", "r", i) for i in range(2)]
    rec = build_extract(docs, ["ant"], cap=3).records
    assert list(rec.source) == ["reddit_2014", "reddit_2014", "blogs"]


def test_write_and_read_back(tmp_path):
    docs = list(read_reddit_csv(write_raw(tmp_path / "RC_2014-01.csv.gz")))
    ex = build_extract(docs, ["rose", "ant", "Jack", "Latisha"])
    folder = tmp_path / "extract"
    path = ex.write(folder)
    first = path.read_bytes()
    ex.write(folder)
    assert path.read_bytes() == first  # deterministic bytes (gzip mtime 0)
    assert json.loads((folder / "build.json").read_text())["parameters"]["cap"] == 1000
    back = read_extract(path=folder)
    assert list(back.sentence) == list(ex.records.sentence)
    assert list(back.line) == list(range(1, len(back) + 1))
    assert list(read_extract(["Jack"], path=folder).stimulus) == ["Jack"]
    assert set(read_extract(path=folder, sources=["reddit_other"]).stimulus) == {"ant"}
    assert load_coverage(folder).equals(ex.coverage)
    ctxs = contexts_for_words(["rose", "Latisha"], path=folder)
    assert ctxs["Latisha"] == []
    assert [c.form for c in ctxs["rose"]] == ["rose", "rose"]
    assert ctxs["rose"][0].source.startswith("extract line 1 (reddit_2014, 2014-01, r/flowers")


def test_read_text_file(tmp_path):
    path = tmp_path / "blog.txt"
    path.write_text("An ant walks.\n\nA rose grows here.\n", encoding="utf-8")
    docs = list(read_text_file(path, "blogs"))
    assert [(d.row, d.source) for d in docs] == [(1, "blogs"), (3, "blogs")]
    assert build_extract(docs, ["rose"]).records.row.tolist() == [3]


def test_missing_corpus_names_the_expected_path(tmp_path, monkeypatch):
    monkeypatch.setenv(corpus.CORPUS_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path / "nowhere"))):
        corpus_dir()
    with pytest.raises(FileNotFoundError, match="build_reddit_2014_extract"):
        read_extract()


def _missing_extract_message(monkeypatch, module_file: Path) -> str:
    """corpus_dir's error with no $BIASLIB_CORPUS_DIR, as if the module were ``module_file``."""
    monkeypatch.delenv(corpus.CORPUS_ENV, raising=False)
    monkeypatch.setattr(corpus, "__file__", str(module_file))
    with pytest.raises(FileNotFoundError) as err:
        corpus_dir()
    return str(err.value)


def test_missing_corpus_in_an_installed_package_names_no_package_path(tmp_path, monkeypatch):
    # A wheel's biaslib in a venv (Colab): the folder above the package is no checkout's, so
    # there is no default location, and the message must not print the venv's paths.
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    (site.parent / "shared" / "corpus").mkdir(parents=True)
    (site.parent / "shared" / "corpus" / corpus.EXTRACT_FILE).write_bytes(b"")
    message = _missing_extract_message(monkeypatch, site / "biaslib" / "stimuli" / "corpus.py")
    assert str(tmp_path) not in message and "site-packages" not in message
    assert "$BIASLIB_CORPUS_DIR is not set" in message
    assert "an installed biaslib has no default location" in message
    # The builders: the full extract (what the CEAT chapter builds on Colab) and 2014 Reddit.
    assert "biaslib.stimuli.corpus_sources.build_corpus_extract(folder)" in message
    assert "RUN_PAPER_MODELS" in message
    assert "biaslib.stimuli.corpus.build_reddit_2014_extract(folder)" in message


def test_missing_corpus_in_a_checkout_names_the_default_location(tmp_path, monkeypatch):
    checkout = tmp_path / "main"
    (checkout / "biaslib" / "stimuli").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("", encoding="utf-8")
    message = _missing_extract_message(monkeypatch,
                                       checkout / "biaslib" / "stimuli" / "corpus.py")
    assert message.startswith("no corpus extract in ../shared/corpus beside the checkout")
    assert str(tmp_path) not in message and "build_corpus_extract" in message
    # Where it is, the default location is found.
    (tmp_path / "shared" / "corpus").mkdir(parents=True)
    (tmp_path / "shared" / "corpus" / corpus.EXTRACT_FILE).write_bytes(b"")
    assert corpus_dir() == tmp_path / "shared" / "corpus"


def test_corpus_dir_from_environment(tmp_path, monkeypatch):
    docs = list(read_reddit_csv(write_raw(tmp_path / "RC_2014-01.csv.gz")))
    build_extract(docs, ["ant"]).write(tmp_path / "c")
    monkeypatch.setenv(corpus.CORPUS_ENV, str(tmp_path / "c"))
    assert corpus_dir() == tmp_path / "c"
    assert set(read_extract().stimulus) == {"ant"}


# --------------------------------------------------------------------------- Colab download


def test_raw_urls_point_at_the_manifest_commit():
    url = reddit_raw_url("2014-07")
    assert url == ("https://raw.githubusercontent.com/roy-elia/MAISProject/"
                   "2629f57f76fdeae7c176f13e39fe066aa579b06f/data/sampled_comments/RC_2014-07.csv")
    assert len(corpus.REDDIT_2014_MONTHS) == 12


def test_download_and_build_with_a_stand_in_fetch(tmp_path):
    """Everything but the network: a fetch that writes a small raw file per month."""
    fetched = []

    def fetch(url: str, dest: Path) -> None:
        month = re.search(r"RC_(\d{4}-\d{2})\.csv$", url).group(1)
        fetched.append(month)
        y, m = map(int, month.split("-"))
        stamp = int(pd.Timestamp(year=y, month=m, day=1, tz="UTC").timestamp())
        buf = io.StringIO()
        csv.writer(buf, quoting=csv.QUOTE_ALL).writerow(
            ["pics", "t5_1", f"A rose bloomed in month {m}. No ant here.", stamp])
        dest.write_text(buf.getvalue(), encoding="utf-8")

    raw = tmp_path / "raw"
    paths = download_reddit_2014(raw, fetch=fetch)
    assert fetched == list(corpus.REDDIT_2014_MONTHS)
    assert [p.name for p in paths] == [f"RC_{m}.csv" for m in corpus.REDDIT_2014_MONTHS]
    assert not list(raw.glob("*.part"))
    assert download_reddit_2014(raw, fetch=fetch) == paths and len(fetched) == 12  # cached
    out = build_reddit_2014_extract(tmp_path / "out", ["rose", "ant"], cache_dir=raw,
                                    fetch=fetch)
    back = read_extract(path=out)
    assert sorted(back.month[back.stimulus == "rose"]) == list(corpus.REDDIT_2014_MONTHS)
    assert set(back.source) == {"reddit_2014"}
    build = json.loads((out / "build.json").read_text())
    assert build["parameters"]["source"].startswith("roy-elia/MAISProject@2629f57")
    sha = hashlib.sha256((out / "contexts.jsonl.gz").read_bytes()).hexdigest()
    assert corpus.extract_sha256(out) == sha
    assert corpus.describe_extract(out, short=True) == "2014 Reddit extract"
    assert corpus.describe_extract(out) == (
        "2014 Reddit extract built from roy-elia/MAISProject@"
        f"2629f57f76fdeae7c176f13e39fe066aa579b06f, at most 1000 sentences per stimulus "
        f"(sha256 {sha[:12]})")


def test_download_uses_local_raw_files_as_cache(tmp_path):
    """The real raw files standing in for the download: found in the cache, nothing fetched."""
    require(RAW_DIR, "raw 2014 Reddit files")

    def no_network(url, dest):
        raise AssertionError(f"tried to download {url}")

    for month in corpus.REDDIT_2014_MONTHS:
        (tmp_path / f"RC_{month}.csv.gz").symlink_to(RAW_DIR / f"RC_{month}.csv.gz")
    paths = download_reddit_2014(tmp_path, fetch=no_network)
    assert [p.name for p in paths] == [f"RC_{m}.csv.gz" for m in corpus.REDDIT_2014_MONTHS]


# --------------------------------------------------------------------------- real raw files


def test_builder_on_real_raw_file_agrees_with_the_shared_extract():
    """RC_2014-01 through the builder vs the shared extract's January 2014 sentences.

    For stimuli with at most 1,000 matching 2014 sentences the shared extract kept
    every eligible one, so its January rows are the complete candidate set the
    builder must find (up to sentence-splitting details: >= 97% agreement).
    """
    raw = require(RAW_DIR / "RC_2014-01.csv.gz", "raw 2014 Reddit file RC_2014-01")
    shared_extract()
    cov = load_coverage()
    small = cov[(cov.found_reddit_2014 > 0) & (cov.found_reddit_2014 <= 1000)]
    stimuli = small.stimulus.tolist()
    ex = build_extract(read_reddit_csv(raw), stimuli, cap=10**6)
    rec = ex.records
    assert set(rec.file) == {"RC_2014-01.csv"} and set(rec.month) == {"2014-01"}
    assert (rec.subreddit != "").all() and rec.row.between(1, 20_000).all()
    sh = read_extract(stimuli, sources=["reddit_2014"])
    sh = sh[sh.month == "2014-01"]

    def norm(s: str) -> str:  # the shared splitter dropped a closing quote/bracket
        return re.sub(r"^[\W_]+|[\W_]+$", "", s)

    ours = set(zip(rec.stimulus, rec.sentence.map(norm), strict=True))
    theirs = set(zip(sh.stimulus, sh.sentence.map(norm), strict=True))
    both = len(ours & theirs)
    assert len(theirs) > 5000
    assert both / len(theirs) >= 0.97 and both / len(ours) >= 0.97


def test_builder_is_deterministic_on_real_raw_file():
    raw = require(RAW_DIR / "RC_2014-02.csv.gz", "raw 2014 Reddit file RC_2014-02")
    stimuli = ["love", "Jack", "short-term", "African American", "ant"]
    a = build_extract(read_reddit_csv(raw), stimuli, cap=20, seed=7)
    b = build_extract(read_reddit_csv(raw), stimuli, cap=20, seed=7)
    assert a.records.equals(b.records)
    assert (a.coverage.kept <= 20).all()
    love = a.coverage.set_index("stimulus").loc["love"]
    assert love.kept == 20 and love.eligible_reddit_2014 > 20


# --------------------------------------------------------------------------- shared extract


def test_describe_extracts_without_build_record(tmp_path):
    docs = list(read_reddit_csv(write_raw(tmp_path / "RC_2014-01.csv.gz")))
    build_extract(docs, ["ant"]).write(tmp_path / "c")
    sha = corpus.extract_sha256(tmp_path / "c")
    assert corpus.describe_extract(tmp_path / "c", short=True) == "built extract"
    (tmp_path / "c" / "build.json").unlink()
    assert corpus.describe_extract(tmp_path / "c", short=True) == f"extract {sha[:12]}"
    assert str(tmp_path / "c") in corpus.describe_extract(tmp_path / "c")


def test_read_shared_extract_and_contexts():
    shared_extract()
    assert corpus.extract_sha256() == corpus.SHARED_EXTRACT_SHA256  # MANIFEST.md's digest
    assert corpus.describe_extract(short=True) == "shared extract"
    frame = read_extract(["Latisha", "Lakisha", "aster"])
    assert set(frame.columns) >= {"stimulus", "source", "sentence", "month", "subreddit", "line"}
    assert "Latisha" not in set(frame.stimulus)
    test = contexts_for_test("MYB-I1-name", cap=10)
    assert test["Y"]["Latisha"] == []
    assert len(test["Y"]["Lakisha"]) == 4  # MANIFEST: Lakisha 4
    for role in test.values():
        for word, ctxs in role.items():
            assert len(ctxs) <= 10
            for c in ctxs:
                assert c.word == word and c.text[c.start:c.end] == c.form
                assert c.source.startswith("extract line ")


def test_caps_are_nested_and_seeded():
    shared_extract()
    small = contexts_for_words(["love", "aster"], cap=20)
    large = contexts_for_words(["love", "aster"], cap=50)
    for w in ("love", "aster"):
        assert {c.text for c in small[w]} <= {c.text for c in large[w]}
    assert contexts_for_words(["love"], cap=20) == {"love": small["love"]}
    other = contexts_for_words(["love"], cap=20, seed=2)
    assert {c.text for c in other["love"]} != {c.text for c in small["love"]}
    only_2014 = contexts_for_words(["love"], cap=20, sources=["reddit_2014"])
    assert all("reddit_2014" in c.source for c in only_2014["love"])


def test_shared_extract_false_matches_are_left_out():
    """An ASCII-only tokenizer matched 'Jos' (Finnish) for 'José' in the shared extract."""
    shared_extract()
    rows = read_extract(["José"])
    ctxs = contexts_for_words(["José"])["José"]
    assert 0 < len(ctxs) < len(rows)
    assert all(c.form == "José" for c in ctxs)


# --------------------------------------------------------------------------- bad input


@pytest.fixture
def small_extract(tmp_path) -> Path:
    """A small extract built by biaslib itself, in its own folder."""
    docs = list(read_reddit_csv(write_raw(tmp_path / "RC_2014-01.csv.gz")))
    folder = tmp_path / "extract"
    build_extract(docs, ["rose", "ant", "Jack"]).write(folder)
    return folder


def test_a_string_for_words_is_refused(small_extract):
    # today "Adam" is iterated into the stimuli 'A', 'd', 'a', 'm'
    with pytest.raises(TypeError, match=r"single string 'Adam'.*pass \['Adam'\]"):
        contexts_for_words("Adam", path=small_extract)
    with pytest.raises(TypeError, match="single string 'ant'"):
        read_extract("ant", path=small_extract)
    with pytest.raises(TypeError, match="single string 'ant'"):
        build_extract([], "ant")
    with pytest.raises(TypeError, match="the stimulus 3 is a int"):
        contexts_for_words(["ant", 3], path=small_extract)
    with pytest.raises(ValueError, match="blank stimulus"):
        StimulusMatcher(["ant", "  "])


@pytest.mark.parametrize(("cap", "error"), [
    (0, ValueError), (-1, ValueError), (2.5, TypeError), (10.0, TypeError), (True, TypeError),
    ("10", TypeError),
])
def test_cap_must_be_none_or_a_positive_int(small_extract, cap, error):
    with pytest.raises(error, match=rf"cap must be None \(keep all\) or a positive int, got "
                                    rf"{re.escape(repr(cap) if error is TypeError else str(cap))}"):
        contexts_for_words(["ant"], cap=cap, path=small_extract)
    with pytest.raises(error, match="cap must be"):
        contexts_for_test("C1", cap=cap, path=small_extract)


def test_build_extract_cap_seed_and_limits_are_checked(tmp_path):
    docs = [corpus.RawDocument("The ant number one walks.", "reddit_2014", "f", 1)]
    for cap in (2.5, True, None):
        with pytest.raises(TypeError, match="cap must be a positive int"):
            build_extract(docs, ["ant"], cap=cap)
    with pytest.raises(ValueError, match="cap must be a positive int, got 0"):
        build_extract(docs, ["ant"], cap=0)
    with pytest.raises(TypeError, match="seed must be an int"):
        build_extract(docs, ["ant"], seed="1")
    with pytest.raises(ValueError, match="min_tokens <= max_tokens"):
        build_extract(docs, ["ant"], min_tokens=10, max_tokens=3)
    with pytest.raises(TypeError, match="single string"):
        build_extract("The ant walks.", ["ant"])
    with pytest.raises(TypeError, match="RawDocument"):
        build_extract(["The ant walks."], ["ant"])
    with pytest.raises(TypeError, match="source_order must be a list"):
        build_extract(docs, ["ant"], source_order="reddit_2014")
    with pytest.raises(TypeError, match="cap must be a positive int"):
        build_reddit_2014_extract(tmp_path / "out", ["ant"], cap=1.5, cache_dir=tmp_path,
                                  fetch=lambda url, dest: pytest.fail("downloaded"))


@pytest.mark.parametrize("seed", ["1111", 1.0, True, None])
def test_seed_must_be_an_int(small_extract, seed):
    with pytest.raises(TypeError,
                       match=rf"seed must be a non-negative int, got {re.escape(repr(seed))}"):
        contexts_for_words(["ant"], seed=seed, path=small_extract)


def test_sources_must_be_a_list_of_known_names(small_extract):
    # today both give empty lists of contexts
    with pytest.raises(ValueError, match=r"unknown source\(s\) \['reddit-2014'\]; known sources: "
                                         r"\['reddit_2014', 'reddit_other', 'blogs'"):
        contexts_for_words(["ant"], sources=["reddit-2014"], path=small_extract)
    with pytest.raises(TypeError, match=r"single string 'reddit_2014'.*pass \['reddit_2014'\]"):
        contexts_for_words(["ant"], sources="reddit_2014", path=small_extract)
    with pytest.raises(ValueError, match="sources is empty"):
        contexts_for_words(["ant"], sources=[], path=small_extract)
    with pytest.raises(ValueError, match="unknown source"):
        read_extract(sources=["reddit"], path=small_extract)
    with pytest.raises(ValueError, match="unknown source"):
        contexts_for_test("C1", sources=["twitter"], path=small_extract)
    frame = read_extract(path=small_extract)
    with pytest.raises(ValueError, match="unknown source"):
        contexts_for_words(["ant"], sources=["reddit-2014"], frame=frame)
    # valid names still filter as before
    assert len(contexts_for_words(["ant"], sources=["reddit_other"], frame=frame)["ant"]) == 1


def test_sources_an_extract_declares_are_known(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("An ant walks here.\n", encoding="utf-8")
    build_extract(read_text_file(path, "my_notes"), ["ant"]).write(tmp_path / "c")
    ctxs = contexts_for_words(["ant"], sources=["my_notes"], path=tmp_path / "c")
    assert [c.text for c in ctxs["ant"]] == ["An ant walks here."]
    with pytest.raises(ValueError, match="'my_notes'"):  # listed among the known ones
        contexts_for_words(["ant"], sources=["my-notes"], path=tmp_path / "c")


def test_months_must_be_a_list(tmp_path):
    with pytest.raises(TypeError, match="single string '2014-01'"):
        download_reddit_2014(tmp_path, months="2014-01", fetch=lambda url, dest: None)
    with pytest.raises(ValueError, match="YYYY-MM"):
        download_reddit_2014(tmp_path, months=["2014-1"], fetch=lambda url, dest: None)


def test_an_empty_extract_is_refused(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    with gzip.open(folder / corpus.EXTRACT_FILE, "wb"):
        pass  # a valid gzip file without lines
    with pytest.raises(corpus.CorpusError, match=re.escape(str(folder / corpus.EXTRACT_FILE))
                       + ".*holds no sentences"):
        read_extract(path=folder)
    with pytest.raises(ValueError, match="holds no sentences"):
        contexts_for_words(["ant"], path=folder)
    # and none is written
    docs = [corpus.RawDocument("The ant number one walks.", "reddit_2014", "f", 1)]
    with pytest.raises(ValueError, match="holds no sentence"):
        build_extract(docs, ["Latisha"]).write(tmp_path / "none")
    assert not (tmp_path / "none" / corpus.EXTRACT_FILE).exists()


def _damaged_copy(source: Path, folder: Path, data: bytes) -> Path:
    folder.mkdir()
    (folder / corpus.EXTRACT_FILE).write_bytes(data)
    (folder / corpus.COVERAGE_FILE).write_bytes((source / corpus.COVERAGE_FILE).read_bytes())
    return folder / corpus.EXTRACT_FILE


def _assert_recoverable(err: pytest.ExceptionInfo, path: Path, line: int | None = None) -> None:
    message = str(err.value)
    assert str(path.resolve()) in message
    assert "build_reddit_2014_extract" in message and corpus.CORPUS_ENV in message
    if line is not None:
        assert f"line {line}:" in message
    assert isinstance(err.value, ValueError)


def test_truncated_extract_names_file_and_recovery(small_extract, tmp_path):
    good = (small_extract / corpus.EXTRACT_FILE).read_bytes()
    path = _damaged_copy(small_extract, tmp_path / "cut", good[: len(good) // 2])
    with pytest.raises(corpus.CorpusError, match="truncated") as err:
        read_extract(path=path)
    _assert_recoverable(err, path)
    assert isinstance(err.value.__cause__, EOFError)


def test_bad_crc_names_file_and_recovery(small_extract, tmp_path):
    good = bytearray((small_extract / corpus.EXTRACT_FILE).read_bytes())
    good[-8] ^= 0xFF  # first byte of the CRC-32 in the gzip trailer
    path = _damaged_copy(small_extract, tmp_path / "crc", bytes(good))
    with pytest.raises(corpus.CorpusError, match="cannot be decompressed") as err:
        contexts_for_words(["ant"], path=path)
    _assert_recoverable(err, path)
    assert isinstance(err.value.__cause__, gzip.BadGzipFile)


def test_malformed_json_line_names_file_line_and_recovery(small_extract, tmp_path):
    lines = gzip.decompress((small_extract / corpus.EXTRACT_FILE).read_bytes()).splitlines()
    assert lines[1].startswith(b'{"stimulus": "rose"')
    # a line cut short: its stimulus key is intact, its JSON is not
    broken = b"\n".join([lines[0], lines[1][:40], *lines[2:]]) + b"\n"
    path = _damaged_copy(small_extract, tmp_path / "json", gzip.compress(broken))
    with pytest.raises(corpus.CorpusError, match="not valid JSON") as err:
        read_extract(["rose"], path=path)
    _assert_recoverable(err, path, line=2)
    assert isinstance(err.value.__cause__, json.JSONDecodeError)
    # a line that is not JSON at all
    garbage = b"\n".join([lines[0], b"this is not JSON", *lines[2:]]) + b"\n"
    path = _damaged_copy(small_extract, tmp_path / "garbage", gzip.compress(garbage))
    with pytest.raises(corpus.CorpusError, match="does not start with a stimulus key") as err:
        read_extract(path=path)
    _assert_recoverable(err, path, line=2)


# --------------------------------------------------------------------------- Unicode (NFC)

DECOMPOSED = "Jose\u0301"  # "José" with a combining acute accent


def test_matcher_normalises_stimuli_and_sentences():
    assert DECOMPOSED != "José"
    matcher = StimulusMatcher([DECOMPOSED, "José"])
    assert matcher.stimuli == ("José",)  # one stimulus
    assert matcher.find(f"{DECOMPOSED} Mourinho") == {"José": [(0, 4)]}
    assert MATCHER.find(f"{DECOMPOSED} Mourinho") == {"José": [(0, 4)]}
    assert MATCHER.spans("José Mourinho", DECOMPOSED) == [(0, 4)]
    assert split_sentences(f"{DECOMPOSED} said so. Fine.") == ["José said so.", "Fine."]


def test_to_context_normalises_stimulus_and_sentence():
    ctx = to_context(f"I met {DECOMPOSED} today.", "José")
    assert (ctx.text, ctx.form, ctx.start, ctx.end) == ("I met José today.", "José", 6, 10)
    ctx = to_context("I met José today.", DECOMPOSED)
    assert ctx.word == "José" and ctx.form == "José"
    # a sentence that is not NFC is kept as stored when the stimulus occurs in it
    krishna = "Kr\u0323s\u0323n\u0323a is engaged in playing upon His flute."
    assert to_context(krishna, "flute").text == krishna


def test_build_and_read_with_decomposed_text(tmp_path):
    docs = [corpus.RawDocument(f"Today {DECOMPOSED} scored twice.", "reddit_2014", "f", 1)]
    ex = build_extract(docs, [DECOMPOSED])
    assert list(ex.records.stimulus) == ["José"]
    assert list(ex.records.sentence) == ["Today José scored twice."]
    ex.write(tmp_path / "c")
    ctxs = contexts_for_words([DECOMPOSED], path=tmp_path / "c")
    assert list(ctxs) == ["José"]
    assert [(c.form, c.word) for c in ctxs["José"]] == [("José", "José")]
    assert list(read_extract([DECOMPOSED], path=tmp_path / "c").stimulus) == ["José"]

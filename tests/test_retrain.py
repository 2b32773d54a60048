"""Retraining word2vec for test-retest reliability (biasbook.retrain), on tiny corpora.

The corpus readers on small files written here, the bootstrap's seeding, gensim's
determinism with one thread, the WEAT scores of a retrained table against run_weat, and
the intraclass correlations against biaslib.stats.reliability on the same matrices.
"""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest

from biasbook.retrain import (
    RetrainResult,
    TrainConfig,
    as_embeddings,
    bootstrap_documents,
    coverage_table,
    icc_table,
    read_contexts,
    read_reddit,
    train,
    weat_scores,
)
from biaslib.stats.reliability import intraclass_correlation

gensim = pytest.importorskip("gensim", reason="retraining needs gensim (the dev extra)")


def test_read_contexts_caps_dedupes_and_excludes(tmp_path):
    rows = [("aster", "reddit_2014", "An aster grew."), ("aster", "blogs", "Asters, again!"),
            ("aster", "blogs", "A third aster."), ("tulip", "reddit_2014", "An aster grew."),
            ("tulip", "wikipedia", "Tulip's https://x.org bulbs.")]
    path = tmp_path / "contexts.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for stimulus, source, sentence in rows:
            fh.write(json.dumps({"stimulus": stimulus, "source": source,
                                 "sentence": sentence}) + "\n")
    assert read_contexts(path) == [["an", "aster", "grew"], ["asters", "again"],
                                   ["a", "third", "aster"], ["tulip", "s", "bulbs"]]
    assert read_contexts(path, cap=1) == [["an", "aster", "grew"]]  # tulip's first: a repeat
    assert read_contexts(path, exclude_sources=("reddit_2014",), stimuli=["tulip"]) == [
        ["tulip", "s", "bulbs"]]
    assert read_contexts(path, lowercase=False)[0] == ["An", "aster", "grew"]


def test_read_reddit_reads_the_months_it_is_given(tmp_path):
    with gzip.open(tmp_path / "RC_2014-01.csv.gz", "wt", encoding="utf-8") as fh:
        fh.write('news,t5_1,"Hello World, short-term!",1388534400\n'
                 "news,t5_1,[deleted],1388534401\n")
    assert read_reddit(tmp_path, months=("2014-01",)) == [["hello", "world", "short-term"]]
    with pytest.raises(FileNotFoundError, match="download_reddit_2014"):
        read_reddit(tmp_path, months=("2014-02",))


def test_bootstrap_documents_is_seeded_and_draws_with_replacement():
    docs = [[str(i)] for i in range(50)]
    one = bootstrap_documents(docs, 3)
    assert one == bootstrap_documents(docs, 3) and one != bootstrap_documents(docs, 4)
    assert len(one) == 50 and len({d[0] for d in one}) < 50  # some drawn twice


def _corpus(seed: int = 0) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    flowers, insects = ["rose", "tulip", "lily", "daisy"], ["ant", "wasp", "flea", "moth"]
    nice, nasty = ["love", "joy", "peace", "gift"], ["hate", "war", "death", "filth"]
    filler = [f"w{i}" for i in range(30)]
    docs = []
    for _ in range(600):
        if rng.random() < 0.5:
            words = [*rng.choice(flowers, 2), *rng.choice(nice, 2)]
        else:
            words = [*rng.choice(insects, 2), *rng.choice(nasty, 2)]
        docs.append([*words, *rng.choice(filler, 4)])
    return docs


def test_training_is_deterministic_with_one_thread_and_scores_like_run_weat():
    from biaslib.evaluate.weat import run_weat
    from biaslib.stimuli.data import StimulusTest, WordSet

    config = TrainConfig(dim=16, epochs=3, min_count=1)
    first, second = train(_corpus(), 7, config), train(_corpus(), 7, config)
    np.testing.assert_array_equal(first.wv.vectors, second.wv.vectors)
    assert not np.array_equal(first.wv.vectors, train(_corpus(), 8, config).wv.vectors)
    table = as_embeddings(first, "tiny")
    assert table.key_for("Rose") == "rose"  # looked up lowercased
    sets = {"X": ("rose", "tulip", "lily", "daisy"), "Y": ("ant", "wasp", "flea", "moth"),
            "A": ("love", "joy", "peace", "gift"), "B": ("hate", "war", "death", "filth")}
    test = StimulusTest(name="tiny", title="tiny", provenance="test", source="test", **{
        role: WordSet(key=role, label=role, words=words, provenance="test")
        for role, words in sets.items()})
    import biasbook.retrain as retrain

    original = retrain.load_test
    retrain.load_test = lambda name: test  # the module looks tests up by name
    try:
        ds, scores = weat_scores(table, ("tiny",))
        coverage = coverage_table(table, ("tiny",))
    finally:
        retrain.load_test = original
    assert ds["tiny"] == pytest.approx(run_weat(test, table).result.effect_size)
    assert len(scores) == 8 and set(scores["role"]) == {"X", "Y"}
    assert coverage.loc[0, "found"] == 16 and coverage.loc[0, "missing"] == ""


def test_icc_table_is_the_intraclass_correlation_of_the_runs():
    rng = np.random.default_rng(2)
    words = [f"w{i}" for i in range(12)]
    true = rng.normal(size=12)
    rows = [{"run": run, "test": "T", "role": "X", "word": w, "s": t + 0.3 * rng.normal()}
            for run in range(4) for w, t in zip(words, true, strict=True)]
    scores = pd.DataFrame(rows)
    d = pd.DataFrame({"run": range(4), "T": rng.normal(size=4), "U": rng.normal(size=4) + 2,
                      "V": rng.normal(size=4) - 2})
    result = RetrainResult(effect_sizes=d, scores=scores, coverage=pd.DataFrame(),
                           config={}, tests=("T", "U", "V"))
    table = icc_table(result).set_index("test")
    wide = scores.pivot(index="word", columns="run", values="s").to_numpy()
    expected = intraclass_correlation(wide, model="agreement")
    assert table.loc["T", "ICC_A1"] == pytest.approx(expected.value)
    assert table.loc["T", "ICC_A1_low"] == pytest.approx(expected.ci_low)
    assert table.loc["T", "ICC_C1"] == pytest.approx(
        intraclass_correlation(wide, model="consistency").value)
    assert table.loc["all tests", "targets"] == 3 and table.loc["T", "runs"] == 4

"""The CEAT chapter's tables: encoding contexts per word, the table runner, the
published comparisons and the stored results (recomputed slices)."""

import zlib

import numpy as np
import pandas as pd
import pytest
from shared_paths import require_corpus

from biasbook.ceat import (
    OFFLINE_CAPS,
    RESAMPLING,
    ceat_over_models,
    myb_ceat_comparison,
    myb_table12_comparison,
    resampling_summary,
    resampling_table,
    template_contexts,
)
from biasbook.registry import get_table
from biaslib.embeddings.base import ContextEncoder
from biaslib.embeddings.models import EncoderSpec
from biaslib.evaluate.ceat import embed_word_contexts, group_by_word
from biaslib.methods.ceat import CEAT_MIND_YOUR_BIAS, CEAT_ORIGINAL, ceat
from biaslib.stats.sets import ROLES
from biaslib.stimuli.contexts import Context
from biaslib.stimuli.corpus import extract_sha256
from biaslib.stimuli.data import load_test

# --------------------------------------------------------------------------- embedding


class FakeEncoder(ContextEncoder):
    """Deterministic vectors from the word and the sentence (no model)."""

    name = "fake encoder"
    fingerprint = "fake-weights"

    def __init__(self):
        self.calls = 0

    def encode_words(self, contexts, pooling="mean"):
        self.calls += 1
        out = []
        for c in contexts:
            assert c.text[c.start:c.end] == c.form
            rng = np.random.default_rng(zlib.crc32(f"{c.word}|{c.text}".encode()))
            base = np.random.default_rng(len(c.word)).normal(size=8)
            out.append(base + 0.5 * rng.normal(size=8))
        return np.asarray(out, dtype=np.float32)


def fake_contexts(test):
    return {role: {w: [Context(f"I like {w} here.", w, w, 7, 7 + len(w), "fake")]
                   * (0 if w == "Latisha" else 3) for w in ws.words}
            for role, ws in test.sets.items()}


def test_embed_word_contexts_in_one_call():
    enc = FakeEncoder()
    test = load_test("MYB-I1-name")
    vec = embed_word_contexts(fake_contexts(test), enc)
    assert enc.calls == 1
    assert vec["Y"]["Latisha"].shape == (0, 8) and vec["X"]["Brad"].shape == (3, 8)
    res = ceat(vec, convention=CEAT_ORIGINAL)
    assert res.dropped["Y"] == ("Latisha",)


def test_group_by_word_templates():
    grouped = template_contexts(load_test("MYB-C9-term"))
    assert set(grouped) == set(ROLES)
    assert list(grouped["X"]) == list(load_test("MYB-C9-term").X.words)
    assert all(c.word == w for cs in grouped["X"].values() for c in cs for w in [c.word])
    assert group_by_word("MYB-C9-term", {r: () for r in ROLES})["A"]["brief"] == []


def test_ceat_table_rows_name_the_model_and_say_what_did_not_run():
    model = EncoderSpec("fake", FakeEncoder)
    tests = {"I1": "MYB-I1-name", "C9": "MYB-C9-term"}

    def source(test):
        ctx = fake_contexts(test)
        if test.name == "MYB-C9-term":
            ctx["X"] = {w: [] for w in ctx["X"]}
        return ctx

    frame = ceat_over_models(tests, [model], source, context_label="fake contexts")
    assert len(frame) == 4
    assert set(frame["weights"]) == {"fake-weights"} and set(frame["encoder"]) == {"fake encoder"}
    i1 = frame[frame.test == "I1"]
    assert (i1["not run"] == "").all() and (i1["dropped"] == "Y: Latisha").all()
    assert set(i1["convention"]) == {"mind-your-bias", "ceat-original"}
    c9 = frame[frame.test == "C9"]
    assert c9["effect_size"].isna().all() and c9["not run"].str.contains("X: 6/6").all()


def test_resampling_table_is_ceat_under_each_setting():
    vec = embed_word_contexts(fake_contexts(load_test("MYB-C9-term")), FakeEncoder())
    runs = resampling_table(vec, n_samples=(20, 40), replacement=("always",), seeds=(0, 1))
    assert list(runs["N"]) == [20, 20, 40, 40] and list(runs["seed"]) == [0, 1, 0, 1]
    direct = ceat(vec, convention=CEAT_MIND_YOUR_BIAS.replace(n_samples=40, replacement="always",
                                                              seed=1))
    assert runs["CES"].iloc[3] == direct.ces and runs["SE"].iloc[3] == direct.meta.se
    summary = resampling_summary(runs)
    assert summary.loc[(20, "always"), "CES_sd_over_seeds"] == pytest.approx(
        runs["CES"].iloc[:2].std())


# --------------------------------------------------------------------------- comparisons


def test_myb_comparison_shows_published_and_ours():
    ours = pd.DataFrame([
        {"test": "C1", "column": "my model", "convention": "mind-your-bias",
         "effect_size": 0.5, "p_value": 1e-9},
        {"test": "Dis", "column": "my model", "convention": "mind-your-bias",
         "effect_size": float("nan"), "p_value": float("nan")},
    ])
    table = myb_ceat_comparison(ours)
    assert list(table.index) == ["C1", "C3", "C6", "C9", "Dis", "Occ", "I1", "I2"]
    # Mind Your Bias, Table 3: C1, BERT: Guo & Caliskan 0.64, Mind Your Bias 0.72 (bold)
    assert table.loc["C1", "BERT orig."] == "0.64" and table.loc["C1", "BERT MYB"] == "0.72*"
    assert table.loc["C6", "BLOOM MYB"] == "0.00"  # not significant in the authors' file
    assert table.loc["C1", "my model (ours)"] == "0.50*"
    assert table.loc["Dis", "my model (ours)"] == "–"
    # Ours beside the test, before the published columns.
    assert table.columns[0] == "my model (ours)"
    t12 = myb_table12_comparison(ours.assign(contexts="corpus, <=100 sentences/stimulus"))
    assert t12.loc["C1", "BERT template (MYB)"] == "0.97*"
    assert t12.loc["C1", "my model corpus"] == "0.50*"


# --------------------------------------------------------------------------- stored tables


# The slices, their keys and tolerances are those the chapter declares (ceat.DECLARED_TABLES);
# it builds each encoder once for all slices.


@pytest.fixture(scope="module")
def stored():
    from biasbook.stored import load_results

    require_corpus("the stored CEAT tables are recomputed from the corpus extract")
    return load_results


def test_ceat_myb_slice(stored):
    # MiniLM only: SmolLM2 needs minutes for the 520 sentences of even the smallest test
    # on CI's CPU; its rows are checked through the template slice below.
    frame, meta = stored("ceat_myb")
    assert meta["sentences_per_stimulus"] == OFFLINE_CAPS
    get_table("ceat_myb").check_slices(frame)


def test_ceat_caliskan_slice(stored):
    # Caliskan's C9 has the same words as MYB-C9-term: its vectors come from the cache.
    frame, _ = stored("ceat_caliskan")
    get_table("ceat_caliskan").check_slices(frame)


def test_ceat_contexts_slice(stored):
    # Both models on the templates, MiniLM on the 2014 Reddit sentences.
    frame, _ = stored("ceat_contexts")
    assert len(get_table("ceat_contexts").check_slices(frame)) == 2


def test_ceat_resampling_slice(stored):
    # MiniLM's context vectors of the experiment's test, N = 50 and 1,000.
    frame, meta = stored("ceat_resampling")
    assert meta["experiment"]["n_samples"] == list(RESAMPLING["n_samples"])
    get_table("ceat_resampling").check_slices(frame)


def test_ceat_coverage_table(stored):
    frame, meta = stored("ceat_coverage")
    assert meta["extract_sha256"] == extract_sha256()
    get_table("ceat_coverage").check_slices(frame)


@pytest.mark.parametrize("name", ["ceat_myb", "ceat_caliskan", "ceat_contexts",
                                  "ceat_resampling"])
def test_ceat_provenance_names_every_model_and_the_extract(name):
    from biasbook.stored import load_results
    from biaslib.stimuli.corpus import SHARED_EXTRACT_SHA256

    frame, meta = load_results(name)
    assert set(meta["models"]) == set(frame["column"])
    for info in meta["models"].values():
        assert info["weights"] in set(frame["weights"])
    assert set(meta["conventions"]) == {"mind-your-bias", "ceat-original"}
    assert meta["extract_sha256"] == SHARED_EXTRACT_SHA256


# --------------------------------------------------------------------------- display helpers


def test_result_tables_split_the_row_and_say_when_a_tail_underflowed():
    from biasbook.ceat import SHOWN_ESTIMATE_COLUMNS, SHOWN_SPREAD_COLUMNS, result_tables

    row = pd.DataFrame([{"convention": "mind-your-bias", "n_samples": 10000.0,
                         "n_contexts": 3200.0, "effect_size": 0.86444, "ci_low": 0.858,
                         "ci_high": 0.87,
                         "se": 0.0033, "p_value": 0.0, "tail": "two-sided", "tau2": 0.1,
                         "i2": 0.98, "q_p_value": 2e-207, "weighted_variance": 0.1,
                         "mean_d": 0.865, "sd_d": 0.3156}])
    estimate, spread = result_tables(row)
    assert tuple(estimate.columns) == SHOWN_ESTIMATE_COLUMNS
    assert tuple(spread.columns) == SHOWN_SPREAD_COLUMNS
    # The convention by its authors' name, not the preset's id for code.
    assert list(estimate.index) == list(spread.index) == ["Mind Your Bias"]
    est, spr = estimate.loc["Mind Your Bias"], spread.loc["Mind Your Bias"]
    assert (est["N"], est["contexts"]) == ("10,000", "3,200")
    assert (est["CES"], est["95% CI"], est["SE"]) == ("0.86", "[0.86, 0.87]", "0.003")
    assert est["p"] == "< 1e-300" and spr["Q p-value"] == "2.0e-207"
    assert (spr["I² (%)"], spr["SD d"]) == ("98.0", "0.32")
    # No header is a snake_case column name.
    assert not any("_" in c for c in (*estimate.columns, *spread.columns))


def toy_rows(**extra):
    return pd.DataFrame([
        {"test": "C1", "column": "m", "convention": "mind-your-bias", "effect_size": 0.5,
         "p_value": 0.0, "not run": "", "n_contexts": 10.0, "dropped": "", **extra},
        {"test": "C3", "column": "m", "convention": "mind-your-bias", "effect_size": -0.25,
         "p_value": 0.003, "not run": "", "n_contexts": 12.0, "dropped": "X: a", **extra},
        {"test": "Dis", "column": "m", "convention": "mind-your-bias", "effect_size": np.nan,
         "p_value": np.nan, "not run": "CEAT: X: 13/23 words lack contexts", "n_contexts": np.nan,
         "dropped": "", **extra},
    ])


def test_ces_and_caliskan_tables_print_underflowed_p_values():
    from biasbook.ceat import caliskan_table, ces_table

    wide = ces_table(toy_rows())
    assert list(wide.index) == ["C1", "C3"]
    assert wide.loc["C1", ("m", "Mind Your Bias")] == "0.50 (< 1e-300)"
    assert wide.loc["C3", ("m", "Mind Your Bias")] == "−0.25 (0.003)"
    table = caliskan_table(toy_rows(), tests=["C1", "C3", "Dis"])
    assert table.loc["C1", ("Mind Your Bias", "CES")] == "0.50"
    assert table.loc["C1", ("Mind Your Bias", "p")] == "< 1e-300"
    assert table.loc["Dis", ("Mind Your Bias", "p")] == "–"
    # No header names a preset by its id for code.
    headers = {str(c) for t in (wide, table) for c in t.columns.to_flat_index()}
    assert not any("mind-your-bias" in h or "ceat-original" in h for h in headers)
    assert table.loc["C3", ("", "dropped")] == "X: a"


def test_reddit_2014_comparison_has_no_nan_and_integer_counts():
    from biasbook.ceat import reddit_2014_comparison

    full = toy_rows(contexts="corpus")
    subset = toy_rows(contexts="reddit_2014, <=100 sentences/stimulus")
    subset.loc[0, ["effect_size", "p_value", "n_contexts"]] = np.nan
    subset.loc[0, "not run"] = "CEAT: X: 7/25 words lack contexts"
    table = reddit_2014_comparison(subset, full, column="m")
    full_, only = "full extract", "2014 Reddit only"
    assert table.loc["C1", (full_, "CES")] == "0.50"
    assert table.loc["C1", (full_, "contexts")] == "10"
    assert table.loc["C1", (only, "CES")] == "–"
    assert table.loc["C1", (only, "p")] == "–"
    assert table.loc["C1", (only, "why not run")] == "X: 7 of 25 stimuli without sentences"
    assert table.loc["C3", (only, "p")] == "0.003"
    assert table.loc["C3", (only, "CES")] == "−0.25"
    assert table.loc["C3", (only, "contexts")] == "12"
    assert table.loc["Dis", (full_, "CES")] == "not run"
    assert not table.isna().any().any()


def test_table12_parts_and_counts():
    from biasbook.ceat import table12_counts, templates_vs_corpus

    rows = pd.concat([toy_rows(contexts="corpus, <=100 sentences/stimulus"),
                      toy_rows(contexts="templates").assign(effect_size=[0.25, 0.5, np.nan])])
    ours = myb_table12_comparison(rows, part="ours")
    assert list(ours.columns) == ["m corpus", "m templates"]
    assert ours.loc["C1", "m templates"] == "0.25*"
    published = myb_table12_comparison(rows, part="published")
    assert all(c.endswith("(MYB)") for c in published.columns)
    two = myb_table12_comparison(rows, part="both", two_level=True)
    assert ("BERT (MYB)", "template") in two.columns and ("m (ours)", "templates") in two.columns
    assert two[("m (ours)", "templates")].tolist() == ours["m templates"].tolist()
    wide = templates_vs_corpus(rows)
    assert list(wide.index) == [("m", "C1"), ("m", "C3")]
    counts = table12_counts(rows)
    # Mind Your Bias, Table 12 (CEAT): 40 model × test cells.
    assert counts.iloc[0].tolist() == [40, 29, 7]
    # C3: templates 0.5 vs corpus -0.25, larger and of the other sign.
    assert counts.loc["ours"].tolist() == [2, 1, 1]
    with pytest.raises(ValueError, match="part"):
        myb_table12_comparison(rows, part="mine")


def test_resampling_view_formats_the_largest_p():
    from biasbook.ceat import resampling_view

    runs = pd.DataFrame({"N": [50, 50], "contexts drawn": ["always"] * 2, "seed": [0, 1],
                         "CES": [0.5, 0.6], "SE": [0.1, 0.1], "p (two-sided)": [0.0, 1e-40],
                         "p (one-sided)": [0.0, 0.0]})
    view = resampling_view(resampling_summary(runs))
    assert view.loc[(50, "always"), "largest p (two-sided)"] == "1.0e-40"
    # SD of 0.5 and 0.6 (ddof 1): 0.1 / sqrt(2) = 0.0707...
    assert view.loc[(50, "always"), "SD of the CES over seeds"] == "0.071"
    assert view.loc[(50, "always"), "mean CES"] == "0.55"


def test_ceat_findings_and_sign_agreement_from_the_stored_tables():
    from biasbook.ceat import ceat_conventions_table, ceat_findings, sign_agreement
    from biasbook.stored import load_results

    rows, _ = load_results("ceat_myb")
    contexts, _ = load_results("ceat_contexts")
    runs, _ = load_results("ceat_resampling")
    records = {f.claim: f for f in ceat_findings(rows, contexts, resampling_summary(runs),
                                                 sd_d=0.3)}
    sig = records["CEAT finds significant bias almost everywhere"]
    # Mind Your Bias, Table 3: 38 of the 40 CEAT results in bold.
    assert sig.published == "Table 3: 38 of 40 CEAT results in bold (p < 0.01)"
    t12 = records["Templates change CEAT's results in size and sign"]
    assert t12.published == "Table 12: templates larger in 29 of 40 cells; signs differ in 7"
    # The SD of the per-sample effect sizes given here (0.3) is the one quoted.
    assert records["The CES is robust to the random draw of contexts"].ours.endswith("0.30")
    agree = sign_agreement(rows)
    assert list(agree.columns) == ["tests run", "ELMo", "BERT", "GPT-2", "OPT", "BLOOM"]
    assert (agree.drop(columns="tests run").le(agree["tests run"], axis=0)).all().all()
    conventions = ceat_conventions_table()
    assert list(conventions.index) == ["Guo & Caliskan", "Mind Your Bias"]
    assert list(conventions["preset"]) == ["ceat-original", "mind-your-bias"]
    assert list(conventions["samples N"]) == ["1,000", "10,000"]


# --------------------------------------------------------------------------- findings()


@pytest.fixture(scope="module")
def chapter_findings():
    from biasbook.ceat import findings

    return findings()


def test_findings_papers_models_and_claims(chapter_findings):
    from biasbook.findings import findings_frame

    # Sections are checked against the chapter's labels in test_finding_sections.py.
    assert len(chapter_findings) == 10  # with Figure 3 and the compound stimuli
    for f in chapter_findings:
        assert f.paper in {"Guo & Caliskan (2021)", "Husse & Spitz (2022)"}
        assert "stand-in" in f.model
    assert not findings_frame(chapter_findings)["claim"].duplicated().any()


def test_findings_verdicts_against_the_stored_table_by_hand(chapter_findings):
    from biasbook.stored import load_results

    rows, _ = load_results("ceat_myb")
    mb = rows[(rows["convention"] == CEAT_MIND_YOUR_BIAS.name) & (rows["not run"] == "")]
    records = {f.claim: f for f in chapter_findings}
    # Significant everywhere: every test that ran has p < 0.01 on both models.
    sig = records["CEAT finds significant bias almost everywhere"]
    per_model = mb.groupby("column")["p_value"].agg(lambda p: ((p < 0.01).sum(), len(p)))
    assert sig.holds is all(n == total for n, total in per_model)
    for model, short in (("all-MiniLM-L6-v2", "MiniLM"), ("SmolLM2-135M-Instruct", "SmolLM2")):
        n, total = per_model[model]
        assert f"{short} {n} of {total} tests p < 0.01" in sig.ours
    # I1 and I2 positive: only on the models whose CES is positive on both.
    inter = mb[mb["test"].isin(["I1", "I2"])].groupby("column")["effect_size"].min()
    positive = sorted(inter.index[inter > 0])
    verdict = records["I1 and I2 are positive, except in Guo & Caliskan's GPT-2 run"].holds
    assert positive == ["SmolLM2-135M-Instruct"] and verdict == "for SmolLM2"
    # 2014 Reddit alone: fewer tests run than on the full extract.
    contexts, _ = load_results("ceat_contexts")
    r14 = contexts[contexts["contexts"].str.startswith("reddit_2014")
                   & (contexts["convention"] == CEAT_MIND_YOUR_BIAS.name)
                   & (contexts["column"] == "all-MiniLM-L6-v2")]
    corpus = records["A larger corpus than 2014 Reddit helps rare stimuli"]
    assert corpus.ours.startswith(f"{(r14['not run'] == '').sum()} of {len(r14)} tests run")


def test_findings_read_only_the_stored_tables(monkeypatch, tmp_path):
    """No corpus extract (an empty folder as the extract's place): findings() still runs."""
    from biasbook.ceat import findings
    from biaslib.stimuli.corpus import CORPUS_ENV, corpus_dir

    monkeypatch.setenv(CORPUS_ENV, str(tmp_path))
    with pytest.raises(FileNotFoundError):
        corpus_dir()
    assert [f.holds for f in findings()] == [f.holds for f in findings()]

